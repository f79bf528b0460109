//! The tier-1 scanner: every marker and reasoning tag in text order, each call parsed forward
//! from its marker; scanning resumes after it. The same machine serves the one-shot functions
//! (run once over the whole text) and the stream ([`crate::ToolCallStream`]), which runs it again
//! as text arrives: with `more` (more text may follow) it stops at the first decision the end of
//! the text could still change and takes it up on a later run, so every decision it makes is the
//! one the whole text gives. What it found so far is [`Tagged`]: regions and reasoning blocks in
//! text order, the calls outside and inside reasoning.
//!
//! Decisions the end of the text can change, and what a growing text waits for:
//! - the end may be the beginning of a marker or tag (`<tool_`): the prose before it is decided;
//! - a call's parse fails because the text ends (`tool_call.unclosed`, an error at the end): the
//!   calls it parsed before are certain; the region is parsed again when more text has come
//!   (after a byte that may close it, at most as often as the region's length allows, so the
//!   total work stays linear);
//! - a parse succeeds but its region does not end with one of its family's closing tokens
//!   ([`crate::formats::Family::closers`]): the parser may read on (the closing tag may be
//!   missing only at the very end of the text; `[TOOL_CALLS]f[ARGS]{}g` may become a second
//!   call); its calls are certain, its end is not;
//! - anything the one-shot run settles with the whole text (a marker that may stand inside a
//!   string of a JSON or call-syntax call, a broken call): the stream waits for the end.

pub(crate) mod index;
pub(crate) mod marks;
mod wait;

use std::ops::Range;
use std::sync::OnceLock;

use crate::call::{FormatSet, ToolCall};
use crate::error::ParseError;
use crate::formats::Calls;
use crate::formats::{Family, LeadHold, LeadScan, FAMILIES};
use crate::syntax::shape::{BuildArguments, Defer};
use crate::text::content::ProseTags;
use crate::text::lead::{lead_at, Lead};
use crate::text::reasoning::{self, Block, PromptScan, Start};
use crate::text::scanner::marks::{close_hold, keep_allowed, may_open_string, Cover, Kind, Marks, Shield};
use crate::tools::Tools;

/// What tier 1 found.
#[derive(Debug, Default, Clone)]
pub(crate) struct Tagged {
    /// Calls outside reasoning, in text order.
    pub outside: Vec<ToolCall>,
    /// Where the region of each outside call starts (its marker, or the call itself for a
    /// leading call).
    pub outside_at: Vec<usize>,
    /// How many of the outside calls (the first ones) are leading calls.
    pub leading: usize,
    /// Well-formed tagged calls inside reasoning, in text order.
    pub inside: Vec<ToolCall>,
    /// Where the region of each inside call starts.
    pub inside_at: Vec<usize>,
    /// The regions that gave outside calls and the reasoning blocks, in text order.
    pub segments: Vec<Segment>,
    /// Where the calls tiers 2 and 3 found stand in the prose (each JSON value that holds calls,
    /// each call-syntax call), in text order: set once the whole text is read, when those tiers
    /// give the message's calls. Like the regions, they are not content.
    pub scanned: Vec<Range<usize>>,
    /// What content leaves out besides the built-in wrappers ([`Marks::prose`]).
    pub prose: ProseTags,
}

/// A stretch of text the scanner took out of the prose.
#[derive(Debug, Clone)]
pub(crate) enum Segment {
    /// A region (a marker up to the end of its calls, or a leading call) and its calls, indices
    /// into [`Tagged::outside`].
    Calls { range: Range<usize>, calls: Range<usize> },
    /// A reasoning block.
    Reasoning(Reasoning),
}

/// One reasoning block.
#[derive(Debug, Clone)]
pub(crate) struct Reasoning {
    /// The block, tags included.
    pub outer: Range<usize>,
    /// The reasoning text, between the tags.
    pub inner: Range<usize>,
}

impl Tagged {
    /// The reasoning blocks, in text order.
    pub(crate) fn reasoning(&self) -> impl Iterator<Item = &Reasoning> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Reasoning(r) => Some(r),
            Segment::Calls { .. } => None,
        })
    }
}

/// What the next step of the loop is.
enum Flow {
    Go,
    /// Stopped: more text is needed (or the text is done).
    Stop,
}

/// Where the leading position stands (see [`crate::text::lead`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LeadState {
    /// Over: prose or a tagged call came first.
    Off,
    /// Only whitespace and reasoning blocks so far.
    Start,
    /// Right after a leading call.
    After,
}

/// A reasoning block the scanner is in.
#[derive(Clone, Copy)]
struct Open {
    /// Its kind; `None` for a block the prompt opened (`Start::Reasoning`) whose kind the first
    /// close tag tells.
    block: Option<&'static Block>,
    start: usize,
}

/// What one run of the scan reads: the text so far, whether more may follow it, the caller's
/// tools, and the host's builder of arguments when there is one.
#[derive(Clone, Copy)]
struct Reading<'r> {
    text: &'r str,
    more: bool,
    known: Option<&'r Tools>,
    build: Option<&'r dyn BuildArguments>,
}

/// The resumable tier-1 scan of one text.
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent facts of a resumable scan, not a mode"
)]
pub(crate) struct Scanner {
    formats: FormatSet,
    /// The markers and tags of `formats`' families.
    marks: &'static Marks,
    start: Start,
    pub(crate) found: Tagged,
    pos: usize,
    /// Where the prose before the next marker starts.
    gap: usize,
    lead: LeadState,
    block: Option<Open>,
    /// The first close tag at or after `pos` in the current block, and how far it was looked for.
    close: Option<(usize, &'static Block)>,
    close_scanned: usize,
    begun: bool,
    prompt: PromptScan,
    shield: Shield,
    pub(crate) pending: Option<Pending>,
    /// A growing text met a decision only the whole text settles: nothing more until the end.
    waits: bool,
    done: bool,
    /// Whether reasoning tags are recognised (only tool-call markers otherwise).
    reasoning: bool,
    /// Whether the family parsers leave large JSON arguments in the text ([`Defer::Large`]).
    large: bool,
    /// The leads of the families whose calls' spans start before their markers, followed while
    /// the text grows ([`crate::formats::Family::lead`]): what they hold is not decided prose.
    leads: Vec<(LeadHold, LeadScan)>,
    /// What [`may_open_string`] says of the prose from `gap`, read so far: (the gap it was read
    /// from, how far, whether a `{` or `(` was seen, whether a quote followed one). Markers that
    /// give no call leave `gap` where it is, so the prose is read once, not once per marker.
    opens: (usize, usize, bool, bool),
}

impl Scanner {
    pub(crate) fn new(formats: FormatSet, start: Start, large: bool) -> Self {
        Scanner {
            formats,
            marks: formats.marks(),
            start,
            found: Tagged {
                prose: formats.marks().prose(),
                ..Tagged::default()
            },
            pos: 0,
            gap: 0,
            lead: LeadState::Start,
            block: None,
            close: None,
            close_scanned: 0,
            begun: false,
            prompt: PromptScan::default(),
            shield: Shield::default(),
            pending: None,
            waits: false,
            done: false,
            reasoning: true,
            large,
            // Set up by the first scan of a growing text: the whole text has no use for them.
            leads: Vec::new(),
            opens: (0, 0, false, false),
        }
    }

    /// Whether a string of a JSON or call-syntax call may have opened in the prose from `gap` to
    /// `at` ([`may_open_string`]), reading each byte of that prose once.
    fn prose_may_open(&mut self, bytes: &[u8], at: usize) -> bool {
        let (from, to, brace, quote) = &mut self.opens;
        if *from != self.gap || *to > at {
            *from = self.gap;
            *to = self.gap;
            *brace = false;
            *quote = false;
        }
        if !*quote && *to < at {
            let piece = &bytes[*to..at];
            if *brace {
                *quote = memchr::memchr2(b'"', b'\'', piece).is_some();
            } else if let Some(i) = memchr::memchr2(b'{', b'(', piece) {
                *brace = true;
                *quote = may_open_string(&piece[i..]);
            }
        }
        *to = (*to).max(at);
        *quote
    }

    /// A scanner of tool-call markers alone: no leading calls, no reasoning blocks (a marker in
    /// reasoning is a marker).
    pub(crate) fn markers_only(mut self) -> Self {
        self.lead = LeadState::Off;
        self.reasoning = false;
        self.start = Start::Content;
        self
    }

    /// The markers and tags of the scan's families.
    pub(crate) fn marks(&self) -> &'static Marks {
        self.marks
    }

    /// Whether the scan waits for the whole text (a broken call, or a marker that may stand in a
    /// string of a JSON or call-syntax call).
    pub(crate) fn waits_for_end(&self) -> bool {
        self.waits
    }

    /// Scans `text` (which extends the text of earlier runs) as far as it can decide. With
    /// `more`, more text may follow: the scan stops where it cannot decide yet and never fails
    /// (an error waits for the final run). Without, it scans to the end and fails as the
    /// one-shot functions fail. The JSON arguments of the common call shapes are handed to
    /// `build` while they are read ([`Defer::Build`]), when there is one.
    pub(crate) fn run_building(
        &mut self,
        text: &str,
        more: bool,
        known: Option<&Tools>,
        build: Option<&dyn BuildArguments>,
    ) -> Result<(), ParseError> {
        if self.done || (more && self.waits) {
            return Ok(());
        }
        if !more {
            // The whole text: what a lead holds is decided with its marker.
            self.leads.clear();
        } else if !self.begun && self.leads.is_empty() {
            self.leads = lead_families()
                .iter()
                .filter(|f| self.formats.any(f.formats))
                .filter_map(|f| f.lead)
                .map(|hook| (hook, LeadScan::default()))
                .collect();
        }
        if !self.begun && !self.begin(text, more) {
            return Ok(());
        }
        let scan = Reading {
            text,
            more,
            known,
            build,
        };
        loop {
            let flow = if self.block.is_some() {
                self.step_block(scan)?
            } else {
                self.step_outside(scan)?
            };
            if let Flow::Stop = flow {
                break;
            }
        }
        for (hook, scan) in &mut self.leads {
            hook(text.as_bytes(), scan);
        }
        Ok(())
    }

    /// How the family parsers build arguments: into `build` when there is one.
    fn defer<'x>(&self, build: Option<&'x dyn BuildArguments>) -> Defer<'x> {
        match build {
            Some(build) => Defer::Build(build),
            None if self.large => Defer::Large,
            None => Defer::Never,
        }
    }

    /// Everything before this offset is decided: prose, or recorded in [`Tagged::segments`].
    pub(crate) fn frontier(&self) -> usize {
        match self.block {
            Some(open) => open.start,
            None => self.held().map_or(self.pos, |h| h.min(self.pos)),
        }
    }

    /// Where the text a lead holds starts (not before the last region or block), if any.
    fn held(&self) -> Option<usize> {
        self.leads
            .iter()
            .filter_map(|(_, scan)| scan.hold)
            .min()
            .map(|h| h.max(self.gap))
    }

    /// The region the scan waits at, with where it starts (its marker, or the lead before it that
    /// the marker's call takes in), when everything before that is decided.
    pub(crate) fn waiting(&self) -> Option<(&Pending, usize)> {
        let p = self
            .pending
            .as_ref()
            .filter(|p| p.at == self.pos && self.block.is_none())?;
        let start = self.frontier();
        let lead = |start: usize| {
            self.leads
                .iter()
                .any(|(_, scan)| scan.marker == Some(p.at) && scan.hold.map(|h| h.max(self.gap)) == Some(start))
        };
        (start == p.at || lead(start)).then_some((p, start))
    }

    /// The text up to `end` was decided (a region, a marker that gave no call, a reasoning tag):
    /// the leads of markers before `end` are over, and no lead starts before `end`.
    fn settle_leads(&mut self, end: usize) {
        for (_, scan) in &mut self.leads {
            if scan.hold.is_none() || scan.marker.is_some_and(|m| m < end) {
                scan.settle(end);
            }
        }
    }

    /// Where the scan stands when it stands in plain prose: no region, block or leading call
    /// waits, so text from there that cannot begin a tag is prose as it comes.
    pub(crate) fn prose_at(&self) -> Option<usize> {
        let prose = self.begun
            && self.held().is_none()
            && self.block.is_none()
            && self.lead == LeadState::Off
            && self.pending.is_none()
            && !self.waits
            && !self.done;
        prose.then_some(self.pos)
    }

    /// Takes text up to `len` as prose (see [`Scanner::prose_at`]), or as reasoning text (see
    /// [`Scanner::reasoning_at`]).
    pub(crate) fn prose_to(&mut self, len: usize) {
        self.pos = len;
        if self.block.is_some() {
            self.close_scanned = len;
        }
    }

    /// Where the scan stands inside a reasoning block whose close tag has not been seen, with
    /// nothing waiting: the text before it is reasoning, the text from it may begin a tag or
    /// close tag; text that begins neither is reasoning as it comes (see [`Scanner::prose_to`]).
    /// A leading block's close tag is a phrase, which the bytes that begin tags do not find: its
    /// text is left to the scan.
    pub(crate) fn reasoning_at(&self) -> Option<usize> {
        let quiet = self.begun && self.pending.is_none() && !self.waits && !self.done;
        let tagged = self.block.is_some_and(|open| !open.block.is_some_and(|b| b.leading));
        (quiet && tagged && self.close.is_none() && self.close_scanned >= self.pos).then_some(self.pos)
    }

    /// Whether the scan has settled the whole text.
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// The reasoning block the scan is in, if any: where its text starts, and how far that text is
    /// certain (up to its first close tag, or to where the end may begin one).
    pub(crate) fn open_reasoning(&self, text: &str) -> Option<(usize, usize)> {
        let open = self.block?;
        let start = inner_start(text, open);
        let safe = match self.close {
            Some((c, _)) if c >= self.pos => c,
            _ => close_hold(
                text.as_bytes(),
                start.max(self.pos),
                closes_of(open, self.marks.blocks()),
            ),
        };
        Some((start, safe.max(start)))
    }

    /// Decides whether the prompt opened a reasoning block (see [`Start`]), or the text opens a
    /// leading one ([`Block::leading`]), which comes first whatever the start.
    fn begin(&mut self, text: &str, more: bool) -> bool {
        if self.reasoning {
            let q = crate::lex::skip_ws(text.as_bytes(), 0);
            let rest = &text[q..];
            let blocks = self.marks.blocks();
            let leading = || blocks.iter().filter(|b| b.leading);
            if let Some(b) = leading().find(|b| rest.starts_with(b.open)) {
                self.open_block(Some(b), q, q + b.open.len());
                self.begun = true;
                return true;
            }
            if more && leading().any(|b| b.open.starts_with(rest)) {
                return false;
            }
        }
        match self.start {
            Start::Content => {}
            Start::Detect => match self.prompt.decide(text, more, self.marks.blocks()) {
                None => return false,
                Some(None) => {}
                Some(Some((b, close))) => {
                    self.block = Some(Open {
                        block: Some(b),
                        start: 0,
                    });
                    self.close = Some((close, b));
                    self.close_scanned = text.len();
                }
            },
            Start::Reasoning => {
                let blocks = self.marks.blocks();
                let prompt_kinds = || blocks.iter().filter(|b| b.prompt_may_open);
                if more && prompt_kinds().any(|b| b.open.len() > text.len() && b.open.starts_with(text)) {
                    return false;
                }
                // A text that opens the block itself is scanned as usual.
                if !prompt_kinds().any(|b| text.starts_with(b.open)) {
                    self.block = Some(Open { block: None, start: 0 });
                }
            }
        }
        self.begun = true;
        true
    }

    fn step_outside(&mut self, scan: Reading<'_>) -> Result<Flow, ParseError> {
        let Reading { text, more, .. } = scan;
        if self.lead != LeadState::Off {
            if let Some(flow) = self.step_lead(scan) {
                return Ok(flow);
            }
        }
        let bytes = text.as_bytes();
        // A region waiting for text: its marker is known.
        if let Some(&Pending {
            at,
            marker: Some(family),
            ..
        }) = self.pending.as_ref()
        {
            if at == self.pos {
                return self.region(scan, at, family);
            }
        }
        let candidate = self.marks.next_candidate(bytes, self.pos, bytes.len(), !self.reasoning);
        if more {
            let tail = self.marks.tail_hold(bytes, self.pos);
            match candidate {
                Some((at, len, _))
                    if at < tail && !self.marks.may_change(bytes, self.pos, at, len, !self.reasoning) => {}
                Some((at, ..)) if at < tail => {
                    self.pos = at;
                    return Ok(Flow::Stop);
                }
                _ => {
                    self.pos = tail;
                    return Ok(Flow::Stop);
                }
            }
        }
        let Some((at, len, kind)) = candidate else {
            self.pos = bytes.len();
            self.done = true;
            return Ok(Flow::Stop);
        };
        match kind {
            Kind::Reasoning(b) => {
                self.open_block(Some(b), at, at + len);
                Ok(Flow::Go)
            }
            Kind::Call(family) if !self.formats.any(family.formats) => {
                self.pos = at + 1;
                Ok(Flow::Go)
            }
            Kind::Call(family) => self.region(scan, at, family),
        }
    }

    /// At the leading position: a leading call, or `None` when the scan goes on as usual.
    fn step_lead(&mut self, scan: Reading<'_>) -> Option<Flow> {
        let Reading { text, more, .. } = scan;
        let bytes = text.as_bytes();
        let mut q = crate::lex::skip_ws(bytes, self.pos);
        let mut separated = false;
        if self.lead == LeadState::After && matches!(bytes.get(q), Some(b';' | b',')) {
            q = crate::lex::skip_ws(bytes, q + 1);
            separated = true;
        }
        if q == bytes.len() {
            if more {
                return Some(Flow::Stop);
            }
            self.lead = LeadState::Off;
            return None;
        }
        // A marker or reasoning tag here is scanned as usual; a reasoning block keeps the lead.
        match self.marks.entry_at(bytes, q) {
            Some((len, _)) if more && self.marks.may_change(bytes, q, q, len, false) => return Some(Flow::Stop),
            Some((_, Kind::Reasoning(_))) if !separated => return None,
            Some(_) => {
                self.lead = LeadState::Off;
                return None;
            }
            None if more && self.marks.begins_tag(&bytes[q..]) => return Some(Flow::Stop),
            None => {}
        }
        if more && !self.gate(text, q, Watch::Lead(q)) {
            return Some(Flow::Stop);
        }
        let mut calls = Vec::new();
        let defer = self.defer(scan.build);
        match lead_at(
            text,
            q,
            self.formats,
            scan.known,
            more,
            &mut Calls::new(&mut calls, defer),
        ) {
            Lead::None => {
                self.lead = LeadState::Off;
                self.pending = None;
                None
            }
            Lead::Pending => Some(Flow::Stop),
            Lead::Header(end) => {
                self.push_region(q..end, self.found.outside.len());
                self.lead = LeadState::Off;
                Some(Flow::Go)
            }
            Lead::Calls(end) => {
                let first = self.found.outside.len();
                self.found.outside.extend(calls);
                self.push_region(q..end, first);
                self.found.leading = self.found.outside.len();
                self.lead = LeadState::After;
                Some(Flow::Go)
            }
        }
    }

    /// The region of the marker at `at`.
    fn region(&mut self, scan: Reading<'_>, at: usize, family: &'static Family) -> Result<Flow, ParseError> {
        let Reading { text, more, build, .. } = scan;
        self.lead = LeadState::Off;
        if more && !self.gate(text, at, Watch::Region(family)) {
            self.pos = at;
            return Ok(Flow::Stop);
        }
        let bytes = text.as_bytes();
        let first = self.found.outside.len();
        let defer = self.defer(build);
        let result = family.read(text, at, &mut Calls::new(&mut self.found.outside, defer));
        keep_allowed(&mut self.found.outside, first, self.formats);
        // The region's calls stay where they were read, at `found.outside[first..]`, unless it
        // is set aside.
        let read = self.found.outside.len() > first;
        let prose_may_open = self.prose_may_open(bytes, at);
        let suspect = result.is_err() || (read && prose_may_open);
        if more {
            let settled = matches!(result, Ok(end) if !suspect && region_final(text, at, end, family, self.marks));
            if !settled {
                let calls = self.found.outside.split_off(first);
                self.pos = at;
                if let Some(p) = self.pending.as_mut() {
                    p.marker = Some(family);
                    p.shown = !prose_may_open;
                    p.claimed = result.is_err() || read;
                }
                match &result {
                    Err(e) if !cut_short(text, e, self.marks) => self.waits = true,
                    Ok(_) if suspect => self.waits = true,
                    _ => {
                        if let Some(p) = self.pending.as_mut() {
                            p.calls = if prose_may_open { Vec::new() } else { calls };
                        }
                    }
                }
                return Ok(Flow::Stop);
            }
        }
        if suspect {
            match self.shield.covering(text, at) {
                Some(Cover::Call(end)) => {
                    self.found.outside.truncate(first);
                    self.pos = end;
                    self.gap = end;
                    self.pending = None;
                    return Ok(Flow::Go);
                }
                // The marker may be inside a string that the end of the text cut off: the call
                // around it is unfinished, and reading the marker could give another call.
                Some(Cover::Open(e)) => {
                    self.found.outside.truncate(first);
                    return Err(e);
                }
                None => {}
            }
        }
        let end = match result {
            Ok(end) => end,
            Err(e) => {
                self.found.outside.truncate(first);
                return Err(e);
            }
        };
        if read {
            // The region takes in the text before its marker that its first call's span does
            // (the lead), but not text of the region before.
            let start = self.found.outside[first].span.start.clamp(self.gap, at);
            self.push_region(start..end.max(at + 1), first);
        } else {
            self.pos = end.max(at + 1);
            self.pending = None;
            self.settle_leads(self.pos);
        }
        Ok(Flow::Go)
    }

    /// Records a region and its outside calls, `found.outside[first..]`; scanning resumes after
    /// it.
    fn push_region(&mut self, range: Range<usize>, first: usize) {
        self.found
            .outside_at
            .extend(std::iter::repeat_n(range.start, self.found.outside.len() - first));
        self.pos = range.end;
        self.gap = range.end;
        self.settle_leads(range.end);
        self.found.segments.push(Segment::Calls {
            range,
            calls: first..self.found.outside.len(),
        });
        self.pending = None;
    }

    fn open_block(&mut self, block: Option<&'static Block>, start: usize, pos: usize) {
        self.settle_leads(pos);
        self.block = Some(Open { block, start });
        self.pos = pos;
        self.close = None;
        self.close_scanned = pos;
    }

    /// Inside reasoning: calls until the close tag; a marker that is not followed by a
    /// well-formed call is reasoning text, and scanning resumes where it stopped parsing (an
    /// error's [`ParseError::read_to`] when it has one). The
    /// close tag is searched for once per block; again only when a call inside the block ran
    /// past it (a string holding the tag). A failed search stays failed.
    fn step_block(&mut self, scan: Reading<'_>) -> Result<Flow, ParseError> {
        let Reading { text, more, .. } = scan;
        let bytes = text.as_bytes();
        let close = self.find_close(text);
        let limit = close.map_or(bytes.len(), |(c, _)| c);
        let candidate = self.marks.next_candidate(bytes, self.pos, limit, true);
        match candidate {
            Some((at, len, _)) if more && close.is_none() && self.marks.may_change(bytes, self.pos, at, len, true) => {
                self.pos = at;
                Ok(Flow::Stop)
            }
            Some((at, _, Kind::Call(family))) if !self.formats.any(family.formats) => {
                self.pos = at + 1;
                Ok(Flow::Go)
            }
            Some((at, len, Kind::Call(family))) => self.inside(scan, (at, len), family, close.is_some()),
            _ => match close {
                Some((c, b)) => {
                    self.close_block(text, c, Some(b));
                    Ok(Flow::Go)
                }
                None if more => {
                    // No marker or close tag can start before either hold.
                    let open = self.open();
                    self.pos = self.marks.tail_hold(bytes, self.pos).min(close_hold(
                        bytes,
                        self.pos,
                        closes_of(open, self.marks.blocks()),
                    ));
                    Ok(Flow::Stop)
                }
                None => {
                    self.close_block(text, bytes.len(), None);
                    self.done = true;
                    Ok(Flow::Stop)
                }
            },
        }
    }

    fn open(&self) -> Open {
        self.block.unwrap_or(Open { block: None, start: 0 })
    }

    /// A marker inside reasoning, at `at`.
    #[allow(
        clippy::unnecessary_wraps,
        reason = "one arm of the step's match, whose other arms can fail"
    )]
    fn inside(
        &mut self,
        scan: Reading<'_>,
        (at, len): (usize, usize),
        family: &'static Family,
        closed: bool,
    ) -> Result<Flow, ParseError> {
        let Reading { text, more, .. } = scan;
        if more && !self.gate(text, at, Watch::Region(family)) {
            self.pos = at;
            return Ok(Flow::Stop);
        }
        let bytes = text.as_bytes();
        let limit = self.close.map_or(bytes.len(), |(c, _)| c);
        let first = self.found.inside.len();
        let defer = self.defer(scan.build);
        let result = family.read(text, at, &mut Calls::new(&mut self.found.inside, defer));
        let waits = match &result {
            Ok(end) => !region_final(text, at, *end, family, self.marks),
            // Where scanning resumes depends on the close tag, which may still be arriving.
            Err(e) => {
                cut_short(text, e, self.marks)
                    || (!closed && e.offset + longest_close(self.marks.blocks()) > bytes.len())
            }
        };
        if more && waits {
            self.found.inside.truncate(first);
            self.pos = at;
            return Ok(Flow::Stop);
        }
        self.pending = None;
        self.pos = match result {
            Ok(end) => {
                keep_allowed(&mut self.found.inside, first, self.formats);
                keep_known(&mut self.found.inside, first, scan.known);
                let added = self.found.inside.len() - first;
                self.found.inside_at.extend(std::iter::repeat_n(at, added));
                end.max(at + 1)
            }
            Err(e) => {
                self.found.inside.truncate(first);
                // Where the parse stopped: its error's offset, or further when the error stands
                // at an opener the parse read beyond (a tagged value that was not closed).
                let read_to = e.read_to.map_or(e.offset, |r| r.max(e.offset));
                read_to.max(at + len).min(limit).max(at + 1)
            }
        };
        Ok(Flow::Go)
    }

    /// The first close tag of the current block at or after `pos`.
    fn find_close(&mut self, text: &str) -> Option<(usize, &'static Block)> {
        let bytes = text.as_bytes();
        match self.close {
            Some((c, _)) if c >= self.pos => return self.close,
            // A call inside the block ran past it: look again after the call.
            Some((_, b)) => {
                self.block = Some(Open {
                    block: Some(b),
                    start: self.open().start,
                });
                self.close = None;
                self.close_scanned = self.pos;
            }
            None => {}
        }
        let open = self.open();
        let from = self
            .pos
            .max(self.close_scanned.saturating_sub(longest_close(self.marks.blocks())));
        self.close = closes(open, self.marks.blocks())
            .filter_map(|b| reasoning::find_close(b, &bytes[from..]).map(|i| (from + i, b)))
            .min_by_key(|&(c, _)| c);
        self.close_scanned = bytes.len();
        if let Some((_, b)) = self.close {
            self.block = Some(Open {
                block: Some(b),
                start: open.start,
            });
        }
        self.close
    }

    fn close_block(&mut self, text: &str, close: usize, block: Option<&'static Block>) {
        let open = self.open();
        let end = block.map_or(close, |b| close + b.close.len());
        let inner = inner_start(text, open)..close;
        self.found.segments.push(Segment::Reasoning(Reasoning {
            outer: open.start..end,
            inner,
        }));
        self.block = None;
        self.close = None;
        self.pos = end;
        self.gap = end;
        self.pending = None;
    }
}

/// Drops the calls pushed since `first` whose name is not among `known`: inside reasoning, such a
/// call is reasoning text.
fn keep_known(calls: &mut Vec<ToolCall>, first: usize, known: Option<&Tools>) {
    if let Some(tools) = known {
        let mut index = 0;
        calls.retain(|c| {
            index += 1;
            index <= first || tools.contains(&c.name)
        });
    }
}

/// The kinds of block (of `blocks`) whose close tag may close `open`.
fn closes(open: Open, blocks: &'static [Block]) -> impl Iterator<Item = &'static Block> + Clone {
    blocks.iter().filter(move |b| match open.block {
        Some(k) => b.open == k.open,
        None => b.prompt_may_open,
    })
}

fn closes_of(open: Open, blocks: &'static [Block]) -> impl Iterator<Item = &'static str> + Clone {
    closes(open, blocks).map(|b| b.close)
}

/// The families with a lead ([`Family::lead`]), found once: a scanner looks through these, not
/// through every family (typical hermes output: 632 → 236 instructions in `Scanner::new`, of
/// 23.1k for the whole `parse_tool_calls`).
fn lead_families() -> &'static [&'static Family] {
    static LEADS: OnceLock<Vec<&'static Family>> = OnceLock::new();
    LEADS.get_or_init(|| FAMILIES.iter().filter(|f| f.lead.is_some()).collect())
}

fn longest_close(blocks: &[Block]) -> usize {
    blocks.iter().map(|b| b.close.len()).max().unwrap_or(0)
}

/// Where the reasoning text of `open` starts: after its open tag, or at the start of the text
/// for a block the prompt opened.
fn inner_start(text: &str, open: Open) -> usize {
    match open.block {
        Some(b) if open.start != 0 || text.starts_with(b.open) => open.start + b.open.len(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests;

pub(crate) use wait::Pending;
use wait::{cut_short, region_final, Watch};
