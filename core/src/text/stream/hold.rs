//! Holding back prose that may be a call. A JSON call or a call-syntax call in the prose (tiers 2
//! and 3) is not content, so the stream may not show the text from where such a call may begin
//! until it is known not to be one:
//!
//! - a `{` or `[` until its value is read: data (or text that fails to parse without claiming a
//!   call) is shown, and looking for JSON goes on after it, as tier 2 does;
//! - a dotted name until what follows it rules out `name(` and a keyword list (from the `[` before
//!   it, when one stands there: a bare pythonic list begins at its bracket);
//! - a **candidate** (a value of a call shape, a value that claims a call and fails, a recognised
//!   call-syntax call) holds everything after it until the text ends, or until a tagged call
//!   outside reasoning shows that tier 1 gives the calls, so every candidate is prose.
//!
//! So prose that merely contains JSON data or code is held for no longer than its value takes to
//! arrive (a value that waits for text is parsed again after a closing bracket at depth zero,
//! while short, or when the text has doubled: linear in all), and only a message whose calls are
//! written in the prose waits for its end.

use memchr::{memchr, memchr2};

use crate::call::{Format, FormatSet};
use crate::formats::python::{call_start, CallStart};
use crate::lex::{char_before, is_ident_continue_char};
use crate::syntax::json::{probe_value_at, Nesting};
use crate::syntax::shape::{calls_in, claims_call, Mode};
use crate::tools::Tools;

/// How long a waiting value is parsed again after every piece, whatever arrives.
const SHORT: usize = 256;

/// The hold over the prose of one stream.
#[derive(Debug)]
pub(super) struct Hold {
    /// Whether tier 2 (JSON) and tier 3 (call syntax) may still give the message's calls.
    json: bool,
    call: bool,
    /// Where looking for the next `{` or `[`, and the next `(`, goes on.
    json_at: usize,
    call_at: usize,
    /// A JSON value that waits for text.
    wait: Option<Wait>,
    /// The dotted name that ended the prose looked at last (where it starts, where it ends).
    tail: (usize, usize),
    /// Where the first candidate starts: the prose from it is held.
    candidate: Option<usize>,
}

#[derive(Debug)]
struct Wait {
    at: usize,
    /// How far the text has been skimmed, and its length at the last parse.
    skimmed: usize,
    parsed: usize,
    nesting: Nesting,
    /// A bracket closed at depth zero since the last parse.
    closed: bool,
}

impl Hold {
    pub(super) fn new(formats: FormatSet) -> Self {
        Hold {
            json: formats.contains(Format::Json),
            // Tier 3 gives `python` calls and bare `pythonic` lists.
            call: formats.any(&[Format::Python, Format::Pythonic]),
            json_at: 0,
            call_at: 0,
            wait: None,
            tail: (0, 0),
            candidate: None,
        }
    }

    /// Tier 1 gives the message's calls: no prose is a call.
    pub(super) fn release(&mut self) {
        self.json = false;
        self.call = false;
        self.wait = None;
        self.candidate = None;
    }

    /// Whether the hold looks at prose at all.
    pub(super) fn active(&self) -> bool {
        self.json || self.call
    }

    /// The prose resumes at `to`, after a region or reasoning block: a value waiting before it
    /// ended with the piece it stood in.
    pub(super) fn skip_to(&mut self, to: usize) {
        self.json_at = self.json_at.max(to);
        self.call_at = self.call_at.max(to);
        if self.wait.as_ref().is_some_and(|w| w.at < to) {
            self.wait = None;
        }
    }

    /// How far the prose up to `to` may be shown, given that the text before the last answer
    /// was shown. `open`: the prose may go on past `to` (else a region or reasoning block, or the
    /// end of the text, follows). `known`: the tools that decide which candidates are calls.
    pub(super) fn allow(&mut self, text: &str, to: usize, open: bool, known: Option<&Tools>) -> usize {
        if let Some(at) = self.candidate {
            return at.min(to);
        }
        let mut allowed = to;
        if self.json {
            allowed = allowed.min(self.json_to(text, to, open, known));
        }
        if self.call {
            allowed = allowed.min(self.call_to(text, to, open, known));
        }
        match self.candidate {
            Some(at) => at.min(to),
            None => allowed,
        }
    }

    /// Tier 2's scan of the prose up to `to`: where the first value not known to be data starts.
    fn json_to(&mut self, text: &str, to: usize, open: bool, known: Option<&Tools>) -> usize {
        let bytes = &text.as_bytes()[..to];
        if let Some(wait) = self.wait.as_mut() {
            if !wait.ready(bytes, open) {
                return wait.at;
            }
            self.json_at = wait.at;
            self.wait = None;
        }
        let piece = &text[..to];
        if self.json_at >= to {
            return to;
        }
        while let Some(i) = memchr2(b'{', b'[', &bytes[self.json_at..]) {
            let start = self.json_at + i;
            match probe_value_at(piece, start) {
                Ok((value, end)) => {
                    let calls = calls_in(piece, start, value, Mode::Bare);
                    let named = |name: &str| known.is_none_or(|tools| tools.contains(name));
                    let candidate = match calls {
                        Ok(Some(calls)) => calls.iter().any(|c| named(&c.name)),
                        Ok(None) => false,
                        Err(_) => true,
                    };
                    if candidate {
                        return self.hold_from(start);
                    }
                    self.json_at = end;
                }
                Err(offset) if open && offset >= to => {
                    let mut wait = Wait {
                        at: start,
                        skimmed: start,
                        parsed: to,
                        nesting: Nesting::default(),
                        closed: false,
                    };
                    wait.skim(bytes);
                    wait.closed = false;
                    self.wait = Some(wait);
                    return start;
                }
                Err(offset) if claims_call(bytes, start, offset) => return self.hold_from(start),
                Err(offset) => self.json_at = offset.clamp(start + 1, to),
            }
        }
        self.json_at = to;
        to
    }

    /// A candidate starts at `at`: the prose is held from the first candidate (of either tier).
    fn hold_from(&mut self, at: usize) -> usize {
        let first = self.candidate.map_or(at, |c| c.min(at));
        self.candidate = Some(first);
        first
    }

    /// Tier 3's scan of the prose up to `to`: where the first name that may begin a call starts.
    fn call_to(&mut self, text: &str, to: usize, open: bool, known: Option<&Tools>) -> usize {
        let piece = &text[..to];
        let bytes = piece.as_bytes();
        while let Some(i) = memchr(b'(', bytes.get(self.call_at..).unwrap_or_default()) {
            let paren = self.call_at + i;
            match call_start(piece, 0, paren, open) {
                CallStart::Pending => {
                    self.call_at = paren;
                    return list_open(bytes, self.name_start(bytes, paren));
                }
                CallStart::At(name_at) if known.is_none_or(|tools| tools.contains(&piece[name_at..paren])) => {
                    let at = list_open(bytes, name_at);
                    return self.hold_from(at);
                }
                CallStart::At(_) | CallStart::No => self.call_at = paren + 1,
            }
        }
        self.call_at = self.call_at.max(to);
        if open {
            list_open(bytes, self.name_start(bytes, to))
        } else {
            to
        }
    }

    /// Where the dotted name that ends at `end` starts (`end` when none does). The answer is kept,
    /// so that a name that grows piece by piece is stepped over once.
    fn name_start(&mut self, bytes: &[u8], end: usize) -> usize {
        let (from, until) = self.tail;
        let mut at = end;
        while let Some((before, c)) = char_before(bytes, at) {
            if !(c == '.' || is_ident_continue_char(c)) {
                break;
            }
            at = before;
            if at == until {
                at = from;
                break;
            }
        }
        self.tail = (at, end);
        at
    }
}

/// Where a call-syntax name at `at` may begin the prose's call: at the `[` before it (whitespace
/// between), which opens a bare pythonic list (`[get_time(tz='CET')]`) whose span starts there.
fn list_open(bytes: &[u8], at: usize) -> usize {
    let mut p = at;
    while p > 0 && bytes[p - 1].is_ascii_whitespace() {
        p -= 1;
    }
    if p > 0 && bytes[p - 1] == b'[' {
        p - 1
    } else {
        at
    }
}

impl Wait {
    /// Reads the text that came since the last look; whether to parse the value again: a
    /// bracket closed at depth zero, or it is short, or the text has doubled since its last
    /// parse. Parsing only then keeps all attempts linear.
    fn ready(&mut self, bytes: &[u8], open: bool) -> bool {
        self.skim(bytes);
        let len = bytes.len();
        let ready = !open || self.closed || len - self.at <= SHORT || len - self.at >= 2 * (self.parsed - self.at);
        if ready {
            self.closed = false;
            self.parsed = len;
        }
        ready
    }

    fn skim(&mut self, bytes: &[u8]) {
        for &b in &bytes[self.skimmed..] {
            self.closed |= self.nesting.byte(b);
        }
        self.skimmed = bytes.len();
    }
}
