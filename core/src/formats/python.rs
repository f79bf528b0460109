//! Tier 3: Python call syntax anywhere in the text, `search(query="rust", limit=5)`.
//!
//! A call is a dotted name immediately followed by `(` whose contents are empty or start with
//! `identifier=`; anything else is prose. A recognised call must parse.
//!
//! A text that starts (after whitespace) with a list of such calls, `[f(a=1), g()]`, is a
//! Python call list: it is parsed as a whole by [`super::pythonic::bare_list`] and its calls are
//! reported as `pythonic`; scanning goes on after it.

use std::ops::Range;

use memchr::memchr;

use super::pythonic;
use crate::callsyntax::{parse_arguments, starts_keyword_list};
use crate::error::ParseError;
use crate::scan::{dotted_name_end, is_ident_continue, skip_ws};
use crate::{Format, ToolCall};

/// Every call in `text`, in text order.
pub(crate) fn scan(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut floor = 0; // names may not reach back before the end of the previous call
    let mut pos = 0;
    let list_at = skip_ws(bytes, 0);
    if pythonic::starts_bare_list(bytes, list_at) {
        floor = pythonic::bare_list(text, list_at, &mut out)?;
        pos = floor;
    }
    while let Some(i) = memchr(b'(', &bytes[pos..]) {
        let open = pos + i;
        let Some(name_at) = call_name_at(bytes, floor, open) else {
            pos = open + 1;
            continue;
        };
        let (arguments, end) = parse_arguments(text, open)?;
        out.push(ToolCall {
            id: None,
            name: text[name_at..open].to_string(),
            arguments,
            format: Format::Python,
            span: name_at..end,
        });
        floor = end;
        pos = end;
    }
    Ok(out)
}

/// Where the name of the call whose `(` is at `open` starts, if a call starts there: a dotted name
/// (not reaching back before `floor`) right before `(`, and a keyword list or `)` after it.
fn call_name_at(bytes: &[u8], floor: usize, open: usize) -> Option<usize> {
    let mut name_at = open;
    while name_at > floor && (is_ident_continue(bytes[name_at - 1]) || bytes[name_at - 1] == b'.') {
        name_at -= 1;
    }
    let is_call = name_at < open && dotted_name_end(bytes, name_at) == open && starts_keyword_list(bytes, open);
    is_call.then_some(name_at)
}

/// The spans of the well-formed calls in `text`; broken ones are skipped, never raised.
pub(crate) fn spans(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut floor = 0;
    let mut pos = 0;
    while let Some(i) = memchr(b'(', &bytes[pos..]) {
        let open = pos + i;
        pos = open + 1;
        if let Some(name_at) = call_name_at(bytes, floor, open) {
            if let Ok((_, end)) = parse_arguments(text, open) {
                out.push(name_at..end);
                floor = end;
                pos = end;
            }
        }
    }
    out
}
