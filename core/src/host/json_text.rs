//! A [`Sink`] that writes JSON text ([`JsonText`]), for hosts that take an answer or an
//! argument as text (WebAssembly's answer, Arrow's arguments column) rather than as objects.
//!
//! Text is written in order, but a parse that builds arguments while it reads
//! ([`run_into`](super::run_into)) makes values before the answer around them exists, and a few
//! grammars make a value before they know where it goes. So every value is a [`Piece`] (where
//! its text is) and is moved into place when it is pushed or set ([`JsonText::place`]).

use std::fmt::Write as _;

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
}

/// Plain JSON, as [`Value::to_json`](crate::Value::to_json) writes it.
#[derive(Debug, Default, Clone, Copy)]
pub struct Plain;

impl Dialect for Plain {}

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

/// A value written: where its text is, and whether among the values made while a parse read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    start: usize,
    end: usize,
    aside: bool,
}

/// A list or mapping being written: where it starts, whether no item was written yet, and where
/// the current item's value belongs (after its separator or key).
#[derive(Debug)]
pub struct Open {
    start: usize,
    first: bool,
    next: usize,
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
            self.buf().push(',');
        }
    }

    /// Places `value` where `open`'s current item belongs:
    /// - a value made while the parse read is copied there once it has ended;
    /// - a value written after that place (after the text of a reading that failed midway: a
    ///   parameter's text tried as JSON first) is moved there, dropping what lay between;
    /// - a value written before its list was opened (call syntax's `(a, b)`: `a` is read
    ///   before the comma makes it a tuple) is moved after the list's opening.
    fn place(&mut self, open: &mut Open, value: Piece) {
        if value.aside && !self.reading {
            self.out.push_str(&self.aside[value.start..value.end]);
        } else if value.end <= open.start {
            let buf = self.buf();
            let moved = buf.split_off(value.start);
            let len = value.end - value.start;
            buf.push_str(&moved[len..]);
            open.start -= len;
            open.next = buf.len();
            buf.push_str(&moved[..len]);
        } else if value.start != open.next {
            self.buf().replace_range(open.next..value.start, "");
        }
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
        let buf = self.buf();
        write_string(key.as_str(), buf);
        buf.push(':');
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
