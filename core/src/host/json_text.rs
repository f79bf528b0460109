//! A [`Sink`] that writes JSON text ([`JsonText`]), for hosts that take an answer or an
//! argument as text (WebAssembly's answer, Arrow's arguments column) rather than as objects.
//!
//! Text is written in order, each value moved into place when the value around it takes it
//! ([`super::ordered`]).

use std::fmt::Write as _;

use super::ordered::{Open, Piece};
use super::sink::{Key, Sink};
use crate::value::write_json_string as write_string;

/// How a host's JSON text writes the scalars plain JSON cannot carry for it (JavaScript's
/// integers beyond 2^53, say). Every method writes to `out`; the defaults write plain JSON, as
/// [`Value::to_json`](crate::Value::to_json) does.
pub trait Dialect {
    fn int(&mut self, value: i64, out: &mut String) {
        let _ = write!(out, "{value}");
    }
    /// An integer outside `i64`: its decimal digits, with a leading `-` when negative.
    fn big_int(&mut self, digits: &str, out: &mut String) {
        out.push_str(digits);
    }
    fn float(&mut self, value: f64, out: &mut String) {
        crate::value::write_float(value, out);
    }
    fn str(&mut self, value: &str, out: &mut String) {
        write_string(value, out);
    }
    /// What follows each item of a list and each entry of an object but the last, and what
    /// follows each key.
    fn separators(&self) -> (&'static str, &'static str) {
        (",", ":")
    }
}

/// Plain JSON, as [`Value::to_json`](crate::Value::to_json) writes it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Plain;

impl Dialect for Plain {}

/// Plain JSON with a space after each `,` and `:`, as Python's `json.dumps` spaces it by default
/// (the arguments strings an inference server's parsers answer with).
#[derive(Debug, Default, Clone, Copy)]
pub struct Spaced;

impl Dialect for Spaced {
    fn separators(&self) -> (&'static str, &'static str) {
        (", ", ": ")
    }
}

/// Writes values as JSON text. Values made while a parse reads ([`run_into`](super::run_into),
/// until [`Sink::parsed`]) go to a buffer of their own ([`JsonText::reading`]); the others to
/// [`JsonText::out`]. A piece made while reading is copied into `out` where the answer places it.
#[derive(Debug, Default)]
pub struct JsonText<D> {
    out: String,
    aside: String,
    reading: bool,
    pub dialect: D,
}

impl<D: Dialect> JsonText<D> {
    /// A writer whose `out` has room for `capacity` bytes.
    pub fn new(dialect: D, capacity: usize) -> Self {
        JsonText {
            out: String::with_capacity(capacity),
            aside: String::new(),
            reading: false,
            dialect,
        }
    }

    /// Readies the writer for a parse that builds while it reads: room for `capacity` bytes of
    /// what it makes, until [`Sink::parsed`].
    pub fn reading(&mut self, capacity: usize) -> &mut Self {
        self.aside.reserve(capacity);
        self.reading = true;
        self
    }

    /// The answer's text.
    pub fn out(&mut self) -> &mut String {
        &mut self.out
    }

    pub fn into_out(self) -> String {
        self.out
    }

    /// The text of `piece`.
    pub fn text(&self, piece: Piece) -> &str {
        let buf = if piece.aside { &self.aside } else { &self.out };
        &buf[piece.start..piece.end]
    }

    /// Where the next value is written.
    fn buf(&mut self) -> &mut String {
        if self.reading {
            &mut self.aside
        } else {
            &mut self.out
        }
    }

    /// The value written from `start` on in the buffer.
    fn piece(&mut self, start: usize) -> Piece {
        Piece {
            start,
            end: self.buf().len(),
            aside: self.reading,
        }
    }

    /// Writes a scalar with `write` and answers it as a [`Piece`].
    fn scalar(&mut self, write: impl FnOnce(&mut D, &mut String)) -> Piece {
        let buf = if self.reading { &mut self.aside } else { &mut self.out };
        let start = buf.len();
        write(&mut self.dialect, buf);
        self.piece(start)
    }

    fn open(&mut self, bracket: char) -> Open {
        let buf = self.buf();
        let start = buf.len();
        buf.push(bracket);
        Open {
            start,
            first: true,
            next: start + 1,
        }
    }

    fn close(&mut self, open: &Open, bracket: char) -> Piece {
        self.buf().push(bracket);
        self.piece(open.start)
    }

    /// Separates an item or entry from the one before it.
    fn next(&mut self, open: &mut Open) {
        if !std::mem::take(&mut open.first) {
            let comma = self.dialect.separators().0;
            self.buf().push_str(comma);
        }
    }

    fn place(&mut self, open: &mut Open, value: Piece) {
        super::ordered::place(&mut self.out, &mut self.aside, self.reading, open, value);
    }
}

impl<D: Dialect> Sink for JsonText<D> {
    type Value = Piece;
    type List = Open;
    type Map = Open;
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|_, out| out.push_str("null")))
    }

    fn bool(&mut self, value: bool) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|_, out| out.push_str(if value { "true" } else { "false" })))
    }

    fn int(&mut self, value: i64) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|d, out| d.int(value, out)))
    }

    fn big_int(&mut self, digits: &str) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|d, out| d.big_int(digits, out)))
    }

    fn float(&mut self, value: f64) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|d, out| d.float(value, out)))
    }

    fn str(&mut self, value: &str) -> Result<Piece, Self::Error> {
        Ok(self.scalar(|d, out| d.str(value, out)))
    }

    fn list(&mut self, _: usize) -> Result<Open, Self::Error> {
        Ok(self.open('['))
    }

    fn item(&mut self, list: &mut Open) -> Result<(), Self::Error> {
        self.next(list);
        list.next = self.buf().len();
        Ok(())
    }

    fn push(&mut self, list: &mut Open, value: Piece) -> Result<(), Self::Error> {
        self.place(list, value);
        Ok(())
    }

    fn end_list(&mut self, list: Open) -> Result<Piece, Self::Error> {
        Ok(self.close(&list, ']'))
    }

    fn map(&mut self, _: usize) -> Result<Open, Self::Error> {
        Ok(self.open('{'))
    }

    /// Keys are written plain, whatever the dialect: a dialect's marks are for values.
    fn key(&mut self, map: &mut Open, key: Key<'_>) -> Result<(), Self::Error> {
        self.next(map);
        let colon = self.dialect.separators().1;
        let buf = self.buf();
        write_string(key.as_str(), buf);
        buf.push_str(colon);
        map.next = buf.len();
        Ok(())
    }

    fn set(&mut self, map: &mut Open, value: Piece) -> Result<(), Self::Error> {
        self.place(map, value);
        Ok(())
    }

    fn end_map(&mut self, map: Open) -> Result<Piece, Self::Error> {
        Ok(self.close(&map, '}'))
    }

    fn parsed(&mut self) {
        self.reading = false;
    }
}
