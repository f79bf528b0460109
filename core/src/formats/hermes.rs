//! `<tool_call>{json}</tool_call>`: Hermes, Qwen and many fine-tunes.
//!
//! The content, after whitespace, decides the grammar:
//! - `{` or `[`: one JSON call shape (an array gives several calls). The closing tag may be
//!   missing only at the very end of the text, where servers often stop generating.
//! - `<function=`: Qwen3-Coder's markup (see [`super::qwen3_coder`]), closed the same way.
//! - a tool name followed by `<arg_key>`, a line break, `</tool_call>` or `<tool_sep>`: GLM's
//!   key/value pairs (see [`super::glm`]), which end only at `</tool_call>`. (A name followed by
//!   a literal `\n` and `<arg_key>` is such a call escaped a second time: it is not recognized,
//!   and its error carries the repair [`glm::escaped_call`].)
//!
//! Anything else is `tool_call.unrecognized`.

use super::Calls;
use super::{closing_tag, glm, qwen3_coder, tagged_json, widen_span};
use crate::call::Format;
use crate::error::ParseError;
use crate::lex::{at, skip_ws};

pub(crate) const MARKER: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Hermes, Format::Qwen3Coder, Format::Glm45],
    markers: &[MARKER],
    tokens: &[CLOSE],
    closers: &[CLOSE],
    json_bodies: &[super::JsonBody::at(MARKER, Format::Hermes)],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after it.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let first = out.len();
    let content = skip_ws(text.as_bytes(), start + MARKER.len());
    let end = if at(text.as_bytes(), content, qwen3_coder::MARKER) {
        let (call, end) = qwen3_coder::function(text, content, out.defer)?;
        out.push(call);
        end
    } else if glm::starts_call(text, content, &glm::TAGS) {
        let (call, end) = glm::call(text, start, &glm::TAGS, out.defer)?;
        out.push(call);
        return Ok(end);
    } else if glm::escaped_start(text, content, &glm::TAGS) {
        let mend = crate::repair::Mend {
            from: content,
            at: content,
            find: |text, at, _| glm::escaped_call(text, at, &glm::TAGS),
        };
        return Err(super::unrecognized(text, content, MARKER).mend(mend));
    } else {
        tagged_json(text, content, Format::Hermes, MARKER, out)?
    };
    let end = closing_tag(text, end, CLOSE)?;
    widen_span(out, first, start, end);
    Ok(end)
}
