//! `<tool_call>{json}</tool_call>`: Hermes, Qwen and many fine-tunes.
//!
//! The content is one JSON call shape (an array gives several calls). The closing tag may be
//! missing only at the very end of the text, where servers often stop generating.

use super::{closing_tag, tagged_json, widen_span};
use crate::error::ParseError;
use crate::{Format, ToolCall};

pub(crate) const MARKER: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";

/// Parses the call whose marker is at `start`; returns the offset after it.
pub(crate) fn parse(text: &str, start: usize, out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    let first = out.len();
    let end = tagged_json(text, start + MARKER.len(), Format::Hermes, MARKER, out)?;
    let end = closing_tag(text, end, CLOSE)?;
    widen_span(out, first, start, end);
    Ok(end)
}
