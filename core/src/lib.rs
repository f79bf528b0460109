//! beacon: the tool-call parser for LLM output.
//!
//! [`parse_tool_calls`] finds every tool call a model wrote, in any of the common formats, and
//! returns each as a name plus an object of arguments. Formats are tried in three tiers and the
//! first tier that finds anything wins (see [`Format`]). Arguments are parsed strictly; a call
//! that is broken is reported as a [`ParseError`] with a stable code and the byte offset of the
//! offending character, never dropped.
//!
//! [`parse_response`] reads the tool calls out of a provider API's response JSON (OpenAI,
//! Anthropic, Gemini, Cohere, Bedrock, Ollama); [`format_calls`] writes calls and
//! [`format_results`] writes results back in each API's shape.

mod call;
mod callsyntax;
mod detect;
mod error;
mod formats;
mod json;
mod message;
mod providers;
mod reasoning;
mod scan;
mod shape;
mod stream;
mod value;

pub use call::{Format, FormatSet, ToolCall};
pub use error::{locate, ErrorCode, Location, ParseError, Unit};
pub use message::{parse_message, Ids, Message, MessageOptions};
pub use providers::{
    detect_provider, detect_provider_value, format_calls, format_results, has_tool_calls, has_tool_calls_value,
    parse_response, parse_response_value, utf8_text, Provider, ProviderCall, ToolResult,
};
pub use stream::{scan_stream, StreamScan, StreamState};
pub use value::{Number, Object, Value};

/// The deepest nesting of arrays and objects (JSON) or lists, tuples and dicts (call syntax)
/// that beacon accepts; deeper input is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 128;

/// Parses `text` as exactly one strict JSON value (RFC 8259; repeated keys, nesting deeper than
/// [`MAX_DEPTH`], lone surrogates and numbers beyond `f64` are errors), as beacon reads
/// arguments.
pub fn parse_json(text: &str) -> Result<Value, ParseError> {
    json::parse_complete(text)
}

/// Every tool call in `text`, in text order. Errs with [`ErrorCode::NotFound`] when there is none.
pub fn parse_tool_calls(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    detect::parse_all(text, FormatSet::ALL)
}

/// [`parse_tool_calls`] recognising only `formats`: every other format's text is prose.
pub fn parse_tool_calls_in(text: &str, formats: FormatSet) -> Result<Vec<ToolCall>, ParseError> {
    detect::parse_all(text, formats)
}

/// The one tool call in `text`. Errs with [`ErrorCode::Multiple`] (at the second call) when
/// there are several, and with [`ErrorCode::NotFound`] when there is none.
pub fn parse_tool_call(text: &str) -> Result<ToolCall, ParseError> {
    parse_tool_call_in(text, FormatSet::ALL)
}

/// [`parse_tool_call`] recognising only `formats`.
pub fn parse_tool_call_in(text: &str, formats: FormatSet) -> Result<ToolCall, ParseError> {
    let mut calls = parse_tool_calls_in(text, formats)?;
    if calls.len() > 1 {
        let second = &calls[1];
        return Err(ParseError::new(
            ErrorCode::Multiple,
            second.span.start,
            format!(
                "expected exactly one tool call, found {} (`{}` and `{}`…); use parse_tool_calls for parallel calls",
                calls.len(),
                calls[0].name,
                second.name
            ),
        ));
    }
    Ok(calls.remove(0))
}
