//! MiniCPM 5: `<function name="f"><param name="k">v</param></function>`, the tags back to back,
//! one call after another with no section around them.
//!
//! - A call is `<function name="NAME">` (single or double quotes, whitespace allowed around `=`
//!   and before `>`; other attributes are ignored), any number of
//!   `<param name="KEY">VALUE</param>` (whitespace allowed between the tags), then `</function>`.
//!   The space before `name=` may be missing (`<functionname="f">`,
//!   `<paramname="k">`: decoders drop it) or written `Ġ` (U+0120, a byte-level tokenizer's space
//!   left undecoded); each tag is read on its own. `<function` and whitespace that `name =` does
//!   not follow is the word in prose, no call.
//! - VALUE is raw text up to `</param>`, with no entities decoded (the template wraps a value with
//!   `<`, `&` or a line break in CDATA instead), typed as in `xml_invoke`: JSON when the trimmed
//!   text is JSON (`[1, 2, 3]`, `true`, `5`), else the text as a string, untrimmed; with a tool
//!   list, the parameter's schema types the text ([`crate::tools`]; the template writes
//!   non-string values with Python's `str()`, so `True` and `['a', 'b']` are typed there).
//! - A VALUE that begins (after whitespace) with `<![CDATA[` is the text of its CDATA section,
//!   exactly, whitespace included: a string (with a tool list, typed by the schema like any text
//!   value). The section ends at the first `]]>` followed (after whitespace) by `</param>`; a `]]>`
//!   followed by anything else is text of the section, so a value may hold `]]>` as the template
//!   writes it, unescaped. A `]]>` followed by the next `<param name=…>` or `</function>` means
//!   the value was not closed: `tool_call.unclosed` at its `<param`.
//! - Outside CDATA, a `<param` tag anywhere inside a VALUE (the template writes the tags back to
//!   back) means the value was not closed, unless it closes itself and the value's own
//!   `</param>` follows ([`super::tagged`]): `tool_call.unclosed` at the value's `<param`, never a
//!   value holding the next parameter's text.
//! - A repeated KEY, or a second `name` attribute in one tag, is `tool_call.duplicate_argument`;
//!   a blank name or a tag without one is `tool_call.invalid_name`; other text between the tags
//!   is `tool_call.syntax`; the text ending inside a call is `tool_call.unclosed`.
//!
//! With a tool list, a call whose only parameter is named `properties` or `arguments`, where the
//! tool's schema names no such property, and whose value is an object (JSON or a Python dict), is
//! the model wrapping all the arguments in one parameter: the call's arguments are that object
//! (done where the tools are applied, `tools/wrapper.rs`). Without a tool list, or when the
//! schema names the parameter, it stays a parameter.

use std::ops::Range;

use super::tagged::{self, Opener, Parameters, Place, ValueTags};
use super::xml_invoke::{read_tag, Dialect};
use super::Calls;
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, find, is_ws, skip_ws};
use crate::syntax::shape::{Defer, TextValue};

const FUNCTION: &str = "<function";
const CLOSE: &str = "</function>";
const PARAM: &str = "<param";
const PARAM_CLOSE: &str = "</param>";
const CDATA: &str = "<![CDATA[";
const CDATA_END: &str = "]]>";
/// The byte-level tokenizer's space, `Ġ` (U+0120).
const G_SPACE: &str = "\u{120}";

/// The attribute reader's settings: no entities, no `string` attribute.
const TAG: Dialect = Dialect {
    invoke: FUNCTION,
    invoke_close: CLOSE,
    parameter: PARAM,
    parameter_close: PARAM_CLOSE,
    format: Format::Minicpm,
    entities: false,
    typed: false,
    json_body: false,
    place: Place::Anywhere,
};

/// What may follow the element name of an opener inside a value: whitespace, the `n` of a
/// collapsed `name=`, or the first byte of `Ġ`.
const AFTER_NAME: &[u8] = b" \t\r\nn\xc4";

/// How a value meets the tags around it ([`tagged`]): the template writes the tags back to back.
pub(crate) const VALUE_TAGS: ValueTags<'static> = ValueTags {
    open: "<param name=…>",
    close: PARAM_CLOSE,
    sibling: Opener {
        tag: PARAM,
        after: AFTER_NAME,
        pair: None,
    },
    call: Opener {
        tag: FUNCTION,
        after: AFTER_NAME,
        pair: None,
    },
    call_close: CLOSE,
    place: Place::Anywhere,
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Minicpm],
    markers: &[
        "<function ",
        "<function\t",
        "<function\n",
        "<function\r",
        "<functionname=",
        "<function\u{120}name=",
    ],
    tokens: &[
        CLOSE,
        "<param name=",
        "<paramname=",
        "<param\u{120}name=",
        PARAM_CLOSE,
        CDATA,
        CDATA_END,
    ],
    closers: &[CLOSE],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after its `</function>`. A
/// `<function` and whitespace that no `name =` follows is no call (the word in prose): scanning
/// goes on after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let word = opener_len(bytes, start, FUNCTION).unwrap_or(FUNCTION.len());
    if bytes.get(start + word).is_some_and(|&b| is_ws(b)) {
        let q = skip_ws(bytes, start + word);
        let eq = skip_ws(bytes, q + 4);
        if !at(bytes, q, "name") || bytes.get(eq).is_some_and(|&b| b != b'=') {
            if b"name".starts_with(&bytes[q.min(bytes.len())..]) {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    bytes.len(),
                    "the text ends inside a `<function` tag",
                ));
            }
            return Ok(q);
        }
        if eq == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends inside a `<function` tag",
            ));
        }
    }
    let (tag, body) = read_tag(text, start, word, &TAG)?;
    let (arguments, deferred, params, end) = parameters(text, body, out.defer)?;
    let origin = Origin::At {
        name: tag.name_at,
        args: Args::Params(params),
    };
    let mut call = ToolCall::new(tag.name.into_owned(), arguments, Format::Minicpm, start..end).with_origin(origin);
    call.deferred = deferred;
    out.push(call);
    Ok(end)
}

/// The length of the element name of the opener `word` (`<function`, `<param`) at `p`, with the
/// `Ġ` written for the space before `name=`: `None` when no opener of that element starts there
/// (`<param>` has no name and `<params` is another word).
fn opener_len(bytes: &[u8], p: usize, word: &str) -> Option<usize> {
    if !at(bytes, p, word) {
        return None;
    }
    let q = p + word.len();
    match bytes.get(q) {
        Some(&b) if is_ws(b) => Some(word.len()),
        _ if at(bytes, q, "name=") => Some(word.len()),
        _ if at(bytes, q, G_SPACE) && at(bytes, q + G_SPACE.len(), "name=") => Some(word.len() + G_SPACE.len()),
        _ => None,
    }
}

/// The parameters from `p` up to `</function>` (as [`tagged::parameters`]).
fn parameters(text: &str, p: usize, defer: Defer<'_>) -> Result<Parameters, ParseError> {
    let bytes = text.as_bytes();
    tagged::parameters(text, p, CLOSE, defer, |p, params| {
        let Some(word) = opener_len(bytes, p, PARAM) else {
            return Err(not_a_parameter(text, p));
        };
        let (param, value_at) = read_tag(text, p, word, &TAG)?;
        let (value, written, next) = value(text, p, value_at)?;
        if params.repeated(&param.name) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                p,
                format!("the parameter {} is given twice", crate::lex::quote(&param.name)),
            ));
        }
        params.push(param.name, value, Param::new(written, Text::Raw));
        Ok(next)
    })
}

/// The text at `p` inside a call is neither a `<param` tag nor `</function>`: unclosed when the
/// text ends there or partway through one of them, else a syntax error.
fn not_a_parameter(text: &str, p: usize) -> ParseError {
    let rest = &text.as_bytes()[p..];
    let cut = [CLOSE, "<param name=", "<paramname=", "<param\u{120}name="]
        .iter()
        .any(|t| t.as_bytes().starts_with(rest));
    if cut {
        return ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            "the text ends inside `<function name=…>`: expected `</function>`",
        );
    }
    ParseError::new(
        ErrorCode::Syntax,
        p,
        format!(
            "expected `<param name=\"…\">` or `</function>`, found {}",
            super::found_at(text, p)
        ),
    )
}

/// The value of the parameter whose tag opens at `opener` and whose text starts at `value_at`,
/// where its text is written, and the offset after its `</param>`.
fn value(text: &str, opener: usize, value_at: usize) -> Result<(TextValue<'_>, Range<usize>, usize), ParseError> {
    let bytes = text.as_bytes();
    let q = skip_ws(bytes, value_at);
    if at(bytes, q, CDATA) {
        let from = q + CDATA.len();
        let (len, end) = cdata(text, opener, from)?;
        let raw = &text[from..from + len];
        return Ok((TextValue::Text(raw), from..from + len, end));
    }
    let len = tagged::read(text, opener, value_at, &VALUE_TAGS)?.len;
    let raw = &text[value_at..value_at + len];
    Ok((
        TextValue::Probed(raw.into()),
        value_at..value_at + len,
        value_at + len + PARAM_CLOSE.len(),
    ))
}

/// The CDATA section whose text starts at `from`, in the value whose `<param` is at `opener`:
/// the text's length and the offset after the value's `</param>`. One pass: each `]]>` is looked
/// at once, with the whitespace after it.
fn cdata(text: &str, opener: usize, from: usize) -> Result<(usize, usize), ParseError> {
    let bytes = text.as_bytes();
    let mut search = from;
    while let Some(i) = find(&bytes[search..], CDATA_END) {
        let end = search + i;
        let next = skip_ws(bytes, end + CDATA_END.len());
        if at(bytes, next, PARAM_CLOSE) {
            return Ok((end - from, next + PARAM_CLOSE.len()));
        }
        if opener_len(bytes, next, PARAM).is_some() || at(bytes, next, CLOSE) {
            return Err(tagged::not_closed(text, opener, next, &VALUE_TAGS).read_to(next));
        }
        search = end + 1;
    }
    Err(ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        "the text ends inside a CDATA section: expected `]]>` and `</param>`",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_at_start(text: &str) -> Result<usize, ParseError> {
        let mut list = Vec::new();
        parse(text, 0, &mut Calls::new(&mut list, crate::syntax::shape::Defer::Never))
    }

    /// A call that repeats a broken piece is read in one pass (a rescan from each piece would
    /// make these about 10^10 steps); a value that was not closed raises at its opener and says
    /// how far it read, so that a scanner inside reasoning goes on from there.
    #[test]
    fn broken_calls_are_read_in_one_pass() {
        let open_values = "<function name=\"f\"><param name=\"a\">x".repeat(100_000);
        let e = parse_at_start(&open_values).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Unclosed, 19));
        let cdata_ends = "<function name=\"f\"><param name=\"a\"><![CDATA[x]]>".repeat(100_000);
        let e = parse_at_start(&cdata_ends).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Unclosed, cdata_ends.len()));
        let unit = "<function name=\"f\"><param name=\"a\"><![CDATA[x]]><param name=\"b\">";
        let cdata_values = unit.repeat(100_000);
        let e = parse_at_start(&cdata_values).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Unclosed, 19));
        assert_eq!(e.read_to, Some(unit.find("<param name=\"b\"").unwrap_or_default()));
        let ends = "<function name=\"f\"><param name=\"a\"><![CDATA[".to_string() + &"]]>x".repeat(1_000_000);
        let e = parse_at_start(&ends).unwrap_err();
        assert_eq!((e.code, e.offset), (ErrorCode::Unclosed, ends.len()));
    }
}
