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
    write_answer(
        capacity,
        output.map(|output| move |sink: &mut JsonSink| host::emit(sink, output)),
    )
}

/// The answer that `write` builds into the sink, or the failure (see the crate docs).
pub(crate) fn write_answer<W>(capacity: usize, output: Result<W, Failure>) -> String
where
    W: FnOnce(&mut JsonSink) -> Result<(), std::convert::Infallible>,
{
    let mut sink = JsonSink {
        out: String::with_capacity(capacity),
        tagged: false,
    };
    sink.out.push('o');
    let written = match output {
        Ok(write) => write(&mut sink),
        Err(Failure::Parse(err)) => {
            sink.out.replace_range(0..1, "e");
            host::emit_error(&mut sink, &err)
        }
        Err(Failure::Arg(ArgError::Type(message))) => return format!("t{message}"),
        Err(Failure::Arg(ArgError::Value(message))) => return format!("r{message}"),
    };
    let Ok(()) = written;
    if sink.tagged {
        // Both tags are one ASCII byte, so this is a one-byte overwrite.
        sink.out.replace_range(0..1, "b");
    }
    sink.out
}

/// Largest integer a JavaScript `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

type Never = std::convert::Infallible;

pub(crate) struct JsonSink {
    pub(crate) out: String,
    /// Whether a tagged string (see the crate docs) was written.
    pub(crate) tagged: bool,
}

impl JsonSink {
    /// Separates an item or entry from the one before it.
    fn next(&mut self, first: &mut bool) {
        if !std::mem::take(first) {
            self.out.push(',');
        }
    }

    /// A string in value position (where the reviver looks), tagged when it starts with U+0000.
    fn string_value(&mut self, s: &str) {
        if s.starts_with('\0') {
            self.tagged = true;
            self.out.push_str("\"\\u0000s");
            escaped(s, &mut self.out);
            self.out.push('"');
        } else {
            string(s, &mut self.out);
        }
    }
}

impl Sink for JsonSink {
    type Value = ();
    /// Whether no item was written yet.
    type List = bool;
    type Map = bool;
    type Error = Never;

    fn null(&mut self) -> Result<(), Never> {
        self.out.push_str("null");
        Ok(())
    }

    fn bool(&mut self, value: bool) -> Result<(), Never> {
        self.out.push_str(if value { "true" } else { "false" });
        Ok(())
    }

    fn int(&mut self, value: i64) -> Result<(), Never> {
        if value.unsigned_abs() <= MAX_SAFE_INTEGER {
            let _ = write!(self.out, "{value}");
        } else {
            self.tagged = true;
            let _ = write!(self.out, "\"\\u0000n{value}\"");
        }
        Ok(())
    }

    fn big_int(&mut self, digits: &str) -> Result<(), Never> {
        self.tagged = true;
        self.out.push_str("\"\\u0000n");
        self.out.push_str(digits);
        self.out.push('"');
        Ok(())
    }

    fn float(&mut self, value: f64) -> Result<(), Never> {
        if value == 0.0 && value.is_sign_negative() {
            // JavaScript's String(-0) is "0".
            self.out.push_str("-0.0");
        } else if value.is_finite() {
            // JavaScript's own shortest round-trip text (valid JSON for every finite value): a
            // call per float, but it keeps Rust's float formatting (~23 KB) out of the module.
            self.out.push_str(&js_number_to_string(value));
        } else {
            // The core never produces these (1e400 is `json.invalid_number`); JSON has no NaN.
            self.out.push_str("null");
        }
        Ok(())
    }

    fn str(&mut self, value: &str) -> Result<(), Never> {
        self.string_value(value);
        Ok(())
    }

    fn list(&mut self, _: usize) -> Result<bool, Never> {
        self.out.push('[');
        Ok(true)
    }

    fn item(&mut self, first: &mut bool) -> Result<(), Never> {
        self.next(first);
        Ok(())
    }

    fn push(&mut self, _: &mut bool, (): ()) -> Result<(), Never> {
        Ok(())
    }

    fn end_list(&mut self, _: bool) -> Result<(), Never> {
        self.out.push(']');
        Ok(())
    }

    fn map(&mut self, _: usize) -> Result<bool, Never> {
        self.out.push('{');
        Ok(true)
    }

    /// Keys are never tagged: the reviver only looks at values.
    fn key(&mut self, first: &mut bool, key: Key<'_>) -> Result<(), Never> {
        self.next(first);
        string(key.as_str(), &mut self.out);
        self.out.push(':');
        Ok(())
    }

    fn set(&mut self, _: &mut bool, (): ()) -> Result<(), Never> {
        Ok(())
    }

    fn end_map(&mut self, _: bool) -> Result<(), Never> {
        self.out.push('}');
        Ok(())
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
