//! Reading Python arguments: text as UTF-8, and decoded values (plus SDK objects) as core
//! [`Value`]s.

use std::borrow::Cow;
use std::ffi::c_char;

use beacon_core::host::{self, Input, Located};
use beacon_core::{ErrorCode, Number, Object, Unit, Value, MAX_DEPTH};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::{located_error, HOST};

extern "C" {
    /// The UTF-8 form of a `str`, cached in the object (for an ASCII string, its own buffer), so
    /// reading it copies nothing. Part of the stable ABI since 3.10, the oldest version the
    /// abi3-py310 module loads in; declared here, as pyo3 declares it only behind its own
    /// version checks.
    fn PyUnicode_AsUTF8AndSize(unicode: *mut pyo3::ffi::PyObject, size: *mut pyo3::ffi::Py_ssize_t) -> *const c_char;
}

/// The UTF-8 text of `s`, borrowed from the object; a `str` holding a lone surrogate (which has
/// no UTF-8 form) gives the surrogate's code-point index and code unit instead.
pub(crate) fn utf8<'a>(s: &'a Bound<'_, PyString>) -> Result<&'a str, (usize, u32)> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the GIL is held); the returned buffer belongs to it and lives
    // as long as it does, which the lifetime `'a` of the borrow expresses.
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(lone_surrogate(s, PyErr::fetch(s.py())));
    }
    let len = usize::try_from(size).unwrap_or_default();
    // SAFETY: CPython returns `size` bytes of valid UTF-8 at `data`.
    Ok(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(data.cast::<u8>(), len)) })
}

/// Where the `UnicodeEncodeError` `err` of `s` says the first lone surrogate is.
fn lone_surrogate(s: &Bound<'_, PyString>, err: PyErr) -> (usize, u32) {
    let py = s.py();
    let index = err
        .value(py)
        .getattr(intern!(py, "start"))
        .and_then(|v| v.extract::<usize>())
        .unwrap_or_default();
    let unit = py
        .import(intern!(py, "builtins"))
        .and_then(|b| b.getattr(intern!(py, "ord")))
        .and_then(|ord| ord.call1((s.as_any().get_item(index)?,)))
        .and_then(|u| u.extract::<u32>())
        .unwrap_or_default();
    (index, unit)
}

/// The `text` argument: a `str`, or a `TypeError` naming the type passed instead. A lone
/// surrogate is `json.invalid_unicode` at its index.
pub(crate) fn text<'a>(func: &str, text: &'a Bound<'_, PyAny>) -> PyResult<&'a str> {
    str_arg(func, "text", text)
}

/// The `str` argument `name` (as [`text`]).
pub(crate) fn str_arg<'a>(func: &str, name: &str, text: &'a Bound<'_, PyAny>) -> PyResult<&'a str> {
    let Ok(s) = text.cast::<PyString>() else {
        let type_name = text.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument '{name}' must be str, not {type_name}"
        )));
    };
    utf8(s).map_err(|(index, unit)| {
        let before: String = s.to_string_lossy().chars().take(index).collect();
        located_error(host::lone_surrogate_in_text(&before, unit, index, HOST.unit()))
    })
}

/// The `response` argument: `str`, `bytes`, `bytearray`, a decoded JSON value, or an SDK object
/// (one with `model_dump()` or `to_dict()`, or a list of them).
pub(crate) fn response<'a>(func: &str, response: &'a Bound<'_, PyAny>) -> PyResult<Input<'a>> {
    if response.is_instance_of::<PyString>() {
        return text(func, response).map(Input::Text);
    }
    if let Ok(b) = response.cast::<PyBytes>() {
        return Ok(Input::Bytes(Cow::Borrowed(b.as_bytes())));
    }
    // Copied: another thread could resize a bytearray while the core runs detached.
    if let Ok(b) = response.cast::<PyByteArray>() {
        return Ok(Input::Bytes(Cow::Owned(b.to_vec())));
    }
    if !is_json_type(response) && sdk_method(response)?.is_none() {
        let type_name = response.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'response' must be str, bytes, bytearray, a decoded JSON value \
             (dict, list, tuple, int, float, bool or None) or an SDK object with model_dump() or to_dict(), \
             not {type_name}"
        )));
    }
    to_value(func, response, &At::root("response"), 0).map(Input::Value)
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

/// The method that turns an SDK object into plain data: `model_dump` (pydantic models: the
/// OpenAI, Anthropic, Mistral and Google GenAI SDKs) or `to_dict` (older Google SDKs).
pub(crate) fn sdk_method<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    for name in [intern!(py, "model_dump"), intern!(py, "to_dict")] {
        if let Some(method) = obj.getattr_opt(name)? {
            if method.is_callable() {
                return Ok(Some(method));
            }
        }
    }
    Ok(None)
}

/// The plain data of an SDK object, as the API sent it: pydantic's `model_dump(mode="json",
/// by_alias=True, exclude_none=True)` (wire names such as Gemini's `functionCall`, no nulls for
/// absent fields), or the method called without arguments where it takes none of those.
fn sdk_data<'py>(method: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = method.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item(intern!(py, "mode"), intern!(py, "json"))?;
    kwargs.set_item(intern!(py, "by_alias"), true)?;
    kwargs.set_item(intern!(py, "exclude_none"), true)?;
    match method.call((), Some(&kwargs)) {
        Err(e) if e.is_instance_of::<PyTypeError>(py) => method.call0(),
        other => other,
    }
}

/// Where a value stands in the argument being converted, as a chain of stack frames; written out
/// (`response["choices"][0]`, valid Python) only for an error.
pub(crate) struct At<'a> {
    parent: Option<&'a At<'a>>,
    seg: Seg<'a>,
}

enum Seg<'a> {
    Root(&'static str),
    Key(&'a str),
    Index(usize),
}

impl<'a> At<'a> {
    pub(crate) fn root(name: &'static str) -> At<'static> {
        At {
            parent: None,
            seg: Seg::Root(name),
        }
    }

    fn child(&'a self, seg: Seg<'a>) -> At<'a> {
        At {
            parent: Some(self),
            seg,
        }
    }

    fn show(&self) -> String {
        let mut out = match self.parent {
            Some(parent) => parent.show(),
            None => String::new(),
        };
        match self.seg {
            Seg::Root(name) => out.push_str(name),
            Seg::Key(key) => HOST.push_key(&mut out, key),
            Seg::Index(i) => HOST.push_index(&mut out, i),
        }
        out
    }
}

/// A coded error without a position (a decoded value has no text): the message names the path.
fn value_error(code: ErrorCode, message: String) -> PyErr {
    located_error(Located {
        code,
        message,
        position: 0,
        line: 1,
        column: 1,
        path: None,
        truncated: false,
    })
}

fn lone_surrogate_in(at: &At<'_>, what: &str, (index, unit): (usize, u32)) -> PyErr {
    located_error(host::lone_surrogate_in_value(&at.show(), what, unit, index))
}

/// A decoded Python value → a core [`Value`]: `None`, `bool`, `int` (exact at any size), finite
/// `float`, `str`, `dict` with `str` keys (order kept), `list` and `tuple` (subclasses too), and
/// SDK objects through their `model_dump()` / `to_dict()`. Anything else is a `TypeError` naming
/// the path and the type; NaN and infinities are `json.invalid_number`, nesting deeper than
/// [`MAX_DEPTH`] (or a cycle) is `json.too_deep`: the errors the same data would give as text.
pub(crate) fn to_value(func: &str, obj: &Bound<'_, PyAny>, at: &At<'_>, depth: usize) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    // bool before int: `True` is an `int` too.
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return int(i);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        if !f.is_finite() {
            return Err(located_error(host::non_finite_number(
                &at.show(),
                &f.to_string(),
                "",
                Unit::Bytes,
            )));
        }
        return Ok(Value::Number(Number::Float(f)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return match utf8(s) {
            Ok(text) => Ok(Value::String(text.to_owned())),
            Err(surrogate) => Err(lone_surrogate_in(at, "holds", surrogate)),
        };
    }
    if depth >= MAX_DEPTH {
        return Err(value_error(
            ErrorCode::JsonTooDeep,
            format!(
                "{}: arrays and objects are nested deeper than {MAX_DEPTH} levels",
                at.show()
            ),
        ));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return object(func, dict, at, depth).map(Value::Object);
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::with_capacity(obj.len()?);
        for (i, item) in obj.try_iter()?.enumerate() {
            items.push(to_value(func, &item?, &at.child(Seg::Index(i)), depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if let Some(method) = sdk_method(obj)? {
        return to_value(func, &sdk_data(&method)?, at, depth + 1);
    }
    let type_name = obj.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{func}(): {} is of type {type_name}; a JSON value is dict (str keys), list, tuple, str, int, \
         float, bool or None",
        at.show()
    )))
}

/// An `int`, exact at any size.
fn int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(small) = i.extract::<i64>() {
        return Ok(Value::Number(Number::Int(small)));
    }
    // `int.__repr__`, not `str()`: an int subclass may override `__str__`. Python's limit on
    // decimal digits (sys.set_int_max_str_digits) applies, as it does to json.dumps.
    let py = i.py();
    let digits = py.get_type::<PyInt>().getattr(intern!(py, "__repr__"))?.call1((i,))?;
    Ok(Value::Number(Number::BigInt(
        digits.cast::<PyString>()?.to_cow()?.into_owned(),
    )))
}

/// A `dict` with `str` keys, in order. Keys of exact `str` are unique; a `str` subclass may hash
/// or compare unlike its text, so its keys are checked for repeats (`json.duplicate_key`).
fn object(func: &str, dict: &Bound<'_, PyDict>, at: &At<'_>, depth: usize) -> PyResult<Object> {
    let mut object = Object::with_capacity(dict.len());
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
        let key_text = utf8(key_str).map_err(|surrogate| lone_surrogate_in(at, "has a key with", surrogate))?;
        let value = to_value(func, &value, &at.child(Seg::Key(key_text)), depth + 1)?;
        object.push((key_text.to_owned(), value));
    }
    if check_duplicates {
        let mut seen = std::collections::HashSet::new();
        if let Some((key, _)) = object.iter().find(|(k, _)| !seen.insert(k.as_str())) {
            let mut shown = String::new();
            HOST.push_key(&mut shown, key);
            return Err(value_error(
                ErrorCode::JsonDuplicateKey,
                format!(
                    "{} has the key {} twice",
                    at.show(),
                    shown.trim_start_matches('[').trim_end_matches(']')
                ),
            ));
        }
    }
    Ok(object)
}

/// Checks that the argument `name` (`results`, `calls`) is a list or tuple and converts it.
pub(crate) fn list(func: &str, name: &'static str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if !(value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
        let type_name = value.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{func}() argument '{name}' must be a list or tuple of dicts, not {type_name}"
        )));
    }
    to_value(func, value, &At::root(name), 0)
}
