//! Where tier-1 markers and reasoning tags stand: the index of every marker (from
//! [`crate::formats::FAMILIES`], after a format spec's family) and reasoning open tag (from [`crate::text::reasoning::BLOCKS`]), the
//! candidate search the scanner runs, and, for a text that is still growing, the tags its end may
//! be the beginning of. Also the shield: the JSON and call-syntax calls a marker may stand inside.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Mutex, OnceLock, PoisonError};

use memchr::memchr2;

use crate::call::{FormatSet, SpecId, ToolCall};
use crate::error::ParseError;
use crate::formats::tokens::{ANSWER_CLOSE, ANSWER_OPEN, CONTENT_HEADERS, END_TOKENS, WRAPPERS};
use crate::formats::{json_shapes, python, spec, Family, FAMILIES};
use crate::text::content::ProseTags;
use crate::text::reasoning::{Block, BLOCKS};
use crate::text::scanner::index::MarkerIndex;

/// What a candidate offset starts.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Call(&'static Family),
    Reasoning(&'static Block),
}

/// Every marker and tag one set of families has, indexed once: the built-in families
/// ([`Marks::builtin`]), or a format spec's family before them (built when the spec is compiled,
/// `crate::formats::spec`).
pub(crate) struct Marks {
    /// The call markers and reasoning open tags ([`MarkerIndex`]).
    index: MarkerIndex<Kind>,
    /// Every tag a growing text may end partway through.
    tags: Tags,
    /// Every marker and every token a family's grammar expects after one.
    tokens: Tags,
    /// The tags, and the close tags of reasoning blocks.
    starts: Tags,
    /// The kinds of reasoning block: [`BLOCKS`], and a format spec's own after them.
    blocks: &'static [Block],
    /// The end-of-turn tokens ([`END_TOKENS`], and a format spec's own after them) and the
    /// spec's content wrapper.
    prose: ProseTags,
}

impl Marks {
    /// The marks of `families` (the first of two families with one marker wins it) and of the
    /// reasoning `blocks`, end-of-turn tokens and wrappers.
    pub(crate) fn new(families: &[&'static Family], blocks: &'static [Block], prose: ProseTags) -> Marks {
        let calls = families
            .iter()
            .flat_map(|&f| f.markers.iter().map(move |&m| (m, Kind::Call(f))));
        // A leading block's open tag is looked for where the text starts, not here.
        let opens = blocks
            .iter()
            .filter(|b| !b.leading)
            .map(|b| (b.open, Kind::Reasoning(b)));
        let tags = Tags::new(
            families
                .iter()
                .flat_map(|f| f.markers.iter().copied())
                .chain(blocks.iter().filter(|b| !b.leading).map(|b| b.open))
                .chain(prose.end_tokens.iter().copied())
                .chain([prose.wrapper.0, prose.wrapper.1].into_iter().filter(|t| !t.is_empty()))
                .chain(CONTENT_HEADERS.iter().copied())
                .chain(WRAPPERS.iter().copied())
                .chain([ANSWER_OPEN, ANSWER_CLOSE])
                .map(str::as_bytes)
                .collect(),
        );
        let tokens = Tags::new(
            families
                .iter()
                .flat_map(|f| f.markers.iter().chain(f.tokens).chain(f.closers).copied())
                .map(str::as_bytes)
                .filter(|t| !t.is_empty())
                .collect(),
        );
        let closes = blocks.iter().filter(|b| !b.leading).map(|b| b.close.as_bytes());
        let starts = Tags::new(tags.sorted.iter().copied().chain(closes).collect());
        Marks {
            index: MarkerIndex::new(calls.chain(opens)),
            tags,
            tokens,
            starts,
            blocks,
            prose,
        }
    }

    /// The end-of-turn tokens the scan knows.
    pub(crate) fn end_tokens(&self) -> &'static [&'static str] {
        self.prose.end_tokens
    }

    /// What content leaves out besides the built-in wrappers.
    pub(crate) fn prose(&self) -> ProseTags {
        self.prose
    }

    /// The kinds of reasoning block the scan knows.
    pub(crate) fn blocks(&self) -> &'static [Block] {
        self.blocks
    }

    /// The marks of the built-in families ([`FAMILIES`]).
    pub(crate) fn builtin() -> &'static Marks {
        static MARKS: OnceLock<Marks> = OnceLock::new();
        MARKS.get_or_init(|| Marks::new(&FAMILIES.iter().collect::<Vec<_>>(), BLOCKS, ProseTags::default()))
    }

    /// The first marker (and, unless `calls_only`, reasoning open tag) that starts at or after
    /// `from` and before `limit`: its offset, its length and what it starts.
    pub(crate) fn next_candidate(
        &self,
        bytes: &[u8],
        from: usize,
        limit: usize,
        calls_only: bool,
    ) -> Option<(usize, usize, Kind)> {
        self.index.next(bytes, from, limit, |kind| {
            !(calls_only && matches!(kind, Kind::Reasoning(_)))
        })
    }

    /// The marker or reasoning open tag that starts exactly at `at`, if one does (as far as the
    /// text goes).
    pub(crate) fn entry_at(&self, bytes: &[u8], at: usize) -> Option<(usize, Kind)> {
        self.index.at(bytes, at, bytes.len().min(at + self.tags.longest))
    }

    /// Whether the candidate `next_candidate` found at `at` (`len` bytes; scanning from `from`)
    /// may lose to another once more text arrives: at its anchor, an entry that the text from
    /// there is a proper beginning of (a longer marker, or one that the byte after the anchor
    /// would have preferred) may still match.
    pub(crate) fn may_change(&self, bytes: &[u8], from: usize, at: usize, len: usize, calls_only: bool) -> bool {
        let Some(anchor) = bytes[at..at + len]
            .iter()
            .position(|&b| matches!(b, b'<' | b'[' | b'>'))
        else {
            return false;
        };
        let anchor = at + anchor;
        if bytes.len() - anchor >= self.tags.longest {
            return false;
        }
        self.index.with_anchor(bytes[anchor]).any(|(text, at_anchor, kind)| {
            let Some(start) = anchor.checked_sub(at_anchor).filter(|&s| s >= from) else {
                return false;
            };
            let rest = &bytes[start..];
            !(calls_only && matches!(kind, Kind::Reasoning(_)))
                && text.len() > rest.len()
                && text.as_bytes().starts_with(rest)
        })
    }

    /// Whether `rest` is a proper, non-empty beginning of a tool-call marker or of a token any
    /// family's grammar expects after one (closing tags, separators): a text that stops there was
    /// cut partway through it.
    pub(crate) fn begins_token(&self, rest: &[u8]) -> bool {
        !rest.is_empty() && rest.len() < self.tokens.longest && self.tokens.begins(rest)
    }

    /// Whether `rest` (the text from some offset to its end) is a proper beginning of a marker,
    /// reasoning open tag, end-of-turn token or wrapper tag.
    pub(crate) fn begins_tag(&self, rest: &[u8]) -> bool {
        rest.len() < self.tags.longest && self.tags.begins(rest)
    }

    /// Whether a tag, or a reasoning block's close tag, may start at the first byte of `rest`, as
    /// far as its first two bytes tell (its one byte, when it has one). Where this is false no
    /// tag starts there, however the text goes on. The close tags of leading blocks
    /// ([`Block::leading`], phrases) are not counted: the stream leaves the text of such a block
    /// to the scanner.
    pub(crate) fn may_start_tag(&self, rest: &[u8]) -> bool {
        self.starts.may_begin(rest)
    }

    /// Whether [`Self::may_start_tag`] holds at some byte of `piece` but its last (each judged
    /// by itself and the byte after it).
    pub(crate) fn may_start_tag_before_last(&self, piece: &[u8]) -> bool {
        let starts = &self.starts;
        piece
            .windows(2)
            .any(|pair| starts.first[pair[0] as usize] && starts.may_begin(pair))
    }

    /// Where the text may end partway through a tag, for a text that is still growing: the first
    /// offset at or after `from` such that the text from it to the end is a proper beginning of
    /// a marker, reasoning open tag, end-of-turn token or wrapper tag; the end of the text when
    /// there is none. Offsets before the answer can never begin such a tag, however the text
    /// goes on, so a caller may pass the previous answer as `from`.
    pub(crate) fn tail_hold(&self, bytes: &[u8], from: usize) -> usize {
        let tags = &self.tags;
        let start = from.max(bytes.len().saturating_sub(tags.longest - 1));
        (start..bytes.len())
            .find(|&p| tags.begins(&bytes[p..]))
            .unwrap_or(bytes.len())
    }
}

impl FormatSet {
    /// The markers and tags of the set's families: the built-in ones, after the spec's when the
    /// set has one (built once per spec).
    pub(crate) fn marks(self) -> &'static Marks {
        match self.spec_id() {
            None => Marks::builtin(),
            Some(id) => spec_marks(id),
        }
    }
}

fn spec_marks(id: SpecId) -> &'static Marks {
    static MARKS: OnceLock<Mutex<HashMap<SpecId, &'static Marks>>> = OnceLock::new();
    let mut marks = MARKS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    marks.entry(id).or_insert_with(|| {
        let family = spec::family(id);
        let families: Vec<&'static Family> = std::iter::once(family).chain(FAMILIES).collect();
        let (blocks, prose) = match family.parse {
            crate::formats::Parse::Spec(spec) => (
                crate::text::reasoning::with_spec_block(
                    &spec.reasoning_start,
                    &spec.reasoning_end,
                    spec.reasoning_prompt_opened,
                ),
                ProseTags::new(
                    with_end_token(&spec.end_of_turn),
                    (&spec.content_start, &spec.content_end),
                ),
            ),
            crate::formats::Parse::Fn(_) => (BLOCKS, ProseTags::default()),
        };
        Box::leak(Box::new(Marks::new(&families, blocks, prose)))
    })
}

/// [`END_TOKENS`], and `token` (a format spec's own) after them when it is not one of them.
fn with_end_token(token: &'static str) -> &'static [&'static str] {
    if token.is_empty() || END_TOKENS.contains(&token) {
        return END_TOKENS;
    }
    Box::leak(
        END_TOKENS
            .iter()
            .copied()
            .chain([token])
            .collect::<Vec<_>>()
            .into_boxed_slice(),
    )
}

/// Tags, sorted, with the bytes they may start with.
struct Tags {
    sorted: Vec<&'static [u8]>,
    first: [bool; 256],
    /// The pairs of bytes a tag may start with, as a bitmap indexed by `b0 << 8 | b1`.
    pairs: Vec<u64>,
    longest: usize,
}

impl Tags {
    fn new(mut sorted: Vec<&'static [u8]>) -> Tags {
        sorted.sort_unstable();
        sorted.dedup();
        let mut first = [false; 256];
        let mut pairs = vec![0u64; 1024];
        for t in &sorted {
            first[t[0] as usize] = true;
            if let Some(&b1) = t.get(1) {
                let pair = (t[0] as usize) << 8 | b1 as usize;
                pairs[pair / 64] |= 1 << (pair % 64);
            }
        }
        let longest = sorted.iter().map(|t| t.len()).max().unwrap_or(1);
        Tags {
            sorted,
            first,
            pairs,
            longest,
        }
    }

    /// Whether a tag may start with the first two bytes of `rest` (or its one byte).
    fn may_begin(&self, rest: &[u8]) -> bool {
        match rest {
            [] => false,
            [b0] => self.first[*b0 as usize],
            [b0, b1, ..] => {
                let pair = (*b0 as usize) << 8 | *b1 as usize;
                self.pairs[pair / 64] & (1 << (pair % 64)) != 0
            }
        }
    }

    /// Whether `rest` is a proper, non-empty beginning of a tag: the tags that start with it
    /// sort right after it.
    fn begins(&self, rest: &[u8]) -> bool {
        if !self.may_begin(rest) {
            return false;
        }
        let i = self.sorted.partition_point(|t| *t < rest);
        self.sorted[i..]
            .iter()
            .take(2)
            .any(|t| t.len() > rest.len() && t.starts_with(rest))
    }
}

/// Where the text may end partway through one of `closes` (a reasoning block's close tags): the
/// first offset at or after `from` from which the rest is a proper beginning of one. Only the
/// offsets whose byte begins some close tag are compared (a scan run over reasoning fed to a
/// stream, with the built-in close tags: 840 → 370 instructions a call, `stream_bench`).
#[allow(clippy::needless_pass_by_value, reason = "the signature every caller passes in")]
pub(crate) fn close_hold<'a>(bytes: &[u8], from: usize, closes: impl Iterator<Item = &'a str> + Clone) -> usize {
    let mut longest = 1;
    let mut firsts = [0u64; 4];
    for close in closes.clone() {
        longest = longest.max(close.len());
        if let Some(&b) = close.as_bytes().first() {
            firsts[usize::from(b >> 6)] |= 1 << (b & 63);
        }
    }
    let start = from.max(bytes.len().saturating_sub(longest - 1));
    (start..bytes.len())
        .find(|&p| {
            let b = bytes[p];
            let rest = &bytes[p..];
            firsts[usize::from(b >> 6)] & (1 << (b & 63)) != 0
                && closes
                    .clone()
                    .any(|c| c.len() > rest.len() && c.as_bytes().starts_with(rest))
        })
        .unwrap_or(bytes.len())
}

/// Drops the calls pushed since `first` whose format the caller did not ask for: their text is
/// content.
pub(crate) fn keep_allowed(calls: &mut Vec<ToolCall>, first: usize, formats: FormatSet) {
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
pub(crate) fn may_open_string(prose: &[u8]) -> bool {
    memchr2(b'{', b'(', prose).is_some_and(|i| memchr2(b'"', b'\'', &prose[i..]).is_some())
}

/// The spans of the well-formed tier-2 and tier-3 calls of the text, found on first use, and
/// the ones the end of the text leaves open.
#[derive(Default)]
pub(crate) struct Shield {
    spans: Option<Vec<Range<usize>>>,
    open: Vec<(usize, ParseError)>,
}

/// What a marker stands in.
pub(crate) enum Cover {
    /// A string of a well-formed JSON or call-syntax call, which ends at this offset.
    Call(usize),
    /// A JSON or call-syntax call cut off by the end of the text: its error.
    Open(ParseError),
}

impl Shield {
    /// What the marker at `at` stands inside, if anything.
    pub(crate) fn covering(&mut self, text: &str, at: usize) -> Option<Cover> {
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
