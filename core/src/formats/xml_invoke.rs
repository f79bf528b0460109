//! `<invoke name="f"><parameter name="k">v</parameter></invoke>`, with or without a
//! `<function_calls>` wrapper (which is ignored).
//!
//! Names and values have XML entities decoded (`&lt; &gt; &amp; &quot; &apos; &#N; &#xH;`; any
//! other `&` stays as written). A value whose decoded text, trimmed, is strict JSON becomes that
//! JSON value; anything else is the decoded text as a string, untrimmed. A repeated parameter, or
//! a `name` attribute given twice in one tag, is `tool_call.duplicate_argument`; other attributes
//! are ignored.

use std::borrow::Cow;

use memchr::memmem;

use crate::error::{ErrorCode, ParseError};
use crate::scan::{at, is_ws, skip_ws};
use crate::value::{Object, Value};
use crate::{Format, ToolCall};

pub(crate) const MARKER: &str = "<invoke";
const PARAMETER: &str = "<parameter";
const PARAMETER_CLOSE: &str = "</parameter>";
const CLOSE: &str = "</invoke>";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::XmlInvoke],
    markers: &["<invoke ", "<invoke\n", "<invoke\t", "<invoke\r"],
    tokens: &["</invoke>", "<parameter ", "</parameter>"],
    parse,
};

/// Parses the call whose marker is at `start`; returns the offset after `</invoke>`.
pub(crate) fn parse(text: &str, start: usize, out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let (name, mut p) = tag_name(text, start, MARKER.len(), "<invoke>")?;
    let mut arguments = Object::new();
    let mut keys = crate::value::Keys::default();
    loop {
        p = skip_ws(bytes, p);
        if at(bytes, p, CLOSE) {
            let end = p + CLOSE.len();
            out.push(ToolCall {
                id: None,
                name: name.into_owned(),
                arguments,
                format: Format::XmlInvoke,
                span: start..end,
            });
            return Ok(end);
        }
        if p == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                p,
                "the text ends inside `<invoke>`: expected `</invoke>`",
            ));
        }
        if !(at(bytes, p, PARAMETER) && bytes.get(p + PARAMETER.len()).is_some_and(|&b| is_ws(b))) {
            return Err(not_a_parameter(text, p));
        }
        let (key, value_at) = tag_name(text, p, PARAMETER.len(), "<parameter>")?;
        let Some(len) = memmem::find(&bytes[value_at..], PARAMETER_CLOSE.as_bytes()) else {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends inside `<parameter>`: expected `</parameter>`",
            ));
        };
        if keys.repeated(&arguments, &key) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                p,
                format!("the parameter {} is given twice", crate::json::quote(&key)),
            ));
        }
        let raw = decode_entities(&text[value_at..value_at + len]);
        let value = crate::json::probe_complete(raw.trim()).unwrap_or_else(|| Value::String(raw.into_owned()));
        arguments.push((key.into_owned(), value));
        p = value_at + len + PARAMETER_CLOSE.len();
    }
}

/// The text at `p` inside `<invoke>` is neither `<parameter …>` nor `</invoke>`: unclosed when it
/// stops partway through one of them, else a syntax error.
fn not_a_parameter(text: &str, p: usize) -> ParseError {
    let rest = &text.as_bytes()[p..];
    if [CLOSE, PARAMETER].iter().any(|t| t.as_bytes().starts_with(rest)) {
        return ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            "the text ends inside a tag of `<invoke>`",
        );
    }
    let found = text[p..].chars().next().map(crate::json::show_char).unwrap_or_default();
    ParseError::new(
        ErrorCode::Syntax,
        p,
        format!("expected `<parameter name=\"…\">` or `</invoke>`, found {found}"),
    )
}

/// Reads the attributes of the tag at `start` (whose element name is `word_len` bytes long) up to
/// its `>`. Returns the decoded `name` attribute and the offset after `>`.
fn tag_name<'t>(text: &'t str, start: usize, word_len: usize, tag: &str) -> Result<(Cow<'t, str>, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut p = start + word_len;
    let mut name = None;
    loop {
        p = skip_ws(bytes, p);
        match bytes.get(p) {
            Some(b'>') => break,
            None => {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    p,
                    format!("the text ends inside the `{tag}` tag"),
                ))
            }
            _ => {}
        }
        let attr_at = p;
        while p < bytes.len() && (bytes[p].is_ascii_alphanumeric() || matches!(bytes[p], b'_' | b'-' | b':')) {
            p += 1;
        }
        let attr = &text[attr_at..p];
        let eq = skip_ws(bytes, p);
        let quote_at = skip_ws(bytes, eq + 1);
        let quote = bytes.get(quote_at).copied();
        if attr.is_empty() || bytes.get(eq) != Some(&b'=') || !matches!(quote, Some(b'"' | b'\'')) {
            if p >= bytes.len() || quote_at >= bytes.len() {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    bytes.len(),
                    format!("the text ends inside the `{tag}` tag"),
                ));
            }
            return Err(ParseError::new(
                ErrorCode::Syntax,
                attr_at,
                format!("expected an attribute `name=\"…\"` in the `{tag}` tag"),
            ));
        }
        let value_at = quote_at + 1;
        let Some(len) = memchr::memchr(quote.unwrap_or(b'"'), &bytes[value_at..]) else {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends inside an attribute value",
            ));
        };
        if attr == "name" && name.is_some() {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                attr_at,
                format!("the `{tag}` tag has two `name` attributes"),
            ));
        }
        if attr == "name" {
            let value = decode_entities(&text[value_at..value_at + len]);
            if value.trim().is_empty() {
                return Err(ParseError::new(
                    ErrorCode::InvalidName,
                    value_at,
                    format!("the `{tag}` name is empty"),
                ));
            }
            name = Some(value);
        }
        p = value_at + len + 1;
    }
    match name {
        Some(name) => Ok((name, p + 1)),
        None => Err(ParseError::new(
            ErrorCode::InvalidName,
            start,
            format!("the `{tag}` tag has no `name` attribute"),
        )),
    }
}

/// Decodes the five predefined XML entities and numeric character references.
fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let entity = rest
            .get(1..)
            .and_then(|r| r.find(';').filter(|&n| n <= 10).map(|n| &r[..n]));
        let decoded = entity.and_then(|e| match e {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                let n = e.strip_prefix("#x").or_else(|| e.strip_prefix("#X"));
                let code = match n {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => e.strip_prefix('#').and_then(|d| d.parse().ok()),
                };
                code.and_then(char::from_u32)
            }
        });
        match (entity, decoded) {
            (Some(e), Some(c)) => {
                out.push(c);
                rest = &rest[e.len() + 2..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}
