//! The JavaScript answer: one JSON text (the core's [`JsonText`] in the [`Js`] dialect), which
//! `index.js` hands to `JSON.parse` (see the crate docs for why, and for the tagging of
//! `BigInt`s).

use std::fmt::Write as _;

use beacon_core::host::{self, ArgError, Dialect, Failure, JsonText};
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
        let Ok(_) = host::run_into(sink.reading(capacity), input, op, host).map_err(Failure::Parse)?;
        Ok(())
    })
}

/// The JSON text of an answer.
type JsonSink = JsonText<Js>;

/// The answer that `write` writes into the sink, or its failure (see the crate docs).
fn write_answer(capacity: usize, write: impl FnOnce(&mut JsonSink) -> Result<(), Failure>) -> String {
    let mut sink = JsonText::new(Js { tagged: false }, capacity);
    sink.out().push('o');
    match write(&mut sink) {
        Ok(()) => {}
        Err(Failure::Parse(err)) => {
            // Nothing of the answer was written: a parse fails before it, and only the
            // arguments made while it read (now unused) can have been tagged.
            sink.out().clear();
            sink.out().push('e');
            sink.dialect.tagged = false;
            let Ok(_) = host::emit_error(&mut sink, &err);
        }
        Err(Failure::Arg(ArgError::Type(message))) => return format!("t{message}"),
        Err(Failure::Arg(ArgError::Value(message))) => return format!("r{message}"),
    }
    let tagged = sink.dialect.tagged;
    let mut out = sink.into_out();
    if tagged {
        // Both tags are one ASCII byte, so this is a one-byte overwrite.
        out.replace_range(0..1, "b");
    }
    out
}

/// Largest integer a JavaScript `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// JSON for `JSON.parse` and `index.js`'s reviver: integers beyond `Number.MAX_SAFE_INTEGER`
/// and strings that start with U+0000 are tagged strings (see the crate docs); floats are
/// written by JavaScript itself.
pub(crate) struct Js {
    /// Whether a tagged string was written.
    tagged: bool,
}

impl Dialect for Js {
    fn int(&mut self, value: i64, out: &mut String) {
        if value.unsigned_abs() <= MAX_SAFE_INTEGER {
            let _ = write!(out, "{value}");
        } else {
            self.tagged = true;
            let _ = write!(out, "\"\\u0000n{value}\"");
        }
    }

    fn big_int(&mut self, digits: &str, out: &mut String) {
        self.tagged = true;
        out.push_str("\"\\u0000n");
        out.push_str(digits);
        out.push('"');
    }

    fn float(&mut self, value: f64, out: &mut String) {
        if value == 0.0 && value.is_sign_negative() {
            // JavaScript's String(-0) is "0".
            out.push_str("-0.0");
        } else if value.is_finite() {
            // JavaScript's own shortest round-trip text (valid JSON for every finite value): a
            // call per float, but it keeps Rust's float formatting (~23 KB) out of the module.
            out.push_str(&js_number_to_string(value));
        } else {
            // The core never produces these (1e400 is `json.invalid_number`); JSON has no NaN.
            out.push_str("null");
        }
    }

    /// A string in value position (where the reviver looks), tagged when it starts with U+0000.
    fn str(&mut self, value: &str, out: &mut String) {
        if value.starts_with('\0') {
            self.tagged = true;
            out.push_str("\"\\u0000s");
            beacon_core::write_json_escaped(value, out);
            out.push('"');
        } else {
            beacon_core::write_json_string(value, out);
        }
    }
}
