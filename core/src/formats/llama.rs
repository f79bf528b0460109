//! `<|python_tag|>{"name": "f", "parameters": {...}}` (several separated by `;`) or
//! `<|python_tag|>tool.call(k=v)` / `<|python_tag|>f(k=v)`, optionally followed by `<|eom_id|>`
//! or `<|eot_id|>`. Nothing else may follow the call but another `<|python_tag|>` call.

use super::Calls;
use super::{tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, dotted_name_end, ident_end, skip_ws};
use crate::syntax::callsyntax::arguments_as;

pub(crate) const MARKER: &str = "<|python_tag|>";
const ENDS: [&str; 2] = ["<|eom_id|>", "<|eot_id|>"];

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Llama],
    markers: &[MARKER],
    tokens: &ENDS,
    closers: &ENDS,
    json_bodies: &[super::JsonBody::at(MARKER, Format::Llama)],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the calls whose marker is at `start`; returns the offset after them.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut p = skip_ws(bytes, start + MARKER.len());
    let end = match bytes.get(p) {
        None => return Err(unclosed_marker(text, MARKER)),
        Some(b'{' | b'[') => loop {
            let end = tagged_json(text, p, Format::Llama, MARKER, out)?;
            let q = skip_ws(bytes, end);
            if bytes.get(q) == Some(&b';') && matches!(bytes.get(skip_ws(bytes, q + 1)), Some(b'{' | b'[')) {
                p = skip_ws(bytes, q + 1);
            } else if bytes.get(q) == Some(&b';') {
                break q + 1;
            } else {
                break end;
            }
        },
        Some(_) if ident_end(bytes, p) > p => {
            let name_to = dotted_name_end(bytes, p);
            let dotted = &text[p..name_to];
            let name = dotted.strip_suffix(".call").filter(|n| !n.is_empty()).unwrap_or(dotted);
            if matches!(&bytes[name_to..], b"" | b".") {
                // `get_wea` or `tool.` at the end: the name is still being written.
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    bytes.len(),
                    "the text ends inside the tool name",
                ));
            }
            if bytes.get(name_to) != Some(&b'(') {
                return Err(ParseError::new(
                    ErrorCode::Syntax,
                    name_to,
                    format!("expected `(` after the tool name `{dotted}`"),
                ));
            }
            let (arguments, deferred, end) = arguments_as(text, name_to, out.defer)?;
            let origin = Origin::At {
                name: p,
                args: Args::Call(name_to),
            };
            let mut call = ToolCall::new(name.to_string(), arguments, Format::Llama, p..end);
            call.deferred = deferred;
            out.push(call.with_origin(origin));
            end
        }
        Some(_) => return Err(unrecognized(text, p, MARKER)),
    };
    let q = skip_ws(bytes, end);
    let end = if let Some(tag) = ENDS.iter().find(|t| at(bytes, q, t)) {
        q + tag.len()
    } else if q == bytes.len() || at(bytes, q, MARKER) {
        q
    } else if ENDS.iter().any(|t| t.as_bytes().starts_with(&bytes[q..])) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            "the text ends inside `<|eom_id|>` or `<|eot_id|>`",
        ));
    } else {
        let found = text[q..].chars().next().map(crate::lex::show_char).unwrap_or_default();
        return Err(ParseError::new(
            ErrorCode::Syntax,
            q,
            format!("expected `<|eom_id|>`, `<|eot_id|>` or the end of the text after the call, found {found}"),
        ));
    };
    widen_span(out, first, start, end);
    Ok(end)
}
