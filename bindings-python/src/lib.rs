//! `beacon._core`: the `PyO3` binding of `beacon-core`.
//!
//! This crate reads Python arguments (`args`), hands them to the core's host boundary
//! (`beacon_core::host`: the options, the operation, the error text and positions, the shape of
//! every answer), and builds Python objects through its `sink::PySink`. The public API, its
//! docstrings, type hints and the exception classes live in the pure-Python package
//! `python/beacon/`; this module is private.
//!
//! - Below `DETACH_FROM` bytes, the arguments of the common call shapes become Python objects
//!   while the core reads them (`host::run_into`), with no tree of the core's own in between.
//!   From there on the core runs detached from the interpreter (`Python::detach`), so other
//!   Python threads run meanwhile: it records the answer on a `host::Tape`, and the objects are
//!   built from the tape after.
//! - A panic in the core is `ToolCallError` with code `internal` (the host boundary catches it).
//!
//! Gated off on wasm so `cargo build --workspace --target wasm32-unknown-unknown` compiles this
//! crate as empty (and never builds pyo3).
#![cfg(not(target_family = "wasm"))]

mod alloc;
mod args;
mod arrow;
mod batch;
mod direct;
mod pool;
mod sink;
mod stream;

use std::sync::Arc;

use beacon_core::host::{self, ArgError, Host, Input, Located, Op, Query, Tape, ToolOptions, Wire};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::import_exception;
use pyo3::prelude::*;
use pyo3::types::PyString;

// The exception classes are defined in Python (`python/beacon/_errors.py`) so they pickle, have
// a readable `__init__` signature, and are documented where users look.
import_exception!(beacon._errors, ToolCallError);
import_exception!(beacon._errors, NoToolCallFoundError);

const HOST: Host = Host::Python;

/// Inputs shorter than this (in bytes) are parsed without releasing the GIL, their arguments
/// built as Python objects while the core reads them (`host::run_into`). Such a parse takes at
/// most a few hundred microseconds, well within the interpreter's switch interval (5 ms), and
/// building while reading beats the detached path (then, checking first and building from the
/// text after; now, recording the answer on a tape, which costs more still): for 10 KB outputs,
/// by instructions per call against `json.loads` of the arguments, hermes 0.92x -> 0.70x, `json` 0.96x -> 0.85x, pythonic 1.09x -> 1.01x, qwen3_coder
/// 0.72x -> 0.60x, measured against a limit of 4 KB (callgrind).
const DETACH_FROM: usize = 1 << 16;

/// Inputs of at least this many bytes give the memory their parse freed back to the system
/// before the answer's objects are made (`alloc::give_back`), so the core's calls and the answer
/// do not add up: 10 MB of small call-syntax calls peak at 603 MB, not 874. Below this the
/// memory is small and reused by the next parse.
const GIVE_BACK_FROM: usize = 1 << 20;

/// The room a tape starts with, for each of the answer and the arguments read (it grows from
/// there).
const TAPE_ROOM: usize = 1 << 16;

/// The exception for a located core error.
fn located_error(err: Located) -> PyErr {
    let args = (
        err.code.as_str(),
        err.message,
        err.position,
        err.line,
        err.column,
        err.path,
        err.truncated,
    );
    if err.code == beacon_core::ErrorCode::NotFound {
        NoToolCallFoundError::new_err(args)
    } else {
        ToolCallError::new_err(args)
    }
}

fn arg_error(err: ArgError) -> PyErr {
    match err {
        ArgError::Type(message) => PyTypeError::new_err(message),
        ArgError::Value(message) => PyValueError::new_err(message),
    }
}

/// Runs `op` on `input` and builds the answer: as the core reads when the input is short, else
/// detached, the answer recorded on a tape (`host::Tape`) and built from it after.
fn call<'py>(py: Python<'py>, input: Input<'_>, op: Op) -> PyResult<Bound<'py, PyAny>> {
    call_as(py, input, op, Arguments::Values)
}

/// How an answer gives each call's arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arguments {
    /// As Python objects.
    Values,
    /// As a string of their JSON text (`host::run_text_arguments`).
    Text,
}

/// [`call`], with each call's arguments as `arguments` says.
fn call_as<'py>(py: Python<'py>, input: Input<'_>, op: Op, arguments: Arguments) -> PyResult<Bound<'py, PyAny>> {
    let run = match arguments {
        Arguments::Values => host::run_into::<Tape>,
        Arguments::Text => host::run_text_arguments::<Tape>,
    };
    if input.len() < DETACH_FROM {
        // The arguments of the common call shapes become Python objects as they are read.
        return match arguments {
            Arguments::Values => host::run_into(&mut sink::PySink::new(py), &input, op, HOST),
            Arguments::Text => host::run_text_arguments(&mut sink::PySink::new(py), &input, op, HOST),
        }
        .map_err(located_error)?;
    }
    let (tape, answer) = py.detach(|| {
        let mut tape = Tape::with_capacity(TAPE_ROOM);
        let answer = run(tape.reading(TAPE_ROOM), &input, op, HOST);
        if input.len() >= GIVE_BACK_FROM {
            alloc::give_back();
        }
        (tape, answer)
    });
    let Ok(answer) = answer.map_err(located_error)?;
    // A large input's answer may hold many calls, each of two containers or more.
    let _pause = batch::GcPause::new(py)?;
    tape.replay(answer, &input, &mut sink::PySink::new(py))
}

/// The `formats` option, with the format of `spec` (the `template=` option, compiled).
fn formats(
    func: &str,
    formats: Option<Vec<String>>,
    spec: Option<&Bound<'_, PySpec>>,
) -> PyResult<beacon_core::FormatSet> {
    let set = host::formats(func, formats.as_ref().map(|ids| ids.iter().map(String::as_str))).map_err(arg_error)?;
    Ok(match spec {
        Some(spec) => set.union(spec.get().set),
        None => set,
    })
}

/// A format spec compiled once (see `beacon.FormatSpec`, which builds it on first use): pass it
/// as `spec=` to every parse.
#[pyclass(frozen, module = "beacon._core", name = "Spec")]
struct PySpec {
    spec: beacon_core::template::FormatSpec,
    set: beacon_core::FormatSet,
}

#[pymethods]
impl PySpec {
    /// Compiles `described`, a spec as `FormatSpec.describe()` gives it. A spec that is not one
    /// is `ToolCallError` (`result.missing_field`, `result.unsupported`).
    #[new]
    fn new(described: &Bound<'_, PyAny>) -> PyResult<Self> {
        let value = args::to_value("FormatSpec", described, &args::At::root("spec"), 0)?;
        let (spec, set) = host::spec(&value).map_err(located_error)?;
        Ok(PySpec { spec, set })
    }
}

/// The `provider` argument as a `str`.
fn provider_str<'a>(func: &str, provider: &'a Bound<'_, PyAny>) -> PyResult<std::borrow::Cow<'a, str>> {
    match provider.cast::<PyString>() {
        Ok(id) => id.to_cow(),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{func}() argument 'provider' must be str, not {}",
            provider.get_type().name()?
        ))),
    }
}

/// A tool list compiled once (see `beacon.Tools`, which builds it from pydantic models and
/// functions too): pass it as `tools=` to every parse.
#[pyclass(frozen, module = "beacon._core", name = "Tools")]
struct PyTools {
    tools: Arc<beacon_core::Tools>,
}

#[pymethods]
impl PyTools {
    /// Compiles `definitions`, a list (or tuple) of tool definitions as decoded JSON. A
    /// malformed definition is a `TypeError` (a value of the wrong type) or `ValueError`, naming
    /// the entry.
    #[new]
    fn new(definitions: &Bound<'_, PyAny>) -> PyResult<Self> {
        const FUNC: &str = "Tools";
        let value = args::list(FUNC, "definitions", definitions)?;
        let tools = host::tools(FUNC, &value).map_err(arg_error)?;
        Ok(PyTools { tools: Arc::new(tools) })
    }

    fn __len__(&self) -> usize {
        self.tools.len()
    }

    /// The tool names, in the order given.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name().to_owned()).collect()
    }

    /// The schema keywords beacon does not check, as `(tool, schema pointer, keyword)`.
    fn unchecked(&self) -> Vec<(String, String, String)> {
        self.tools.unchecked()
    }
}

/// The tools options: `tools` is a compiled `Tools` (the Python layer compiles a list first).
fn tool_options(
    func: &str,
    tools: Option<&Bound<'_, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'_, PyAny>>,
    repair: bool,
) -> PyResult<ToolOptions> {
    let tools = match tools {
        None => None,
        Some(t) if t.is_none() => None,
        Some(t) => match t.cast::<PyTools>() {
            Ok(t) => Some(Arc::clone(&t.get().tools)),
            Err(_) => {
                return Err(PyTypeError::new_err(format!(
                    "{func}() argument 'tools' must be beacon.Tools, not {}",
                    t.get_type().name()?
                )))
            }
        },
    };
    let unknown = optional_str(func, "unknown", unknown)?;
    Ok(ToolOptions {
        tools,
        validate,
        unknown: host::unknown(func, unknown.as_deref()).map_err(arg_error)?,
        repair,
    })
}

/// An optional `str` argument.
fn optional_str<'a>(
    func: &str,
    name: &str,
    value: Option<&'a Bound<'_, PyAny>>,
) -> PyResult<Option<std::borrow::Cow<'a, str>>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => Ok(Some(s.to_cow()?)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{func}() argument '{name}' must be str or None, not {}",
                v.get_type().name()?
            ))),
        },
    }
}

/// The one tool call in `text`. See `beacon.parse_tool_call`.
#[pyfunction]
#[pyo3(signature = (text, formats = None, tools = None, validate = true, unknown = None, repair = false, spec = None))]
#[allow(clippy::too_many_arguments, reason = "the keyword options of beacon.parse_tool_call")]
fn parse_tool_call<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    formats: Option<Vec<String>>,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    repair: bool,
    spec: Option<&Bound<'py, PySpec>>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "parse_tool_call";
    let formats = self::formats(FUNC, formats, spec)?;
    let tools = tool_options(FUNC, tools, validate, unknown, repair)?;
    call(
        py,
        Input::Text(args::text(FUNC, text)?),
        Op::ToolCall { formats, tools },
    )
}

/// Every tool call in `text`. See `beacon.parse_tool_calls`.
#[pyfunction]
#[pyo3(signature = (text, include_format = false, formats = None, tools = None, validate = true, unknown = None, repair = false, spec = None))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keyword options of beacon.parse_tool_calls"
)]
fn parse_tool_calls<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    include_format: bool,
    formats: Option<Vec<String>>,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    repair: bool,
    spec: Option<&Bound<'py, PySpec>>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "parse_tool_calls";
    let formats = self::formats(FUNC, formats, spec)?;
    let op = Op::ToolCalls {
        formats,
        include_format,
        tools: tool_options(FUNC, tools, validate, unknown, repair)?,
    };
    call(py, Input::Text(args::text(FUNC, text)?), op)
}

/// The whole message: content, reasoning and calls. See `beacon.parse_message`.
#[pyfunction]
#[pyo3(signature = (text, formats = None, ids = None, tools = None, validate = true, unknown = None, id_seed = None, repair = false, spec = None, arguments_text = false))]
#[allow(clippy::too_many_arguments, reason = "the keyword options of beacon.parse_message")]
fn parse_message<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    formats: Option<Vec<String>>,
    ids: Option<&Bound<'py, PyAny>>,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    id_seed: Option<&Bound<'py, PyAny>>,
    repair: bool,
    spec: Option<&Bound<'py, PySpec>>,
    arguments_text: bool,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "parse_message";
    let formats = self::formats(FUNC, formats, spec)?;
    let ids = optional_str(FUNC, "ids", ids)?;
    let id_seed = optional_str(FUNC, "id_seed", id_seed)?;
    let ids = host::ids(FUNC, ids.as_deref(), id_seed.as_deref(), HOST).map_err(arg_error)?;
    let tools = tool_options(FUNC, tools, validate, unknown, repair)?;
    let op = Op::Message { formats, ids, tools };
    let arguments = if arguments_text {
        Arguments::Text
    } else {
        Arguments::Values
    };
    call_as(py, Input::Text(args::text(FUNC, text)?), op, arguments)
}

/// What the text streamed so far holds. See `beacon.scan_stream`.
#[pyfunction]
fn scan_stream<'py>(py: Python<'py>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    call(py, Input::Text(args::text("scan_stream", text)?), Op::ScanStream)
}

fn response_op<'py>(
    py: Python<'py>,
    func: &str,
    response: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    text_fallback: bool,
    query: Query,
    tools: ToolOptions,
) -> PyResult<Bound<'py, PyAny>> {
    let provider = match provider {
        Some(p) => host::provider(func, &provider_str(func, p)?).map_err(arg_error)?,
        None => None,
    };
    let op = Op::Response {
        provider,
        text_fallback,
        query,
        tools,
    };
    call(py, args::response(func, response)?, op)
}

/// The tool calls in a provider response. See `beacon.parse_response`.
#[pyfunction]
#[pyo3(signature = (response, provider = None, text_fallback = false, tools = None, validate = true, unknown = None, repair = false))]
#[allow(clippy::too_many_arguments)]
fn parse_response<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    text_fallback: bool,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    repair: bool,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "parse_response";
    let tools = tool_options(FUNC, tools, validate, unknown, repair)?;
    response_op(py, FUNC, response, provider, text_fallback, Query::Calls, tools)
}

/// Whether a provider response has tool calls. See `beacon.has_tool_calls`.
#[pyfunction]
#[pyo3(signature = (response, *, provider = None, text_fallback = false))]
fn has_tool_calls<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    text_fallback: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let tools = ToolOptions::default();
    response_op(
        py,
        "has_tool_calls",
        response,
        provider,
        text_fallback,
        Query::Has,
        tools,
    )
}

/// Which API a response came from. See `beacon.detect_provider`.
#[pyfunction]
fn detect_provider<'py>(py: Python<'py>, response: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    response_op(
        py,
        "detect_provider",
        response,
        None,
        false,
        Query::Detect,
        ToolOptions::default(),
    )
}

/// The messages or parts that carry tool results back to `provider`. See
/// `beacon.format_results`.
#[pyfunction]
fn format_results<'py>(
    py: Python<'py>,
    results: &Bound<'py, PyAny>,
    provider: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "format_results";
    let provider = host::provider_id(FUNC, &provider_str(FUNC, provider)?).map_err(arg_error)?;
    let results = host::read_results(FUNC, args::list(FUNC, "results", results)?, HOST).map_err(arg_error)?;
    call(py, Input::Text(""), Op::FormatResults { results, provider })
}

/// The assistant message that carries `calls`, in `provider`'s wire shape, or with `spec` (the
/// `template=` option, compiled) the text that format writes. See `beacon.format_calls`.
#[pyfunction]
#[pyo3(signature = (calls, provider, *, content = None, spec = None))]
fn format_calls<'py>(
    py: Python<'py>,
    calls: &Bound<'py, PyAny>,
    provider: &Bound<'py, PyAny>,
    content: Option<&Bound<'py, PyAny>>,
    spec: Option<&Bound<'py, PySpec>>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "format_calls";
    let wire = match spec {
        Some(spec) => Wire::Spec(Box::new(spec.get().spec.clone())),
        None => Wire::Provider(host::provider_id(FUNC, &provider_str(FUNC, provider)?).map_err(arg_error)?),
    };
    let calls = host::read_calls(FUNC, args::list(FUNC, "calls", calls)?, HOST).map_err(arg_error)?;
    let content = match content {
        None => None,
        Some(c) if c.is_none() => None,
        Some(c) => Some(args::text(FUNC, c)?.to_owned()),
    };
    let op = Op::FormatCalls { calls, wire, content };
    call(py, Input::Text(""), op)
}

/// The tool-call format a chat template writes, described. See `beacon.FormatSpec.from_template`.
#[pyfunction]
#[pyo3(signature = (template, bos_token = None, eos_token = None, special_tokens = None))]
fn infer_format<'py>(
    py: Python<'py>,
    template: &Bound<'py, PyAny>,
    bos_token: Option<String>,
    eos_token: Option<String>,
    special_tokens: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyAny>> {
    const FUNC: &str = "FormatSpec.from_template";
    let input = if template.is_instance_of::<PyString>() {
        Input::Text(args::text(FUNC, template)?)
    } else if template.is_instance_of::<pyo3::types::PyDict>() {
        Input::Value(args::to_value(FUNC, template, &args::At::root("template"), 0)?)
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{FUNC}() argument 'template' must be str (the template, or a tokenizer_config.json's text) \
             or dict (a tokenizer_config.json decoded), not {}",
            template.get_type().name()?
        )));
    };
    let op = Op::InferFormat {
        bos_token,
        eos_token,
        special_tokens: special_tokens.unwrap_or_default(),
    };
    call(py, input, op)
}

/// `CODE at line L, column C: MESSAGE`, the text of every beacon error (`ToolCallError.__str__`).
#[pyfunction]
fn describe_error(code: &str, line: usize, column: usize, message: &str) -> String {
    host::describe(code, line, column, message)
}

/// Panics inside the core's host boundary, so the test suite can check that a panic becomes
/// `ToolCallError` with code `internal` (not an abort).
#[pyfunction]
fn _panic_for_testing(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    call(py, Input::Text(""), Op::PanicForTesting)
}

/// The string ids of every value of an id enum (`Format`, `Provider`, `ErrorCode`), in its `ALL`
/// order, as a constant whose length follows `ALL`.
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
    use super::direct::Direct;
    #[pymodule_export]
    use super::stream::{PyResponseStream, PyToolCallStream};
    #[pymodule_export]
    use super::PySpec;
    #[pymodule_export]
    use super::{
        _panic_for_testing, describe_error, detect_provider, format_calls, format_results, has_tool_calls,
        infer_format, parse_message, parse_response, parse_tool_call, parse_tool_calls, scan_stream, PyTools,
    };
    #[pymodule_export]
    use super::{arrow::parse_arrow, arrow::ArrowArray, batch::parse_many};

    #[allow(non_upper_case_globals)] // the Python convention
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// The format ids: tier 1 (`hermes` … `solar_open`), then `json` and `python`.
    #[pymodule_export]
    const FORMATS: [&str; beacon_core::Format::ALL.len()] = ids!(beacon_core::Format);

    /// The provider ids (`openai_chat` … `ollama`), in the core's order.
    #[pymodule_export]
    const PROVIDERS: [&str; beacon_core::Provider::ALL.len()] = ids!(beacon_core::Provider);

    /// Every error code (`tool_call.not_found` … `internal`), in the core's order.
    #[pymodule_export]
    const ERROR_CODES: [&str; beacon_core::ErrorCode::ALL.len()] = ids!(beacon_core::ErrorCode);

    /// The columns of `parse_arrow`'s result, in order.
    #[pymodule_export]
    const ARROW_COLUMNS: [&str; super::arrow::COLUMNS.len()] = super::arrow::COLUMNS;
}
