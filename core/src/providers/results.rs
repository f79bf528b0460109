//! Tool results written back in the shape each API expects next.

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
    /// What the tool returned: a string, or any JSON value.
    pub content: Value,
    /// Whether the tool failed (`content` then describes the failure).
    pub is_error: bool,
}

/// The messages or parts that carry `results` back to `provider`, as a JSON array (README:
/// "Provider responses"). A result without a field the provider requires (the id for
/// `openai_chat`, `openai_responses`, `anthropic`, `gemini_interactions`, `cohere_v2` and
/// `bedrock`; the name for `gemini` and `ollama`) is `result.missing_field`; `cohere_v1` is
/// `result.unsupported`.
pub fn format_results(results: &[ToolResult], provider: Provider) -> Result<Value, ParseError> {
    if provider == Provider::CohereV1 {
        return Err(ParseError::new(
            ErrorCode::ResultUnsupported,
            0,
            "cohere_v1 takes results as `tool_results` entries that repeat each call's name and parameters, \
             which a tool result does not carry; answer with cohere_v2 (Cohere's current Chat API)",
        ));
    }
    results
        .iter()
        .enumerate()
        .map(|(i, r)| one(i, r, provider))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

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
                .map(|n| format!(" ({})", crate::json::quote(n)));
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

fn one(i: usize, r: &ToolResult, provider: Provider) -> Result<Value, ParseError> {
    let id = |wire: &str| required(r.id.as_deref(), i, r, provider, "`id`", wire);
    let name = |wire: &str| required(r.name.as_deref(), i, r, provider, "`name`", wire);
    Ok(match provider {
        Provider::OpenaiChat => obj(vec![
            ("role", s("tool")),
            ("tool_call_id", s(id("tool_call_id")?)),
            ("content", Value::String(text(&r.content))),
        ]),
        Provider::OpenaiResponses => obj(vec![
            ("type", s("function_call_output")),
            ("call_id", s(id("call_id")?)),
            ("output", Value::String(text(&r.content))),
        ]),
        Provider::Anthropic => {
            let mut entries = vec![
                ("type", s("tool_result")),
                ("tool_use_id", s(id("tool_use_id")?)),
                ("content", Value::String(text(&r.content))),
            ];
            if r.is_error {
                entries.push(("is_error", Value::Bool(true)));
            }
            obj(entries)
        }
        Provider::Gemini => {
            let name = name("functionResponse.name")?;
            let response = if r.is_error {
                obj(vec![("error", r.content.clone())])
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
            obj(vec![("functionResponse", obj(entries))])
        }
        Provider::GeminiInteractions => {
            let mut entries = vec![("type", s("function_result")), ("call_id", s(id("call_id")?))];
            if let Some(name) = r.name.as_deref().filter(|n| !n.is_empty()) {
                entries.push(("name", s(name)));
            }
            let result = match &r.content {
                v @ (Value::String(_) | Value::Object(_)) => v.clone(),
                other => Value::String(other.to_json()),
            };
            entries.push(("result", result));
            entries.push(("is_error", Value::Bool(r.is_error)));
            obj(entries)
        }
        Provider::CohereV2 => obj(vec![
            ("role", s("tool")),
            ("tool_call_id", s(id("tool_call_id")?)),
            (
                "content",
                Value::Array(vec![obj(vec![
                    ("type", s("document")),
                    ("document", obj(vec![("data", Value::String(text(&r.content)))])),
                ])]),
            ),
        ]),
        Provider::Bedrock => {
            let block = match &r.content {
                Value::Object(_) => obj(vec![("json", r.content.clone())]),
                other => obj(vec![("text", Value::String(text(other)))]),
            };
            let mut entries = vec![
                ("toolUseId", s(id("toolUseId")?)),
                ("content", Value::Array(vec![block])),
            ];
            if r.is_error {
                entries.push(("status", s("error")));
            }
            obj(vec![("toolResult", obj(entries))])
        }
        Provider::Ollama => obj(vec![
            ("role", s("tool")),
            ("tool_name", s(name("tool_name")?)),
            ("content", Value::String(text(&r.content))),
        ]),
        Provider::CohereV1 => {
            return Err(ParseError::new(
                ErrorCode::ResultUnsupported,
                0,
                "cohere_v1 results are not supported",
            ));
        }
    })
}
