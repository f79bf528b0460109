//! `beacon._core`: the `PyO3` binding of `beacon-core`.
//!
//! This crate only converts: a Python `str` in (for provider responses also `bytes`,
//! `bytearray` or an already-decoded JSON value), plain builtins (`dict`, `list`, `str`, `int`,
//! `float`, `bool`, `None`) or one `beacon.ToolCallError` out. The public API, its docstrings,
//! type hints and the exception classes live in the pure-Python package `python/beacon/`; this
//! module is private.
//!
//! - The core parse runs detached from the interpreter (`Python::detach`, formerly
//!   `allow_threads`), so other Python threads run meanwhile; Python objects are built after.
//! - A panic in the core is caught and raised as `ToolCallError` with code `internal` instead of
//!   unwinding into the interpreter.
//! - Byte offsets become the caller's units in exactly one place, [`py_err`]: code points for a
//!   `str`, bytes (unchanged) for `bytes`/`bytearray`, and 0 for a decoded value.
//! - A decoded value is converted to a core [`Value`] while attached (it is Python data), then
//!   parsed detached like text.
//!
//! Gated off on wasm so `cargo build --workspace --target wasm32-unknown-unknown` compiles this
//! crate as empty (and never builds pyo3).
#![cfg(not(target_family = "wasm"))]

mod arrow;
mod batch;
mod pool;

use std::panic::{catch_unwind, AssertUnwindSafe};

use std::borrow::Cow;

use beacon_core::{
    locate, ErrorCode, Number, Object, ParseError, Provider, ProviderCall, ToolCall, ToolResult, Unit, Value, MAX_DEPTH,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::{import_exception, intern};

// The exception classes are defined in Python (`python/beacon/_errors.py`) so they pickle, have
// a readable `__init__` signature, and are documented where users look; they are imported on
// first use.
import_exception!(beacon._errors, ToolCallError);
import_exception!(beacon._errors, NoToolCallFoundError);

/// Inputs shorter than this (in bytes) are parsed without releasing the GIL: they take about a
/// microsecond, and releasing and re-taking the GIL would cost a tenth of that while letting no
/// other thread do meaningful work (measured with bench/run.py).
const DETACH_FROM: usize = 4096;

/// Runs `f` (a core parse of an input of `input_len` bytes), detached from the interpreter when
/// the input is large enough for that to pay, turning a panic into a `ParseError` with code
/// `internal` so that a bug in beacon is an exception, never an abort.
fn run_core<T: Send>(
    py: Python<'_>,
    input_len: usize,
    f: impl FnOnce() -> Result<T, ParseError> + Send,
) -> Result<T, ParseError> {
    if input_len < DETACH_FROM {
        catch_panic(f)
    } else {
        py.detach(|| catch_panic(f))
    }
}

fn catch_panic<T>(f: impl FnOnce() -> Result<T, ParseError>) -> Result<T, ParseError> {
    // AssertUnwindSafe: the closure only reads the input string; nothing it could leave
    // half-updated is observed after a panic.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let detail = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(ParseError::new(
            ErrorCode::Internal,
            0,
            format!("beacon panicked ({detail}); this is a bug in beacon, please report it with the input"),
        ))
    })
}

/// A core error on a Python `str`: its byte offset into `text` becomes a code-point offset
/// (Python `str` indices) plus a 1-based line and column in code points.
fn to_py_err(text: &str, err: &ParseError) -> PyErr {
    py_err(text, err, Unit::CodePoints)
}

/// The one place a core error becomes a Python exception: its byte offset into `text` becomes an
/// offset in `unit` plus a 1-based line and column in the same unit.
fn py_err(text: &str, err: &ParseError, unit: Unit) -> PyErr {
    let loc = locate(text, err.offset, unit);
    let args = (err.code.as_str(), err.message.clone(), loc.offset, loc.line, loc.column);
    if err.code == ErrorCode::NotFound {
        NoToolCallFoundError::new_err(args)
    } else {
        ToolCallError::new_err(args)
    }
}

/// The caller's text as UTF-8, or a `TypeError` naming the type that was passed instead.
/// (With abi3-py39 this copies the string; the stable ABI has no borrowing UTF-8 view before 3.10.)
fn text_arg<'a>(func: &str, text: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, str>> {
    if let Ok(s) = text.cast::<PyString>() {
        return utf8(s).map_err(|at| lone_surrogate_in_text(s, at));
    }
    let type_name = text.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{func}() argument 'text' must be str, not {type_name}"
    )))
}

/// The UTF-8 text of `s`, or, when it holds a lone surrogate (which has no UTF-8 form), the
/// code-point index of the first one.
fn utf8<'a>(s: &'a Bound<'_, PyString>) -> Result<Cow<'a, str>, LoneSurrogate> {
    s.to_cow().map_err(|err| {
        let py = s.py();
        let start = err
            .value(py)
            .getattr(intern!(py, "start"))
            .and_then(|v| v.extract::<usize>())
            .unwrap_or_default();
        let unit = s
            .as_any()
            .get_item(start)
            .and_then(|c| {
                py.import(intern!(py, "builtins"))?
                    .getattr(intern!(py, "ord"))?
                    .call1((c,))?
                    .extract::<u32>()
            })
            .unwrap_or_default();
        LoneSurrogate { index: start, unit }
    })
}

/// Where a `str` holds a lone surrogate: its code-point index and the surrogate (U+D800–U+DFFF).
struct LoneSurrogate {
    index: usize,
    unit: u32,
}

/// `json.invalid_unicode` for caller text `s` holding a lone surrogate, at its code-point index
/// with the line and column of that index (the text before it is valid, so it is located there).
fn lone_surrogate_in_text(s: &Bound<'_, PyString>, at: LoneSurrogate) -> PyErr {
    let before = s
        .as_any()
        .get_item(pyo3::types::PySlice::new(
            s.py(),
            0,
            isize::try_from(at.index).unwrap_or(isize::MAX),
            1,
        ))
        .ok()
        .and_then(|b| b.cast_into::<PyString>().ok())
        .and_then(|b| b.to_cow().ok().map(Cow::into_owned))
        .unwrap_or_default();
    let message = format!(
        "the text holds a lone surrogate (U+{:04X}) at index {}: it is not Unicode text, and has no UTF-8 form",
        at.unit, at.index
    );
    py_err(
        &before,
        &ParseError::new(ErrorCode::JsonInvalidUnicode, before.len(), message),
        Unit::CodePoints,
    )
}

/// `json.invalid_unicode` for a string inside a decoded value (at `at`) that holds a lone
/// surrogate: position 0, the message names the path.
fn lone_surrogate_in_value(at: &At<'_>, what: &str, surrogate: &LoneSurrogate) -> PyErr {
    value_error(
        ErrorCode::JsonInvalidUnicode,
        format!(
            "{} {what} a lone surrogate (U+{:04X}) at index {}: it is not Unicode text",
            at.show(),
            surrogate.unit,
            surrogate.index
        ),
    )
}

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(Number::Int(i)) => i.into_pyobject(py)?.into_any(),
        // Exact at any size: `int(digits)`. Python's own limit on decimal digits
        // (sys.set_int_max_str_digits, 4300 by default) applies, as it does to json.loads.
        Value::Number(Number::BigInt(digits)) => py.get_type::<PyInt>().call1((digits.as_str(),))?,
        Value::Number(Number::Float(f)) => PyFloat::new(py, *f).into_any(),
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(object) => object_to_py(py, object)?.into_any(),
    })
}

/// A `dict` with the keys in the order written (the core has already rejected duplicates).
fn object_to_py<'py>(py: Python<'py>, object: &Object) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in object {
        dict.set_item(PyString::new(py, key), value_to_py(py, value)?)?;
    }
    Ok(dict)
}

fn call_to_py<'py>(py: Python<'py>, call: &ToolCall, include_format: bool) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    if let Some(id) = &call.id {
        dict.set_item(intern!(py, "id"), PyString::new(py, id))?;
    }
    dict.set_item(intern!(py, "name"), PyString::new(py, &call.name))?;
    dict.set_item(intern!(py, "arguments"), object_to_py(py, &call.arguments)?)?;
    if include_format {
        dict.set_item(intern!(py, "format"), PyString::intern(py, call.format.as_str()))?;
    }
    Ok(dict)
}

/// The `formats` option: `None` for every format, else a list of format ids.
fn formats_arg(formats: Option<Vec<String>>) -> PyResult<beacon_core::FormatSet> {
    match formats {
        None => Ok(beacon_core::FormatSet::ALL),
        Some(ids) => beacon_core::FormatSet::from_ids(ids.iter().map(String::as_str)).map_err(PyValueError::new_err),
    }
}

/// The one tool call in `text` as `{"name": str, "arguments": dict}`. See `beacon.parse_tool_call`.
#[pyfunction]
#[pyo3(signature = (text, *, formats = None))]
fn parse_tool_call<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    formats: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let formats = formats_arg(formats)?;
    let text = text_arg("parse_tool_call", text)?;
    let text: &str = &text;
    match run_core(py, text.len(), || beacon_core::parse_tool_call_in(text, formats)) {
        Ok(call) => call_to_py(py, &call, false),
        Err(err) => Err(to_py_err(text, &err)),
    }
}

/// What the text streamed so far holds, as `{"state": "none" | "partial" | "found", "position":
/// int}` with a code-point position. See `beacon.scan_stream`.
#[pyfunction]
fn scan_stream<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let text = text_arg("scan_stream", text)?;
    let text: &str = &text;
    let scan = run_core(py, text.len(), || Ok(beacon_core::scan_stream(text))).map_err(|e| to_py_err(text, &e))?;
    let out = PyDict::new(py);
    out.set_item(intern!(py, "state"), scan.state.as_str())?;
    out.set_item(
        intern!(py, "position"),
        locate(text, scan.offset, Unit::CodePoints).offset,
    )?;
    Ok(out)
}

/// Every tool call in `text`, in text order, as a list of `{"name", "arguments"}` dicts (plus
/// `"format"` when `include_format` is true). See `beacon.parse_tool_calls`.
#[pyfunction]
#[pyo3(signature = (text, *, include_format = false, formats = None))]
fn parse_tool_calls<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    include_format: bool,
    formats: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyList>> {
    let formats = formats_arg(formats)?;
    let text = text_arg("parse_tool_calls", text)?;
    let text: &str = &text;
    match run_core(py, text.len(), || beacon_core::parse_tool_calls_in(text, formats)) {
        Ok(calls) => {
            let list = PyList::empty(py);
            for call in &calls {
                list.append(call_to_py(py, call, include_format)?)?;
            }
            Ok(list)
        }
        Err(err) => Err(to_py_err(text, &err)),
    }
}

// --------------------------------------------------------------------------- provider responses

/// The response a provider function was given.
enum Response<'a> {
    /// A `str`: JSON text, errors in code points.
    Text(Cow<'a, str>),
    /// `bytes` (borrowed: immutable) or `bytearray` (copied: another thread could resize it while
    /// the core runs detached): UTF-8 JSON text, errors in bytes.
    Bytes(Cow<'a, [u8]>),
    /// An already-decoded JSON value: errors at position 0, named by their path.
    Value(Value),
}

impl Response<'_> {
    /// Runs the text or the value variant of a core function detached, and maps its error into
    /// the caller's units.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        on_text: impl FnOnce(&str) -> Result<T, ParseError> + Send,
        on_value: impl FnOnce(&Value) -> Result<T, ParseError> + Send,
    ) -> PyResult<T> {
        match self {
            Response::Text(text) => {
                let text: &str = text;
                run_core(py, text.len(), || on_text(text)).map_err(|e| py_err(text, &e, Unit::CodePoints))
            }
            Response::Bytes(bytes) => {
                let bytes: &[u8] = bytes;
                run_core(py, bytes.len(), || on_text(beacon_core::utf8_text(bytes)?))
                    .map_err(|e| py_err(valid_prefix(bytes), &e, Unit::Bytes))
            }
            Response::Value(value) => {
                run_core(py, usize::MAX, || on_value(value)).map_err(|e| py_err("", &e, Unit::Bytes))
            }
        }
    }
}

/// The longest valid UTF-8 prefix of `bytes`: every core error on bytes (including
/// `json.invalid_utf8`, at the end of that prefix) lies within it, so it locates them.
fn valid_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => bytes
            .get(..e.valid_up_to())
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or_default(),
    }
}

/// The `response` argument: `str`, `bytes`, `bytearray`, or a decoded JSON value.
fn response_arg<'a>(func: &str, response: &'a Bound<'_, PyAny>) -> PyResult<Response<'a>> {
    if let Ok(s) = response.cast::<PyString>() {
        return Ok(Response::Text(utf8(s).map_err(|at| lone_surrogate_in_text(s, at))?));
    }
    if let Ok(b) = response.cast::<PyBytes>() {
        return Ok(Response::Bytes(Cow::Borrowed(b.as_bytes())));
    }
    if let Ok(b) = response.cast::<PyByteArray>() {
        return Ok(Response::Bytes(Cow::Owned(b.to_vec())));
    }
    if !is_json_type(response) {
        let type_name = response.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'response' must be str, bytes, bytearray or a decoded JSON value \
             (dict, list, tuple, int, float, bool or None), not {type_name}"
        )));
    }
    let root = At {
        parent: None,
        seg: Seg::Root("response"),
    };
    py_to_value(func, response, &root, 0).map(Response::Value)
}

fn is_json_type(obj: &Bound<'_, PyAny>) -> bool {
    obj.is_none()
        || obj.is_instance_of::<PyBool>()
        || obj.is_instance_of::<PyInt>()
        || obj.is_instance_of::<PyFloat>()
        || obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
}

/// Where a value stands in the argument being converted, as a chain of stack frames; written out
/// (`response["choices"][0]`, valid Python) only for an error.
struct At<'a> {
    parent: Option<&'a At<'a>>,
    seg: Seg<'a>,
}

enum Seg<'a> {
    Root(&'static str),
    Key(&'a str),
    Index(usize),
}

impl At<'_> {
    fn show(&self) -> String {
        let mut segs = Vec::new();
        let mut at = Some(self);
        while let Some(a) = at {
            segs.push(&a.seg);
            at = a.parent;
        }
        let mut out = String::new();
        for seg in segs.into_iter().rev() {
            match seg {
                Seg::Root(name) => out.push_str(name),
                Seg::Key(key) => {
                    out.push('[');
                    out.push_str(&py_str_literal(key));
                    out.push(']');
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

/// `s` as a double-quoted Python string literal (Rust's `{:?}` would write `\u{1}`, which
/// Python does not read): backslash, quote and control characters escaped, the rest as is.
fn py_str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A `ToolCallError` without a position (a decoded value has no text): the message names the path.
fn value_error(code: ErrorCode, message: String) -> PyErr {
    py_err("", &ParseError::new(code, 0, message), Unit::Bytes)
}

/// A decoded Python value → a core [`Value`]: `None`, `bool`, `int` (exact at any size), finite
/// `float`, `str`, `dict` with `str` keys (order kept), `list` and `tuple` (subclasses too).
/// Anything else is a `TypeError` naming the path and the type; NaN and infinities are
/// `json.invalid_number`, nesting deeper than [`MAX_DEPTH`] (or a cycle) is `json.too_deep` —
/// the errors the same data would give as text.
fn py_to_value(func: &str, obj: &Bound<'_, PyAny>, at: &At<'_>, depth: usize) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: `True` is an `int` too.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(small) = i.extract::<i64>() {
            return Ok(Value::Number(Number::Int(small)));
        }
        // `int.__repr__`, not `str()`: an int subclass may override `__str__`. Python's limit on
        // decimal digits (sys.set_int_max_str_digits) applies, as it does to json.dumps.
        let digits = obj
            .py()
            .get_type::<PyInt>()
            .getattr(intern!(obj.py(), "__repr__"))?
            .call1((i,))?;
        return Ok(Value::Number(Number::BigInt(
            digits.cast::<PyString>()?.to_cow()?.into_owned(),
        )));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        if !f.is_finite() {
            return Err(value_error(
                ErrorCode::JsonInvalidNumber,
                format!("{} is {f}, which is not a JSON number", at.show()),
            ));
        }
        return Ok(Value::Number(Number::Float(f)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return match utf8(s) {
            Ok(text) => Ok(Value::String(text.into_owned())),
            Err(surrogate) => Err(lone_surrogate_in_value(at, "holds", &surrogate)),
        };
    }
    let is_container =
        obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if is_container && depth >= MAX_DEPTH {
        return Err(value_error(
            ErrorCode::JsonTooDeep,
            format!(
                "{}: arrays and objects are nested deeper than {MAX_DEPTH} levels",
                at.show()
            ),
        ));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut object = Object::with_capacity(dict.len());
        // Keys of exact `str` are unique; a `str` subclass may hash or compare unlike its text.
        let mut check_duplicates = false;
        for (key, value) in dict.iter() {
            let Ok(key_str) = key.cast::<PyString>() else {
                let type_name = key.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "{func}(): {} has a key of type {type_name}; keys must be str",
                    at.show()
                )));
            };
            check_duplicates |= !key.is_exact_instance_of::<PyString>();
            let key_text =
                utf8(key_str).map_err(|surrogate| lone_surrogate_in_value(at, "has a key with", &surrogate))?;
            let child = At {
                parent: Some(at),
                seg: Seg::Key(&key_text),
            };
            let value = py_to_value(func, &value, &child, depth + 1)?;
            object.push((key_text.into_owned(), value));
        }
        if check_duplicates {
            let mut seen = std::collections::HashSet::new();
            if let Some((key, _)) = object.iter().find(|(k, _)| !seen.insert(k.as_str())) {
                return Err(value_error(
                    ErrorCode::JsonDuplicateKey,
                    format!("{} has the key {} twice", at.show(), py_str_literal(key)),
                ));
            }
        }
        return Ok(Value::Object(object));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::with_capacity(obj.len()?);
        for (i, item) in obj.try_iter()?.enumerate() {
            let at = At {
                parent: Some(at),
                seg: Seg::Index(i),
            };
            items.push(py_to_value(func, &item?, &at, depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    let type_name = obj.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{func}(): {} is of type {type_name}; a JSON value is dict (str keys), list, tuple, str, int, \
         float, bool or None",
        at.show()
    )))
}

/// The `provider` argument: `"auto"` (detect; only where `auto_ok`) or a provider id.
fn provider_arg(func: &str, provider: &Bound<'_, PyAny>, auto_ok: bool) -> PyResult<Option<Provider>> {
    let Ok(id) = provider.cast::<PyString>() else {
        let type_name = provider.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'provider' must be str, not {type_name}"
        )));
    };
    let id = id.to_cow()?;
    if auto_ok && id == "auto" {
        return Ok(None);
    }
    match Provider::parse(&id) {
        Some(p) => Ok(Some(p)),
        None => {
            let ids: Vec<String> = Provider::ALL.iter().map(|p| format!("'{p}'")).collect();
            let auto = if auto_ok { "'auto' or " } else { "" };
            Err(PyValueError::new_err(format!(
                "{func}() argument 'provider' must be {auto}one of {}, not {}",
                ids.join(", "),
                py_str_literal(&id)
            )))
        }
    }
}

fn provider_call_to_py<'py>(py: Python<'py>, call: &ProviderCall) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    match &call.id {
        Some(id) => dict.set_item(intern!(py, "id"), PyString::new(py, id))?,
        None => dict.set_item(intern!(py, "id"), py.None())?,
    }
    dict.set_item(intern!(py, "name"), PyString::new(py, &call.name))?;
    dict.set_item(intern!(py, "arguments"), object_to_py(py, &call.arguments)?)?;
    Ok(dict)
}

/// The tool calls in a provider response, as `{"id", "name", "arguments"}` dicts. See
/// `beacon.parse_response`.
#[pyfunction]
#[pyo3(signature = (response, *, provider = None, text_fallback = false))]
fn parse_response<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    text_fallback: bool,
) -> PyResult<Bound<'py, PyList>> {
    const FUNC: &str = "parse_response";
    let provider = provider.map(|p| provider_arg(FUNC, p, true)).transpose()?.flatten();
    let calls = response_arg(FUNC, response)?.run(
        py,
        |text| beacon_core::parse_response(text, provider, text_fallback),
        |value| beacon_core::parse_response_value(value, provider, text_fallback),
    )?;
    let list = PyList::empty(py);
    for call in &calls {
        list.append(provider_call_to_py(py, call)?)?;
    }
    Ok(list)
}

/// Whether a provider response has tool calls. See `beacon.has_tool_calls`.
#[pyfunction]
#[pyo3(signature = (response, *, provider = None, text_fallback = false))]
fn has_tool_calls<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    text_fallback: bool,
) -> PyResult<bool> {
    const FUNC: &str = "has_tool_calls";
    let provider = provider.map(|p| provider_arg(FUNC, p, true)).transpose()?.flatten();
    response_arg(FUNC, response)?.run(
        py,
        |text| beacon_core::has_tool_calls(text, provider, text_fallback),
        |value| beacon_core::has_tool_calls_value(value, provider, text_fallback),
    )
}

/// Which API a response came from (a provider id), or `None`. See `beacon.detect_provider`.
#[pyfunction]
#[pyo3(signature = (response))]
fn detect_provider<'py>(py: Python<'py>, response: &Bound<'py, PyAny>) -> PyResult<Option<&'static str>> {
    let detected = response_arg("detect_provider", response)?.run(py, beacon_core::detect_provider, |value| {
        Ok(beacon_core::detect_provider_value(value))
    })?;
    Ok(detected.map(Provider::as_str))
}

const RESULT_KEYS: &str = "'id', 'name', 'content' and 'is_error'";

/// One `results` item: a dict with `content` and optionally `id`, `name` (str or None) and
/// `is_error` (bool); any other key is a `TypeError` (a misspelt `is_error` must not pass).
fn tool_result_arg(func: &str, item: &Bound<'_, PyAny>, at: &At<'_>) -> PyResult<ToolResult> {
    let Ok(dict) = item.cast::<PyDict>() else {
        let type_name = item.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}(): {} must be a dict with {RESULT_KEYS}, not {type_name}",
            at.show()
        )));
    };
    let mut result = ToolResult {
        id: None,
        name: None,
        content: Value::Null,
        is_error: false,
    };
    let mut has_content = false;
    for (key, value) in dict.iter() {
        let key_text = match key.cast::<PyString>() {
            Ok(k) => k.to_cow()?.into_owned(),
            Err(_) => {
                let type_name = key.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "{func}(): {} has a key of type {type_name}; a result has {RESULT_KEYS}",
                    at.show()
                )));
            }
        };
        let child = At {
            parent: Some(at),
            seg: Seg::Key(&key_text),
        };
        let optional_str = |v: &Bound<'_, PyAny>| -> PyResult<Option<String>> {
            if v.is_none() {
                return Ok(None);
            }
            match v.cast::<PyString>() {
                Ok(s) => match utf8(s) {
                    Ok(text) => Ok(Some(text.into_owned())),
                    Err(surrogate) => Err(lone_surrogate_in_value(&child, "holds", &surrogate)),
                },
                Err(_) => Err(PyTypeError::new_err(format!(
                    "{func}(): {} must be str or None, not {}",
                    child.show(),
                    v.get_type().name()?
                ))),
            }
        };
        match key_text.as_str() {
            "id" => result.id = optional_str(&value)?,
            "name" => result.name = optional_str(&value)?,
            "content" => {
                result.content = py_to_value(func, &value, &child, 0)?;
                has_content = true;
            }
            "is_error" => match value.cast::<PyBool>() {
                Ok(b) => result.is_error = b.is_true(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "{func}(): {} must be bool, not {}",
                        child.show(),
                        value.get_type().name()?
                    )))
                }
            },
            other => {
                return Err(PyTypeError::new_err(format!(
                    "{func}(): {} has an unknown key {}; a result has {RESULT_KEYS}",
                    at.show(),
                    py_str_literal(other)
                )))
            }
        }
    }
    if !has_content {
        return Err(PyTypeError::new_err(format!(
            "{func}(): {} has no 'content'",
            at.show()
        )));
    }
    Ok(result)
}

/// The messages or parts that carry tool results back to `provider`, as plain builtins. See
/// `beacon.format_results`.
#[pyfunction]
#[pyo3(signature = (results, provider))]
fn format_results<'py>(
    py: Python<'py>,
    results: &Bound<'py, PyAny>,
    provider: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "format_results";
    let Some(provider) = provider_arg(FUNC, provider, false)? else {
        return Err(PyValueError::new_err("format_results() needs a provider id"));
        // unreachable: auto_ok is false
    };
    let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = results.cast::<PyList>() {
        list.iter().collect()
    } else if let Ok(tuple) = results.cast::<PyTuple>() {
        tuple.iter().collect()
    } else {
        let type_name = results.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "format_results() argument 'results' must be a list or tuple of dicts, not {type_name}"
        )));
    };
    let root = At {
        parent: None,
        seg: Seg::Root("results"),
    };
    let results = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            tool_result_arg(
                FUNC,
                item,
                &At {
                    parent: Some(&root),
                    seg: Seg::Index(i),
                },
            )
        })
        .collect::<PyResult<Vec<ToolResult>>>()?;
    let formatted = run_core(py, usize::MAX, || beacon_core::format_results(&results, provider))
        .map_err(|e| py_err("", &e, Unit::Bytes))?;
    value_to_py(py, &formatted)
}

/// Runs a core call that panics, through the same path as the parse functions, so the test
/// suite can check that a panic becomes `ToolCallError` with code `internal` (not an abort).
#[pyfunction]
fn _panic_for_testing(py: Python<'_>) -> PyResult<()> {
    let text = "";
    run_core(py, usize::MAX, || -> Result<(), ParseError> {
        panic!("deliberate panic for testing")
    })
    .map_err(|err| to_py_err(text, &err))
}

/// The string ids of every value of an id enum (`Format`, `Provider`), in its `ALL` order, as a
/// constant whose length follows `ALL`.
macro_rules! ids {
    ($enum:ty) => {{
        let mut ids = [""; <$enum>::ALL.len()];
        let mut i = 0;
        while i < ids.len() {
            ids[i] = <$enum>::ALL[i].as_str();
            i += 1;
        }
        ids
    }};
}

/// Private native module of `beacon`; use the functions re-exported by `beacon` instead.
///
/// `gil_used = false`: the module keeps no state, so it is safe on free-threaded Python.
#[pymodule(gil_used = false)]
mod _core {
    #[pymodule_export]
    use super::{
        _panic_for_testing, detect_provider, format_results, has_tool_calls, parse_response, parse_tool_call,
        parse_tool_calls, scan_stream,
    };
    #[pymodule_export]
    use super::{arrow::parse_arrow, arrow::ArrowArray, batch::parse_many};

    #[allow(non_upper_case_globals)] // the Python convention
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// The format ids: tier 1 (`hermes` … `gigachat`), then `json` and `python`.
    #[pymodule_export]
    const FORMATS: [&str; beacon_core::Format::ALL.len()] = ids!(beacon_core::Format);

    /// The provider ids (`openai_chat` … `ollama`), in the core's order.
    #[pymodule_export]
    const PROVIDERS: [&str; beacon_core::Provider::ALL.len()] = ids!(beacon_core::Provider);
}
