//! WebAssembly binding of beacon-core, wrapped by the npm package `beacon-toolcall`.
//!
//! This module only converts. The public JavaScript API (`parseToolCall`, `parseToolCalls`,
//! `parseResponse`, `detectProvider`, `hasToolCalls`, `formatResults`, the `ToolCallError`
//! classes, `TypeError`/`RangeError` for bad arguments) lives in the hand-written `js/index.js`,
//! which calls the exports below and turns their answers into plain objects or an `Error`.
//!
//! # Performance notes
//!
//! The answer crosses into JavaScript as **one JSON string** that `index.js` hands to
//! `JSON.parse`, instead of objects built here with `js_sys::Object`/`Array`/`Reflect::set`.
//! Measured on Node 20 (wasm-bindgen 0.2.130, the same argument values converted both ways, so
//! only the conversion differs): 1.6 µs against 3.8 µs per call for a two-argument call, 1.9 µs
//! against 4.4 µs for three arguments, and 67 µs against 195 µs for arguments holding 50 small
//! records: one boundary crossing and V8's native JSON parser beat one crossing per key and
//! value. It also keeps `js-sys` out of the module, and `JSON.parse` defines `"__proto__"` as an
//! ordinary key where `Reflect.set` would replace the object's prototype.
//!
//! Floats are formatted by JavaScript's `String(number)` (an import, one call per float) rather
//! than Rust's `{:?}`: the same shortest round-trip text, and Rust's float formatting code is
//! 23 KB of the module (134 KB → 111 KB before wasm-opt; 66 KB → 57 KB gzipped). Integers, the
//! common case, are written here.
//!
//! Values go the other way (a decoded response, the results for `format_results`) as JSON text
//! too: `index.js` serialises them (`BigInt`s as their digits) and the core's own strict JSON
//! reader decodes them, so a decoded value means exactly what its JSON text means.
//!
//! # Wire format (private to this package)
//!
//! Every export but [`panic_for_testing`], [`providers`] and the [memory](#memory) ones answers
//! with a string whose first character says what follows:
//!
//! - `o` + JSON: the result (an object, an array, a string, `null` or a boolean), plain JSON;
//! - `b` + JSON: the same, but some values need a reviver: a string value that starts with
//!   U+0000 carries a tag in its second character, `n` for an integer beyond
//!   `Number.MAX_SAFE_INTEGER` (the digits follow, for `BigInt`) or `s` for a string that itself
//!   starts with U+0000 (the string follows). Keys are never tagged. Only used when needed, so the
//!   common case pays nothing;
//! - `e` + JSON: an error, `{"code", "message", "position", "line", "column"}`, the position a
//!   0-based UTF-16 offset and the column counted in UTF-16 units too (JavaScript's own units).
//!
//! A provider argument is `"auto"` (detect; where allowed) or a provider id; `index.js` checks it
//! against [`providers`] first, so an unknown id here is an `internal` error.
//!
//! # Memory
//!
//! The module's linear memory grows as an input needs it (at most 4 GiB) and never shrinks. An
//! allocation that cannot be satisfied aborts, which traps like a panic; the allocator here
//! ([`memory::Watched`]) first records that it failed, so `index.js` can tell the trap apart
//! from a bug ([`out_of_memory`]) and report `input.too_large` instead of `internal`. It also
//! reads [`memory_bytes`] after large inputs, to replace an instance whose memory grew large
//! (a fresh instance starts small again), and the tests force a low limit with
//! [`set_memory_limit_for_testing`].
#![cfg(target_family = "wasm")]

use std::fmt::Write as _;

use beacon_core::{
    locate, ErrorCode, Number, Object, ParseError, Provider, ProviderCall, ToolCall, ToolResult, Unit, Value,
};
use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `String(number)`.
    #[wasm_bindgen(js_name = String)]
    fn js_number_to_string(number: f64) -> String;
}

/// Largest integer a JavaScript `number` holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Parses `text`: every call when `all`, else exactly one. See the module docs for the answer.
#[wasm_bindgen]
#[must_use]
pub fn parse(text: &str, all: bool, include_format: bool, formats: Option<String>) -> String {
    answer(text, 64 + text.len() / 2, |w| {
        let formats = match formats.as_deref() {
            None => beacon_core::FormatSet::ALL,
            Some("") => beacon_core::FormatSet::EMPTY,
            Some(ids) => beacon_core::FormatSet::from_ids(ids.split(','))
                .map_err(|_| internal("unknown format id (index.js checks it first)"))?,
        };
        if all {
            let calls = beacon_core::parse_tool_calls_in(text, formats)?;
            w.out.push('[');
            for (i, call) in calls.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.call(call, include_format);
            }
            w.out.push(']');
        } else {
            w.call(&beacon_core::parse_tool_call_in(text, formats)?, include_format);
        }
        Ok(())
    })
}

/// The format ids, comma-separated, in the core's order (`hermes,…,python`).
#[wasm_bindgen]
#[must_use]
pub fn formats() -> String {
    beacon_core::Format::ALL.map(beacon_core::Format::as_str).join(",")
}

/// The provider ids, comma-separated, in the core's order (`openai_chat,…,ollama`).
#[wasm_bindgen]
#[must_use]
pub fn providers() -> String {
    Provider::ALL.map(Provider::as_str).join(",")
}

/// The tool calls in the provider response `text`, as `[{"id", "name", "arguments"}]`.
#[wasm_bindgen]
#[must_use]
pub fn parse_response(text: &str, provider: &str, text_fallback: bool) -> String {
    answer(text, 64 + text.len() / 4, |w| {
        let calls = beacon_core::parse_response(text, provider_arg(provider)?, text_fallback)?;
        w.out.push('[');
        for (i, call) in calls.iter().enumerate() {
            if i > 0 {
                w.out.push(',');
            }
            w.provider_call(call);
        }
        w.out.push(']');
        Ok(())
    })
}

/// Whether the provider response `text` has tool calls: `true` or `false`.
#[wasm_bindgen]
#[must_use]
pub fn has_tool_calls(text: &str, provider: &str, text_fallback: bool) -> String {
    answer(text, 8, |w| {
        let has = beacon_core::has_tool_calls(text, provider_arg(provider)?, text_fallback)?;
        w.out.push_str(if has { "true" } else { "false" });
        Ok(())
    })
}

/// What the text streamed so far holds: `{"state": "none"|"partial"|"found", "position": N}`,
/// the position in UTF-16 units.
#[wasm_bindgen]
#[must_use]
pub fn scan_stream(text: &str) -> String {
    answer(text, 40, |w| {
        let scan = beacon_core::scan_stream(text);
        let position = locate(text, scan.offset, Unit::Utf16).offset;
        let _ = write!(
            w.out,
            "{{\"state\":\"{}\",\"position\":{position}}}",
            scan.state.as_str()
        );
        Ok(())
    })
}

/// Which API the response `text` came from: a provider id as a JSON string, or `null`.
#[wasm_bindgen]
#[must_use]
pub fn detect_provider(text: &str) -> String {
    answer(text, 24, |w| {
        match beacon_core::detect_provider(text)? {
            Some(p) => string(p.as_str(), &mut w.out),
            None => w.out.push_str("null"),
        }
        Ok(())
    })
}

/// The messages that carry tool results back to `provider` (a provider id), as a JSON array.
/// `results` is the JSON text of an array of `{"id": string|null, "name": string|null,
/// "content": any, "is_error": bool}`, all four keys present (`index.js` checks and normalises
/// the caller's results). Errors are at position 0, as in every binding.
#[wasm_bindgen]
#[must_use]
pub fn format_results(results: &str, provider: &str) -> String {
    answer("", 64 + results.len(), |w| {
        let Some(provider) = provider_arg(provider)? else {
            return Err(internal("format_results needs a provider id, not \"auto\""));
        };
        let results = tool_results(results)?;
        w.value(&beacon_core::format_results(&results, provider)?);
        Ok(())
    })
}

/// Whether an allocation failed on this instance (it then trapped: see the module docs).
#[wasm_bindgen]
#[must_use]
pub fn out_of_memory() -> bool {
    memory::failed()
}

/// The size of this instance's linear memory, in bytes.
#[wasm_bindgen]
#[must_use]
pub fn memory_bytes() -> f64 {
    // f64: 4 GiB does not fit the u32 that `usize` is on wasm32.
    (core::arch::wasm32::memory_size(0) as f64) * 65536.0
}

/// For the tests only (`_setMemoryLimitForTesting` in `index.js`): makes every allocation fail
/// once more than `bytes` would be allocated at a time, as if the memory ended there. A fresh
/// instance has no limit.
#[wasm_bindgen]
pub fn set_memory_limit_for_testing(bytes: f64) {
    // Saturating: a limit of 4 GiB or more is no limit.
    memory::set_limit(if bytes >= usize::MAX as f64 {
        usize::MAX
    } else {
        bytes as usize
    });
}

/// The global allocator: the default one, watched.
#[global_allocator]
static ALLOCATOR: memory::Watched = memory::Watched;

mod memory {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

    /// [`System`] (the default allocator), plus: a failed allocation is recorded ([`failed`])
    /// before Rust aborts on it, and a limit on the bytes allocated at a time can be set for
    /// tests ([`set_limit`]). The bookkeeping is two relaxed atomics (plain loads and stores on
    /// single-threaded wasm).
    pub(super) struct Watched;

    static FAILED: AtomicBool = AtomicBool::new(false);
    static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
    static LIVE: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn failed() -> bool {
        FAILED.load(Relaxed)
    }

    pub(super) fn set_limit(bytes: usize) {
        LIMIT.store(bytes, Relaxed);
    }

    /// Whether `more` bytes may be allocated on top of those allocated now.
    fn fits(more: usize) -> bool {
        LIVE.load(Relaxed)
            .checked_add(more)
            .is_some_and(|total| total <= LIMIT.load(Relaxed))
    }

    /// Records the outcome of allocating `size` bytes at `ptr`.
    fn allocated(ptr: *mut u8, size: usize) -> *mut u8 {
        if ptr.is_null() {
            FAILED.store(true, Relaxed);
        } else {
            LIVE.fetch_add(size, Relaxed);
        }
        ptr
    }

    fn refuse() -> *mut u8 {
        FAILED.store(true, Relaxed);
        std::ptr::null_mut()
    }

    // SAFETY: every method forwards to `System` with the caller's own arguments, so `System`'s
    // guarantees hold; besides that they only update the counters (or return null, which
    // `GlobalAlloc` allows for any allocation that cannot be satisfied).
    unsafe impl GlobalAlloc for Watched {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if !fits(layout.size()) {
                return refuse();
            }
            // SAFETY: forwarded as is (see the impl).
            allocated(unsafe { System.alloc(layout) }, layout.size())
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if !fits(layout.size()) {
                return refuse();
            }
            // SAFETY: forwarded as is (see the impl).
            allocated(unsafe { System.alloc_zeroed(layout) }, layout.size())
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            LIVE.fetch_sub(layout.size(), Relaxed);
            // SAFETY: forwarded as is (see the impl).
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let old = layout.size();
            if new_size > old && !fits(new_size - old) {
                return refuse();
            }
            // SAFETY: forwarded as is (see the impl).
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if new.is_null() {
                return refuse();
            }
            LIVE.fetch_sub(old, Relaxed);
            LIVE.fetch_add(new_size, Relaxed);
            new
        }
    }
}

/// For the tests only (`_panicForTesting` in `index.js`): counts its calls on this instance and
/// returns the count, after panicking first when `panic`. The panic traps the module, which
/// `index.js` reports as `ToolCallError` code `internal` before it replaces the instance; the
/// count starting again at 1 shows the replacement.
///
/// # Panics
///
/// When `panic`: that is its purpose.
#[wasm_bindgen]
pub fn panic_for_testing(panic: bool) -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static CALLS: AtomicU32 = AtomicU32::new(0);
    assert!(!panic, "deliberate panic for testing");
    CALLS.fetch_add(1, Ordering::Relaxed) + 1
}

/// Runs `write` on a fresh `o` answer and finishes it (`b` when a value was tagged), or answers
/// with its error located in `text`.
fn answer(text: &str, capacity: usize, write: impl FnOnce(&mut Writer) -> Result<(), ParseError>) -> String {
    let mut w = Writer {
        out: String::with_capacity(capacity),
        tagged: false,
    };
    w.out.push('o');
    match write(&mut w) {
        Ok(()) => {
            if w.tagged {
                // Both tags are one ASCII byte, so this is a one-byte overwrite.
                w.out.replace_range(0..1, "b");
            }
            w.out
        }
        Err(err) => error(text, &err),
    }
}

fn internal(message: &str) -> ParseError {
    ParseError::new(ErrorCode::Internal, 0, message)
}

/// `"auto"` (detect) or a provider id.
fn provider_arg(id: &str) -> Result<Option<Provider>, ParseError> {
    if id == "auto" {
        return Ok(None);
    }
    match Provider::parse(id) {
        Some(p) => Ok(Some(p)),
        None => Err(internal("unknown provider id (index.js checks it first)")),
    }
}

/// The `results` argument of [`format_results`] decoded.
fn tool_results(json: &str) -> Result<Vec<ToolResult>, ParseError> {
    let Value::Array(items) = json_value(json)? else {
        return Err(internal("results must be a JSON array"));
    };
    items
        .into_iter()
        .map(|item| {
            let Value::Object(fields) = item else {
                return Err(internal("a result must be a JSON object"));
            };
            let mut result = ToolResult {
                id: None,
                name: None,
                content: Value::Null,
                is_error: false,
            };
            for (key, value) in fields {
                match (key.as_str(), value) {
                    ("id", Value::String(s)) => result.id = Some(s),
                    ("name", Value::String(s)) => result.name = Some(s),
                    ("id" | "name", Value::Null) => {}
                    ("content", v) => result.content = v,
                    ("is_error", Value::Bool(b)) => result.is_error = b,
                    _ => {
                        return Err(internal(
                            "a result has id, name (string or null), content and is_error (bool)",
                        ))
                    }
                }
            }
            Ok(result)
        })
        .collect()
}

/// Decodes one JSON value with the core's strict reader (exact integers, `BigInt`s, duplicate keys
/// and depth checked). Errors are at offset 0: the text is `index.js`'s own serialisation.
fn json_value(json: &str) -> Result<Value, ParseError> {
    beacon_core::parse_json(json).map_err(|e| ParseError::new(e.code, 0, e.message))
}

/// The `e` answer: the error with its position in UTF-16 units.
fn error(text: &str, err: &ParseError) -> String {
    let at = locate(text, err.offset, Unit::Utf16);
    let mut out = String::with_capacity(96 + err.message.len());
    out.push_str("e{\"code\":\"");
    out.push_str(err.code.as_str());
    out.push_str("\",\"message\":");
    string(&err.message, &mut out);
    let _ = write!(
        out,
        ",\"position\":{},\"line\":{},\"column\":{}}}",
        at.offset, at.line, at.column
    );
    out
}

struct Writer {
    out: String,
    /// Whether a tagged string (see the module docs) was written.
    tagged: bool,
}

impl Writer {
    fn call(&mut self, call: &ToolCall, include_format: bool) {
        self.out.push('{');
        if let Some(id) = &call.id {
            self.out.push_str("\"id\":");
            self.string_value(id);
            self.out.push(',');
        }
        self.out.push_str("\"name\":");
        self.string_value(&call.name);
        self.out.push_str(",\"arguments\":");
        self.object(&call.arguments);
        if include_format {
            self.out.push_str(",\"format\":\"");
            self.out.push_str(call.format.as_str());
            self.out.push('"');
        }
        self.out.push('}');
    }

    fn provider_call(&mut self, call: &ProviderCall) {
        self.out.push_str("{\"id\":");
        match &call.id {
            Some(id) => self.string_value(id),
            None => self.out.push_str("null"),
        }
        self.out.push_str(",\"name\":");
        self.string_value(&call.name);
        self.out.push_str(",\"arguments\":");
        self.object(&call.arguments);
        self.out.push('}');
    }

    fn float(&mut self, f: f64) {
        if f == 0.0 && f.is_sign_negative() {
            // JavaScript's String(-0) is "0".
            self.out.push_str("-0.0");
        } else if f.is_finite() {
            // JavaScript's own shortest round-trip text (valid JSON for every finite value): a
            // call per float, but it keeps Rust's float formatting (~23 KB) out of the module.
            self.out.push_str(&js_number_to_string(f));
        } else {
            // The core never produces these (1e400 is `json.invalid_number`); JSON has no NaN.
            self.out.push_str("null");
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

    fn object(&mut self, object: &Object) {
        self.out.push('{');
        for (i, (key, value)) in object.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            string(key, &mut self.out);
            self.out.push(':');
            self.value(value);
        }
        self.out.push('}');
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Number(Number::Int(i)) if i.unsigned_abs() <= MAX_SAFE_INTEGER => {
                let _ = write!(self.out, "{i}");
            }
            Value::Number(Number::Int(i)) => {
                self.tagged = true;
                let _ = write!(self.out, "\"\\u0000n{i}\"");
            }
            Value::Number(Number::BigInt(digits)) => {
                self.tagged = true;
                self.out.push_str("\"\\u0000n");
                self.out.push_str(digits);
                self.out.push('"');
            }
            Value::Number(Number::Float(f)) => self.float(*f),
            Value::String(s) => self.string_value(s),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                }
                self.out.push(']');
            }
            Value::Object(object) => self.object(object),
        }
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
