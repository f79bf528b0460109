//! The one-shot entry points over model text: every call ([`parse_tool_calls`]) or exactly one
//! ([`parse_tool_call`]), optionally recognising only some formats.

use crate::call::{FormatSet, ToolCall};
use crate::detect;
use crate::error::{ErrorCode, ParseError};

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
