//! Tagged values: a parameter's text written between an opening and a closing tag, the way the
//! XML-like families write their arguments — one tag per parameter with a text value
//! (`qwen3_coder`'s `<parameter=K>`, `xml_invoke`'s `<parameter name="K">` and its DSML and
//! `steptml` dialects, `glm45`'s and `longcat`'s `<arg_value>`, `minicpm`'s `<param name="K">`).
//! Every one of them reads its values with [`read`]; this is the one place where a value's end is
//! decided (a MiniCPM value in CDATA is the exception: its section is opaque, and `minicpm` reads
//! it to its `]]>` with the same rule for the tags after it). [`parameters`] is the loop over one
//! call's parameter tags that `qwen3_coder`, `xml_invoke` (with its dialects) and `minicpm` share.
//!
//! ## A value whose close is missing
//!
//! A value is raw text, so nothing in it is markup, except where the template would have written
//! the next parameter: a **sibling opener** (the opener of the next parameter, of the same grammar:
//! `<parameter=`, `<parameter `, or a pair's `<arg_key>K</arg_key><arg_value>`) at the position
//! the template writes it. For the
//! families whose template puts each parameter on its own line (Qwen3-Coder, MiniMax and
//! Claude-style XML, DSML) that position is the start of a line inside the value; for those that
//! write the tags back to back (GLM 4.7/5, whose grammar GLM 4.5/4.6 and LongCat share,
//! Step-3's `steptml`, MiniCPM 5) it is anywhere in the value ([`Place`]). A sibling opener there means one
//! of two things:
//!
//! - the value holds template text (an example, a code block, a CDATA section) that closes itself:
//!   the opener is matched by a close of the value's own kind, and the value's own close comes
//!   after that;
//! - or the value was not closed, and the model went on to the next parameter.
//!
//! So the value is read as nested markup, in one pass: a sibling opener opens a level, a close
//! shuts the innermost level or, at level zero, ends the value. An opener of the call element
//! around the values (`<function=`, `<invoke `, `<tool_call>`, at the same kind of position)
//! opens a level of its own, shut by the call's close, so a value may hold a whole call as an
//! example. The value was **not closed** when, after a sibling opener, the text ends or the call's
//! close comes at level zero (a close of the call that no opener inside the value matches): the
//! call is `tool_call.unclosed` at the opener of that value — never a value that swallowed the next
//! parameter's text, and never the next parameter lost. [`ValueEnd::Unclosed`] also gives where
//! the first sibling opener stands, which is where the value should have been closed. Without a
//! sibling opener, the call's close is text and a value that never closes is cut off by the end
//! of the text (`tool_call.unclosed` at the end).
//!
//! ## Performance
//!
//! [`value_end`] jumps between `<` and `&` with `memchr2` and compares the tags at each `<`: each
//! byte of the value is looked at a bounded number of times. A value that is closed is never read
//! again (its parser goes on after the close), and a value that is not closed ends the parse, so
//! a call is read in one pass however many openers it holds. The error of a value that was not
//! closed stands at its opener, before the text read: it says how far the reading went
//! ([`ParseError::read_to`]), so that the scanner, which reads on after a call that fails inside
//! reasoning, goes on from there and reads no text twice.

use std::borrow::Cow;

use crate::call::{Deferred, Grammar, Param};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, has_whitespace, skip_ws};
use crate::repair::{Fix, RepairCode};
use crate::syntax::shape::{Defer, TextValue};
use crate::value::{Keys, Object};

/// An opening tag as it is recognised inside a value: `tag` (its `<` and element name) followed by
/// one of the bytes `after` (`=` for `<parameter=`, whitespace for `<parameter name=…>`, `>` for
/// `<arg_key>`) and, for a key/value pair, `pair`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opener<'a> {
    pub tag: &'a str,
    pub after: &'a [u8],
    /// For the key tag of a pair (`<arg_key>K</arg_key><arg_value>`): the key's close, which must
    /// be the next tag after the opener, and the value's opener, which must follow it after
    /// whitespace. A lone `<arg_key>` in a value's text is then text, not the next pair.
    pub pair: Option<(&'a str, &'a str)>,
}

impl Opener<'_> {
    /// Whether this opener starts at `tail[0]`. A pair's check reads on to the next `<` (and
    /// whitespace after the key's close): text that the scan of the value meets next anyway, so
    /// each byte is looked at a bounded number of times.
    #[inline]
    fn starts(&self, tail: &[u8]) -> bool {
        let at_tag =
            tail.starts_with(self.tag.as_bytes()) && tail.get(self.tag.len()).is_some_and(|b| self.after.contains(b));
        let Some((key_close, value)) = self.pair.filter(|_| at_tag) else {
            return at_tag;
        };
        let key = self.tag.len() + 1;
        let Some(n) = memchr::memchr(b'<', &tail[key..]) else {
            return false;
        };
        let close = key + n;
        tail[close..].starts_with(key_close.as_bytes())
            && crate::lex::at(tail, crate::lex::skip_ws(tail, close + key_close.len()), value)
    }
}

/// Where a family's template writes the tags after a value, and so where an opener inside a
/// value counts (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// At the start of a line: right after a `\n` inside the value.
    LineStart,
    /// Anywhere: the template writes the tags back to back.
    Anywhere,
}

/// The tags a tagged value may meet.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueTags<'a> {
    /// The value's own opening tag as a message shows it (`<parameter=…>`, `<arg_value>`).
    pub open: &'a str,
    /// The value's own close (`</parameter>`).
    pub close: &'a str,
    /// The opener of the next parameter (`<parameter=`, `<arg_key>`).
    pub sibling: Opener<'a>,
    /// The opener of the call element around the values (`<function=`, `<invoke `).
    pub call: Opener<'a>,
    /// The close of that element (`</function>`, `</invoke>`).
    pub call_close: &'a str,
    /// Where the template writes the sibling opener and the call's close.
    pub place: Place,
}

impl ValueTags<'_> {
    /// Whether a sibling opener starts at `bytes[pos]` (wherever it stands).
    pub(crate) fn sibling_at(&self, bytes: &[u8], pos: usize) -> bool {
        bytes.get(pos..).is_some_and(|tail| self.sibling.starts(tail))
    }
}

/// Where a tagged value that starts at `rest[0]` ends.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ValueEnd {
    /// At its close, `rest[at]`; `amp` when an `&` comes before it.
    Closed { at: usize, amp: bool },
    /// Never. `sibling` is where the first sibling opener stands in `rest`, if one did: then the
    /// value was not closed before it (the text ended, or the call's close came, with the value
    /// still open); without one, the text ended inside the value. `stop` is where reading
    /// stopped: the call's close, or the end.
    Unclosed { sibling: Option<usize>, stop: usize },
}

/// Reads a tagged value to its close, in one pass (the rule is the module's doc).
pub(crate) fn value_end(rest: &[u8], tags: &ValueTags<'_>) -> ValueEnd {
    // `depth`: sibling openers not yet matched by a close; `calls`: call openers not yet matched
    // by the call's close.
    let (mut depth, mut calls, mut sibling, mut amp, mut from) = (0usize, 0usize, None, false, 0);
    let placed = |at: usize| match tags.place {
        Place::Anywhere => true,
        Place::LineStart => at > 0 && rest[at - 1] == b'\n',
    };
    while let Some(i) = memchr::memchr2(b'<', b'&', &rest[from..]) {
        let at = from + i;
        from = at + 1;
        if rest[at] == b'&' {
            amp = true;
            continue;
        }
        let tail = &rest[at..];
        if tail.starts_with(tags.close.as_bytes()) {
            if depth == 0 {
                return ValueEnd::Closed { at, amp };
            }
            depth -= 1;
        } else if !placed(at) {
            // Text: the template writes no tag here.
        } else if tags.sibling.starts(tail) {
            depth += 1;
            sibling.get_or_insert(at);
        } else if tags.call.starts(tail) {
            calls += 1;
        } else if tail.starts_with(tags.call_close.as_bytes()) {
            if calls > 0 {
                calls -= 1;
            } else if sibling.is_some() {
                return ValueEnd::Unclosed { sibling, stop: at };
            }
        }
    }
    ValueEnd::Unclosed {
        sibling,
        stop: rest.len(),
    }
}

/// A value that was closed: its length from where it starts, and whether it holds an `&`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed {
    pub len: usize,
    pub amp: bool,
}

/// Reads the value that starts at `value_at`, whose opening tag starts at `opener`, to its close.
/// A value that was not closed before a sibling opener is `tool_call.unclosed` at `opener` (read
/// up to where the reading stopped); the text ending inside a value is `tool_call.unclosed` at
/// the end.
pub(crate) fn read(text: &str, opener: usize, value_at: usize, tags: &ValueTags<'_>) -> Result<Closed, ParseError> {
    match value_end(&text.as_bytes()[value_at..], tags) {
        ValueEnd::Closed { at, amp } => Ok(Closed { len: at, amp }),
        ValueEnd::Unclosed {
            sibling: Some(sibling),
            stop,
        } => Err(not_closed(text, opener, value_at + sibling, tags).read_to(value_at + stop)),
        ValueEnd::Unclosed { sibling: None, .. } => Err(ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            format!("the text ends inside `{}`: expected `{}`", tags.open, tags.close),
        )),
    }
}

/// The error for the value whose opening tag is at `opener` and that the sibling opener at
/// `sibling` shows was not closed. Its repair inserts the value's close before that opener, or
/// before the line break that puts the opener on its own line (which the template writes after a
/// close).
pub(crate) fn not_closed(text: &str, opener: usize, sibling: usize, tags: &ValueTags<'_>) -> ParseError {
    let before = &text.as_bytes()[..sibling];
    let close_at = if before.ends_with(b"\r\n") {
        sibling - 2
    } else if before.ends_with(b"\n") {
        sibling - 1
    } else {
        sibling
    }
    .max(opener);
    ParseError::new(
        ErrorCode::Unclosed,
        opener,
        format!(
            "this `{}` is never closed: the next `{}` begins inside its value, before its `{}`",
            tags.open, tags.sibling.tag, tags.close
        ),
    )
    .fix(Fix {
        code: RepairCode::UnclosedValue,
        at: opener,
        range: close_at..close_at,
        insert: tags.close.to_owned(),
        message: format!("`{}` was inserted before the next `{}`", tags.close, tags.sibling.tag),
    })
}

/// The arguments of a call whose values are tagged text, in the order written, with where each
/// value is written (the call's [`crate::call::Args::Params`]).
pub(crate) struct Params<'t> {
    entries: Entries<'t>,
    written: Vec<Param>,
    keys: Keys,
}

/// The arguments read so far: built in the core, or kept as read for a host's builder.
enum Entries<'t> {
    Tree(Object),
    Host(Vec<(Cow<'t, str>, TextValue<'t>)>),
}

impl<'t> Params<'t> {
    /// Whether the parameter `key` was given already (asked before it is pushed). This and
    /// [`Params::push`] are inlined into every family's parameter loop: called, with `#[inline]`
    /// left to the compiler, they cost about 25 instructions a parameter more (typical
    /// `xml_invoke` 24.63k → 24.48k instructions a parse, `glm45` 24.20k → 24.05k).
    #[allow(clippy::inline_always, reason = "measured: `#[inline]` left it out of line")]
    #[inline(always)]
    pub(crate) fn repeated(&mut self, key: &str) -> bool {
        match &self.entries {
            Entries::Tree(arguments) => self.keys.repeated(arguments, key),
            Entries::Host(entries) => self.keys.repeated(entries, key),
        }
    }

    /// Checks the parameter name `key` (written at `key_at`, in the tag at `opener`) before it is
    /// pushed: non-empty, without white space (`tool_call.syntax`), and not given before
    /// (`tool_call.duplicate_argument`, at the tag).
    pub(crate) fn check_key(&mut self, key: &str, key_at: usize, opener: usize) -> Result<(), ParseError> {
        if key.is_empty() || has_whitespace(key) {
            return Err(ParseError::new(
                ErrorCode::Syntax,
                key_at,
                "a parameter name must be non-empty, without whitespace",
            ));
        }
        if self.repeated(key) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                opener,
                format!("the parameter `{key}` is given twice"),
            ));
        }
        Ok(())
    }

    #[allow(clippy::inline_always, reason = "measured: `#[inline]` left it out of line")]
    #[inline(always)]
    pub(crate) fn push(&mut self, key: impl Into<Cow<'t, str>>, value: TextValue<'t>, written: Param) {
        let key = key.into();
        match &mut self.entries {
            Entries::Tree(arguments) => arguments.push((key.into_owned(), value.into_value())),
            Entries::Host(entries) => entries.push((key, value)),
        }
        self.written.push(written);
    }

    /// The arguments, where their values are written, and where the host's builder put them
    /// when they were kept for it (the arguments are then empty, and stay empty when the host
    /// failed: its error is the answer).
    fn finish(self, at: usize, defer: Defer<'_>) -> (Object, Option<Deferred>, Vec<Param>) {
        let entries = match self.entries {
            Entries::Tree(arguments) => return (arguments, None, self.written),
            Entries::Host(entries) => entries,
        };
        let Defer::Build(build) = defer else {
            let arguments = entries
                .into_iter()
                .map(|(k, v)| (k.into_owned(), v.into_value()))
                .collect();
            return (arguments, None, self.written);
        };
        let deferred = build
            .params(entries)
            .and_then(|handle| build.deferred(handle, at, Grammar::Params));
        (Object::new(), deferred, self.written)
    }
}

/// `raw` less one line break (`\n` or `\r\n`) at its start and one at its end: the template's,
/// around a value it writes on lines of its own.
pub(crate) fn trim_line_breaks(raw: &str) -> &str {
    trim_line_breaks_at(raw, true, true)
}

/// `raw` less one line break (`\n` or `\r\n`) at its start when `start`, and one at its end
/// when `end`.
pub(crate) fn trim_line_breaks_at(raw: &str, start: bool, end: bool) -> &str {
    let raw = if start {
        raw.strip_prefix("\r\n")
            .or_else(|| raw.strip_prefix('\n'))
            .unwrap_or(raw)
    } else {
        raw
    };
    if end {
        raw.strip_suffix("\r\n")
            .or_else(|| raw.strip_suffix('\n'))
            .unwrap_or(raw)
    } else {
        raw
    }
}

/// What [`parameters`] read: the arguments (empty when the host's builder took them), where the
/// builder put them, where each value is written, and the offset after the call's closing tag.
pub(crate) type Parameters = (Object, Option<Deferred>, Vec<Param>, usize);

/// A call's parameters from `p` up to its closing tag `close`: after whitespace, either `close`,
/// which ends them, or one parameter, which `one` reads from where it starts into the
/// [`Params`] and returns the offset after it. Returns the arguments (built as `defer` says:
/// into the host's builder when there is one, and where they went), where their values are
/// written, and the offset after `close`.
pub(crate) fn parameters<'t>(
    text: &'t str,
    mut p: usize,
    close: &str,
    defer: Defer<'_>,
    mut one: impl FnMut(usize, &mut Params<'t>) -> Result<usize, ParseError>,
) -> Result<Parameters, ParseError> {
    let bytes = text.as_bytes();
    let at_first = p;
    let entries = match defer {
        Defer::Build(build) if build.keeps() => Entries::Host(Vec::with_capacity(8)),
        _ => Entries::Tree(Object::with_capacity(8)),
    };
    let mut params = Params {
        entries,
        written: Vec::with_capacity(8),
        keys: Keys::default(),
    };
    loop {
        p = skip_ws(bytes, p);
        if at(bytes, p, close) {
            let (arguments, deferred, written) = params.finish(at_first, defer);
            return Ok((arguments, deferred, written, p + close.len()));
        }
        p = one(p, &mut params)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The families' own tags: Qwen3-Coder's at a line's start, GLM's anywhere.
    const QWEN: ValueTags<'static> = super::super::qwen3_coder::VALUE_TAGS;

    fn end(value: &str, tags: &ValueTags<'_>) -> ValueEnd {
        value_end(value.as_bytes(), tags)
    }

    /// The end of a value that `tags.close`, at the end of `value`, closes.
    fn closed_by_its_last_tag(value: &str, tags: &ValueTags<'_>) -> ValueEnd {
        assert!(value.ends_with(tags.close));
        ValueEnd::Closed {
            at: value.len() - tags.close.len(),
            amp: false,
        }
    }

    #[test]
    fn a_value_ends_at_its_close() {
        let v = "\nDallas\n</parameter>\n";
        assert_eq!(end(v, &QWEN), ValueEnd::Closed { at: 8, amp: false });
        let v = "a &amp; b</parameter>";
        assert_eq!(end(v, &QWEN), ValueEnd::Closed { at: 9, amp: true });
    }

    #[test]
    fn a_sibling_before_the_close_of_the_call_means_the_value_was_not_closed() {
        // Reading stops at the call's close, or at the end.
        let v = "\nDallas\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>";
        let stop = v.find("</function>").unwrap_or_default();
        assert_eq!(end(v, &QWEN), ValueEnd::Unclosed { sibling: Some(8), stop });
        let v = "\nDallas\n<parameter=state>\nTX\n";
        assert_eq!(
            end(v, &QWEN),
            ValueEnd::Unclosed {
                sibling: Some(8),
                stop: v.len()
            }
        );
    }

    #[test]
    fn template_text_that_closes_itself_stays_in_the_value() {
        let v = "\n<parameter=x>\n1\n</parameter>\n</parameter>";
        assert_eq!(end(v, &QWEN), closed_by_its_last_tag(v, &QWEN));
        let v = "\n<function=g>\n<parameter=x>\n1\n</parameter>\n</function>\n</parameter>";
        assert_eq!(end(v, &QWEN), closed_by_its_last_tag(v, &QWEN));
    }

    #[test]
    fn tags_count_only_where_the_template_writes_them() {
        // Mid-line: text. The first close ends the value.
        let v = "see <parameter=x> here</parameter>";
        assert_eq!(end(v, &QWEN), ValueEnd::Closed { at: 22, amp: false });
        // Without a sibling, the call's close is text.
        let v = "\n</function>\nmore\n</parameter>";
        assert_eq!(end(v, &QWEN), closed_by_its_last_tag(v, &QWEN));
        let v = "\nx\n</function>\n";
        assert_eq!(
            end(v, &QWEN),
            ValueEnd::Unclosed {
                sibling: None,
                stop: v.len()
            }
        );
        // Back to back: anywhere.
        let glm = super::super::glm::TAGS.value_tags();
        let v = "Dallas<arg_key>state</arg_key><arg_value>TX</arg_value></tool_call>";
        let stop = v.len() - "</tool_call>".len();
        assert_eq!(end(v, &glm), ValueEnd::Unclosed { sibling: Some(6), stop });
        let v = "Dallas<arg_key>state</arg_key>\n<arg_value>TX</arg_value></tool_call>";
        let stop = v.len() - "</tool_call>".len();
        assert_eq!(end(v, &glm), ValueEnd::Unclosed { sibling: Some(6), stop });
        // A key tag that is not followed by its close and a value tag is text.
        let v = "use <arg_key> or <arg_key>k</arg_key> alone</arg_value>";
        assert_eq!(end(v, &glm), closed_by_its_last_tag(v, &glm));
    }

    #[test]
    fn many_openers_are_read_in_one_pass() {
        // 100 000 openers, unmatched or matched: the answer, from one pass (a rescan from each
        // opener would make these 10^10 steps).
        let v = "x\n".to_string() + &"<parameter=a>\n".repeat(100_000);
        assert_eq!(
            end(&v, &QWEN),
            ValueEnd::Unclosed {
                sibling: Some(2),
                stop: v.len()
            }
        );
        let v = "x\n".to_string() + &"<parameter=a>\n</parameter>\n".repeat(100_000) + "</parameter>";
        assert_eq!(end(&v, &QWEN), closed_by_its_last_tag(&v, &QWEN));
    }
}
