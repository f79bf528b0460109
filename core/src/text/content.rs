//! The content rule of [`crate::parse_message`], built piece by piece so that the one-shot parse
//! and the stream share it: the prose between the regions and reasoning blocks, less end-of-turn
//! tokens and Harmony's content headers (and wrapper tags when the message has calls, and
//! Hunyuan's `<answer>` wrapper where the content starts), joined with one whitespace rule.
//!
//! Whitespace rule: the text is a sequence of kept pieces and cuts (removed pieces). Whitespace
//! before the first non-whitespace character is dropped when a cut stands among it, and so is
//! whitespace after the last one; everywhere else the kept text is kept byte for byte. Fed in
//! order, the rule needs to hold back only the whitespace since the last non-whitespace
//! character.

use std::ops::Range;

use memchr::memchr3;

use crate::formats::tokens::{ANSWER_CLOSE, ANSWER_OPEN, CONTENT_HEADERS, END_TOKENS, WRAPPERS};

/// Where decided content text goes.
pub(crate) trait Out {
    fn push(&mut self, text: &str);
}

impl Out for String {
    fn push(&mut self, text: &str) {
        self.push_str(text);
    }
}

/// The tags content leaves out besides the built-in wrappers: the end-of-turn tokens (the
/// built-in ones, and a format spec's own), and a format spec's content wrapper (its open tag,
/// where the content starts, and its close tag), which counts as the answer wrapper does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProseTags {
    pub end_tokens: &'static [&'static str],
    pub wrapper: (&'static str, &'static str),
    /// The second bytes of every tag [`prose`] looks for, these and the built-in ones.
    seconds: &'static Seconds,
}

impl ProseTags {
    /// The tags of a format spec: the end-of-turn tokens and its content wrapper (the table of
    /// their second bytes is made here, once a spec).
    pub(crate) fn new(end_tokens: &'static [&'static str], wrapper: (&'static str, &'static str)) -> ProseTags {
        ProseTags {
            end_tokens,
            wrapper,
            seconds: Box::leak(Box::new(Seconds::of(end_tokens, wrapper))),
        }
    }
}

impl Default for ProseTags {
    fn default() -> Self {
        static BUILTIN: std::sync::OnceLock<Seconds> = std::sync::OnceLock::new();
        ProseTags {
            end_tokens: END_TOKENS,
            wrapper: ("", ""),
            seconds: BUILTIN.get_or_init(|| Seconds::of(END_TOKENS, ("", ""))),
        }
    }
}

/// For each byte [`prose`] stops at (`<`, `[`, `>`), the bytes that follow it in some tag it
/// looks for: a place whose next byte is not one of them begins no tag, and is passed over
/// without comparing each tag (most such places in prose are `<b>`, `[1]`).
#[derive(Debug)]
pub(crate) struct Seconds([[bool; 256]; 3]);

impl Seconds {
    fn of(end_tokens: &[&str], (open, close): (&str, &str)) -> Seconds {
        let mut table = [[false; 256]; 3];
        let tags = end_tokens.iter().chain(CONTENT_HEADERS).chain(WRAPPERS);
        for tag in tags.chain(&[ANSWER_OPEN, ANSWER_CLOSE, open, close]) {
            if let [first, second, ..] = tag.as_bytes() {
                if let Some(slot) = slot(*first) {
                    table[slot][usize::from(*second)] = true;
                }
            }
        }
        Seconds(table)
    }

    /// Whether a tag may begin at `rest` (one whose first byte [`prose`] stops at), as far as
    /// its first two bytes tell; with one byte, it may.
    fn may_begin(&self, rest: &[u8]) -> bool {
        match rest {
            [first, second, ..] => slot(*first).is_some_and(|slot| self.0[slot][usize::from(*second)]),
            _ => true,
        }
    }
}

/// The row of [`Seconds`] for a byte [`prose`] stops at.
fn slot(byte: u8) -> Option<usize> {
    match byte {
        b'<' => Some(0),
        b'[' => Some(1),
        b'>' => Some(2),
        _ => None,
    }
}

/// The whitespace rule, fed kept text and cuts in order; what it decides goes to `out`.
#[derive(Debug, Default)]
pub(crate) struct Content {
    /// A non-whitespace character has been kept.
    started: bool,
    /// A cut came before the first non-whitespace character.
    cut_first: bool,
    /// Whitespace since the last non-whitespace character (or the start), held back.
    held: String,
    /// A cut came since the last non-whitespace character.
    cut_since: bool,
    /// Where the answer wrapper stands ([`ANSWER_OPEN`]).
    answer: Answer,
    /// The end-of-turn tokens and the spec's content wrapper.
    tags: ProseTags,
}

/// The answer wrapper, seen in order.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// Its open tag may still come (nothing but whitespace was kept).
    #[default]
    Before,
    /// Its open tag came; its close tag may follow.
    Open,
    /// Closed, or content came first: the tags are text from now on.
    Over,
}

impl Content {
    /// The rule for a text whose formats have `tags`.
    pub(crate) fn with_tags(tags: ProseTags) -> Content {
        Content {
            tags,
            ..Content::default()
        }
    }

    /// Kept text.
    pub(crate) fn kept(&mut self, piece: &str, out: &mut impl Out) {
        // The common case: text after text, with no whitespace at its edges.
        // Whitespace is `char::is_whitespace`, whose ASCII members are `is_ascii_whitespace`'s
        // and the vertical tab.
        let edge = |b: Option<&u8>| b.is_some_and(|&b| !b.is_ascii_whitespace() && b != 0x0B && b < 0x80);
        if self.started && self.held.is_empty() && edge(piece.as_bytes().first()) && edge(piece.as_bytes().last()) {
            out.push(piece);
            self.cut_since = false;
            return;
        }
        let Some(first) = piece.find(|c: char| !c.is_whitespace()) else {
            self.held.push_str(piece);
            return;
        };
        let last = piece
            .char_indices()
            .rev()
            .find(|(_, c)| !c.is_whitespace())
            .map_or(piece.len(), |(i, c)| i + c.len_utf8());
        self.held.push_str(&piece[..first]);
        if self.started || !self.cut_first {
            out.push(&self.held);
        }
        self.held.clear();
        out.push(&piece[first..last]);
        self.held.push_str(&piece[last..]);
        self.started = true;
        self.cut_since = false;
    }

    /// Whether the answer wrapper's open (`open`) or close tag, met here, is taken out: the open
    /// tag where no content was kept yet, the close tag as the first after the open tag.
    fn answer_tag(&mut self, open: bool) -> bool {
        if self.started && self.answer == Answer::Before {
            self.answer = Answer::Over;
        }
        match (self.answer, open) {
            (Answer::Before, true) => self.answer = Answer::Open,
            (Answer::Open, false) => self.answer = Answer::Over,
            _ => return false,
        }
        true
    }

    /// A removed piece.
    pub(crate) fn cut(&mut self) {
        if !self.started {
            self.cut_first = true;
        }
        self.cut_since = true;
    }

    /// The text ended: the held whitespace is kept unless a cut touches it at the very end (or
    /// the very start, when nothing but whitespace was kept).
    pub(crate) fn finish(&mut self, out: &mut impl Out) {
        let keep = if self.started { !self.cut_since } else { !self.cut_first };
        if keep {
            out.push(&self.held);
        }
        self.held.clear();
    }
}

/// Whether `rest` begins with `tag`: the first two bytes compared in place, the rest (a call to
/// `memcmp`) only for a tag they match, since a place [`Seconds`] lets through (`</b>`) is
/// compared with every tag that shares its first two bytes' row.
fn begins(rest: &[u8], tag: &str) -> bool {
    match (tag.as_bytes(), rest) {
        ([a, b, ..], [x, y, ..]) if (a, b) != (x, y) => false,
        (tag, rest) => rest.starts_with(tag),
    }
}

/// Feeds the prose `text[range]` to `rule`: end-of-turn tokens (and, when `has_calls` is
/// `Some(true)`, wrapper tags) are cuts, the rest is kept. A token counts only when it lies
/// wholly inside the range. Returns how far it got: with `has_calls` unknown (`None`), it stops
/// before the first wrapper tag; with `open` (the prose may go on past the range), before a token
/// that runs past the range's end.
pub(crate) fn prose(
    text: &str,
    range: Range<usize>,
    has_calls: Option<bool>,
    open: bool,
    rule: &mut Content,
    out: &mut impl Out,
) -> usize {
    let bytes = if open {
        text.as_bytes()
    } else {
        &text.as_bytes()[..range.end]
    };
    let mut from = range.start;
    let mut i = range.start;
    while let Some(k) = memchr3(b'<', b'[', b'>', &bytes[i..range.end]) {
        let at = i + k;
        i = at + 1;
        let rest = &bytes[at..];
        if !rule.tags.seconds.may_begin(rest) {
            continue;
        }
        // The longest token that starts here (GigaChat's assistant header begins with its
        // `<|message_sep|>` end token).
        let token = rule
            .tags
            .end_tokens
            .iter()
            .chain(CONTENT_HEADERS)
            .filter(|t| begins(rest, t))
            .map(|t| (t.len(), true))
            .max();
        let token = token.or_else(|| WRAPPERS.iter().find(|t| begins(rest, t)).map(|t| (t.len(), false)));
        let (open_tag, close_tag) = rule.tags.wrapper;
        let answer = [ANSWER_OPEN, ANSWER_CLOSE, open_tag, close_tag]
            .into_iter()
            .find(|t| !t.is_empty() && begins(rest, t));
        if let (None, Some(tag)) = (token, answer) {
            if at + tag.len() > range.end {
                rule.kept(&text[from..at], out);
                return at;
            }
            // Whether it counts depends on the text kept before it.
            rule.kept(&text[from..at], out);
            from = at;
            if rule.answer_tag(tag == ANSWER_OPEN || tag == open_tag) {
                rule.cut();
                from = at + tag.len();
                i = from;
            }
            continue;
        }
        match token {
            Some((len, _)) if at + len > range.end => {
                rule.kept(&text[from..at], out);
                return at;
            }
            Some((_, false)) if has_calls.is_none() => {
                rule.kept(&text[from..at], out);
                return at;
            }
            Some((len, end_token)) if end_token || has_calls == Some(true) => {
                rule.kept(&text[from..at], out);
                rule.cut();
                from = at + len;
                i = from;
            }
            _ => {}
        }
    }
    rule.kept(&text[from..range.end], out);
    range.end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The content `prose` keeps of the whole of `text`, with `tags`.
    fn kept(text: &str, tags: ProseTags) -> String {
        let mut rule = Content::with_tags(tags);
        let mut out = String::new();
        prose(text, 0..text.len(), Some(true), false, &mut rule, &mut out);
        out
    }

    #[test]
    fn every_tag_is_found_where_its_first_two_bytes_stand() {
        // Each built-in tag, in prose between `<b>`, `[1]` and `>` that begin none: cut, and the
        // prose around it kept.
        let tags = END_TOKENS.iter().chain(CONTENT_HEADERS).chain(WRAPPERS);
        for tag in tags.filter(|t| !t.starts_with(">>>")) {
            let text = format!("a <b>x</b> [1] > y{tag}z");
            let got = kept(&text, ProseTags::default());
            assert!(!got.contains(tag), "{tag:?}: {got:?}");
            assert!(got.starts_with("a <b>x</b> [1] > y"), "{tag:?}: {got:?}");
        }
        // A spec's own end token and content wrapper, whatever byte of the three they begin with.
        let spec = ProseTags::new(&["[END]", ">>stop"], ("<answer_open>", "<answer_close>"));
        assert_eq!(kept("one [1] two[END]", spec), "one [1] two");
        assert_eq!(kept("one > two>>stop", spec), "one > two");
        assert_eq!(kept("<b>x</b>", spec), "<b>x</b>");
        assert_eq!(kept("[END]", ProseTags::default()), "[END]");
    }
}
