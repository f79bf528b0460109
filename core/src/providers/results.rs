//! Tool results written back in the shape each API expects next.
//!
//! Content is a string or any JSON value. Where the API takes text, a value that is not a string
//! becomes its compact JSON. Where the API takes structured results, a list of its own content
//! blocks passes through as that list ([`blocks`]): every item must be one of the blocks the
//! API documents for tool results (text, images, documents, …); a list with anything else in it
//! is data and is written as text like any other value. The blocks themselves are not checked
//! further: the API validates them.

use crate::error::{ErrorCode, ParseError};
use crate::value::{Object, Value};

use super::Provider;

/// The result of running one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call's id ([`super::ProviderCall::id`]).
    pub id: Option<String>,
    /// The tool's name.
    pub name: Option<String>,
    /// What the tool returned: a string, or any JSON value; a list of the provider's own content
    /// blocks (text, images, …) is passed through as blocks where the provider takes them.
    pub content: Value,
    /// Whether the tool failed (`content` then describes the failure).
    pub is_error: bool,
}

/// The messages or parts that carry `results` back to `provider`, as a JSON array
/// (`docs/providers.md`). A result without a field the provider requires (the id for
/// `openai_chat`, `openai_responses`, `anthropic`, `gemini_interactions`, `cohere_v2` and
/// `bedrock`; the name for `gemini` and `ollama`) is `result.missing_field`; `cohere_v1` is
/// `result.unsupported`.
pub fn format_results(results: &[ToolResult], provider: Provider) -> Result<Value, ParseError> {
    let write: Writer = match provider {
        Provider::OpenaiChat => openai_chat,
        Provider::OpenaiResponses => openai_responses,
        Provider::Anthropic => anthropic,
        Provider::Gemini => gemini,
        Provider::GeminiInteractions => gemini_interactions,
        Provider::CohereV2 => cohere_v2,
        Provider::Bedrock => bedrock,
        Provider::Ollama => ollama,
        Provider::CohereV1 => {
            return Err(ParseError::new(
                ErrorCode::ResultUnsupported,
                0,
                "cohere_v1 takes results as `tool_results` entries that repeat each call's name and parameters, \
                 which a tool result does not carry; answer with cohere_v2 (Cohere's current Chat API)",
            ))
        }
    };
    results
        .iter()
        .enumerate()
        .map(|(i, r)| write(i, r, provider))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// Writes result `i` for a provider: one function per provider that takes results.
type Writer = fn(usize, &ToolResult, Provider) -> Result<Value, ParseError>;

fn obj(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Object>())
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

/// The content as text: a string as is, any other value as its compact JSON.
fn text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        other => other.to_json(),
    }
}

fn required<'r>(
    field: Option<&'r str>,
    i: usize,
    r: &ToolResult,
    provider: Provider,
    what: &str,
    wire: &str,
) -> Result<&'r str, ParseError> {
    match field {
        Some(f) if !f.is_empty() => Ok(f),
        _ => {
            let tool = r
                .name
                .as_deref()
                .filter(|n| !n.is_empty())
                .map(|n| format!(" ({})", crate::lex::quote(n)));
            Err(ParseError::new(
                ErrorCode::ResultMissingField,
                0,
                format!(
                    "result {i}{} has no {what}; {provider} needs it as `{wire}`",
                    tool.unwrap_or_default()
                ),
            ))
        }
    }
}

/// Content block `type`s each API takes inside a tool result (the block lists of its SDK's
/// request types): Anthropic `ToolResultBlockParam.content`, OpenAI Chat
/// `ChatCompletionToolMessageParam.content`, Responses `function_call_output.output`, Gemini
/// Interactions `function_result.result`, Cohere v2 tool message `content`.
fn block_types(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::Anthropic => &[
            "text",
            "image",
            "document",
            "search_result",
            "tool_reference",
            "browser_state",
        ],
        Provider::OpenaiChat => &["text"],
        Provider::OpenaiResponses => &["input_text", "input_image", "input_file"],
        Provider::GeminiInteractions => &["text", "image", "audio", "video", "document"],
        Provider::CohereV2 => &["text", "document"],
        Provider::Gemini | Provider::Bedrock | Provider::Ollama | Provider::CohereV1 => &[],
    }
}

/// APIs whose blocks are objects with exactly one key naming their kind, not a `type`: Bedrock's
/// `ToolResultContentBlock`, Gemini's `FunctionResponsePart` (media beside the response object).
fn block_keys(provider: Provider) -> &'static [&'static str] {
    match provider {
        Provider::Bedrock => &["text", "json", "image", "document", "video", "searchResult"],
        Provider::Gemini => &["inlineData", "fileData"],
        _ => &[],
    }
}

/// `content` as a list of `provider`'s tool-result blocks: a non-empty array every item of which
/// is an object with a `type` of [`block_types`], or (Bedrock, Gemini) exactly one key of
/// [`block_keys`]. Anything else is `None` (data, written as text or JSON).
fn blocks(content: &Value, provider: Provider) -> Option<&[Value]> {
    let Value::Array(items) = content else { return None };
    let types = block_types(provider);
    let keys = block_keys(provider);
    let is_block = |item: &Value| match item {
        Value::Object(o) => match crate::value::get(o, "type") {
            Some(Value::String(t)) => types.contains(&t.as_str()),
            _ => matches!(o.as_slice(), [(k, _)] if keys.contains(&k.as_str())),
        },
        _ => false,
    };
    (!items.is_empty() && items.iter().all(is_block)).then_some(items.as_slice())
}

/// The content where the API takes text or its blocks: the blocks as they are, else the text.
fn text_or_blocks(content: &Value, provider: Provider) -> Value {
    match blocks(content, provider) {
        Some(b) => Value::Array(b.to_vec()),
        None => Value::String(text(content)),
    }
}

fn openai_chat(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_call_id", s(id("tool_call_id")?)),
        ("content", text_or_blocks(&r.content, provider)),
    ]))
}

fn openai_responses(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    Ok(obj(vec![
        ("type", s("function_call_output")),
        ("call_id", s(id("call_id")?)),
        ("output", text_or_blocks(&r.content, provider)),
    ]))
}

fn anthropic(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    let mut entries = vec![
        ("type", s("tool_result")),
        ("tool_use_id", s(id("tool_use_id")?)),
        ("content", text_or_blocks(&r.content, provider)),
    ];
    if r.is_error {
        entries.push(("is_error", Value::Bool(true)));
    }
    Ok(obj(entries))
}

fn gemini(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let name = |wire: &str| required(r.name.as_deref(), i, r, provider, "`name`", wire);
    let name = name("functionResponse.name")?;
    // Media parts go beside an empty response object (an error keeps its content).
    let media = blocks(&r.content, provider).filter(|_| !r.is_error);
    let response = if r.is_error {
        obj(vec![("error", r.content.clone())])
    } else if media.is_some() {
        obj(vec![])
    } else if let Value::Object(_) = r.content {
        r.content.clone()
    } else {
        obj(vec![("result", r.content.clone())])
    };
    let mut entries = Vec::new();
    if let Some(id) = r.id.as_deref().filter(|id| !id.is_empty()) {
        entries.push(("id", s(id)));
    }
    entries.push(("name", s(name)));
    entries.push(("response", response));
    if let Some(parts) = media {
        entries.push(("parts", Value::Array(parts.to_vec())));
    }
    Ok(obj(vec![("functionResponse", obj(entries))]))
}

fn gemini_interactions(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    let mut entries = vec![("type", s("function_result")), ("call_id", s(id("call_id")?))];
    if let Some(name) = r.name.as_deref().filter(|n| !n.is_empty()) {
        entries.push(("name", s(name)));
    }
    let result = match &r.content {
        v @ (Value::String(_) | Value::Object(_)) => v.clone(),
        other => text_or_blocks(other, provider),
    };
    entries.push(("result", result));
    entries.push(("is_error", Value::Bool(r.is_error)));
    Ok(obj(entries))
}

fn cohere_v2(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_call_id", s(id("tool_call_id")?)),
        (
            "content",
            match blocks(&r.content, provider) {
                Some(b) => Value::Array(b.to_vec()),
                None => Value::Array(vec![obj(vec![
                    ("type", s("document")),
                    ("document", obj(vec![("data", Value::String(text(&r.content)))])),
                ])]),
            },
        ),
    ]))
}

fn bedrock(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    let content = match (&r.content, blocks(&r.content, provider)) {
        (_, Some(b)) => b.to_vec(),
        (Value::Object(_), None) => vec![obj(vec![("json", r.content.clone())])],
        (other, None) => vec![obj(vec![("text", Value::String(text(other)))])],
    };
    let mut entries = vec![("toolUseId", s(id("toolUseId")?)), ("content", Value::Array(content))];
    if r.is_error {
        entries.push(("status", s("error")));
    }
    Ok(obj(vec![("toolResult", obj(entries))]))
}

fn ollama(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let name = |wire: &str| required(r.name.as_deref(), i, r, provider, "`name`", wire);
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_name", s(name("tool_name")?)),
        ("content", Value::String(text(&r.content))),
    ]))
}
