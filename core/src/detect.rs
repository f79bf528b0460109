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

/// Tier 1: every marker in text order; each call is parsed forward from its marker and scanning
/// resumes after it.
fn tagged(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = memchr2(b'<', b'[', &bytes[pos..]) {
        let start = pos + i;
        pos = if at(bytes, start, hermes::MARKER) {
            hermes::parse(text, start, &mut out)?
        } else if at(bytes, start, mistral::MARKER) {
            mistral::parse(text, start, &mut out)?
        } else if at(bytes, start, bracket::MARKER) {
            bracket::parse(text, start, &mut out)?
        } else if at(bytes, start, llama::MARKER) {
            llama::parse(text, start, &mut out)?
        } else if xml_invoke::is_marker(bytes, start) {
            xml_invoke::parse(text, start, &mut out)?
        } else if at(bytes, start, qwen3_coder::MARKER) {
            qwen3_coder::parse(text, start, &mut out)?
        } else {
            start + 1
        };
    }
    Ok(out)
}
