//! Gemma 4 `<|tool_call>call:NAME{…}<tool_call|>` and FunctionGemma
//! `<start_function_call>call:NAME{…}<end_function_call>`: one object-literal grammar, two string
//! delimiters (`<|"|>` and `<escape>`).
//!
//! After the marker: `call:` (Gemma 4 also `:` alone, which models write as the same call), the
//! name (ASCII letters, digits, `_`, `-`, `.` and any non-ASCII
//! character; empty is `tool_call.invalid_name`), then the arguments as an object literal, then
//! the closing tag, which may be missing only at the very end of the text. Calls follow each
//! other, each with its own marker; `call:` right after a closing tag is `tool_call.syntax`.
//!
//! Literals: an object `{key:value,…}` whose keys are bare (the same characters as names) or
//! delimited strings; an array `[value,…]`; a string, the text verbatim between two delimiters
//! (it may hold `"`, `}`, `,` and line breaks; there are no escapes); or a bare word, which must be
//! a JSON number, `true`, `false` or `null`, else `tool_call.invalid_literal` at the word.
//! Whitespace is allowed between tokens; trailing commas are not. A repeated key is
//! `tool_call.duplicate_argument` among the arguments and `json.duplicate_key` in a nested
//! object (as call syntax does). Objects and arrays nested deeper than [`crate::MAX_DEPTH`]
//! inside the arguments are `tool_call.too_deep`. The text ending inside a call, a string, a
//! word or a token is `tool_call.unclosed`.
//!
//! After the calls the model writes `<|tool_response>` (Gemma 4) or `<start_function_response>`
//! (FunctionGemma) and stops: that token ends the output, and the text after it is not read.

use super::Calls;
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws};
use crate::syntax::object_literal::{arguments_as, found, is_name_byte, unclosed};

/// One of the two dialects of the grammar.
struct Dialect {
    marker: &'static str,
    close: &'static str,
    /// The token around strings.
    delimiter: &'static str,
    /// The token the model writes after its calls, where it stops.
    stop: &'static str,
    /// Whether `:` alone may stand for `call:`.
    bare_colon: bool,
    format: Format,
}

const GEMMA4: Dialect = Dialect {
    marker: "<|tool_call>",
    close: "<tool_call|>",
    delimiter: "<|\"|>",
    stop: "<|tool_response>",
    bare_colon: true,
    format: Format::Gemma4,
};

const FUNCTION_GEMMA: Dialect = Dialect {
    marker: "<start_function_call>",
    close: "<end_function_call>",
    delimiter: "<escape>",
    stop: "<start_function_response>",
    bare_colon: false,
    format: Format::FunctionGemma,
};

const CALL: &str = "call:";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Gemma4, Format::FunctionGemma],
    markers: &[GEMMA4.marker, FUNCTION_GEMMA.marker],
    tokens: &[
        CALL,
        GEMMA4.close,
        GEMMA4.delimiter,
        GEMMA4.stop,
        FUNCTION_GEMMA.close,
        FUNCTION_GEMMA.delimiter,
        FUNCTION_GEMMA.stop,
    ],
    closers: &[],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after it (the end of the text
/// when the stop token follows).
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let d = if at(bytes, start, GEMMA4.marker) {
        &GEMMA4
    } else {
        &FUNCTION_GEMMA
    };
    let p = skip_ws(bytes, start + d.marker.len());
    let name_at = if at(bytes, p, CALL) {
        p + CALL.len()
    } else if d.bare_colon && bytes.get(p) == Some(&b':') {
        p + 1
    } else {
        if CALL.as_bytes().starts_with(&bytes[p..]) {
            return Err(super::unclosed_marker(text, d.marker));
        }
        return Err(super::unrecognized(text, p, d.marker));
    };
    let name_end = name_at + bytes[name_at..].iter().take_while(|&&b| is_name_byte(b)).count();
    if name_end == bytes.len() {
        return Err(unclosed(text, "the tool name"));
    }
    if name_end == name_at {
        let prefix = &text[p..name_at];
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            name_at,
            format!("expected a tool name after `{prefix}`, found {}", found(text, name_at)),
        ));
    }
    if bytes[name_end] != b'{' {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            name_end,
            format!("expected `{{` after the tool name, found {}", found(text, name_end)),
        ));
    }
    let (arguments, deferred, after) = arguments_as(text, name_end, d.delimiter, (d.format, out.defer))?;
    let end = close(text, after, d)?;
    let name = text[name_at..name_end].to_string();
    let origin = Origin::At {
        name: name_at,
        args: Args::Gemma {
            at: name_end,
            delimiter: d.delimiter,
        },
    };
    let mut call = ToolCall::new(name, arguments, d.format, start..end);
    call.deferred = deferred;
    out.push(call.with_origin(origin));
    let next = skip_ws(bytes, end);
    if at(bytes, next, d.stop) {
        return Ok(bytes.len());
    }
    if at(bytes, next, CALL) {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            next,
            format!("a call must start with `{}`", d.marker),
        ));
    }
    Ok(end)
}

/// Whitespace and the closing tag after the arguments, which end at `p`; the end of the text is
/// accepted in its place. Returns the offset after the tag.
/// The string delimiter of `format`'s object literals, when it is one of this family's.
pub(crate) fn delimiter(format: Format) -> Option<&'static str> {
    [GEMMA4, FUNCTION_GEMMA]
        .into_iter()
        .find(|d| d.format == format)
        .map(|d| d.delimiter)
}

fn close(text: &str, p: usize, d: &Dialect) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    if at(bytes, p, d.close) {
        return Ok(p + d.close.len());
    }
    if p == bytes.len() {
        return Ok(p);
    }
    if d.close.as_bytes().starts_with(&bytes[p..]) {
        return Err(unclosed(text, "the closing tag"));
    }
    Err(ParseError::new(
        ErrorCode::Syntax,
        p,
        format!("expected `{}` after the arguments, found {}", d.close, found(text, p)),
    ))
}
