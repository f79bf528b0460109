//! K2-Horizon (IFM): GLM's key/value pairs with `ifm|`-prefixed tags, inside a calls section.
//!
//! ```text
//! <ifm|tool_calls><ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Paris</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
//! ```
//!
//! - The section `<ifm|tool_calls>` holds one or more calls, whitespace allowed between them, and
//!   ends with `</ifm|tool_calls>`; a text that ends right after a complete call needs no section
//!   end (a server may cut it as a stop string). Anything else after a call is `tool_call.syntax`.
//! - A call `<ifm|tool_call>…</ifm|tool_call>` may also stand alone, without the section.
//! - A call is [`super::glm`]'s grammar with these tags: NAME, then `<ifm|arg_key>KEY</ifm|arg_key>`
//!   `<ifm|arg_value>VALUE</ifm|arg_value>` pairs (or one JSON object), then `</ifm|tool_call>`;
//!   values are raw text typed as GLM's are, and the same rules hold for a value never closed.

use super::glm::{self, Tags};
use super::{unexpected, widen_span, Calls};
use crate::call::Format;
use crate::error::ParseError;
use crate::lex::{at, skip_ws};

const SECTION: &str = "<ifm|tool_calls>";
const SECTION_END: &str = "</ifm|tool_calls>";

const TAGS: Tags = Tags {
    open: "<ifm|tool_call>",
    close: "</ifm|tool_call>",
    key: "<ifm|arg_key>",
    key_close: "</ifm|arg_key>",
    value: "<ifm|arg_value>",
    value_close: "</ifm|arg_value>",
    name_sep: None,
    format: Format::Ifm,
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Ifm],
    markers: &[SECTION, TAGS.open],
    tokens: &[
        SECTION_END,
        TAGS.close,
        TAGS.key,
        TAGS.key_close,
        TAGS.value,
        TAGS.value_close,
    ],
    // A call's close may be followed by the next call, so only the section's end settles it.
    closers: &[SECTION_END],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the section or the call whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if !at(bytes, start, SECTION) {
        let (call, end) = glm::call(text, start, &TAGS, out.defer)?;
        out.push(call);
        return Ok(end);
    }
    let first = out.len();
    let mut p = skip_ws(bytes, start + SECTION.len());
    loop {
        if !at(bytes, p, TAGS.open) {
            let expected: &[&str] = if out.len() == first {
                &[TAGS.open]
            } else {
                &[TAGS.open, SECTION_END]
            };
            return Err(unexpected(text, p, expected, "the tool calls section"));
        }
        let (call, end) = glm::call(text, p, &TAGS, out.defer)?;
        out.push(call);
        let next = skip_ws(bytes, end);
        if at(bytes, next, SECTION_END) {
            let end = next + SECTION_END.len();
            widen_span(out, first, start, end);
            return Ok(end);
        }
        if next == bytes.len() {
            widen_span(out, first, start, end);
            return Ok(end);
        }
        p = next;
    }
}
