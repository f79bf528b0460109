//! Python call syntax: `name(key=literal, ...)` with Python or JSON literals.
//!
//! Grammar (whitespace, including newlines, may stand between any two tokens):
//!
//! ```text
//! call     = name "(" [ keyword { "," keyword } [ "," ] ] ")"
//! keyword  = identifier "=" literal
//! literal  = string | number | "True" | "False" | "None" | "true" | "false" | "null"
//!          | "[" [ literal { "," literal } [ "," ] ] "]"
//!          | "(" [ literal { "," literal } [ "," ] ] ")"     (a tuple, returned as a list;
//!                                                           "(x)" without a comma is just x)
//!          | "{" [ string ":" literal { "," string ":" literal } [ "," ] ] "}"
//! ```
//!
//! Strings take either quote style, or triple quotes (which may span lines), with Python's
//! escapes. Numbers take a sign, `_` between digits, a fraction and an exponent; integers stay
//! exact at any size. Identifiers are Python's (Unicode XID, see [`crate::lex::ident_end`]); a
//! keyword (`class`, `None`, …) as an argument name is `tool_call.syntax`.

use std::borrow::Cow;

use crate::call::{Deferred, Grammar};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{ident_end, is_ident_continue, quote, show_char, skip_ws};
use crate::syntax::json::{ends_in_escape, Build, Tree};
use crate::syntax::path::Step;
use crate::syntax::shape::{self, Defer};
use crate::value::{Object, Value, MAX_DEPTH};

/// Whether `word` is one of Python's keywords, which are not identifiers, so neither a call's
/// name nor an argument's. (The soft keywords `match`, `case`, `type` and `_` are identifiers.)
/// A `match` on the words compiles to a test of the length and then of a few bytes.
pub(crate) fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "False"
            | "None"
            | "True"
            | "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
    )
}

/// Whether the `(` at `open` starts a call's argument list by the recognition rule: the
/// parentheses are empty, or start with `identifier=` (not `==`).
pub(crate) fn starts_keyword_list(bytes: &[u8], open: usize) -> bool {
    keyword_list(bytes, open, false) == Some(true)
}

/// [`starts_keyword_list`] on a text that may grow (`more`): `None` while the text ends before
/// the answer is known.
pub(crate) fn keyword_list(bytes: &[u8], open: usize, more: bool) -> Option<bool> {
    let p = skip_ws(bytes, open + 1);
    if more && p == bytes.len() {
        return None;
    }
    if bytes.get(p) == Some(&b')') {
        return Some(true);
    }
    let end = ident_end(bytes, p);
    if end == p {
        return Some(false);
    }
    let q = skip_ws(bytes, end);
    if more && (end == bytes.len() || q == bytes.len() || (bytes[q] == b'=' && q + 1 == bytes.len())) {
        return None;
    }
    Some(bytes.get(q) == Some(&b'=') && bytes.get(q + 1) != Some(&b'='))
}

/// Parses the keyword arguments of the call whose `(` is at `open`. Returns the arguments and
/// the offset just past the closing `)`.
///
/// A syntax error right after a one-line string carries the repair `repair.unescaped_quote` when
/// exactly one later quote on its line, read as the string's end, lets the argument list close
/// ([`crate::repair::inner_quotes`]).
pub(crate) fn parse_arguments(src: &str, open: usize) -> Result<(Object, usize), ParseError> {
    let (args, end) = build_arguments(src, open, Tree).0?;
    let Value::Object(mut args) = args else {
        unreachable!("an argument list builds an object")
    };
    // A call with few arguments gives back most of the room its object reserved, which a text
    // of a million small calls needs (10 MB of `f(a=1)`: 448 bytes of room per call otherwise).
    if args.capacity() - args.len() >= 4 {
        args.shrink_to_fit();
    }
    Ok((args, end))
}

/// [`parse_arguments`] as `defer` says: into the host's builder when there is one (the arguments
/// are then empty, and [`Deferred::Built`] says where they went), else as an [`Object`]. Also
/// the offset past the `)`. A list the builder cannot read is read here, for its error.
pub(crate) fn arguments_as(
    src: &str,
    open: usize,
    defer: Defer<'_>,
) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    shape::arguments_as(
        defer,
        open,
        Grammar::CallSyntax,
        |build| build.call_arguments(src, open),
        || parse_arguments(src, open),
    )
}

/// [`parse_arguments`] into `build`: the object it built and the offset past the `)`; and the
/// builder back.
pub(crate) fn build_arguments<'a, B: Build<'a>>(
    src: &'a str,
    open: usize,
    build: B,
) -> (Result<(B::Value, usize), ParseError>, B) {
    let mut p = Parser::with(src, open + 1, build);
    let result = match p.arguments() {
        Ok(args) => Ok((args, p.pos)),
        Err(err) => Err(match p.last_string {
            Some(close)
                if err.code == ErrorCode::Syntax
                    && err.fix.is_none()
                    && err.mend.is_none()
                    && err.offset == skip_ws(p.bytes, close + 1) =>
            {
                err.mend(crate::repair::Mend {
                    from: open,
                    at: close,
                    find: |text, from, first| {
                        let quote = *text.as_bytes().get(first)?;
                        crate::repair::inner_quotes(text, from, first, quote, arguments_close)
                    },
                })
            }
            _ => err,
        }),
    };
    (result, p.build)
}

/// Whether `text`, from its `(` at 0, is an argument list that closes (a reading, for
/// [`crate::repair::inner_quotes`]).
pub(crate) fn arguments_close(text: &str) -> bool {
    let mut t = Parser::with(text, 1, Tree);
    t.arguments().is_ok()
}

/// The repair `repair.set_literal` of the braces at `open` in `src`, when they hold a Python set:
/// one or more literals separated by commas (a trailing one allowed) and closed by `}`. They
/// become a list's brackets.
pub(crate) fn as_set(src: &str, open: usize) -> Option<crate::repair::Fix> {
    let mut p = Parser::with(src, open + 1, Tree).at_depth(1);
    let mut items = 0;
    let close = loop {
        p.ws();
        if p.peek() == Some(b'}') && items > 0 {
            break p.pos;
        }
        p.literal().ok()?;
        items += 1;
        p.ws();
        match p.peek() {
            Some(b',') => p.pos += 1,
            Some(b'}') => {}
            _ => return None,
        }
    };
    Some(crate::repair::Fix {
        code: crate::repair::RepairCode::SetLiteral,
        at: open,
        range: open..close + 1,
        insert: format!("[{}]", &src[open + 1..close]),
        message: "a Python set was read as a list".to_owned(),
    })
}

/// The one Python (or JSON) literal that is the whole of `src` (whitespace around it allowed), or
/// `None` when it is not one.
pub(crate) fn literal_complete(src: &str) -> Option<Value> {
    let mut p = Parser::with(src, skip_ws(src.as_bytes(), 0), Tree);
    let value = p.literal().ok()?;
    (skip_ws(src.as_bytes(), p.pos) == src.len()).then_some(value)
}

/// The offset reached by `path` from the argument list whose `(` is at `open` (a well-formed
/// one: the call parsed). The first step names an argument; the others go into its literal.
pub(crate) fn locate(src: &str, open: usize, path: &[Step]) -> usize {
    let bytes = src.as_bytes();
    let mut p = Parser::with(src, open + 1, Tree);
    let Some((Step::Key(want), rest)) = path.split_first() else {
        return open;
    };
    loop {
        p.ws();
        let name_at = p.pos;
        let name_end = ident_end(bytes, name_at);
        if name_end == name_at {
            return open;
        }
        p.pos = skip_ws(bytes, skip_ws(bytes, name_end) + 1);
        if src[name_at..name_end] == **want {
            return p.locate_in(rest);
        }
        if p.literal().is_err() {
            return open;
        }
        p.ws();
        if p.peek() != Some(b',') {
            return open;
        }
        p.pos += 1;
    }
}

/// The offset reached by `path` from the (well-formed) literal at `at`.
pub(crate) fn locate_literal(src: &str, at: usize, path: &[Step]) -> usize {
    let mut p = Parser::with(src, at, Tree);
    p.locate_in(path)
}

/// Reads call syntax into its builder (see [`Build`]: a [`Value`] tree, nothing but the check, or
/// a host's values). A tuple's first item is built before the builder learns that it is in a
/// tuple (`(x)` is `x`): a builder that writes text in order moves it when it is pushed.
struct Parser<'a, B> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// Where the last one-line string read ended: its closing quote.
    last_string: Option<usize>,
    build: B,
}

impl<'a, B: Build<'a>> Parser<'a, B> {
    fn with(src: &'a str, pos: usize, build: B) -> Self {
        Parser {
            src,
            bytes: src.as_bytes(),
            pos,
            depth: 0,
            last_string: None,
            build,
        }
    }

    /// The parser, as if `depth` containers were open around `pos`.
    fn at_depth(mut self, depth: usize) -> Self {
        self.depth = depth;
        self
    }

    /// Follows `path` from the literal at `pos`; stops where a step cannot be followed.
    fn locate_in(&mut self, path: &[Step]) -> usize {
        for seg in path {
            self.ws();
            let found = match (seg, self.peek()) {
                (Step::Index(n), Some(b'[' | b'(')) => self.find_index(*n),
                (Step::Key(want), Some(b'{')) => self.find_key(want),
                _ => None,
            };
            if found.is_none() {
                break;
            }
        }
        skip_ws(self.bytes, self.pos)
    }

    /// Moves from a list's or tuple's opening bracket to its element `n`.
    fn find_index(&mut self, n: usize) -> Option<()> {
        self.pos += 1;
        for _ in 0..n {
            self.ws();
            self.literal().ok()?;
            self.ws();
            (self.peek() == Some(b',')).then_some(())?;
            self.pos += 1;
        }
        Some(())
    }

    /// Moves from a dict's `{` to the value of the key `want`.
    fn find_key(&mut self, want: &str) -> Option<()> {
        self.pos += 1;
        loop {
            self.ws();
            matches!(self.peek(), Some(b'"' | b'\'')).then_some(())?;
            let key = self.string().ok()?;
            self.ws();
            (self.peek() == Some(b':')).then_some(())?;
            self.pos += 1;
            self.ws();
            if key == want {
                return Some(());
            }
            self.literal().ok()?;
            self.ws();
            (self.peek() == Some(b',')).then_some(())?;
            self.pos += 1;
        }
    }

    fn ws(&mut self) {
        self.pos = skip_ws(self.bytes, self.pos);
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn unclosed(&self, what: &str) -> ParseError {
        ParseError::new(
            ErrorCode::Unclosed,
            self.bytes.len(),
            format!("the text ends inside {what}"),
        )
    }

    fn found(&self) -> String {
        self.src[self.pos..]
            .chars()
            .next()
            .map_or_else(|| "the end of the text".into(), show_char)
    }

    fn syntax(&self, expected: &str, inside: &str) -> ParseError {
        if self.pos >= self.bytes.len() {
            return self.unclosed(inside);
        }
        ParseError::new(
            ErrorCode::Syntax,
            self.pos,
            format!("expected {expected}, found {}", self.found()),
        )
    }

    fn arguments(&mut self) -> Result<B::Value, ParseError> {
        let mut args = self.build.object();
        loop {
            self.ws();
            match self.peek() {
                None => return Err(self.unclosed("the call's arguments")),
                Some(b')') => {
                    self.pos += 1;
                    return Ok(self.build.end_object(args));
                }
                _ => {}
            }
            let name_at = self.pos;
            let name_end = ident_end(self.bytes, name_at);
            let eq = skip_ws(self.bytes, name_end);
            let keyword =
                name_end > name_at && self.bytes.get(eq) == Some(&b'=') && self.bytes.get(eq + 1) != Some(&b'=');
            if !keyword && name_end > name_at && eq == self.bytes.len() {
                // `f(que` or `f(query ` at the end of the text: the `=` may not have arrived yet.
                return Err(self.unclosed("the call's arguments"));
            }
            if !keyword {
                return Err(ParseError::new(
                    ErrorCode::PositionalArgument,
                    name_at,
                    "positional arguments are not allowed; write every argument as name=value",
                ));
            }
            let name: &'a str = &self.src[name_at..name_end];
            // A tool call is model output, not Python: a keyword (`from`, `class`) names an
            // argument; the three constants are values, never names.
            if matches!(name, "True" | "False" | "None") {
                return Err(ParseError::new(
                    ErrorCode::Syntax,
                    name_at,
                    format!("`{name}` is a value, not an argument name"),
                ));
            }
            if self.build.key(&mut args, Cow::Borrowed(name)).is_err() {
                return Err(ParseError::new(
                    ErrorCode::DuplicateArgument,
                    name_at,
                    format!("the argument `{name}` is given twice"),
                ));
            }
            self.pos = eq + 1;
            self.ws();
            let value = self.literal()?;
            self.build.value(&mut args, value);
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {}
                _ => return Err(self.syntax("`,` or `)` after an argument", "the call's arguments")),
            }
        }
    }

    fn literal(&mut self) -> Result<B::Value, ParseError> {
        let Some(b) = self.peek() else {
            return Err(self.unclosed("the call's arguments"));
        };
        match b {
            b'"' | b'\'' => {
                let s = self.string()?;
                Ok(self.build.string(s))
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => self.number(),
            b'[' => self.list(),
            b'(' => self.tuple(),
            b'{' => self.dict(),
            _ => {
                let end = ident_end(self.bytes, self.pos);
                let word = &self.src[self.pos..end];
                let keywords = ["True", "true", "False", "false", "None", "null"];
                if end == self.bytes.len()
                    && !word.is_empty()
                    && keywords.iter().any(|k| k.len() > word.len() && k.starts_with(word))
                {
                    return Err(self.unclosed("a literal"));
                }
                let value = match word {
                    "True" | "true" => self.build.bool(true),
                    "False" | "false" => self.build.bool(false),
                    "None" | "null" => self.build.null(),
                    "" => {
                        return Err(ParseError::new(
                            ErrorCode::InvalidLiteral,
                            self.pos,
                            format!("expected a literal value, found {}", self.found()),
                        ))
                    }
                    _ => {
                        return Err(ParseError::new(
                            ErrorCode::InvalidLiteral,
                            self.pos,
                            format!("`{word}` is not a literal; argument values must be strings, numbers, True/False/None, lists or dicts"),
                        ))
                    }
                };
                self.pos = end;
                Ok(value)
            }
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                ErrorCode::CallTooDeep,
                self.pos,
                format!("literals are nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    /// `[a, b]`.
    fn list(&mut self) -> Result<B::Value, ParseError> {
        self.enter()?;
        self.pos += 1;
        let mut items = self.build.array();
        self.items(&mut items, b']', "a list")?;
        Ok(self.build.end_array(items))
    }

    /// `(a, b)`, `(a,)` and `()` as a list; `(a)` is `a`.
    fn tuple(&mut self) -> Result<B::Value, ParseError> {
        self.enter()?;
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b')') {
            self.pos += 1;
            self.depth -= 1;
            let items = self.build.array();
            return Ok(self.build.end_array(items));
        }
        let first = self.literal()?;
        self.ws();
        match self.peek() {
            Some(b')') => {
                self.pos += 1;
                self.depth -= 1;
                Ok(first)
            }
            Some(b',') => {
                self.pos += 1;
                let mut items = self.build.array();
                self.build.item(&mut items);
                self.build.push(&mut items, first);
                self.items(&mut items, b')', "a tuple")?;
                Ok(self.build.end_array(items))
            }
            _ => Err(self.syntax("`,` or `)`", "a tuple")),
        }
    }

    /// The items of a list or tuple up to its `close`, and past it.
    fn items(&mut self, items: &mut B::Array, close: u8, what: &str) -> Result<(), ParseError> {
        loop {
            self.ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                self.depth -= 1;
                return Ok(());
            }
            self.build.item(items);
            let item = self.literal()?;
            self.build.push(items, item);
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {}
                _ => return Err(self.syntax(&format!("`,` or `{}`", close as char), what)),
            }
        }
    }

    fn dict(&mut self) -> Result<B::Value, ParseError> {
        self.enter()?;
        let open = self.pos;
        self.pos += 1;
        let mut entries = self.build.object();
        let mut first = true;
        loop {
            self.ws();
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(self.build.end_object(entries));
                }
                Some(b'"' | b'\'') => {}
                None => return Err(self.unclosed("a dict")),
                Some(_) => {
                    let err = ParseError::new(
                        ErrorCode::InvalidLiteral,
                        self.pos,
                        format!("dict keys must be strings, found {}", self.found()),
                    );
                    return Err(self.as_set(open, first, err));
                }
            }
            let key_at = self.pos;
            let key = self.string()?;
            if let Err(key) = self.build.key(&mut entries, key) {
                return Err(ParseError::new(
                    ErrorCode::JsonDuplicateKey,
                    key_at,
                    format!("the key {} appears twice in one dict", quote(&key)),
                ));
            }
            self.ws();
            if self.peek() != Some(b':') {
                let err = self.syntax("`:` after the key", "a dict");
                let first = first && matches!(self.peek(), Some(b',' | b'}'));
                return Err(self.as_set(open, first, err));
            }
            self.pos += 1;
            self.ws();
            let value = self.literal()?;
            self.build.value(&mut entries, value);
            first = false;
            self.ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(self.syntax("`,` or `}`", "a dict")),
            }
        }
    }

    /// `err`, raised in the dict whose `{` is at `open` at its first item (`first`), with the
    /// repair that reads the braces as a Python set ([`as_set`]), worked out when repairing.
    fn as_set(&self, open: usize, first: bool, err: ParseError) -> ParseError {
        if !first || err.offset >= self.bytes.len() {
            return err;
        }
        err.mend(crate::repair::Mend {
            from: open,
            at: open,
            find: |text, open, _| as_set(text, open),
        })
    }

    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        let quote_char = self.bytes[self.pos];
        let triple = self.bytes.get(self.pos..self.pos + 3) == Some(&[quote_char; 3][..]);
        let open = if triple { 3 } else { 1 };
        let start = self.pos + open;
        // The plain run up to the first quote, backslash or line break: a one-line string without
        // escapes (most of them) ends there and is copied once, at its exact size.
        let mut i = self.plain_run(start, quote_char, triple);
        if !triple && self.bytes.get(i) == Some(&quote_char) {
            self.last_string = Some(i);
            self.pos = i + 1;
            return Ok(Cow::Borrowed(&self.src[start..i]));
        }
        let mut out = String::with_capacity(i - start + 16);
        let mut run = start;
        loop {
            let Some(&b) = self.bytes.get(i) else {
                return Err(self.unclosed("a string"));
            };
            if b == quote_char {
                if !triple || self.bytes.get(i..i + 3) == Some(&[quote_char; 3][..]) {
                    out.push_str(&self.src[run..i]);
                    self.last_string = (!triple).then_some(i);
                    self.pos = i + open;
                    return Ok(Cow::Owned(out));
                }
                i = self.plain_run(i + 1, quote_char, triple);
                continue;
            }
            if b == b'\\' {
                out.push_str(&self.src[run..i]);
                i = self.escape(i, &mut out)?;
                run = i;
                i = self.plain_run(i, quote_char, triple);
                continue;
            }
            // A line break in a one-line string.
            return Err(ParseError::new(
                ErrorCode::InvalidLiteral,
                i,
                "a line break inside a one-line string (use \\n, or triple quotes)",
            )
            .fix(crate::repair::escape_control(i, b)));
        }
    }

    /// The offset of the first byte from `from` that a string's plain text stops at: its quote,
    /// a backslash, or (in a one-line string) a line break; the end of the text when none comes.
    fn plain_run(&self, from: usize, quote: u8, triple: bool) -> usize {
        let rest = &self.bytes[from..];
        if triple {
            from + memchr::memchr2(quote, b'\\', rest).unwrap_or(rest.len())
        } else {
            crate::lex::line_string_stop(self.bytes, from, quote)
        }
    }

    /// Decodes the escape at `at` (a backslash) into `out`; returns the offset after it.
    fn escape(&self, at: usize, out: &mut String) -> Result<usize, ParseError> {
        let invalid = |message: String| ParseError::new(ErrorCode::InvalidLiteral, at, message);
        let Some(&e) = self.bytes.get(at + 1) else {
            return Err(self.unclosed("a string"));
        };
        let simple = match e {
            b'\n' => Some(None),
            b'\\' => Some(Some('\\')),
            b'\'' => Some(Some('\'')),
            b'"' => Some(Some('"')),
            b'n' => Some(Some('\n')),
            b'r' => Some(Some('\r')),
            b't' => Some(Some('\t')),
            b'a' => Some(Some('\u{7}')),
            b'b' => Some(Some('\u{8}')),
            b'f' => Some(Some('\u{c}')),
            b'v' => Some(Some('\u{b}')),
            _ => None,
        };
        if let Some(c) = simple {
            out.extend(c);
            return Ok(at + 2);
        }
        // The text ends partway through a `\x`, `\u` or `\U` escape's digits.
        let width = match e {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => 0,
        };
        if width > 0 && at + 2 + width > self.src.len() && self.bytes[at + 2..].iter().all(u8::is_ascii_hexdigit) {
            return Err(self.unclosed("a string"));
        }
        let hex = |from: usize, n: usize| -> Option<u32> {
            let s = self.src.get(from..from + n)?;
            s.bytes()
                .all(|b| b.is_ascii_hexdigit())
                .then(|| u32::from_str_radix(s, 16).ok())?
        };
        let (code, next) = match e {
            b'0'..=b'7' => {
                let mut end = at + 1;
                while end < at + 4 && matches!(self.bytes.get(end), Some(b'0'..=b'7')) {
                    end += 1;
                }
                (
                    u32::from_str_radix(&self.src[at + 1..end], 8).expect("octal digits"),
                    end,
                )
            }
            b'x' => (
                hex(at + 2, 2).ok_or_else(|| invalid("`\\x` must be followed by two hex digits".into()))?,
                at + 4,
            ),
            b'u' => (
                hex(at + 2, 4).ok_or_else(|| invalid("`\\u` must be followed by four hex digits".into()))?,
                at + 6,
            ),
            b'U' => (
                hex(at + 2, 8).ok_or_else(|| invalid("`\\U` must be followed by eight hex digits".into()))?,
                at + 10,
            ),
            _ => {
                let c = self.src[at + 1..]
                    .chars()
                    .next()
                    .expect("a character after the backslash");
                return Err(invalid(format!("`\\{c}` is not a string escape")));
            }
        };
        if (0xD800..0xDC00).contains(&code) && e == b'u' && self.bytes.get(next..next + 2) == Some(b"\\u") {
            if let Some(low @ 0xDC00..=0xDFFF) = hex(next + 2, 4) {
                let c = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                out.push(char::from_u32(c).expect("valid surrogate pair"));
                return Ok(next + 6);
            }
        }
        if (0xD800..0xDC00).contains(&code) && e == b'u' && ends_in_escape(&self.bytes[next..]) {
            // The low surrogate's escape may not have arrived yet.
            return Err(self.unclosed("a string"));
        }
        let c = char::from_u32(code)
            .ok_or_else(|| invalid(format!("the escape is not a Unicode scalar value (U+{code:04X})")))?;
        out.push(c);
        Ok(next)
    }

    fn number(&mut self) -> Result<B::Value, ParseError> {
        let start = self.pos;
        let b = self.bytes;
        let invalid = |message: &str| ParseError::new(ErrorCode::InvalidLiteral, start, message.to_string());
        let mut i = start;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        // Digits with single underscores between them.
        let digits = |mut i: usize| -> Result<usize, ParseError> {
            let from = i;
            while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'_' && i > from)) {
                if b[i] == b'_' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    if i + 1 == b.len() {
                        return Err(ParseError::new(
                            ErrorCode::Unclosed,
                            b.len(),
                            "the text ends inside a number",
                        ));
                    }
                    return Err(invalid("`_` in a number must stand between digits"));
                }
                i += 1;
            }
            Ok(i)
        };
        let int_start = i;
        i = digits(i)?;
        let int_digits = &self.src[int_start..i];
        if int_digits.len() > 1 && int_digits.starts_with('0') {
            let zeros = int_digits.len() - int_digits.trim_start_matches(['0', '_']).len();
            let zeros = if zeros == int_digits.len() { zeros - 1 } else { zeros };
            let err = invalid("an integer has no leading zeros");
            if int_digits.as_bytes()[zeros] == b'_' || int_digits[..zeros].contains('_') {
                return Err(err);
            }
            return Err(err.fix(crate::repair::drop_zeros(int_start, zeros, int_digits)));
        }
        let mut float = false;
        let mut frac_digits = 0;
        if b.get(i) == Some(&b'.') {
            float = true;
            let after = digits(i + 1)?;
            frac_digits = after - (i + 1);
            i = after;
        }
        if int_digits.is_empty() && frac_digits == 0 {
            if i == b.len() {
                return Err(self.unclosed("a number"));
            }
            return Err(invalid("expected a number"));
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            float = true;
            let mut j = i + 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            let after = digits(j)?;
            if after == j {
                if j == b.len() {
                    return Err(self.unclosed("a number"));
                }
                return Err(invalid("expected digits in the exponent"));
            }
            i = after;
        }
        if b.get(i).is_some_and(|&c| is_ident_continue(c) || c == b'.') {
            return Err(invalid("malformed number (only decimal literals are allowed)"));
        }
        self.pos = i;
        let written = &self.src[start..i];
        // Copied only when it has a `_` or a `+` to drop.
        let text: std::borrow::Cow<'_, str> = if written.bytes().any(|c| c == b'_' || c == b'+') {
            written
                .chars()
                .filter(|&c| c != '_' && c != '+')
                .collect::<String>()
                .into()
        } else {
            written.into()
        };
        self.build
            .number(&text, float)
            .ok_or_else(|| invalid("the number is too large for a 64-bit float"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_python_keyword_is_one() {
        let keywords = "False None True and as assert async await break class continue def del elif else except \
                        finally for from global if import in is lambda nonlocal not or pass raise return try while \
                        with yield";
        assert_eq!(keywords.split_whitespace().filter(|w| super::is_keyword(w)).count(), 35);
        assert!(!["match", "case", "type", "_", "Try", "nonlocals", ""]
            .iter()
            .any(|w| super::is_keyword(w)));
    }
}
