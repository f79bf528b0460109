//! `_core.Direct`: a public parse function whose call with its input alone goes straight to the
//! core.
//!
//! The public functions are Python functions with keyword-only options. Calling one costs about
//! 1,700 instructions before the core runs (CPython looks each option left out up in the
//! function's `__kwdefaults__`, then the function passes all of them on): 8% of parsing a
//! typical output. `beacon` wraps `parse_tool_call`, `parse_tool_calls`, `parse_message` and
//! `parse_response` in a [`Direct`] (`functools.update_wrapper` gives it the function's name,
//! docstring, module and `__wrapped__`, so `help`, `inspect.signature` and doctest read the
//! function): a call with the input alone is parsed here with the default options, and any
//! other call runs the function.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Which parse a [`Direct`] makes with the default options.
#[derive(Clone, Copy)]
enum Parse {
    ToolCall,
    ToolCalls,
    Message,
    Response,
}

/// A public parse function: `Direct(name, function)`, `name` one of `parse_tool_call`,
/// `parse_tool_calls`, `parse_message` and `parse_response`.
#[pyclass(frozen, dict, module = "beacon._core")]
pub(crate) struct Direct {
    parse: Parse,
    function: Py<PyAny>,
}

#[pymethods]
impl Direct {
    #[new]
    fn new(name: &str, function: Py<PyAny>) -> PyResult<Self> {
        let parse = match name {
            "parse_tool_call" => Parse::ToolCall,
            "parse_tool_calls" => Parse::ToolCalls,
            "parse_message" => Parse::Message,
            "parse_response" => Parse::Response,
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "no parse function {name:?}"
                )))
            }
        };
        Ok(Direct { parse, function })
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if args.len() == 1 && kwargs.is_none_or(|k| k.is_empty()) {
            let input = args.get_item(0)?;
            return match self.parse {
                Parse::ToolCall => super::parse_tool_call(py, &input, None, None, true, None, false, None),
                Parse::ToolCalls => super::parse_tool_calls(py, &input, false, None, None, true, None, false, None),
                Parse::Message => {
                    super::parse_message(py, &input, None, None, None, true, None, None, false, None, false)
                }
                Parse::Response => super::parse_response(py, &input, None, false, None, true, None, false),
            };
        }
        self.function.bind(py).call(args, kwargs)
    }

    /// Pickled by name, as a function is (`beacon.parse_tool_calls`), so it goes to another
    /// process (`multiprocessing`, `concurrent.futures`) as the function does.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.function.bind(py).getattr(pyo3::intern!(py, "__qualname__"))
    }

    /// Itself, wherever it is looked up: a function, not a method. Having `__get__` makes it a
    /// routine to `inspect`, so `help` documents it as the function it wraps.
    fn __get__(slf: Py<Self>, _instance: &Bound<'_, PyAny>, _owner: Option<&Bound<'_, PyAny>>) -> Py<Self> {
        slf
    }
}
