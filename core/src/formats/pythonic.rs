//! Python call lists: `[get_weather(city='SF'), get_time()]`.
//!
//! A call is a dotted name immediately followed by `(`, keyword arguments only, in the call
//! syntax of [`crate::syntax::callsyntax`] (Python literals, and JSON's `true`, `false`, `null`). A list
//! is `[`, one or more calls separated by `,` (a trailing comma allowed), then `]`. The wrappers:
//!
//! - Llama 4: `<|python_start|>LIST<|python_end|>`. The template also wraps plain content in these
//!   tokens, so the marker claims a call only when a list of calls (`[` then a recognised call,
//!   `{` or `]`), a recognised call, or a JSON call shape follows; anything else is not a call.
//!   A call is recognised as in tier 3: `name(` then `)` or `identifier=`.
//! - LFM2: `<|tool_call_start|>LIST<|tool_call_end|>`; early LFM2 put a JSON list of call objects
//!   there (`[{"name": …, "arguments": {…}}]`), read as in `hermes` but reported as `pythonic`.
//! - Olmo 3: `<function_calls>CALLS</function_calls>`, one call a line, without brackets (a list
//!   is accepted too). The same tag wraps `xml_invoke`'s `<invoke …>` and DeepSeek V3.2's
//!   markup once `｜DSML｜` is lost: when `<` follows it, the tag is left to those parsers.
//!
//! Inside a wrapper the content is a list, calls separated by whitespace, or a JSON call shape;
//! an empty list or empty wrapper (`[]`, `<|tool_call_start|><|tool_call_end|>`) is
//! `tool_call.unrecognized`: the wrapper claims a call. The closing token may be missing only at
//! the end of the text; any other text before it is `tool_call.syntax`. What follows the closing
//! token (`<|eot|>`, `<|im_end|>`, prose) is not part of the calls.
//!
//! Without a wrapper, a list of calls at the start of the text, or right after a reasoning block
//! (vLLM's `pythonic`, Llama 3.2, ToolACE), is read by tier 3 ([`super::python`]) with
//! [`bare_list`] and reported as `pythonic`; a single `[` cannot be a marker without making every
//! bracket of prose one.

use super::Calls;
use super::{closing_tag, tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, dotted_name_end, is_ident_start, skip_ws};
use crate::syntax::callsyntax::{arguments_as, starts_keyword_list};

const PYTHON_START: &str = "<|python_start|>";
const PYTHON_END: &str = "<|python_end|>";
const LFM2_START: &str = "<|tool_call_start|>";
const LFM2_END: &str = "<|tool_call_end|>";
pub(crate) const FUNCTION_CALLS: &str = "<function_calls>";
const FUNCTION_CALLS_END: &str = "</function_calls>";

/// Each wrapper's open and close tokens.
const WRAPPERS: [(&str, &str); 3] = [
    (PYTHON_START, PYTHON_END),
    (LFM2_START, LFM2_END),
    (FUNCTION_CALLS, FUNCTION_CALLS_END),
];

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Pythonic],
    markers: &[PYTHON_START, LFM2_START, FUNCTION_CALLS],
    tokens: &[PYTHON_END, LFM2_END, FUNCTION_CALLS_END],
    closers: &[PYTHON_END, LFM2_END, FUNCTION_CALLS_END],
    json_bodies: &[
        super::JsonBody::at(PYTHON_START, Format::Pythonic),
        super::JsonBody::at(LFM2_START, Format::Pythonic),
        super::JsonBody::at(FUNCTION_CALLS, Format::Pythonic),
    ],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the calls whose wrapper opens at `start`; returns the offset after the closing token.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let (open, close) = WRAPPERS
        .into_iter()
        .find(|(open, _)| at(bytes, start, open))
        .expect("called at one of the family's markers");
    let p = skip_ws(bytes, start + open.len());
    if p == bytes.len() {
        return Err(unclosed_marker(text, open));
    }
    let defers = match open {
        FUNCTION_CALLS => bytes[p] == b'<',
        PYTHON_START => !claims_call(bytes, p),
        _ => false,
    };
    if defers {
        return Ok(p);
    }
    let first = out.len();
    let end = content(text, p, open, out)?;
    let end = closing_tag(text, end, close)?;
    widen_span(out, first, start, end);
    Ok(end)
}

/// Whether the text at `p` (after `<|python_start|>`) is a call list, a call or a JSON call.
fn claims_call(bytes: &[u8], p: usize) -> bool {
    match bytes[p] {
        b'[' => {
            let q = skip_ws(bytes, p + 1);
            matches!(bytes.get(q), None | Some(b'{' | b']')) || recognised_call(bytes, q)
        }
        b'{' => crate::syntax::shape::claims_call(bytes, p, bytes.len()),
        _ => recognised_call(bytes, p),
    }
}

/// Whether a call starts at `p` by tier 3's rule (`name(` then `)` or `identifier=`), or the text
/// ends within its name.
fn recognised_call(bytes: &[u8], p: usize) -> bool {
    let name_to = dotted_name_end(bytes, p);
    if name_to == p {
        return false;
    }
    let cut = name_to == bytes.len() || (bytes[name_to] == b'.' && name_to + 1 == bytes.len());
    cut || (bytes[name_to] == b'(' && starts_keyword_list(bytes, name_to))
}

/// The content of a wrapper at `p`: a list of calls, calls separated by whitespace, or a JSON
/// call shape. Returns the offset after it.
fn content(text: &str, p: usize, marker: &str, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    match bytes[p] {
        b'[' if bytes.get(skip_ws(bytes, p + 1)) == Some(&b'{') => tagged_json(text, p, Format::Pythonic, marker, out),
        b'[' => list(text, p, out),
        b'{' => tagged_json(text, p, Format::Pythonic, marker, out),
        b if is_ident_start(b) => sequence(text, p, out),
        _ => Err(unrecognized(text, p, marker)),
    }
}

/// Whether a list of calls starts at `p` (tier 3 reads such a list at the start of the text):
/// `[` then a call recognised by tier 3's rule.
pub(crate) fn starts_bare_list(bytes: &[u8], p: usize) -> bool {
    if bytes.get(p) != Some(&b'[') {
        return false;
    }
    let q = skip_ws(bytes, p + 1);
    let name_to = dotted_name_end(bytes, q);
    name_to > q && bytes.get(name_to) == Some(&b'(') && starts_keyword_list(bytes, name_to)
}

/// The list of calls whose `[` is at `open`, without a wrapper; returns the offset after `]`.
pub(crate) fn bare_list(text: &str, open: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    list(text, open, out)
}

/// `[call, call, ...]` at `open`; returns the offset after `]`.
fn list(text: &str, open: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let mut p = skip_ws(bytes, open + 1);
    if bytes.get(p) == Some(&b']') {
        return Err(ParseError::new(
            ErrorCode::Unrecognized,
            open,
            "the list of calls is empty; a call list holds at least one call",
        ));
    }
    loop {
        p = skip_ws(bytes, call(text, p, out)?);
        match bytes.get(p) {
            Some(b',') => {
                p = skip_ws(bytes, p + 1);
                if bytes.get(p) == Some(&b']') {
                    return Ok(p + 1);
                }
            }
            Some(b']') => return Ok(p + 1),
            None => {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    p,
                    "the text ends inside the list of calls",
                ))
            }
            Some(_) => return Err(expected(text, p, "`,` or `]` after a call")),
        }
    }
}

/// Calls separated by whitespace, from `p`; returns the offset after the last.
fn sequence(text: &str, mut p: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    loop {
        let end = call(text, p, out)?;
        let next = skip_ws(bytes, end);
        if !bytes.get(next).is_some_and(|&b| is_ident_start(b)) {
            return Ok(end);
        }
        p = next;
    }
}

/// `name(k=v, ...)` at `p`; pushes it and returns the offset after `)`.
fn call(text: &str, p: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let name_to = dotted_name_end(bytes, p);
    let cut_in_name = name_to == bytes.len() || (bytes[name_to] == b'.' && name_to + 1 == bytes.len());
    if (name_to > p && cut_in_name) || p == bytes.len() {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            "the text ends before the call's `(`",
        ));
    }
    if name_to == p {
        return Err(expected(text, p, "a call `name(…)`"));
    }
    if bytes[name_to] != b'(' {
        return Err(expected(text, name_to, "`(` after the tool name"));
    }
    let (arguments, deferred, end) = arguments_as(text, name_to, out.defer)?;
    let origin = Origin::At {
        name: p,
        args: Args::Call(name_to),
    };
    let mut call = ToolCall::new(text[p..name_to].to_string(), arguments, Format::Pythonic, p..end);
    call.deferred = deferred;
    out.push(call.with_origin(origin));
    Ok(end)
}

fn expected(text: &str, pos: usize, what: &str) -> ParseError {
    let found = text[pos..]
        .chars()
        .next()
        .map(crate::lex::show_char)
        .unwrap_or_default();
    ParseError::new(ErrorCode::Syntax, pos, format!("expected {what}, found {found}"))
}
