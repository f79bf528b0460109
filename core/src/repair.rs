//! Repair with receipts: a fixed list of model mistakes that a parse mends when the caller asks
//! (`repair` in the options), each reported as a [`Repair`].
//!
//! ## How a repair happens
//!
//! The parse runs strictly. When it fails with an error that is one of the mistakes below, the
//! mistake is mended in a working copy of the text (one edit: a tag inserted, a comma taken out, a
//! literal rewritten) and the text is parsed again; the edit's place and code become a receipt. This
//! repeats until the parse succeeds or fails with an error that is not a mistake on the list, which
//! is then raised with its position in the caller's text. So a valid text parses exactly as in
//! strict mode, with no receipts, and a repair never changes how anything outside the broken call
//! is read. A text that needs `k` repairs is read `k + 1` times; at most [`MAX_REPAIRS`] repairs
//! are made, and a text needing more raises the error it stops at.
//!
//! **Truncation is never repaired**: a call cut off by the end of the text raises as in strict
//! mode ([`ParseError::truncated`]).
//!
//! ## The mistakes
//!
//! | code | mistake | mended as |
//! | --- | --- | --- |
//! | `repair.unclosed_value` | a tagged value's close is missing before the next parameter's opener | the close inserted before that opener |
//! | `repair.trailing_comma` | a `,` before `}` or `]` in JSON | the comma removed |
//! | `repair.python_literal` | `True`/`False`/`None` or a single-quoted string where JSON is expected | `true`/`false`/`null`, a JSON string |
//! | `repair.raw_newline` | a raw control character inside a JSON string, a raw line break inside a one-line call-syntax string | its escape (`\n`, `\t`, `\u0001`) |
//! | `repair.leading_zero` | a number written with leading zeros (`07`) in JSON or call syntax | the zeros removed |
//! | `repair.set_literal` | a Python set (`{'a', 'b'}`) in call syntax or JSON | a list |
//! | `repair.unescaped_quote` | an unescaped quote inside a string, JSON or call syntax | escaped, when exactly one reading closes the value ([`inner_quotes`]) |
//! | `repair.wrapped_arguments` | with tools, the one parameter `arguments` / `input` holding the whole arguments object, the call breaking its schema | that object as the arguments, when it passes |
//! | `repair.double_encoded` | an arguments string of a JSON string of an object, a JSON string of an object where the object belongs; a text value (with tools) or a GLM call JSON-escaped again | decoded once |
//!
//! Positions are byte offsets into the caller's text, as every position in the core.

use std::ops::Range;

use crate::call::ToolCall;
use crate::error::{ErrorCode, ParseError};

/// The most repairs one text gets.
pub const MAX_REPAIRS: usize = 256;

/// A kind of model mistake that a repair mends. Its [`as_str`](RepairCode::as_str) is stable, as
/// error codes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RepairCode {
    UnclosedValue,
    TrailingComma,
    PythonLiteral,
    RawNewline,
    LeadingZero,
    SetLiteral,
    UnescapedQuote,
    WrappedArguments,
    DoubleEncoded,
}

impl RepairCode {
    /// Every repair code, in the order of the module's table.
    pub const ALL: [RepairCode; 9] = [
        RepairCode::UnclosedValue,
        RepairCode::TrailingComma,
        RepairCode::PythonLiteral,
        RepairCode::RawNewline,
        RepairCode::LeadingZero,
        RepairCode::SetLiteral,
        RepairCode::UnescapedQuote,
        RepairCode::WrappedArguments,
        RepairCode::DoubleEncoded,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            RepairCode::UnclosedValue => "repair.unclosed_value",
            RepairCode::TrailingComma => "repair.trailing_comma",
            RepairCode::PythonLiteral => "repair.python_literal",
            RepairCode::RawNewline => "repair.raw_newline",
            RepairCode::LeadingZero => "repair.leading_zero",
            RepairCode::SetLiteral => "repair.set_literal",
            RepairCode::UnescapedQuote => "repair.unescaped_quote",
            RepairCode::WrappedArguments => "repair.wrapped_arguments",
            RepairCode::DoubleEncoded => "repair.double_encoded",
        }
    }
}

impl std::fmt::Display for RepairCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A receipt: what was mended, where (a byte offset into the caller's text: the mistake's place,
/// or for `repair.unclosed_value` the opener of the value that was not closed), and in which call
/// of the answer (`None` when the answer has no call there, as when the parse still failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    pub code: RepairCode,
    pub message: String,
    pub offset: usize,
    pub call_index: Option<usize>,
}

/// How the raising site says to mend its error: replace `range` of the text with `insert`; the
/// receipt stands at `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fix {
    pub code: RepairCode,
    pub at: usize,
    pub range: Range<usize>,
    pub insert: String,
    pub message: String,
}

/// A mend that an error names but that takes more reading than raising it does, so it is worked
/// out only when the caller asks for repairs: a strict parse that reads on past errors (inside
/// reasoning) stays linear. `find` is the raising site's: given the text, `from` and `at`, the
/// edit, if it finds one.
#[derive(Debug, Clone)]
pub(crate) struct Mend {
    pub from: usize,
    pub at: usize,
    pub find: fn(&str, usize, usize) -> Option<Fix>,
}

impl Mend {
    pub(crate) fn shift(&mut self, by: usize) {
        self.from += by;
        self.at += by;
    }
}

/// One edit made to the working text, in the working text's offsets at the time.
#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    removed: usize,
    inserted: usize,
}

/// The edits made to a text, to map offsets of the working text back to the caller's.
#[derive(Debug, Clone, Default)]
pub(crate) struct Edits {
    edits: Vec<Edit>,
}

impl Edits {
    /// The caller's offset of `offset` in the working text: an offset inside inserted text maps to
    /// where the insertion was made, unless the edit replaced text of the same length (a set's
    /// braces by brackets), where each offset keeps its place.
    pub(crate) fn original(&self, mut offset: usize) -> usize {
        for e in self.edits.iter().rev() {
            if offset >= e.start + e.inserted {
                offset = offset - e.inserted + e.removed;
            } else if offset > e.start && e.inserted != e.removed {
                offset = e.start;
            }
        }
        offset
    }

    /// `range` of the working text in the caller's offsets.
    pub(crate) fn original_range(&self, range: &Range<usize>) -> Range<usize> {
        self.original(range.start)..self.original(range.end)
    }
}

/// Runs `parse` on `text`, mending the mistakes its errors name (see the module's rules): the
/// answer read from the mended text, the receipts (with no `call_index` yet) and the edits, or the
/// first error that is not a mistake, at its place in `text`.
pub(crate) fn run<T>(
    text: &str,
    mut parse: impl FnMut(&str) -> Result<T, ParseError>,
) -> Result<(T, Vec<Repair>, Edits), ParseError> {
    let mut work: Option<String> = None;
    let mut edits = Edits::default();
    let mut repairs = Vec::new();
    loop {
        let current = work.as_deref().unwrap_or(text);
        let err = match parse(current) {
            Ok(answer) => return Ok((answer, repairs, edits)),
            Err(err) => err,
        };
        let fix = (repairs.len() < MAX_REPAIRS && !err.truncated(current.len()))
            .then(|| fix_for(current, &err))
            .flatten();
        let Some(fix) = fix else {
            let mut err = err;
            err.offset = edits.original(err.offset);
            err.read_to = None;
            err.fix = None;
            err.mend = None;
            return Err(err);
        };
        repairs.push(Repair {
            code: fix.code,
            message: fix.message,
            offset: edits.original(fix.at),
            call_index: None,
        });
        let mut next = current.to_owned();
        next.replace_range(fix.range.clone(), &fix.insert);
        edits.edits.push(Edit {
            start: fix.range.start,
            removed: fix.range.len(),
            inserted: fix.insert.len(),
        });
        work = Some(next);
    }
}

/// Settles the receipts of a repaired parse in its answer: each call's span back in the caller's
/// offsets, each receipt given to the call whose span holds it (its `call_index`, and the call's
/// `repairs`). Returns every receipt, in text order.
/// Receipts a call already holds (made on the working text while reading it, as
/// `repair.wrapped_arguments` is) join the others, their offsets mapped back.
pub(crate) fn settle(calls: &mut [ToolCall], mut repairs: Vec<Repair>, edits: &Edits) -> Vec<Repair> {
    for call in calls.iter_mut() {
        call.span = edits.original_range(&call.span);
        repairs.extend(call.repairs.drain(..).map(|mut r| {
            r.offset = edits.original(r.offset);
            r
        }));
    }
    repairs.sort_by_key(|r| r.offset);
    for r in &mut repairs {
        r.call_index = calls.iter().position(|c| c.span.contains(&r.offset));
        if let Some(i) = r.call_index {
            calls[i].repairs.push(r.clone());
        }
    }
    repairs
}

/// The mend for `err` raised on `text`: the raising site's own, or one read from the text at the
/// error for the JSON grammar's errors.
fn fix_for(text: &str, err: &ParseError) -> Option<Fix> {
    if let Some(fix) = &err.fix {
        return Some((**fix).clone());
    }
    if let Some(fix) = err.mend.as_ref().and_then(|mend| (mend.find)(text, mend.from, mend.at)) {
        return Some(fix);
    }
    let at = err.offset;
    let rest = text.get(at..)?;
    match err.code {
        ErrorCode::JsonUnexpectedToken => trailing_comma(text, at).or_else(|| python_literal(rest, at)),
        ErrorCode::JsonInvalidString => raw_control(rest, at),
        ErrorCode::JsonInvalidNumber => leading_zero(text, at),
        _ => None,
    }
}

/// A `,` (then whitespace) before the `}` or `]` at `at`.
fn trailing_comma(text: &str, at: usize) -> Option<Fix> {
    if !matches!(text.as_bytes().get(at), Some(b'}' | b']')) {
        return None;
    }
    let before = text[..at].trim_end_matches([' ', '\t', '\n', '\r']);
    before.ends_with(',').then(|| Fix {
        code: RepairCode::TrailingComma,
        at: before.len() - 1,
        range: before.len() - 1..before.len(),
        insert: String::new(),
        message: "a trailing comma before the close was removed".to_owned(),
    })
}

/// `True`, `False`, `None` or a single-quoted Python string at `at`, where a JSON value stands.
fn python_literal(rest: &str, at: usize) -> Option<Fix> {
    let word_end = rest
        .bytes()
        .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .unwrap_or(rest.len());
    let literal = |json: &str, python: &str| Fix {
        code: RepairCode::PythonLiteral,
        at,
        range: at..at + python.len(),
        insert: json.to_owned(),
        message: format!("the Python literal `{python}` was read as JSON `{json}`"),
    };
    match &rest[..word_end] {
        "True" => return Some(literal("true", "True")),
        "False" => return Some(literal("false", "False")),
        "None" => return Some(literal("null", "None")),
        _ => {}
    }
    let (value, len) = python_string(rest)?;
    Some(Fix {
        code: RepairCode::PythonLiteral,
        at,
        range: at..at + len,
        insert: crate::lex::quote(&value),
        message: "a single-quoted Python string was read as a JSON string".to_owned(),
    })
}

/// The single-quoted Python string literal at the start of `s` (escapes `\\`, `\'`, `\"`, `\n`,
/// `\t`, `\r`, `\0` only) and its length, or `None` when there is none or it holds a raw line
/// break or another escape.
pub(crate) fn python_string(s: &str) -> Option<(String, usize)> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' => return Some((out, i + 1)),
            '\n' | '\r' => return None,
            '\\' => out.push(match chars.next()?.1 {
                '\\' => '\\',
                '\'' => '\'',
                '"' => '"',
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                _ => return None,
            }),
            c => out.push(c),
        }
    }
    None
}

/// A raw control character at `at` inside a JSON string: its escape.
fn raw_control(rest: &str, at: usize) -> Option<Fix> {
    let b = *rest.as_bytes().first()?;
    (b < 0x20).then(|| escape_control(at, b))
}

/// The control character `b` at `at` inside a quoted string (JSON's or call syntax's) written as
/// its escape.
pub(crate) fn escape_control(at: usize, b: u8) -> Fix {
    let insert = match b {
        b'\n' => "\\n".to_owned(),
        b'\r' => "\\r".to_owned(),
        b'\t' => "\\t".to_owned(),
        _ => format!("\\u{b:04x}"),
    };
    Fix {
        code: RepairCode::RawNewline,
        at,
        range: at..at + 1,
        message: format!("a raw control character (U+{b:04X}) in a string was escaped as `{insert}`"),
        insert,
    }
}

/// The most closing quotes [`inner_quotes`] tries; a line with more is left as it is.
pub(crate) const MAX_READINGS: usize = 16;

/// The mend for a string whose closing quote (`quote`, at `first`) is followed (after spaces) by
/// text that cannot follow a string and is no delimiter of the grammar (not `,` `:` `)` `]` `}`):
/// the quote was meant inside it, unescaped. Each later `quote` on the
/// same line is a reading of where the string ends (the quotes between then inner, escaped); a
/// reading *closes* when `closes` accepts the text from `from` (the start of the value or argument
/// list being read) with those quotes escaped. Exactly one reading must close: none, or two, and
/// the string is not mended. At most [`MAX_READINGS`] quotes are tried.
pub(crate) fn inner_quotes(src: &str, from: usize, first: usize, quote: u8, closes: fn(&str) -> bool) -> Option<Fix> {
    let bytes = src.as_bytes();
    if bytes.get(first) != Some(&quote) || from > first {
        return None;
    }
    let next = crate::lex::skip_ws(bytes, first + 1);
    if bytes.get(next).is_none_or(|b| b",:)]}".contains(b)) {
        return None;
    }
    let escaped = |at: usize| bytes[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1;
    let mut candidates = Vec::new();
    for (i, &b) in bytes.iter().enumerate().skip(first + 1) {
        if b == b'\n' || b == b'\r' {
            break;
        }
        if b == quote && !escaped(i) {
            if candidates.len() == MAX_READINGS {
                return None;
            }
            candidates.push(i);
        }
    }
    let escape = |to: usize| {
        let mut out = String::with_capacity(to - first + 8);
        for (i, c) in src[first..to].char_indices() {
            if c as u32 == u32::from(quote) && !escaped(first + i) {
                out.push('\\');
            }
            out.push(c);
        }
        out
    };
    let mut found = None;
    for &close in &candidates {
        let mut trial = String::with_capacity(src.len() - from + 8);
        trial.push_str(&src[from..first]);
        trial.push_str(&escape(close));
        trial.push_str(&src[close..]);
        if closes(&trial) {
            if found.is_some() {
                return None;
            }
            found = Some(close);
        }
    }
    let close = found?;
    Some(Fix {
        code: RepairCode::UnescapedQuote,
        at: first,
        range: first..close,
        insert: escape(close),
        message: format!(
            "a `{}` inside a string was read as part of it and escaped",
            quote as char
        ),
    })
}

/// The integer `digits` at `at` in call syntax, whose first `zeros` digits are leading zeros:
/// they go.
pub(crate) fn drop_zeros(at: usize, zeros: usize, digits: &str) -> Fix {
    Fix {
        code: RepairCode::LeadingZero,
        at,
        range: at..at + zeros,
        insert: String::new(),
        message: format!("the leading zeros of `{digits}` were removed"),
    }
}

/// The digit at `at` after a number's leading `0`: the zeros before the first other digit go.
fn leading_zero(text: &str, at: usize) -> Option<Fix> {
    let bytes = text.as_bytes();
    if at == 0 || bytes.get(at - 1) != Some(&b'0') || !bytes.get(at).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let mut start = at - 1;
    while start > 0 && bytes[start - 1] == b'0' {
        start -= 1;
    }
    if start > 0 && bytes[start - 1].is_ascii_digit() {
        return None;
    }
    let mut end = at;
    while end + 1 < bytes.len() && bytes[end] == b'0' && bytes[end + 1].is_ascii_digit() {
        end += 1;
    }
    Some(Fix {
        code: RepairCode::LeadingZero,
        at: start,
        range: start..end,
        insert: String::new(),
        message: format!("the leading zeros of `{}` were removed", &text[start..=end]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_back_through_edits() {
        let mut edits = Edits::default();
        // "ab,}" -> "ab}" (the comma at 2 removed), then "xab}" (x inserted at 0).
        edits.edits.push(Edit {
            start: 2,
            removed: 1,
            inserted: 0,
        });
        edits.edits.push(Edit {
            start: 0,
            removed: 0,
            inserted: 1,
        });
        assert_eq!(edits.original(0), 0);
        assert_eq!(edits.original(1), 0);
        assert_eq!(edits.original(3), 3);
        assert_eq!(edits.original(4), 4);
        // "{'a'}" -> "['a']": offsets inside a same-length replacement keep their place.
        let mut edits = Edits::default();
        edits.edits.push(Edit {
            start: 0,
            removed: 5,
            inserted: 5,
        });
        assert_eq!(edits.original(1), 1);
        assert_eq!(edits.original(5), 5);
    }

    #[test]
    fn python_strings_decode_their_escapes() {
        assert_eq!(
            python_string(r#"'it\'s \"x\"' rest"#),
            Some(("it's \"x\"".to_owned(), 13))
        );
        assert_eq!(python_string("'open"), None);
        assert_eq!(python_string("'a\nb'"), None);
    }
}
