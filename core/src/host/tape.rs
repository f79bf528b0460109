//! A [`Sink`] that records values as compact bytes ([`Tape`]), to be built in another sink later
//! ([`Tape::replay`]). A host that cannot make its objects while the parse runs (Python, with the
//! interpreter released for a large input) records the answer with [`run_into`](super::run_into)
//! and then builds it: no [`Value`](crate::Value) tree is made, and the core's calls are freed
//! before the host's objects exist.
//!
//! Each value is a tag byte and its payload, written in order; a list or mapping is its tag, its
//! items (a mapping's keys before their values), and [`END`]. Numbers are written six bits to a
//! byte, low bits first, a byte below 0x40 ending them (integers zigzagged), so a small integer
//! takes two bytes and every byte but a string's own is ASCII: the tape is a `String`, and a
//! string is read back without checking its UTF-8 again. A call's arguments of
//! [`IN_TEXT_FROM`] bytes or more are not recorded but left in the text ([`IN_TEXT`]) and built
//! from it when replayed, so a large argument is never held twice.

use super::input::Input;
use super::ordered::{Open, Piece};
use super::sink::{Field, Key, Sink, Written};
use crate::call::Grammar;

/// The least size of a call's recorded arguments for the tape to leave them in the text instead
/// ([`Sink::built`]): building them from the text when replayed reads them twice, which costs
/// little next to a value this large, and the tape then holds a few bytes where it held as many
/// as the text or more.
pub const IN_TEXT_FROM: usize = 1 << 16;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
/// Zigzagged.
const INT: u8 = 3;
/// The bits.
const FLOAT: u8 = 4;
/// The decimal digits' length, and the digits.
const BIG_INT: u8 = 5;
/// The length, and the UTF-8 bytes.
const STR: u8 = 6;
/// The index of the id in [`Tape::ids`].
const ID: u8 = 7;
const LIST: u8 = 8;
const MAP: u8 = 9;
/// Closes a list or a mapping.
const END: u8 = 10;
/// A key that is one of the answer's fields: its index in [`Field::ALL`].
const FIELD: u8 = 11;
/// A key from the data: the length, and the UTF-8 bytes.
const KEY: u8 = 12;
/// A call's arguments left in the text: their offset, and their grammar ([`grammar_code`]).
const IN_TEXT: u8 = 13;

/// Records values as bytes. Values made while a parse reads ([`run_into`](super::run_into),
/// until [`Sink::parsed`]) go to a buffer of their own ([`Tape::reading`]) and are copied into
/// the answer where it places them.
#[derive(Debug, Default)]
pub struct Tape {
    out: String,
    aside: String,
    reading: bool,
    /// The ids recorded ([`Sink::id`]), each once.
    ids: Vec<&'static str>,
}

impl Tape {
    pub fn new() -> Self {
        Tape::default()
    }

    /// A tape with room for `capacity` bytes of the answer.
    pub fn with_capacity(capacity: usize) -> Self {
        Tape {
            out: String::with_capacity(capacity),
            ..Tape::default()
        }
    }

    /// Readies the tape for a parse that builds while it reads: room for `capacity` bytes of
    /// what it makes, until [`Sink::parsed`].
    pub fn reading(&mut self, capacity: usize) -> &mut Self {
        self.aside.reserve(capacity);
        self.reading = true;
        self
    }

    /// Builds the value recorded as `piece` in `sink`; `input` is the one the parse read, where
    /// the arguments left in the text are.
    pub fn replay<S: Sink>(&self, piece: Piece, input: &Input<'_>, sink: &mut S) -> Result<S::Value, S::Error> {
        // Only a text operation leaves arguments in the text.
        let source = input.text().unwrap_or_default();
        let text = if piece.aside { &self.aside } else { &self.out };
        let mut reader = Reader {
            text: &text[..piece.end],
            pos: piece.start,
            ids: &self.ids,
            source,
        };
        let tag = reader.byte();
        reader.value(tag, sink)
    }

    /// The number of bytes recorded.
    pub fn len(&self) -> usize {
        self.out.len() + self.aside.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn buf(&mut self) -> &mut String {
        if self.reading {
            &mut self.aside
        } else {
            &mut self.out
        }
    }

    /// Writes `tag` and what `write` adds, and answers it as a [`Piece`].
    fn record(&mut self, tag: u8, write: impl FnOnce(&mut String)) -> Piece {
        let aside = self.reading;
        let buf = self.buf();
        let start = buf.len();
        buf.push(char::from(tag));
        write(buf);
        Piece {
            start,
            end: buf.len(),
            aside,
        }
    }

    fn open(&mut self, tag: u8) -> Open {
        let buf = self.buf();
        let start = buf.len();
        buf.push(char::from(tag));
        Open {
            start,
            first: true,
            next: start + 1,
        }
    }

    fn close(&mut self, open: &Open) -> Piece {
        let aside = self.reading;
        let buf = self.buf();
        buf.push(char::from(END));
        Piece {
            start: open.start,
            end: buf.len(),
            aside,
        }
    }

    fn place(&mut self, open: &mut Open, value: Piece) {
        super::ordered::place(&mut self.out, &mut self.aside, self.reading, open, value);
    }
}

fn write_number(buf: &mut String, mut n: u64) {
    while n >= 0x40 {
        buf.push(char::from((n.to_le_bytes()[0] & 0x3f) | 0x40));
        n >>= 6;
    }
    buf.push(char::from(n.to_le_bytes()[0]));
}

fn write_len(buf: &mut String, len: usize) {
    write_number(buf, len as u64);
}

fn write_str(buf: &mut String, text: &str) {
    write_len(buf, text.len());
    buf.push_str(text);
}

/// The grammars whose arguments a tape leaves in the text, by code.
const GRAMMARS: [Grammar; 3] = [Grammar::Json, Grammar::JsonString, Grammar::CallSyntax];

fn grammar_code(grammar: Grammar) -> Option<u8> {
    GRAMMARS
        .iter()
        .position(|g| *g == grammar)
        .and_then(|code| u8::try_from(code).ok())
}

impl Sink for Tape {
    type Value = Piece;
    type List = Open;
    type Map = Open;
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<Piece, Self::Error> {
        Ok(self.record(NULL, |_| {}))
    }

    fn bool(&mut self, value: bool) -> Result<Piece, Self::Error> {
        Ok(self.record(if value { TRUE } else { FALSE }, |_| {}))
    }

    fn int(&mut self, value: i64) -> Result<Piece, Self::Error> {
        Ok(self.record(INT, |buf| {
            write_number(buf, u64::from_le_bytes(((value << 1) ^ (value >> 63)).to_le_bytes()));
        }))
    }

    fn big_int(&mut self, digits: &str) -> Result<Piece, Self::Error> {
        Ok(self.record(BIG_INT, |buf| write_str(buf, digits)))
    }

    fn float(&mut self, value: f64) -> Result<Piece, Self::Error> {
        Ok(self.record(FLOAT, |buf| write_number(buf, value.to_bits())))
    }

    fn str(&mut self, value: &str) -> Result<Piece, Self::Error> {
        Ok(self.record(STR, |buf| write_str(buf, value)))
    }

    fn id(&mut self, value: &'static str) -> Result<Piece, Self::Error> {
        let index = self.ids.iter().position(|id| *id == value).unwrap_or_else(|| {
            self.ids.push(value);
            self.ids.len() - 1
        });
        Ok(self.record(ID, |buf| write_len(buf, index)))
    }

    fn list(&mut self, _: usize) -> Result<Open, Self::Error> {
        Ok(self.open(LIST))
    }

    fn item(&mut self, list: &mut Open) -> Result<(), Self::Error> {
        list.next = self.buf().len();
        Ok(())
    }

    fn push(&mut self, list: &mut Open, value: Piece) -> Result<(), Self::Error> {
        self.place(list, value);
        Ok(())
    }

    fn end_list(&mut self, list: Open) -> Result<Piece, Self::Error> {
        Ok(self.close(&list))
    }

    fn map(&mut self, _: usize) -> Result<Open, Self::Error> {
        Ok(self.open(MAP))
    }

    fn key(&mut self, map: &mut Open, key: Key<'_>) -> Result<(), Self::Error> {
        let buf = self.buf();
        match key {
            Key::Field(field) => {
                buf.push(char::from(FIELD));
                buf.push(char::from(field as u8));
            }
            Key::Data(key) => {
                buf.push(char::from(KEY));
                write_str(buf, key);
            }
        }
        map.next = buf.len();
        Ok(())
    }

    fn set(&mut self, map: &mut Open, value: Piece) -> Result<(), Self::Error> {
        self.place(map, value);
        Ok(())
    }

    fn end_map(&mut self, map: Open) -> Result<Piece, Self::Error> {
        Ok(self.close(&map))
    }

    fn parsed(&mut self) {
        self.reading = false;
    }

    /// Large arguments, the last value recorded, are dropped from the tape and left in the
    /// text (from `IN_TEXT_FROM` bytes on).
    fn built(&mut self, value: Piece, written: Written) -> Piece {
        let buf = if value.aside { &mut self.aside } else { &mut self.out };
        let Some(code) = grammar_code(written.grammar) else {
            return value;
        };
        if value.end - value.start < IN_TEXT_FROM || value.end != buf.len() {
            return value;
        }
        buf.truncate(value.start);
        // Give back the room the large value took.
        if buf.capacity() > 2 * buf.len() + IN_TEXT_FROM {
            buf.shrink_to(2 * buf.len());
        }
        buf.push(char::from(IN_TEXT));
        write_len(buf, written.at);
        buf.push(char::from(code));
        Piece {
            start: value.start,
            end: buf.len(),
            aside: value.aside,
        }
    }
}

/// Reads a tape back into a sink. The text is the tape's own, so it is well formed.
struct Reader<'t> {
    text: &'t str,
    pos: usize,
    ids: &'t [&'static str],
    source: &'t str,
}

impl<'t> Reader<'t> {
    fn byte(&mut self) -> u8 {
        let byte = self.text.as_bytes()[self.pos];
        self.pos += 1;
        byte
    }

    fn number(&mut self) -> u64 {
        let mut n = 0;
        let mut shift = 0;
        loop {
            let byte = self.byte();
            n |= u64::from(byte & 0x3f) << shift;
            if byte < 0x40 {
                return n;
            }
            shift += 6;
        }
    }

    fn len(&mut self) -> usize {
        usize::try_from(self.number()).unwrap_or(usize::MAX)
    }

    fn str(&mut self) -> &'t str {
        let len = self.len();
        let text = &self.text[self.pos..self.pos + len];
        self.pos += len;
        text
    }

    fn value<S: Sink>(&mut self, tag: u8, sink: &mut S) -> Result<S::Value, S::Error> {
        match tag {
            NULL => sink.null(),
            FALSE => sink.bool(false),
            TRUE => sink.bool(true),
            INT => {
                let n = self.number();
                sink.int(i64::from_le_bytes((n >> 1).to_le_bytes()) ^ -i64::from(n & 1 == 1))
            }
            FLOAT => sink.float(f64::from_bits(self.number())),
            BIG_INT => sink.big_int(self.str()),
            STR => sink.str(self.str()),
            ID => {
                let index = self.len();
                sink.id(self.ids[index])
            }
            LIST => {
                let mut list = sink.list(0)?;
                loop {
                    let tag = self.byte();
                    if tag == END {
                        return sink.end_list(list);
                    }
                    sink.item(&mut list)?;
                    let item = self.value(tag, sink)?;
                    sink.push(&mut list, item)?;
                }
            }
            MAP => {
                let mut map = sink.map(0)?;
                loop {
                    match self.byte() {
                        END => return sink.end_map(map),
                        FIELD => {
                            let field = Field::ALL[usize::from(self.byte())];
                            sink.key(&mut map, Key::Field(field))?;
                        }
                        _ => {
                            let key = self.str();
                            sink.key(&mut map, Key::Data(key))?;
                        }
                    }
                    let tag = self.byte();
                    let value = self.value(tag, sink)?;
                    sink.set(&mut map, value)?;
                }
            }
            IN_TEXT => {
                let at = self.len();
                let grammar = GRAMMARS[usize::from(self.byte())];
                super::raw::written(sink, self.source, at, grammar)
            }
            _ => unreachable!("a tape holds only the tags it writes"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{JsonText, Plain};

    /// Records `write`'s value on a tape and replays it as JSON text.
    fn replayed(write: impl FnOnce(&mut Tape) -> Piece) -> String {
        let mut tape = Tape::new();
        let piece = write(&mut tape);
        let mut text = JsonText::new(Plain, 0);
        let Ok(out) = tape.replay(piece, &Input::Text(""), &mut text);
        text.text(out).to_owned()
    }

    #[test]
    fn scalars_replay_exactly() {
        let long = "é".repeat(9000);
        let Ok(s) = Tape::new().str(&long);
        assert_eq!(
            s.end - s.start,
            1 + 3 + long.len(),
            "a length of 18000 takes three bytes"
        );
        for (written, want) in [
            (
                replayed(|t| t.int(i64::MIN).unwrap_or_else(|e| match e {})),
                "-9223372036854775808".to_owned(),
            ),
            (
                replayed(|t| t.float(-0.0).unwrap_or_else(|e| match e {})),
                "-0.0".to_owned(),
            ),
            (
                replayed(|t| t.float(1e300).unwrap_or_else(|e| match e {})),
                "1e300".to_owned(),
            ),
            (
                replayed(|t| {
                    t.big_int("-123456789012345678901234567890")
                        .unwrap_or_else(|e| match e {})
                }),
                "-123456789012345678901234567890".to_owned(),
            ),
            (
                replayed(|t| t.str(&long).unwrap_or_else(|e| match e {})),
                format!("\"{long}\""),
            ),
            (
                replayed(|t| t.id("hermes").unwrap_or_else(|e| match e {})),
                "\"hermes\"".to_owned(),
            ),
        ] {
            assert_eq!(written, want);
        }
    }

    #[test]
    fn containers_and_values_made_while_reading_replay_in_place() {
        let mut tape = Tape::new();
        tape.reading(0);
        let Ok(arguments) = (|| -> Result<Piece, std::convert::Infallible> {
            let mut map = tape.map(1)?;
            tape.key(&mut map, Key::Data("k"))?;
            let mut list = tape.list(2)?;
            for value in [true, false] {
                tape.item(&mut list)?;
                let v = tape.bool(value)?;
                tape.push(&mut list, v)?;
            }
            let list = tape.end_list(list)?;
            tape.set(&mut map, list)?;
            tape.end_map(map)
        })();
        tape.parsed();
        let Ok(answer) = (|| -> Result<Piece, std::convert::Infallible> {
            let mut call = tape.map(2)?;
            tape.key(&mut call, Key::Field(Field::Name))?;
            let name = tape.id("f")?;
            tape.set(&mut call, name)?;
            tape.key(&mut call, Key::Field(Field::Arguments))?;
            tape.set(&mut call, arguments)?;
            tape.key(&mut call, Key::Field(Field::Format))?;
            let null = tape.null()?;
            tape.set(&mut call, null)?;
            tape.end_map(call)
        })();
        let mut text = JsonText::new(Plain, 0);
        let Ok(out) = tape.replay(answer, &Input::Text(""), &mut text);
        assert_eq!(
            text.text(out),
            r#"{"name":"f","arguments":{"k":[true,false]},"format":null}"#
        );
    }
}
