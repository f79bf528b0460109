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

/// Whether the prompt opened a reasoning block ([`crate::Start::Detect`]): the earliest close tag of a
/// kind the prompt may open that comes before every open tag of its kind, found incrementally.
#[derive(Default)]
pub(crate) struct PromptScan {
    scanned: usize,
    open: [Option<usize>; 8],
    close: [Option<usize>; 8],
}

impl PromptScan {
    /// `Some(block and its close tag)`, `Some(None)` for no block, `None` while a growing text
    /// cannot tell.
    pub(crate) fn decide(&mut self, text: &str, more: bool) -> Option<Option<(&'static Block, usize)>> {
        let bytes = text.as_bytes();
        let kinds = BLOCKS.iter().enumerate().filter(|(_, b)| b.prompt_may_open);
        let longest = kinds
            .clone()
            .map(|(_, b)| b.open.len().max(b.close.len()))
            .max()
            .unwrap_or(1);
        let from = self.scanned.saturating_sub(longest);
        // One pass over the `<` and `[` that every tag begins with finds the first of each tag
        // (eight searches of the whole text cost about 1.6k instructions of a typical 26k parse).
        let tags = prompt_tags();
        let mut at = from;
        while let Some(k) = memchr::memchr2(b'<', b'[', &bytes[at..]) {
            let p = at + k;
            let rest = &bytes[p..];
            if rest.len() > 2 && tags.heads.contains(&[rest[1], rest[2]]) {
                for &(i, open, tag) in &tags.tags {
                    let slot = if open { &mut self.open[i] } else { &mut self.close[i] };
                    if slot.is_none() && rest.starts_with(tag) {
                        *slot = Some(p);
                    }
                }
            }
            at = p + 1;
        }
        self.scanned = bytes.len();
        let best = kinds
            .clone()
            .filter_map(|(i, b)| {
                let c = self.close[i]?;
                self.open[i].is_none_or(|o| o > c).then_some((b, c))
            })
            .min_by_key(|&(_, c)| c);
        if !more {
            return Some(best);
        }
        match best {
            // A close tag of another kind could still begin before this one only within the
            // last few bytes.
            Some((_, c)) if c + longest <= bytes.len() => Some(best),
            Some(_) => None,
            None => kinds
                .clone()
                .all(|(i, _)| self.open[i].is_some_and(|o| self.close[i].is_none_or(|c| c > o)))
                .then_some(None),
        }
    }
}

/// The tags of the blocks a prompt may open, for [`PromptScan::decide`]'s one pass.
struct PromptTags {
    /// (index in [`BLOCKS`], whether it is the open tag, the tag).
    tags: Vec<(usize, bool, &'static [u8])>,
    /// The second and third bytes of those tags: most `<` and `[` in a text begin other tags
    /// (`</parameter>`), and are passed over on these few comparisons.
    heads: Vec<[u8; 2]>,
}

fn prompt_tags() -> &'static PromptTags {
    static TAGS: std::sync::OnceLock<PromptTags> = std::sync::OnceLock::new();
    TAGS.get_or_init(|| {
        let mut tags = Vec::new();
        let mut heads = Vec::new();
        for (i, b) in BLOCKS.iter().enumerate().filter(|(_, b)| b.prompt_may_open) {
            for (open, tag) in [(true, b.open), (false, b.close)] {
                let tag = tag.as_bytes();
                if !heads.contains(&[tag[1], tag[2]]) {
                    heads.push([tag[1], tag[2]]);
                }
                tags.push((i, open, tag));
            }
        }
        PromptTags { tags, heads }
    })
}

/// Searchers for the open and close tags of every block, by index in [`BLOCKS`], built once
/// (building a searcher costs more than searching a short text).
fn finders() -> &'static [(memmem::Finder<'static>, memmem::Finder<'static>)] {
    static FINDERS: std::sync::OnceLock<Vec<(memmem::Finder<'static>, memmem::Finder<'static>)>> =
        std::sync::OnceLock::new();
    FINDERS.get_or_init(|| {
        BLOCKS
            .iter()
            .map(|b| (memmem::Finder::new(b.open), memmem::Finder::new(b.close)))
            .collect()
    })
}

/// The offset of the first close tag of `block` in `hay`, with a searcher built once per block.
pub(crate) fn find_close(block: &Block, hay: &[u8]) -> Option<usize> {
    match BLOCKS.iter().position(|b| std::ptr::eq(b, block)) {
        Some(i) => finders()[i].1.find(hay),
        None => memmem::find(hay, block.close.as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::BLOCKS;

    /// `PromptScan::decide` looks for the tags of prompt-opened blocks at `<` and `[` only.
    #[test]
    fn prompt_block_tags_begin_with_a_bracket() {
        for b in BLOCKS.iter().filter(|b| b.prompt_may_open) {
            for tag in [b.open, b.close] {
                assert!(tag.starts_with('<') || tag.starts_with('['), "{tag}");
                assert!(tag.len() >= 3, "{tag}");
            }
        }
    }
}
