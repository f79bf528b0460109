//! `<function=NAME><parameter=KEY>value</parameter>…</function>`: Qwen3-Coder's markup, inside
//! `<tool_call>…</tool_call>` (as its chat template writes it) or bare.
//!
//! A value is raw text up to `</parameter>`; one line break right after `<parameter=KEY>` and one
//! right before `</parameter>` belong to the template and are dropped. Like `xml_invoke`, a value
//! whose text, trimmed, is strict JSON becomes that JSON value (`42`, `true`, `{"a": 1}`); anything
//! else is the text as a string. There is no schema here, so `True` stays the string `"True"`.

use memchr::memmem;

use crate::error::{ErrorCode, ParseError};
use crate::scan::{at, skip_ws};
use crate::value::{Object, Value};
use crate::{Format, ToolCall};

pub(crate) const MARKER: &str = "<function=";
const PARAMETER: &str = "<parameter=";
const PARAMETER_CLOSE: &str = "</parameter>";
const CLOSE: &str = "</function>";

pub(crate) const FAMILY: super::Family = super::Family {
    markers: &[MARKER],
    tokens: &[CLOSE, PARAMETER, PARAMETER_CLOSE],
    parse,
};

/// Parses the bare call whose `<function=` is at `start`; returns the offset after `</function>`.
pub(crate) fn parse(text: &str, start: usize, out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    let (call, end) = function(text, start)?;
    out.push(call);
    Ok(end)
}

/// The call whose `<function=` is at `start`, and the offset after its `</function>`.
pub(crate) fn function(text: &str, start: usize) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let (name, mut p) = tag_value(text, start + MARKER.len(), "<function=")?;
    if name.is_empty() || name.contains(char::is_whitespace) {
        let at_name = start + MARKER.len();
        let why = if name.is_empty() {
            "the tool name is empty"
        } else {
            "the tool name contains whitespace"
        };
        return Err(ParseError::new(ErrorCode::InvalidName, at_name, why));
    }
    let mut arguments = Object::new();
    loop {
        p = skip_ws(bytes, p);
        if at(bytes, p, CLOSE) {
            let end = p + CLOSE.len();
            let call = ToolCall {
                id: None,
                name: name.to_string(),
                arguments,
                format: Format::Qwen3Coder,
                span: start..end,
            };
            return Ok((call, end));
        }
        if p == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                p,
                "the text ends inside `<function=…>`: expected `</function>`",
            ));
        }
        if !at(bytes, p, PARAMETER) {
            let found = text[p..].chars().next().map(crate::json::show_char).unwrap_or_default();
            return Err(ParseError::new(
                ErrorCode::Syntax,
                p,
                format!("expected `<parameter=…>` or `</function>`, found {found}"),
            ));
        }
        let key_at = p + PARAMETER.len();
        let (key, value_at) = tag_value(text, key_at, "<parameter=")?;
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(ParseError::new(
                ErrorCode::Syntax,
                key_at,
                "a parameter name must be non-empty, without whitespace",
            ));
        }
        if arguments.iter().any(|(k, _)| k == key) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                p,
                format!("the parameter `{key}` is given twice"),
            ));
        }
        let Some(len) = memmem::find(&bytes[value_at..], PARAMETER_CLOSE.as_bytes()) else {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends inside `<parameter=…>`: expected `</parameter>`",
            ));
        };
        let raw = &text[value_at..value_at + len];
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = crate::json::probe_complete(raw.trim()).unwrap_or_else(|| Value::String(raw.to_string()));
        arguments.push((key.to_string(), value));
        p = value_at + len + PARAMETER_CLOSE.len();
    }
}

/// The text from `from` up to the `>` that ends a `<function=…>` or `<parameter=…>` tag, trimmed,
/// and the offset after the `>`. The tag may not span lines.
fn tag_value<'t>(text: &'t str, from: usize, tag: &str) -> Result<(&'t str, usize), ParseError> {
    let bytes = text.as_bytes();
    match memchr::memchr2(b'>', b'\n', &bytes[from..]) {
        Some(n) if bytes[from + n] == b'>' => Ok((text[from..from + n].trim(), from + n + 1)),
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
