//! `[TOOL_CALLS] [{json}, ...]` (Mistral before v11) or `[TOOL_CALLS]f[ARGS]{...}` (v11+, with an
//! optional `[CALL_ID]id` before `[ARGS]`). Several v11 calls repeat the marker or follow each
//! other directly. Whatever follows the calls (`</s>`, prose) is not part of them.

use super::{tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::error::{ErrorCode, ParseError};
use crate::scan::{at, skip_ws};
use crate::value::Value;
use crate::{Format, ToolCall};

pub(crate) const MARKER: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";

pub(crate) const FAMILY: super::Family = super::Family {
    markers: &[MARKER],
    tokens: &[ARGS, CALL_ID],
    parse,
};

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn name_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() && is_name_byte(bytes[i]) {
        i += 1;
    }
    i
}

/// Parses the calls whose marker is at `start`; returns the offset after them.
pub(crate) fn parse(text: &str, start: usize, out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut p = skip_ws(bytes, start + MARKER.len());
    match bytes.get(p) {
        None => return Err(unclosed_marker(text, MARKER)),
        Some(b'{' | b'[') => {
            let end = tagged_json(text, p, Format::Mistral, MARKER, out)?;
            widen_span(out, first, start, end);
            return Ok(end);
        }
        Some(&b) if is_name_byte(b) => {}
        Some(_) => return Err(unrecognized(text, p, MARKER)),
    }
    loop {
        let (end, next) = named_call(text, p, out)?;
        match next {
            Some(q) => p = q,
            None => {
                widen_span(out, first, start, end);
                return Ok(end);
            }
        }
    }
}

/// `NAME[CALL_ID]id[ARGS]{...}` at `p`. Returns the offset after it, and where the next call
/// starts when another follows directly.
fn named_call(text: &str, p: usize, out: &mut Vec<ToolCall>) -> Result<(usize, Option<usize>), ParseError> {
    let bytes = text.as_bytes();
    let name_to = name_end(bytes, p);
    let name = &text[p..name_to];
    let mut q = name_to;
    if at(bytes, q, CALL_ID) {
        q = name_end(bytes, q + CALL_ID.len());
    }
    if !at(bytes, q, ARGS) {
        if q == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                q,
                format!("the text ends before `{ARGS}` of {}", crate::json::quote(name)),
            ));
        }
        return Err(ParseError::new(
            ErrorCode::Syntax,
            q,
            format!("expected `{ARGS}` after the tool name {}", crate::json::quote(name)),
        ));
    }
    let value_at = skip_ws(bytes, q + ARGS.len());
    let (value, end) = crate::json::parse_value_at(text, value_at)?;
    let Value::Object(arguments) = value else {
        return Err(ParseError::new(
            ErrorCode::InvalidArguments,
            value_at,
            format!(
                "the arguments of {} must be a JSON object, found {}",
                crate::json::quote(name),
                value.kind()
            ),
        ));
    };
    out.push(ToolCall {
        id: None,
        name: name.to_string(),
        arguments,
        format: Format::Mistral,
        span: p..end,
    });
    let next = skip_ws(bytes, end);
    let next_name = name_end(bytes, next);
    let follows = next_name > next && (at(bytes, next_name, ARGS) || at(bytes, next_name, CALL_ID));
    Ok((end, follows.then_some(next)))
}
