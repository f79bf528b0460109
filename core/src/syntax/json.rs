//! Strict JSON (RFC 8259) over the caller's text.
//!
//! Rules beyond the RFC's grammar: a key repeated in one object is an error, nesting deeper than
//! [`MAX_DEPTH`] is an error, a lone surrogate escape is an error, and a number too large for an
//! `f64` is an error. Every error carries the byte offset of the offending character in the text
//! being parsed, so parsing starts at an offset into the caller's input rather than at a slice.
//!
//! Errors are data ([`JsonError`]): a message is written only for an error that is reported, so
//! probing text that may not be JSON costs no formatting.
//!
//! Performance notes: one forward pass, no backtracking; strings are copied in runs between
//! escapes; keys are checked for duplicates by linear search in small objects and by a hash set
//! once an object grows past [`SMALL_OBJECT`] keys, so a huge object stays linear.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::ops::Range;

use crate::error::{ErrorCode, ParseError};
use crate::lex::{is_ws, quote, show_char, skip_ws, trim};
use crate::syntax::path::Step;
use crate::value::{same_key, Keys, Number, Object, Value, MAX_DEPTH};

mod in_string;

pub(crate) use in_string::build_object_in_string;

const SMALL_OBJECT: usize = 16;

/// A JSON error as data: the message is written only when the error becomes a [`ParseError`]
/// (or is shown), so a probe that only asks where parsing failed formats nothing.
#[derive(Debug)]
struct JsonError {
    code: ErrorCode,
    offset: usize,
    detail: Detail,
}

impl JsonError {
    fn new(code: ErrorCode, offset: usize, detail: Detail) -> Self {
        JsonError { code, offset, detail }
    }
}

/// What a [`JsonError`] says.
#[derive(Debug)]
enum Detail {
    /// The text ends inside this (`a string`, `an object`, …).
    EndInside(&'static str),
    Expected {
        expected: &'static str,
        found: char,
    },
    Text(&'static str),
    ControlCharacter(u8),
    Escape(u8),
    TooDeep,
    DuplicateKey(String),
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Detail::EndInside(what) => write!(f, "the text ends inside {what}"),
            Detail::Expected { expected, found } => write!(f, "expected {expected}, found {}", show_char(*found)),
            Detail::Text(text) => f.write_str(text),
            Detail::ControlCharacter(b) => write!(f, "a raw control character (U+{b:04X}) in a string must be escaped"),
            Detail::Escape(b) => write!(f, "`\\{}` is not a JSON escape", show_byte(*b)),
            Detail::TooDeep => write!(f, "arrays and objects are nested deeper than {MAX_DEPTH} levels"),
            Detail::DuplicateKey(key) => write!(f, "the key {} appears twice in one object", quote(key)),
        }
    }
}

impl From<JsonError> for ParseError {
    fn from(err: JsonError) -> Self {
        ParseError::new(err.code, err.offset, err.detail.to_string())
    }
}

/// Parses one JSON value starting at byte `start` of `src` (leading whitespace is skipped).
/// Returns the value and the offset just past it.
pub(crate) fn parse_value_at(src: &str, start: usize) -> Result<(Value, usize), ParseError> {
    Parser::new(src, start)
        .value_at()
        .map_err(|e| inner_quote(src, start, e.into()))
}

/// `err`, raised reading the value at `start`, with the mends its place may call for, worked out
/// only when repairing ([`crate::repair::Mend`], [`mend`]).
fn inner_quote(src: &str, start: usize, err: ParseError) -> ParseError {
    if err.code != ErrorCode::JsonUnexpectedToken || err.fix.is_some() || err.offset >= src.len() {
        return err;
    }
    let from = skip_ws(src.as_bytes(), start);
    let at = err.offset;
    err.mend(crate::repair::Mend { from, at, find: mend })
}

/// The mend for the unexpected token at `at` in the JSON value at `from`:
///
/// - `repair.unescaped_quote` when it stands right after a string's closing quote and exactly
///   one later `"` on that line, read as the string's end, lets the value close
///   ([`crate::repair::inner_quotes`]);
/// - `repair.set_literal` when it stands at an object's first item, or after its first key
///   (a `,` or `}` where the `:` belongs), and the braces hold a Python set: one or more JSON
///   values or single-quoted Python strings separated by commas, then `}` ([`set_at`]).
fn mend(text: &str, from: usize, at: usize) -> Option<crate::repair::Fix> {
    let bytes = text.as_bytes();
    let before = |mut p: usize| {
        while p > from && is_ws(bytes[p - 1]) {
            p -= 1;
        }
        p
    };
    let c = before(at);
    if c > from + 1 && bytes[c - 1] == b'"' {
        if let Some(fix) = crate::repair::inner_quotes(text, from, c - 1, b'"', value_closes) {
            return Some(fix);
        }
    }
    if c > from && bytes[c - 1] == b'{' && bytes.get(at) != Some(&b'}') {
        return set_at(text, c - 1);
    }
    if c > from + 1 && bytes[c - 1] == b'"' && matches!(bytes.get(at), Some(b',' | b'}')) {
        // The key's opening quote: the last unescaped `"` before its closing one.
        let mut o = c - 2;
        loop {
            let quote = bytes[o] == b'"' && bytes[..o].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0;
            if quote || o == from {
                break;
            }
            o -= 1;
        }
        let open = before(o);
        if bytes[o] == b'"' && open > from && bytes[open - 1] == b'{' {
            return set_at(text, open - 1);
        }
    }
    None
}

/// The repair `repair.set_literal` of the braces at `open`, when they hold a Python set (see
/// [`mend`]): they become a list's brackets.
fn set_at(text: &str, open: usize) -> Option<crate::repair::Fix> {
    let bytes = text.as_bytes();
    let mut p = skip_ws(bytes, open + 1);
    let close = loop {
        p = match bytes.get(p) {
            Some(b'\'') => p + crate::repair::python_string(&text[p..])?.1,
            _ => check_nested_at(text, p, 1)?,
        };
        p = skip_ws(bytes, p);
        match bytes.get(p) {
            Some(b'}') => break p,
            Some(b',') => {
                p = skip_ws(bytes, p + 1);
                if bytes.get(p) == Some(&b'}') {
                    break p;
                }
            }
            _ => return None,
        }
    };
    Some(crate::repair::Fix {
        code: crate::repair::RepairCode::SetLiteral,
        at: open,
        range: open..close + 1,
        insert: format!("[{}]", &text[open + 1..close]),
        message: "a Python set was read as a list".to_owned(),
    })
}

/// Whether `text` starts with a JSON value (a reading that closes, for
/// [`crate::repair::inner_quotes`]).
pub(crate) fn value_closes(text: &str) -> bool {
    check_nested_at(text, 0, 0).is_some()
}

/// Like [`parse_value_at`]; when the value is an array, also returns the byte range of each of
/// its elements (recorded while parsing, so a caller that needs them does not scan again).
pub(crate) fn parse_value_items_at(src: &str, start: usize) -> Result<(Value, usize, Vec<Range<usize>>), ParseError> {
    let mut parser = Parser::new(src, start);
    parser.items = Some(Vec::new());
    parser.pos = skip_ws(parser.bytes, parser.pos);
    let value = parser.value().map_err(|e| inner_quote(src, start, e.into()))?;
    Ok((value, parser.pos, parser.items.unwrap_or_default()))
}

/// [`parse_value_items_at`] for a list whose objects may stand without a comma between them:
/// in the top-level array, an object followed by whitespace and another object (`{…} {…}`)
/// reads as if a comma stood between them. Everything else is strict JSON (Command R7B's action
/// list, [`crate::formats::json_tags`]).
pub(crate) fn parse_spaced_items_at(src: &str, start: usize) -> Result<(Value, usize, Vec<Range<usize>>), ParseError> {
    let mut parser = Parser::new(src, start);
    parser.items = Some(Vec::new());
    parser.spaced = true;
    parser.pos = skip_ws(parser.bytes, parser.pos);
    let value = parser.value()?;
    Ok((value, parser.pos, parser.items.unwrap_or_default()))
}

/// The JSON value at `start` (no whitespace skipped), read as if nested `depth` containers deep
/// (the nesting limit counts them), for a caller that reads the containers around it itself and
/// reads the whole text again with [`parse_value_at`] when this fails: `None` on any error.
pub(crate) fn value_nested_at(src: &str, start: usize, depth: usize) -> Option<(Value, usize)> {
    let mut parser = Parser::new(src, start);
    parser.depth = depth;
    let value = parser.value().ok()?;
    Some((value, parser.pos))
}

/// [`value_nested_at`] that checks the value without building it: the offset after it, or
/// `None` on any error.
pub(crate) fn check_nested_at(src: &str, start: usize, depth: usize) -> Option<usize> {
    let mut parser = Parser::with(src, start, Check::default());
    parser.depth = depth;
    parser.value().ok()?;
    Some(parser.pos)
}

/// Reads the JSON value at `start` (no whitespace skipped) into `build`, and gives the builder
/// back: for text already checked (by [`check_nested_at`]), where `None`, an error, does not
/// happen.
pub(crate) fn build_at<'a, B: Build<'a>>(src: &'a str, start: usize, build: B) -> (Option<B::Value>, B) {
    let mut parser = Parser::with(src, start, build);
    let value = parser.value().ok();
    (value, parser.build)
}

/// [`value_nested_at`] into `build`: the value and the offset after it, or `None` on any
/// error; and the builder back.
pub(crate) fn build_nested_at<'a, B: Build<'a>>(
    src: &'a str,
    start: usize,
    depth: usize,
    build: B,
) -> (Option<(B::Value, usize)>, B) {
    let mut parser = Parser::with(src, start, build);
    parser.depth = depth;
    let value = parser.value().ok().map(|v| (v, parser.pos));
    (value, parser.build)
}

/// The string literal at `start` (a `"`), decoded (borrowed from `src` when it has no escapes),
/// and the offset after it; `None` on any error.
pub(crate) fn string_at(src: &str, start: usize) -> Option<(Cow<'_, str>, usize)> {
    let mut parser = Parser::new(src, start);
    let text = parser.string(true).ok()?;
    Some((text, parser.pos))
}

/// `src` as exactly one JSON object (whitespace around it allowed) read into `build`, or `None`
/// when it is not one (nothing is built when it does not begin with `{`); and the builder back.
pub(crate) fn build_complete_object<'a, B: Build<'a>>(src: &'a str, build: B) -> (Option<B::Value>, B) {
    let start = skip_ws(src.as_bytes(), 0);
    if src.as_bytes().get(start) != Some(&b'{') {
        return (None, build);
    }
    let mut parser = Parser::with(src, start, build);
    let value = parser.value().ok();
    let whole = skip_ws(src.as_bytes(), parser.pos) == src.len();
    (value.filter(|_| whole), parser.build)
}

/// Like [`parse_value_at`], for a caller that only needs to know where a failure happened (text
/// that may or may not be JSON): no message is written.
pub(crate) fn probe_value_at(src: &str, start: usize) -> Result<(Value, usize), usize> {
    Parser::new(src, start).value_at().map_err(|e| e.offset)
}

/// [`probe_value_at`] that checks the value without building it: the offset after it, or
/// where it fails.
pub(crate) fn probe_check_at(src: &str, start: usize) -> Result<usize, usize> {
    let parser = Parser::with(src, start, Check::default());
    parser.value_at().map(|((), end)| end).map_err(|e| e.offset)
}

/// `src` as exactly one JSON value (whitespace around it allowed), or `None` when it is not.
pub(crate) fn probe_complete(src: &str) -> Option<Value> {
    let (value, end) = probe_value_at(src, 0).ok()?;
    (skip_ws(src.as_bytes(), end) == src.len()).then_some(value)
}

/// Parses `text` as exactly one strict JSON value (RFC 8259; repeated keys, nesting deeper than
/// [`MAX_DEPTH`], lone surrogates and numbers beyond `f64` are errors), as beacon reads
/// arguments.
pub fn parse_json(text: &str) -> Result<Value, ParseError> {
    crate::error::within(text, parse_complete(text))
}

/// A value written as text between tags: the text trimmed of whitespace (`str::trim`) as strict
/// JSON when it is exactly one JSON value, else `None` (the caller keeps the text as a string).
/// Text that cannot begin a JSON value is not parsed at all.
pub(crate) fn probe_text(raw: &str) -> Option<Value> {
    probe_complete(json_text(raw)?)
}

/// [`probe_text`] into `build`: the JSON value that `raw`, trimmed, is exactly, or `None` (the
/// caller keeps the text as a string); and the builder back.
pub(crate) fn build_text<'a, B: Build<'a>>(raw: &'a str, build: B) -> (Option<B::Value>, B) {
    let Some(trimmed) = json_text(raw) else {
        return (None, build);
    };
    // `trimmed` starts with the value and ends with its last byte.
    let mut parser = Parser::with(trimmed, 0, build);
    let value = parser.value().ok();
    let whole = parser.pos == trimmed.len();
    (value.filter(|_| whole), parser.build)
}

/// `raw` trimmed, when it may begin a JSON value ([`probe_text`] reads nothing else).
fn json_text(raw: &str) -> Option<&str> {
    let trimmed = trim(raw);
    match trimmed.as_bytes().first()? {
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Some(trimmed),
        _ => None,
    }
}

/// Parses `src` as exactly one JSON value, optionally surrounded by whitespace.
pub(crate) fn parse_complete(src: &str) -> Result<Value, ParseError> {
    parse_complete_at(src, 0)
}

/// Parses `src[start..]` as exactly one JSON value, optionally surrounded by whitespace; error
/// offsets are offsets into `src`.
pub(crate) fn parse_complete_at(src: &str, start: usize) -> Result<Value, ParseError> {
    let (value, end) = parse_value_at(src, start)?;
    let end = skip_ws(src.as_bytes(), end);
    if end < src.len() {
        return Err(ParseError::new(
            ErrorCode::JsonUnexpectedToken,
            end,
            "expected the end of the JSON value",
        ));
    }
    Ok(value)
}

/// What the parser makes of the values it reads: a [`Value`] tree ([`Tree`]), nothing but the
/// check ([`Check`]), or a host's values (`host::emit`, the function). The parser calls, for an array, `array`,
/// then per element `item`, the element, `push`, then `end_array`; for an object, `object`, then
/// per entry `key` (which refuses a repeated key, handing it back), the value, `value`, then
/// `end_object`.
pub(crate) trait Build<'a> {
    type Value;
    type Array;
    type Object;
    /// Whether string values are decoded for [`Build::string`] (keys always are); when not, the
    /// parser checks their escapes and passes an empty string.
    const DECODE: bool = true;

    fn null(&mut self) -> Self::Value;
    fn bool(&mut self, value: bool) -> Self::Value;
    /// A number as written (checked against the grammar), or `None` when it is too large for an
    /// `f64`.
    fn number(&mut self, text: &str, float: bool) -> Option<Self::Value>;
    /// A string, borrowed from the text when it has no escapes.
    fn string(&mut self, value: Cow<'a, str>) -> Self::Value;
    fn array(&mut self) -> Self::Array;
    fn item(&mut self, array: &mut Self::Array);
    fn push(&mut self, array: &mut Self::Array, value: Self::Value);
    fn end_array(&mut self, array: Self::Array) -> Self::Value;
    fn object(&mut self) -> Self::Object;
    /// Starts the entry `key`; `Err(key)` when the object already has it.
    fn key(&mut self, object: &mut Self::Object, key: Cow<'a, str>) -> Result<(), Cow<'a, str>>;
    fn value(&mut self, object: &mut Self::Object, value: Self::Value);
    fn end_object(&mut self, object: Self::Object) -> Self::Value;
}

/// Builds the [`Value`] tree.
pub(crate) struct Tree;

/// An object being built: its entries (the last one holds `null` while its value is read) and
/// the keys seen.
pub(crate) struct TreeObject {
    entries: Object,
    keys: Keys,
}

impl<'a> Build<'a> for Tree {
    type Value = Value;
    type Array = Vec<Value>;
    type Object = TreeObject;

    fn null(&mut self) -> Value {
        Value::Null
    }
    fn bool(&mut self, value: bool) -> Value {
        Value::Bool(value)
    }
    fn number(&mut self, text: &str, float: bool) -> Option<Value> {
        number_value(text, float)
    }
    fn string(&mut self, value: Cow<'a, str>) -> Value {
        Value::String(value.into_owned())
    }
    fn array(&mut self) -> Vec<Value> {
        Vec::with_capacity(4)
    }
    fn item(&mut self, _: &mut Vec<Value>) {}
    fn push(&mut self, array: &mut Vec<Value>, value: Value) {
        array.push(value);
    }
    fn end_array(&mut self, array: Vec<Value>) -> Value {
        Value::Array(array)
    }
    #[inline]
    fn object(&mut self) -> TreeObject {
        // Eight entries: arguments objects often have five to eight keys, and growing a vector
        // costs more than the unused room.
        TreeObject {
            entries: Vec::with_capacity(8),
            keys: Keys::default(),
        }
    }
    #[inline]
    fn key(&mut self, object: &mut TreeObject, key: Cow<'a, str>) -> Result<(), Cow<'a, str>> {
        if object.keys.repeated(&object.entries, &key) {
            return Err(key);
        }
        object.entries.push((key.into_owned(), Value::Null));
        Ok(())
    }
    #[inline]
    fn value(&mut self, object: &mut TreeObject, value: Value) {
        if let Some(entry) = object.entries.last_mut() {
            // The placeholder is `null`, which owns nothing: forgetting it skips a call to drop.
            std::mem::forget(std::mem::replace(&mut entry.1, value));
        }
    }
    #[inline]
    fn end_object(&mut self, object: TreeObject) -> Value {
        Value::Object(object.entries)
    }
}

/// Checks the text and builds nothing: the keys of the objects being read are kept (borrowed
/// where they have no escapes) only to find repeated ones.
#[derive(Default)]
pub(crate) struct Check<'a> {
    /// The keys of every object being read, innermost last.
    keys: Vec<Cow<'a, str>>,
}

/// An object being checked: where its keys start in [`Check::keys`], and a hash set of them
/// once it has [`SMALL_OBJECT`] keys.
pub(crate) struct CheckObject<'a> {
    start: usize,
    set: Option<HashSet<Cow<'a, str>>>,
}

impl<'a> Build<'a> for Check<'a> {
    type Value = ();
    type Array = ();
    type Object = CheckObject<'a>;
    const DECODE: bool = false;

    fn null(&mut self) {}
    fn bool(&mut self, _: bool) {}
    fn number(&mut self, text: &str, float: bool) -> Option<()> {
        // Integers are exact at any size; only a float can be out of range, and one written
        // without an exponent in fewer than 309 characters is below `f64::MAX` (1.8e308).
        let in_range = !float
            || (text.len() < 309 && !text.bytes().any(|b| b | 0x20 == b'e'))
            || text.parse::<f64>().is_ok_and(f64::is_finite);
        in_range.then_some(())
    }
    fn string(&mut self, _: Cow<'a, str>) {}
    fn array(&mut self) {}
    fn item(&mut self, (): &mut ()) {}
    fn push(&mut self, (): &mut (), (): ()) {}
    fn end_array(&mut self, (): ()) {}
    fn object(&mut self) -> CheckObject<'a> {
        // Room for the keys of a typical arguments object and one inside it, taken once rather
        // than grown from four (typical hermes built as read: 18.0k -> 17.8k instructions in
        // `_core.call`, Gemma 4 19.8k -> 19.6k; callgrind, PYTHONHASHSEED=0).
        if self.keys.capacity() == 0 {
            self.keys.reserve(16);
        }
        CheckObject {
            start: self.keys.len(),
            set: None,
        }
    }
    fn key(&mut self, object: &mut CheckObject<'a>, key: Cow<'a, str>) -> Result<(), Cow<'a, str>> {
        // Entries nested in this object's values are gone from `keys` by the time its next key
        // is read, so `keys[start..]` are this object's own keys.
        let own = &self.keys[object.start..];
        let repeated = match &mut object.set {
            Some(set) => !set.insert(key.clone()),
            None => own.iter().any(|k| same_key(k, &key)),
        };
        if repeated {
            return Err(key);
        }
        self.keys.push(key);
        if object.set.is_none() && self.keys.len() - object.start == SMALL_OBJECT {
            object.set = Some(self.keys[object.start..].iter().cloned().collect());
        }
        Ok(())
    }
    fn value(&mut self, _: &mut CheckObject<'a>, (): ()) {}
    fn end_object(&mut self, object: CheckObject<'a>) {
        self.keys.truncate(object.start);
    }
}

pub(crate) struct Parser<'a, B> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// The ranges of the top-level array's elements, when asked for (see
    /// [`parse_value_items_at`]).
    items: Option<Vec<Range<usize>>>,
    /// Whether the top-level array's objects may be separated by whitespace alone (see
    /// [`parse_spaced_items_at`]).
    spaced: bool,
    build: B,
}

impl<'a> Parser<'a, Tree> {
    fn new(src: &'a str, start: usize) -> Self {
        Parser::with(src, start, Tree)
    }
}

impl<'a, B: Build<'a>> Parser<'a, B> {
    pub(crate) fn with(src: &'a str, start: usize, build: B) -> Self {
        Parser {
            src,
            bytes: src.as_bytes(),
            pos: start,
            depth: 0,
            items: None,
            spaced: false,
            build,
        }
    }

    fn value_at(mut self) -> Result<(B::Value, usize), JsonError> {
        self.pos = skip_ws(self.bytes, self.pos);
        let value = self.value()?;
        Ok((value, self.pos))
    }

    fn end_err(&self, inside: &'static str) -> JsonError {
        JsonError::new(
            ErrorCode::JsonUnexpectedEnd,
            self.bytes.len(),
            Detail::EndInside(inside),
        )
    }

    /// An unexpected character at `self.pos`, or the end of the text.
    fn unexpected(&self, expected: &'static str, inside: &'static str) -> JsonError {
        match self.src[self.pos..].chars().next() {
            None => self.end_err(inside),
            Some(found) => JsonError::new(
                ErrorCode::JsonUnexpectedToken,
                self.pos,
                Detail::Expected { expected, found },
            ),
        }
    }

    fn value(&mut self) -> Result<B::Value, JsonError> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.end_err("a JSON value"));
        };
        match b {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => {
                let s = self.string(B::DECODE)?;
                Ok(self.build.string(s))
            }
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.keyword("true").map(|()| self.build.bool(true)),
            b'f' => self.keyword("false").map(|()| self.build.bool(false)),
            b'n' => self.keyword("null").map(|()| self.build.null()),
            b'+' | b'.' => Err(JsonError::new(
                ErrorCode::JsonInvalidNumber,
                self.pos,
                Detail::Text("a JSON number starts with `-` or a digit"),
            )),
            _ => Err(self.unexpected("a JSON value", "a JSON value")),
        }
    }

    fn keyword(&mut self, word: &'static str) -> Result<(), JsonError> {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else if word.as_bytes().starts_with(rest) {
            Err(self.end_err("a JSON value"))
        } else {
            Err(self.unexpected("a JSON value", "a JSON value"))
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(JsonError::new(ErrorCode::JsonTooDeep, self.pos, Detail::TooDeep));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<B::Value, JsonError> {
        self.enter()?;
        self.pos = skip_ws(self.bytes, self.pos + 1);
        let mut items = self.build.array();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(self.build.end_array(items));
        }
        loop {
            let item_at = self.pos;
            self.build.item(&mut items);
            let item = self.value()?;
            self.build.push(&mut items, item);
            if self.depth == 1 {
                if let Some(ranges) = &mut self.items {
                    ranges.push(item_at..self.pos);
                }
            }
            self.pos = skip_ws(self.bytes, self.pos);
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos = skip_ws(self.bytes, self.pos + 1);
                    if self.bytes.get(self.pos) == Some(&b']') {
                        return Err(JsonError::new(
                            ErrorCode::JsonUnexpectedToken,
                            self.pos,
                            Detail::Text("expected a value after `,` (JSON allows no trailing comma)"),
                        ));
                    }
                }
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(self.build.end_array(items));
                }
                Some(b'{') if self.spaced_next(item_at) => {}
                _ => return Err(self.unexpected("`,` or `]`", "an array")),
            }
        }
    }

    /// At a `{` after the item at `item_at`: whether it begins the next item of a spaced list
    /// (the item is an object of the top-level array, and whitespace stands between them).
    fn spaced_next(&self, item_at: usize) -> bool {
        self.spaced && self.depth == 1 && self.bytes[item_at] == b'{' && self.pos > 0 && is_ws(self.bytes[self.pos - 1])
    }

    fn object(&mut self) -> Result<B::Value, JsonError> {
        self.enter()?;
        self.pos = skip_ws(self.bytes, self.pos + 1);
        let mut object = self.build.object();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(self.build.end_object(object));
        }
        let mut first = true;
        loop {
            if self.bytes.get(self.pos) != Some(&b'"') {
                let trailing = first || self.bytes.get(self.pos) != Some(&b'}');
                return Err(if trailing {
                    self.unexpected("a string key", "an object")
                } else {
                    JsonError::new(
                        ErrorCode::JsonUnexpectedToken,
                        self.pos,
                        Detail::Text("expected a key after `,` (JSON allows no trailing comma)"),
                    )
                });
            }
            first = false;
            let key_at = self.pos;
            let key = self.string(true)?;
            if let Err(key) = self.build.key(&mut object, key) {
                return Err(JsonError::new(
                    ErrorCode::JsonDuplicateKey,
                    key_at,
                    Detail::DuplicateKey(key.into_owned()),
                ));
            }
            self.pos = skip_ws(self.bytes, self.pos);
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.unexpected("`:` after the key", "an object"));
            }
            self.pos = skip_ws(self.bytes, self.pos + 1);
            let value = self.value()?;
            self.build.value(&mut object, value);
            self.pos = skip_ws(self.bytes, self.pos);
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos = skip_ws(self.bytes, self.pos + 1),
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(self.build.end_object(object));
                }
                _ => return Err(self.unexpected("`,` or `}`", "an object")),
            }
        }
    }

    /// Reads a string literal at `self.pos` (which is `"`): borrowed from the text when it has
    /// no escapes (most strings), else decoded when `decode` (else only checked, and empty).
    fn string(&mut self, decode: bool) -> Result<Cow<'a, str>, JsonError> {
        let start = self.pos + 1;
        let mut i = crate::lex::json_string_stop(self.bytes, start);
        if self.bytes.get(i) == Some(&b'"') {
            self.pos = i + 1;
            return Ok(Cow::Borrowed(&self.src[start..i]));
        }
        let mut out = if decode {
            String::with_capacity(i - start + 16)
        } else {
            String::new()
        };
        let mut run = start;
        loop {
            let Some(&b) = self.bytes.get(i) else {
                return Err(self.end_err("a string"));
            };
            match b {
                b'"' => {
                    if decode {
                        out.push_str(&self.src[run..i]);
                    }
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                b'\\' => {
                    if decode {
                        out.push_str(&self.src[run..i]);
                    }
                    // `\"`, `\\` and `\/` (most escapes in an arguments string) stand for
                    // their second byte; the rest are decoded one by one.
                    let next = if let Some(&e @ (b'"' | b'\\' | b'/')) = self.bytes.get(i + 1) {
                        if decode {
                            out.push(char::from(e));
                        }
                        i + 2
                    } else {
                        let (c, next) = decode_escape(self.bytes, i)?;
                        if decode {
                            out.push(c);
                        }
                        next
                    };
                    run = next;
                    i = crate::lex::json_string_stop(self.bytes, next);
                }
                0..=0x1f => {
                    return Err(JsonError::new(
                        ErrorCode::JsonInvalidString,
                        i,
                        Detail::ControlCharacter(b),
                    ))
                }
                _ => i += 1,
            }
        }
    }

    fn number(&mut self) -> Result<B::Value, JsonError> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b[i] == b'-' {
            i += 1;
        }
        let digits = |mut i: usize| {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            i
        };
        let invalid =
            |at: usize, message: &'static str| JsonError::new(ErrorCode::JsonInvalidNumber, at, Detail::Text(message));
        match b.get(i) {
            Some(b'0') => {
                i += 1;
                if matches!(b.get(i), Some(b'0'..=b'9')) {
                    return Err(invalid(i, "a JSON number has no leading zeros"));
                }
            }
            Some(b'1'..=b'9') => i = digits(i),
            Some(_) => return Err(invalid(i, "expected a digit after `-`")),
            None => return Err(self.end_err("a number")),
        }
        let mut float = false;
        if b.get(i) == Some(&b'.') {
            float = true;
            i += 1;
            let after = digits(i);
            if after == i {
                return Err(match b.get(i) {
                    None => self.end_err("a number"),
                    Some(_) => invalid(i, "expected a digit after the decimal point"),
                });
            }
            i = after;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            float = true;
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let after = digits(i);
            if after == i {
                return Err(match b.get(i) {
                    None => self.end_err("a number"),
                    Some(_) => invalid(i, "expected a digit in the exponent"),
                });
            }
            i = after;
        }
        self.pos = i;
        self.build
            .number(&self.src[start..i], float)
            .ok_or_else(|| invalid(start, "the number is too large for a 64-bit float"))
    }
}

/// Decodes a number already checked against a grammar: integers exact, floats finite.
pub(crate) fn number_value(text: &str, float: bool) -> Option<Value> {
    if float {
        let f: f64 = text.parse().ok()?;
        return f.is_finite().then_some(Value::Number(Number::Float(f)));
    }
    Some(Value::Number(match text.parse::<i64>() {
        Ok(i) => Number::Int(i),
        Err(_) => Number::BigInt(text.to_string()),
    }))
}

/// Decodes the escape at `bytes[at]` (a backslash) inside a JSON string. Returns the character
/// and the offset after the escape.
fn decode_escape(bytes: &[u8], at: usize) -> Result<(char, usize), JsonError> {
    let Some(&e) = bytes.get(at + 1) else {
        return Err(JsonError::new(
            ErrorCode::JsonUnexpectedEnd,
            bytes.len(),
            Detail::EndInside("a string"),
        ));
    };
    let c = match e {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => return decode_unicode_escape(bytes, at),
        _ => return Err(JsonError::new(ErrorCode::JsonInvalidEscape, at, Detail::Escape(e))),
    };
    Ok((c, at + 2))
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let s = std::str::from_utf8(digits).ok()?;
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// Whether `rest` (the whole rest of the text) is a proper beginning of a `\u` escape with its
/// four hex digits.
pub(crate) fn ends_in_escape(rest: &[u8]) -> bool {
    rest.len() < 6 && b"\\u".starts_with(&rest[..rest.len().min(2)]) && rest.iter().skip(2).all(u8::is_ascii_hexdigit)
}

/// A `\u` escape (four hex digits), combining a surrogate pair written as two escapes.
fn decode_unicode_escape(bytes: &[u8], at: usize) -> Result<(char, usize), JsonError> {
    let bad = |message: &'static str| JsonError::new(ErrorCode::JsonInvalidUnicode, at, Detail::Text(message));
    let end_inside = || JsonError::new(ErrorCode::JsonUnexpectedEnd, bytes.len(), Detail::EndInside("a string"));
    let Some(first) = hex4(bytes, at + 2) else {
        if bytes.len() < at + 6 && bytes[at + 2..].iter().all(u8::is_ascii_hexdigit) {
            return Err(end_inside());
        }
        return Err(bad("`\\u` must be followed by four hex digits"));
    };
    match first {
        0xD800..=0xDBFF => {
            if bytes.get(at + 6) == Some(&b'\\') && bytes.get(at + 7) == Some(&b'u') {
                if let Some(second @ 0xDC00..=0xDFFF) = hex4(bytes, at + 8) {
                    let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                    return Ok((char::from_u32(c).expect("valid surrogate pair"), at + 12));
                }
            }
            if ends_in_escape(&bytes[at + 6..]) {
                // The low surrogate's escape may not have arrived yet.
                return Err(end_inside());
            }
            Err(bad(
                "a high surrogate escape must be followed by a low surrogate escape",
            ))
        }
        0xDC00..=0xDFFF => Err(bad("a low surrogate escape without a high surrogate before it")),
        c => Ok((char::from_u32(c).expect("not a surrogate"), at + 6)),
    }
}

/// Maps a byte offset into the decoded content of the string literal at `literal_start` (its
/// opening quote) back to the offset in `src` of the character that decoded to it.
pub(crate) fn raw_offset_in_string(src: &str, literal_start: usize, decoded_offset: usize) -> usize {
    let bytes = src.as_bytes();
    let mut raw = literal_start + 1;
    let mut decoded = 0;
    while decoded < decoded_offset && raw < bytes.len() && bytes[raw] != b'"' {
        if bytes[raw] == b'\\' {
            match decode_escape(bytes, raw) {
                Ok((c, next)) => {
                    decoded += c.len_utf8();
                    raw = next;
                }
                Err(_) => break,
            }
        } else {
            decoded += 1;
            raw += 1;
        }
    }
    raw
}

/// The offset of the value reached from the value at `start` by following `path`. The text is
/// known to parse (this is used to point errors at values found by walking a parsed tree).
pub(crate) fn locate_path(src: &str, start: usize, path: &[Step<&str>]) -> usize {
    locate(src, start, path, None)
}

/// The offset of the opening quote of `key` in the object reached from the value at `start` by
/// following `path` (an error about the key itself, not its value).
pub(crate) fn locate_key(src: &str, start: usize, path: &[Step<&str>], key: &str) -> usize {
    locate(src, start, path, Some(key))
}

fn locate(src: &str, start: usize, path: &[Step<&str>], key: Option<&str>) -> usize {
    let bytes = src.as_bytes();
    let mut pos = skip_ws(bytes, start);
    for step in path {
        match *step {
            Step::Key(want) => match member(src, pos, want) {
                Ok((_, value_at)) => pos = value_at,
                Err(at) => return at,
            },
            Step::Index(n) => {
                if bytes.get(pos) != Some(&b'[') {
                    return pos.min(src.len());
                }
                let array_at = pos;
                pos = skip_ws(bytes, pos + 1);
                for _ in 0..n {
                    pos = skip_ws(bytes, skip_value(src, pos));
                    if bytes.get(pos) != Some(&b',') {
                        return array_at;
                    }
                    pos = skip_ws(bytes, pos + 1);
                }
            }
        }
    }
    match key {
        Some(want) => member(src, pos, want).map_or_else(|at| at, |(key_at, _)| key_at),
        None => pos.min(src.len()),
    }
}

/// In the object whose `{` is at `pos`: the offsets of `want`'s opening quote and of its value,
/// or `Err` with where to point instead: the object's `{` when it has no such member (or is not
/// an object), the first byte that stops it being readable otherwise. Never past the text.
fn member(src: &str, pos: usize, want: &str) -> Result<(usize, usize), usize> {
    // `{` ws "key" ws : ws value ws (, ws "key" ...)
    let bytes = src.as_bytes();
    if bytes.get(pos) != Some(&b'{') {
        return Err(pos.min(src.len()));
    }
    let object_at = pos;
    let mut pos = skip_ws(bytes, pos + 1);
    loop {
        let key_at = pos;
        if bytes.get(pos) == Some(&b'}') {
            return Err(object_at);
        }
        let mut p = Parser::new(src, pos);
        let Ok(key) = p.string(true) else { return Err(key_at) };
        pos = skip_ws(bytes, p.pos);
        if bytes.get(pos) != Some(&b':') {
            return Err(pos.min(src.len()));
        }
        pos = skip_ws(bytes, pos + 1);
        if key == want {
            return Ok((key_at, pos));
        }
        pos = skip_ws(bytes, skip_value(src, pos));
        match bytes.get(pos) {
            Some(b',') => pos = skip_ws(bytes, pos + 1),
            Some(b'}') => return Err(object_at),
            _ => return Err(pos.min(src.len())),
        }
    }
}

/// The end of the string literal whose opening quote is at `pos`, read without decoding it, or
/// `None` when there is no string there or `bytes` ends inside it.
pub(crate) fn raw_string_end(bytes: &[u8], pos: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'"') {
        return None;
    }
    let mut i = pos + 1;
    loop {
        let k = memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[i + k] == b'"' {
            return Some(i + k + 1);
        }
        i += k + 2;
    }
}

/// The nesting of JSON brackets over a text read a byte at a time, strings skipped: enough to see
/// a value close without parsing it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Nesting {
    pub depth: usize,
    string: bool,
    escape: bool,
}

impl Nesting {
    /// Inside `depth` open brackets, outside strings.
    pub(crate) fn at_depth(depth: usize) -> Self {
        Nesting {
            depth,
            ..Nesting::default()
        }
    }

    /// Whether reading `bytes` would leave this state as it is: no escape pending and none of
    /// them a quote, a backslash or a bracket (so they neither close nor open anything).
    pub(crate) fn unchanged_by(&self, bytes: &[u8]) -> bool {
        !self.escape
            && !bytes
                .iter()
                .any(|b| matches!(b, b'"' | b'\\' | b'{' | b'}' | b'[' | b']'))
    }

    /// Whether the byte read last was a backslash inside a string: the next byte, whatever it
    /// is, is escaped.
    pub(crate) fn escaping(&self) -> bool {
        self.escape
    }

    /// Reads one byte; whether it closed a bracket and brought the depth back to zero.
    pub(crate) fn byte(&mut self, b: u8) -> bool {
        if self.string {
            match b {
                _ if self.escape => self.escape = false,
                b'\\' => self.escape = true,
                b'"' => self.string = false,
                _ => {}
            }
            return false;
        }
        match b {
            b'"' => self.string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }
}

/// The end of the JSON value at `pos` (no whitespace before it), found by matching brackets
/// outside strings without parsing: for text known to be JSON up to where `bytes` ends. `None`
/// when `bytes` ends inside the value.
pub(crate) fn raw_value_end(bytes: &[u8], pos: usize) -> Option<usize> {
    match *bytes.get(pos)? {
        b'"' => raw_string_end(bytes, pos),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = pos;
            loop {
                match *bytes.get(i)? {
                    b'"' => {
                        i = raw_string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = bytes[pos..]
                .iter()
                .position(|&b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
            len.map(|n| pos + n)
        }
    }
}

fn skip_value(src: &str, pos: usize) -> usize {
    parse_value_at(src, pos).map_or(src.len(), |(_, end)| end)
}

fn show_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        (b as char).to_string()
    } else if b.is_ascii() {
        format!("U+{b:04X}")
    } else {
        "(a non-ASCII character)".to_string()
    }
}

#[cfg(test)]
mod tests {
    fn json(text: &str) -> bool {
        super::value_closes(text)
    }

    #[test]
    fn an_inner_quote_is_mended_only_when_one_reading_closes() {
        let one = r#"{"q": "say "hi" now"}"#;
        let fix = crate::repair::inner_quotes(one, 0, 11, b'"', json).expect("one reading");
        assert_eq!(
            (fix.at, fix.range.clone(), fix.insert.as_str()),
            (11, 11..19, r#"\"hi\" now"#)
        );
        let two = r#"{"q": "a "b", "c": "d"}"#;
        assert_eq!(crate::repair::inner_quotes(two, 0, 9, b'"', json), None);
        // A quote followed by a delimiter is never an inner quote.
        assert_eq!(crate::repair::inner_quotes(r#"{"a", "b"}"#, 0, 3, b'"', json), None);
    }

    #[test]
    fn an_inner_quote_tries_at_most_max_readings() {
        let many = format!(r#"{{"q": "a "b{}"}}"#, r#" ""#.repeat(crate::repair::MAX_READINGS));
        assert_eq!(crate::repair::inner_quotes(&many, 0, 9, b'"', json), None);
        let fewer = format!(r#"{{"q": "a "b{}"}}"#, r#" \""#.repeat(crate::repair::MAX_READINGS));
        assert!(crate::repair::inner_quotes(&fewer, 0, 9, b'"', json).is_some());
    }

    /// The check's shortcut for floats without an exponent agrees with reading them, at the
    /// edge of `f64`'s range and past it.
    #[test]
    fn a_checked_float_is_in_range_exactly_when_it_reads() {
        let max = format!("{:.1}", f64::MAX); // 309 digits, then ".0"
        let over = format!("2{}.0", "0".repeat(308));
        let long_small = format!("0.{}1", "0".repeat(400));
        let nines = format!("{}.9", "9".repeat(307));
        for text in [
            "1.37",
            "-0.5",
            "1e308",
            "1.5E308",
            "1e309",
            "-1E400",
            "2.5e-400",
            &max,
            &over,
            &long_small,
            &nines,
        ] {
            let read = super::parse_json(text).is_ok();
            let checked = super::probe_check_at(text, 0).is_ok();
            assert_eq!(checked, read, "{text:.20}");
            assert_eq!(read, text.parse::<f64>().is_ok_and(f64::is_finite), "{text:.20}");
        }
    }

    use super::{locate_key, locate_path};
    use crate::syntax::path::Step;

    /// A path that is not in the text points at the object or array that lacks it, never past
    /// the text (a missing last key once ran on into whatever followed the object).
    #[test]
    fn locating_a_missing_member_stays_at_its_container() {
        let src = r#"[{"a": {"x": 1}}, {"b": 2}]"#;
        let second = src.find(r#"{"b""#).unwrap();
        assert_eq!(locate_path(src, 0, &[Step::Index(1), Step::Key("b")]), second + 6);
        assert_eq!(locate_path(src, 0, &[Step::Index(1), Step::Key("c")]), second);
        assert_eq!(
            locate_path(src, 0, &[Step::Index(0), Step::Key("a"), Step::Key("y")]),
            7
        );
        assert_eq!(locate_key(src, 0, &[Step::Index(1)], "zz"), second);
        assert_eq!(locate_path(src, 0, &[Step::Index(5)]), 0);
        assert_eq!(locate_path(src, 0, &[Step::Index(1), Step::Index(0)]), second);
        for cut in 0..src.len() {
            let at = locate_path(&src[..cut], 0, &[Step::Index(1), Step::Key("b")]);
            assert!(at <= cut, "{cut}: {at}");
        }
    }
}
