//! LongCat-Flash: `<longcat_tool_call>…</longcat_tool_call>` around either a JSON call or GLM-like
//! key/value pairs.
//!
//! ```text
//! <longcat_tool_call>
//! {"name": "get_weather", "arguments": {"city": "Paris"}}
//! </longcat_tool_call>
//! <longcat_tool_call>get_weather
//! <longcat_arg_key>city</longcat_arg_key>
//! <longcat_arg_value>Paris</longcat_arg_value>
//! </longcat_tool_call>
//! ```
//!
//! The content, after whitespace, decides the grammar:
//! - `{` or `[`: one JSON call shape, as in `hermes` (an array gives several calls); the closing
//!   tag may be missing only at the very end of the text.
//! - a tool name followed by `<longcat_arg_key>`, a line break or `</longcat_tool_call>`: the
//!   pairs grammar of [`super::glm`] with `longcat_`-prefixed tags (values typed the same way);
//!   the closing tag is required.
//!
//! Anything else is `tool_call.unrecognized`. Calls follow each other back to back; text after
//! them (`</longcat_s>`) is prose.

use super::glm::{self, Tags};
use super::Calls;
use super::{closing_tag, tagged_json, widen_span};
use crate::call::Format;
use crate::error::ParseError;
use crate::lex::skip_ws;

const TAGS: Tags = Tags {
    open: "<longcat_tool_call>",
    close: "</longcat_tool_call>",
    key: "<longcat_arg_key>",
    key_close: "</longcat_arg_key>",
    value: "<longcat_arg_value>",
    value_close: "</longcat_arg_value>",
    name_sep: None,
    format: Format::Longcat,
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Longcat],
    markers: &[TAGS.open],
    tokens: &[TAGS.close, TAGS.key, TAGS.key_close, TAGS.value, TAGS.value_close],
    closers: &[TAGS.close],
    json_bodies: &[super::JsonBody::at(TAGS.open, Format::Longcat)],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let content = skip_ws(text.as_bytes(), start + TAGS.open.len());
    if glm::starts_call(text, content, &TAGS) {
        let (call, end) = glm::call(text, start, &TAGS, out.defer)?;
        out.push(call);
        return Ok(end);
    }
    let first = out.len();
    let end = tagged_json(text, content, Format::Longcat, TAGS.open, out)?;
    let end = closing_tag(text, end, TAGS.close)?;
    widen_span(out, first, start, end);
    Ok(end)
}
