//! Reasoning blocks: the text a model writes while thinking, kept apart from its calls.
//!
//! A block opens with its open tag, found between calls (not inside one), and closes at the
//! first matching close tag after it, or runs to the end of the text. Many templates open the
//! block in the prompt (`…<|Assistant|><think>\n`), so the output shows only the close tag: when
//! a close tag of such a block comes before any open tag of its kind, the text from the start
//! up to it is a reasoning block.
//!
//! What counts inside a block is decided by the scanner (`crate::detect`): calls outside
//! reasoning win; a tagged call inside reasoning is returned only when there is none outside; a
//! marker inside reasoning that is not followed by a well-formed call is reasoning text.

use std::sync::OnceLock;

use memchr::memmem::Finder;

/// One kind of reasoning block.
#[derive(Debug)]
pub(crate) struct Block {
    pub open: &'static str,
    pub close: &'static str,
    /// Whether templates open this block in the prompt, so that only the close tag is seen.
    pub prompt_may_open: bool,
}

/// Every kind of reasoning block.
pub(crate) const BLOCKS: &[Block] = &[
    // DeepSeek, Qwen3, GLM, Kimi K2, MiniMax, Hermes 4, LFM2.5, Nemotron, Step-3, Olmo 3 Think, …
    Block {
        open: "<think>",
        close: "</think>",
        prompt_may_open: true,
    },
    // Magistral 2507+, Ministral 3 Reasoning.
    Block {
        open: "[THINK]",
        close: "[/THINK]",
        prompt_may_open: true,
    },
    // Seed-OSS.
    Block {
        open: "<seed:think>",
        close: "</seed:think>",
        prompt_may_open: true,
    },
    // LongCat.
    Block {
        open: "<longcat_think>",
        close: "</longcat_think>",
        prompt_may_open: true,
    },
    // Command R7B / Command A.
    Block {
        open: "<|START_THINKING|>",
        close: "<|END_THINKING|>",
        prompt_may_open: false,
    },
    // Apertus.
    Block {
        open: "<|inner_prefix|>",
        close: "<|inner_suffix|>",
        prompt_may_open: false,
    },
    // Gemma 4's thought channel.
    Block {
        open: "<|channel>thought",
        close: "<channel|>",
        prompt_may_open: false,
    },
    // gpt-oss Harmony's analysis channel.
    Block {
        open: "<|channel|>analysis<|message|>",
        close: "<|end|>",
        prompt_may_open: false,
    },
];

/// The block the prompt opened, if any, and the offset of its close tag: the earliest close tag
/// of a `prompt_may_open` block that comes before every open tag of its kind.
pub(crate) fn opened_by_prompt(text: &str) -> Option<(&'static Block, usize)> {
    let bytes = text.as_bytes();
    let mut best: Option<(&'static Block, usize)> = None;
    for group in close_groups() {
        let first = first_closes(bytes, group);
        for (tag, close) in group.tags.iter().zip(first) {
            let Some(close) = close else { continue };
            if tag.open.find(&bytes[..close]).is_none() && best.is_none_or(|(_, c)| close < c) {
                best = Some((tag.block, close));
            }
        }
    }
    best
}

/// The first close tag of each block of the group. The occurrences of the group's common ending
/// are read in order (one search for the group), at most [`ENDINGS_READ`] of them: a text with
/// more (a reasoning text full of `<think>`) has each missing close tag searched for on its own
/// from there, so that no text costs more than one pass per close tag.
fn first_closes(bytes: &[u8], group: &CloseGroup) -> [Option<usize>; GROUP] {
    let mut first = [None; GROUP];
    let missing = |first: &[Option<usize>; GROUP]| first[..group.tags.len()].iter().any(Option::is_none);
    let mut from = 0;
    for _ in 0..ENDINGS_READ {
        let Some(i) = group.ending.find(&bytes[from..]) else {
            return first;
        };
        let end = from + i + group.ending.needle().len();
        for (tag, slot) in group.tags.iter().zip(first.iter_mut()) {
            let close = tag.block.close.as_bytes();
            if slot.is_none() && bytes[..end].ends_with(close) {
                *slot = Some(end - close.len());
            }
        }
        if !missing(&first) {
            return first;
        }
        from += i + 1;
    }
    for (tag, slot) in group.tags.iter().zip(first.iter_mut()) {
        if slot.is_none() {
            *slot = tag.close.find(&bytes[from..]).map(|i| from + i);
        }
    }
    first
}

/// How many occurrences of a group's common ending are read before its close tags are searched
/// for one by one.
const ENDINGS_READ: usize = 8;

/// A `prompt_may_open` block with searchers for its tags.
struct Tags {
    block: &'static Block,
    open: Finder<'static>,
    close: Finder<'static>,
}

/// `prompt_may_open` blocks whose close tags end alike (`</think>`, `</seed:think>`,
/// `</longcat_think>`), searched for together: one searcher for the common ending, built once.
struct CloseGroup {
    ending: Finder<'static>,
    tags: Vec<Tags>,
}

/// The length of the ending close tags are grouped by, and the most tags in one group.
const ENDING: usize = 6;
const GROUP: usize = 4;

fn close_groups() -> &'static [CloseGroup] {
    static GROUPS: OnceLock<Vec<CloseGroup>> = OnceLock::new();
    GROUPS.get_or_init(|| {
        let mut groups: Vec<CloseGroup> = Vec::new();
        for block in BLOCKS.iter().filter(|b| b.prompt_may_open) {
            let close = block.close.as_bytes();
            let ending = &close[close.len().saturating_sub(ENDING)..];
            let tags = Tags {
                block,
                open: Finder::new(block.open),
                close: Finder::new(block.close),
            };
            let same = |g: &&mut CloseGroup| g.ending.needle() == ending && g.tags.len() < GROUP;
            match groups.iter_mut().find(same) {
                Some(g) => g.tags.push(tags),
                None => groups.push(CloseGroup {
                    ending: Finder::new(ending),
                    tags: vec![tags],
                }),
            }
        }
        groups
    })
}

/// The offset of the first close tag of `block` in `hay`, with a searcher built once per block
/// (`memmem::find` builds one per call; `scan::find` stops at every `<` of a markup-heavy block).
pub(crate) fn find_close(block: &Block, hay: &[u8]) -> Option<usize> {
    static FINDERS: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
    let finders = FINDERS.get_or_init(|| BLOCKS.iter().map(|b| Finder::new(b.close)).collect());
    match finders.iter().find(|f| f.needle() == block.close.as_bytes()) {
        Some(finder) => finder.find(hay),
        None => crate::scan::find(hay, block.close),
    }
}
