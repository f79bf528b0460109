//! Reading a model's output while it streams: may the text so far be shown, or must the reader
//! hold it back because a tagged tool call has started?
//!
//! Only tagged (tier 1) calls can be recognised before the message ends: a marker announces them.
//! Bare JSON and call syntax are known only once the message is complete (`parse_tool_calls`).

use crate::detect::{first_claim, first_marker, tagged};
use crate::formats::FAMILIES;

/// What the text streamed so far holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamState {
    /// No tagged call has started: all of the text may be shown.
    None,
    /// A tagged call has started and is not complete yet, or the text ends with what may be the
    /// start of a marker (`<tool_`): show the text before `offset`, hold the rest.
    Partial,
    /// The first tagged call is complete (closed by its closing tag, or by its end where the
    /// format has none; later calls may still be arriving), or a call is already broken (parsing
    /// raises its error): show the text before `offset`; parse the whole message when it ends.
    Found,
}

impl StreamState {
    /// `none`, `partial` or `found`.
    pub const fn as_str(self) -> &'static str {
        match self {
            StreamState::None => "none",
            StreamState::Partial => "partial",
            StreamState::Found => "found",
        }
    }
}

/// The answer of [`scan_stream`]: the state, and the byte offset up to which the text is prose
/// that may be shown (the end of the text for [`StreamState::None`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamScan {
    pub state: StreamState,
    pub offset: usize,
}

/// Every tier-1 marker.
fn markers() -> impl Iterator<Item = &'static str> {
    FAMILIES.iter().flat_map(|f| f.markers.iter().copied())
}

/// Every tier-1 marker, and every token the tagged grammars expect after one. A text that stops
/// partway through one of these is incomplete, not wrong.
fn tokens() -> impl Iterator<Item = &'static str> {
    markers().chain(FAMILIES.iter().flat_map(|f| f.tokens.iter().copied()))
}

/// Whether `rest` is a proper, non-empty beginning of one of `tokens`.
fn begins_token(rest: &str, mut tokens: impl Iterator<Item = &'static str>) -> bool {
    !rest.is_empty() && tokens.any(|t| t.len() > rest.len() && t.starts_with(rest))
}

/// Scans the text streamed so far. Linear in its length, like parsing it (the text is parsed
/// twice: as it is, and with one more character, to tell a closed call from one whose closing
/// tag has not arrived; and when it ends inside a call, the text up to the end of the first
/// call is scanned the same way). Fed a growing text, the state moves only forward (partial,
/// then found) once a whole marker has arrived: `found` stays once the first call is complete,
/// while later calls arrive. Before a whole marker, a held `<tool_` may turn out to be prose.
pub fn scan_stream(text: &str) -> StreamScan {
    let Some(first) = first_marker(text) else {
        // No marker yet; the text may end with the beginning of one.
        let longest = markers().map(str::len).max().unwrap_or(0);
        let tail = (1..longest)
            .filter_map(|k| text.len().checked_sub(k))
            .filter(|&at| text.is_char_boundary(at) && begins_token(&text[at..], markers()))
            .min();
        return match tail {
            Some(at) => StreamScan {
                state: StreamState::Partial,
                offset: at,
            },
            None => StreamScan {
                state: StreamState::None,
                offset: text.len(),
            },
        };
    };
    let state = match state_at_end(text) {
        StreamState::Partial if first_call_found(text) => StreamState::Found,
        state => state,
    };
    StreamScan { state, offset: first }
}

/// Whether the text ends inside a tagged call (partial) or after complete or broken ones (found).
fn state_at_end(text: &str) -> StreamState {
    match tagged(text, crate::call::FormatSet::ALL) {
        // Complete only because the text ends here (a closing tag or `<|eom_id|>` may follow)?
        // Then more of the call is to come: with any character after it, it would not parse.
        Ok(_) => match tagged(&format!("{text}\u{1}"), crate::call::FormatSet::ALL) {
            Err(e) if e.offset >= text.len() => StreamState::Partial,
            _ => StreamState::Found,
        },
        // The text ends inside a call, or stops partway through a token the grammar expects.
        Err(e) if e.offset >= text.len() || begins_token(text.get(e.offset..).unwrap_or(""), tokens()) => {
            StreamState::Partial
        }
        Err(_) => StreamState::Found,
    }
}

/// Whether the call(s) at the first claiming marker were already found in an earlier text: they end
/// before the end of the text, and the text up to their end scans as found. A later call that is
/// still arriving then leaves the state found, so that it only moves forward.
fn first_call_found(text: &str) -> bool {
    let Some((first, parse)) = first_claim(text) else {
        return false;
    };
    let mut calls = Vec::new();
    let end = match parse(text, first, &mut calls) {
        Ok(end) => Some(end),
        // A later call of the same marker is still arriving: the ones before it may be whole.
        Err(_) => calls.iter().map(|c| c.span.end).max(),
    };
    let before = end
        .and_then(|end| text.get(..end))
        .filter(|before| before.len() < text.len());
    before.is_some_and(|before| state_at_end(before) == StreamState::Found)
}
