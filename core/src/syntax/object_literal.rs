//! Gemma's object-literal grammar: `{key:value,…}` with bare or delimited keys, arrays, strings
//! verbatim between two delimiters (`<|"|>` or `<escape>`), and bare words that must be JSON
//! numbers, `true`, `false` or `null` (`None` too: Gemma 4's template prints a null so).

use std::borrow::Cow;

use crate::call::{Deferred, Format, Grammar};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{find, quote, show_char, skip_ws};
use crate::syntax::json::{Build, Tree};
use crate::syntax::path::Step;
use crate::syntax::shape::{self, Defer};
use crate::value::{Object, Value, MAX_DEPTH};

/// Name and bare-key bytes: ASCII letters and digits, `_`, `-`, `.`, and every byte of a
/// non-ASCII character.
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') || b >= 0x80
}

/// Bytes that end a bare word.
fn ends_word(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b',' | b':' | b'{' | b'}' | b'[' | b']' | b'<'
    )
}

/// The object-literal reader, over the whole text; `pos` is the offset of the next token.
/// The arguments object at `open` (its `{`) in `src`, strings between two `delimiter`s, read as
/// `defer` says: into the host's builder when there is one (the arguments are then empty, and
/// [`Deferred::Built`] says where they went), else as an [`Object`]; and the offset past its
/// `}`. An object the builder cannot read is read here, for its error.
pub(crate) fn arguments_as(
    src: &str,
    open: usize,
    delimiter: &'static str,
    (format, defer): (Format, Defer<'_>),
) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    let read = || {
        let mut literal = Literal::new(src, open, delimiter);
        Ok((literal.object(true)?, literal.pos))
    };
    let grammar = Grammar::ObjectLiteral(format);
    shape::arguments_as(
        defer,
        open,
        grammar,
        |build| build.object_literal(src, open, delimiter),
        read,
    )
}

pub(crate) struct Literal<'t> {
    pub text: &'t str,
    pub bytes: &'t [u8],
    pub pos: usize,
    pub depth: usize,
    pub delimiter: &'t str,
}

impl<'t> Literal<'t> {
    /// A reader of the literal whose `{` is at `open` in `src`, strings between two `delimiter`s.
    pub(crate) fn new(src: &'t str, open: usize, delimiter: &'t str) -> Self {
        Literal {
            text: src,
            bytes: src.as_bytes(),
            pos: open,
            depth: 0,
            delimiter,
        }
    }

    /// The object at `pos` (a `{`); `arguments` for the call's own argument object.
    pub(crate) fn object(&mut self, arguments: bool) -> Result<Object, ParseError> {
        match self.object_into(&mut Tree, arguments)? {
            Value::Object(entries) => Ok(entries),
            _ => unreachable!("an object literal builds an object"),
        }
    }

    /// [`Self::object`] into `build` (a [`Value`] tree, the check alone, or a host's values).
    pub(crate) fn object_into<B: Build<'t>>(&mut self, build: &mut B, arguments: bool) -> Result<B::Value, ParseError> {
        self.pos += 1;
        let mut entries = build.object();
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(build.end_object(entries));
        }
        loop {
            let key_at = self.pos;
            let key = self.key()?;
            if let Err(key) = build.key(&mut entries, key) {
                return Err(repeated_key(key_at, &key, arguments));
            }
            self.ws();
            self.expect(b':', "`:` after the key")?;
            self.ws();
            let value = self.value(build)?;
            build.value(&mut entries, value);
            self.ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(build.end_object(entries));
            }
            self.expect(b',', "`,` or `}` after a value")?;
            self.ws();
        }
    }

    fn array<B: Build<'t>>(&mut self, build: &mut B) -> Result<B::Value, ParseError> {
        self.pos += 1;
        let mut items = build.array();
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(build.end_array(items));
        }
        loop {
            build.item(&mut items);
            let item = self.value(build)?;
            build.push(&mut items, item);
            self.ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(build.end_array(items));
            }
            self.expect(b',', "`,` or `]` after a value")?;
            self.ws();
        }
    }

    fn value<B: Build<'t>>(&mut self, build: &mut B) -> Result<B::Value, ParseError> {
        match self.peek() {
            None => Err(unclosed(self.text, "the arguments")),
            Some(b'{') => {
                self.enter()?;
                let object = self.object_into(build, false)?;
                self.depth -= 1;
                Ok(object)
            }
            Some(b'[') => {
                self.enter()?;
                let array = self.array(build)?;
                self.depth -= 1;
                Ok(array)
            }
            Some(b'<') => {
                let s = self.string("a value")?;
                Ok(build.string(Cow::Borrowed(s)))
            }
            Some(_) => self.bare(build),
        }
    }

    fn key(&mut self) -> Result<Cow<'t, str>, ParseError> {
        if self.peek() == Some(b'<') {
            return self.string("a key").map(Cow::Borrowed);
        }
        let start = self.pos;
        let end = start + self.bytes[start..].iter().take_while(|&&b| is_name_byte(b)).count();
        if end == self.bytes.len() {
            return Err(unclosed(self.text, "the arguments"));
        }
        if end == start {
            return Err(self.syntax("a key"));
        }
        self.pos = end;
        Ok(Cow::Borrowed(&self.text[start..end]))
    }

    /// The delimited string at `pos` (a `<`), verbatim; `what` names it in the error when the
    /// `<` starts no delimiter.
    fn string(&mut self, what: &str) -> Result<&'t str, ParseError> {
        let delimiter = self.delimiter.as_bytes();
        if !self.bytes[self.pos..].starts_with(delimiter) {
            if delimiter.starts_with(&self.bytes[self.pos..]) {
                return Err(unclosed(self.text, "a string delimiter"));
            }
            return Err(self.syntax(what));
        }
        let from = self.pos + delimiter.len();
        let Some(len) = find(&self.bytes[from..], self.delimiter) else {
            return Err(unclosed(self.text, "a string"));
        };
        self.pos = from + len + delimiter.len();
        Ok(&self.text[from..from + len])
    }

    /// A bare word: a JSON number, `true`, `false` or `null` (or `None`, as the template prints a
    /// null).
    fn bare<B: Build<'t>>(&mut self, build: &mut B) -> Result<B::Value, ParseError> {
        let start = self.pos;
        let end = start + self.bytes[start..].iter().take_while(|&&b| !ends_word(b)).count();
        if end == self.bytes.len() {
            return Err(unclosed(self.text, "the arguments"));
        }
        if end == start {
            return Err(self.syntax("a value"));
        }
        let word = &self.text[start..end];
        // Gemma 4's template prints a null argument as Python's `None`.
        if word == "None" {
            self.pos = end;
            return Ok(build.null());
        }
        let value = match crate::syntax::json::probe_complete(word) {
            Some(Value::Bool(b)) => Some(build.bool(b)),
            Some(Value::Null) => Some(build.null()),
            Some(Value::Number(_)) => build.number(word, word.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))),
            _ => None,
        };
        match value {
            Some(value) => {
                self.pos = end;
                Ok(value)
            }
            None => Err(ParseError::new(
                ErrorCode::InvalidLiteral,
                start,
                format!(
                    "{} is not a value: strings go between `{}` delimiters; bare values are JSON numbers, true, false, null and None",
                    quote(word),
                    self.delimiter
                ),
            )),
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                ErrorCode::CallTooDeep,
                self.pos,
                format!("the arguments are nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn ws(&mut self) {
        self.pos = skip_ws(self.bytes, self.pos);
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), ParseError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            return Ok(());
        }
        Err(self.syntax(what))
    }

    /// `expected WHAT` at `pos`, or `tool_call.unclosed` at the end of the text.
    fn syntax(&self, what: &str) -> ParseError {
        if self.pos == self.bytes.len() {
            return unclosed(self.text, "the arguments");
        }
        ParseError::new(
            ErrorCode::Syntax,
            self.pos,
            format!("expected {what}, found {}", found(self.text, self.pos)),
        )
    }
}

/// The offset reached by `path` from the object literal whose `{` is at `open` (a well-formed
/// one: the call parsed), strings delimited by `delimiter`.
pub(crate) fn locate(text: &str, open: usize, delimiter: &'static str, path: &[Step]) -> usize {
    let mut literal = Literal {
        text,
        bytes: text.as_bytes(),
        pos: open,
        depth: 0,
        delimiter,
    };
    for (i, seg) in path.iter().enumerate() {
        literal.ws();
        let found = match (seg, literal.peek()) {
            (Step::Key(want), Some(b'{')) => literal.find_key(want),
            (Step::Index(n), Some(b'[')) => literal.find_index(*n),
            (_, Some(b'<')) => return literal.in_string(&path[i..]),
            _ => None,
        };
        if found.is_none() {
            break;
        }
    }
    skip_ws(text.as_bytes(), literal.pos)
}

impl Literal<'_> {
    /// The offset reached by `path` inside the delimited string at `pos`, whose text a schema
    /// typed (FunctionGemma's `<escape>['a', 'b']<escape>`): in its text, read as JSON or a Python
    /// literal; the string's own offset when it has no close.
    fn in_string(&self, path: &[Step]) -> usize {
        let from = self.pos + self.delimiter.len();
        match self.bytes.get(from..).and_then(|rest| find(rest, self.delimiter)) {
            Some(len) => crate::syntax::origin::in_text(self.text, from..from + len, path),
            None => self.pos,
        }
    }

    /// Moves from the object's `{` to the value of `want`.
    fn find_key(&mut self, want: &str) -> Option<()> {
        self.pos += 1;
        loop {
            self.ws();
            let key = self.key().ok()?;
            self.ws();
            self.expect(b':', "").ok()?;
            self.ws();
            if key == want {
                return Some(());
            }
            self.value(&mut Tree).ok()?;
            self.ws();
            self.expect(b',', "").ok()?;
        }
    }

    /// Moves from the array's `[` to its element `n`.
    fn find_index(&mut self, n: usize) -> Option<()> {
        self.pos += 1;
        for _ in 0..n {
            self.ws();
            self.value(&mut Tree).ok()?;
            self.ws();
            self.expect(b',', "").ok()?;
        }
        self.ws();
        Some(())
    }
}

fn repeated_key(at: usize, key: &str, arguments: bool) -> ParseError {
    if arguments {
        ParseError::new(
            ErrorCode::DuplicateArgument,
            at,
            format!("the argument `{key}` is given twice"),
        )
    } else {
        ParseError::new(
            ErrorCode::JsonDuplicateKey,
            at,
            format!("the key {} appears twice in one object", quote(key)),
        )
    }
}

/// The character at `p`, for messages.
pub(crate) fn found(text: &str, p: usize) -> String {
    text[p..]
        .chars()
        .next()
        .map_or_else(|| "the end of the text".into(), show_char)
}

pub(crate) fn unclosed(text: &str, inside: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends inside {inside}"),
    )
}
