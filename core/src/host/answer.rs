//! Walks an [`Output`] into a host's [`Sink`]: the one place that decides the shape of every
//! answer (which keys, in which order, what is null), so a binding only builds objects.
//!
//! The output is consumed as it is walked: each call's strings and arguments are freed once the
//! host holds its own copy, so a large result is not held twice in full.

use crate::call::ToolCall;
use crate::call::{Deferred, Grammar};
use crate::providers::ProviderCall;
use crate::repair::Repair;
use crate::text::stream::Event;
use crate::value::{Number, Object, Value};

use super::json_text::{JsonText, Spaced};
use super::ordered::Piece;
use super::raw::Built;
use super::sink::{Field, Key, Sink};
use super::{Located, Output, Receipts};

/// Builds `output` in `sink`:
/// - a call: `{"id"?, "name", "arguments", "format"?}` (`id` only when the text wrote one,
///   `format` only when asked for);
/// - a message: `{"content", "reasoning", "tool_calls": [{"id", "name", "arguments", "format",
///   "span": [start, end]}]}` (`reasoning` and `id` null when absent);
/// - a provider call: `{"id", "name", "arguments"}` (`id` null when absent);
/// - a stream scan: `{"state", "position"}`; a provider: its id or null; a boolean; a value;
/// - a stream's events: a list of events (see `event`), a `call_end` whose arguments were left in
///   the stream's text built from there.
pub fn emit<S: Sink>(sink: &mut S, output: Output<'_>) -> Result<S::Value, S::Error> {
    answer(sink, output, Left::values(Vec::new(), None))
}

/// [`emit`], for an output whose parse built arguments into `sink` as it read them
/// ([`Deferred::Built`]): `built` holds them by handle.
pub(super) fn emit_built<S: Sink>(
    sink: &mut S,
    output: Output<'_>,
    built: Built<S::Value>,
) -> Result<S::Value, S::Error> {
    answer(sink, output, Left::values(built, Some(super::raw::written::<S>)))
}

/// [`emit`], each call's arguments a string of their JSON text written in `text`: those the
/// parse wrote while it read are `built`, by handle ([`super::run_text_arguments`]). Their
/// strings are made first, and the sink is then told the parse has ended ([`Sink::parsed`]), so
/// that a sink that writes in order places them as it places values a parse built.
pub(super) fn emit_text_arguments<S: Sink>(
    sink: &mut S,
    text: &mut JsonText<Spaced>,
    output: Output<'_>,
    built: Built<Piece>,
) -> Result<S::Value, S::Error> {
    let built = built
        .into_iter()
        .map(|piece| piece.map(|piece| sink.str(text.text(piece))).transpose())
        .collect::<Result<_, _>>()?;
    sink.parsed();
    let left = Left {
        text: Some(text),
        ..Left::values(built, None)
    };
    answer(sink, output, left)
}

/// The arguments of `message`'s calls built in `sink`, in order, and the message with them
/// taken out ([`super::message_into`]).
pub(super) fn message_arguments<S: Sink>(
    sink: &mut S,
    mut message: crate::text::message::Message,
    source: &str,
    built: Built<S::Value>,
) -> Result<super::MessageArguments<S::Value>, S::Error> {
    let mut left = Left {
        source,
        built,
        again: Some(super::raw::written::<S>),
        text: None,
    };
    let arguments = message
        .tool_calls
        .iter_mut()
        .map(|call| {
            let object = std::mem::take(&mut call.arguments);
            arguments(sink, &object, call.deferred.take(), &mut left)
        })
        .collect::<Result<_, _>>()?;
    Ok((message, arguments))
}

/// The answer `output` gives, its calls' arguments as `left` has them (its `source` is the
/// output's).
fn answer<'o, S: Sink>(sink: &mut S, output: Output<'o>, mut left: Left<'o, '_, S>) -> Result<S::Value, S::Error> {
    match output {
        Output::Call { call, source, at } => {
            left.source = source;
            tool_call(sink, &call, false, &mut left, &at)
        }
        Output::Calls {
            calls,
            include_format,
            source,
            at,
        } => {
            left.source = source;
            list(sink, calls.len(), calls, |sink, call| {
                tool_call(sink, &call, include_format, &mut left, &at)
            })
        }
        Output::Message {
            message,
            spans,
            source,
            at,
            repair,
        } => {
            let mut m = sink.map(3 + usize::from(repair))?;
            field(sink, &mut m, Field::Content, |s| s.str(&message.content))?;
            field(sink, &mut m, Field::Reasoning, |s| {
                optional_str(s, message.reasoning.as_deref())
            })?;
            let calls = message.tool_calls.into_iter().zip(spans);
            let n = calls.len();
            left.source = source;
            field(sink, &mut m, Field::ToolCalls, |s| {
                list(s, n, calls, |s, (call, span)| {
                    message_call(s, &call, span, &mut left, &at)
                })
            })?;
            if repair {
                field(sink, &mut m, Field::Repairs, |s| receipts(s, &message.repairs, &at))?;
            }
            sink.end_map(m)
        }
        Output::ProviderCalls {
            calls,
            built: handles,
            at,
        } => {
            let mut handles = handles.into_iter();
            list(sink, calls.len(), calls, |sink, call| {
                let handle = handles.next().flatten();
                provider_call(sink, &call, handle, &mut left, &at)
            })
        }
        Output::Bool(b) => sink.bool(b),
        Output::Provider(p) => match p {
            Some(p) => sink.id(p.as_str()),
            None => sink.null(),
        },
        Output::Scan { state, position } => {
            let mut m = sink.map(2)?;
            field(sink, &mut m, Field::State, |s| s.id(state.as_str()))?;
            field(sink, &mut m, Field::Position, |s| s.int(count(position)))?;
            sink.end_map(m)
        }
        Output::Value(v) => value(sink, &v),
        Output::Events {
            events,
            deferred,
            source,
            at,
        } => {
            let mut deferred = deferred.into_iter().peekable();
            list(sink, events.len(), events, |sink, e| {
                let left = match &e {
                    Event::CallEnd { index, .. } => deferred.next_if(|l| l.index == *index),
                    Event::Arguments { index, delta } if delta.is_empty() => {
                        deferred.peek().filter(|l| l.index == *index).copied()
                    }
                    _ => None,
                };
                event(sink, e, left.map(|l| l.deferred), source, &at)
            })
        }
    }
}

/// Builds one stream event, `"type"` first (its [`Event::kind`]):
/// - `{"type": "content", "text"}`, `{"type": "reasoning", "text"}`;
/// - `{"type": "call_start", "index", "id", "name", "format"}` (`id` null when absent);
/// - `{"type": "arguments", "index", "delta"}`;
/// - `{"type": "call_end", "index", "arguments", "repairs"?}` (`repairs`, located by `at`, only
///   when the call was mended).
///
/// A `CallEnd` whose arguments were left in the text (`deferred`: where they are in `source`)
/// is built from there, and the empty delta of its `Arguments` is their text there.
fn event<S: Sink>(
    sink: &mut S,
    event: Event,
    deferred: Option<Deferred>,
    source: &str,
    at: &Receipts,
) -> Result<S::Value, S::Error> {
    let len = match &event {
        Event::Content { .. } | Event::Reasoning { .. } => 2,
        Event::CallStart { .. } => 5,
        Event::Arguments { .. } => 3,
        Event::CallEnd { repairs, .. } => 3 + usize::from(!repairs.is_empty()),
    };
    let mut m = sink.map(len)?;
    field(sink, &mut m, Field::Type, |s| s.id(event.kind()))?;
    match event {
        Event::Content { text } | Event::Reasoning { text } => field(sink, &mut m, Field::Text, |s| s.str(&text))?,
        Event::CallStart {
            index,
            id,
            name,
            format,
        } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Id, |s| optional_str(s, id.as_deref()))?;
            field(sink, &mut m, Field::Name, |s| s.str(&name))?;
            field(sink, &mut m, Field::Format, |s| s.id(format.as_str()))?;
        }
        Event::Arguments { index, delta } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Delta, |s| match deferred {
                Some(deferred) if delta.is_empty() => s.str(&super::raw::json_text(source, deferred)),
                _ => s.str(&delta),
            })?;
        }
        Event::CallEnd {
            index,
            arguments,
            repairs,
        } => {
            field(sink, &mut m, Field::Index, |s| s.int(count(index)))?;
            field(sink, &mut m, Field::Arguments, |s| {
                let left = &mut Left {
                    source,
                    built: Vec::new(),
                    again: None,
                    text: None,
                };
                self::arguments(s, &arguments, deferred, left)
            })?;
            if !repairs.is_empty() {
                field(sink, &mut m, Field::Repairs, |s| receipts(s, &repairs, at))?;
            }
        }
    }
    sink.end_map(m)
}

/// Builds `error` as `{"code", "message", "position", "line", "column", "truncated", "path"?}`
/// (`path` only when the error has one: `tool_call.schema`), for a host that receives errors as
/// data; the message is the error's whole text (its `Display`, what an `Error`'s message is in
/// JavaScript).
pub fn emit_error<S: Sink>(sink: &mut S, error: &Located) -> Result<S::Value, S::Error> {
    let mut m = sink.map(6 + usize::from(error.path.is_some()))?;
    field(sink, &mut m, Field::Code, |s| s.id(error.code.as_str()))?;
    field(sink, &mut m, Field::Message, |s| s.str(&error.to_string()))?;
    field(sink, &mut m, Field::Position, |s| s.int(count(error.position)))?;
    field(sink, &mut m, Field::Line, |s| s.int(count(error.line)))?;
    field(sink, &mut m, Field::Column, |s| s.int(count(error.column)))?;
    field(sink, &mut m, Field::Truncated, |s| s.bool(error.truncated))?;
    if let Some(path) = &error.path {
        field(sink, &mut m, Field::Path, |s| s.str(path))?;
    }
    sink.end_map(m)
}

/// A count or offset as an integer value (no input is anywhere near `i64::MAX`).
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn field<S: Sink>(
    sink: &mut S,
    map: &mut S::Map,
    key: Field,
    build: impl FnOnce(&mut S) -> Result<S::Value, S::Error>,
) -> Result<(), S::Error> {
    sink.key(map, Key::Field(key))?;
    let v = build(sink)?;
    sink.set(map, v)
}

fn list<S: Sink, T>(
    sink: &mut S,
    len: usize,
    items: impl IntoIterator<Item = T>,
    mut build: impl FnMut(&mut S, T) -> Result<S::Value, S::Error>,
) -> Result<S::Value, S::Error> {
    let mut l = sink.list(len)?;
    for item in items {
        sink.item(&mut l)?;
        let v = build(sink, item)?;
        sink.push(&mut l, v)?;
    }
    sink.end_list(l)
}

fn optional_str<S: Sink>(sink: &mut S, s: Option<&str>) -> Result<S::Value, S::Error> {
    match s {
        Some(s) => sink.str(s),
        None => sink.null(),
    }
}

fn tool_call<S: Sink>(
    sink: &mut S,
    call: &ToolCall,
    include_format: bool,
    left: &mut Left<'_, '_, S>,
    at: &Receipts,
) -> Result<S::Value, S::Error> {
    let repaired = !call.repairs.is_empty();
    let len = 2 + usize::from(call.id.is_some()) + usize::from(include_format) + usize::from(repaired);
    let mut m = sink.map(len)?;
    if let Some(id) = &call.id {
        field(sink, &mut m, Field::Id, |s| s.str(id))?;
    }
    field(sink, &mut m, Field::Name, |s| s.str(&call.name))?;
    field(sink, &mut m, Field::Arguments, |s| {
        arguments(s, &call.arguments, call.deferred, left)
    })?;
    if include_format {
        field(sink, &mut m, Field::Format, |s| s.id(call.format.as_str()))?;
    }
    if repaired {
        field(sink, &mut m, Field::Repairs, |s| receipts(s, &call.repairs, at))?;
    }
    sink.end_map(m)
}

/// Receipts as `[{"code", "message", "position", "line", "column", "call_index"}]`, located by
/// `at` (`call_index` null for a receipt no call of the answer holds).
fn receipts<S: Sink>(sink: &mut S, repairs: &[Repair], at: &Receipts) -> Result<S::Value, S::Error> {
    list(sink, repairs.len(), repairs, |sink, r| {
        let at = at.at(r.offset);
        let mut m = sink.map(6)?;
        field(sink, &mut m, Field::Code, |s| s.id(r.code.as_str()))?;
        field(sink, &mut m, Field::Message, |s| s.str(&r.message))?;
        field(sink, &mut m, Field::Position, |s| s.int(count(at.offset)))?;
        field(sink, &mut m, Field::Line, |s| s.int(count(at.line)))?;
        field(sink, &mut m, Field::Column, |s| s.int(count(at.column)))?;
        field(sink, &mut m, Field::CallIndex, |s| match r.call_index {
            Some(i) => s.int(count(i)),
            None => s.null(),
        })?;
        sink.end_map(m)
    })
}

fn message_call<S: Sink>(
    sink: &mut S,
    call: &ToolCall,
    span: [usize; 2],
    left: &mut Left<'_, '_, S>,
    at: &Receipts,
) -> Result<S::Value, S::Error> {
    let repaired = !call.repairs.is_empty();
    let mut m = sink.map(5 + usize::from(repaired))?;
    field(sink, &mut m, Field::Id, |s| optional_str(s, call.id.as_deref()))?;
    field(sink, &mut m, Field::Name, |s| s.str(&call.name))?;
    field(sink, &mut m, Field::Arguments, |s| {
        arguments(s, &call.arguments, call.deferred, left)
    })?;
    field(sink, &mut m, Field::Format, |s| s.id(call.format.as_str()))?;
    field(sink, &mut m, Field::Span, |s| {
        list(s, 2, span, |s, at| s.int(count(at)))
    })?;
    if repaired {
        field(sink, &mut m, Field::Repairs, |s| receipts(s, &call.repairs, at))?;
    }
    sink.end_map(m)
}

/// `{"id", "name", "arguments", "repairs"?}` (`repairs`, located by `at`, only when the call's
/// arguments were mended); the arguments are what the host built as the response was read when
/// the call has a `handle` ([`Output::ProviderCalls`]).
fn provider_call<S: Sink>(
    sink: &mut S,
    call: &ProviderCall,
    handle: Option<u32>,
    left: &mut Left<'_, '_, S>,
    at: &Receipts,
) -> Result<S::Value, S::Error> {
    let repaired = !call.repairs.is_empty();
    let mut m = sink.map(3 + usize::from(repaired))?;
    field(sink, &mut m, Field::Id, |s| optional_str(s, call.id.as_deref()))?;
    field(sink, &mut m, Field::Name, |s| s.str(&call.name))?;
    let built = handle
        .and_then(|h| left.built.get_mut(h as usize))
        .and_then(Option::take);
    field(sink, &mut m, Field::Arguments, |s| match built {
        Some(value) => Ok(value),
        None => left.object(s, &call.arguments),
    })?;
    if repaired {
        field(sink, &mut m, Field::Repairs, |s| receipts(s, &call.repairs, at))?;
    }
    sink.end_map(m)
}

/// Where the arguments the core did not build are: the text the parse read, and what a host's
/// builder made while it read ([`Deferred::Built`]), by handle.
struct Left<'s, 't, S: Sink> {
    source: &'s str,
    built: Built<S::Value>,
    again: Again<S>,
    /// Where arguments are written as JSON text, for a host that takes each as a string
    /// ([`emit_text_arguments`]); `None` builds them as the host's values.
    text: Option<&'t mut dyn TextArguments>,
}

impl<S: Sink> Left<'_, '_, S> {
    /// Arguments built as the host's values: those the parse built while it read are `built`,
    /// by handle, and `again` builds one again.
    fn values(built: Built<S::Value>, again: Again<S>) -> Self {
        Left {
            source: "",
            built,
            again,
            text: None,
        }
    }

    /// The core's `object` as the host takes arguments.
    fn object(&mut self, sink: &mut S, object: &Object) -> Result<S::Value, S::Error> {
        match self.text.as_deref_mut() {
            Some(text) => sink.str(text.write(Write::Object(object))),
            None => self::object(sink, object),
        }
    }
}

/// What a call's arguments are written as JSON text from ([`TextArguments`]).
enum Write<'a> {
    /// The core's object.
    Object(&'a Object),
    /// The text at `at` of `source`, in `grammar`, where the parse left them (`raw::left`).
    Left(&'a str, usize, Grammar),
    /// The same, built again after a parse that built them while it read (`raw::written`).
    Again(&'a str, usize, Grammar),
}

/// Writes arguments as JSON text ([`emit_text_arguments`]). A trait object, so that a host
/// that takes arguments as values (every host's `emit`) does not carry the text writer of every
/// grammar: 38 KB of the WebAssembly module, which never asks for text.
trait TextArguments {
    /// The JSON text of `what`, until the next call.
    fn write(&mut self, what: Write<'_>) -> &str;
}

impl TextArguments for JsonText<Spaced> {
    fn write(&mut self, what: Write<'_>) -> &str {
        // The answer's text holds nothing else: the arguments the parse wrote are aside.
        self.out().clear();
        let Ok(piece) = match what {
            Write::Object(object) => self::object(self, object),
            Write::Left(source, at, grammar) => super::raw::left(self, source, at, grammar),
            Write::Again(source, at, grammar) => super::raw::written(self, source, at, grammar),
        };
        self.text(piece)
    }
}

/// Builds a host-built value again from the text, in its grammar, when it was taken already (a
/// call reported twice): `raw::written` after a parse that built while it read
/// ([`emit_built`]), else `None` (nothing was built), so that a host that never builds while the
/// parse reads ([`emit`] alone) does not carry every grammar's builder for it.
type Again<S> = Option<fn(&mut S, &str, usize, Grammar) -> Result<<S as Sink>::Value, <S as Sink>::Error>>;

/// A call's arguments: built from the text when the parse left them there, taken from what the
/// host built when it built them, else walked from the core's object.
fn arguments<S: Sink>(
    sink: &mut S,
    arguments: &Object,
    deferred: Option<Deferred>,
    left: &mut Left<'_, '_, S>,
) -> Result<S::Value, S::Error> {
    let source = left.source;
    match deferred {
        Some(Deferred::Built { handle, at, grammar }) => {
            match left.built.get_mut(handle as usize).and_then(Option::take) {
                Some(value) => Ok(value),
                // Taken already (a call reported twice): built again from the text.
                None => match (left.text.as_deref_mut(), left.again) {
                    (Some(text), _) => sink.str(text.write(Write::Again(source, at, grammar))),
                    (None, Some(again)) => again(sink, source, at, grammar),
                    // Not reached: a parse that did not build made no `Built`.
                    (None, None) => sink.null(),
                },
            }
        }
        Some(Deferred::Text { at, grammar }) => match left.text.as_deref_mut() {
            Some(text) => sink.str(text.write(Write::Left(source, at, grammar))),
            None => super::raw::left(sink, source, at, grammar),
        },
        None => left.object(sink, arguments),
    }
}

pub(super) fn object<S: Sink>(sink: &mut S, object: &Object) -> Result<S::Value, S::Error> {
    let mut m = sink.map(object.len())?;
    for (k, v) in object {
        sink.key(&mut m, Key::Data(k))?;
        let v = value(sink, v)?;
        sink.set(&mut m, v)?;
    }
    sink.end_map(m)
}

pub(super) fn value<S: Sink>(sink: &mut S, v: &Value) -> Result<S::Value, S::Error> {
    match v {
        Value::Null => sink.null(),
        Value::Bool(b) => sink.bool(*b),
        Value::Number(Number::Int(i)) => sink.int(*i),
        Value::Number(Number::BigInt(digits)) => sink.big_int(digits),
        Value::Number(Number::Float(f)) => sink.float(*f),
        Value::String(s) => sink.str(s),
        Value::Array(items) => list(sink, items.len(), items, value),
        Value::Object(o) => object(sink, o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{run, Host, Input, Op};

    /// Writes compact JSON, to see the shapes.
    struct Json(String);

    impl Sink for Json {
        type Value = ();
        type List = bool;
        type Map = bool;
        type Error = std::convert::Infallible;

        fn null(&mut self) -> Result<(), Self::Error> {
            self.0.push_str("null");
            Ok(())
        }
        fn bool(&mut self, value: bool) -> Result<(), Self::Error> {
            self.0.push_str(if value { "true" } else { "false" });
            Ok(())
        }
        fn int(&mut self, value: i64) -> Result<(), Self::Error> {
            self.0.push_str(&value.to_string());
            Ok(())
        }
        fn big_int(&mut self, digits: &str) -> Result<(), Self::Error> {
            self.0.push_str(digits);
            Ok(())
        }
        fn float(&mut self, value: f64) -> Result<(), Self::Error> {
            let _ = std::fmt::Write::write_fmt(&mut self.0, format_args!("{value:?}"));
            Ok(())
        }
        fn str(&mut self, value: &str) -> Result<(), Self::Error> {
            self.0.push_str(&crate::lex::quote(value));
            Ok(())
        }
        fn list(&mut self, _: usize) -> Result<bool, Self::Error> {
            self.0.push('[');
            Ok(true)
        }
        fn item(&mut self, first: &mut bool) -> Result<(), Self::Error> {
            if !std::mem::take(first) {
                self.0.push(',');
            }
            Ok(())
        }
        fn push(&mut self, _: &mut bool, (): ()) -> Result<(), Self::Error> {
            Ok(())
        }
        fn end_list(&mut self, _: bool) -> Result<(), Self::Error> {
            self.0.push(']');
            Ok(())
        }
        fn map(&mut self, _: usize) -> Result<bool, Self::Error> {
            self.0.push('{');
            Ok(true)
        }
        fn key(&mut self, first: &mut bool, key: Key<'_>) -> Result<(), Self::Error> {
            if !std::mem::take(first) {
                self.0.push(',');
            }
            self.str(key.as_str())?;
            self.0.push(':');
            Ok(())
        }
        fn set(&mut self, _: &mut bool, (): ()) -> Result<(), Self::Error> {
            Ok(())
        }
        fn end_map(&mut self, _: bool) -> Result<(), Self::Error> {
            self.0.push('}');
            Ok(())
        }
    }

    fn json(text: &str, op: Op) -> String {
        let mut sink = Json(String::new());
        emit(&mut sink, run(&Input::Text(text), op, Host::JavaScript).unwrap()).unwrap();
        sink.0
    }

    #[test]
    fn shapes() {
        let text = "Hi 😀 <tool_call>{\"name\": \"f\", \"arguments\": {\"x\": [1, 2.5, null]}}</tool_call>";
        let formats = crate::call::FormatSet::ALL;
        assert_eq!(
            json(
                text,
                Op::ToolCall {
                    formats,
                    tools: crate::host::ToolOptions::default()
                }
            ),
            r#"{"name":"f","arguments":{"x":[1,2.5,null]}}"#
        );
        assert_eq!(
            json(
                text,
                Op::ToolCalls {
                    formats,
                    include_format: true,
                    tools: crate::host::ToolOptions::default()
                }
            ),
            r#"[{"name":"f","arguments":{"x":[1,2.5,null]},"format":"hermes"}]"#
        );
        assert_eq!(
            json(
                text,
                Op::Message {
                    formats,
                    ids: crate::text::message::Ids::Keep,
                    tools: crate::host::ToolOptions::default()
                }
            ),
            r#"{"content":"Hi 😀","reasoning":null,"tool_calls":[{"id":null,"name":"f","arguments":{"x":[1,2.5,null]},"format":"hermes","span":[6,78]}]}"#
        );
        assert_eq!(json("abc", Op::ScanStream), r#"{"state":"none","position":3}"#);
    }

    #[test]
    fn stream_events() {
        let mut stream = crate::host::Stream::text(
            crate::text::message::MessageOptions {
                start: crate::text::reasoning::Start::Content,
                ..Default::default()
            },
            Host::Python,
        );
        let mut sink = Json(String::new());
        let fed = stream
            .feed("Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"x\": [1")
            .unwrap();
        emit(&mut sink, fed).unwrap();
        assert_eq!(
            sink.0,
            r#"[{"type":"content","text":"Hi"},{"type":"call_start","index":0,"id":null,"name":"f","format":"hermes"},{"type":"arguments","index":0,"delta":"{\"x\": [1"}]"#
        );
        let mut sink = Json(String::new());
        emit(&mut sink, stream.feed("]}}</tool_call>").unwrap()).unwrap();
        assert_eq!(
            sink.0,
            r#"[{"type":"arguments","index":0,"delta":"]}"},{"type":"call_end","index":0,"arguments":{"x":[1]}}]"#
        );
        let mut sink = Json(String::new());
        emit(&mut sink, stream.finish().unwrap()).unwrap();
        assert_eq!(sink.0, "[]");
        assert!(matches!(stream.feed("x"), Err(crate::host::Failure::Arg(_))));
    }
}
