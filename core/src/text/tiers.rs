//! Detection order. Tier 1: tagged calls, every marker of [`crate::formats::FAMILIES`] in text
//! order, and the leading calls of a message that begins with a JSON or call-syntax call
//! ([`crate::text::lead`]), scanned by [`crate::text::scanner`]. Tier 2: JSON call shapes. Tier 3: Python call
//! syntax. The first tier that finds a call outside reasoning wins; tagged calls inside reasoning
//! count only when no tier finds one outside (see [`crate::text::reasoning`]). Tiers 2 and 3 read the
//! whole text, so a stream finds their calls when it ends.
//!
//! A tier-1 marker that stands inside a string of a well-formed JSON or call-syntax call is part
//! of that string, not a marker. Checking that needs the tier-2 and tier-3 calls of the text; they
//! are found once, and only when a marker fails to parse, or follows `{` or `(` and a quote in
//! the prose before it (the only way a string can have opened around it), so typical outputs
//! pay nothing and scanning stays linear.

use std::ops::Range;

use crate::call::{Format, FormatSet, ToolCall};
use crate::error::ParseError;
use crate::formats::{json_shapes, python};
use crate::syntax::shape::Defer;
use crate::text::reasoning::Start;
use crate::text::scanner::{Scanner, Segment, Tagged};
use crate::tools::Tools;

/// Where the calls of a text stand: which tier found them (tier 1 outside reasoning, tier 2 or
/// 3 outside reasoning, tier 1 inside reasoning, in that order of precedence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Tagged (or leading) calls outside reasoning.
    Tagged,
    /// JSON or call-syntax calls in the prose outside reasoning.
    Scanned,
    /// Tagged calls inside reasoning, or no calls.
    Inside,
}

/// The calls of `text` (empty when there is none), where they were found, and tier 1's view
/// of the text. With `known`, a leading, tier-2 or tier-3 candidate or a tagged call inside
/// reasoning whose name is not among its tools is not a call. Tagged calls defer their
/// arguments as `defer` says.
pub(crate) fn detect(
    text: &str,
    formats: FormatSet,
    start: Start,
    known: Option<&Tools>,
    defer: Defer<'_>,
) -> Result<(Vec<ToolCall>, (Found, Tagged)), ParseError> {
    let mut scanner = Scanner::new(formats, start, defer.is_large());
    let build = match defer {
        Defer::Build(build) => Some(build),
        _ => None,
    };
    scanner.run_building(text, false, known, build)?;
    finish(text, formats, scanner.found, known, defer)
}

/// Tiers 2 and 3, once tier 1 has scanned the whole text: the calls of the text. Leading calls
/// always count: with tagged calls, in text order; else with the calls of the tier that finds
/// any (which finds the leading calls of its own kind again).
pub(crate) fn finish(
    text: &str,
    formats: FormatSet,
    mut tagged: Tagged,
    known: Option<&Tools>,
    defer: Defer<'_>,
) -> Result<(Vec<ToolCall>, (Found, Tagged)), ParseError> {
    match later_tiers(text, formats, &tagged, known, defer)? {
        (None, found) if found == Found::Inside => Ok((std::mem::take(&mut tagged.inside), (found, tagged))),
        (None, found) => Ok((std::mem::take(&mut tagged.outside), (found, tagged))),
        (Some(scanned), found) => {
            // The leading calls move into the answer: a text of a million leading calls holds
            // them once.
            let leading = std::mem::take(&mut tagged.outside);
            tagged.scanned = scanned.regions;
            Ok((with_leading(leading, scanned.calls), (found, tagged)))
        }
    }
}

/// The calls tiers 2 and 3 found outside the leading calls' regions, and where they stand.
#[derive(Debug, Default)]
pub(crate) struct Scanned {
    pub calls: Vec<ToolCall>,
    /// Each JSON value that holds calls and each call-syntax call (or leading list), in text order.
    pub regions: Vec<Range<usize>>,
}

/// Where the calls of a text stand once tier 1 has scanned it, and, when tiers 2 or 3 found
/// calls, the ones they found outside the leading calls' regions (`None`: the outside calls of
/// tier 1, or with [`Found::Inside`] the inside ones). With `Some`, the calls of the text are
/// those and the leading calls, in text order: [`with_leading`].
pub(crate) fn later_tiers(
    text: &str,
    formats: FormatSet,
    tagged: &Tagged,
    known: Option<&Tools>,
    defer: Defer<'_>,
) -> Result<(Option<Scanned>, Found), ParseError> {
    let is_known = |c: &ToolCall| known.is_none_or(|t| t.contains(&c.name));
    if tagged.outside.len() > tagged.leading {
        return Ok((None, Found::Tagged));
    }
    let outer: Vec<Range<usize>> = tagged.reasoning().map(|r| r.outer.clone()).collect();
    let regions: Vec<Range<usize>> = tagged
        .segments
        .iter()
        .filter_map(|s| match s {
            Segment::Calls { range, .. } => Some(range.clone()),
            Segment::Reasoning(_) => None,
        })
        .collect();
    // A call the call-syntax tier finds inside a leading call's region is that leading call (or
    // part of it): it is left out as soon as it is read, so the leading calls are never held
    // twice, and only counts as the tier finding a call.
    let in_lead = std::cell::Cell::new(false);
    let call_syntax = |t: &str, from: usize, found_in: &mut Vec<Range<usize>>| {
        let skip = |c: &ToolCall| {
            let inside = in_any(&regions, from + c.span.start);
            if inside && formats.contains(c.format) && is_known(c) {
                in_lead.set(true);
            }
            inside
        };
        python::calls(t, known, &skip, found_in, defer)
    };
    let json = |t: &str, _: usize, regions: &mut Vec<Range<usize>>| json_shapes::calls(t, regions, defer);
    let tiers: [(&Tier<'_>, &[Format]); 2] = [
        (&json, &[Format::Json]),
        (&call_syntax, &[Format::Python, Format::Pythonic]),
    ];
    // The JSON tier reads on after the leading calls, which it would find again (a call-syntax
    // list is read from the start of the text, where the tier's list rule applies).
    let lead_end = tagged
        .segments
        .iter()
        .take_while(|s| !matches!(s, Segment::Calls { calls, .. } if calls.start >= tagged.leading))
        .filter_map(|s| match s {
            Segment::Calls { range, .. } => Some(range.end),
            Segment::Reasoning(_) => None,
        })
        .last()
        .unwrap_or(0);
    let after_lead: Vec<Range<usize>> = std::iter::once(0..lead_end)
        .filter(|r| !r.is_empty())
        .chain(outer.iter().filter(|r| r.start >= lead_end).cloned())
        .collect();
    for (tier, produces) in tiers {
        if !formats.any(produces) {
            continue;
        }
        let skip_lead = produces == [Format::Json];
        let mut found_in = Vec::new();
        let mut calls = outside_reasoning(text, if skip_lead { &after_lead } else { &outer }, tier, &mut found_in)?;
        calls.retain(|c| formats.contains(c.format) && is_known(c));
        // Leading JSON calls are the JSON tier's finds too.
        let found_lead = skip_lead
            && tagged.outside[..tagged.leading]
                .iter()
                .any(|c| c.format == Format::Json);
        let found = !calls.is_empty() || in_lead.get();
        calls.retain(|c| !in_any(&regions, c.span.start));
        if found || found_lead {
            let regions = holding(found_in, &calls);
            return Ok((Some(Scanned { calls, regions }), Found::Scanned));
        }
    }
    if !tagged.outside.is_empty() {
        return Ok((None, Found::Tagged));
    }
    Ok((None, Found::Inside))
}

/// The leading calls and the calls a tier found outside their regions (see [`later_tiers`]),
/// merged in text order.
pub(crate) fn with_leading(leading: Vec<ToolCall>, calls: Vec<ToolCall>) -> Vec<ToolCall> {
    if calls.is_empty() {
        return leading;
    }
    let mut out = Vec::with_capacity(leading.len() + calls.len());
    let mut calls = calls.into_iter().peekable();
    for call in leading {
        while let Some(c) = calls.next_if(|c| c.span.start < call.span.start) {
            out.push(c);
        }
        out.push(call);
    }
    out.extend(calls);
    out
}

/// Whether `at` is inside one of `regions` (in text order, not overlapping): a binary search, so
/// that a text of many leading calls stays linear-logarithmic (a linear search per call made
/// 10 MB of `f(a=1)` lines quadratic: 0.27 s for 20k calls, 3.8 s for 80k).
fn in_any(regions: &[Range<usize>], at: usize) -> bool {
    let after = regions.partition_point(|r| r.start <= at);
    after > 0 && at < regions[after - 1].end
}

/// The regions (in text order) that hold one of `calls` (in text order): a value whose calls
/// were all left out is prose again.
fn holding(regions: Vec<Range<usize>>, calls: &[ToolCall]) -> Vec<Range<usize>> {
    let mut calls = calls.iter().map(|c| c.span.start).peekable();
    regions
        .into_iter()
        .filter(|r| {
            while calls.next_if(|&at| at < r.start).is_some() {}
            calls.peek().is_some_and(|at| r.contains(at))
        })
        .collect()
}

/// A tier-2 or tier-3 scan of a piece of the text, given where the piece starts in the text; the
/// ranges its calls stand in go to the vector.
type Tier<'a> = dyn Fn(&str, usize, &mut Vec<Range<usize>>) -> Result<Vec<ToolCall>, ParseError> + 'a;

/// Runs a tier-2 or tier-3 scan over the text between the reasoning blocks.
fn outside_reasoning(
    text: &str,
    reasoning: &[Range<usize>],
    tier: &Tier<'_>,
    regions: &mut Vec<Range<usize>>,
) -> Result<Vec<ToolCall>, ParseError> {
    if reasoning.is_empty() {
        return tier(text, 0, regions);
    }
    let mut out = Vec::new();
    let mut from = 0;
    let end = text.len()..text.len();
    for block in reasoning.iter().chain(std::iter::once(&end)) {
        let first = regions.len();
        let calls = tier(&text[from..block.start], from, regions).map_err(|mut e| {
            e.shift(from);
            e
        })?;
        for r in &mut regions[first..] {
            *r = r.start + from..r.end + from;
        }
        out.extend(calls.into_iter().map(|mut call| {
            call.shift(from);
            call
        }));
        from = block.end;
    }
    Ok(out)
}
