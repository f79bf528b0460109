//! Detection order. Tier 1: tagged calls, every marker of [`crate::formats::FAMILIES`] in text
//! order. Tier 2: JSON call shapes. Tier 3: Python call syntax. The first tier that finds a call
//! outside reasoning wins; tagged calls inside reasoning count only when no tier finds one
//! outside (see [`crate::reasoning`]).
//!
//! A tier-1 marker that stands inside a string of a well-formed JSON or call-syntax call is part
//! of that string, not a marker. Checking that needs the tier-2 and tier-3 calls of the text; they
//! are found once, and only when a marker fails to parse, or follows `{` or `(` and a quote in
//! the prose before it (the only way a string can have opened around it), so typical outputs
//! pay nothing and scanning stays linear.

use std::ops::Range;
use std::sync::OnceLock;

use memchr::memchr2;

use crate::call::{Format, FormatSet, ToolCall};
use crate::error::ParseError;
use crate::formats::{json_shapes, python, Family, FAMILIES};
use crate::markers::MarkerIndex;
use crate::reasoning::{self, Block, BLOCKS};
use crate::tools::Tools;

/// What tier 1 found.
#[derive(Debug, Default)]
pub(crate) struct Tagged {
    /// Calls outside reasoning, in text order.
    pub outside: Vec<ToolCall>,
    /// What the outside calls were parsed from: each marker up to the end of its call(s).
    pub consumed: Vec<Range<usize>>,
    /// Well-formed tagged calls inside reasoning, in text order.
    pub inside: Vec<ToolCall>,
    /// The reasoning blocks, in text order.
    pub reasoning: Vec<Reasoning>,
}

/// One reasoning block.
#[derive(Debug, Clone)]
pub(crate) struct Reasoning {
    /// The block, tags included.
    pub outer: Range<usize>,
    /// The reasoning text, between the tags.
    pub inner: Range<usize>,
}

/// Where the calls of a text stand: which tier found them (tier 1 outside reasoning, tier 2 or
/// 3 outside reasoning, tier 1 inside reasoning, in that order of precedence).
pub(crate) enum Found {
    /// Tagged calls outside reasoning.
    Tagged,
    /// JSON or call-syntax calls outside reasoning.
    Scanned,
    /// Tagged calls inside reasoning, or no calls.
    Inside,
}

/// The calls of `text` (empty when there is none), where they were found, and tier 1's view
/// of the text. With `known`, a tier-2 or tier-3 candidate or a tagged call inside reasoning
/// whose name is not among its tools is not a call.
pub(crate) fn detect(
    text: &str,
    formats: FormatSet,
    known: Option<&Tools>,
) -> Result<(Vec<ToolCall>, (Found, Tagged)), ParseError> {
    let is_known = |c: &ToolCall| known.is_none_or(|t| t.contains(&c.name));
    let mut tagged = tagged(text, formats)?;
    tagged.inside.retain(is_known);
    if !tagged.outside.is_empty() {
        return Ok((std::mem::take(&mut tagged.outside), (Found::Tagged, tagged)));
    }
    let outer: Vec<Range<usize>> = tagged.reasoning.iter().map(|r| r.outer.clone()).collect();
    let call_syntax = |t: &str| python::calls(t, known);
    let tiers: [(&Tier<'_>, &[Format]); 2] = [
        (&json_shapes::calls, &[Format::Json]),
        (&call_syntax, &[Format::Python, Format::Pythonic]),
    ];
    for (tier, produces) in tiers {
        if !formats.any(produces) {
            continue;
        }
        let mut calls = outside_reasoning(text, &outer, tier)?;
        calls.retain(|c| formats.contains(c.format) && is_known(c));
        if !calls.is_empty() {
            return Ok((calls, (Found::Scanned, tagged)));
        }
    }
    Ok((std::mem::take(&mut tagged.inside), (Found::Inside, tagged)))
}

/// A tier-2 or tier-3 scan.
type Tier<'a> = dyn Fn(&str) -> Result<Vec<ToolCall>, ParseError> + 'a;

/// Runs a tier-2 or tier-3 scan over the text between the reasoning blocks.
fn outside_reasoning(text: &str, reasoning: &[Range<usize>], tier: &Tier<'_>) -> Result<Vec<ToolCall>, ParseError> {
    if reasoning.is_empty() {
        return tier(text);
    }
    let mut out = Vec::new();
    let mut from = 0;
    let end = text.len()..text.len();
    for block in reasoning.iter().chain(std::iter::once(&end)) {
        let calls = tier(&text[from..block.start]).map_err(|mut e| {
            e.offset += from;
            e
        })?;
        out.extend(calls.into_iter().map(|mut call| {
            call.shift(from);
            call
        }));
        from = block.end;
    }
    Ok(out)
}

/// What a candidate offset starts.
#[derive(Clone, Copy)]
enum Kind {
    Call(&'static Family),
    Reasoning(&'static Block),
}

/// The call markers and reasoning open tags, indexed for [`next_candidate`].
fn index() -> &'static MarkerIndex<Kind> {
    static INDEX: OnceLock<MarkerIndex<Kind>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let calls = FAMILIES
            .iter()
            .flat_map(|f| f.markers.iter().map(move |&m| (m, Kind::Call(f))));
        let opens = BLOCKS.iter().map(|b| (b.open, Kind::Reasoning(b)));
        MarkerIndex::new(calls.chain(opens))
    })
}

/// The first marker (and, unless `calls_only`, reasoning open tag) that starts at or after `from`
/// and before `limit`: its offset, its length and what it starts.
fn next_candidate(bytes: &[u8], from: usize, limit: usize, calls_only: bool) -> Option<(usize, usize, Kind)> {
    index().next(bytes, from, limit, |kind| {
        !(calls_only && matches!(kind, Kind::Reasoning(_)))
    })
}

/// The offset of the first tier-1 marker in `text`.
pub(crate) fn first_marker(text: &str) -> Option<usize> {
    next_candidate(text.as_bytes(), 0, text.len(), true).map(|(at, _, _)| at)
}

/// The offset of the first tier-1 marker that claims a call (its parse finds one, or fails), and
/// the parser of its family.
pub(crate) fn first_claim(text: &str) -> Option<(usize, crate::formats::Parser)> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some((at, _, kind)) = next_candidate(bytes, pos, bytes.len(), true) {
        let Kind::Call(family) = kind else { break };
        let mut calls = Vec::new();
        match (family.parse)(text, at, &mut calls) {
            Ok(end) if calls.is_empty() => pos = end.max(at + 1),
            _ => return Some((at, family.parse)),
        }
    }
    None
}

/// Tier 1: every marker in text order, each call parsed forward from its marker; scanning
/// resumes after it.
pub(crate) fn tagged(text: &str, formats: FormatSet) -> Result<Tagged, ParseError> {
    let bytes = text.as_bytes();
    let mut found = Tagged::default();
    let mut shield = Shield::default();
    let mut pos = 0;
    let mut gap = 0; // where the prose before the next marker starts
    let mut block: Option<(&Block, usize)> = None;
    let mut close_at = None;
    if let Some((b, close)) = reasoning::opened_by_prompt(text) {
        block = Some((b, 0));
        close_at = Some(Some(close));
    }
    loop {
        if let Some((b, start)) = block {
            // Inside reasoning: calls until the close tag; a marker that is not followed by a
            // well-formed call is reasoning text, and scanning resumes where it stopped parsing.
            // The close tag is searched for once per block; again only when a call inside the
            // block ran past it (a string holding the tag). A failed search stays failed.
            let close = match close_at {
                Some(Some(c)) if c < pos => reasoning::find_close(b, &bytes[pos..]).map(|i| pos + i),
                Some(known) => known,
                None => reasoning::find_close(b, &bytes[pos..]).map(|i| pos + i),
            };
            close_at = Some(close);
            let limit = close.unwrap_or(bytes.len());
            match next_candidate(bytes, pos, limit, true) {
                Some((at, _, Kind::Call(family))) if !formats.any(family.formats) => pos = at + 1,
                Some((at, len, Kind::Call(family))) => {
                    let first = found.inside.len();
                    pos = match (family.parse)(text, at, &mut found.inside) {
                        Ok(end) => {
                            keep_allowed(&mut found.inside, first, formats);
                            end.max(at + 1)
                        }
                        Err(e) => {
                            found.inside.truncate(first);
                            e.offset.max(at + len).min(limit).max(at + 1)
                        }
                    };
                }
                _ => {
                    let end = close.map_or(bytes.len(), |c| c + b.close.len());
                    let inner_start = if start == 0 && !text.starts_with(b.open) {
                        0
                    } else {
                        start + b.open.len()
                    };
                    found.reasoning.push(Reasoning {
                        outer: start..end,
                        inner: inner_start..close.unwrap_or(bytes.len()),
                    });
                    block = None;
                    close_at = None;
                    pos = end;
                    gap = end;
                    if close.is_none() {
                        break;
                    }
                }
            }
            continue;
        }
        let Some((at, len, kind)) = next_candidate(bytes, pos, bytes.len(), false) else {
            break;
        };
        let parse = match kind {
            Kind::Reasoning(b) => {
                block = Some((b, at));
                pos = at + len;
                continue;
            }
            Kind::Call(family) if !formats.any(family.formats) => {
                pos = at + 1;
                continue;
            }
            Kind::Call(family) => family.parse,
        };
        let first = found.outside.len();
        let result = parse(text, at, &mut found.outside);
        keep_allowed(&mut found.outside, first, formats);
        let parsed_a_call = result.is_ok() && found.outside.len() > first;
        let suspect = result.is_err() || (parsed_a_call && may_open_string(&bytes[gap..at]));
        if suspect {
            match shield.covering(text, at) {
                Some(Cover::Call(end)) => {
                    found.outside.truncate(first);
                    pos = end;
                    gap = end;
                    continue;
                }
                // The marker may be inside a string that the end of the text cut off: the call
                // around it is unfinished, and reading the marker could give another call.
                Some(Cover::Open(e)) => return Err(e),
                None => {}
            }
        }
        let end = result?;
        pos = end.max(at + 1);
        if parsed_a_call {
            found.consumed.push(at..pos);
            gap = pos;
        }
    }
    Ok(found)
}

/// Drops the calls pushed since `first` whose format the caller did not ask for: their text is
/// content.
fn keep_allowed(calls: &mut Vec<ToolCall>, first: usize, formats: FormatSet) {
    if formats == FormatSet::ALL {
        return;
    }
    let mut index = 0;
    calls.retain(|c| {
        index += 1;
        index <= first || formats.contains(c.format)
    });
}

/// Whether a string of a JSON or call-syntax call may have opened in `prose`: a `{` or `(`
/// followed by a quote.
fn may_open_string(prose: &[u8]) -> bool {
    memchr2(b'{', b'(', prose).is_some_and(|i| memchr2(b'"', b'\'', &prose[i..]).is_some())
}

/// The spans of the well-formed tier-2 and tier-3 calls of the text, found on first use, and
/// the ones the end of the text leaves open.
#[derive(Default)]
struct Shield {
    spans: Option<Vec<Range<usize>>>,
    open: Vec<(usize, ParseError)>,
}

/// What a marker stands in.
enum Cover {
    /// A string of a well-formed JSON or call-syntax call, which ends at this offset.
    Call(usize),
    /// A JSON or call-syntax call cut off by the end of the text: its error.
    Open(ParseError),
}

impl Shield {
    /// What the marker at `at` stands inside, if anything.
    fn covering(&mut self, text: &str, at: usize) -> Option<Cover> {
        if self.spans.is_none() {
            let (mut spans, json_open) = json_shapes::spans(text);
            let (python_spans, python_open) = python::spans(text);
            spans.extend(python_spans);
            spans.sort_by_key(|s| s.start);
            // A call-syntax call inside a JSON string (or the reverse) overlaps its container:
            // keep the union, so the spans are disjoint and sorted.
            let mut union: Vec<Range<usize>> = Vec::with_capacity(spans.len());
            for span in spans {
                match union.last_mut() {
                    Some(last) if span.start < last.end => last.end = last.end.max(span.end),
                    _ => union.push(span),
                }
            }
            self.spans = Some(union);
            self.open = json_open.into_iter().chain(python_open).collect();
        }
        let spans = self.spans.as_deref().unwrap_or_default();
        let i = spans.partition_point(|s| s.start < at);
        if let Some(span) = i.checked_sub(1).and_then(|i| spans.get(i)).filter(|s| at < s.end) {
            return Some(Cover::Call(span.end));
        }
        let open = self
            .open
            .iter()
            .filter(|(start, _)| *start < at)
            .min_by_key(|(start, _)| *start);
        open.map(|(_, e)| Cover::Open(e.clone()))
    }
}
