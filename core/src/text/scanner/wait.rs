//! Waiting for text: what a growing text stopped at (a region or leading call whose parse needs
//! more), when to parse it again (after a token or a closing JSON bracket, within a budget, so all
//! attempts stay linear), and when a parsed region is settled whatever follows.

use crate::call::ToolCall;
use crate::error::ParseError;
use crate::formats::Family;
use crate::syntax::json::Nesting;
use crate::text::lead::incomplete;
use crate::text::scanner::marks::Marks;

use super::Scanner;

/// A decision a growing text stopped at: a region (or leading call) whose parse needs more text.
pub(crate) struct Pending {
    /// Where the region starts.
    pub at: usize,
    /// The text's length when it was last looked at, the bytes parsed by all attempts, and
    /// whether a byte that may end the region came since the last attempt.
    tried: usize,
    spent: usize,
    armed: bool,
    skim: Skim,
    /// Calls outside reasoning that this region certainly gives (parsed before the text ran out),
    /// when they may be shown.
    pub calls: Vec<ToolCall>,
    /// The family of the marker outside reasoning that starts the region.
    pub(super) marker: Option<&'static Family>,
    /// Whether its calls may be shown before the whole text is known (no string of a JSON or
    /// call-syntax call may have opened around its marker).
    pub shown: bool,
    /// Whether its parser has claimed a call: it gave one, or stopped inside one because the text
    /// ended (a marker may also turn out to start no call, as `functools[` inside a word).
    pub claimed: bool,
}

impl Pending {
    /// The family of the marker outside reasoning that starts the region, if it is one.
    pub(crate) fn family(&self) -> Option<&'static Family> {
        self.marker
    }

    /// The JSON body of this region, when its marker is followed by one.
    pub(crate) fn json_body(&self, text: &str) -> Option<&'static crate::formats::JsonBody> {
        let family = self.marker?;
        family
            .json_bodies
            .iter()
            .find(|b| text[self.at..].starts_with(b.marker))
    }
}

impl Scanner {
    /// Whether a growing text should parse the region at `at` now: always the first time; again
    /// once new text may have completed it (see [`Watch`]) and the attempts so far have cost no
    /// more than twice the region's length, plus [`ALLOWANCE`] (so all attempts together cost at
    /// most three times the region and a constant, however it arrives).
    pub(super) fn gate(&mut self, text: &str, at: usize, watch: Watch) -> bool {
        let len = text.len();
        match self.pending.as_mut() {
            Some(p) if p.at == at => {
                if len > p.tried {
                    p.armed |= p.skim.arms(text, p.tried, watch);
                    p.tried = len;
                }
                if !p.armed || p.spent > 2 * (len - at) + ALLOWANCE {
                    return false;
                }
                p.armed = false;
                p.spent += len - at;
                true
            }
            _ => {
                let mut skim = Skim::default();
                skim.arms(text, at, watch);
                self.pending = Some(Pending {
                    at,
                    tried: len,
                    spent: len - at,
                    armed: false,
                    skim,
                    calls: Vec::new(),
                    marker: None,
                    shown: false,
                    claimed: false,
                });
                true
            }
        }
    }
}

/// Work every waiting region may spend on attempts beyond its budget, so that short regions
/// (and a leading word) are decided as soon as they can be.
const ALLOWANCE: usize = 512;

/// How long a leading call's beginning is looked at after every byte (a name, `(` and a keyword;
/// or a JSON value's first keys).
const LEAD_WORD: usize = 256;

/// What may complete a region that waits for text.
#[derive(Clone, Copy)]
pub(super) enum Watch {
    /// A tagged region of this family: one of its tokens, or a JSON value or call-syntax call
    /// that closes.
    Region(&'static Family),
    /// A leading call at this offset: any text while it is short (whether a call begins is
    /// known from its first characters), then as a region.
    Lead(usize),
}

/// A watch over the text of a waiting region: the nesting of JSON brackets, so that a value
/// closing can be seen without parsing it again.
#[derive(Default)]
pub(super) struct Skim(Nesting);

impl Skim {
    /// Reads `text[from..]`; whether something in it may have completed the region. Only the
    /// bytes in [`SKIM_STOPS`] are looked at (and the byte after a backslash in a string): the
    /// others change neither the nesting nor what may close the region, and are passed over in a
    /// tight loop. The 10 KB hermes output read whole as a growing text (`scan_stream`, callgrind):
    /// 310k → 138k instructions here, against the nesting and the closers checked at every byte.
    fn arms(&mut self, text: &str, from: usize, watch: Watch) -> bool {
        let bytes = text.as_bytes();
        let mut armed = matches!(watch, Watch::Lead(at) if from < bytes.len() && from < at + LEAD_WORD);
        let mut i = from;
        while i < bytes.len() {
            if !self.0.escaping() {
                match bytes[i..].iter().position(|&b| SKIM_STOPS[usize::from(b)]) {
                    Some(skip) => i += skip,
                    None => break,
                }
            }
            let b = bytes[i];
            armed |= self.0.byte(b) || (b == b')' && self.0.depth == 0);
            if let (b'>' | b']', Watch::Region(family)) = (b, watch) {
                let done = &bytes[..=i];
                armed |= family
                    .closers
                    .iter()
                    .chain(family.tokens)
                    .any(|t| done.ends_with(t.as_bytes()));
            }
            i += 1;
        }
        armed
    }
}

/// The bytes [`Skim::arms`] looks at: those that open or close a string or a bracket, a
/// backslash, and the last bytes of what closes a region (`)` of a call, `>` and `]` of tags).
static SKIM_STOPS: [bool; 256] = {
    let mut stops = [false; 256];
    let mut i = 0;
    let bytes = *b"\"\\{}[])>";
    while i < bytes.len() {
        stops[bytes[i] as usize] = true;
        i += 1;
    }
    stops
};

/// Whether an error of a region's parse may only say that the text ends too early: it stands at
/// the end, is `tool_call.unclosed`, or stands where the rest of the text is a proper beginning of
/// a marker or token (a parser that does not know the token was cut).
pub(super) fn cut_short(text: &str, e: &ParseError, marks: &Marks) -> bool {
    incomplete(e, text.len()) || marks.begins_token(text.as_bytes().get(e.offset..).unwrap_or_default())
}

/// Whether a region parsed to `end` is settled whatever text follows: it ends with one of its
/// family's closing tokens, after which the parser reads nothing; or the parser stopped before a
/// whole marker, reasoning tag or end-of-turn token (after whitespace), having read it and no
/// further.
pub(crate) fn region_final(text: &str, at: usize, end: usize, family: &Family, marks: &Marks) -> bool {
    let bytes = text.as_bytes();
    let done = &bytes[at..end.min(bytes.len())];
    if family.closers.iter().any(|c| done.ends_with(c.as_bytes())) {
        return true;
    }
    let q = crate::lex::skip_ws(bytes, end);
    match marks.entry_at(bytes, q) {
        Some((len, _)) => !marks.may_change(bytes, q, q, len, false),
        None => marks.end_tokens().iter().any(|t| bytes[q..].starts_with(t.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::FAMILIES;

    /// Whether reading `text[from..]` one byte at a time may complete the region: each byte read
    /// by the nesting, each `)` at depth zero, each closer or token ending at a `>` or `]`.
    fn armed_byte_by_byte(nesting: &mut Nesting, text: &str, from: usize, family: &Family) -> bool {
        let bytes = text.as_bytes();
        let mut armed = false;
        for i in from..bytes.len() {
            let b = bytes[i];
            armed |= nesting.byte(b) || (b == b')' && nesting.depth == 0);
            if matches!(b, b'>' | b']') {
                armed |= family
                    .closers
                    .iter()
                    .chain(family.tokens)
                    .any(|t| bytes[..=i].ends_with(t.as_bytes()));
            }
        }
        armed
    }

    #[test]
    fn a_skim_arms_where_every_byte_read_in_turn_would() {
        let texts = [
            r#"{"name": "f", "arguments": {"a": "x\"y\\", "b": [1, {"c": ")"}]}}</tool_call> more"#,
            r#"{"path": "a\\", "s": "<\/tool_call>", "t": "q\"]>"}]"#,
            "f(a=1, b=(2, 3)) then [TOOL_CALLS] and <|tool_call_end|> done",
            r#"{"a": "\\\"}\\", "b": "}"} ] ) > ""#,
            // An escape of a byte the skim passes over, then a quote.
            r#"{"a": "x\ny", "b": "}", "c": "\u0041"}</tool_call>"#,
        ];
        for family in FAMILIES {
            for text in texts {
                for cut in 0..=text.len() {
                    if !text.is_char_boundary(cut) {
                        continue;
                    }
                    // Read in two pieces, as a growing text arrives, against one byte at a time.
                    let mut skim = Skim::default();
                    let mut nesting = Nesting::default();
                    let first = skim.arms(&text[..cut], 0, Watch::Region(family));
                    assert_eq!(
                        first,
                        armed_byte_by_byte(&mut nesting, &text[..cut], 0, family),
                        "{text:?} to {cut}"
                    );
                    let rest = skim.arms(text, cut, Watch::Region(family));
                    assert_eq!(
                        rest,
                        armed_byte_by_byte(&mut nesting, text, cut, family),
                        "{text:?} from {cut}"
                    );
                    assert_eq!(skim.0.depth, nesting.depth, "{text:?} at {cut}");
                }
            }
        }
    }
}
