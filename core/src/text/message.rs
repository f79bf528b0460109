//! The whole message: the text around the calls, the reasoning, and the calls with ids and spans.
//!
//! **Content** is the text with the tagged and leading calls (markers, wrappers and all, from the
//! start of the first call's span when that stands before its marker, as GigaChat's
//! `<|message_sep|>` or a gpt-oss turn's opening ` to=RECIPIENT` do), the reasoning blocks and the
//! end-of-turn tokens taken out. What remains is kept byte for byte, with
//! one whitespace rule at the joins: whitespace that touches a removed piece at the very start or
//! the very end of the content is dropped. So a text with nothing removed is its own content,
//! exactly, and `Let me check.\n<tool_call>…</tool_call>` has the content `Let me check.`. A JSON
//! or call-syntax call found in the prose (tiers 2 and 3) leaves the content too, as the whole
//! value that holds it (a list of calls, a message object): no text is both a call and content.
//! A call inside reasoning stays part of the reasoning.
//!
//! **Reasoning** is the text inside the reasoning blocks (their tags taken out), verbatim and
//! concatenated in text order, or `None` when there is no block. A call written inside
//! reasoning stays part of the reasoning text, whether or not it is returned.

use crate::call::{FormatSet, ToolCall};
use crate::error::ParseError;
use crate::syntax::shape::Defer;
use crate::text::content::{prose, Content};
use crate::text::reasoning::Start;
use crate::text::scanner::{Segment, Tagged};
use crate::text::tiers::{detect, Found};
use crate::tools::{Tools, UnknownTools};

/// A parsed model message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub content: String,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// With `repair`, every receipt of the parse, in text order (each also in its call's
    /// `repairs`); empty otherwise.
    pub repairs: Vec<crate::repair::Repair>,
}

/// How calls without a native id get one.
///
/// A generated id is `call_` and 24 letters and digits, derived from a seed, the text before the
/// call's region (its marker, or the call itself), the call's name and its index (its position
/// among the message's calls): distinct within a message, and not from the whole text, so that a
/// stream gives the id when the call starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ids {
    /// Invent nothing: a call has the id its format wrote, or none.
    #[default]
    Keep,
    /// Give every call without an id one, from a fresh random seed per [`parse_message`] and per
    /// [`crate::ToolCallStream`] ([`IdSeed::random`]): unique across outputs, as a server's ids
    /// are, so two messages that open with the same call never share an id.
    Generate,
    /// Give every call without an id one from the caller's seed: the same seed and text give the
    /// same ids on every target (and a stream the same ids as [`parse_message`]); another seed or
    /// text practically never does.
    Seeded(IdSeed),
}

impl Ids {
    /// The seed the ids of one message (or stream) come from: none with [`Ids::Keep`], a fresh
    /// random one with [`Ids::Generate`].
    pub(crate) fn seed(self) -> Option<IdSeed> {
        match self {
            Ids::Keep => None,
            Ids::Generate => Some(IdSeed::random()),
            Ids::Seeded(seed) => Some(seed),
        }
    }
}

/// The seed of generated ids ([`Ids::Seeded`]): 128 bits, from a string (a request id, say) or
/// from randomness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdSeed(u128);

impl IdSeed {
    /// The seed of a string: its 128-bit FNV-1a hash, the same on every target.
    #[must_use]
    pub const fn new(seed: &str) -> IdSeed {
        let bytes = seed.as_bytes();
        let mut hash = FNV_OFFSET;
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u128;
            hash = hash.wrapping_mul(FNV_PRIME);
            i += 1;
        }
        IdSeed(hash)
    }

    /// A fresh random seed: from the source given to [`set_random_source`] if any, else from the
    /// platform's randomness (the random keys of std's `RandomState`, which the OS seeds, and a
    /// process-wide counter, so that two seeds of one process differ too).
    ///
    /// # Panics
    /// On `wasm32-unknown-unknown`, which has no randomness of its own, when no source was given
    /// (the JavaScript binding gives `crypto.getRandomValues`).
    #[must_use]
    pub fn random() -> IdSeed {
        if let Some(source) = RANDOM_SOURCE.get() {
            let mut bytes = [0u8; 16];
            source(&mut bytes);
            return IdSeed(u128::from_le_bytes(bytes));
        }
        platform_random()
    }
}

/// Where [`IdSeed::random`] takes its randomness: `source` fills 16 bytes. Set once (a later call
/// changes nothing); a binding for a target without randomness of its own calls it before any id
/// is generated.
pub fn set_random_source(source: fn(&mut [u8; 16])) {
    let _ = RANDOM_SOURCE.set(source);
}

static RANDOM_SOURCE: std::sync::OnceLock<fn(&mut [u8; 16])> = std::sync::OnceLock::new();

#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
fn platform_random() -> IdSeed {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    // Every `RandomState` has its own keys (random per thread, then stepped), so the two halves
    // are SipHash outputs under a key no other seed shares.
    let state = std::collections::hash_map::RandomState::new();
    let half = |h: u8| {
        let mut hasher = state.build_hasher();
        hasher.write_u64(n);
        hasher.write_u8(h);
        hasher.finish()
    };
    IdSeed(u128::from(half(0)) << 64 | u128::from(half(1)))
}

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
fn platform_random() -> IdSeed {
    panic!("generated ids need randomness: on wasm32-unknown-unknown, call beacon_core::set_random_source first")
}

/// What [`parse_message`] (and [`crate::ToolCallStream`]) recognises, checks and fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageOptions<'a> {
    /// The formats recognised; every other format's text is content.
    pub formats: FormatSet,
    pub ids: Ids,
    /// The caller's tools: calls are named, typed and validated (see [`crate::Tools`]).
    pub tools: Option<&'a Tools>,
    /// With `tools`, check arguments against the schemas; when false, only names and typing.
    pub validate: bool,
    /// With `tools`, what a call to a tool not in the list is.
    pub unknown: UnknownTools,
    /// Whether the prompt opened a reasoning block.
    pub start: Start,
    /// Mend the model mistakes [`RepairCode`](crate::RepairCode) lists, each reported in `repairs`.
    pub repair: bool,
}

impl Default for MessageOptions<'_> {
    fn default() -> Self {
        MessageOptions {
            formats: FormatSet::ALL,
            ids: Ids::default(),
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
            start: Start::default(),
            repair: false,
        }
    }
}

impl<'a> MessageOptions<'a> {
    /// The tools whose names decide what a leading, tier-2 or tier-3 candidate (or a tagged call
    /// inside reasoning) is: none when unknown calls are kept.
    pub(crate) fn names(&self) -> Option<&'a Tools> {
        self.tools.filter(|_| self.unknown != UnknownTools::Keep)
    }

    /// `wanted`, unless there are tools: they type and validate built arguments, so then every
    /// call's arguments are built ([`Defer::Never`]).
    pub(crate) fn defer<'b>(&self, wanted: Defer<'b>) -> Defer<'b> {
        if self.tools.is_some() {
            Defer::Never
        } else {
            wanted
        }
    }
}

/// Parses the whole message. Never fails with `tool_call.not_found`: a text without calls has
/// no `tool_calls`. A broken call fails as in [`crate::parse_tool_calls`]; then, with tools, each
/// call in text order is named, typed and validated (see [`crate::Tools`]).
pub fn parse_message(text: &str, options: MessageOptions<'_>) -> Result<Message, ParseError> {
    message_with(text, options, Defer::Never)
}

/// [`parse_message`], building the arguments as `defer` says when no tools are given (typing
/// and validation read built arguments).
pub(crate) fn message_with(text: &str, options: MessageOptions<'_>, defer: Defer<'_>) -> Result<Message, ParseError> {
    if options.repair {
        return crate::error::within(text, mended(text, options).map(|m| m.message));
    }
    crate::error::within(text, message_in(text, options, defer).map(|(message, _)| message))
}

/// What [`mended`] read.
pub(crate) struct Mended {
    /// The message, its receipts settled, its reasoning the caller's text.
    pub message: Message,
    /// The mended text it was read from (`None` when nothing was mended), the edits that made it,
    /// and where the reasoning blocks' texts stand in it.
    pub text: Option<String>,
    pub edits: crate::repair::Edits,
    pub reasoning: Vec<std::ops::Range<usize>>,
}

/// [`parse_message`] with `repair` (whatever `options.repair` says).
pub(crate) fn mended(text: &str, options: MessageOptions<'_>) -> Result<Mended, ParseError> {
    let options = MessageOptions {
        repair: true,
        ..options
    };
    let mut last = None;
    let repaired = crate::repair::run(text, |t| {
        if !std::ptr::eq(t, text) {
            last = Some(t.to_owned());
        }
        message_in(t, options, Defer::Never)
    });
    repaired.map(|((mut message, reasoning), repairs, edits)| {
        message.repairs = crate::repair::settle(&mut message.tool_calls, repairs, &edits);
        // Reasoning is the caller's text as written, mended calls inside it included.
        if last.is_some() && message.reasoning.is_some() {
            let blocks = reasoning.iter().map(|r| &text[edits.original_range(r)]);
            message.reasoning = Some(blocks.collect());
        }
        Mended {
            message,
            text: last,
            edits,
            reasoning,
        }
    })
}

/// The message of `text`, and, with `repair`, where its reasoning blocks' texts stand.
fn message_in(
    text: &str,
    options: MessageOptions<'_>,
    defer: Defer<'_>,
) -> Result<(Message, Vec<std::ops::Range<usize>>), ParseError> {
    let defer = options.defer(defer);
    let (calls, (found, tagged)) = detect(text, options.formats, options.start, options.names(), defer)?;
    // Wrappers around calls leave the content when calls were found, even if the tools drop
    // them all (a stream decides it before the tools have seen the calls).
    let found_calls = !calls.is_empty();
    // Where each call's region starts, taken before tools may drop calls.
    let calls: Vec<(ToolCall, usize)> = calls
        .into_iter()
        .enumerate()
        .map(|(index, call)| {
            let at = region_start(found, &tagged, index, &call);
            (call, at)
        })
        .collect();
    let calls = match options.tools {
        Some(tools) => {
            let (calls, starts): (Vec<ToolCall>, Vec<usize>) = calls.into_iter().unzip();
            let kept = crate::tools::apply_each(text, calls, tools, options.validate, options.unknown, options.repair)?;
            kept.into_iter().map(|(i, call)| (call, starts[i])).collect()
        }
        None => calls,
    };
    let reasoning = if options.repair {
        tagged.reasoning().map(|r| r.inner.clone()).collect()
    } else {
        Vec::new()
    };
    Ok((assemble(text, calls, found_calls, &tagged, options.ids), reasoning))
}

/// The message of `text` from what detection found: `calls` (each with where its region starts,
/// see [`region_start`]), and whether detection found any (`found_calls`), which decides the
/// wrappers.
pub(crate) fn assemble(
    text: &str,
    calls: Vec<(ToolCall, usize)>,
    found_calls: bool,
    tagged: &Tagged,
    ids: Ids,
) -> Message {
    let reasoning = tagged
        .reasoning()
        .next()
        .is_some()
        .then(|| tagged.reasoning().map(|r| &text[r.inner.clone()]).collect::<String>());
    let content = content(text, tagged, found_calls);
    let mut hasher = ids.seed().map(IdHasher::new);
    let calls = calls
        .into_iter()
        .enumerate()
        .map(|(index, (mut call, at))| {
            if let (Some(hasher), None) = (hasher.as_mut(), &call.id) {
                call.id = Some(hasher.id(text, at, &call.name, index));
            }
            call
        })
        .collect();
    Message {
        content,
        reasoning,
        tool_calls: calls,
        repairs: Vec::new(),
    }
}

/// Where the region of the `index`-th call of the message starts: its marker (or the leading
/// call) for tagged calls, the call itself for calls found in the prose.
pub(crate) fn region_start(found: Found, tagged: &Tagged, index: usize, call: &ToolCall) -> usize {
    match found {
        Found::Tagged => tagged.outside_at.get(index).copied(),
        Found::Inside => tagged.inside_at.get(index).copied(),
        // The leading calls come first.
        Found::Scanned => tagged.outside_at.get(index).copied().filter(|_| index < tagged.leading),
    }
    .unwrap_or(call.span.start)
}

/// The text less the regions, the reasoning blocks, the calls found in the prose, the end tokens
/// and (when there are calls) the wrapper tags, joined by the module's whitespace rule.
fn content(text: &str, tagged: &Tagged, has_calls: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rule = Content::with_tags(tagged.prose);
    let mut from = 0;
    for range in removed(tagged) {
        prose(text, from..range.start, Some(has_calls), false, &mut rule, &mut out);
        rule.cut();
        from = range.end;
    }
    prose(text, from..text.len(), Some(has_calls), false, &mut rule, &mut out);
    rule.finish(&mut out);
    out
}

/// What leaves the text on the way to the content, in text order: the segments (regions and
/// reasoning blocks) and the calls tiers 2 and 3 found between them.
pub(crate) fn removed(tagged: &Tagged) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let segments = tagged.segments.iter().map(|s| match s {
        Segment::Calls { range, .. } => range.clone(),
        Segment::Reasoning(r) => r.outer.clone(),
    });
    let mut scanned = tagged.scanned.iter().cloned().peekable();
    let mut segments = segments.peekable();
    std::iter::from_fn(move || match (segments.peek(), scanned.peek()) {
        (Some(a), Some(b)) if b.start < a.start => scanned.next(),
        (Some(_), _) => segments.next(),
        (None, _) => scanned.next(),
    })
}

/// Generated ids: a 128-bit FNV-1a hash of the seed (its 16 bytes, little-endian) and the text
/// before a call, carried along the text so that the calls of one text cost one pass, then of the
/// call's name and index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdHasher {
    seed: IdSeed,
    hash: u128,
    at: usize,
}

const FNV_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013B;
const FNV_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;

impl IdHasher {
    pub(crate) fn new(seed: IdSeed) -> Self {
        let mut hash = FNV_OFFSET;
        Self::feed(&mut hash, &seed.0.to_le_bytes());
        IdHasher { seed, hash, at: 0 }
    }

    fn feed(hash: &mut u128, bytes: &[u8]) {
        for &b in bytes {
            *hash ^= u128::from(b);
            *hash = hash.wrapping_mul(FNV_PRIME);
        }
    }

    /// The id of the `index`-th call, named `name`, whose region starts at `at` in `text`: 12
    /// base-62 digits of the hash of the seed, `text[..at]`, a zero byte, the name, a zero byte and the
    /// index (a 64-bit little-endian number), and 12 of that hash carried on over the index and
    /// `at` (both so), so that every digit varies (24 digits of one 128-bit number would start
    /// with zeros).
    pub(crate) fn id(&mut self, text: &str, at: usize, name: &str, index: usize) -> String {
        if at < self.at {
            *self = IdHasher::new(self.seed);
        }
        Self::feed(&mut self.hash, &text.as_bytes()[self.at..at]);
        self.at = at;
        let mut first = self.hash;
        Self::feed(&mut first, b"\0");
        Self::feed(&mut first, name.as_bytes());
        Self::feed(&mut first, b"\0");
        Self::feed(&mut first, &(index as u64).to_le_bytes());
        let mut second = first;
        Self::feed(&mut second, &(index as u64).to_le_bytes());
        Self::feed(&mut second, &(at as u64).to_le_bytes());
        let mut id = String::with_capacity(29);
        id.push_str("call_");
        push_base62(&mut id, first, 12);
        push_base62(&mut id, second, 12);
        id
    }
}

/// The `count` lowest base-62 digits of `n`, least significant first.
fn push_base62(out: &mut String, mut n: u128, count: usize) {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for _ in 0..count {
        out.push(char::from(DIGITS[(n % 62) as usize]));
        n /= 62;
    }
}
