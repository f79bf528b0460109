//! `parse_many`: a batch of texts parsed on a thread pool, with each row's error returned as a
//! value instead of raised.
//!
//! The caller's iterable is read [`CHUNK`] rows at a time. The texts of a chunk are copied out
//! and handed to the pool; while the pool parses them (without the interpreter), this thread
//! reads the next chunk and builds the Python objects of the one before. So Rust holds at most
//! two chunks whatever the batch's length.
//!
//! Each row runs through the core's host boundary exactly as `parse_tool_calls` runs it
//! (`host::run` with `Op::ToolCalls`, emitted by the same sink), with two differences that make a
//! batch total: a row without calls is `[]` (not `NoToolCallFoundError`), and a broken row is its
//! `ToolCallError` object (not raised). `None` rows stay `None`.

use beacon_core::host::{self, Input, Located, Op, Output};
use beacon_core::{ErrorCode, ParseError};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyModule, PyString};
use std::sync::mpsc::Receiver;

use crate::pool::Workers;
use crate::sink::PySink;
use crate::{located_error, HOST};

/// Rows read, parsed and converted at a time.
const CHUNK: usize = 512;

/// One input row as read from the caller's iterable.
pub(crate) enum Row {
    /// `None`: no text; its result is `None` too.
    Null,
    Text(String),
    /// A `str` that is not Unicode text (a lone surrogate): its `ToolCallError` object.
    Unreadable(Py<PyAny>),
}

impl Row {
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Row::Text(text) => Some(text),
            Row::Null | Row::Unreadable(_) => None,
        }
    }
}

/// Up to `n` rows from `items`; `index` counts the rows read so far (for error messages).
pub(crate) fn read_rows(
    func: &str,
    items: &mut Bound<'_, pyo3::types::PyIterator>,
    index: &mut usize,
    n: usize,
) -> PyResult<Vec<Row>> {
    let mut rows = Vec::with_capacity(n.min(1024));
    for item in items.by_ref().take(n) {
        rows.push(row(func, &item?, *index)?);
        *index += 1;
    }
    Ok(rows)
}

fn row(func: &str, item: &Bound<'_, PyAny>, index: usize) -> PyResult<Row> {
    if item.is_none() {
        return Ok(Row::Null);
    }
    if !item.is_instance_of::<PyString>() {
        let type_name = item.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}(): texts[{index}] must be str or None, not {type_name}"
        )));
    }
    // A `str` is read as `parse_tool_calls` reads it; its only error is a lone surrogate.
    Ok(match crate::args::text(func, item) {
        Ok(text) => Row::Text(text.to_owned()),
        Err(err) => Row::Unreadable(err.into_value(item.py()).into_any()),
    })
}

/// The caller's `texts` as an iterator; a single `str` or `bytes` (which would iterate as
/// characters or integers) is a `TypeError`.
pub(crate) fn texts_iter<'py>(func: &str, texts: &Bound<'py, PyAny>) -> PyResult<Bound<'py, pyo3::types::PyIterator>> {
    if texts.is_instance_of::<PyString>() || texts.is_instance_of::<PyBytes>() {
        let type_name = texts.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'texts' must be an iterable of str, not a single {type_name}"
        )));
    }
    texts.try_iter()
}

/// What a row parsed to (`host::run`'s answer, as `parse_tool_calls` gets it): `None` for a row
/// without text.
type Parsed = Option<Result<Output<'static>, Located>>;

/// Starts running `op` on the text rows of `rows` on `workers`; the receiver gets the rows back
/// with their results.
fn spawn_parse(workers: &Workers, rows: Vec<Row>, op: Op) -> Receiver<(Vec<Row>, Vec<Parsed>)> {
    workers.spawn_map(rows, move |row: &Row| {
        row.text()
            .map(|text| host::run_settled(&Input::Text(text), op.clone(), HOST))
    })
}

/// One entry of the result list.
fn entry<'py>(py: Python<'py>, row: Row, parsed: Parsed) -> PyResult<Bound<'py, PyAny>> {
    match (row, parsed) {
        (Row::Unreadable(err), _) => Ok(err.into_bound(py)),
        (Row::Text(_), Some(Ok(output))) => host::emit(&mut PySink::new(py), output),
        (Row::Text(_), Some(Err(err))) if err.code == ErrorCode::NotFound => Ok(PyList::empty(py).into_any()),
        (Row::Text(_), Some(Err(err))) => Ok(located_error(err).into_value(py).into_bound(py).into_any()),
        (Row::Null, _) | (Row::Text(_), None) => Ok(py.None().into_bound(py)),
    }
}

/// Every text of `texts` parsed on `threads` threads: a list with, per row, its calls, `[]`, its
/// `ToolCallError`, or `None` for a `None` row. See `beacon.parse_many`.
#[pyfunction]
#[pyo3(signature = (
    texts, *, include_format = false, formats = None, tools = None, validate = true, unknown = None, threads = None,
    repair = false, spec = None
))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of the Python function
pub(crate) fn parse_many<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    include_format: bool,
    formats: Option<Vec<String>>,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    repair: bool,
    spec: Option<&Bound<'py, crate::PySpec>>,
) -> PyResult<Bound<'py, PyList>> {
    const FUNC: &str = "parse_many";
    let op = Op::ToolCalls {
        formats: crate::formats(FUNC, formats, spec)?,
        include_format,
        tools: crate::tool_options(FUNC, tools, validate, unknown, repair)?,
    };
    let workers = Workers::new(threads)?;
    let mut items = texts_iter(FUNC, texts)?;
    let out = PyList::empty(py);
    let mut index = 0;
    // While the pool parses one chunk, this thread reads the next and builds the objects of the
    // one before.
    let mut pending: Option<Receiver<(Vec<Row>, Vec<Parsed>)>> = None;
    loop {
        let rows = read_rows(FUNC, &mut items, &mut index, CHUNK)?;
        let next = (!rows.is_empty()).then(|| spawn_parse(&workers, rows, op.clone()));
        if let Some(done) = pending.take() {
            let (rows, parsed) = py.detach(move || done.recv()).map_err(|_| lost_worker())?;
            let _pause = GcPause::new(py)?;
            for (row, parsed) in rows.into_iter().zip(parsed) {
                out.append(entry(py, row, parsed)?)?;
            }
        }
        match next {
            Some(next) => pending = Some(next),
            None => return Ok(out),
        }
    }
}

/// A worker ended without sending its results (it cannot panic: `host::run` catches panics).
fn lost_worker() -> PyErr {
    let err = ParseError::new(
        ErrorCode::Internal,
        0,
        "a parse_many worker thread stopped; this is a bug in beacon",
    );
    located_error(Located::new(&err, "", HOST.unit()))
}

/// The cyclic garbage collector paused while one chunk's objects are built (they hold no cycles,
/// and a collection every few hundred new containers would traverse the whole growing result
/// again and again), and restored when dropped. It is paused only while this thread holds the
/// interpreter, so no other Python thread sees it off; the collector catches up on its next
/// allocation. On a free-threaded interpreter other threads run meanwhile, so it is left alone.
pub(crate) struct GcPause<'py> {
    gc: Option<Bound<'py, PyModule>>,
}

impl<'py> GcPause<'py> {
    pub(crate) fn new(py: Python<'py>) -> PyResult<Self> {
        let gc = py.import(intern!(py, "gc"))?;
        if !gc.call_method0(intern!(py, "isenabled"))?.is_truthy()? || !gil_enabled(py)? {
            return Ok(GcPause { gc: None });
        }
        gc.call_method0(intern!(py, "disable"))?;
        Ok(GcPause { gc: Some(gc) })
    }
}

/// Whether the interpreter has a GIL (`sys._is_gil_enabled()`, Python 3.13+; always before).
fn gil_enabled(py: Python<'_>) -> PyResult<bool> {
    let sys = py.import(intern!(py, "sys"))?;
    match sys.getattr(intern!(py, "_is_gil_enabled")) {
        Ok(is_enabled) => is_enabled.call0()?.is_truthy(),
        Err(_) => Ok(true),
    }
}

impl Drop for GcPause<'_> {
    fn drop(&mut self) {
        if let Some(gc) = &self.gc {
            let _ = gc.call_method0(intern!(gc.py(), "enable"));
        }
    }
}
