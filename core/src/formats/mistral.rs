//! `[TOOL_CALLS]` then one or more calls (Mistral, xLAM):
//!
//! - a JSON call shape, usually a list: `[TOOL_CALLS] [{"name": "f", "arguments": {...}}]`
//!   (before v11);
//! - `NAME[ARGS]{...}` (v11+), with an optional `[CALL_ID]ID` between the name and `[ARGS]`:
//!   `ID` (ASCII letters and digits) becomes the call's id;
//! - `NAME{...}`: v11 decoded without `[ARGS]`; the name ends at the first `{`.
//!
//! A name is ASCII letters, digits, `_`, `-` and `.`; the arguments are a JSON object. Calls
//! follow each other directly or after whitespace, or repeat the marker. After the calls only
//! text that cannot begin a call may follow: whitespace, `</s>` (consumed, and the calls end
//! there) or prose. Text begins a call when it starts with `{`, with `[` then `{` or `]`, with
//! `[ARGS]` or `[CALL_ID]` (a call without a name), or with a name followed by `{`, `[ARGS]` or
//! `[CALL_ID]` (whitespace allowed before the two tokens, where it is then an error); such text
//! is parsed as a call or raises.

use super::Calls;
use super::{tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws};
use crate::syntax::origin::offset_of;

pub(crate) const MARKER: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const EOS: &str = "</s>";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Mistral],
    markers: &[MARKER],
    tokens: &[ARGS, CALL_ID, EOS],
    closers: &[EOS],
    json_bodies: &[super::JsonBody::at(MARKER, Format::Mistral)],
    lead: None,
    parse: super::Parse::Fn(parse),
};

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn run_end(bytes: &[u8], from: usize, accept: fn(u8) -> bool) -> usize {
    let mut i = from;
    while i < bytes.len() && accept(bytes[i]) {
        i += 1;
    }
    i
}

fn name_end(bytes: &[u8], from: usize) -> usize {
    run_end(bytes, from, is_name_byte)
}

/// Whether `[ARGS]` or `[CALL_ID]` starts at `pos`.
fn at_token(bytes: &[u8], pos: usize) -> bool {
    at(bytes, pos, ARGS) || at(bytes, pos, CALL_ID)
}

/// Whether the text from `pos` to its end is a proper beginning of `[ARGS]` or `[CALL_ID]`.
fn cut_in_token(bytes: &[u8], pos: usize) -> bool {
    let rest = &bytes[pos..];
    !rest.is_empty()
        && [ARGS, CALL_ID]
            .iter()
            .any(|t| t.len() > rest.len() && t.as_bytes().starts_with(rest))
}

/// Whether the text at `pos` begins a call (see the module doc); a text that ends partway
/// through a beginning counts.
fn begins_call(bytes: &[u8], pos: usize) -> bool {
    match bytes.get(pos) {
        Some(b'{') => true,
        Some(b'[') if at_token(bytes, pos) || cut_in_token(bytes, pos) => true,
        Some(b'[') => matches!(bytes.get(skip_ws(bytes, pos + 1)), Some(b'{' | b']') | None),
        Some(&b) if is_name_byte(b) => {
            let name_to = name_end(bytes, pos);
            bytes.get(name_to) == Some(&b'{')
                || at_token(bytes, skip_ws(bytes, name_to))
                || cut_in_token(bytes, name_to)
        }
        _ => false,
    }
}

/// Parses the calls whose marker is at `start`; returns the offset after them.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut p = skip_ws(bytes, start + MARKER.len());
    if p == bytes.len() {
        return Err(unclosed_marker(text, MARKER));
    }
    if !begins_call(bytes, p) {
        if name_end(bytes, p) == bytes.len() {
            return Err(ends_before_args(text, p));
        }
        return Err(unrecognized(text, p, MARKER));
    }
    let end = loop {
        let end = one_call(text, p, out)?;
        let q = skip_ws(bytes, end);
        if at(bytes, q, EOS) {
            break q + EOS.len();
        }
        if !begins_call(bytes, q) {
            break end;
        }
        p = q;
    };
    widen_span(out, first, start, end);
    Ok(end)
}

/// The call (or JSON list of calls) at `p`; returns the offset after it.
fn one_call(text: &str, p: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if matches!(bytes[p], b'{' | b'[') && !at_token(bytes, p) && !cut_in_token(bytes, p) {
        return tagged_json(text, p, Format::Mistral, MARKER, out);
    }
    named_call(text, p, out)
}

fn ends_before_args(text: &str, name_at: usize) -> ParseError {
    let name = &text[name_at..name_end(text.as_bytes(), name_at)];
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends before the arguments of {}", crate::lex::quote(name)),
    )
}

/// `NAME[CALL_ID]ID[ARGS]{...}` or `NAME{...}` at `p`; returns the offset after it.
fn named_call(text: &str, p: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let name_to = name_end(bytes, p);
    if name_to == p {
        if cut_in_token(bytes, p) {
            return Err(ends_before_args(text, p));
        }
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            p,
            "the tool name before the arguments is empty",
        ));
    }
    let name = &text[p..name_to];
    let mut q = name_to;
    let mut id = None;
    if at(bytes, q, CALL_ID) {
        let id_at = q + CALL_ID.len();
        q = run_end(bytes, id_at, |b| b.is_ascii_alphanumeric());
        if q == id_at {
            if q == bytes.len() {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    q,
                    "the text ends after `[CALL_ID]`",
                ));
            }
            return Err(ParseError::new(
                ErrorCode::Syntax,
                q,
                format!("expected the call id (letters and digits) after `{CALL_ID}`"),
            ));
        }
        id = Some(text[id_at..q].to_string());
    }
    let value_at = if at(bytes, q, ARGS) {
        q + ARGS.len()
    } else if bytes.get(q) == Some(&b'{') {
        q
    } else if q == bytes.len() || cut_in_token(bytes, q) {
        return Err(ends_before_args(text, p));
    } else {
        let found = text[q..].chars().next().map(crate::lex::show_char).unwrap_or_default();
        return Err(ParseError::new(
            ErrorCode::Syntax,
            q,
            format!(
                "expected `{ARGS}` or `{{` after the tool name {}, found {found}",
                crate::lex::quote(name)
            ),
        ));
    };
    let value_at = skip_ws(bytes, value_at);
    if value_at == bytes.len() {
        return Err(ends_before_args(text, p));
    }
    let (arguments, deferred, end) = super::json_arguments_as(text, value_at, out.defer, || {
        super::object_arguments(text, value_at, name)
    })?;
    let origin = Origin::At {
        name: offset_of(text, name),
        args: Args::Json(value_at),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::Mistral, p..end).with_origin(origin);
    call.deferred = deferred;
    call.id = id;
    out.push(call);
    Ok(end)
}
