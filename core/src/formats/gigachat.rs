//! GigaChat 3: `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {...}}`
//! (the `function call` role's message), and GigaChat 3.1: `<|function_call|>{"name": "f",
//! "arguments": {...}}`.
//!
//! After the marker (and whitespace) stands one JSON object with exactly the keys `name` (a
//! non-empty string) and `arguments` (an object), in either order: a missing key, another key,
//! or arguments of another type (a JSON string included) raise. After the object only
//! whitespace, `<|message_sep|>` (which ends the call's message and may begin the next call's:
//! it is not consumed; content never holds it) or `</s>` (consumed), or the end of the text may
//! stand; anything else is `tool_call.syntax`. A GigaChat 3 call's span starts at the
//! `<|message_sep|>` before its role, when there is one, and so does its region: that separator
//! and the whitespace after it are not content.

use super::{unclosed_marker, unrecognized};
use super::{Calls, LeadScan};
use crate::call::{Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, find, is_ws, quote, skip_ws};
use crate::syntax::json::{locate_key, locate_path};
use crate::syntax::path::Step;
use crate::value::{Object, Value};

const ROLE: &str = "function call<|role_sep|>";
const FUNCTION_CALL: &str = "<|function_call|>";
const MESSAGE_SEP: &str = "<|message_sep|>";
const EOS: &str = "</s>";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Gigachat],
    markers: &[ROLE, FUNCTION_CALL],
    tokens: &[MESSAGE_SEP, EOS],
    // `<|message_sep|>` after a call is left to the scanner (the next call's lead, or an end
    // token), so only `</s>` closes a region.
    closers: &[EOS],
    json_bodies: &[],
    lead: Some(lead),
    parse: super::Parse::Fn(parse),
};

/// The call object as the template writes it (read without building the object; any other
/// object is read by [`call_object`]).
const KEYS: crate::syntax::shape::CallKeys<'static> = crate::syntax::shape::CallKeys {
    id: None,
    name: "name",
    arguments: &["arguments"],
};

/// Parses the call whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let marker = if at(bytes, start, ROLE) { ROLE } else { FUNCTION_CALL };
    let p = skip_ws(bytes, start + marker.len());
    match bytes.get(p) {
        None => return Err(unclosed_marker(text, marker)),
        Some(b'{') => {}
        Some(_) => return Err(unrecognized(text, p, marker)),
    }
    let (name, arguments, deferred, end) =
        if let Some((call, end)) = crate::syntax::shape::plain_call(text, p, 0, &KEYS, out.defer) {
            (call.name, call.arguments, call.deferred, end)
        } else {
            let (value, end) = crate::syntax::json::parse_value_at(text, p)?;
            let Value::Object(object) = value else {
                unreachable!("a value that starts with `{{` is an object")
            };
            let (name, arguments) = call_object(text, p, object)?;
            (name, arguments, None, end)
        };
    let span_start = if marker == ROLE {
        role_start(bytes, start)
    } else {
        start
    };
    // The span ends with the object: a `<|message_sep|>` after it opens the next message.
    let origin = Origin::Object {
        at: p,
        wrapped: false,
        name: "name",
        args: Some("arguments"),
    };
    let mut call = ToolCall::new(name, arguments, Format::Gigachat, span_start..end).with_origin(origin);
    call.deferred = deferred;
    out.push(call);
    after_call(text, end)
}

/// The name and arguments of the call object at `at`.
fn call_object(text: &str, at: usize, object: Object) -> Result<(String, Object), ParseError> {
    let mut name = None;
    let mut arguments = None;
    for (key, value) in object {
        match (key.as_str(), value) {
            ("name", Value::String(s)) if !s.is_empty() => name = Some(s),
            ("name", v) => {
                let why = match v {
                    Value::String(_) => "the tool name is empty".to_string(),
                    v => format!("the tool name must be a string, found {}", v.kind()),
                };
                let pos = locate_path(text, at, &[Step::Key("name")]);
                return Err(ParseError::new(ErrorCode::InvalidName, pos, why));
            }
            ("arguments", Value::Object(o)) => arguments = Some(o),
            ("arguments", v) => {
                let pos = locate_path(text, at, &[Step::Key("arguments")]);
                let why = format!("`arguments` must be a JSON object, found {}", v.kind());
                return Err(ParseError::new(ErrorCode::InvalidArguments, pos, why));
            }
            (other, _) => {
                let pos = locate_key(text, at, &[], other);
                let why = format!(
                    "a GigaChat call has only `name` and `arguments`, found the key {}",
                    quote(other)
                );
                return Err(ParseError::new(ErrorCode::Unrecognized, pos, why));
            }
        }
    }
    let name = name.ok_or_else(|| ParseError::new(ErrorCode::InvalidName, at, "the call has no `name`"))?;
    let arguments =
        arguments.ok_or_else(|| ParseError::new(ErrorCode::InvalidArguments, at, "the call has no `arguments`"))?;
    Ok((name, arguments))
}

/// Checks what follows the call object ending at `end`; returns the offset after the call: after
/// `</s>`, or at the end of the object (before whitespace and `<|message_sep|>`).
fn after_call(text: &str, end: usize) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let q = skip_ws(bytes, end);
    if at(bytes, q, EOS) {
        return Ok(q + EOS.len());
    }
    if at(bytes, q, MESSAGE_SEP) {
        return Ok(end);
    }
    if q == bytes.len() {
        return Ok(end);
    }
    let found = text[q..].chars().next().map(crate::lex::show_char).unwrap_or_default();
    Err(ParseError::new(
        ErrorCode::Syntax,
        q,
        format!("expected `{MESSAGE_SEP}`, `{EOS}` or the end of the text after the call, found {found}"),
    ))
}

/// The lead of the `function call` role, for a growing text (see [`crate::formats::Family::lead`]):
/// a `<|message_sep|>` followed by nothing but whitespace and the beginning of the role, which
/// [`role_start`] puts into the call's span. (A proper beginning of `<|message_sep|>` at the end
/// of the text the scanner holds as the beginning of an end token.)
fn lead(bytes: &[u8], scan: &mut LeadScan) {
    scan.settled = false;
    loop {
        if scan.hold.is_none() {
            let from = scan.checked.min(bytes.len());
            if let Some(i) = find(&bytes[from..], MESSAGE_SEP) {
                scan.hold = Some(from + i);
                scan.checked = from + i + MESSAGE_SEP.len();
            } else {
                scan.checked = from.max(bytes.len().saturating_sub(MESSAGE_SEP.len() - 1));
                return;
            }
        }
        let p = skip_ws(bytes, scan.checked);
        scan.checked = p;
        let rest = &bytes[p..];
        if rest.starts_with(ROLE.as_bytes()) {
            scan.marker = Some(p);
            return;
        }
        if ROLE.as_bytes().starts_with(rest) {
            return;
        }
        // Something else follows: no lead; look on after it.
        scan.hold = None;
        scan.marker = None;
    }
}

/// Where the `function call` role at `start` begins: at the `<|message_sep|>` (and whitespace)
/// right before it, if any.
fn role_start(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i > 0 && is_ws(bytes[i - 1]) {
        i -= 1;
    }
    if bytes[..i].ends_with(MESSAGE_SEP.as_bytes()) {
        i - MESSAGE_SEP.len()
    } else {
        start
    }
}
