//! DeepSeek's three call formats; each call records the one it is written in.
//!
//! **Sections** (`deepseek_v3`, `deepseek_v31`): `<｜tool▁calls▁begin｜>`, one or more calls
//! `<｜tool▁call▁begin｜>BODY<｜tool▁call▁end｜>`, then `<｜tool▁calls▁end｜>`. Whitespace may stand
//! between any two tokens. A body is `WORD<｜tool▁sep｜>` and then either
//!
//! - `deepseek_v3` (V3, R1): WORD is the type `function`, then `NAME`, a fence opened by ```` ``` ````
//!   or ```` ```json ````, the arguments, and ```` ``` ````;
//! - `deepseek_v31` (V3.1): WORD is the tool name and the arguments follow directly.
//!
//! The body is V3 when WORD is `function` and what follows the separator is not `{`, `[` or `"`.
//! A name is a run of characters other than whitespace, `<` and `` ` ``. The arguments are a JSON
//! object, or a JSON string whose content is a JSON object (the chat templates render string
//! arguments with `tojson`, which encodes them twice).
//!
//! The section may also open at a bare `<｜tool▁call▁begin｜>` (its opener left out), with one of
//! the openers llama.cpp accepts from R1 distills (`<｜tool calls begin｜>`,
//! `<｜tool\_calls\_begin｜>`, `<｜tool▁calls｜>`), or with Step-3's `<｜tool_calls_begin｜>` (see
//! [`super::step3`]); the first call's `<｜tool▁call▁begin｜>` may be left out. After a call, a
//! section that has an opener must go on with another call or close; it may end without
//! `<｜tool▁calls▁end｜>` only at the end of the text or at `<｜end▁of▁sentence｜>`. A section
//! without an opener ends after its last call (and a `<｜tool▁calls▁end｜>` right after it); prose
//! may follow.
//!
//! **DSML** (`deepseek_v32`, V3.2 and V4): `<｜DSML｜function_calls>` (V4: `<｜DSML｜tool_calls>`),
//! one or more `<｜DSML｜invoke name="f">…</｜DSML｜invoke>`, then the matching closing tag, which
//! may be missing only at the end of the text or at `<｜end▁of▁sentence｜>`; a bare
//! `<｜DSML｜invoke` is a call too. Parameters are
//! `<｜DSML｜parameter name="k" string="true|false">v</｜DSML｜parameter>`: `string="true"` keeps
//! the text between the tags verbatim (no trimming, no entity decoding: the template writes string
//! values as they are, and nothing around them), `string="false"` must be one strict JSON value
//! (whitespace around it allowed), and without the attribute the value is typed as in
//! `xml_invoke` (strict JSON if the trimmed text is JSON, else the text). Instead of parameters,
//! an invoke may hold one JSON object; an empty invoke has no arguments.
//! A parameter whose `</｜DSML｜parameter>` is missing, so that the next `<｜DSML｜parameter` begins
//! inside its value at the start of a line (where the template writes it) or right after its
//! `string="false"` JSON value, is `tool_call.unclosed` at that parameter's tag; a value holds
//! such a tag only when it closes itself ([`super::tagged`]).
//!
//! Every token is also accepted with ASCII `|` in place of `｜` (`<|tool▁call▁begin|>`,
//! `<|DSML|invoke`), as some templates write them; one section or block uses one kind throughout.
//! `<｜end▁of▁sentence｜>` after a section or block (whitespace between allowed) is consumed with it.
//!
//! Errors: the text ending inside a call, or partway through a token the grammar expects there, is
//! `tool_call.unclosed` at the end; an opener followed by something other than a call is
//! `tool_call.unrecognized`; any other token out of place is `tool_call.syntax` (so is a `string`
//! attribute other than `"true"` or `"false"`); a missing or empty name is
//! `tool_call.invalid_name`; arguments that are neither an object nor a string holding one are
//! `tool_call.invalid_arguments`; a repeated parameter or `string` attribute is
//! `tool_call.duplicate_argument`; broken JSON is its `json.*` error.

use super::tagged::Place;
use super::xml_invoke::{self, Dialect};
use super::Calls;
use super::{cut_short, expect_token, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, quote, skip_ws};
use crate::syntax::json::{parse_complete, parse_value_at, raw_offset_in_string};
use crate::syntax::origin::offset_of;
use crate::syntax::shape::Defer;
use crate::value::{Object, Value};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[
        crate::call::Format::DeepseekV3,
        crate::call::Format::DeepseekV31,
        crate::call::Format::DeepseekV32,
    ],
    markers: &[
        "<｜tool▁calls▁begin｜>",
        "<｜tool calls begin｜>",
        "<｜tool\\_calls\\_begin｜>",
        "<｜tool▁calls｜>",
        "<｜tool▁call▁begin｜>",
        "<|tool▁calls▁begin|>",
        "<|tool▁call▁begin|>",
        "<｜DSML｜function_calls>",
        "<｜DSML｜tool_calls>",
        "<｜DSML｜invoke",
        "<|DSML|function_calls>",
        "<|DSML|tool_calls>",
        "<|DSML|invoke",
    ],
    tokens: &[
        "<｜tool▁calls▁end｜>",
        "<｜tool▁call▁end｜>",
        "<｜tool▁sep｜>",
        "<｜end▁of▁sentence｜>",
        "<|tool▁calls▁end|>",
        "<|tool▁call▁end|>",
        "<|tool▁sep|>",
        "<|end▁of▁sentence|>",
        FENCE_JSON,
        "</｜DSML｜function_calls>",
        "</｜DSML｜tool_calls>",
        "</｜DSML｜invoke>",
        "<｜DSML｜parameter",
        "</｜DSML｜parameter>",
        "</|DSML|function_calls>",
        "</|DSML|tool_calls>",
        "</|DSML|invoke>",
        "<|DSML|parameter",
        "</|DSML|parameter>",
    ],
    closers: &[EOS, EOS_ASCII],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// The tokens of a section of calls: DeepSeek's, and Step-3's (which shares the grammar).
pub(crate) struct Section {
    /// The texts that open a section.
    pub opens: &'static [&'static str],
    pub close: &'static str,
    /// Opens one call.
    pub call: &'static str,
    pub call_close: &'static str,
    /// Separates the type word or name from the rest of a call.
    pub sep: &'static str,
    /// The end-of-sentence token: it may close a section in place of `close`.
    pub eos: Option<&'static str>,
}

/// Parses the body of one call at `pos` (after its call token, before `call_close`): the call and
/// the offset after the body.
pub(crate) type Body = fn(&str, usize, &Section, Defer<'_>) -> Result<(ToolCall, usize), ParseError>;

pub(crate) const SECTION: Section = Section {
    opens: &[
        "<｜tool▁calls▁begin｜>",
        "<｜tool calls begin｜>",
        "<｜tool\\_calls\\_begin｜>",
        "<｜tool▁calls｜>",
    ],
    close: "<｜tool▁calls▁end｜>",
    call: "<｜tool▁call▁begin｜>",
    call_close: "<｜tool▁call▁end｜>",
    sep: "<｜tool▁sep｜>",
    eos: Some(EOS),
};

const SECTION_ASCII: Section = Section {
    opens: &["<|tool▁calls▁begin|>"],
    close: "<|tool▁calls▁end|>",
    call: "<|tool▁call▁begin|>",
    call_close: "<|tool▁call▁end|>",
    sep: "<|tool▁sep|>",
    eos: Some(EOS_ASCII),
};

const EOS: &str = "<｜end▁of▁sentence｜>";
const EOS_ASCII: &str = "<|end▁of▁sentence|>";
const FENCE: &str = "```";
const FENCE_JSON: &str = "```json";

/// DSML with one kind of bar.
struct Dsml {
    /// The block tags: (open, close).
    blocks: [(&'static str, &'static str); 2],
    invoke: Dialect,
    eos: &'static str,
}

const DSML: Dsml = Dsml {
    blocks: [
        ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
        ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
    ],
    invoke: Dialect {
        invoke: "<｜DSML｜invoke",
        invoke_close: "</｜DSML｜invoke>",
        parameter: "<｜DSML｜parameter",
        parameter_close: "</｜DSML｜parameter>",
        format: Format::DeepseekV32,
        entities: false,
        typed: true,
        json_body: true,
        // The template ends each parameter with a line break.
        place: Place::LineStart,
    },
    eos: EOS,
};

const DSML_ASCII: Dsml = Dsml {
    blocks: [
        ("<|DSML|function_calls>", "</|DSML|function_calls>"),
        ("<|DSML|tool_calls>", "</|DSML|tool_calls>"),
    ],
    invoke: Dialect {
        invoke: "<|DSML|invoke",
        invoke_close: "</|DSML|invoke>",
        parameter: "<|DSML|parameter",
        parameter_close: "</|DSML|parameter>",
        ..DSML.invoke
    },
    eos: EOS_ASCII,
};

/// Parses the section or DSML block whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    for s in [&SECTION, &SECTION_ASCII] {
        if at(bytes, start, s.call) {
            return section(text, start, None, s, call_body, out);
        }
        if let Some(open) = s.opens.iter().find(|o| at(bytes, start, o)) {
            return section(text, start, Some(open), s, call_body, out);
        }
    }
    for d in [&DSML, &DSML_ASCII] {
        if let Some(&(open, close)) = d.blocks.iter().find(|(o, _)| at(bytes, start, o)) {
            return dsml_block(text, start, open, close, d, out);
        }
        if at(bytes, start, d.invoke.invoke) {
            let (call, end) = xml_invoke::invoke(text, start, &d.invoke, out.defer)?;
            out.push(call);
            return Ok(end);
        }
    }
    Ok(start + 1)
}

/// Parses the DeepSeek section (V3 or V3.1 calls) at `start` that opens with `open`, a token of
/// another family (Step-3's `<｜tool_calls_begin｜>`); returns the offset after it.
pub(crate) fn section_opened_by(
    text: &str,
    start: usize,
    open: &str,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    section(text, start, Some(open), &SECTION, call_body, out)
}

/// Parses the section at `start`, which begins with `open` or, when that is `None`, directly with
/// `s.call`. Pushes its calls and returns the offset after it.
pub(crate) fn section(
    text: &str,
    start: usize,
    open: Option<&str>,
    s: &Section,
    body: Body,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut p = start + open.map_or(0, str::len);
    loop {
        let q = skip_ws(bytes, p);
        let none_yet = out.len() == first;
        if at(bytes, q, s.call) {
            p = call(text, q, q + s.call.len(), s, body, out)?;
            continue;
        }
        let Some(open) = open else {
            let end = close_at(bytes, q, s.close, s.eos).unwrap_or(p);
            widen_span(out, first, start, end);
            return Ok(end);
        };
        if none_yet {
            if cut_short(bytes, q, s.call) || cut_short(bytes, q, s.close) {
                return Err(unclosed_marker(text, open));
            }
            if bytes[q] == b'<' {
                return Err(unrecognized(text, q, open));
            }
            // The first call's own token left out: the body follows the opener directly.
            p = call(text, q, q, s, body, out)?;
            continue;
        }
        let end = end_of_calls(text, q, s.close, s.eos, s.call)?;
        widen_span(out, first, start, end);
        return Ok(end);
    }
}

/// Parses one call whose body starts at `body_at` (its call token, if any, at `start`); returns
/// the offset after its `call_close`.
fn call(
    text: &str,
    start: usize,
    body_at: usize,
    s: &Section,
    body: Body,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let (mut call, end) = body(text, body_at, s, out.defer)?;
    let close = skip_ws(text.as_bytes(), end);
    let end = expect_token(text, close, s.call_close, "to end the tool call")?;
    call.span = start..end;
    out.push(call);
    Ok(end)
}

/// The offset after the closing token `close` (or the end-of-sentence token) at `q`, with an
/// end-of-sentence token that follows it; `None` when neither is there.
fn close_at(bytes: &[u8], q: usize, close: &str, eos: Option<&str>) -> Option<usize> {
    if at(bytes, q, close) {
        return Some(after_eos(bytes, q + close.len(), eos));
    }
    eos.filter(|e| at(bytes, q, e)).map(|e| q + e.len())
}

/// `pos`, or the offset after an end-of-sentence token that follows it (after whitespace).
fn after_eos(bytes: &[u8], pos: usize, eos: Option<&str>) -> usize {
    let q = skip_ws(bytes, pos);
    match eos {
        Some(e) if at(bytes, q, e) => q + e.len(),
        _ => pos,
    }
}

/// Where a group of calls ends, at `q` after its last call: its closing tag (and an
/// end-of-sentence token after it), an end-of-sentence token alone, or the end of the text.
/// Anything else is `tool_call.syntax`, or `tool_call.unclosed` when the text stops partway
/// through a token.
fn end_of_calls(text: &str, q: usize, close: &str, eos: Option<&str>, next: &str) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if let Some(end) = close_at(bytes, q, close, eos) {
        return Ok(end);
    }
    if q == bytes.len() {
        return Ok(q);
    }
    if cut_short(bytes, q, close) || cut_short(bytes, q, next) || eos.is_some_and(|e| cut_short(bytes, q, e)) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            format!("the text ends inside a token after the tool calls: expected `{next}` or `{close}`"),
        ));
    }
    Err(ParseError::new(
        ErrorCode::Syntax,
        q,
        format!(
            "expected `{next}` or `{close}` after a tool call, found {}",
            super::found_at(text, q)
        ),
    ))
}

/// A section call's body at `pos`: `function<｜tool▁sep｜>NAME` and fenced JSON (V3), or
/// `NAME<｜tool▁sep｜>` and JSON (V3.1).
fn call_body(text: &str, pos: usize, s: &Section, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let (word, word_end) = name(text, skip_ws(bytes, pos))?;
    let sep_at = skip_ws(bytes, word_end);
    let after = skip_ws(bytes, expect_token(text, sep_at, s.sep, "after the tool name")?);
    match bytes.get(after) {
        None => Err(ParseError::new(
            ErrorCode::Unclosed,
            after,
            format!("the text ends after `{}`", s.sep),
        )),
        Some(b'{' | b'[' | b'"') => v31(text, word, after, defer),
        Some(_) if word == "function" => v3(text, after, defer),
        Some(_) => v31(text, word, after, defer),
    }
}

/// `NAME` then `{json}` at `pos`: a V3.1 call, and the offset after the arguments.
fn v31(text: &str, name: &str, pos: usize, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let (arguments, deferred, end) = super::json_arguments_as(text, pos, defer, || object_arguments(text, pos, name))?;
    let origin = Origin::At {
        name: offset_of(text, name),
        args: Args::Json(pos),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::DeepseekV31, pos..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// `NAME` and fenced JSON at `pos`: a V3 call, and the offset after the closing fence.
fn v3(text: &str, pos: usize, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let (name, name_end) = name(text, pos)?;
    let fence = skip_ws(bytes, name_end);
    let json_at = if at(bytes, fence, FENCE_JSON) {
        fence + FENCE_JSON.len()
    } else if cut_short(bytes, fence, FENCE_JSON) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            format!("the text ends before the arguments of {}", quote(name)),
        ));
    } else {
        expect_token(text, fence, FENCE, "to open the arguments")?
    };
    let (arguments, deferred, end) =
        super::json_arguments_as(text, json_at, defer, || object_arguments(text, json_at, name))?;
    let end = expect_token(text, skip_ws(bytes, end), FENCE, "after the arguments")?;
    let origin = Origin::At {
        name: offset_of(text, name),
        args: Args::Json(json_at),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::DeepseekV3, pos..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// The name (or type word) at `pos`: characters other than whitespace, `<` and `` ` ``.
fn name(text: &str, pos: usize) -> Result<(&str, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut end = pos;
    while end < bytes.len() && !matches!(bytes[end], b' ' | b'\t' | b'\n' | b'\r' | b'<' | b'`') {
        end += 1;
    }
    if end > pos {
        return Ok((&text[pos..end], end));
    }
    if pos == bytes.len() {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            pos,
            "the text ends before the tool name",
        ));
    }
    Err(ParseError::new(
        ErrorCode::InvalidName,
        pos,
        format!("expected a tool name, found {}", super::found_at(text, pos)),
    ))
}

/// The JSON arguments at `pos` (after whitespace): an object, or a string whose content is one.
/// Returns them and the offset after the JSON value.
fn object_arguments(text: &str, pos: usize, name: &str) -> Result<(Object, usize), ParseError> {
    let pos = skip_ws(text.as_bytes(), pos);
    let (value, end) = parse_value_at(text, pos)?;
    let not_object = |found: &str| {
        ParseError::new(
            ErrorCode::InvalidArguments,
            pos,
            format!("the arguments of {} must be a JSON object, found {found}", quote(name)),
        )
    };
    match value {
        Value::Object(arguments) => Ok((arguments, end)),
        Value::String(s) => match parse_complete(&s) {
            Ok(Value::Object(arguments)) => Ok((arguments, end)),
            Ok(other) => Err(not_object(&format!("a string holding {}", other.kind()))),
            Err(e) => Err(ParseError::new(
                ErrorCode::InvalidArguments,
                raw_offset_in_string(text, pos, e.offset),
                format!(
                    "the arguments string of {} is not valid JSON: {} ({})",
                    quote(name),
                    e.message,
                    e.code
                ),
            )),
        },
        other => Err(not_object(other.kind())),
    }
}

/// Parses the DSML block at `start` (opened by `open`, closed by `close`); returns the offset
/// after it.
fn dsml_block(
    text: &str,
    start: usize,
    open: &str,
    close: &str,
    d: &Dsml,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut p = start + open.len();
    loop {
        let q = skip_ws(bytes, p);
        if at(bytes, q, d.invoke.invoke) {
            let (call, end) = xml_invoke::invoke(text, q, &d.invoke, out.defer)?;
            out.push(call);
            p = end;
            continue;
        }
        if out.len() == first {
            if q == bytes.len() || cut_short(bytes, q, d.invoke.invoke) {
                return Err(unclosed_marker(text, open));
            }
            return Err(unrecognized(text, q, open));
        }
        return end_of_calls(text, q, close, Some(d.eos), d.invoke.invoke);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_marker_starts_a_parse() {
        for marker in FAMILY.markers {
            let mut out = Vec::new();
            let result = parse(marker, 0, &mut Calls::new(&mut out, crate::syntax::shape::Defer::Never));
            assert!(result.is_err(), "{marker}: {result:?}");
        }
    }
}
