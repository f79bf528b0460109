//! `[TOOL_CALL]name=f;args={...}[/TOOL_CALL]` or `[TOOL_CALL]{json}[/TOOL_CALL]`.
//!
//! In the `name=` form the name runs to `;`, `[`, a line break (or other control character) or the
//! end of the text and must be non-empty without inner whitespace; `;args=` may be left out for a
//! call without arguments, and `args` must be a JSON object. The closing tag may be missing only
//! at the very end, and only after a whole call: the JSON form's value, or the `args` object. A
//! name (or `name=`, `;`, `args=`) that the end of the text cuts may be the beginning of a longer
//! name or of `;args=…`, so it is `tool_call.unclosed`, never a call; a call without arguments
//! needs its `[/TOOL_CALL]`.

use super::Calls;
use super::{closing_tag, tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws};
use crate::value::Object;

pub(crate) const MARKER: &str = "[TOOL_CALL]";
const CLOSE: &str = "[/TOOL_CALL]";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Bracket],
    markers: &[MARKER],
    tokens: &[CLOSE, "name=", "args="],
    closers: &[CLOSE],
    json_bodies: &[super::JsonBody::at(MARKER, Format::Bracket)],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after it.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let p = skip_ws(bytes, start + MARKER.len());
    let end = match bytes.get(p) {
        None => return Err(unclosed_marker(text, MARKER)),
        Some(b'{' | b'[') => tagged_json(text, p, Format::Bracket, MARKER, out)?,
        Some(_) if at(bytes, p, "name") => match bytes.get(skip_ws(bytes, p + 4)) {
            Some(b'=') => key_value(text, skip_ws(bytes, p + 4) + 1, out)?,
            None => return Err(cut(text, "`name=`")),
            Some(_) => return Err(unrecognized(text, p, MARKER)),
        },
        Some(_) if "name".starts_with(&text[p..]) => return Err(cut(text, "`name=`")),
        Some(_) => return Err(unrecognized(text, p, MARKER)),
    };
    let end = closing_tag(text, end, CLOSE)?;
    widen_span(out, first, start, end);
    Ok(end)
}

/// `NAME[;args={...}]` after `name=`.
fn key_value(text: &str, from: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let name_at = skip_ws(bytes, from);
    let mut name_end = name_at;
    while name_end < bytes.len() && !matches!(bytes[name_end], b';' | b'[' | 0..=0x08 | 0x0a..=0x1f) {
        name_end += 1;
    }
    if name_at == bytes.len() {
        return Err(cut(text, "the tool name"));
    }
    let name = text[name_at..name_end].trim_end_matches([' ', '\t']);
    if name.is_empty() || name.contains([' ', '\t']) {
        let why = if name.is_empty() {
            "the tool name is empty".to_string()
        } else {
            format!("the tool name {} contains whitespace", crate::lex::quote(name))
        };
        return Err(ParseError::new(ErrorCode::InvalidName, name_at, why));
    }
    let name_to = name_at + name.len();
    let p = skip_ws(bytes, name_to);
    if p == bytes.len() {
        // `;args=…` or a longer name may follow: nothing here is a whole call yet.
        return Err(cut(text, "the tool name"));
    }
    let (arguments, deferred, args, end) = if bytes[p] == b';' {
        let value_at = arguments_at(text, p + 1)?;
        let (arguments, deferred, end) = super::json_arguments_as(text, value_at, out.defer, || {
            super::object_arguments(text, value_at, name)
        })?;
        (arguments, deferred, Args::Json(value_at), end)
    } else {
        (Object::new(), None, Args::None, name_to)
    };
    let origin = Origin::At { name: name_at, args };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::Bracket, name_at..end).with_origin(origin);
    call.deferred = deferred;
    out.push(call);
    Ok(end)
}

/// Where the arguments of `args={...}` start, after the `;` that ends at `from`.
fn arguments_at(text: &str, from: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let q = skip_ws(bytes, from);
    let eq = skip_ws(bytes, q + 4);
    let has_key = at(bytes, q, "args");
    if !(has_key && bytes.get(eq) == Some(&b'=')) {
        let cut_off = if has_key {
            eq == bytes.len()
        } else {
            "args".starts_with(&text[q..])
        };
        if cut_off {
            return Err(cut(text, "`;args=`"));
        }
        return Err(ParseError::new(ErrorCode::Syntax, q, "expected `args=` after `;`"));
    }
    let value_at = skip_ws(bytes, eq + 1);
    if value_at == bytes.len() {
        return Err(cut(text, "`args=`"));
    }
    Ok(value_at)
}

/// The text ends inside the `name=` form, before a whole call.
fn cut(text: &str, inside: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends inside {inside} of a `{MARKER}` call"),
    )
}
