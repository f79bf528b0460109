//! Detection order: tier 1 (tagged formats, in text order), tier 2 (JSON call shapes), tier 3
//! (Python call syntax). The first tier that finds anything wins.

use memchr::memchr2;

use crate::error::{ErrorCode, ParseError};
use crate::formats::{bracket, hermes, json, llama, mistral, python, qwen3_coder, xml_invoke};
use crate::scan::at;
use crate::ToolCall;

pub(crate) fn parse_all(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    for tier in [tagged, json::scan, python::scan] {
        let calls = tier(text)?;
        if !calls.is_empty() {
            return Ok(calls);
        }
    }
    Err(ParseError::new(
        ErrorCode::NotFound,
        0,
        "no tool call found in any format",
    ))
}

/// A tier-1 format's parser: parses the call(s) whose marker is at the offset, pushes them and
/// returns the offset after them.
type TaggedParser = fn(&str, usize, &mut Vec<ToolCall>) -> Result<usize, ParseError>;

/// The parser of the tier-1 marker that starts at `start`, if one does.
fn marker_at(bytes: &[u8], start: usize) -> Option<TaggedParser> {
    let parser: TaggedParser = if at(bytes, start, hermes::MARKER) {
        hermes::parse
    } else if at(bytes, start, mistral::MARKER) {
        mistral::parse
    } else if at(bytes, start, bracket::MARKER) {
        bracket::parse
    } else if at(bytes, start, llama::MARKER) {
        llama::parse
    } else if xml_invoke::is_marker(bytes, start) {
        xml_invoke::parse
    } else if at(bytes, start, qwen3_coder::MARKER) {
        qwen3_coder::parse
    } else {
        return None;
    };
    Some(parser)
}

/// The offset of the first tier-1 marker in `text`.
pub(crate) fn first_marker(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some(i) = memchr2(b'<', b'[', &bytes[pos..]) {
        let start = pos + i;
        if marker_at(bytes, start).is_some() {
            return Some(start);
        }
        pos = start + 1;
    }
    None
}

/// Tier 1: every marker in text order; each call is parsed forward from its marker and scanning
/// resumes after it.
pub(crate) fn tagged(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = memchr2(b'<', b'[', &bytes[pos..]) {
        let start = pos + i;
        pos = match marker_at(bytes, start) {
            Some(parse) => parse(text, start, &mut out)?,
            None => start + 1,
        };
    }
    Ok(out)
}
