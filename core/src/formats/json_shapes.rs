//! Tier 2: JSON call shapes anywhere in the text (bare, in prose, or in a fenced block).
//!
//! The text is scanned for `{` and `[`. A value that parses is a call or data, and scanning
//! resumes after it. A value that fails to parse is a broken call when it claims to be one (a
//! call-shape key at its top level before the failure, [`claims_call`]); otherwise it is prose
//! and scanning resumes where it failed, so no character is scanned from more than one start and
//! the tier stays linear.

use std::ops::Range;

use memchr::memchr2;

use crate::call::{Format, ToolCall};
use crate::error::ParseError;
use crate::syntax::shape::{call_spans, calls_in, claims_call, may_be_call_shape, Defer, Mode};
use crate::syntax::{json, plain_shapes};

/// Every JSON call in `text`, in text order, its arguments read as `defer` says; the range of
/// each value that holds calls (a call, a list of calls or a message) goes to `regions`.
pub(crate) fn calls(
    text: &str,
    regions: &mut Vec<Range<usize>>,
    defer: Defer<'_>,
) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = memchr2(b'{', b'[', &bytes[pos..]) {
        let start = pos + i;
        // A candidate that fails to parse raises its error when it claims to be a call; any
        // other is prose, and scanning resumes where it failed. A well-formed one that cannot be
        // a call shape is data, skipped without building it.
        let end = match json::probe_check_at(text, start) {
            Ok(end) => end,
            Err(offset) => {
                if claims_call(bytes, start, offset) {
                    json::parse_value_at(text, start)?; // fails as the check did, with a message
                }
                pos = offset.clamp(start + 1, bytes.len());
                continue;
            }
        };
        if !may_be_call_shape(bytes, start) {
            pos = end;
            continue;
        }
        if plain_shapes::calls(text, start, Mode::Bare, Format::Json, defer, &mut out).is_some() {
            regions.push(start..end);
            pos = end;
            continue;
        }
        let (value, end) = json::parse_value_at(text, start)?;
        let spans = call_spans(text, start, end, &value, Mode::Bare);
        if let Some(calls) = calls_in(text, start, value, Mode::Bare)? {
            regions.push(start..end);
            let spans = spans.into_iter().chain(std::iter::repeat(start..end));
            out.extend(
                calls
                    .into_iter()
                    .zip(spans)
                    .map(|(call, span)| call.into_call(Format::Json, span)),
            );
        }
        pos = end;
    }
    Ok(out)
}

/// The spans of the well-formed JSON calls in `text` (broken ones are skipped, never raised),
/// and the call left open by the end of the text, if one is: where it starts, and its error.
pub(crate) fn spans(text: &str) -> (Vec<Range<usize>>, Option<(usize, ParseError)>) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = memchr2(b'{', b'[', &bytes[pos..]) {
        let start = pos + i;
        match json::probe_check_at(text, start) {
            Ok(end) => {
                if may_be_call_shape(bytes, start) {
                    let value = json::parse_value_at(text, start).map(|(value, _)| value);
                    if matches!(value.map(|v| calls_in(text, start, v, Mode::Bare)), Ok(Ok(Some(_)))) {
                        out.push(start..end);
                    }
                }
                pos = end;
            }
            Err(offset) if offset >= bytes.len() && claims_call(bytes, start, offset) => {
                let open = json::parse_value_at(text, start).err().map(|e| (start, e));
                return (out, open);
            }
            Err(offset) => pos = offset.clamp(start + 1, bytes.len()),
        }
    }
    (out, None)
}
