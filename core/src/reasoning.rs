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

use memchr::memmem;

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
    prompt_blocks()
        .iter()
        .filter_map(|(b, open, close)| {
            let close = close.find(bytes)?;
            let opened = open.find(&bytes[..close]).is_some();
            (!opened).then_some((*b, close))
        })
        .min_by_key(|&(_, close)| close)
}

/// The blocks a prompt may open, with searchers for their open and close tags, built once
/// (building a searcher costs more than searching a short text).
fn prompt_blocks() -> &'static [(&'static Block, memmem::Finder<'static>, memmem::Finder<'static>)] {
    static FINDERS: std::sync::OnceLock<Vec<(&'static Block, memmem::Finder<'static>, memmem::Finder<'static>)>> =
        std::sync::OnceLock::new();
    FINDERS.get_or_init(|| {
        BLOCKS
            .iter()
            .filter(|b| b.prompt_may_open)
            .map(|b| (b, memmem::Finder::new(b.open), memmem::Finder::new(b.close)))
            .collect()
    })
}
