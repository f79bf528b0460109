//! The Python [`Sink`]: builds `dict`, `list`, `str`, `int`, `float`, `bool` and `None` directly
//! from the core's answer.

use beacon_core::host::{Field, Key, Sink};
use pyo3::prelude::*;
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

/// The answer's own keys (the core's `Field`s) as interned strings, made once per
/// interpreter.
static FIELDS: [PyOnceLock<Py<PyString>>; Field::ALL.len()] = [const { PyOnceLock::new() }; Field::ALL.len()];

fn field<'py>(py: Python<'py>, field: Field) -> Bound<'py, PyString> {
    FIELDS[field as usize]
        .get_or_init(py, || PyString::intern(py, field.as_str()).unbind())
        .bind(py)
        .clone()
}

/// The number of sets of [`KEYS`]: two slots each, for the keys of the arguments seen lately.
const KEY_SETS: usize = 256;
/// Keys longer than this are not cached (arguments keys are short names).
const KEY_MAX: usize = 48;

/// Recent keys of the data (argument names) as Python strings, by a hash of their text: a key
/// seen before is the same object again, its hash already computed, so a dict insert neither
/// builds nor hashes it. Typical hermes output: 26.5k -> 25.1k instructions per parse_tool_calls
/// (callgrind). Two slots per hash value, the one used last first, so that two keys of one call
/// that hash alike do not evict each other on every call (`unit` and `include` do: about 700
/// instructions per call).
static KEYS: Mutex<Vec<Option<CachedKey>>> = Mutex::new(Vec::new());

/// A key's text and its Python string.
type CachedKey = (Box<str>, Py<PyString>);

/// The key cache as one answer holds it: locked at its first key and held until the answer is
/// built, one lock an answer rather than one a key (typical `xml_invoke` output, eight keys:
/// 24.67k → 24.62k instructions a parse; hermes 22.20k → 22.14k). Another answer built meanwhile on this thread (a parse that a finalizer started)
/// finds it locked and makes its keys without it.
struct KeyCache(Option<Option<MutexGuard<'static, Vec<Option<CachedKey>>>>>);

impl KeyCache {
    /// Not locked yet.
    const fn new() -> Self {
        KeyCache(None)
    }

    /// The cache, locked on first use; `None` when another answer holds it.
    fn slots(&mut self) -> Option<&mut Vec<Option<CachedKey>>> {
        let guard = self.0.get_or_insert_with(|| match KEYS.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        });
        let keys = &mut **guard.as_mut()?;
        if keys.is_empty() {
            keys.resize_with(2 * KEY_SETS, || None);
        }
        Some(keys)
    }
}

/// `key` as a Python string, from [`KEYS`] when it is there.
fn data_key<'py>(py: Python<'py>, cache: &mut KeyCache, key: &str) -> Bound<'py, PyString> {
    if key.len() > KEY_MAX {
        return PyString::new(py, key);
    }
    let Some(keys) = cache.slots() else {
        return PyString::new(py, key);
    };
    // FNV-1a over the bytes: short keys, and a miss costs only a new string.
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let set = 2 * ((hash as usize) % KEY_SETS);
    // A set holds the key used last first.
    let hit = (set..set + 2).find(|&i| keys[i].as_ref().is_some_and(|(text, _)| **text == *key));
    if let Some(i) = hit {
        keys.swap(set, i);
        if let Some((_, string)) = &keys[set] {
            return string.bind(py).clone();
        }
    }
    let string = PyString::new(py, key);
    // Hashed once here, so that every dict that gets this object finds the hash cached.
    if string.hash().is_ok() {
        keys.swap(set, set + 1);
        keys[set] = Some((key.into(), string.clone().unbind()));
    }
    string
}

/// The ids answers have used (format ids, event types, stream states, error codes: the core's
/// `&'static str`s, a few dozen in all), each with its interned string, found by address and
/// length. `PyString::intern` makes a string and looks it up in the interpreter's table on every
/// call: about 730 instructions an event's `type` (callgrind), against a short scan here.
static IDS: Mutex<Vec<CachedId>> = Mutex::new(Vec::new());

/// An id's address and length, and its interned string.
type CachedId = ((usize, usize), Py<PyString>);

/// `value` as its interned Python string, from [`IDS`] when it is there.
fn id<'py>(py: Python<'py>, value: &'static str) -> Bound<'py, PyString> {
    let at = (value.as_ptr() as usize, value.len());
    let Ok(mut ids) = IDS.lock() else {
        return PyString::intern(py, value);
    };
    if let Some((_, string)) = ids.iter().find(|(a, _)| *a == at) {
        return string.bind(py).clone();
    }
    let string = PyString::intern(py, value);
    ids.push((at, string.clone().unbind()));
    string
}

pub(crate) struct PySink<'py> {
    pub(crate) py: Python<'py>,
    keys: KeyCache,
}

impl<'py> PySink<'py> {
    pub(crate) const fn new(py: Python<'py>) -> Self {
        PySink {
            py,
            keys: KeyCache::new(),
        }
    }
}

impl<'py> Sink for PySink<'py> {
    type Value = Bound<'py, PyAny>;
    /// Built by appending, so a long list is never held twice (as a vector and as the list).
    type List = Bound<'py, PyList>;
    /// The dict, and the key of the entry being built.
    type Map = (Bound<'py, PyDict>, Option<Bound<'py, PyString>>);
    type Error = PyErr;

    fn null(&mut self) -> PyResult<Self::Value> {
        Ok(self.py.None().into_bound(self.py))
    }

    fn bool(&mut self, value: bool) -> PyResult<Self::Value> {
        Ok(PyBool::new(self.py, value).to_owned().into_any())
    }

    fn int(&mut self, value: i64) -> PyResult<Self::Value> {
        Ok(value.into_pyobject(self.py)?.into_any())
    }

    /// Exact at any size: `int(digits)`. Python's own limit on decimal digits
    /// (`sys.set_int_max_str_digits`, 4300 by default) applies, as it does to `json.loads`.
    fn big_int(&mut self, digits: &str) -> PyResult<Self::Value> {
        self.py.get_type::<PyInt>().call1((digits,))
    }

    fn float(&mut self, value: f64) -> PyResult<Self::Value> {
        Ok(PyFloat::new(self.py, value).into_any())
    }

    fn str(&mut self, value: &str) -> PyResult<Self::Value> {
        Ok(PyString::new(self.py, value).into_any())
    }

    fn id(&mut self, value: &'static str) -> PyResult<Self::Value> {
        Ok(id(self.py, value).into_any())
    }

    fn list(&mut self, _: usize) -> PyResult<Self::List> {
        Ok(PyList::empty(self.py))
    }

    fn item(&mut self, _: &mut Self::List) -> PyResult<()> {
        Ok(())
    }

    fn push(&mut self, list: &mut Self::List, value: Self::Value) -> PyResult<()> {
        list.append(value)
    }

    fn end_list(&mut self, list: Self::List) -> PyResult<Self::Value> {
        Ok(list.into_any())
    }

    fn map(&mut self, _: usize) -> PyResult<Self::Map> {
        Ok((PyDict::new(self.py), None))
    }

    fn key(&mut self, map: &mut Self::Map, key: Key<'_>) -> PyResult<()> {
        map.1 = Some(match key {
            Key::Field(f) => field(self.py, f),
            Key::Data(k) => data_key(self.py, &mut self.keys, k),
        });
        Ok(())
    }

    fn set(&mut self, map: &mut Self::Map, value: Self::Value) -> PyResult<()> {
        match map.1.take() {
            Some(key) => map.0.set_item(key, value),
            None => Err(pyo3::exceptions::PyRuntimeError::new_err("a value without a key")),
        }
    }

    fn end_map(&mut self, map: Self::Map) -> PyResult<Self::Value> {
        Ok(map.0.into_any())
    }
}
