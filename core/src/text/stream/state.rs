//! `scan_stream`: may the text streamed so far be shown, or must the reader hold it back because
//! a tagged tool call has started? A convenience for callers that only need that state;
//! [`crate::ToolCallStream`] reports the content and the calls themselves.

use crate::call::FormatSet;
use crate::formats::tokens::WRAPPERS;
use crate::formats::Calls;
use crate::formats::Family;
use crate::syntax::shape::{Defer, CHECK};
use crate::text::reasoning::Start;
use crate::text::scanner::{Scanner, Segment};

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

/// Scans the text streamed so far, for callers that only need to know what may be shown. It runs
/// the stream's scanner ([`crate::ToolCallStream`]) over the text once, so it is linear in the
/// text; a caller that has the text arrive in pieces should use the stream itself, which does not
/// scan the text again for every piece. Tool-call markers only: leading JSON and call-syntax
/// calls are read when the message ends, and a marker in reasoning is a marker. Fed a growing
/// text, the state moves only forward (partial, then found) once a whole marker has arrived:
/// `found` stays once the first call is complete, while later calls arrive. Before a whole
/// marker, a held `<tool_` may turn out to be prose.
pub fn scan_stream(text: &str) -> StreamScan {
    let mut scanner = Scanner::new(FormatSet::ALL, Start::Content, false).markers_only();
    // A growing text never fails; a broken call waits for the end. The calls' arguments are
    // checked, not built: only where the calls are is reported.
    let _ = scanner.run_building(text, true, None, Some(CHECK));
    let first_region = scanner.found.segments.iter().find_map(|s| match s {
        Segment::Calls { range, .. } => Some(range.start),
        Segment::Reasoning(_) => None,
    });
    let at = scanner.frontier();
    let (state, offset) = match first_region {
        Some(start) => (StreamState::Found, start),
        None if scanner.waits_for_end() => (StreamState::Found, at),
        None => match scanner
            .waiting()
            .filter(|&(_, start)| start == at)
            .and_then(|(p, _)| p.family().map(|f| (p.at, f)))
        {
            Some((marker, family)) => (region_state(text, marker, family), at),
            None if at < text.len() => (StreamState::Partial, at),
            None => (StreamState::None, text.len()),
        },
    };
    // A wrapper tag before the first call goes with the calls: it is held too.
    let wrapper = WRAPPERS
        .iter()
        .filter_map(|w| memchr::memmem::find(&text.as_bytes()[..offset], w.as_bytes()))
        .min();
    match wrapper {
        Some(w) if state == StreamState::None => StreamScan {
            state: StreamState::Partial,
            offset: w,
        },
        Some(w) => StreamScan { state, offset: w },
        None => StreamScan { state, offset },
    }
}

/// The state of the waiting region at `at`: found when its first call is complete, closed by its
/// closing tag or by its end where the format has none (one more character would not change
/// it), partial otherwise.
fn region_state(text: &str, at: usize, family: &Family) -> StreamState {
    let mut calls = Vec::new();
    match family.read(text, at, &mut Calls::new(&mut calls, Defer::Build(CHECK))) {
        // Complete only because the text ends here (a closing tag or `<|eom_id|>` may follow)?
        // Then more of the call is to come: with any character after it, it would not parse.
        Ok(_) => match family.read(
            &format!("{text}\u{1}"),
            at,
            &mut Calls::new(&mut Vec::new(), Defer::Build(CHECK)),
        ) {
            Err(e) if e.offset >= text.len() => StreamState::Partial,
            _ => StreamState::Found,
        },
        // A later call of the region is still arriving: the first may be whole already.
        Err(_) => match calls.first().map(|c| c.span.end) {
            Some(end) if end < text.len() => region_state(&text[..end], at, family),
            _ => StreamState::Partial,
        },
    }
}
