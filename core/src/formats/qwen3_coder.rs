//! `<function=NAME>…</function>`, the tag two formats share, inside `<tool_call>…</tool_call>` (as
//! Qwen3-Coder's chat template writes it) or bare. What follows `<function=NAME>` (after
//! whitespace) tells them apart:
//!
//! - `{`: Functionary v3.1. One JSON object, the arguments, then whitespace and `</function>`.
//! - `<parameter=` or `</function>`: Qwen3-Coder. Any number of `<parameter=KEY>value</parameter>`
//!   pairs, whitespace between them, then `</function>`. A value is raw text up to
//!   `</parameter>`; one line break (`\n` or `\r\n`) right after `<parameter=KEY>` and one right
//!   before `</parameter>` belong to the template and are dropped. Like `xml_invoke`, a value whose
//!   text, trimmed, is strict JSON becomes that JSON value (`42`, `true`, `{"a": 1}`); anything
//!   else is the text as a string, so `True` stays the string `"True"`; with a tool list the
//!   parameter's schema types the text instead ([`crate::tools`]: `True` is then a boolean).
//!
//!   A `<parameter=` at the start of a line inside a value is where the template writes the next
//!   parameter: the value holds it only when it closes itself (its own `</parameter>`, then the
//!   value's); when the text ends, or `</function>` at the start of a line comes, with the value
//!   still open, the value was not closed and the call is `tool_call.unclosed` at that value's
//!   `<parameter=` (the rule and its one pass: [`super::tagged`]). So the output that drops a
//!   `</parameter>` raises; it never gives a value holding the next parameter's text.
//!
//! The name is the trimmed text up to `>` on the same line: non-empty, without whitespace. In
//! both formats the text ending before `</function>` is `tool_call.unclosed`.

use std::ops::Range;

use super::tagged::{self, Opener, Parameters, Place, ValueTags};
use super::Calls;
use crate::call::{Args, Deferred, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, has_whitespace, skip_ws, trim};
use crate::syntax::origin::offset_of;
use crate::syntax::shape::{Defer, TextValue};
use crate::value::{Object, Value};

pub(crate) const MARKER: &str = "<function=";
const PARAMETER: &str = "<parameter=";
const PARAMETER_CLOSE: &str = "</parameter>";
const CLOSE: &str = "</function>";

/// How a value meets the tags around it ([`tagged`]): the template writes each tag on its own line.
pub(crate) const VALUE_TAGS: ValueTags<'static> = ValueTags {
    open: "<parameter=…>",
    close: PARAMETER_CLOSE,
    sibling: Opener {
        tag: "<parameter",
        after: b"=",
        pair: None,
    },
    call: Opener {
        tag: "<function",
        after: b"=",
        pair: None,
    },
    call_close: CLOSE,
    place: Place::LineStart,
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Qwen3Coder, Format::FunctionaryV31],
    markers: &[MARKER],
    tokens: &[CLOSE, PARAMETER, PARAMETER_CLOSE],
    closers: &[CLOSE],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the bare call whose `<function=` is at `start`; returns the offset after `</function>`.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let (call, end) = function(text, start, out.defer)?;
    out.push(call);
    Ok(end)
}

/// The call whose `<function=` is at `start` (its parameters built as `defer` says), and the
/// offset after its `</function>`.
pub(crate) fn function(text: &str, start: usize, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let (name, p) = function_name(text, start)?;
    let q = skip_ws(text.as_bytes(), p);
    let (arguments, deferred, args, format, end) = if text.as_bytes().get(q) == Some(&b'{') {
        let (arguments, deferred, end) = json_arguments(text, q, defer)?;
        (arguments, deferred, Args::Json(q), Format::FunctionaryV31, end)
    } else {
        let (arguments, deferred, params, end) = parameters(text, p, defer)?;
        (arguments, deferred, Args::Params(params), Format::Qwen3Coder, end)
    };
    let origin = Origin::At {
        name: offset_of(text, name),
        args,
    };
    let mut call = ToolCall::new(name.to_string(), arguments, format, start..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// The name of the `<function=NAME>` tag at `start` (non-empty, without whitespace), and the
/// offset after its `>`.
fn function_name(text: &str, start: usize) -> Result<(&str, usize), ParseError> {
    let at_name = start + MARKER.len();
    let (name, p) = tag_value(text, at_name, "<function=")?;
    if name.is_empty() {
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            at_name,
            "the tool name is empty",
        ));
    }
    if has_whitespace(name) {
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            at_name,
            "the tool name contains whitespace",
        ));
    }
    Ok((name, p))
}

/// Functionary v3.1: the JSON object at `p` (read as `defer` says), then whitespace and
/// `</function>`. Returns the arguments, where they went when not built here, and the offset
/// after `</function>`.
fn json_arguments(text: &str, p: usize, defer: Defer<'_>) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    let bytes = text.as_bytes();
    let (arguments, deferred, end) = super::json_arguments_as(text, p, defer, || {
        let (value, end) = crate::syntax::json::parse_value_at(text, p)?;
        let Value::Object(arguments) = value else {
            unreachable!("a JSON value that starts with `{{` is an object")
        };
        Ok((arguments, end))
    })?;
    let q = skip_ws(bytes, end);
    if at(bytes, q, CLOSE) {
        return Ok((arguments, deferred, q + CLOSE.len()));
    }
    if CLOSE.as_bytes().starts_with(&bytes[q..]) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            "the text ends before `</function>` closes the call",
        ));
    }
    let found = text[q..].chars().next().map(crate::lex::show_char).unwrap_or_default();
    Err(ParseError::new(
        ErrorCode::Syntax,
        q,
        format!("expected `</function>` after the JSON arguments, found {found}"),
    ))
}

/// Qwen3-Coder: `<parameter=KEY>value</parameter>` pairs from `p`, then `</function>`. Returns
/// the arguments (as [`tagged::parameters`]), where their values are written, and the offset
/// after `</function>`.
fn parameters(text: &str, p: usize, defer: Defer<'_>) -> Result<Parameters, ParseError> {
    let bytes = text.as_bytes();
    tagged::parameters(text, p, CLOSE, defer, |p, params| {
        if p == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                p,
                "the text ends inside `<function=…>`: expected `</function>`",
            ));
        }
        if !at(bytes, p, PARAMETER) {
            let found = text[p..].chars().next().map(crate::lex::show_char).unwrap_or_default();
            return Err(ParseError::new(
                ErrorCode::Syntax,
                p,
                format!("expected `<parameter=…>` or `</function>`, found {found}"),
            ));
        }
        let key_at = p + PARAMETER.len();
        let (key, value_at) = tag_value(text, key_at, "<parameter=")?;
        params.check_key(key, key_at, p)?;
        let (value, written, end) = parameter_value(text, p, value_at)?;
        params.push(key, value, Param::new(written, Text::Raw));
        Ok(end)
    })
}

/// The value of the parameter whose tag opens at `opener`, from `value_at` to its
/// `</parameter>`, where its text is, and the offset after that tag. [`tagged::read`] finds the
/// close: a `<parameter=` at the start of a line inside the value means it was not closed, unless
/// that parameter closes itself and the value's own close follows.
fn parameter_value(
    text: &str,
    opener: usize,
    value_at: usize,
) -> Result<(TextValue<'_>, Range<usize>, usize), ParseError> {
    let len = tagged::read(text, opener, value_at, &VALUE_TAGS)?.len;
    let raw = tagged::trim_line_breaks(&text[value_at..value_at + len]);
    let raw_at = offset_of(text, raw);
    Ok((
        TextValue::Probed(raw.into()),
        raw_at..raw_at + raw.len(),
        value_at + len + PARAMETER_CLOSE.len(),
    ))
}

/// The text from `from` up to the `>` that ends a `<function=…>` or `<parameter=…>` tag, trimmed,
/// and the offset after the `>`. The tag may not span lines.
fn tag_value<'t>(text: &'t str, from: usize, tag: &str) -> Result<(&'t str, usize), ParseError> {
    let bytes = text.as_bytes();
    match memchr::memchr2(b'>', b'\n', &bytes[from..]) {
        Some(n) if bytes[from + n] == b'>' => Ok((trim(&text[from..from + n]), from + n + 1)),
        Some(n) => Err(ParseError::new(
            ErrorCode::Syntax,
            from + n,
            format!("expected `>` to end the `{tag}…` tag"),
        )),
        None => Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            format!("the text ends inside the `{tag}…` tag"),
        )),
    }
}
