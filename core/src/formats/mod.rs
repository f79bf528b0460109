//! One module per format. Tier 1 formats start at a marker and parse forward from it; tier 2
//! and tier 3 scan the whole text.

pub(crate) mod bracket;
pub(crate) mod hermes;
pub(crate) mod json;
pub(crate) mod llama;
pub(crate) mod mistral;
pub(crate) mod python;
pub(crate) mod qwen3_coder;
pub(crate) mod xml_invoke;

use crate::error::{ErrorCode, ParseError};
use crate::scan::{at, skip_ws};
use crate::shape::{self, Mode};
use crate::{Format, ToolCall};

/// Parses the JSON call shape at `pos` (after whitespace) as the content of a tag. Pushes its
/// calls and returns the offset after the JSON value.
pub(crate) fn tagged_json(
    text: &str,
    pos: usize,
    format: Format,
    marker: &str,
    out: &mut Vec<ToolCall>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let pos = skip_ws(bytes, pos);
    match bytes.get(pos) {
        Some(b'{' | b'[') => {}
        Some(_) => return Err(unrecognized(text, pos, marker)),
        None => return Err(unclosed_marker(text, marker)),
    }
    let (value, end) = crate::json::parse_value_at(text, pos)?;
    let calls = shape::calls_in(text, pos, value, Mode::Tagged)?.ok_or_else(|| unrecognized(text, pos, marker))?;
    out.extend(calls.into_iter().map(|(name, arguments)| ToolCall {
        name,
        arguments,
        format,
        span: pos..end,
    }));
    Ok(end)
}

/// Content after a marker that is not a call.
pub(crate) fn unrecognized(text: &str, pos: usize, marker: &str) -> ParseError {
    let found: String = text[pos..].chars().take(24).collect();
    ParseError::new(
        ErrorCode::Unrecognized,
        pos,
        format!(
            "`{marker}` must be followed by a tool call, found {}",
            crate::json::quote(&found)
        ),
    )
}

/// The text ends right after a marker.
pub(crate) fn unclosed_marker(text: &str, marker: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends after `{marker}` without a tool call"),
    )
}

/// Expects whitespace then `close` at `pos`; the end of the text is accepted in its place.
/// Returns the offset after the closing tag.
pub(crate) fn closing_tag(text: &str, pos: usize, close: &str) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let pos = skip_ws(bytes, pos);
    if at(bytes, pos, close) {
        return Ok(pos + close.len());
    }
    if pos == bytes.len() {
        return Ok(pos);
    }
    let found = text[pos..]
        .chars()
        .next()
        .map(crate::json::show_char)
        .unwrap_or_default();
    Err(ParseError::new(
        ErrorCode::Syntax,
        pos,
        format!("expected `{close}` after the tool call, found {found}"),
    ))
}

/// Sets the span of the calls pushed since `first` to `start..end` when there is one call (the
/// whole tag); several calls from one tag keep the span of their JSON value.
pub(crate) fn widen_span(out: &mut [ToolCall], first: usize, start: usize, end: usize) {
    if out.len() == first + 1 {
        out[first].span = start..end;
    }
}
