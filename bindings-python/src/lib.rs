//! `beacon._core`: the `PyO3` binding of `beacon-core`.
//!
//! This crate only converts: a Python `str` in, plain builtins (`dict`, `list`, `str`, `int`,
//! `float`, `bool`, `None`) or one `beacon.ToolCallError` out. The public API, its docstrings,
//! type hints and the exception classes live in the pure-Python package `python/beacon/`; this
//! module is private.
//!
//! - The core parse runs detached from the interpreter (`Python::detach`, formerly
//!   `allow_threads`), so other Python threads run meanwhile; Python objects are built after.
//! - A panic in the core is caught and raised as `ToolCallError` with code `internal` instead of
//!   unwinding into the interpreter.
//! - Byte offsets become code-point offsets in exactly one place, [`to_py_err`].
//!
//! Gated off on wasm so `cargo build --workspace --target wasm32-unknown-unknown` compiles this
//! crate as empty (and never builds pyo3).
#![cfg(not(target_family = "wasm"))]

use std::panic::{catch_unwind, AssertUnwindSafe};

use beacon_core::{locate, ErrorCode, Number, Object, ParseError, ToolCall, Unit, Value};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3::{import_exception, intern};

// The exception classes are defined in Python (`python/beacon/_errors.py`) so they pickle, have
// a readable `__init__` signature, and are documented where users look; they are imported on
// first use.
import_exception!(beacon._errors, ToolCallError);
import_exception!(beacon._errors, NoToolCallFoundError);

/// Runs `f` (a core parse) detached from the interpreter, turning a panic into a `ParseError`
/// with code `internal` so that a bug in beacon is an exception, never an abort.
fn run_core<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, ParseError> + Send,
) -> Result<T, ParseError> {
    py.detach(|| {
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
    })
}

/// The one place a core error becomes a Python exception: its byte offset into `text` becomes
/// a code-point offset (Python `str` indices) plus a 1-based line and column in code points.
fn to_py_err(text: &str, err: &ParseError) -> PyErr {
    let loc = locate(text, err.offset, Unit::CodePoints);
    let args = (
        err.code.as_str(),
        err.message.clone(),
        loc.offset,
        loc.line,
        loc.column,
    );
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
        return s.to_cow();
    }
    let type_name = text.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{func}() argument 'text' must be str, not {type_name}"
    )))
}

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(Number::Int(i)) => i.into_pyobject(py)?.into_any(),
        // Exact at any size: `int(digits)`. Python's own limit on decimal digits
        // (sys.set_int_max_str_digits, 4300 by default) applies, as it does to json.loads.
        Value::Number(Number::BigInt(digits)) => {
            py.get_type::<PyInt>().call1((digits.as_str(),))?
        }
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

fn call_to_py<'py>(
    py: Python<'py>,
    call: &ToolCall,
    include_format: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "name"), PyString::new(py, &call.name))?;
    dict.set_item(intern!(py, "arguments"), object_to_py(py, &call.arguments)?)?;
    if include_format {
        dict.set_item(
            intern!(py, "format"),
            PyString::intern(py, call.format.as_str()),
        )?;
    }
    Ok(dict)
}

/// The one tool call in `text` as `{"name": str, "arguments": dict}`. See `beacon.parse_tool_call`.
#[pyfunction]
#[pyo3(signature = (text))]
fn parse_tool_call<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let text = text_arg("parse_tool_call", text)?;
    let text: &str = &text;
    match run_core(py, || beacon_core::parse_tool_call(text)) {
        Ok(call) => call_to_py(py, &call, false),
        Err(err) => Err(to_py_err(text, &err)),
    }
}

/// Every tool call in `text`, in text order, as a list of `{"name", "arguments"}` dicts (plus
/// `"format"` when `include_format` is true). See `beacon.parse_tool_calls`.
#[pyfunction]
#[pyo3(signature = (text, *, include_format = false))]
fn parse_tool_calls<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    include_format: bool,
) -> PyResult<Bound<'py, PyList>> {
    let text = text_arg("parse_tool_calls", text)?;
    let text: &str = &text;
    match run_core(py, || beacon_core::parse_tool_calls(text)) {
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

/// Runs a core call that panics, through the same path as the parse functions, so the test
/// suite can check that a panic becomes `ToolCallError` with code `internal` (not an abort).
#[pyfunction]
fn _panic_for_testing(py: Python<'_>) -> PyResult<()> {
    let text = "";
    run_core(py, || -> Result<(), ParseError> {
        panic!("deliberate panic for testing")
    })
    .map_err(|err| to_py_err(text, &err))
}

/// Private native module of `beacon`; use the functions re-exported by `beacon` instead.
///
/// `gil_used = false`: the module keeps no state, so it is safe on free-threaded Python.
#[pymodule(gil_used = false)]
mod _core {
    #[pymodule_export]
    use super::{_panic_for_testing, parse_tool_call, parse_tool_calls};

    #[allow(non_upper_case_globals)] // the Python convention
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// The format ids, in detection order (`hermes` … `python`).
    #[pymodule_export]
    const FORMATS: [&str; 7] = [
        beacon_core::Format::ALL[0].as_str(),
        beacon_core::Format::ALL[1].as_str(),
        beacon_core::Format::ALL[2].as_str(),
        beacon_core::Format::ALL[3].as_str(),
        beacon_core::Format::ALL[4].as_str(),
        beacon_core::Format::ALL[5].as_str(),
        beacon_core::Format::ALL[6].as_str(),
    ];
}
