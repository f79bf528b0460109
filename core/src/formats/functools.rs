//! Firefunction v2 and Phi-4-mini: ` functools[{"name": "f", "arguments": {...}}, ...]`.
//!
//! The marker's `[` opens a JSON list of call objects (`arguments` or `parameters`; an object may
//! leave its arguments out, as in `hermes`), so the list must hold at least one call: `functools[]`
//! is `tool_call.unrecognized`. There is no closing marker: the calls end with the list, and
//! whatever follows (`<|eot_id|>`, `<|end|>`, prose, another `functools[`) is not part of them.
//! `functools[` right after a letter, digit or `_` (`myfunctools[`) is part of a longer word, not
//! a marker.

use super::Calls;
use super::{tagged_json, unclosed_marker, widen_span};
use crate::call::Format;
use crate::error::ParseError;
use crate::lex::{is_ident_continue, skip_ws};

const MARKER: &str = "functools[";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Functools],
    markers: &[MARKER],
    tokens: &[],
    closers: &[],
    json_bodies: &[super::JsonBody {
        marker: MARKER,
        format: Format::Functools,
        back: 1,
    }],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the calls whose marker is at `start`; returns the offset after the list.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if start > 0 && is_ident_continue(bytes[start - 1]) {
        return Ok(start + MARKER.len());
    }
    let open = start + MARKER.len() - 1;
    if skip_ws(bytes, open + 1) == bytes.len() {
        return Err(unclosed_marker(text, MARKER));
    }
    let first = out.len();
    let end = tagged_json(text, open, Format::Functools, MARKER, out)?;
    widen_span(out, first, start, end);
    Ok(end)
}
