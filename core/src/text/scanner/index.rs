//! The scanner's index of markers (call markers and reasoning open tags), and the search for the
//! next one in a text.
//!
//! Every marker has an anchor: its first `<`, `[` or `>` byte. The search runs `memchr3` over
//! the text for anchor bytes; at each anchor it looks only at the markers whose anchor is that
//! byte and whose next byte is the byte after the anchor in the text (a marker that ends at its
//! anchor, like `functools[`, is looked at after every anchor of its kind), longest first, so
//! the longer of two markers matching at one offset wins. A bucket of more than
//! [`SPLIT_ABOVE`] markers (`<|`, where some twenty tokens begin) is split again by the byte
//! after those two. Each marker is first tested on its first eight bytes as one integer, then on
//! the next eight the same way, and compared whole only when it is longer than sixteen (many
//! markers share their first eight bytes, `<|tool_c` above all). Each anchor costs at most the
//! markers of one bucket, each at most its length: the search is linear in the text.

/// One marker: its text, where its anchor stands in it, and what it starts.
#[derive(Clone, Copy)]
struct Entry<K> {
    text: &'static str,
    anchor: usize,
    kind: K,
    /// The first (up to) eight bytes of `text`, little-endian, and the mask of those it has (for
    /// a marker of at most eight bytes, the whole marker: a match needs no other compare).
    head: u64,
    mask: u64,
    /// The same for bytes eight to sixteen (zero for a marker of at most eight bytes).
    next: u64,
    next_mask: u64,
}

/// The little-endian word of (up to) eight bytes of `text` from `from`, and the mask of those it
/// has.
fn word_of(text: &[u8], from: usize) -> (u64, u64) {
    let n = text.len().saturating_sub(from).min(8);
    let mask = match n {
        0 => 0,
        8 => u64::MAX,
        _ => (1 << (8 * n)) - 1,
    };
    (head_at(text, from) & mask, mask)
}

/// A bucket larger than this is split by the second byte after the anchor.
const SPLIT_ABOVE: usize = 4;

/// The markers of one anchor byte and the byte after it, longest first.
struct Bucket<K> {
    entries: Vec<Entry<K>>,
    /// For a bucket of more than [`SPLIT_ABOVE`] markers, `[byte]`: those that the byte two
    /// after the anchor does not rule out (that byte, or none), and `[256]` those that end
    /// before it, for a text that ends there; each longest first.
    by_third: Option<Box<[Vec<Entry<K>>]>>,
}

impl<K: Copy> Bucket<K> {
    /// The markers that may match where `third` follows the anchor's two bytes (`None`: the
    /// text ends after them).
    #[inline]
    fn for_third(&self, third: Option<u8>) -> &[Entry<K>] {
        match &self.by_third {
            None => &self.entries,
            Some(split) => &split[third.map_or(256, usize::from)],
        }
    }

    fn split(&mut self) {
        if self.entries.len() <= SPLIT_ABOVE {
            return;
        }
        let third = |e: &Entry<K>| e.text.as_bytes().get(e.anchor + 2).copied();
        let split = (0..=256)
            .map(|b| {
                let keeps = |e: &&Entry<K>| third(e).is_none_or(|t| usize::from(t) == b);
                self.entries.iter().filter(keeps).copied().collect()
            })
            .collect();
        self.by_third = Some(split);
    }
}

/// Markers by anchor byte and the byte after it.
pub(crate) struct MarkerIndex<K> {
    /// `[slot * 256 + next byte]`, slots `<`, `[`, `>`.
    by_next: Vec<Bucket<K>>,
    /// `[slot]`: the markers that end at their anchor, for an anchor at the end of the text.
    at_end: [Vec<Entry<K>>; 3],
}

fn slot(anchor: u8) -> usize {
    match anchor {
        b'<' => 0,
        b'[' => 1,
        _ => 2,
    }
}

/// The first eight bytes at `pos` (fewer at the end of the text), little-endian.
#[inline]
fn head_at(bytes: &[u8], pos: usize) -> u64 {
    match bytes.get(pos..pos + 8) {
        Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
        None => bytes[pos.min(bytes.len())..]
            .iter()
            .rev()
            .fold(0, |word, &b| (word << 8) | u64::from(b)),
    }
}

impl<K: Copy> MarkerIndex<K> {
    /// The index of `markers`. Panics on a marker without a `<`, `[` or `>` byte (a registry
    /// error, caught by every test).
    pub(crate) fn new(markers: impl IntoIterator<Item = (&'static str, K)>) -> Self {
        let mut index = MarkerIndex {
            by_next: (0..3 * 256)
                .map(|_| Bucket {
                    entries: Vec::new(),
                    by_third: None,
                })
                .collect(),
            at_end: Default::default(),
        };
        for (text, kind) in markers {
            let anchor = text
                .bytes()
                .position(|b| matches!(b, b'<' | b'[' | b'>'))
                .unwrap_or_else(|| panic!("marker {text:?} has no `<`, `[` or `>`"));
            let (head, mask) = word_of(text.as_bytes(), 0);
            let (next, next_mask) = word_of(text.as_bytes(), 8);
            let entry = Entry {
                text,
                anchor,
                kind,
                head,
                mask,
                next,
                next_mask,
            };
            let slot = slot(text.as_bytes()[anchor]);
            if let Some(&next) = text.as_bytes().get(anchor + 1) {
                index.by_next[slot * 256 + usize::from(next)].entries.push(entry);
            } else {
                index.at_end[slot].push(entry);
                for bucket in &mut index.by_next[slot * 256..(slot + 1) * 256] {
                    bucket.entries.push(entry);
                }
            }
        }
        let buckets = index.by_next.iter_mut().map(|b| &mut b.entries);
        for bucket in buckets.chain(index.at_end.iter_mut()) {
            bucket.sort_by_key(|e| std::cmp::Reverse(e.text.len()));
        }
        index.by_next.iter_mut().for_each(Bucket::split);
        index
    }

    /// Every marker whose anchor is the byte `anchor`: its text, where its anchor stands in it,
    /// and its kind (a marker that ends at its anchor comes once per bucket it is in).
    pub(crate) fn with_anchor(&self, anchor: u8) -> impl Iterator<Item = (&'static str, usize, K)> + '_ {
        let s = slot(anchor);
        self.by_next[s * 256..(s + 1) * 256]
            .iter()
            .flat_map(|b| &b.entries)
            .chain(&self.at_end[s])
            .map(|e| (e.text, e.anchor, e.kind))
    }

    /// The markers that may match at the anchor `anchor` of `bytes`.
    #[inline]
    fn bucket(&self, bytes: &[u8], anchor: usize) -> &[Entry<K>] {
        let slot = slot(bytes[anchor]);
        match bytes.get(anchor + 1) {
            Some(&next) => self.by_next[slot * 256 + usize::from(next)].for_third(bytes.get(anchor + 2).copied()),
            None => &self.at_end[slot],
        }
    }

    /// The first marker whose kind `accept`s that starts at or after `from` and whose anchor
    /// stands before `limit`: its offset, its length and its kind.
    pub(crate) fn next(
        &self,
        bytes: &[u8],
        from: usize,
        limit: usize,
        accept: impl Fn(&K) -> bool,
    ) -> Option<(usize, usize, K)> {
        let mut pos = from;
        while let Some(i) = memchr::memchr3(b'<', b'[', b'>', &bytes[pos..limit]) {
            let anchor = pos + i;
            let bucket = self.bucket(bytes, anchor);
            pos = anchor + 1;
            if bucket.is_empty() {
                continue;
            }
            let here = head_at(bytes, anchor); // the head of every marker that starts at its anchor
            let found = bucket.iter().find(|e| {
                let head = if e.anchor == 0 {
                    here
                } else if anchor >= from + e.anchor {
                    head_at(bytes, anchor - e.anchor)
                } else {
                    return false;
                };
                accept(&e.kind) && e.matches(bytes, anchor - e.anchor, head)
            });
            if let Some(e) = found {
                return Some((anchor - e.anchor, e.text.len(), e.kind));
            }
        }
        None
    }

    /// The first marker in [`MarkerIndex::next`]'s order that starts exactly at `at` and whose
    /// anchor stands before `limit`: its length and kind. Such a marker's anchor is the first
    /// anchor byte from `at`, so only that anchor's bucket is looked at. That byte is most often
    /// the one at `at`, looked at before `memchr3` (whose set-up costs more).
    pub(crate) fn at(&self, bytes: &[u8], at: usize, limit: usize) -> Option<(usize, K)> {
        let i = match bytes[at..limit].first() {
            Some(b'<' | b'[' | b'>') => 0,
            _ => memchr::memchr3(b'<', b'[', b'>', &bytes[at..limit])?,
        };
        let head = head_at(bytes, at);
        self.bucket(bytes, at + i)
            .iter()
            .find(|e| e.anchor == i && e.matches(bytes, at, head))
            .map(|e| (e.text.len(), e.kind))
    }
}

impl<K> Entry<K> {
    /// Whether the marker is the text at `start`, whose first eight bytes are `head`.
    #[inline]
    fn matches(&self, bytes: &[u8], start: usize, head: u64) -> bool {
        head & self.mask == self.head
            && (self.text.len() <= 8
                || (head_at(bytes, start + 8) & self.next_mask == self.next
                    && (self.text.len() <= 16 || bytes[start..].starts_with(self.text.as_bytes()))))
    }
}

#[cfg(test)]
mod tests {
    use super::MarkerIndex;

    #[test]
    fn finds_the_longest_marker_at_the_first_offset() {
        let index = MarkerIndex::new([("<a>", 1), ("<ab>", 2), ("f[", 3), (">>>", 4), ("<|x|>", 5)]);
        let find = |text: &str| index.next(text.as_bytes(), 0, text.len(), |_| true);
        assert_eq!(find("x <ab> <a>"), Some((2, 4, 2)));
        assert_eq!(find("x <a> <ab>"), Some((2, 3, 1)));
        assert_eq!(find("call f[1]"), Some((5, 2, 3)));
        assert_eq!(find("ends with f["), Some((10, 2, 3)));
        assert_eq!(find("[f[ >>"), Some((1, 2, 3)));
        assert_eq!(find("no >> here <|x|"), None);
        assert_eq!(find("a >>>"), Some((2, 3, 4)));
        assert_eq!(find("ｆ<|x|>"), Some((3, 5, 5)));
    }

    /// A bucket split by its third byte finds what looking at every marker in turn finds: the
    /// first offset, and the longest marker there.
    #[test]
    fn a_split_bucket_finds_what_every_marker_in_turn_finds() {
        let markers = [
            "<|a|>",
            "<|ab|>",
            "<|b|>",
            "<|tool_call|>",
            "<|tool_calls|>",
            "<|t",
            "<|",
            "x<|y",
            "f[",
            "<|c>",
            "<|cc",
        ];
        let index = MarkerIndex::new(markers.iter().enumerate().map(|(i, &m)| (m, i)));
        assert!(index.by_next[usize::from(b'|')].by_third.is_some());
        let naive = |text: &str, from: usize| {
            (from..text.len()).find_map(|at| {
                let rest = &text.as_bytes()[at..];
                let found = markers
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| rest.starts_with(m.as_bytes()));
                found
                    .max_by_key(|(i, m)| (m.len(), std::cmp::Reverse(*i)))
                    .map(|(i, m)| (at, m.len(), i))
            })
        };
        let texts = [
            "a <|tool_calls|> b",
            "<|tool_call|><|ab|>",
            "x<|y <|c> <|cc",
            "<|",
            "<|t",
            "<|a",
            "f[ <|b|",
            "<|z <|b|>",
        ];
        for text in texts {
            for from in 0..text.len() {
                for end in from..=text.len() {
                    let piece = &text[..end];
                    assert_eq!(
                        index.next(piece.as_bytes(), from, end, |_| true),
                        naive(piece, from),
                        "{piece:?} from {from}"
                    );
                    // The marker that starts exactly at `from`: the longest, the first listed
                    // among equals.
                    let exact = markers
                        .iter()
                        .enumerate()
                        .filter(|(_, m)| piece.as_bytes()[from..].starts_with(m.as_bytes()))
                        .max_by_key(|(i, m)| (m.len(), std::cmp::Reverse(*i)))
                        .map(|(i, m)| (m.len(), i));
                    assert_eq!(index.at(piece.as_bytes(), from, end), exact, "{piece:?} at {from}");
                }
            }
        }
    }

    #[test]
    fn text_before_the_anchor_starts_at_or_after_from() {
        let index = MarkerIndex::new([("f[", 1)]);
        assert_eq!(index.next(b"f[ f[", 1, 5, |_| true), Some((3, 2, 1)));
        assert_eq!(index.next(b"f[ f[", 0, 5, |k| *k != 1), None);
    }
}
