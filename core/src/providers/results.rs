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
    let write: fn(&Fields<'_>) -> Result<Value, ParseError> = match provider {
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
        .map(|(index, result)| {
            write(&Fields {
                index,
                result,
                provider,
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// One result being written: its index (for messages) and the provider it is written for.
struct Fields<'r> {
    index: usize,
    result: &'r ToolResult,
    provider: Provider,
}

impl<'r> Fields<'r> {
    /// The call id, which the provider requires as `wire`.
    fn id(&self, wire: &str) -> Result<&'r str, ParseError> {
        self.required(self.result.id.as_deref(), "`id`", wire)
    }

    /// The tool name, which the provider requires as `wire`.
    fn name(&self, wire: &str) -> Result<&'r str, ParseError> {
        self.required(self.result.name.as_deref(), "`name`", wire)
    }

    fn required(&self, field: Option<&'r str>, what: &str, wire: &str) -> Result<&'r str, ParseError> {
        match field {
            Some(f) if !f.is_empty() => Ok(f),
            _ => {
                let tool = self
                    .result
                    .name
                    .as_deref()
                    .filter(|n| !n.is_empty())
                    .map(|n| format!(" ({})", crate::json::quote(n)));
                Err(ParseError::new(
                    ErrorCode::ResultMissingField,
                    0,
                    format!(
                        "result {}{} has no {what}; {} needs it as `{wire}`",
                        self.index,
                        tool.unwrap_or_default(),
                        self.provider
                    ),
                ))
            }
        }
    }

    /// The content as text: a string as is, any other value as its compact JSON.
    fn text(&self) -> Value {
        Value::String(match &self.result.content {
            Value::String(s) => s.clone(),
            other => other.to_json(),
        })
    }
}

fn obj(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Object>())
}

fn s(text: &str) -> Value {
    Value::String(text.to_string())
}

fn openai_chat(f: &Fields<'_>) -> Result<Value, ParseError> {
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_call_id", s(f.id("tool_call_id")?)),
        ("content", f.text()),
    ]))
}

fn openai_responses(f: &Fields<'_>) -> Result<Value, ParseError> {
    Ok(obj(vec![
        ("type", s("function_call_output")),
        ("call_id", s(f.id("call_id")?)),
        ("output", f.text()),
    ]))
}

fn anthropic(f: &Fields<'_>) -> Result<Value, ParseError> {
    let mut entries = vec![
        ("type", s("tool_result")),
        ("tool_use_id", s(f.id("tool_use_id")?)),
        ("content", f.text()),
    ];
    if f.result.is_error {
        entries.push(("is_error", Value::Bool(true)));
    }
    Ok(obj(entries))
}

fn gemini(f: &Fields<'_>) -> Result<Value, ParseError> {
    let r = f.result;
    let name = f.name("functionResponse.name")?;
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
    Ok(obj(vec![("functionResponse", obj(entries))]))
}

fn gemini_interactions(f: &Fields<'_>) -> Result<Value, ParseError> {
    let r = f.result;
    let mut entries = vec![("type", s("function_result")), ("call_id", s(f.id("call_id")?))];
    if let Some(name) = r.name.as_deref().filter(|n| !n.is_empty()) {
        entries.push(("name", s(name)));
    }
    let result = match &r.content {
        v @ (Value::String(_) | Value::Object(_)) => v.clone(),
        other => Value::String(other.to_json()),
    };
    entries.push(("result", result));
    entries.push(("is_error", Value::Bool(r.is_error)));
    Ok(obj(entries))
}

fn cohere_v2(f: &Fields<'_>) -> Result<Value, ParseError> {
    let document = obj(vec![
        ("type", s("document")),
        ("document", obj(vec![("data", f.text())])),
    ]);
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_call_id", s(f.id("tool_call_id")?)),
        ("content", Value::Array(vec![document])),
    ]))
}

fn bedrock(f: &Fields<'_>) -> Result<Value, ParseError> {
    let block = match &f.result.content {
        Value::Object(_) => obj(vec![("json", f.result.content.clone())]),
        _ => obj(vec![("text", f.text())]),
    };
    let mut entries = vec![
        ("toolUseId", s(f.id("toolUseId")?)),
        ("content", Value::Array(vec![block])),
    ];
    if f.result.is_error {
        entries.push(("status", s("error")));
    }
    Ok(obj(vec![("toolResult", obj(entries))]))
}

fn ollama(f: &Fields<'_>) -> Result<Value, ParseError> {
    Ok(obj(vec![
        ("role", s("tool")),
        ("tool_name", s(f.name("tool_name")?)),
        ("content", f.text()),
    ]))
}
