//! Solar-Open (Upstage): a section of calls, each with its id first.
//!
//! ```text
//! <|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>{"city": "Paris"}<|tool_call:end|><|calls|>
//! ```
//!
//! - A section is `<|tool_calls|>`, one or more calls with whitespace between them, then
//!   `<|calls|>`, which may be missing only at the very end of the text. Other text inside a
//!   section is `tool_call.syntax`; a section without a call is `tool_call.unrecognized`.
//! - A call is `<|tool_call:begin|>` ID `<|tool_call:name|>` NAME `<|tool_call:args|>` ARGUMENTS
//!   `<|tool_call:end|>`, whitespace allowed around ID, NAME and ARGUMENTS. `<|tool_call:end|>`
//!   is required (the text ending before it is `tool_call.unclosed`). A call whose section opener
//!   was lost (a bare `<|tool_call:begin|>`) is read the same way, and a `<|calls|>` right after
//!   it is consumed.
//! - ID is returned verbatim (trimmed) as the call's id; an empty ID gives a call without one. An
//!   ID with whitespace or `<` in it is `tool_call.syntax`.
//! - NAME is the tool name (trimmed): empty, or with whitespace inside, is
//!   `tool_call.invalid_name`.
//! - ARGUMENTS is a JSON object (`json.*` when it does not parse, `tool_call.invalid_arguments`
//!   when it is another JSON value).
//!
//! The turn around it: reasoning is `<|think|>…<|end|>` (see [`crate::text::reasoning`]), and
//! the headers `<|begin|>assistant` and `<|content|>` (the content message's opener) are not
//! content ([`super::tokens`]).

use super::Calls;
use super::{expect, unclosed_marker, unexpected, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, has_whitespace, skip_ws, trim};
use crate::syntax::origin::offset_of;

const SECTION_BEGIN: &str = "<|tool_calls|>";
const SECTION_END: &str = "<|calls|>";
const CALL_BEGIN: &str = "<|tool_call:begin|>";
const NAME_BEGIN: &str = "<|tool_call:name|>";
const ARGS_BEGIN: &str = "<|tool_call:args|>";
const CALL_END: &str = "<|tool_call:end|>";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::SolarOpen],
    markers: &[SECTION_BEGIN, CALL_BEGIN],
    tokens: &[NAME_BEGIN, ARGS_BEGIN, CALL_END, SECTION_END],
    closers: &[SECTION_END],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the section or bare call whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if !at(bytes, start, SECTION_BEGIN) {
        let end = call(text, start, out)?;
        let after = skip_ws(bytes, end);
        return Ok(if at(bytes, after, SECTION_END) {
            after + SECTION_END.len()
        } else {
            end
        });
    }
    let first = out.len();
    let mut p = skip_ws(bytes, start + SECTION_BEGIN.len());
    if !at(bytes, p, CALL_BEGIN) {
        return Err(if CALL_BEGIN.as_bytes().starts_with(&bytes[p..]) {
            unclosed_marker(text, SECTION_BEGIN)
        } else {
            unrecognized(text, p, SECTION_BEGIN)
        });
    }
    loop {
        p = skip_ws(bytes, call(text, p, out)?);
        if at(bytes, p, CALL_BEGIN) {
            continue;
        }
        let end = if at(bytes, p, SECTION_END) {
            p + SECTION_END.len()
        } else if p == bytes.len() {
            p
        } else {
            return Err(unexpected(text, p, &[CALL_BEGIN, SECTION_END], "the tool call section"));
        };
        widen_span(out, first, start, end);
        return Ok(end);
    }
}

/// The text between `from` and the next `<` (or the end), trimmed, and where it starts.
fn field(text: &str, from: usize) -> (&str, usize, usize) {
    let bytes = text.as_bytes();
    let to = crate::lex::find_short(bytes, from, b'<');
    let raw = &text[from..to];
    let trimmed = trim(raw);
    let at = from + (raw.len() - raw.trim_start().len());
    (trimmed, at, to)
}

/// Parses the call whose `<|tool_call:begin|>` is at `start`; returns the offset after its
/// `<|tool_call:end|>`.
fn call(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let (id, id_at, id_to) = field(text, start + CALL_BEGIN.len());
    let name_from = expect(text, id_to, NAME_BEGIN, "the tool call id")?;
    if let Some(bad) = id.find(char::is_whitespace) {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            id_at + bad,
            format!("the tool call id {} contains whitespace", crate::lex::quote(id)),
        ));
    }
    let (name, name_at, name_to) = field(text, name_from);
    let args_from = expect(text, name_to, ARGS_BEGIN, "the tool name")?;
    if name.is_empty() || has_whitespace(name) {
        let why = if name.is_empty() {
            "the tool name is empty"
        } else {
            "the tool name contains whitespace"
        };
        return Err(ParseError::new(ErrorCode::InvalidName, name_at, why));
    }
    let args_at = skip_ws(bytes, args_from);
    if args_at == bytes.len() {
        return Err(unclosed_marker(text, ARGS_BEGIN));
    }
    let (arguments, deferred, end) = super::json_arguments_as(text, args_at, out.defer, || {
        super::object_arguments(text, args_at, name)
    })?;
    let end = expect(text, skip_ws(bytes, end), CALL_END, "the tool call")?;
    let origin = Origin::At {
        name: offset_of(text, name),
        args: Args::Json(args_at),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::SolarOpen, start..end).with_origin(origin);
    call.id = (!id.is_empty()).then(|| id.to_string());
    call.deferred = deferred;
    out.push(call);
    Ok(end)
}
