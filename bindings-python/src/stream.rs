//! `ToolCallStream` and `ResponseStream`: the core's host streams (`beacon_core::host::Stream`),
//! their events built by the core's emit walk. The public classes, with their docstrings, are
//! in `python/beacon/__init__.py`.

use beacon_core::host::{self, Failure, Output, Stream};
use beacon_core::Value;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::{arg_error, args, located_error, optional_str, tool_options, HOST};

fn failure(err: Failure) -> PyErr {
    match err {
        Failure::Parse(err) => located_error(err),
        Failure::Arg(err) => arg_error(err),
    }
}

/// The text argument `name` of a stream's `func`; a lone surrogate in it is the stream's own
/// error, positioned in everything fed, and the stream is then over.
fn piece<'a>(stream: &mut Stream, func: &str, name: &str, arg: &'a Bound<'_, PyAny>) -> PyResult<&'a str> {
    let Ok(s) = arg.cast::<PyString>() else {
        return args::str_arg(func, name, arg);
    };
    args::utf8(s).map_err(|(index, unit)| {
        let before: String = s.to_string_lossy().chars().take(index).collect();
        failure(stream.lone_surrogate(&before, unit, index))
    })
}

fn events<'py>(py: Python<'py>, output: Result<Output, Failure>) -> PyResult<Bound<'py, PyAny>> {
    host::emit(&mut crate::sink::PySink::new(py), output.map_err(failure)?)
}

/// A model's output read while it arrives. `beacon.ToolCallStream` subclasses it (its options
/// read in Python) and inherits its `feed`, `finish` and `finished` as they are: a feed is one
/// call into this module, with no Python function around it.
#[pyclass(module = "beacon._core", name = "ToolCallStream", subclass)]
pub(crate) struct PyToolCallStream {
    stream: Stream,
}

#[pymethods]
impl PyToolCallStream {
    #[new]
    #[pyo3(signature = (*, formats = None, ids = None, tools = None, validate = true, unknown = None, start = None, id_seed = None, repair = false, spec = None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "the keyword arguments of the Python constructor"
    )]
    fn new(
        formats: Option<Vec<String>>,
        ids: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        validate: bool,
        unknown: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        id_seed: Option<&Bound<'_, PyAny>>,
        repair: bool,
        spec: Option<&Bound<'_, crate::PySpec>>,
    ) -> PyResult<Self> {
        const FUNC: &str = "ToolCallStream";
        let formats = crate::formats(FUNC, formats, spec)?;
        let ids = optional_str(FUNC, "ids", ids)?;
        let id_seed = optional_str(FUNC, "id_seed", id_seed)?;
        let ids = host::ids(FUNC, ids.as_deref(), id_seed.as_deref(), HOST).map_err(arg_error)?;
        let tools = tool_options(FUNC, tools, validate, unknown, repair)?;
        let start = optional_str(FUNC, "start", start)?;
        let start = host::start(FUNC, start.as_deref()).map_err(arg_error)?;
        let options = tools.message_options(formats, ids, start);
        Ok(PyToolCallStream {
            stream: Stream::text(options, HOST),
        })
    }

    /// Add the next piece of the text; returns the events it decided (often none).
    fn feed<'py>(&mut self, py: Python<'py>, delta: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let text = piece(&mut self.stream, "ToolCallStream.feed", "delta", delta)?;
        events(py, self.stream.feed(text))
    }

    /// The text has ended: the remaining events, or the whole text's error.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        events(py, self.stream.finish())
    }

    /// Whether `finish` was called, or an error ended the stream.
    #[getter]
    fn finished(&self) -> bool {
        self.stream.is_finished()
    }
}

/// A provider's response stream read while it arrives. `beacon.ResponseStream` subclasses it, as
/// `beacon.ToolCallStream` does [`PyToolCallStream`].
#[pyclass(module = "beacon._core", name = "ResponseStream", subclass)]
pub(crate) struct PyResponseStream {
    stream: Stream,
}

#[pymethods]
impl PyResponseStream {
    #[new]
    #[pyo3(signature = (provider = None, *, tools = None, validate = true, unknown = None, repair = false))]
    fn new(
        provider: Option<&Bound<'_, PyAny>>,
        tools: Option<&Bound<'_, PyAny>>,
        validate: bool,
        unknown: Option<&Bound<'_, PyAny>>,
        repair: bool,
    ) -> PyResult<Self> {
        const FUNC: &str = "ResponseStream";
        let provider = match provider {
            Some(p) => host::provider(FUNC, &crate::provider_str(FUNC, p)?).map_err(arg_error)?,
            None => None,
        };
        let tools = tool_options(FUNC, tools, validate, unknown, repair)?;
        Ok(PyResponseStream {
            stream: Stream::response(provider, &tools, HOST),
        })
    }

    /// Add the next piece of the stream; returns the events it completed.
    // `chunk`: text (`str`), UTF-8 bytes, one decoded event (a dict or an SDK object), or a list
    // of decoded events.
    fn feed<'py>(&mut self, py: Python<'py>, chunk: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        const FUNC: &str = "ResponseStream.feed";
        if chunk.is_instance_of::<PyString>() {
            let text = piece(&mut self.stream, FUNC, "chunk", chunk)?;
            return events(py, self.stream.feed(text));
        }
        if let Ok(b) = chunk.cast::<PyBytes>() {
            return events(py, self.stream.feed_bytes(b.as_bytes()));
        }
        if let Ok(b) = chunk.cast::<PyByteArray>() {
            return events(py, self.stream.feed_bytes(&b.to_vec()));
        }
        let many = chunk.is_instance_of::<PyList>() || chunk.is_instance_of::<PyTuple>();
        if !(many || chunk.is_instance_of::<PyDict>() || args::sdk_method(chunk)?.is_some()) {
            return Err(PyTypeError::new_err(format!(
                "{FUNC}() argument 'chunk' must be str, bytes, bytearray, a decoded event (a dict, or an SDK \
                 object with model_dump() or to_dict()) or a list of them, not {}",
                chunk.get_type().name()?
            )));
        }
        let value = args::to_value(FUNC, chunk, &args::At::root("chunk"), 0)?;
        match value {
            Value::Array(items) if many => {
                let mut all = Vec::new();
                for item in &items {
                    match self.stream.feed_value(item) {
                        Ok(Output::Events { events, .. }) => all.extend(events),
                        Ok(_) => {}
                        Err(e) => return Err(failure(e)),
                    }
                }
                events(
                    py,
                    Ok(Output::Events {
                        events: all,
                        deferred: Vec::new(),
                        source: "",
                        at: beacon_core::host::Receipts::default(),
                    }),
                )
            }
            event => events(py, self.stream.feed_value(&event)),
        }
    }

    /// The stream has ended: the remaining events, or the stream's error.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        events(py, self.stream.finish())
    }

    /// Whether `finish` was called, or an error ended the stream.
    #[getter]
    fn finished(&self) -> bool {
        self.stream.is_finished()
    }
}
