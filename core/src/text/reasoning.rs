//! Reasoning blocks: the text a model writes while thinking, kept apart from its calls.
//!
//! A block opens with its open tag, found between calls (not inside one), and closes at the
//! first matching close tag after it, or runs to the end of the text. Many templates open the
//! block in the prompt (`…<|Assistant|><think>\n`), so the output shows only the close tag: when
//! a close tag of such a block comes before any open tag of its kind, the text from the start
//! up to it is a reasoning block. A block whose tags are phrases of prose rather than tokens
//! (Granite 3.2's `Here is my thought process:`) opens only where the text starts, after
//! whitespace ([`Block::leading`]).
//!
//! What counts inside a block is decided by the scanner (`crate::text::tiers`): calls outside
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
    /// Whether the open tag counts only at the start of the text (after whitespace): tags that
    /// are phrases a model may also write in prose. Such tags are not in the scanner's marker
    /// index; the scanner looks for the open tag once, where the text starts.
    pub leading: bool,
}

/// Every kind of reasoning block.
pub(crate) const BLOCKS: &[Block] = &[
    // DeepSeek, Qwen3, GLM, Kimi K2, MiniMax, Hermes 4, LFM2.5, Nemotron, Step-3, Olmo 3 Think, …
    Block {
        open: "<think>",
        close: "</think>",
        prompt_may_open: true,
        leading: false,
    },
    // Magistral 2507+, Ministral 3 Reasoning.
    Block {
        open: "[THINK]",
        close: "[/THINK]",
        prompt_may_open: true,
        leading: false,
    },
    // Seed-OSS.
    Block {
        open: "<seed:think>",
        close: "</seed:think>",
        prompt_may_open: true,
        leading: false,
    },
    // LongCat.
    Block {
        open: "<longcat_think>",
        close: "</longcat_think>",
        prompt_may_open: true,
        leading: false,
    },
    // Command R7B / Command A (Command A's generation prompt with reasoning on ends with
    // `<|START_THINKING|>`).
    Block {
        open: "<|START_THINKING|>",
        close: "<|END_THINKING|>",
        prompt_may_open: true,
        leading: false,
    },
    // Apertus.
    Block {
        open: "<|inner_prefix|>",
        close: "<|inner_suffix|>",
        prompt_may_open: false,
        leading: false,
    },
    // Gemma 4's thought channel, with its `thought` label (the longer open tag wins where both
    // match) or without it.
    Block {
        open: "<|channel>thought",
        close: "<channel|>",
        prompt_may_open: true,
        leading: false,
    },
    Block {
        open: "<|channel>",
        close: "<channel|>",
        prompt_may_open: true,
        leading: false,
    },
    // gpt-oss Harmony's analysis channel.
    Block {
        open: "<|channel|>analysis<|message|>",
        close: "<|end|>",
        prompt_may_open: false,
        leading: false,
    },
    // Granite 3.2's phrases, only where the text starts (either spelling, each with its own
    // close).
    Block {
        open: "Here is my thought process:",
        close: "Here is my response:",
        prompt_may_open: false,
        leading: true,
    },
    Block {
        open: "Here's my thought process:",
        close: "Here's my response:",
        prompt_may_open: false,
        leading: true,
    },
    // Solar-Open's think message.
    Block {
        open: "<|think|>",
        close: "<|end|>",
        prompt_may_open: false,
        leading: false,
    },
];

/// The most kinds of reasoning block one scan knows: the built-in ones ([`BLOCKS`]) and the one
/// of a format spec (inferred from a model's chat template).
pub(crate) const MAX_BLOCKS: usize = BLOCKS.len() + 1;

/// The kinds of block one scan knows: [`BLOCKS`], and after them a format spec's own kind when
/// its tags are not one of those (`crate::text::scanner::Marks::blocks`).
pub(crate) fn with_spec_block(open: &'static str, close: &'static str, prompt_may_open: bool) -> &'static [Block] {
    if open.is_empty() || close.is_empty() || BLOCKS.iter().any(|b| b.open == open && b.close == close) {
        return BLOCKS;
    }
    let mut blocks: Vec<Block> = BLOCKS
        .iter()
        .map(|b| Block {
            open: b.open,
            close: b.close,
            prompt_may_open: b.prompt_may_open,
            leading: b.leading,
        })
        .collect();
    blocks.push(Block {
        open,
        close,
        prompt_may_open,
        leading: false,
    });
    Box::leak(blocks.into_boxed_slice())
}

/// Whether the prompt opened a reasoning block ([`crate::Start::Detect`]): the earliest close tag of a
/// kind the prompt may open that comes before every open tag of its kind (the open tags of every
/// block with that close tag), found incrementally.
#[derive(Default)]
pub(crate) struct PromptScan {
    scanned: usize,
    open: [Option<usize>; MAX_BLOCKS],
    close: [Option<usize>; MAX_BLOCKS],
}

impl PromptScan {
    /// `Some(block and its close tag)`, `Some(None)` for no block, `None` while a growing text
    /// cannot tell.
    #[allow(
        clippy::option_option,
        reason = "three answers: not this, this with nothing, this with a value"
    )]
    pub(crate) fn decide(
        &mut self,
        text: &str,
        more: bool,
        blocks: &'static [Block],
    ) -> Option<Option<(&'static Block, usize)>> {
        let bytes = text.as_bytes();
        let kinds = blocks.iter().enumerate().filter(|(_, b)| b.prompt_may_open);
        let longest = kinds
            .clone()
            .map(|(_, b)| b.open.len().max(b.close.len()))
            .max()
            .unwrap_or(1);
        let from = self.scanned.saturating_sub(longest);
        // Every such tag holds `think`, `THINK` or `channel`: one search for each word (a text
        // without reasoning has none) finds the first of each tag, about 970 instructions on a
        // typical 460-byte output. Looking at every `<` and `[` instead cost about 1.5k of a
        // typical 26k parse of a tag-heavy format (GLM 4.5); at every `k` and `K` (`think`'s,
        // `THINK`'s), with a search for `channel`, it saved 240–450 on hermes and `json` but cost
        // 1.4k on GLM 4.5, IFM and LongCat, whose `arg_key` tags put a `k` every few bytes. One
        // pass for the three words (aho-corasick's Teddy) saved 50–150 on typical outputs, but
        // costs more a byte than the three `memmem` passes beyond about 1 KB.
        let tags = prompt_tags();
        tags.each_hit(&bytes[from..], |word, hit| {
            let hit = from + hit;
            for &(i, open, tag, w, offset) in &tags.tags {
                let slot = if open { &mut self.open[i] } else { &mut self.close[i] };
                if slot.is_none() && w == word && hit >= from + offset && bytes[hit - offset..].starts_with(tag) {
                    *slot = Some(hit - offset);
                }
            }
        });
        // A format spec's own kind (after the built-in ones) holds no known word: its tags are
        // looked for as they are.
        for (i, b) in kinds.clone().filter(|&(i, _)| i >= BLOCKS.len()) {
            for (slot, tag) in [(&mut self.open[i], b.open), (&mut self.close[i], b.close)] {
                if slot.is_none() {
                    *slot = memmem::find(&bytes[from..], tag.as_bytes()).map(|at| from + at);
                }
            }
        }
        self.scanned = bytes.len();
        // Blocks with one close tag are one kind (Gemma 4's channel with and without its label):
        // the first open tag of any of them counts.
        let first_open = |i: usize| {
            kinds
                .clone()
                .filter(|(_, b)| b.close == blocks[i].close)
                .filter_map(|(j, _)| self.open[j])
                .min()
        };
        let best = kinds
            .clone()
            .filter_map(|(i, b)| {
                let c = self.close[i]?;
                first_open(i).is_none_or(|o| o > c).then_some((b, c))
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
                .all(|(i, _)| first_open(i).is_some_and(|o| self.close[i].is_none_or(|c| c > o)))
                .then_some(None),
        }
    }
}

/// The words every tag of a block a prompt may open holds, for [`PromptScan::decide`].
const PROMPT_WORDS: [&str; 3] = ["think", "THINK", "channel"];

/// The tags of the blocks a prompt may open, for [`PromptScan::decide`]'s search.
struct PromptTags {
    /// (index in [`BLOCKS`], whether it is the open tag, the tag, the index of the word of
    /// [`PROMPT_WORDS`] it holds, where that word starts in it).
    tags: Vec<(usize, bool, &'static [u8], usize, usize)>,
    /// A searcher for each of [`PROMPT_WORDS`].
    words: Vec<memmem::Finder<'static>>,
}

fn prompt_tags() -> &'static PromptTags {
    static TAGS: std::sync::OnceLock<PromptTags> = std::sync::OnceLock::new();
    TAGS.get_or_init(|| {
        let mut tags = Vec::new();
        for (i, b) in BLOCKS.iter().enumerate().filter(|(_, b)| b.prompt_may_open) {
            for (open, tag) in [(true, b.open), (false, b.close)] {
                // A tag without either word would never be found: the registry test below
                // keeps that from happening.
                let (w, offset) = PROMPT_WORDS
                    .iter()
                    .enumerate()
                    .find_map(|(w, word)| tag.find(word).map(|at| (w, at)))
                    .unwrap_or((0, 0));
                tags.push((i, open, tag.as_bytes(), w, offset));
            }
        }
        let words = PROMPT_WORDS.iter().map(memmem::Finder::new).collect();
        PromptTags { tags, words }
    })
}

impl PromptTags {
    /// Calls `f` with the index in [`PROMPT_WORDS`] and the offset of every hit of each word in
    /// `hay`.
    fn each_hit(&self, hay: &[u8], mut f: impl FnMut(usize, usize)) {
        for (word, finder) in self.words.iter().enumerate() {
            // `find` from each hit rather than `find_iter`, which copies the searcher.
            let mut at = 0;
            while let Some(found) = finder.find(&hay[at..]) {
                f(word, at + found);
                at += found + 1;
            }
        }
    }
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

    /// `PromptScan::decide` finds the tags of prompt-opened blocks by the word they hold, once
    /// each.
    #[test]
    fn prompt_block_tags_hold_one_word() {
        for b in BLOCKS.iter().filter(|b| b.prompt_may_open) {
            for tag in [b.open, b.close] {
                let words = super::PROMPT_WORDS
                    .iter()
                    .map(|w| tag.matches(w).count())
                    .sum::<usize>();
                assert_eq!(words, 1, "{tag}");
            }
        }
    }

    /// The first open and close tag of each kind, wherever it stands (at the start, at the end,
    /// after a false start, beside other tags and other words with the same letters), as a
    /// search for the tag itself finds it.
    #[test]
    fn prompt_scan_finds_the_first_tag_of_each_kind() {
        let texts = [
            "</think>",
            "a</think>b<think>",
            "thin</think>k|K <|channel>x<channel|> [/THINK] <|END_THINKING|>",
            "<think></think></think>",
            "kkk||KK</seed:think></longcat_think>[THINK]<|START_THINKING|><|channel>thought",
            "<channel|<channel|>",
            "<arg_key>k</arg_key><|\"|>x<|\"|> no tag here, only think and THINK and channel|",
        ];
        for text in texts {
            let mut scan = super::PromptScan::default();
            scan.decide(text, false, BLOCKS);
            for (i, b) in BLOCKS.iter().enumerate().filter(|(_, b)| b.prompt_may_open) {
                assert_eq!(scan.open[i], text.find(b.open), "{text}: {}", b.open);
                assert_eq!(scan.close[i], text.find(b.close), "{text}: {}", b.close);
            }
        }
    }
}

/// Whether the text starts inside a reasoning block that the prompt opened. Templates of
/// reasoning models often end the prompt with `<think>`, so the output shows only the close tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// Tell from the text: a close tag of a kind the prompt may open (`</think>`, `[/THINK]`,
    /// `</seed:think>`, `</longcat_think>`, `<|END_THINKING|>`, Gemma 4's `<channel|>`) that comes
    /// before every open tag of its kind closes a block that began at the start. Only the whole text can tell, so a stream shows nothing until
    /// such a close tag arrives (or its open tags have all come first, or the text ends): give a
    /// stream `Content` or `Reasoning`.
    #[default]
    Detect,
    /// The prompt opened a block: the text is reasoning up to the first close tag of a kind the
    /// prompt may open (or to its end). A text that starts with an open tag is read as usual.
    Reasoning,
    /// The prompt opened no block: a close tag without its open tag is content.
    Content,
}
