//! Kimi K2 / K2-Instruct / K2-Thinking / K2.5: a section of calls, each with its id.
//!
//! ```text
//! <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>
//! ```
//!
//! - A section is `<|tool_calls_section_begin|>` (or the singular `<|tool_call_section_begin|>`),
//!   one or more calls with whitespace between them, then `<|tool_calls_section_end|>` (or
//!   `<|tool_call_section_end|>`), which may be missing only at the very end of the text. Other
//!   text inside a section is `tool_call.syntax`; a section without a call is
//!   `tool_call.unrecognized`.
//! - A call is `<|tool_call_begin|>` ID `<|tool_call_argument_begin|>` ARGUMENTS
//!   `<|tool_call_end|>`, whitespace allowed around ID and ARGUMENTS. `<|tool_call_end|>` is
//!   required (the text ending before it is `tool_call.unclosed`). A call whose section begin was
//!   lost (a bare `<|tool_call_begin|>`) is read the same way, and a section end right after it
//!   is consumed.
//! - ID is `functions.NAME:IDX` or `NAME:IDX` and is returned verbatim (trimmed) as the call's id;
//!   IDX is the template's conversation-wide call counter, ASCII digits. NAME is the text before
//!   the last `:`, less `functions.`; it may contain dots. An empty ID or NAME, or a NAME with
//!   whitespace, is `tool_call.invalid_name`; an ID without `:` or with an IDX that is not
//!   digits is `tool_call.syntax`: the name is never guessed.
//! - ARGUMENTS is a JSON object (`json.*` when it does not parse, `tool_call.invalid_arguments`
//!   when it is another JSON value).
//!
//! K2-Thinking may call tools inside `<think>`; the scanner's reasoning rules apply. Text after
//! the section (`<|im_end|>`) is prose.

use super::Calls;
use super::{expect, unclosed_marker, unexpected, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, has_whitespace, skip_ws, trim};
use crate::syntax::origin::offset_of;

const SECTION_BEGIN: [&str; 2] = ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"];
const SECTION_END: [&str; 2] = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"];
const CALL_BEGIN: &str = "<|tool_call_begin|>";
const ARGUMENT_BEGIN: &str = "<|tool_call_argument_begin|>";
const CALL_END: &str = "<|tool_call_end|>";
const PREFIX: &str = "functions.";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::KimiK2],
    markers: &[SECTION_BEGIN[0], SECTION_BEGIN[1], CALL_BEGIN],
    tokens: &[ARGUMENT_BEGIN, CALL_END, SECTION_END[0], SECTION_END[1]],
    closers: &SECTION_END,
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the section or bare call whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let Some(open) = SECTION_BEGIN.into_iter().find(|m| at(bytes, start, m)) else {
        let end = call(text, start, out)?;
        let after = skip_ws(bytes, end);
        return Ok(section_end(bytes, after).unwrap_or(end));
    };
    let first = out.len();
    let mut p = skip_ws(bytes, start + open.len());
    if !at(bytes, p, CALL_BEGIN) {
        return Err(if CALL_BEGIN.as_bytes().starts_with(&bytes[p..]) {
            unclosed_marker(text, open)
        } else {
            unrecognized(text, p, open)
        });
    }
    loop {
        p = skip_ws(bytes, call(text, p, out)?);
        if at(bytes, p, CALL_BEGIN) {
            continue;
        }
        let end = match section_end(bytes, p) {
            Some(end) => end,
            None if p == bytes.len() => p,
            None => {
                let expected = [CALL_BEGIN, SECTION_END[0], SECTION_END[1]];
                return Err(unexpected(text, p, &expected, "the tool call section"));
            }
        };
        widen_span(out, first, start, end);
        return Ok(end);
    }
}

/// The offset after the section end token at `pos`, if one is there.
fn section_end(bytes: &[u8], pos: usize) -> Option<usize> {
    SECTION_END
        .into_iter()
        .find(|t| at(bytes, pos, t))
        .map(|t| pos + t.len())
}

/// Parses the call whose `<|tool_call_begin|>` is at `start`; returns the offset after its
/// `<|tool_call_end|>`.
fn call(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let id_from = start + CALL_BEGIN.len();
    let id_to = crate::lex::find_short(bytes, id_from, b'<');
    let args_at = skip_ws(bytes, expect(text, id_to, ARGUMENT_BEGIN, "the tool call id")?);
    let (id, name) = id_and_name(text, id_from, id_to)?;
    if args_at == bytes.len() {
        return Err(unclosed_marker(text, ARGUMENT_BEGIN));
    }
    let (arguments, deferred, end) = super::json_arguments_as(text, args_at, out.defer, || {
        super::object_arguments(text, args_at, name)
    })?;
    let end = expect(text, skip_ws(bytes, end), CALL_END, "the tool call")?;
    let origin = Origin::At {
        name: offset_of(text, name),
        args: Args::Json(args_at),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::KimiK2, start..end).with_origin(origin);
    call.deferred = deferred;
    call.id = Some(id.to_string());
    out.push(call);
    Ok(end)
}

/// The id written between `from` and `to` (trimmed) and the tool name in it.
fn id_and_name(text: &str, from: usize, to: usize) -> Result<(&str, &str), ParseError> {
    let raw = &text[from..to];
    let id = trim(raw);
    let id_at = from + (raw.len() - raw.trim_start().len());
    if id.is_empty() {
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            id_at,
            "the tool call id is empty",
        ));
    }
    let Some(colon) = id.rfind(':') else {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            id_at + id.len(),
            format!("expected `:INDEX` to end the tool call id {}", crate::lex::quote(id)),
        ));
    };
    let index = &id[colon + 1..];
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            id_at + colon + 1,
            "the index after `:` in the tool call id must be digits",
        ));
    }
    let name_from = if id.starts_with(PREFIX) { PREFIX.len() } else { 0 };
    let name = &id[name_from..colon];
    if name.is_empty() || has_whitespace(name) {
        let why = if name.is_empty() {
            "the tool name in the call id is empty"
        } else {
            "the tool name in the call id contains whitespace"
        };
        return Err(ParseError::new(ErrorCode::InvalidName, id_at + name_from, why));
    }
    Ok((id, name))
}
