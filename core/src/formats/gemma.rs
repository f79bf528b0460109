//! Gemma 4 `<|tool_call>call:NAME{…}<tool_call|>` and FunctionGemma
//! `<start_function_call>call:NAME{…}<end_function_call>`: one object-literal grammar, two string
//! delimiters (`<|"|>` and `<escape>`).
//!
//! After the marker: `call:`, the name (ASCII letters, digits, `_`, `-`, `.` and any non-ASCII
//! character; empty is `tool_call.invalid_name`), then the arguments as an object literal, then
//! the closing tag, which may be missing only at the very end of the text. Calls follow each
//! other, each with its own marker; `call:` right after a closing tag is `tool_call.syntax`.
//!
//! Literals: an object `{key:value,…}` whose keys are bare (the same characters as names) or
//! delimited strings; an array `[value,…]`; a string, the text verbatim between two delimiters
//! (it may hold `"`, `}`, `,` and line breaks; there are no escapes); or a bare word, which must be
//! a JSON number, `true`, `false` or `null`, else `tool_call.invalid_literal` at the word.
//! Whitespace is allowed between tokens; trailing commas are not. A repeated key is
//! `tool_call.duplicate_argument` among the arguments and `json.duplicate_key` in a nested
//! object (as call syntax does). Objects and arrays nested deeper than [`crate::MAX_DEPTH`]
//! inside the arguments are `tool_call.too_deep`. The text ending inside a call, a string, a
//! word or a token is `tool_call.unclosed`.
//!
//! After the calls the model writes `<|tool_response>` (Gemma 4) or `<start_function_response>`
//! (FunctionGemma) and stops: that token ends the output, and the text after it is not read.

use std::collections::HashSet;

use crate::call::{Format, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, find, skip_ws};
use crate::syntax::json::{quote, show_char};
use crate::tools::{Args, Origin, Seg};
use crate::value::MAX_DEPTH;
use crate::value::{Object, Value};

/// One of the two dialects of the grammar.
struct Dialect {
    marker: &'static str,
    close: &'static str,
    /// The token around strings.
    delimiter: &'static str,
    /// The token the model writes after its calls, where it stops.
    stop: &'static str,
    format: Format,
}

const GEMMA4: Dialect = Dialect {
    marker: "<|tool_call>",
    close: "<tool_call|>",
    delimiter: "<|\"|>",
    stop: "<|tool_response>",
    format: Format::Gemma4,
};

const FUNCTION_GEMMA: Dialect = Dialect {
    marker: "<start_function_call>",
    close: "<end_function_call>",
    delimiter: "<escape>",
    stop: "<start_function_response>",
    format: Format::FunctionGemma,
};

const CALL: &str = "call:";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Gemma4, Format::FunctionGemma],
    markers: &[GEMMA4.marker, FUNCTION_GEMMA.marker],
    tokens: &[
        CALL,
        GEMMA4.close,
        GEMMA4.delimiter,
        GEMMA4.stop,
        FUNCTION_GEMMA.close,
        FUNCTION_GEMMA.delimiter,
        FUNCTION_GEMMA.stop,
    ],
    closers: &[],
    json_bodies: &[],
    parse,
};

/// Keys with more entries than this are checked for repeats with a hash set.
const SMALL_OBJECT: usize = 16;

/// Parses the call whose marker is at `start`; returns the offset after it (the end of the text
/// when the stop token follows).
fn parse(text: &str, start: usize, out: &mut Vec<ToolCall>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let d = if at(bytes, start, GEMMA4.marker) {
        &GEMMA4
    } else {
        &FUNCTION_GEMMA
    };
    let p = skip_ws(bytes, start + d.marker.len());
    if !at(bytes, p, CALL) {
        if CALL.as_bytes().starts_with(&bytes[p..]) {
            return Err(super::unclosed_marker(text, d.marker));
        }
        return Err(super::unrecognized(text, p, d.marker));
    }
    let name_at = p + CALL.len();
    let name_end = name_at + bytes[name_at..].iter().take_while(|&&b| is_name_byte(b)).count();
    if name_end == bytes.len() {
        return Err(unclosed(text, "the tool name"));
    }
    if name_end == name_at {
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            name_at,
            format!("expected a tool name after `call:`, found {}", found(text, name_at)),
        ));
    }
    if bytes[name_end] != b'{' {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            name_end,
            format!("expected `{{` after the tool name, found {}", found(text, name_end)),
        ));
    }
    let mut literal = Literal {
        text,
        bytes,
        pos: name_end,
        depth: 0,
        delimiter: d.delimiter,
    };
    let arguments = literal.object(true)?;
    let end = close(text, literal.pos, d)?;
    let name = text[name_at..name_end].to_string();
    let origin = Origin::At {
        name: name_at,
        args: Args::Gemma {
            at: name_end,
            delimiter: d.delimiter,
        },
    };
    out.push(ToolCall::new(name, arguments, d.format, start..end).with_origin(origin));
    let next = skip_ws(bytes, end);
    if at(bytes, next, d.stop) {
        return Ok(bytes.len());
    }
    if at(bytes, next, CALL) {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            next,
            format!("a call must start with `{}`", d.marker),
        ));
    }
    Ok(end)
}

/// Whitespace and the closing tag after the arguments, which end at `p`; the end of the text is
/// accepted in its place. Returns the offset after the tag.
fn close(text: &str, p: usize, d: &Dialect) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    if at(bytes, p, d.close) {
        return Ok(p + d.close.len());
    }
    if p == bytes.len() {
        return Ok(p);
    }
    if d.close.as_bytes().starts_with(&bytes[p..]) {
        return Err(unclosed(text, "the closing tag"));
    }
    Err(ParseError::new(
        ErrorCode::Syntax,
        p,
        format!("expected `{}` after the arguments, found {}", d.close, found(text, p)),
    ))
}

/// Name and bare-key bytes: ASCII letters and digits, `_`, `-`, `.`, and every byte of a
/// non-ASCII character.
fn is_name_byte(b: u8) -> bool {
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
struct Literal<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    depth: usize,
    delimiter: &'static str,
}

impl Literal<'_> {
    /// The object at `pos` (a `{`); `arguments` for the call's own argument object.
    fn object(&mut self, arguments: bool) -> Result<Object, ParseError> {
        self.pos += 1;
        let mut entries = Object::with_capacity(8);
        let mut seen: Option<HashSet<String>> = None;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(entries);
        }
        loop {
            let key_at = self.pos;
            let key = self.key()?;
            let repeated = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if repeated {
                return Err(repeated_key(key_at, &key, arguments));
            }
            self.ws();
            self.expect(b':', "`:` after the key")?;
            self.ws();
            let value = self.value()?;
            entries.push((key, value));
            if seen.is_none() && entries.len() == SMALL_OBJECT {
                seen = Some(entries.iter().map(|(k, _)| k.clone()).collect());
            }
            self.ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                return Ok(entries);
            }
            self.expect(b',', "`,` or `}` after a value")?;
            self.ws();
        }
    }

    /// The array at `pos` (a `[`).
    fn array(&mut self) -> Result<Vec<Value>, ParseError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            items.push(self.value()?);
            self.ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(items);
            }
            self.expect(b',', "`,` or `]` after a value")?;
            self.ws();
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        match self.peek() {
            None => Err(unclosed(self.text, "the arguments")),
            Some(b'{') => {
                self.enter()?;
                let object = self.object(false)?;
                self.depth -= 1;
                Ok(Value::Object(object))
            }
            Some(b'[') => {
                self.enter()?;
                let array = self.array()?;
                self.depth -= 1;
                Ok(Value::Array(array))
            }
            Some(b'<') => Ok(Value::String(self.string("a value")?)),
            Some(_) => self.bare(),
        }
    }

    /// A bare key or a delimited string key.
    fn key(&mut self) -> Result<String, ParseError> {
        if self.peek() == Some(b'<') {
            return self.string("a key");
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
        Ok(self.text[start..end].to_string())
    }

    /// The delimited string at `pos` (a `<`), verbatim; `what` names it in the error when the
    /// `<` starts no delimiter.
    fn string(&mut self, what: &str) -> Result<String, ParseError> {
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
        Ok(self.text[from..from + len].to_string())
    }

    /// A bare word: a JSON number, `true`, `false` or `null`.
    fn bare(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let end = start + self.bytes[start..].iter().take_while(|&&b| !ends_word(b)).count();
        if end == self.bytes.len() {
            return Err(unclosed(self.text, "the arguments"));
        }
        if end == start {
            return Err(self.syntax("a value"));
        }
        let word = &self.text[start..end];
        match crate::syntax::json::probe_complete(word) {
            Some(value @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => {
                self.pos = end;
                Ok(value)
            }
            _ => Err(ParseError::new(
                ErrorCode::InvalidLiteral,
                start,
                format!(
                    "{} is not a value: strings go between `{}` delimiters; bare values are JSON numbers, true, false and null",
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
pub(crate) fn locate(text: &str, open: usize, delimiter: &'static str, path: &[Seg]) -> usize {
    let mut literal = Literal {
        text,
        bytes: text.as_bytes(),
        pos: open,
        depth: 0,
        delimiter,
    };
    for seg in path {
        literal.ws();
        let found = match (seg, literal.peek()) {
            (Seg::Key(want), Some(b'{')) => literal.find_key(want),
            (Seg::Index(n), Some(b'[')) => literal.find_index(*n),
            _ => None,
        };
        if found.is_none() {
            break;
        }
    }
    skip_ws(text.as_bytes(), literal.pos)
}

impl Literal<'_> {
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
            self.value().ok()?;
            self.ws();
            self.expect(b',', "").ok()?;
        }
    }

    /// Moves from the array's `[` to its element `n`.
    fn find_index(&mut self, n: usize) -> Option<()> {
        self.pos += 1;
        for _ in 0..n {
            self.ws();
            self.value().ok()?;
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
fn found(text: &str, p: usize) -> String {
    text[p..]
        .chars()
        .next()
        .map_or_else(|| "the end of the text".into(), show_char)
}

fn unclosed(text: &str, inside: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends inside {inside}"),
    )
}
