//! Builds a host's values straight from JSON text that the parse has already checked: the
//! arguments of the common call shapes, which the parse leaves in the text
//! (`shape::Defer::Large`), so no [`Value`](crate::Value) tree is built and freed in between.

use std::borrow::Cow;

use super::sink::{Key, Sink};
use crate::syntax::json::{self, Build};
use crate::value::{Number, Value};

/// The JSON value at `at` in `source` (checked when it was parsed), built in `sink`.
pub(super) fn value<S: Sink>(sink: &mut S, source: &str, at: usize) -> Result<S::Value, S::Error> {
    let (built, host) = json::build_at(source, at, Host { sink, error: None });
    match (built, host.error) {
        (_, Some(error)) => Err(error),
        (Some(Some(value)), None) => Ok(value),
        // The same strict parse accepted this text when the call was read, so it does not fail
        // here; were it to, the host gets `null` rather than a panic.
        _ => sink.null(),
    }
}

/// The parser's builder over a [`Sink`]: the first error of the sink is kept, and everything
/// after it is skipped.
struct Host<'s, S: Sink> {
    sink: &'s mut S,
    error: Option<S::Error>,
}

impl<S: Sink> Host<'_, S> {
    fn keep<T>(&mut self, result: Result<T, S::Error>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }
}

impl<'a, S: Sink> Build<'a> for Host<'_, S> {
    type Value = Option<S::Value>;
    type Array = Option<S::List>;
    type Object = Option<S::Map>;

    fn null(&mut self) -> Self::Value {
        let r = self.sink.null();
        self.keep(r)
    }

    fn bool(&mut self, value: bool) -> Self::Value {
        let r = self.sink.bool(value);
        self.keep(r)
    }

    fn number(&mut self, text: &'a str, float: bool) -> Option<Self::Value> {
        let r = match json::number_value(text, float)? {
            Value::Number(Number::Int(i)) => self.sink.int(i),
            Value::Number(Number::Float(f)) => self.sink.float(f),
            _ => self.sink.big_int(text),
        };
        Some(self.keep(r))
    }

    fn string(&mut self, value: Cow<'a, str>) -> Self::Value {
        let r = self.sink.str(&value);
        self.keep(r)
    }

    fn array(&mut self) -> Self::Array {
        let r = self.sink.list(0);
        self.keep(r)
    }

    fn item(&mut self, array: &mut Self::Array) {
        if let Some(list) = array {
            let r = self.sink.item(list);
            self.keep(r);
        }
    }

    fn push(&mut self, array: &mut Self::Array, value: Self::Value) {
        if let (Some(list), Some(value)) = (array, value) {
            let r = self.sink.push(list, value);
            self.keep(r);
        }
    }

    fn end_array(&mut self, array: Self::Array) -> Self::Value {
        let r = self.sink.end_list(array?);
        self.keep(r)
    }

    fn object(&mut self) -> Self::Object {
        let r = self.sink.map(0);
        self.keep(r)
    }

    fn key(&mut self, object: &mut Self::Object, key: Cow<'a, str>) -> Result<(), Cow<'a, str>> {
        if let Some(map) = object {
            let r = self.sink.key(map, Key::Data(&key));
            self.keep(r);
        }
        Ok(())
    }

    fn value(&mut self, object: &mut Self::Object, value: Self::Value) {
        if let (Some(map), Some(value)) = (object, value) {
            let r = self.sink.set(map, value);
            self.keep(r);
        }
    }

    fn end_object(&mut self, object: Self::Object) -> Self::Value {
        let r = self.sink.end_map(object?);
        self.keep(r)
    }
}
