//! Builds a host's values straight from JSON text, so that no [`Value`] tree is
//! built and freed in between: the arguments of the common call shapes, either while the parse
//! reads them ([`Arguments`], `shape::Defer::Build`) or after it, from the text where it left
//! them once checked (`shape::Defer::Large`).

use std::borrow::Cow;
use std::cell::RefCell;

use super::sink::{Key, Sink, Written};
use crate::call::{Deferred, Grammar};
use crate::syntax::callsyntax;
use crate::syntax::json::{self, Build, Check, CheckObject};
use crate::syntax::object_literal::Literal;
use crate::syntax::shape::{BuildArguments, TextValue};
use crate::value::{Number, Object, Value};

/// Builds arguments objects in a sink while the parse reads them, as strictly as the parse's
/// own reading (repeated keys included), and keeps them by handle for `answer::emit_built`.
pub(super) struct Arguments<'s, S: Sink> {
    state: RefCell<State<'s, S>>,
}

/// Values a host's builder made while the parse read them, by handle (taken when emitted).
pub(super) type Built<V> = Vec<Option<V>>;

/// What [`Arguments`] built, and the sink's first error (after which it builds nothing more).
struct State<'s, S: Sink> {
    sink: &'s mut S,
    values: Built<S::Value>,
    error: Option<S::Error>,
}

impl<'s, S: Sink> Arguments<'s, S> {
    pub(super) fn new(sink: &'s mut S) -> Self {
        Arguments {
            state: RefCell::new(State {
                sink,
                values: Vec::new(),
                error: None,
            }),
        }
    }

    /// The sink back, the values built (by handle), or the sink's error.
    pub(super) fn finish(self) -> (&'s mut S, Result<Built<S::Value>, S::Error>) {
        let built = self.state.into_inner();
        match built.error {
            Some(error) => (built.sink, Err(error)),
            None => (built.sink, Ok(built.values)),
        }
    }
}

impl<S: Sink> Arguments<'_, S> {
    /// Runs `read` with a checking builder over the sink and keeps what it built: its handle
    /// and the offset `read` ended at, or `None` (nothing kept) when it failed. Arguments the
    /// sink can build again from the text (`at`, in `grammar`) are handed to [`Sink::built`].
    fn keep<'a>(
        &self,
        written: Option<(usize, Grammar)>,
        read: impl for<'h> FnOnce(Checked<'a, 'h, S>) -> (Option<(Option<S::Value>, usize)>, Checked<'a, 'h, S>),
    ) -> Option<(usize, usize)> {
        let mut state = self.state.try_borrow_mut().ok()?;
        let state = &mut *state;
        if state.error.is_some() {
            return None;
        }
        let checked = Checked::over(Host {
            sink: &mut *state.sink,
            error: None,
        });
        let (value, checked) = read(checked);
        if let Some(error) = checked.host.error {
            state.error = Some(error);
            return None;
        }
        let (Some(value), end) = value? else {
            return None;
        };
        let value = match written {
            Some((at, grammar)) => state.sink.built(value, Written { at, grammar }),
            None => value,
        };
        state.values.push(Some(value));
        Some((state.values.len() - 1, end))
    }
}

impl<S: Sink> BuildArguments for Arguments<'_, S> {
    fn object(&self, src: &str, at: usize, depth: usize) -> Option<(usize, usize)> {
        self.keep(Some((at, Grammar::Json)), |checked| {
            json::build_nested_at(src, at, depth, checked)
        })
    }

    fn json_string(&self, src: &str, at: usize) -> Option<(usize, usize)> {
        if let Some(kept) = self.keep(Some((at, Grammar::JsonString)), |checked| {
            json::build_object_in_string(src, at, checked)
        }) {
            return Some(kept);
        }
        let (text, end) = json::string_at(src, at)?;
        self.keep(Some((at, Grammar::JsonString)), |checked| {
            let (value, checked) = json::build_complete_object(&text, checked);
            (value.map(|v| (v, end)), checked)
        })
    }

    fn call_arguments(&self, src: &str, open: usize) -> Option<(usize, usize)> {
        self.keep(Some((open, Grammar::CallSyntax)), |checked| {
            let (value, checked) = callsyntax::build_arguments(src, open, checked);
            (value.ok(), checked)
        })
    }

    fn object_literal(&self, src: &str, open: usize, delimiter: &'static str) -> Option<(usize, usize)> {
        self.keep(None, |mut checked| {
            let mut read = Literal::new(src, open, delimiter);
            let value = read.object_into(&mut checked, true).ok().map(|value| (value, read.pos));
            (value, checked)
        })
    }

    fn object_text(&self, text: &str) -> Option<usize> {
        self.keep(None, |checked| {
            let (value, checked) = json::build_complete_object(text, checked);
            (value.map(|v| (v, 0)), checked)
        })
        .map(|(handle, _)| handle)
    }

    fn tree(&self, object: &Object) -> Option<usize> {
        self.keep(None, |Checked { check, mut host }| {
            let r = super::answer::object(host.sink, object);
            let value = host.keep(r);
            (Some((value, 0)), Checked { check, host })
        })
        .map(|(handle, _)| handle)
    }

    fn params(&self, params: Vec<(Cow<'_, str>, TextValue<'_>)>) -> Option<usize> {
        self.keep(None, |Checked { check, host }| {
            // One check for the JSON of every value, so that the room for its keys is taken
            // once a call rather than once a value.
            let mut values = Checked::over(host);
            let mut map = values.host.object();
            for (key, value) in &params {
                // The keys were checked as they were read; the host's builder takes any key.
                let _ = values.host.key(&mut map, Cow::Borrowed(&**key));
                let value = match value {
                    TextValue::Probed(raw) => {
                        let built;
                        (built, values) = json::build_text(raw, values);
                        match built {
                            Some(value) => value,
                            None => values.host.string(Cow::Borrowed(&**raw)),
                        }
                    }
                    TextValue::Text(text) => values.host.string(Cow::Borrowed(*text)),
                    TextValue::Typed(value) => {
                        let r = super::answer::value(values.host.sink, value);
                        values.host.keep(r)
                    }
                };
                values.host.value(&mut map, value);
            }
            let value = values.host.end_object(map);
            (
                Some((value, 0)),
                Checked {
                    check,
                    host: values.host,
                },
            )
        })
        .map(|(handle, _)| handle)
    }
}

/// The strict check and the host's building in one reading: the check refuses a repeated key.
struct Checked<'a, 's, S: Sink> {
    check: Check<'a>,
    host: Host<'s, S>,
}

impl<'s, S: Sink> Checked<'_, 's, S> {
    /// A fresh check over `host`.
    fn over(host: Host<'s, S>) -> Self {
        Checked {
            check: Check::default(),
            host,
        }
    }
}

impl<'a, S: Sink> Build<'a> for Checked<'a, '_, S> {
    type Value = Option<S::Value>;
    type Array = Option<S::List>;
    type Object = (CheckObject<'a>, Option<S::Map>);

    fn null(&mut self) -> Self::Value {
        self.host.null()
    }
    fn bool(&mut self, value: bool) -> Self::Value {
        self.host.bool(value)
    }
    fn number(&mut self, text: &str, float: bool) -> Option<Self::Value> {
        self.host.number(text, float)
    }
    fn string(&mut self, value: Cow<'a, str>) -> Self::Value {
        self.host.string(value)
    }
    fn array(&mut self) -> Self::Array {
        self.host.array()
    }
    fn item(&mut self, array: &mut Self::Array) {
        self.host.item(array);
    }
    fn push(&mut self, array: &mut Self::Array, value: Self::Value) {
        self.host.push(array, value);
    }
    fn end_array(&mut self, array: Self::Array) -> Self::Value {
        self.host.end_array(array)
    }
    fn object(&mut self) -> Self::Object {
        (self.check.object(), self.host.object())
    }
    fn key(&mut self, object: &mut Self::Object, key: Cow<'a, str>) -> Result<(), Cow<'a, str>> {
        self.check.key(&mut object.0, key.clone())?;
        self.host.key(&mut object.1, key)
    }
    fn value(&mut self, object: &mut Self::Object, value: Self::Value) {
        self.host.value(&mut object.1, value);
    }
    fn end_object(&mut self, object: Self::Object) -> Self::Value {
        self.check.end_object(object.0);
        self.host.end_object(object.1)
    }
}

/// The JSON value at `at` in `source` (checked when it was parsed), built in `sink`.
pub(super) fn value<S: Sink>(sink: &mut S, source: &str, at: usize) -> Result<S::Value, S::Error> {
    let (built, host) = json::build_at(source, at, Host { sink, error: None });
    host.finish(built.flatten())
}

/// The arguments a parse checked and left in the text at `at` (`shape::Check`,
/// `shape::Defer::Large`), built in `sink`: a JSON object, or an arguments string whose content
/// is one (read with the checking builder `written` uses, so that a host links one builder for it).
pub(super) fn left<S: Sink>(sink: &mut S, source: &str, at: usize, grammar: Grammar) -> Result<S::Value, S::Error> {
    if grammar != Grammar::JsonString {
        return value(sink, source, at);
    }
    let (built, checked) = object_in_string(Checked::over(Host { sink, error: None }), source, at);
    checked.host.finish(built)
}

/// The JSON object that is the whole content of the string at `at`, read into `checked`.
fn object_in_string<'a, 's, S: Sink>(
    checked: Checked<'a, 's, S>,
    source: &'a str,
    at: usize,
) -> (Option<S::Value>, Checked<'a, 's, S>) {
    let (built, checked) = json::build_object_in_string(source, at, checked);
    if let Some((value, _)) = built {
        return (value, checked);
    }
    let Some((text, _)) = json::string_at(source, at) else {
        return (None, checked);
    };
    let (built, back) = json::build_complete_object(&text, Checked::over(checked.host));
    (built.flatten(), Checked::over(back.host))
}

/// The JSON text of the arguments `deferred` says are in `source`: the `Arguments` delta of a
/// stream's call read whole, as the model wrote it (as when it streams): an object's own text, an
/// arguments string's content. Empty when they cannot be read (they were checked when the call
/// was read).
pub(super) fn json_text(source: &str, deferred: Deferred) -> Cow<'_, str> {
    let (Deferred::Text { at, grammar } | Deferred::Built { at, grammar, .. }) = deferred;
    match grammar {
        Grammar::Json => {
            json::raw_value_end(source.as_bytes(), at).map_or(Cow::Borrowed(""), |end| Cow::Borrowed(&source[at..end]))
        }
        Grammar::JsonString => json::string_at(source, at).map_or(Cow::Borrowed(""), |(text, _)| text),
        // Not left in the text by a stream (`shape::Check`): their delta is written from the tree.
        Grammar::CallSyntax | Grammar::ObjectLiteral(_) | Grammar::Params => Cow::Borrowed(""),
    }
}

/// The arguments written at `at` in `source` in `grammar` (checked when they were parsed), built
/// in `sink`: a call that a parse which built while it read reported twice (a stream's arguments
/// left in its text are built by [`left`]). Built with the checking builder the parse used, so
/// that a host links one builder per grammar.
pub(super) fn written<S: Sink>(sink: &mut S, source: &str, at: usize, grammar: Grammar) -> Result<S::Value, S::Error> {
    let mut checked = Checked::over(Host { sink, error: None });
    let built = match grammar {
        Grammar::Json => return value(checked.host.sink, source, at),
        Grammar::JsonString => {
            let (built, back) = object_in_string(checked, source, at);
            checked = back;
            Some(built)
        }
        Grammar::CallSyntax => {
            let (built, back) = callsyntax::build_arguments(source, at, checked);
            checked = back;
            built.ok().map(|(value, _)| value)
        }
        Grammar::ObjectLiteral(format) => crate::formats::gemma::delimiter(format)
            .and_then(|delimiter| Literal::new(source, at, delimiter).object_into(&mut checked, true).ok()),
        // Built from what the parse read (`BuildArguments::params`), not from the text, and a
        // parse reports each such call once.
        Grammar::Params => None,
    };
    checked.host.finish(built.flatten())
}

/// The parser's builder over a [`Sink`]: the first error of the sink is kept, and everything
/// after it is skipped.
struct Host<'s, S: Sink> {
    sink: &'s mut S,
    error: Option<S::Error>,
}

impl<S: Sink> Host<'_, S> {
    /// What a reading of text the parse accepted built: the value, or the sink's error.
    fn finish(self, built: Option<S::Value>) -> Result<S::Value, S::Error> {
        match (built, self.error) {
            (_, Some(error)) => Err(error),
            (Some(value), None) => Ok(value),
            // The same strict parse accepted this text when the call was read, so it does not
            // fail here; were it to, the host gets `null` rather than a panic.
            _ => self.sink.null(),
        }
    }

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

    fn number(&mut self, text: &str, float: bool) -> Option<Self::Value> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::FormatSet;
    use crate::host::{run_with, Host, Input, Op, ToolOptions};
    use crate::syntax::shape::Defer;

    /// Builds nothing, and counts the mappings it is asked for.
    #[derive(Default)]
    struct Count(usize);

    impl Sink for Count {
        type Value = ();
        type List = ();
        type Map = ();
        type Error = ();
        fn null(&mut self) -> Result<(), ()> {
            Ok(())
        }
        fn bool(&mut self, _: bool) -> Result<(), ()> {
            Ok(())
        }
        fn int(&mut self, _: i64) -> Result<(), ()> {
            Ok(())
        }
        fn big_int(&mut self, _: &str) -> Result<(), ()> {
            Ok(())
        }
        fn float(&mut self, _: f64) -> Result<(), ()> {
            Ok(())
        }
        fn str(&mut self, _: &str) -> Result<(), ()> {
            Ok(())
        }
        fn list(&mut self, _: usize) -> Result<(), ()> {
            Ok(())
        }
        fn item(&mut self, (): &mut ()) -> Result<(), ()> {
            Ok(())
        }
        fn push(&mut self, (): &mut (), (): ()) -> Result<(), ()> {
            Ok(())
        }
        fn end_list(&mut self, (): ()) -> Result<(), ()> {
            Ok(())
        }
        fn map(&mut self, _: usize) -> Result<(), ()> {
            self.0 += 1;
            Ok(())
        }
        fn key(&mut self, (): &mut (), _: Key<'_>) -> Result<(), ()> {
            Ok(())
        }
        fn set(&mut self, (): &mut (), (): ()) -> Result<(), ()> {
            Ok(())
        }
        fn end_map(&mut self, (): ()) -> Result<(), ()> {
            Ok(())
        }
    }

    /// The calls of `text` whose arguments were built while the parse read them, and the
    /// mappings the sink was asked for meanwhile; every value built belongs to a call.
    fn built_while_read(text: &str) -> (usize, usize) {
        let mut sink = Count::default();
        let arguments = Arguments::new(&mut sink);
        let op = Op::ToolCalls {
            formats: FormatSet::ALL,
            include_format: false,
            tools: ToolOptions::default(),
        };
        let output = run_with(&Input::Text(text), op, Host::Python, Defer::Build(&arguments)).expect("calls");
        let (sink, built) = arguments.finish();
        assert_eq!(built.map(|b| b.len()), Ok(output.deferred_calls()));
        (output.deferred_calls(), sink.0)
    }

    #[test]
    fn the_common_call_shapes_are_built_while_read() {
        let hermes = r#"<tool_call>{"name": "f", "arguments": {"a": {"b": [1, 2]}}}</tool_call><tool_call>{"name": "g", "arguments": {}}</tool_call>"#;
        assert_eq!(built_while_read(hermes), (2, 3));
        let mistral = r#"[TOOL_CALLS][{"name": "f", "arguments": {"a": 1}}, {"name": "g", "arguments": {"b": 2}}]"#;
        assert_eq!(built_while_read(mistral), (2, 2));
        let gigachat = r#"<|function_call|>{"name": "f", "arguments": {"a": "x"}}"#;
        assert_eq!(built_while_read(gigachat), (1, 1));
        // Call syntax: a leading list, and a call in prose.
        let pythonic = r#"[f(a=1), g(b={"c": (1, 2)}, d=None)]"#;
        assert_eq!(built_while_read(pythonic), (2, 3));
        assert_eq!(built_while_read("Let me look: search(q='rust', n=3)."), (1, 1));
        assert_eq!(built_while_read("search(q='rust') and more"), (1, 1));
        assert_eq!(built_while_read("<|python_tag|>search(q=['rust'])<|eom_id|>"), (1, 1));
        // Gemma's object literals, both dialects.
        let gemma = r#"<|tool_call>call:f{a:<|"|>x<|"|>,b:{c:[1,true,None]}}<tool_call|>"#;
        assert_eq!(built_while_read(gemma), (1, 2));
        let function_gemma = "<start_function_call>call:f{a:<escape>x<escape>}<end_function_call>";
        assert_eq!(built_while_read(function_gemma), (1, 1));
        // An OpenAI message: arguments objects, and JSON strings holding one.
        let message = r#"{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\"a\": {\"b\": 1}}"}}, {"type": "function", "function": {"name": "g", "arguments": {}}}]}"#;
        assert_eq!(built_while_read(message), (2, 3));
        // A JSON object after a format's own tokens.
        let kimi = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": {\"b\": 1}}<|tool_call_end|><|tool_calls_section_end|>";
        assert_eq!(built_while_read(kimi), (1, 2));
        let solar = r#"<|tool_calls|><|tool_call:begin|>a1<|tool_call:name|>f<|tool_call:args|>{"c": "x"}<|tool_call:end|><|calls|>"#;
        assert_eq!(built_while_read(solar), (1, 1));
        assert_eq!(built_while_read(r#"[TOOL_CALLS]f[ARGS]{"a": [{}]}"#), (1, 2));
        let deepseek_v31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        assert_eq!(built_while_read(deepseek_v31), (1, 1));
        let deepseek_v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": {}}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        assert_eq!(built_while_read(deepseek_v3), (1, 2));
        let harmony = "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": {\"b\": 1}}<|call|>";
        assert_eq!(built_while_read(harmony), (1, 2));
        // Values written as text: JSON-first (an object among them), and as the format types
        // them (`string="true"`, `string="false"`).
        let qwen = "<tool_call><function=f><parameter=a>1</parameter><parameter=b>{\"c\": {}}</parameter></function></tool_call>";
        assert_eq!(built_while_read(qwen), (1, 3));
        let glm = "<tool_call>f<arg_key>a</arg_key><arg_value>x</arg_value></tool_call><tool_call>g</tool_call>";
        assert_eq!(built_while_read(glm), (2, 2));
        let dsml = "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"x\" string=\"false\">{\"y\": 1}</｜DSML｜parameter><｜DSML｜parameter name=\"z\" string=\"true\">{}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>";
        assert_eq!(built_while_read(dsml), (1, 2));
    }

    #[test]
    fn arguments_are_built_again_from_the_text_in_their_grammar() {
        let mut sink = Count::default();
        assert_eq!(
            written(&mut sink, r#"f(a={"b": 1}, c=[{}])"#, 1, Grammar::CallSyntax),
            Ok(())
        );
        assert_eq!(written(&mut sink, r#"{"a": {"b": 1}}"#, 0, Grammar::Json), Ok(()));
        assert_eq!(sink.0, 5);
        let gemma = Grammar::ObjectLiteral(crate::call::Format::FunctionGemma);
        assert_eq!(written(&mut sink, "f{a:{b:<escape>}<escape>}}", 1, gemma), Ok(()));
        assert_eq!(sink.0, 7);
        let string = r#"{"arguments": " {\"a\": {}} "}"#;
        assert_eq!(written(&mut sink, string, 14, Grammar::JsonString), Ok(()));
        assert_eq!(sink.0, 9);
    }

    #[test]
    fn a_broken_object_keeps_nothing_and_is_read_the_general_way() {
        let mut sink = Count::default();
        let arguments = Arguments::new(&mut sink);
        assert_eq!(arguments.object(r#"{"a": 1, "a": 2}"#, 0, 1), None);
        assert_eq!(arguments.object(r#"{"a": [1, }"#, 0, 1), None);
        assert_eq!(arguments.object(r#"{"a": 1} tail"#, 0, 1), Some((0, 8)));
        assert_eq!(arguments.call_arguments("f(a=1, a=2)", 1), None);
        assert_eq!(arguments.call_arguments("f(a={'b': 1, 'b': 2})", 1), None);
        assert_eq!(arguments.call_arguments("f(a=[1, 2)", 1), None);
        assert_eq!(arguments.call_arguments("f(a=(1,), b='x') tail", 1), Some((1, 16)));
        assert_eq!(arguments.object_literal("f{a:1,a:2}", 1, "<escape>"), None);
        assert_eq!(arguments.object_literal("f{a:nope}", 1, "<escape>"), None);
        assert_eq!(arguments.object_literal("f{a:1}<end>", 1, "<escape>"), Some((2, 6)));
        assert_eq!(arguments.json_string(r#"x "{\"a\": 1, \"a\": 2}""#, 2), None);
        assert_eq!(arguments.json_string(r#"x "[1]""#, 2), None);
        assert_eq!(arguments.json_string(r#"x "{} 1""#, 2), None);
        assert_eq!(arguments.json_string(r#"x "{\"a\": 1}" tail"#, 2), Some((3, 14)));
        let (_, built) = arguments.finish();
        assert_eq!(built.map(|b| b.len()), Ok(4));
    }
}
