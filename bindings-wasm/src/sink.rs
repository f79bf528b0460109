//! The JavaScript [`Sink`]: writes the answer as one JSON text, which `index.js` hands to
//! `JSON.parse` (see the crate docs for why, and for the tagging of `BigInt`s).

use std::fmt::Write as _;

use beacon_core::host::{self, ArgError, Failure, Key, Sink};
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `String(number)`.
    #[wasm_bindgen(js_name = String)]
    fn js_number_to_string(number: f64) -> String;
}

/// The answer for `output` (see the crate docs).
pub(crate) fn answer(capacity: usize, output: Result<host::Output, Failure>) -> String {
    write_answer(capacity, |sink| {
        let Ok(_) = host::emit(sink, output?);
        Ok(())
    })
}

/// The answer of `op` on `input` for `host`, its arguments written as the parse reads them
/// ([`host::run_into`]): no `Value` tree is built for them.
pub(crate) fn run_answer(
    capacity: usize,
    input: &host::Input<'_>,
    host: host::Host,
    op: impl FnOnce() -> Result<host::Op, ArgError>,
) -> String {
    write_answer(capacity, |sink| {
        let op = op().map_err(Failure::Arg)?;
        // The arguments are most of an answer: room for them taken once, as for the answer.
        sink.aside.reserve(capacity);
        sink.reading = true;
        let Ok(_) = host::run_into(sink, input, op, host).map_err(Failure::Parse)?;
        Ok(())
    })
}

/// The answer that `write` writes into the sink, or its failure (see the crate docs).
fn write_answer(capacity: usize, write: impl FnOnce(&mut JsonSink) -> Result<(), Failure>) -> String {
    let mut sink = JsonSink {
        out: String::with_capacity(capacity),
        aside: String::new(),
        reading: false,
        tagged: false,
    };
    sink.out.push('o');
    match write(&mut sink) {
        Ok(()) => {}
        Err(Failure::Parse(err)) => {
            // Nothing of the answer was written: a parse fails before it, and only the
            // arguments set aside while it read (now unused) can have been tagged.
            sink.out.clear();
            sink.out.push('e');
            sink.tagged = false;
            let Ok(_) = host::emit_error(&mut sink, &err);
        }
        Err(Failure::Arg(ArgError::Type(message))) => return format!("t{message}"),
        Err(Failure::Arg(ArgError::Value(message))) => return format!("r{message}"),
    }
    if sink.tagged {
        // Both tags are one ASCII byte, so this is a one-byte overwrite.
        sink.out.replace_range(0..1, "b");
    }
    sink.out
}

/// Largest integer a JavaScript `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

type Never = std::convert::Infallible;

/// Writes the answer as JSON text in order. The arguments a parse builds while it reads
/// ([`host::run_into`]) come before the answer: they are written to `aside`, and each is copied
/// into the answer where it is placed. A memory copy of their text costs less than the `Value`
/// tree it replaces (one allocation per string, list and object, then walked and freed).
pub(crate) struct JsonSink {
    out: String,
    /// The values written before the parse ended ([`Sink::parsed`]).
    aside: String,
    /// Whether the parse is still reading: values go to `aside`.
    reading: bool,
    /// Whether a tagged string (see the crate docs) was written.
    tagged: bool,
}

/// A value written: where its text is, and whether in `aside` (made while the parse read).
#[derive(Clone, Copy)]
pub(crate) struct Piece {
    start: usize,
    end: usize,
    aside: bool,
}

/// A list or mapping being written: where it starts in its buffer, whether no item was written
/// yet, and where the current item's value belongs (after its separator or key).
pub(crate) struct Open {
    start: usize,
    first: bool,
    next: usize,
}

impl JsonSink {
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
    fn scalar(&mut self, write: impl FnOnce(&mut String, &mut bool)) -> Result<Piece, Never> {
        let buf = if self.reading { &mut self.aside } else { &mut self.out };
        let start = buf.len();
        write(buf, &mut self.tagged);
        Ok(self.piece(start))
    }

    fn open(&mut self, bracket: char) -> Result<Open, Never> {
        let buf = self.buf();
        let start = buf.len();
        buf.push(bracket);
        Ok(Open {
            start,
            first: true,
            next: start + 1,
        })
    }

    fn close(&mut self, open: &Open, bracket: char) -> Result<Piece, Never> {
        self.buf().push(bracket);
        Ok(self.piece(open.start))
    }

    /// Separates an item or entry from the one before it.
    fn next(&mut self, open: &mut Open) {
        if !std::mem::take(&mut open.first) {
            self.buf().push(',');
        }
    }

    /// Places `value` where `open`'s current item belongs:
    /// - a value set aside while the parse read is copied there once it has ended;
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

impl Sink for JsonSink {
    type Value = Piece;
    type List = Open;
    type Map = Open;
    type Error = Never;

    fn null(&mut self) -> Result<Piece, Never> {
        self.scalar(|out, _| out.push_str("null"))
    }

    fn bool(&mut self, value: bool) -> Result<Piece, Never> {
        self.scalar(|out, _| out.push_str(if value { "true" } else { "false" }))
    }

    fn int(&mut self, value: i64) -> Result<Piece, Never> {
        self.scalar(|out, tagged| {
            if value.unsigned_abs() <= MAX_SAFE_INTEGER {
                let _ = write!(out, "{value}");
            } else {
                *tagged = true;
                let _ = write!(out, "\"\\u0000n{value}\"");
            }
        })
    }

    fn big_int(&mut self, digits: &str) -> Result<Piece, Never> {
        self.scalar(|out, tagged| {
            *tagged = true;
            out.push_str("\"\\u0000n");
            out.push_str(digits);
            out.push('"');
        })
    }

    fn float(&mut self, value: f64) -> Result<Piece, Never> {
        self.scalar(|out, _| {
            if value == 0.0 && value.is_sign_negative() {
                // JavaScript's String(-0) is "0".
                out.push_str("-0.0");
            } else if value.is_finite() {
                // JavaScript's own shortest round-trip text (valid JSON for every finite value):
                // a call per float, but it keeps Rust's float formatting (~23 KB) out of the
                // module.
                out.push_str(&js_number_to_string(value));
            } else {
                // The core never produces these (1e400 is `json.invalid_number`); JSON has no NaN.
                out.push_str("null");
            }
        })
    }

    /// A string in value position (where the reviver looks), tagged when it starts with U+0000.
    fn str(&mut self, value: &str) -> Result<Piece, Never> {
        self.scalar(|out, tagged| {
            if value.starts_with('\0') {
                *tagged = true;
                out.push_str("\"\\u0000s");
                escaped(value, out);
                out.push('"');
            } else {
                string(value, out);
            }
        })
    }

    fn list(&mut self, _: usize) -> Result<Open, Never> {
        self.open('[')
    }

    fn item(&mut self, list: &mut Open) -> Result<(), Never> {
        self.next(list);
        list.next = self.buf().len();
        Ok(())
    }

    fn push(&mut self, list: &mut Open, value: Piece) -> Result<(), Never> {
        self.place(list, value);
        Ok(())
    }

    fn end_list(&mut self, list: Open) -> Result<Piece, Never> {
        self.close(&list, ']')
    }

    fn map(&mut self, _: usize) -> Result<Open, Never> {
        self.open('{')
    }

    /// Keys are never tagged: the reviver only looks at values.
    fn key(&mut self, map: &mut Open, key: Key<'_>) -> Result<(), Never> {
        self.next(map);
        let buf = self.buf();
        string(key.as_str(), buf);
        buf.push(':');
        map.next = buf.len();
        Ok(())
    }

    fn set(&mut self, map: &mut Open, value: Piece) -> Result<(), Never> {
        self.place(map, value);
        Ok(())
    }

    fn end_map(&mut self, map: Open) -> Result<Piece, Never> {
        self.close(&map, '}')
    }

    fn parsed(&mut self) {
        self.reading = false;
    }
}

/// Writes `s` as a JSON string literal.
fn string(s: &str, out: &mut String) {
    out.push('"');
    escaped(s, out);
    out.push('"');
}

/// Writes the JSON-escaped contents of `s`: copies unescaped runs in one go (most strings have
/// nothing to escape).
fn escaped(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}
