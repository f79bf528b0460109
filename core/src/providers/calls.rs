//! The assistant message that carries tool calls, written in each API's wire shape
//! ([`format_calls`]): what goes into the conversation before the tool results
//! ([`super::format_results`]).
//!
//! Rules:
//! - Each API gets the shape it takes back as input: one message object (OpenAI Chat, Anthropic,
//!   Gemini, Cohere v1 and v2, Bedrock, Ollama) or a list of input items (OpenAI Responses,
//!   Gemini Interactions steps).
//! - Arguments are an object where the API takes one, and their compact JSON text where it takes
//!   a string (OpenAI Chat and Responses, Cohere v2).
//! - The text (`content`) comes first, as the API's text part; empty or `None` writes none
//!   (Anthropic and Bedrock reject empty text blocks). Cohere v2 takes the text beside calls as
//!   `tool_plan`.
//! - Ids: a call without an id where the API needs one (OpenAI Chat and Responses, Anthropic,
//!   Gemini Interactions, Cohere v2, Bedrock) is `result.missing_field`, never an invented id;
//!   Gemini and Ollama write an id when there is one; Cohere v1 has no call ids, so none is
//!   written. A call with an empty name is `result.missing_field` too.
//! - Round trip: `parse_response` with the same provider reads back exactly the calls given
//!   (for Cohere v1, without their ids).

use crate::error::{ErrorCode, ParseError};
use crate::lex::quote;
use crate::value::{Object, Value};

use super::{Provider, ProviderCall};

/// The assistant message (or, for `openai_responses` and `gemini_interactions`, the list of
/// input items) that carries `calls`, with `content` as its text, in `provider`'s wire shape.
pub fn format_calls(calls: &[ProviderCall], provider: Provider, content: Option<&str>) -> Result<Value, ParseError> {
    let text = content.filter(|t| !t.is_empty());
    let written = calls
        .iter()
        .enumerate()
        .map(|(i, c)| one(i, c, provider))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(message(provider, text, written))
}

fn obj(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Object>())
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// Where a provider wants a call's id, for the error that says it is missing.
fn id_wire(provider: Provider) -> Option<&'static str> {
    match provider {
        Provider::OpenaiChat | Provider::CohereV2 => Some("tool_calls[].id"),
        Provider::OpenaiResponses => Some("call_id"),
        Provider::Anthropic => Some("the tool_use block's `id`"),
        Provider::GeminiInteractions => Some("the function_call step's `id`"),
        Provider::Bedrock => Some("toolUse.toolUseId"),
        Provider::Gemini | Provider::Ollama | Provider::CohereV1 => None,
    }
}

fn missing(i: usize, call: &ProviderCall, what: &str, provider: Provider, hint: &str) -> ParseError {
    let tool = Some(call.name.as_str())
        .filter(|n| !n.is_empty())
        .map(|n| format!(" ({})", quote(n)));
    ParseError::new(
        ErrorCode::ResultMissingField,
        0,
        format!(
            "call {i}{} has no {what}; {provider} needs one{hint}",
            tool.unwrap_or_default()
        ),
    )
}

/// The call's id as written (`None` where the provider takes none, or it is optional and absent).
fn id_of(i: usize, call: &ProviderCall, provider: Provider) -> Result<Option<&str>, ParseError> {
    if provider == Provider::CohereV1 {
        return Ok(None);
    }
    let id = call.id.as_deref().filter(|id| !id.is_empty());
    match (id_wire(provider), id) {
        (Some(wire), None) => Err(missing(
            i,
            call,
            "`id`",
            provider,
            &format!(" as {wire} (parse_message can generate ids; format_calls never invents one)"),
        )),
        (_, id) => Ok(id),
    }
}

/// One call in the provider's shape.
fn one(i: usize, call: &ProviderCall, provider: Provider) -> Result<Value, ParseError> {
    if call.name.is_empty() {
        return Err(missing(i, call, "`name`", provider, ""));
    }
    let id = id_of(i, call, provider)?;
    let name = s(&call.name);
    let object = || Value::Object(call.arguments.clone());
    let json = || Value::String(Value::Object(call.arguments.clone()).to_json());
    let with_id = |entries: Vec<(&str, Value)>| {
        let mut all = Vec::with_capacity(entries.len() + 1);
        if let Some(id) = id {
            all.push(("id", s(id)));
        }
        all.extend(entries);
        obj(all)
    };
    Ok(match provider {
        Provider::OpenaiChat | Provider::CohereV2 => with_id(vec![
            ("type", s("function")),
            ("function", obj(vec![("name", name), ("arguments", json())])),
        ]),
        Provider::OpenaiResponses => obj(vec![
            ("type", s("function_call")),
            ("call_id", s(id.unwrap_or_default())),
            ("name", name),
            ("arguments", json()),
        ]),
        Provider::Anthropic => obj(vec![
            ("type", s("tool_use")),
            ("id", s(id.unwrap_or_default())),
            ("name", name),
            ("input", object()),
        ]),
        Provider::Gemini => obj(vec![(
            "functionCall",
            with_id(vec![("name", name), ("args", object())]),
        )]),
        Provider::GeminiInteractions => obj(vec![
            ("type", s("function_call")),
            ("id", s(id.unwrap_or_default())),
            ("name", name),
            ("arguments", object()),
        ]),
        Provider::CohereV1 => obj(vec![("name", name), ("parameters", object())]),
        Provider::Bedrock => obj(vec![(
            "toolUse",
            obj(vec![
                ("toolUseId", s(id.unwrap_or_default())),
                ("name", name),
                ("input", object()),
            ]),
        )]),
        Provider::Ollama => with_id(vec![("function", obj(vec![("name", name), ("arguments", object())]))]),
    })
}

/// The text part (if any) first, then the calls, in one list.
fn parts(calls: Vec<Value>, text_part: Option<Value>) -> Value {
    Value::Array(text_part.into_iter().chain(calls).collect())
}

/// The message (or item list) around the written calls.
fn message(provider: Provider, text: Option<&str>, calls: Vec<Value>) -> Value {
    let has_calls = !calls.is_empty();
    match provider {
        Provider::OpenaiChat => {
            let mut entries = vec![("role", s("assistant")), ("content", text.map_or(Value::Null, s))];
            if has_calls {
                entries.push(("tool_calls", Value::Array(calls)));
            }
            obj(entries)
        }
        Provider::OpenaiResponses => parts(
            calls,
            text.map(|t| {
                obj(vec![
                    ("type", s("message")),
                    ("role", s("assistant")),
                    ("content", s(t)),
                ])
            }),
        ),
        Provider::Anthropic => obj(vec![
            ("role", s("assistant")),
            (
                "content",
                parts(calls, text.map(|t| obj(vec![("type", s("text")), ("text", s(t))]))),
            ),
        ]),
        Provider::Gemini => obj(vec![
            ("role", s("model")),
            ("parts", parts(calls, text.map(|t| obj(vec![("text", s(t))])))),
        ]),
        Provider::GeminiInteractions => parts(
            calls,
            text.map(|t| {
                obj(vec![
                    ("type", s("model_output")),
                    (
                        "content",
                        Value::Array(vec![obj(vec![("type", s("text")), ("text", s(t))])]),
                    ),
                ])
            }),
        ),
        Provider::CohereV1 => {
            let mut entries = vec![("role", s("CHATBOT")), ("message", s(text.unwrap_or_default()))];
            if has_calls {
                entries.push(("tool_calls", Value::Array(calls)));
            }
            obj(entries)
        }
        Provider::CohereV2 => {
            let mut entries = vec![("role", s("assistant"))];
            match (text, has_calls) {
                (Some(t), true) => entries.push(("tool_plan", s(t))),
                (Some(t), false) => entries.push((
                    "content",
                    Value::Array(vec![obj(vec![("type", s("text")), ("text", s(t))])]),
                )),
                (None, _) => {}
            }
            if has_calls {
                entries.push(("tool_calls", Value::Array(calls)));
            }
            obj(entries)
        }
        Provider::Bedrock => obj(vec![
            ("role", s("assistant")),
            ("content", parts(calls, text.map(|t| obj(vec![("text", s(t))])))),
        ]),
        Provider::Ollama => {
            let mut entries = vec![("role", s("assistant")), ("content", s(text.unwrap_or_default()))];
            if has_calls {
                entries.push(("tool_calls", Value::Array(calls)));
            }
            obj(entries)
        }
    }
}
