//! WebAssembly binding of beacon-core, wrapped by the npm package `beacon-toolcall`.
//!
//! This module hands its arguments to the core's host boundary (`beacon_core::host`: the
//! options, the operation, the error text and positions, the shape of every answer) and writes
//! the answer through its `sink::JsonSink`. The public JavaScript API lives in the hand-written
//! `js/index.js`, which keeps only what JavaScript itself needs: argument types, decoded values
//! as JSON text (`BigInt`s, cycles), `BigInt`s back, the `Error` classes, trap recovery.
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
//! 23 KB of the module. Integers, the common case, are written here.
//!
//! Values go the other way (a decoded response, the results for `format_results`, the
//! `formats` list) as JSON text too: `index.js` serialises them (`BigInt`s as their digits) and
//! the core's own strict JSON reader decodes them, so a decoded value means exactly what its JSON
//! text means.
//!
//! # Wire format (private to this package)
//!
//! Every export but the [memory](#memory) ones, `formats`, `providers` and
//! `panic_for_testing` answers with a string whose first character says what follows:
//!
//! - `o` + JSON: the result (an object, an array, a string, `null` or a boolean), plain JSON;
//! - `b` + JSON: the same, but some values need a reviver: a string value that starts with
//!   U+0000 carries a tag in its second character, `n` for an integer beyond
//!   `Number.MAX_SAFE_INTEGER` (the digits follow, for `BigInt`) or `s` for a string that itself
//!   starts with U+0000 (the string follows). Keys are never tagged. Only used when needed, so the
//!   common case pays nothing;
//! - `e` + JSON: a `ToolCallError`, `{"code", "message", "position", "line", "column", "truncated", "path"?}`
//!   (the message is the error's whole text; positions in UTF-16 units, JavaScript's own; `path`
//!   only for `tool_call.schema`);
//! - `t` + text: a `TypeError` with this message; `r` + text: a `RangeError`. An unknown format
//!   id or `ids` or `unknown` value is a `TypeError`, an unknown provider id a `RangeError` (the
//!   JavaScript API's choice; the core calls both "a wrong value"), and a malformed tool
//!   definition a `TypeError` (a value of the wrong type) or `RangeError` (any other).
//!
//! # Tools
//!
//! A tool list is compiled once (`compile_tools`) and kept here under a handle that
//! `index.js`'s `Tools` object holds; the parse functions take the handle. `index.js` frees it
//! when the object is collected, and compiles again on a fresh instance (after a trap or a
//! memory recycle, when this table starts empty).
//!
//! # Memory
//!
//! The module's linear memory grows as an input needs it (at most 4 GiB) and never shrinks. An
//! allocation that cannot be satisfied aborts, which traps like a panic; the allocator here
//! (`memory::Watched`) first records that it failed, so `index.js` can tell the trap apart
//! from a bug (`out_of_memory`) and report `input.too_large` instead of `internal`. It also
//! reads `memory_bytes` after large inputs, to replace an instance whose memory grew large
//! (a fresh instance starts small again), and the tests force a low limit with
//! `set_memory_limit_for_testing`.
#![cfg(target_family = "wasm")]

mod memory;
mod sink;
mod slots;
mod stream;

use std::cell::RefCell;
use std::sync::Arc;

use beacon_core::host::{self, ArgError, Failure, Host, Input, Located, Op, Query, ToolOptions, Wire};
use beacon_core::{ErrorCode, Number, ParseError, Tools, Unit, Value};
use sink::answer;
use wasm_bindgen::prelude::wasm_bindgen;

const HOST: Host = Host::JavaScript;

thread_local! {
    /// The compiled tool lists `index.js`'s `Tools` objects hold, by handle (a freed slot is
    /// `None` and is reused). A fresh instance starts empty: `index.js` compiles again after one.
    static TOOLS: RefCell<slots::Slots<Arc<Tools>>> = const { RefCell::new(slots::Slots::new()) };
}

/// `new Tools(definitions)`: compiles the JSON text of the definitions (`index.js` checked it is
/// an array) and answers `{"handle", "names"}` (the tool names in order), or the error naming
/// the bad entry (`TypeError` for a value of the wrong type, else `RangeError`).
#[wasm_bindgen]
#[must_use]
pub fn compile_tools(definitions: &str) -> String {
    answer(
        32,
        (|| {
            let tools = host::tools("Tools", &json_arg(definitions)?)?;
            let names = tools.iter().map(|t| Value::String(t.name().to_owned())).collect();
            let handle = TOOLS.with_borrow_mut(|slots| slots.insert(Arc::new(tools)));
            Ok(host::Output::Value(Value::Object(vec![
                ("handle".to_owned(), Value::Number(Number::Int(handle.into()))),
                ("names".to_owned(), Value::Array(names)),
            ])))
        })(),
    )
}

/// Frees the tool list of `handle` (a `Tools` object was collected).
#[wasm_bindgen]
pub fn free_tools(handle: u32) {
    TOOLS.with_borrow_mut(|slots| slots.remove(handle));
}

/// The tools options: `tools` is a handle from `compile_tools` (none: no tools), `unknown`
/// `"error"`, `"keep"` or `"drop"` (none: `"error"`).
pub(crate) fn tool_options(
    func: &str,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<&str>,
    repair: bool,
) -> Result<ToolOptions, ArgError> {
    let tools = match tools {
        None => None,
        Some(handle) => Some(
            TOOLS
                .with_borrow(|slots| slots.get(handle).cloned())
                .ok_or_else(|| ArgError::Type(format!("{func}(): tools is a freed Tools")))?,
        ),
    };
    Ok(ToolOptions {
        tools,
        validate,
        unknown: host::unknown(func, unknown).map_err(type_error)?,
        repair,
    })
}

/// `parseToolCalls` (`all`) or `parseToolCall`. `formats`: the JSON array of format ids, or
/// none for every format; `tools`, `validate`, `unknown`: see [`tool_options`].
#[wasm_bindgen]
#[must_use]
#[allow(clippy::fn_params_excessive_bools)]
pub fn parse_tool_calls(
    text: &str,
    all: bool,
    include_format: bool,
    formats: Option<String>,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    let func = if all { "parseToolCalls" } else { "parseToolCall" };
    run(Input::Text(text), 64 + text.len() / 2, || {
        let formats = formats_arg(func, formats.as_deref())?;
        let tools = tool_options(func, tools, validate, unknown.as_deref(), repair)?;
        Ok(if all {
            Op::ToolCalls {
                formats,
                include_format,
                tools,
            }
        } else {
            Op::ToolCall { formats, tools }
        })
    })
}

/// `parseMessage`. `ids`: `"generate"`, or none to keep the ids the text has; `id_seed`: the
/// seed of deterministic ids (`idSeed`); `tools`, `validate`, `unknown`, `repair`: see
/// [`tool_options`].
#[wasm_bindgen]
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn parse_message(
    text: &str,
    formats: Option<String>,
    ids: Option<String>,
    id_seed: Option<String>,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    const FUNC: &str = "parseMessage";
    run(Input::Text(text), 96 + text.len(), || {
        let formats = formats_arg(FUNC, formats.as_deref())?;
        let ids = ids_arg(FUNC, ids.as_deref(), id_seed.as_deref())?;
        let tools = tool_options(FUNC, tools, validate, unknown.as_deref(), repair)?;
        Ok(Op::Message { formats, ids, tools })
    })
}

/// `scanStream`.
#[wasm_bindgen]
#[must_use]
pub fn scan_stream(text: &str) -> String {
    run(Input::Text(text), 40, || Ok(Op::ScanStream))
}

/// `parseResponse` (`query` 0), `hasToolCalls` (1) or `detectProvider` (2), called `func`, on
/// the response's JSON text. `provider`: `"auto"` or a provider id; `tools`, `validate`,
/// `unknown`, `repair`: see [`tool_options`] (`parseResponse` only).
#[wasm_bindgen]
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn read_response(
    func: &str,
    text: &str,
    provider: &str,
    text_fallback: bool,
    query: u8,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    let options = ResponseArgs {
        provider,
        text_fallback,
        query,
        tools,
        validate,
        unknown,
        repair,
    };
    response(func, Input::Text(text), options)
}

/// The options of [`read_response`].
struct ResponseArgs<'a> {
    provider: &'a str,
    text_fallback: bool,
    query: u8,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
}

fn response(func: &str, input: Input<'_>, args: ResponseArgs<'_>) -> String {
    let query = match args.query {
        0 => Query::Calls,
        1 => Query::Has,
        _ => Query::Detect,
    };
    let capacity = 64 + input.len() / 4;
    run(input, capacity, || {
        Ok(Op::Response {
            provider: host::provider(func, args.provider)?,
            text_fallback: args.text_fallback,
            query,
            tools: tool_options(func, args.tools, args.validate, args.unknown.as_deref(), args.repair)?,
        })
    })
}

/// [`read_response`] on a response given as UTF-8 bytes (positions in bytes).
#[wasm_bindgen]
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn read_response_bytes(
    func: &str,
    bytes: &[u8],
    provider: &str,
    text_fallback: bool,
    query: u8,
    tools: Option<u32>,
    validate: bool,
    unknown: Option<String>,
    repair: bool,
) -> String {
    let options = ResponseArgs {
        provider,
        text_fallback,
        query,
        tools,
        validate,
        unknown,
        repair,
    };
    response(func, Input::Bytes(bytes.into()), options)
}

/// `formatResults`: `results` is the JSON text of the caller's results (`index.js` checked it is
/// an array); `provider` a provider id.
#[wasm_bindgen]
#[must_use]
pub fn format_results(results: &str, provider: &str) -> String {
    const FUNC: &str = "formatResults";
    answer(
        64 + results.len(),
        (|| {
            let provider = host::provider_id(FUNC, provider)?;
            let results = host::read_results(FUNC, json_arg(results)?, HOST)?;
            host::run(&Input::Text(""), Op::FormatResults { results, provider }, HOST).map_err(Failure::Parse)
        })(),
    )
}

/// `formatCalls`: `calls` is the JSON text of the caller's calls (`index.js` checked it is an
/// array); `provider` a provider id, or with `spec` (the JSON text of a described format spec,
/// the `template` option) unused; `content` the message's text, if any.
#[wasm_bindgen]
#[must_use]
pub fn format_calls(calls: &str, provider: &str, content: Option<String>, spec: Option<String>) -> String {
    const FUNC: &str = "formatCalls";
    answer(
        64 + calls.len(),
        (|| {
            let wire = match spec {
                Some(spec) => {
                    let (spec, _) = host::spec(&json_arg(&spec)?)
                        .map_err(|e| ArgError::Type(format!("{FUNC}(): template: {e}")))?;
                    Wire::Spec(Box::new(spec))
                }
                None => Wire::Provider(host::provider_id(FUNC, provider)?),
            };
            let calls = host::read_calls(FUNC, json_arg(calls)?, HOST)?;
            let op = Op::FormatCalls { calls, wire, content };
            host::run(&Input::Text(""), op, HOST).map_err(Failure::Parse)
        })(),
    )
}

/// `json.invalid_number` for a number JSON cannot write (`value`: `NaN`, `Infinity`,
/// `-Infinity`) at `path` of a decoded value; `before` is its JSON text up to that number.
#[wasm_bindgen]
#[must_use]
pub fn non_finite_number(path: &str, value: &str, before: &str) -> String {
    answer(
        0,
        Err(Failure::Parse(host::non_finite_number(
            path,
            value,
            before,
            HOST.unit(),
        ))),
    )
}

/// `json.invalid_unicode` for a text holding a lone surrogate (`unit`) at UTF-16 `index`;
/// `before` is the text before it.
#[wasm_bindgen]
#[must_use]
pub fn lone_surrogate(before: &str, unit: u32, index: u32) -> String {
    let err = host::lone_surrogate_in_text(before, unit, index as usize, HOST.unit());
    answer(0, Err(Failure::Parse(err)))
}

/// The `ToolCallError` for a trap of the instance before this one: `input.too_large` when it ran
/// out of memory (or JavaScript could not hold a string that long), else `internal` (a panic, a
/// bug in beacon) with the engine's `detail`.
#[wasm_bindgen]
#[must_use]
pub fn trap_error(out_of_memory: bool, detail: &str) -> String {
    let err = if out_of_memory {
        ParseError::new(
            ErrorCode::InputTooLarge,
            0,
            "the input needs more memory than beacon can have (WebAssembly memory is at most 4 GiB, and a \
             JavaScript string at most the engine's limit); split it, or parse it where memory allows (the \
             Python package)",
        )
    } else {
        ParseError::new(
            ErrorCode::Internal,
            0,
            format!("beacon's WebAssembly module trapped ({detail}); this is a bug in beacon, please report it with the input"),
        )
    };
    answer(0, Err(Failure::Parse(Located::new(&err, "", Unit::Utf16))))
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
    beacon_core::Provider::ALL.map(beacon_core::Provider::as_str).join(",")
}

/// The error codes, comma-separated, in the core's order (`tool_call.not_found,…,internal`).
#[wasm_bindgen]
#[must_use]
pub fn error_codes() -> String {
    beacon_core::ErrorCode::ALL
        .map(beacon_core::ErrorCode::as_str)
        .join(",")
}

/// Whether an allocation failed on this instance (it then trapped: see the crate docs).
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

/// Reads the options (`op`), runs them on `input` and answers.
fn run(input: Input<'_>, capacity: usize, op: impl FnOnce() -> Result<Op, ArgError>) -> String {
    sink::run_answer(capacity, &input, HOST, op)
}

/// An unknown format id or `ids` value is a `TypeError` in JavaScript.
pub(crate) fn type_error(err: ArgError) -> ArgError {
    ArgError::Type(err.to_string())
}

/// The `ids` and `idSeed` options ([`host::ids`]). Generated ids need randomness, which
/// wasm32-unknown-unknown does not have: the core is given the host's `crypto.getRandomValues`
/// (browsers, and Node 19 and later, have it on the global object) before any id is generated.
pub(crate) fn ids_arg(func: &str, ids: Option<&str>, seed: Option<&str>) -> Result<beacon_core::Ids, ArgError> {
    beacon_core::set_random_source(random_bytes);
    host::ids(func, ids, seed, HOST).map_err(type_error)
}

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(array)`: fills the array (here a view of the module's memory)
    /// with random bytes.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues)]
    fn get_random_values(bytes: &mut [u8]);
}

fn random_bytes(bytes: &mut [u8; 16]) {
    get_random_values(bytes);
}

/// The `formats` option: the JSON array of ids `index.js` wrote (it checked they are strings),
/// or none for every format; with the `template` option, `{"formats": ids or null, "spec":
/// FormatSpec.describe()}`. A spec that is not one is a `TypeError` naming its code.
pub(crate) fn formats_arg(func: &str, formats: Option<&str>) -> Result<beacon_core::FormatSet, ArgError> {
    let Some(json) = formats else {
        return host::formats(func, None::<[&str; 0]>);
    };
    let wrong = || ArgError::Type(format!("{func}(): formats must be an array of format ids"));
    let value = beacon_core::parse_json(json).map_err(|_| wrong())?;
    let (ids, spec) = match &value {
        Value::Object(_) => (value.get("formats"), value.get("spec")),
        _ => (Some(&value), None),
    };
    let set = match ids {
        None | Some(Value::Null) => host::formats(func, None::<[&str; 0]>)?,
        Some(Value::Array(ids)) => {
            host::formats(func, Some(ids.iter().map(|id| id.as_str().unwrap_or_default()))).map_err(type_error)?
        }
        Some(_) => return Err(wrong()),
    };
    match spec {
        None => Ok(set),
        Some(spec) => {
            let (_, spec) = host::spec(spec).map_err(|e| ArgError::Type(format!("{func}(): template: {e}")))?;
            Ok(set.union(spec))
        }
    }
}

/// A value `index.js` serialised: decoded by the core's strict reader. Its errors are at
/// position 0 (the text is `index.js`'s own; the message says what is wrong).
pub(crate) fn json_arg(json: &str) -> Result<Value, Failure> {
    beacon_core::parse_json(json).map_err(|e| Failure::Parse(Located::new(&e, "", Unit::Utf16)))
}
