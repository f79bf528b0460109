//! Tier 3: Python call syntax anywhere in the text, `search(query="rust", limit=5)`.
//!
//! A call is a dotted name immediately followed by `(` whose contents are empty or start with
//! `identifier=`; anything else is prose. A recognised call must parse.

use memchr::memchr;

use crate::callsyntax::{parse_arguments, starts_keyword_list};
use crate::error::ParseError;
use crate::scan::{dotted_name_end, is_ident_continue};
use crate::{Format, ToolCall};

/// Every call in `text`, in text order.
pub(crate) fn scan(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut floor = 0; // names may not reach back before the end of the previous call
    let mut pos = 0;
    while let Some(i) = memchr(b'(', &bytes[pos..]) {
        let open = pos + i;
        let mut name_at = open;
        while name_at > floor && (is_ident_continue(bytes[name_at - 1]) || bytes[name_at - 1] == b'.') {
            name_at -= 1;
        }
        let is_call = name_at < open && dotted_name_end(bytes, name_at) == open && starts_keyword_list(bytes, open);
        if !is_call {
            pos = open + 1;
            continue;
        }
        let (arguments, end) = parse_arguments(text, open)?;
        out.push(ToolCall {
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
