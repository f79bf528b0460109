//! Tier 3: Python call syntax anywhere in the text, `search(query="rust", limit=5)`.
//!
//! A call is a dotted name immediately followed by `(` whose contents are empty or start with
//! `identifier=`; anything else is prose. Names are Python identifiers (Unicode XID; a keyword
//! such as `if` is no name, so `if(a=1)` is prose). A name defined rather than called is prose
//! too: after `def` or `class` (`def foo(a=1):`, `class Foo(metaclass=M):`, indented or not),
//! or written `name():` (code in an answer). The keyword stands before the name, so no prefix of
//! a `def` or `class` line reads as a call. A `:` after a call with arguments (`with
//! open(file='a.txt'):`) is not looked for: the text cut before that `:` would still read as a
//! different call than the whole text gives (the truncation property, `core/tests/truncation.rs`). A
//! recognised call must parse, and a `(` directly after its `)` is `tool_call.syntax`.
//!
//! A text that starts (after whitespace) with a list of such calls, `[f(a=1), g()]`, is a
//! Python call list: it is parsed as a whole by [`super::pythonic::bare_list`] and its calls are
//! reported as `pythonic`; scanning goes on after it.

use std::ops::Range;

use memchr::memchr;

use super::pythonic;
use super::Calls;
use crate::call::Deferred;
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{char_before, dotted_name_end, is_ident_continue_char, skip_ws};
use crate::syntax::callsyntax::{arguments_as, is_keyword, keyword_list};
use crate::syntax::shape::Defer;
use crate::tools::Tools;
use crate::value::Object;

/// Every call in `text`, in text order. With `known`, a name that is not among the tools is
/// prose: its parentheses are not read, so code in an answer (`requests.get(url=u)`) is neither
/// a call nor an error. A call `skip` says yes to is read (a broken one fails) but left out;
/// `skip` is asked by the call's name and start, before its arguments are read. The range each
/// call (or the leading list) stands in goes to `regions`. Arguments are built as `defer` says,
/// but those of a leading list are built in the core (they are the leading calls again).
pub(crate) fn calls(
    text: &str,
    known: Option<&Tools>,
    skip: &dyn Fn(&ToolCall) -> bool,
    regions: &mut Vec<Range<usize>>,
    defer: Defer<'_>,
) -> Result<Vec<ToolCall>, ParseError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut floor = 0; // names may not reach back before the end of the previous call
    let mut pos = 0;
    let list_at = skip_ws(bytes, 0);
    if pythonic::starts_bare_list(bytes, list_at) {
        floor = pythonic::bare_list(text, list_at, &mut Calls::new(&mut out, Defer::Never))?;
        out.retain(|c| !skip(c));
        if !out.is_empty() {
            regions.push(list_at..floor);
        }
        pos = floor;
    }
    while let Some(i) = memchr(b'(', &bytes[pos..]) {
        let open = pos + i;
        let Some(name_at) = call_name_at(text, floor, open) else {
            pos = open + 1;
            continue;
        };
        if known.is_some_and(|tools| !tools.contains(&text[name_at..open])) {
            pos = open + 1;
            continue;
        }
        let name = text[name_at..open].to_string();
        let origin = Origin::At {
            name: name_at,
            args: Args::Call(open),
        };
        let mut call = ToolCall::new(name, Object::new(), Format::Python, name_at..open).with_origin(origin);
        // Decided before the arguments are read, so a call left out is not built for the host.
        let skipped = skip(&call);
        let defer = if skipped { Defer::Never } else { defer };
        let (arguments, deferred, end) = parse_call(text, open, defer)?;
        call.arguments = arguments;
        call.deferred = deferred;
        call.span = name_at..end;
        if !skipped {
            regions.push(call.span.clone());
            out.push(call);
        }
        floor = end;
        pos = end;
    }
    Ok(out)
}

/// Where the name of the call whose `(` is at `open` starts, if a call starts there: a dotted name
/// without keywords (not reaching back before `floor`) right before `(`, and a keyword list or
/// `)` after it. The name is found by stepping back over identifier characters and dots, which
/// stops at the previous `(`, so every byte is stepped over once.
fn call_name_at(text: &str, floor: usize, open: usize) -> Option<usize> {
    match call_start(text, floor, open, false) {
        CallStart::At(name_at) => Some(name_at),
        CallStart::Pending | CallStart::No => None,
    }
}

/// What a `(` says about a call, on a text that may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallStart {
    /// The text ends before the answer is known.
    Pending,
    /// No call starts at this `(`.
    No,
    /// A call's name starts at this offset.
    At(usize),
}

/// [`call_name_at`] on a text that may grow (`more`).
pub(crate) fn call_start(text: &str, floor: usize, open: usize, more: bool) -> CallStart {
    let bytes = text.as_bytes();
    let mut name_at = open;
    while let Some((at, c)) = char_before(bytes, name_at) {
        if at < floor || !(c == '.' || is_ident_continue_char(c)) {
            break;
        }
        name_at = at;
    }
    if name_at == open || dotted_name_end(bytes, name_at) != open || text[name_at..open].split('.').any(is_keyword) {
        return CallStart::No;
    }
    match keyword_list(bytes, open, more) {
        None => return CallStart::Pending,
        Some(false) => return CallStart::No,
        Some(true) => {}
    }
    // `name()` may yet be `name():`.
    if more && bytes.get(open + 1) == Some(&b')') && open + 2 == bytes.len() {
        return CallStart::Pending;
    }
    if defines(bytes, name_at, open) {
        CallStart::No
    } else {
        CallStart::At(name_at)
    }
}

/// Whether the name at `name_at` (its `(` at `open`) is defined rather than called: written after
/// `def` or `class` (`def foo():`, `class Foo(Base=…):`), or as `name():`, the head of a block.
fn defines(bytes: &[u8], name_at: usize, open: usize) -> bool {
    if bytes.get(open + 1..open + 3) == Some(b"):") {
        return true;
    }
    let mut at = name_at;
    while at > 0 && matches!(bytes[at - 1], b' ' | b'\t') {
        at -= 1;
    }
    if at == name_at {
        return false;
    }
    [&b"def"[..], b"class"].iter().any(|word| {
        at >= word.len()
            && &bytes[at - word.len()..at] == *word
            && (at == word.len()
                || !bytes[at - word.len() - 1].is_ascii_alphanumeric() && bytes[at - word.len() - 1] != b'_')
    })
}

/// The arguments of the call whose `(` is at `open` (built as `defer` says), and the offset after
/// its `)`. A `(` right after it would call what the call returns, which no tool call does:
/// `tool_call.syntax`.
fn parse_call(text: &str, open: usize, defer: Defer<'_>) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    let (arguments, deferred, end) = arguments_as(text, open, defer)?;
    if text.as_bytes().get(end) == Some(&b'(') {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            end,
            "a call's result cannot be called: expected prose or the end of the text after `)`",
        ));
    }
    Ok((arguments, deferred, end))
}

/// The spans of the well-formed calls in `text` (broken ones are skipped, never raised), and the
/// call left open by the end of the text, if one is: where it starts, and its error.
pub(crate) fn spans(text: &str) -> (Vec<Range<usize>>, Option<(usize, ParseError)>) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut floor = 0;
    let mut pos = 0;
    while let Some(i) = memchr(b'(', &bytes[pos..]) {
        let open = pos + i;
        pos = open + 1;
        if let Some(name_at) = call_name_at(text, floor, open) {
            match parse_call(text, open, Defer::Never) {
                Ok((_, _, end)) => {
                    out.push(name_at..end);
                    floor = end;
                    pos = end;
                }
                Err(e) if e.offset >= bytes.len() => return (out, Some((name_at, e))),
                Err(_) => {}
            }
        }
    }
    (out, None)
}
