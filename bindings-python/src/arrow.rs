//! `parse_arrow`: an Arrow string array in, an Arrow struct array out, with no Python object per
//! row.
//!
//! **In:** any object with `__arrow_c_stream__` (read chunk by chunk) or `__arrow_c_array__`
//! (the Arrow PyCapsule interface, which pyarrow, Polars and other Arrow libraries implement)
//! holding `utf8`, `large_utf8`, `utf8_view` or `null` values, or a Python iterable of `str` /
//! `None`. Imported arrays are validated in full (offsets and UTF-8) before any text is read: the
//! producer is foreign code.
//!
//! **Out:** one row per input row, in input order, as [`ArrowArray`], a struct array exported
//! through the same interface. Its columns are [`COLUMNS`]:
//! - `calls`: `list<struct<id, name, arguments, format>>`, `arguments` being the arguments object
//!   as compact JSON text (keys in the order written, integers exact); `[]` when the row has no
//!   call;
//! - `format`: the first call's format id (a row's tagged calls may mix formats: each call has
//!   its own), null when there is no call;
//! - `content`, `reasoning`: as `parse_message` defines them (`reasoning` null when there is
//!   none);
//! - `repairs`: with `repair`, the row's receipts as compact JSON text, a list of `{"code",
//!   "message", "position", "call_index"}` (positions in code points); `[]` when nothing was
//!   mended or without `repair`;
//! - `error_code`, `error_message`, `error_position` (code points into the row's text),
//!   `error_truncated` (whether the text ended inside the call): null when the row parsed. A row
//!   that failed has null `calls`, `format`, `content`, `reasoning` and `repairs`.
//!
//! A null input row gives a row whose every column is null. Strings are `utf8` (32-bit offsets):
//! a result column past 2 GiB in one call is a `ValueError` asking for smaller chunks.
//!
//! Rows are parsed [`BATCH`] at a time on the pool, detached from the interpreter, and appended
//! to the column builders by one pool thread while the others parse the next batch; Rust holds
//! the input (borrowed from the producer), the output, and two batches of parsed rows.

use std::ffi::CStr;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{ArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{make_array, Array, ArrayRef, ListArray, RecordBatch, RecordBatchIterator, StructArray};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields};
use beacon_core::host::{self, Input, JsonText, Located, Op, Piece, Plain};
use beacon_core::{Ids, Message, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList, PyTuple};
use pyo3::{intern, IntoPyObjectExt};

use crate::batch::{read_rows, texts_iter, Row};
use crate::pool::Workers;
use crate::HOST;

/// The result's columns, in order.
pub(crate) const COLUMNS: [&str; 9] = [
    "calls",
    "format",
    "content",
    "reasoning",
    "repairs",
    "error_code",
    "error_message",
    "error_position",
    "error_truncated",
];

/// The fields of one call in `calls`.
const CALL_FIELDS: [&str; 4] = [
    host::Field::Id.as_str(),
    host::Field::Name.as_str(),
    host::Field::Arguments.as_str(),
    host::Field::Format.as_str(),
];

/// Rows parsed on the pool at a time; one thread appends a batch to the builders while the
/// others parse the next.
const BATCH: usize = 2048;

const SCHEMA_CAPSULE: &CStr = c"arrow_schema";
const ARRAY_CAPSULE: &CStr = c"arrow_array";
const STREAM_CAPSULE: &CStr = c"arrow_array_stream";

// --------------------------------------------------------------------------- one row

/// One parsed row, ready to append.
enum Out {
    Null,
    Parsed {
        calls: Vec<CallOut>,
        content: String,
        reasoning: Option<String>,
        repairs: String,
    },
    Failed {
        code: String,
        message: String,
        position: i64,
        truncated: bool,
    },
}

struct CallOut {
    id: Option<String>,
    name: String,
    arguments: String,
    format: &'static str,
}

/// One row through the core's host boundary, as `parse_message` runs it (`op` is an
/// `Op::Message`): panics are caught there, and errors are located in code points. Each call's
/// arguments are written as JSON text while the core reads them (`host::message_into`).
fn parse_row(text: &str, op: &Op) -> Out {
    let mut sink = JsonText::new(Plain, 0);
    match host::message_into(sink.reading(text.len()), &Input::Text(text), op.clone(), HOST) {
        Ok(Ok((message, arguments))) => parsed(text, message, &arguments, &sink),
        Err(err) => failed(err),
    }
}

/// The receipts of a message as compact JSON text, positions in code points of `text`.
fn receipts(text: &str, repairs: &[beacon_core::Repair]) -> String {
    let items = repairs
        .iter()
        .map(|r| {
            let at = beacon_core::locate(text, r.offset, beacon_core::Unit::CodePoints).offset;
            let call_index = r
                .call_index
                .map_or(Value::Null, |i| Value::Number(beacon_core::Number::Int(count(i))));
            Value::Object(vec![
                ("code".to_owned(), Value::String(r.code.as_str().to_owned())),
                ("message".to_owned(), Value::String(r.message.clone())),
                (
                    "position".to_owned(),
                    Value::Number(beacon_core::Number::Int(count(at))),
                ),
                ("call_index".to_owned(), call_index),
            ])
        })
        .collect();
    Value::Array(items).to_json()
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The row of `message`, whose calls' arguments are `arguments`, written in `sink`.
fn parsed(text: &str, message: Message, arguments: &[Piece], sink: &JsonText<Plain>) -> Out {
    let repairs = receipts(text, &message.repairs);
    let calls = message
        .tool_calls
        .into_iter()
        .zip(arguments)
        .map(|(call, &arguments)| CallOut {
            id: call.id,
            name: call.name,
            arguments: sink.text(arguments).to_owned(),
            format: call.format.as_str(),
        })
        .collect();
    Out::Parsed {
        calls,
        content: message.content,
        reasoning: message.reasoning,
        repairs,
    }
}

fn failed(err: Located) -> Out {
    Out::Failed {
        code: err.code.as_str().to_owned(),
        message: err.message,
        position: count(err.position),
        truncated: err.truncated,
    }
}

/// A row the binding could not read as text (a `str` with a lone surrogate), from its
/// `ToolCallError` object.
fn unreadable(err: &Bound<'_, PyAny>) -> PyResult<Out> {
    let py = err.py();
    Ok(Out::Failed {
        code: err.getattr(intern!(py, "code"))?.extract()?,
        message: err.getattr(intern!(py, "message"))?.extract()?,
        position: err.getattr(intern!(py, "position"))?.extract()?,
        truncated: err.getattr(intern!(py, "truncated"))?.extract()?,
    })
}

// --------------------------------------------------------------------------- the builders

/// A string column grew past what 32-bit offsets address.
struct TooLarge(&'static str);

impl From<TooLarge> for PyErr {
    fn from(TooLarge(column): TooLarge) -> PyErr {
        PyValueError::new_err(format!(
            "parse_arrow(): the result's {column} column would pass 2 GiB in one array; pass the input in smaller chunks"
        ))
    }
}

/// A `utf8` column being built.
struct Strings {
    name: &'static str,
    builder: StringBuilder,
}

impl Strings {
    fn new(name: &'static str) -> Self {
        Strings {
            name,
            builder: StringBuilder::new(),
        }
    }

    fn push(&mut self, value: Option<&str>) -> Result<(), TooLarge> {
        match value {
            Some(s) if self.builder.values_slice().len() + s.len() > i32::MAX as usize => Err(TooLarge(self.name)),
            Some(s) => {
                self.builder.append_value(s);
                Ok(())
            }
            None => {
                self.builder.append_null();
                Ok(())
            }
        }
    }

    fn finish(mut self) -> ArrayRef {
        Arc::new(self.builder.finish())
    }
}

/// The result's columns being built.
struct Columns {
    call_offsets: Vec<i32>,
    call_id: Strings,
    call_name: Strings,
    call_arguments: Strings,
    call_format: Strings,
    format: Strings,
    content: Strings,
    reasoning: Strings,
    repairs: Strings,
    error_code: Strings,
    error_message: Strings,
    error_position: Int64Builder,
    error_truncated: BooleanBuilder,
}

impl Columns {
    fn new() -> Self {
        Columns {
            call_offsets: vec![0],
            call_id: Strings::new("calls.id"),
            call_name: Strings::new("calls.name"),
            call_arguments: Strings::new("calls.arguments"),
            call_format: Strings::new("calls.format"),
            format: Strings::new("format"),
            content: Strings::new("content"),
            reasoning: Strings::new("reasoning"),
            repairs: Strings::new("repairs"),
            error_code: Strings::new("error_code"),
            error_message: Strings::new("error_message"),
            error_position: Int64Builder::new(),
            error_truncated: BooleanBuilder::new(),
        }
    }

    fn push(&mut self, out: &Out) -> Result<(), TooLarge> {
        match out {
            Out::Null => {
                self.push_calls(None)?;
                self.push_message(None, None, None, None)?;
                self.push_error(None)
            }
            Out::Parsed {
                calls,
                content,
                reasoning,
                repairs,
            } => {
                self.push_calls(Some(calls))?;
                let format = calls.first().map(|c| c.format);
                self.push_message(format, Some(content), reasoning.as_deref(), Some(repairs))?;
                self.push_error(None)
            }
            Out::Failed {
                code,
                message,
                position,
                truncated,
            } => {
                self.push_calls(None)?;
                self.push_message(None, None, None, None)?;
                self.push_error(Some((code, message, *position, *truncated)))
            }
        }
    }

    fn push_calls(&mut self, calls: Option<&[CallOut]>) -> Result<(), TooLarge> {
        let calls = calls.unwrap_or_default();
        for call in calls {
            self.call_id.push(call.id.as_deref())?;
            self.call_name.push(Some(&call.name))?;
            self.call_arguments.push(Some(&call.arguments))?;
            self.call_format.push(Some(call.format))?;
        }
        let last = *self.call_offsets.last().unwrap_or(&0);
        let next = i32::try_from(calls.len())
            .ok()
            .and_then(|n| last.checked_add(n))
            .ok_or(TooLarge("calls"))?;
        self.call_offsets.push(next);
        Ok(())
    }

    fn push_message(
        &mut self,
        format: Option<&str>,
        content: Option<&str>,
        reasoning: Option<&str>,
        repairs: Option<&str>,
    ) -> Result<(), TooLarge> {
        self.format.push(format)?;
        self.content.push(content)?;
        self.reasoning.push(reasoning)?;
        self.repairs.push(repairs)
    }

    fn push_error(&mut self, error: Option<(&str, &str, i64, bool)>) -> Result<(), TooLarge> {
        self.error_code.push(error.map(|e| e.0))?;
        self.error_message.push(error.map(|e| e.1))?;
        self.error_position.append_option(error.map(|e| e.2));
        self.error_truncated.append_option(error.map(|e| e.3));
        Ok(())
    }

    fn finish(mut self) -> StructArray {
        let content = self.content.finish();
        // A row's `calls` is null exactly where its `content` is: the row failed or was null.
        let valid = content.logical_nulls();
        let call_struct = StructArray::new(
            call_fields(),
            vec![
                self.call_id.finish(),
                self.call_name.finish(),
                self.call_arguments.finish(),
                self.call_format.finish(),
            ],
            None,
        );
        let calls = ListArray::new(
            call_item(),
            OffsetBuffer::new(ScalarBuffer::from(self.call_offsets)),
            Arc::new(call_struct),
            valid,
        );
        StructArray::new(
            result_fields(),
            vec![
                Arc::new(calls),
                self.format.finish(),
                content,
                self.reasoning.finish(),
                self.repairs.finish(),
                self.error_code.finish(),
                self.error_message.finish(),
                Arc::new(self.error_position.finish()),
                Arc::new(self.error_truncated.finish()),
            ],
            None,
        )
    }
}

fn call_fields() -> Fields {
    let [id, name, arguments, format] = CALL_FIELDS;
    Fields::from(vec![
        Field::new(id, DataType::Utf8, true),
        Field::new(name, DataType::Utf8, false),
        Field::new(arguments, DataType::Utf8, false),
        Field::new(format, DataType::Utf8, false),
    ])
}

fn call_item() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(call_fields()), false))
}

fn result_fields() -> Fields {
    let [calls, format, content, reasoning, repairs, code, message, position, truncated] = COLUMNS;
    Fields::from(vec![
        Field::new(calls, DataType::List(call_item()), true),
        Field::new(format, DataType::Utf8, true),
        Field::new(content, DataType::Utf8, true),
        Field::new(reasoning, DataType::Utf8, true),
        Field::new(repairs, DataType::Utf8, true),
        Field::new(code, DataType::Utf8, true),
        Field::new(message, DataType::Utf8, true),
        Field::new(position, DataType::Int64, true),
        Field::new(truncated, DataType::Boolean, true),
    ])
}

// --------------------------------------------------------------------------- input

/// The string values of an imported array, or a `TypeError` naming its type.
fn texts(array: &dyn Array) -> PyResult<Vec<Option<&str>>> {
    Ok(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().collect(),
        DataType::Utf8View => array.as_string_view().iter().collect(),
        DataType::Null => vec![None; array.len()],
        other => {
            return Err(PyTypeError::new_err(format!(
                "parse_arrow() needs an array of strings (utf8, large_utf8 or utf8_view), not {other}; \
                 for a table or record batch, pass one column; cast a dictionary or binary column to string"
            )))
        }
    })
}

fn arrow_error(context: &str, err: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("parse_arrow(): {context}: {err}"))
}

/// The arrays of `obj`: its stream's chunks, or its one array. Each is validated in full.
fn import(obj: &Bound<'_, PyAny>) -> PyResult<Option<Box<dyn Iterator<Item = PyResult<ArrayRef>>>>> {
    let py = obj.py();
    if obj.hasattr(intern!(py, "__arrow_c_stream__"))? {
        let capsule = obj.call_method0(intern!(py, "__arrow_c_stream__"))?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let pointer = capsule.pointer_checked(Some(STREAM_CAPSULE))?;
        // SAFETY: the capsule named "arrow_array_stream" holds an `ArrowArrayStream` (the
        // PyCapsule interface's contract); `from_raw` moves it out and marks the capsule's copy
        // released, so the capsule's destructor does not release it a second time.
        let stream = unsafe { FFI_ArrowArrayStream::from_raw(pointer.cast().as_ptr()) };
        let reader = ArrayStreamReader::try_new(stream).map_err(|e| arrow_error("cannot read the stream", e))?;
        let arrays = reader.map(|array| {
            let array = array.map_err(|e| arrow_error("cannot read the stream", e))?;
            validated(array)
        });
        return Ok(Some(Box::new(arrays)));
    }
    if obj.hasattr(intern!(py, "__arrow_c_array__"))? {
        let pair = obj.call_method0(intern!(py, "__arrow_c_array__"))?;
        let pair = pair.cast::<PyTuple>()?;
        let schema = pair.get_item(0)?;
        let schema = schema.cast::<PyCapsule>()?;
        let array = pair.get_item(1)?;
        let array = array.cast::<PyCapsule>()?;
        let schema_ptr = schema.pointer_checked(Some(SCHEMA_CAPSULE))?;
        let array_ptr = array.pointer_checked(Some(ARRAY_CAPSULE))?;
        // SAFETY: the capsules named "arrow_schema" and "arrow_array" hold an `ArrowSchema` and
        // an `ArrowArray` of that schema. The schema stays owned (and alive) in its capsule
        // while it is read; `from_raw` moves the array out and marks the capsule's copy released.
        let data = unsafe {
            let schema: &FFI_ArrowSchema = schema_ptr.cast().as_ref();
            let array = FFI_ArrowArray::from_raw(array_ptr.cast().as_ptr());
            arrow_array::ffi::from_ffi(array, schema)
        }
        .map_err(|e| arrow_error("cannot read the array", e))?;
        return Ok(Some(Box::new(std::iter::once(validated(make_array(data))))));
    }
    Ok(None)
}

fn validated(array: ArrayRef) -> PyResult<ArrayRef> {
    array
        .to_data()
        .validate_full()
        .map_err(|e| arrow_error("the array is not valid Arrow data", e))?;
    Ok(array)
}

// --------------------------------------------------------------------------- parse_arrow

/// Parses `texts` (`None` rows stay null) on `workers` and appends the rows to `columns`.
fn parse_into(columns: &mut Columns, workers: &Workers, texts: &[Option<&str>], op: &Op) -> PyResult<()> {
    let parse = |text: &Option<&str>| text.map_or(Out::Null, |t| parse_row(t, op));
    let append = |outs: Vec<Out>| outs.iter().try_for_each(|out| columns.push(out));
    workers.pipeline(texts, BATCH, parse, append)?;
    Ok(())
}

/// Parses every row of `array` (an Arrow string array, or an iterable of `str` / `None`) into an
/// Arrow struct array. See `beacon.parse_arrow`.
#[pyfunction]
#[pyo3(signature = (array, *, formats = None, tools = None, validate = true, unknown = None, threads = None, repair = false, spec = None))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of the Python function
pub(crate) fn parse_arrow<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    formats: Option<Vec<String>>,
    tools: Option<&Bound<'py, PyAny>>,
    validate: bool,
    unknown: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
    repair: bool,
    spec: Option<&Bound<'py, crate::PySpec>>,
) -> PyResult<ArrowArray> {
    const FUNC: &str = "parse_arrow";
    let op = Op::Message {
        formats: crate::formats(FUNC, formats, spec)?,
        ids: Ids::Keep,
        tools: crate::tool_options(FUNC, tools, validate, unknown, repair)?,
    };
    let workers = Workers::new(threads)?;
    let mut columns = Columns::new();
    match import(array)? {
        Some(arrays) => {
            for array in arrays {
                let array = array?;
                let texts = texts(&array)?;
                py.detach(|| parse_into(&mut columns, &workers, &texts, &op))?;
            }
        }
        None => parse_pylist(py, array, &mut columns, &workers, &op)?,
    }
    Ok(ArrowArray {
        array: py.detach(|| columns.finish()),
    })
}

/// The iterable-of-`str` input of `parse_arrow`, read as `parse_many` reads it.
fn parse_pylist(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    columns: &mut Columns,
    workers: &Workers,
    op: &Op,
) -> PyResult<()> {
    const FUNC: &str = "parse_arrow";
    if !texts.hasattr(intern!(py, "__iter__"))? {
        let type_name = texts.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{FUNC}() argument 'array' must be an Arrow string array (an object with __arrow_c_stream__ or \
             __arrow_c_array__) or an iterable of str, not {type_name}"
        )));
    }
    let mut items = texts_iter(FUNC, texts)?;
    let mut index = 0;
    loop {
        let rows = read_rows(FUNC, &mut items, &mut index, BATCH)?;
        if rows.is_empty() {
            return Ok(());
        }
        let refs: Vec<Option<&str>> = rows.iter().map(Row::text).collect();
        let mut outs = py.detach(|| workers.map(&refs, |text| text.map_or(Out::Null, |t| parse_row(t, op))));
        for (out, row) in outs.iter_mut().zip(&rows) {
            if let Row::Unreadable(err) = row {
                *out = unreadable(err.bind(py))?;
            }
        }
        py.detach(|| outs.iter().try_for_each(|out| columns.push(out)))?;
    }
}

// --------------------------------------------------------------------------- the result

/// The result of `parse_arrow`: an Arrow struct array, one row per input row, read through the
/// Arrow PyCapsule interface (`pyarrow.array(r)`, `polars.Series(r)`, `polars.from_arrow(r)`, …).
#[pyclass(frozen, module = "beacon", name = "ArrowArray")]
pub(crate) struct ArrowArray {
    array: StructArray,
}

#[pymethods]
impl ArrowArray {
    fn __len__(&self) -> usize {
        self.array.len()
    }

    fn __repr__(&self) -> String {
        let columns: Vec<String> = self
            .array
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!(
            "<beacon.ArrowArray: {} rows of struct<{}>>",
            self.array.len(),
            columns.join(", ")
        )
    }

    /// The array as an (`ArrowSchema`, `ArrowArray`) pair of capsules. `requested_schema` is
    /// ignored, as the interface allows: the array has one type.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let schema = FFI_ArrowSchema::try_from(self.array.data_type()).map_err(|e| arrow_error("export", e))?;
        let array = FFI_ArrowArray::new(&self.array.to_data());
        let schema = PyCapsule::new_with_value(py, schema, SCHEMA_CAPSULE)?;
        let array = PyCapsule::new_with_value(py, array, ARRAY_CAPSULE)?;
        PyTuple::new(py, [schema, array])
    }

    /// The array as an `ArrowArrayStream` capsule of one struct batch (its columns are the
    /// result's columns, so `pyarrow.table(r)` and `polars.from_arrow(r)` give a table).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batch = RecordBatch::from(self.array.clone());
        let schema = batch.schema();
        let reader = RecordBatchIterator::new([Ok(batch)], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, STREAM_CAPSULE)
    }

    /// The rows as dicts, as `pyarrow.array(r).to_pylist()` gives them, without pyarrow.
    fn to_pylist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let column = |i: usize| self.array.column(i);
        let calls = column(0).as_list::<i32>();
        let call = calls.values().as_struct();
        let call_columns: Vec<_> = (0..CALL_FIELDS.len())
            .map(|i| call.column(i).as_string::<i32>())
            .collect();
        let strings: Vec<_> = (1..7).map(|i| column(i).as_string::<i32>()).collect();
        let positions = column(7).as_primitive::<arrow_array::types::Int64Type>();
        let truncated = column(8).as_boolean();
        let keys: Vec<_> = COLUMNS.iter().map(|c| pyo3::types::PyString::intern(py, c)).collect();
        let call_keys: Vec<_> = CALL_FIELDS
            .iter()
            .map(|c| pyo3::types::PyString::intern(py, c))
            .collect();
        let out = PyList::empty(py);
        let _pause = crate::batch::GcPause::new(py)?;
        for row in 0..self.array.len() {
            let dict = PyDict::new(py);
            let row_calls = if calls.is_null(row) {
                py.None().into_bound(py)
            } else {
                let list = PyList::empty(py);
                let offsets = calls.value_offsets();
                for i in offsets[row] as usize..offsets[row + 1] as usize {
                    let call = PyDict::new(py);
                    for (key, values) in call_keys.iter().zip(&call_columns) {
                        call.set_item(key, values.is_valid(i).then(|| values.value(i)))?;
                    }
                    list.append(call)?;
                }
                list.into_any()
            };
            dict.set_item(&keys[0], row_calls)?;
            for (key, values) in keys[1..7].iter().zip(&strings) {
                dict.set_item(key, values.is_valid(row).then(|| values.value(row)))?;
            }
            let position = positions.is_valid(row).then(|| positions.value(row));
            dict.set_item(&keys[7], position.into_py_any(py)?)?;
            let cut = truncated.is_valid(row).then(|| truncated.value(row));
            dict.set_item(&keys[8], cut)?;
            out.append(dict)?;
        }
        Ok(out)
    }
}
