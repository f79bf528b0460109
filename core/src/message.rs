//! The whole message: the text around the calls, the reasoning, and the calls with ids and spans.
//!
//! **Content** is the text with the calls (markers, wrappers and all), the reasoning blocks and
//! the end-of-turn tokens taken out. What remains is kept byte for byte, with one whitespace rule
//! at the joins: whitespace that touches a removed piece at the very start or the very end of the
//! content is dropped. So a text with nothing removed is its own content, exactly, and
//! `Let me check.\n<tool_call>…</tool_call>` has the content `Let me check.`.
//!
//! **Reasoning** is the text inside the reasoning blocks (their tags taken out), verbatim and
//! concatenated in text order, or `None` when there is no block. A call written inside
//! reasoning stays part of the reasoning text, whether or not it is returned.

use std::ops::Range;

use crate::call::{FormatSet, ToolCall};
use crate::detect::{detect, Found};
use crate::error::ParseError;
use crate::tools::{Tools, UnknownTools};

/// A parsed model message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub content: String,
    pub reasoning: Option<String>,
    pub tool_calls: Vec<ToolCall>,
}

/// How calls without a native id get one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ids {
    /// Invent nothing: a call has the id its format wrote, or none.
    #[default]
    Keep,
    /// Give every call without an id one derived from the whole text and the call's index (its
    /// position among all the message's calls): `call_` and 24 letters and digits, the same for
    /// the same text on every target, and practically never the same for two different texts.
    Generate,
}

/// Tokens that end a turn or a message. They are taken out of the content wherever they stand.
pub(crate) const END_TOKENS: &[&str] = &[
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|eot|>",
    "<|eom|>",
    "</s>",
    "<｜end▁of▁sentence｜>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|assistant_end|>",
    "<end_of_turn>",
    "<turn|>",
    "<|tool_response>",
    "<seed:eos>",
    "</longcat_s>",
    "<|observation|>",
    "<|user|>",
];

/// Headers of messages whose text is content (gpt-oss Harmony's final channel and its
/// commentary preambles): taken out of the content wherever they stand, their text kept.
const CONTENT_HEADERS: &[&str] = &[
    "<|start|>assistant<|channel|>final<|message|>",
    "<|start|>assistant<|channel|>commentary<|message|>",
    "<|channel|>final<|message|>",
    "<|channel|>commentary<|message|>",
    "<|start|>assistant",
];

/// Wrapper tags that some families put around their calls without the call parser consuming
/// them (it starts at the inner marker). They are taken out of the content when the message has
/// calls.
const WRAPPERS: &[&str] = &[
    "<function_calls>",
    "</function_calls>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<tool_calls>",
    "</tool_calls>",
];

/// What [`parse_message`] recognises, checks and fills in.
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
}

impl Default for MessageOptions<'_> {
    fn default() -> Self {
        MessageOptions {
            formats: FormatSet::ALL,
            ids: Ids::default(),
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
        }
    }
}

/// Parses the whole message. Never fails with `tool_call.not_found`: a text without calls has
/// no `tool_calls`. A broken call fails as in [`crate::parse_tool_calls`].
pub fn parse_message(text: &str, options: MessageOptions<'_>) -> Result<Message, ParseError> {
    let ids = options.ids;
    let names = options.tools.filter(|_| options.unknown != UnknownTools::Keep);
    let (calls, (found, tagged)) = detect(text, options.formats, names)?;
    let mut removed: Vec<Range<usize>> = match found {
        Found::Tagged => tagged.consumed.clone(),
        Found::Scanned => calls.iter().map(|c| c.span.clone()).collect(),
        Found::Inside => Vec::new(),
    };
    removed.extend(tagged.reasoning.iter().map(|r| r.outer.clone()));
    let reasoning = (!tagged.reasoning.is_empty()).then(|| {
        tagged
            .reasoning
            .iter()
            .map(|r| &text[r.inner.clone()])
            .collect::<String>()
    });
    let mut calls = match options.tools {
        Some(tools) => crate::tools::apply(text, calls, tools, options.validate, options.unknown)?,
        None => calls,
    };
    let content = content(text, removed, !calls.is_empty());
    if ids == Ids::Generate {
        for (index, call) in calls.iter_mut().enumerate() {
            if call.id.is_none() {
                call.id = Some(generated_id(text, index));
            }
        }
    }
    Ok(Message {
        content,
        reasoning,
        tool_calls: calls,
    })
}

/// The text less `removed`, end tokens and (when there are calls) wrapper tags, joined by the
/// module's whitespace rule.
fn content(text: &str, removed: Vec<Range<usize>>, has_calls: bool) -> String {
    let mut cuts = removed;
    cuts.sort_by_key(|r| r.start);
    cuts.extend(token_ranges(text, &cuts, has_calls));
    cuts.sort_by_key(|r| r.start);
    // The text as kept pieces (`Some`) and cuts (`None`), in order.
    let mut items: Vec<Option<&str>> = Vec::new();
    let mut from = 0;
    for r in &cuts {
        if r.start > from {
            items.push(Some(&text[from..r.start]));
        }
        if r.end > from {
            items.push(None);
            from = r.end;
        }
    }
    if from < text.len() {
        items.push(Some(&text[from..]));
    }
    let blank = |item: &Option<&str>| item.is_none_or(|s| s.trim().is_empty());
    let lead = items.iter().take_while(|i| blank(i)).count();
    let start = if items[..lead].iter().any(Option::is_none) {
        lead
    } else {
        0
    };
    let trail = items[start..].iter().rev().take_while(|i| blank(i)).count();
    let end = if items[items.len() - trail..].iter().any(Option::is_none) {
        items.len() - trail
    } else {
        items.len()
    };
    let mut out = String::with_capacity(text.len());
    for (i, item) in items.iter().enumerate().take(end).skip(start) {
        let Some(mut piece) = *item else { continue };
        if i == start && start > 0 {
            piece = piece.trim_start();
        }
        if i + 1 == end && end < items.len() {
            piece = piece.trim_end();
        }
        out.push_str(piece);
    }
    out
}

/// Where the end tokens (and, when there are calls, the wrapper tags) stand outside `removed`.
fn token_ranges(text: &str, removed: &[Range<usize>], has_calls: bool) -> Vec<Range<usize>> {
    let wrappers: &[&str] = if has_calls { WRAPPERS } else { &[] };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut next = 0; // `removed` is sorted by start; the ranges before `next` end before `i`
    while let Some(k) = memchr::memchr2(b'<', b'[', &bytes[i..]) {
        let at = i + k;
        i = at + 1;
        while next < removed.len() && removed[next].end <= at {
            next += 1;
        }
        if let Some(r) = removed.get(next).filter(|r| r.start <= at) {
            i = r.end;
            continue;
        }
        if let Some(t) = END_TOKENS
            .iter()
            .chain(CONTENT_HEADERS)
            .chain(wrappers)
            .find(|t| bytes[at..].starts_with(t.as_bytes()))
        {
            out.push(at..at + t.len());
            i = at + t.len();
        }
    }
    out
}

/// `call_` and 24 base-62 digits derived from the whole text and the call's index: 12 digits from
/// a 128-bit FNV-1a hash of the index, the text's length (both as 64-bit little-endian numbers, so
/// every target agrees) and the text, and 12 from that hash carried on over the index and length
/// again, so that every digit varies (24 digits of one 128-bit number would start with zeros).
fn generated_id(text: &str, index: usize) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    let mut head = [0u8; 16];
    head[..8].copy_from_slice(&(index as u64).to_le_bytes());
    head[8..].copy_from_slice(&(text.len() as u64).to_le_bytes());
    let first = fnv1a(fnv1a(OFFSET, &head), text.as_bytes());
    let second = fnv1a(first, &head);
    let mut id = String::with_capacity(29);
    id.push_str("call_");
    push_base62(&mut id, first, 12);
    push_base62(&mut id, second, 12);
    id
}

/// FNV-1a over `bytes`, from `hash`.
fn fnv1a(mut hash: u128, bytes: &[u8]) -> u128 {
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013B;
    for &b in bytes {
        hash ^= u128::from(b);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}

/// The `count` lowest base-62 digits of `n`, least significant first.
fn push_base62(out: &mut String, mut n: u128, count: usize) {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for _ in 0..count {
        out.push(char::from(DIGITS[(n % 62) as usize]));
        n /= 62;
    }
}
