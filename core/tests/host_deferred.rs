//! The arguments that `host::run` leaves in the text (the common JSON call shapes, when large)
//! and `host::emit` builds straight from it give exactly what building them in the core gives
//! (`host::run_settled`), and so do the arguments `host::run_into` builds in the sink while the
//! parse reads them: every text fixture, as written and padded so that its calls' arguments are
//! deferred, through `parse_tool_call`, `parse_tool_calls` and `parse_message`, answers and
//! errors alike. The JSON text sink (`host::JsonText`) writes the same answers as JSON text,
//! `host::message_into` the same arguments, and an answer recorded on a `host::Tape` replays as
//! the same answer. A provider response's calls, whose arguments `run_into` builds as the
//! readers find them, give the same answer as their arguments built in the core. With
//! `host::run_text_arguments`, each call's arguments are the JSON text of what the core builds.

mod common;

use beacon_core::host::Query;
use beacon_core::host::{
    emit, message_into, run, run_into, run_settled, run_text_arguments, Host, Input, JsonText, Key, Op, Output, Plain,
    Sink, Spaced, Tape, ToolOptions, Written,
};
use beacon_core::{FormatSet, Ids, Number, Provider, Value};

/// Builds the answer as a [`Value`], counting the calls whose arguments the parse built while
/// it read them ([`Sink::built`]), and the objects made before the parse ended ([`Sink::parsed`]).
#[derive(Default)]
struct Tree {
    built: usize,
    parsed: bool,
    early: usize,
}

impl Sink for Tree {
    type Value = Value;
    type List = Vec<Value>;
    type Map = (Vec<(String, Value)>, String);
    type Error = std::convert::Infallible;

    fn null(&mut self) -> Result<Value, Self::Error> {
        Ok(Value::Null)
    }
    fn bool(&mut self, value: bool) -> Result<Value, Self::Error> {
        Ok(Value::Bool(value))
    }
    fn int(&mut self, value: i64) -> Result<Value, Self::Error> {
        Ok(Value::Number(Number::Int(value)))
    }
    fn big_int(&mut self, digits: &str) -> Result<Value, Self::Error> {
        Ok(Value::Number(Number::BigInt(digits.to_owned())))
    }
    fn float(&mut self, value: f64) -> Result<Value, Self::Error> {
        Ok(Value::Number(Number::Float(value)))
    }
    fn str(&mut self, value: &str) -> Result<Value, Self::Error> {
        Ok(Value::String(value.to_owned()))
    }
    fn list(&mut self, len: usize) -> Result<Vec<Value>, Self::Error> {
        Ok(Vec::with_capacity(len))
    }
    fn item(&mut self, _: &mut Vec<Value>) -> Result<(), Self::Error> {
        Ok(())
    }
    fn push(&mut self, list: &mut Vec<Value>, value: Value) -> Result<(), Self::Error> {
        list.push(value);
        Ok(())
    }
    fn end_list(&mut self, list: Vec<Value>) -> Result<Value, Self::Error> {
        Ok(Value::Array(list))
    }
    fn map(&mut self, _: usize) -> Result<Self::Map, Self::Error> {
        self.early += usize::from(!self.parsed);
        Ok((Vec::new(), String::new()))
    }
    fn key(&mut self, map: &mut Self::Map, key: Key<'_>) -> Result<(), Self::Error> {
        map.1 = key.as_str().to_owned();
        Ok(())
    }
    fn set(&mut self, map: &mut Self::Map, value: Value) -> Result<(), Self::Error> {
        let key = std::mem::take(&mut map.1);
        map.0.push((key, value));
        Ok(())
    }
    fn end_map(&mut self, map: Self::Map) -> Result<Value, Self::Error> {
        Ok(Value::Object(map.0))
    }
    fn built(&mut self, value: Value, _: Written) -> Value {
        self.built += 1;
        value
    }
    fn parsed(&mut self) {
        self.parsed = true;
    }
}

/// The answer or the error (code, position) of `op` on `text`, built from the deferred output
/// (`true`) or the settled one; with the number of calls whose arguments were deferred.
fn answer(text: &str, op: Op, deferred: bool) -> (Result<Value, (String, usize)>, usize) {
    let input = Input::Text(text);
    let output: Result<Output<'_>, _> = if deferred {
        run(&input, op, Host::Python)
    } else {
        run_settled(&input, op, Host::Python)
    };
    match output {
        Ok(output) => {
            let n = output.deferred_calls();
            let Ok(value) = emit(&mut Tree::default(), output);
            (Ok(value), n)
        }
        Err(err) => (Err((err.code.as_str().to_owned(), err.position)), 0),
    }
}

/// The answer or the error (code, position) of `op` on `text` from [`run_into`].
fn answer_into(text: &str, op: Op) -> Result<Value, (String, usize)> {
    match run_into(&mut Tree::default(), &Input::Text(text), op, Host::Python) {
        Ok(Ok(value)) => Ok(value),
        Err(err) => Err((err.code.as_str().to_owned(), err.position)),
    }
}

/// The answer as JSON text, or the error (code, position), of `op` on `text` from [`run_into`]
/// with the JSON text sink.
fn answer_text(text: &str, op: Op) -> Result<String, (String, usize)> {
    let mut sink = JsonText::new(Plain, 0);
    match run_into(sink.reading(0), &Input::Text(text), op, Host::Python) {
        Ok(Ok(piece)) => Ok(sink.text(piece).to_owned()),
        Err(err) => Err((err.code.as_str().to_owned(), err.position)),
    }
}

/// The answer recorded on a tape by [`run_into`] and replayed, or the error (code, position).
fn answer_taped(text: &str, op: Op) -> Result<Value, (String, usize)> {
    let mut tape = Tape::new();
    match run_into(tape.reading(0), &Input::Text(text), op, Host::Python) {
        Ok(Ok(piece)) => {
            let Ok(value) = tape.replay(piece, &Input::Text(text), &mut Tree::default());
            Ok(value)
        }
        Err(err) => Err((err.code.as_str().to_owned(), err.position)),
    }
}

/// The arguments of each call of `parse_message` on `text` as JSON text ([`message_into`]).
fn arguments_text(text: &str, op: Op) -> Result<Vec<String>, (String, usize)> {
    let mut sink = JsonText::new(Plain, 0);
    match message_into(sink.reading(0), &Input::Text(text), op, Host::Python) {
        Ok(Ok((message, pieces))) => {
            assert!(message.tool_calls.iter().all(|c| c.arguments.is_empty()));
            Ok(pieces.into_iter().map(|p| sink.text(p).to_owned()).collect())
        }
        Err(err) => Err((err.code.as_str().to_owned(), err.position)),
    }
}

/// The JSON text of each call's arguments in a settled `parse_message` answer.
fn settled_arguments(answer: &Result<Value, (String, usize)>) -> Result<Vec<String>, (String, usize)> {
    let message = answer.clone()?;
    let Some(Value::Array(calls)) = message.get("tool_calls") else {
        panic!("no tool_calls in {message:?}")
    };
    Ok(calls
        .iter()
        .map(|c| c.get("arguments").expect("arguments").to_json())
        .collect())
}

fn ops() -> [Op; 3] {
    let tools = ToolOptions::default;
    [
        Op::ToolCall {
            formats: FormatSet::ALL,
            tools: tools(),
        },
        Op::ToolCalls {
            formats: FormatSet::ALL,
            include_format: true,
            tools: tools(),
        },
        Op::Message {
            formats: FormatSet::ALL,
            ids: Ids::Keep,
            tools: tools(),
        },
    ]
}

#[test]
fn deferred_arguments_build_what_the_core_builds() {
    let mut deferred_calls = 0;
    let mut texts = 0;
    for case in common::fixture_cases() {
        let Some(input) = case["input"].as_str() else { continue };
        // Padding after the text puts every call's arguments far enough from its end to be
        // deferred; the text itself is the same for both readings.
        let padded = format!("{input}{}", " ".repeat(4096));
        for text in [input, padded.as_str()] {
            texts += 1;
            for ((((deferred_op, settled_op), into_op), text_op), tape_op) in
                ops().into_iter().zip(ops()).zip(ops()).zip(ops()).zip(ops())
            {
                let message = matches!(text_op, Op::Message { .. });
                let (deferred, n) = answer(text, deferred_op, true);
                let (settled, none) = answer(text, settled_op, false);
                assert_eq!(none, 0, "run_settled leaves no arguments in the text");
                assert_eq!(deferred, settled, "{:?} on {text:?}", case["id"]);
                assert_eq!(
                    answer_into(text, into_op),
                    settled,
                    "run_into: {:?} on {text:?}",
                    case["id"]
                );
                assert_eq!(
                    answer_taped(text, tape_op),
                    settled,
                    "run_into, taped: {:?} on {text:?}",
                    case["id"]
                );
                if message {
                    assert_eq!(
                        arguments_text(text, text_op.clone()),
                        settled_arguments(&settled),
                        "message_into: {:?} on {text:?}",
                        case["id"]
                    );
                }
                assert_eq!(
                    answer_text(text, text_op),
                    settled.as_ref().map(Value::to_json).map_err(Clone::clone),
                    "run_into, JSON text: {:?} on {text:?}",
                    case["id"]
                );
                deferred_calls += n;
            }
        }
    }
    assert!(texts > 3000, "{texts} texts");
    // Hermes, Mistral, Llama 3 JSON, the JSON-in-tag family and GigaChat calls are deferred.
    assert!(
        deferred_calls > 500,
        "only {deferred_calls} calls had deferred arguments"
    );
}

#[test]
fn a_large_call_is_deferred_and_built_from_the_text() {
    let items: Vec<String> = (0..2000)
        .map(|i| format!("{{\"n\": {i}, \"s\": \"x\\u00e9\\n{i}\"}}"))
        .collect();
    let text = format!(
        "<tool_call>{{\"name\": \"f\", \"arguments\": {{\"items\": [{}], \"big\": 123456789012345678901234567890, \"f\": -2.5e3, \"t\": true, \"z\": null}}}}</tool_call>",
        items.join(", ")
    );
    let op = || Op::ToolCalls {
        formats: FormatSet::ALL,
        include_format: false,
        tools: ToolOptions::default(),
    };
    let (deferred, n) = answer(&text, op(), true);
    assert_eq!(n, 1);
    assert_eq!(deferred, answer(&text, op(), false).0);
    let Ok(Value::Array(calls)) = deferred else {
        panic!("{deferred:?}")
    };
    let args = calls[0].get("arguments").expect("arguments");
    assert_eq!(
        args.get("items").and_then(|v| match v {
            Value::Array(a) => a.get(1999).and_then(|o| o.get("s")).and_then(Value::as_str),
            _ => None,
        }),
        Some("xé\n1999")
    );
    assert_eq!(
        args.get("big"),
        Some(&Value::Number(Number::BigInt("123456789012345678901234567890".into())))
    );
    assert_eq!(args.get("f"), Some(&Value::Number(Number::Float(-2500.0))));
}

#[test]
fn a_broken_deferred_call_raises_where_the_core_does() {
    // A repeated key deep in large arguments: the check finds it at the same offset.
    let filler = "y".repeat(3000);
    let text = format!("<tool_call>{{\"name\": \"f\", \"arguments\": {{\"a\": \"{filler}\", \"b\": {{\"k\": 1, \"k\": 2}}}}}}</tool_call>");
    let op = || Op::ToolCalls {
        formats: FormatSet::ALL,
        include_format: false,
        tools: ToolOptions::default(),
    };
    let (deferred, _) = answer(&text, op(), true);
    let at = text.find("\"k\": 2").expect("second key");
    assert_eq!(deferred, Err(("json.duplicate_key".to_owned(), at)));
    assert_eq!(deferred, answer(&text, op(), false).0);
    assert_eq!(answer_into(&text, op()), deferred);
    // Small arguments, built while they are read: the same error at the same offset.
    let text = "<tool_call>{\"name\": \"f\", \"arguments\": {\"b\": {\"k\": 1, \"k\": 2}}}</tool_call>";
    let at = text.find("\"k\": 2").expect("second key");
    assert_eq!(answer_into(text, op()), Err(("json.duplicate_key".to_owned(), at)));
}

#[test]
fn large_arguments_on_a_tape_are_left_in_the_text() {
    let items: Vec<String> = (0..6000)
        .map(|i| format!("{{\"n\": {i}, \"s\": \"x\\u00e9{i}\"}}"))
        .collect();
    let items = items.join(", ");
    let escaped = items.replace('"', "\\\"");
    let call_items = items.replace("\\u00e9", "é");
    let texts = [
        // JSON arguments (hermes), an arguments string (OpenAI's message), call syntax.
        format!("<tool_call>{{\"name\": \"f\", \"arguments\": {{\"items\": [{items}], \"t\": true}}}}</tool_call>"),
        format!("{{\"role\": \"assistant\", \"tool_calls\": [{{\"type\": \"function\", \"function\": {{\"name\": \"f\", \"arguments\": \"{{\\\"items\\\": [{escaped}]}}\"}}}}]}}"),
        format!("[f(items=[{call_items}], t=True), g(a=1)]"),
    ];
    for text in &texts {
        for (tape_op, settled_op) in ops().into_iter().zip(ops()) {
            if matches!(tape_op, Op::ToolCall { .. }) && text.contains("g(a=1)") {
                continue;
            }
            let (settled, _) = answer(text, settled_op, false);
            assert!(settled.is_ok(), "{settled:?}");
            let mut tape = Tape::new();
            let Ok(Ok(piece)) = run_into(tape.reading(0), &Input::Text(text), tape_op, Host::Python) else {
                panic!("no answer for {}", &text[..40]);
            };
            assert!(tape.len() < 1024, "{} bytes recorded for {}", tape.len(), &text[..40]);
            let Ok(value) = tape.replay(piece, &Input::Text(text), &mut Tree::default());
            assert_eq!(Ok(value), settled, "{}", &text[..40]);
        }
    }
}

/// A stream's events as `host::emit` builds them, with each call's `arguments` deltas replaced
/// by the JSON value they add up to (a delta's text may differ; its value may not), or the
/// error's code and position.
fn stream_events(text: &str, step: usize, host: bool) -> (Result<Vec<Value>, (String, usize)>, usize) {
    let options = beacon_core::MessageOptions {
        formats: FormatSet::ALL,
        ..Default::default()
    };
    let mut host_stream = host.then(|| beacon_core::host::Stream::text(options, Host::Python));
    let mut core_stream = beacon_core::ToolCallStream::new(options);
    // One piece (`None`: the end) through the stream at hand: its events as `emit` builds them,
    // and how many calls it left in the text; or its error.
    let mut step_on = |piece: Option<&str>| -> Result<(Value, usize), (String, usize)> {
        let Some(stream) = host_stream.as_mut() else {
            let events = match piece {
                Some(p) => core_stream.feed(p),
                None => core_stream.finish(),
            };
            let events = events.map_err(|e| {
                let at = beacon_core::locate(text, e.offset, beacon_core::Unit::CodePoints).offset;
                (e.code.as_str().to_owned(), at)
            })?;
            let output = Output::Events {
                events,
                deferred: Vec::new(),
                source: "",
                at: beacon_core::host::Receipts::default(),
            };
            let Ok(events) = emit(&mut Tree::default(), output);
            return Ok((events, 0));
        };
        let output = match piece {
            Some(p) => stream.feed(p),
            None => stream.finish(),
        };
        match output {
            Ok(output) => {
                let left = match &output {
                    Output::Events { deferred, .. } => deferred.len(),
                    _ => 0,
                };
                let Ok(events) = emit(&mut Tree::default(), output);
                Ok((events, left))
            }
            Err(beacon_core::host::Failure::Parse(e)) => Err((e.code.as_str().to_owned(), e.position)),
            Err(e) => panic!("{e:?}"),
        }
    };
    let mut events = Vec::new();
    let mut left = 0;
    for piece in pieces(text, step).into_iter().map(Some).chain([None]) {
        match step_on(piece) {
            Ok((Value::Array(got), n)) => {
                events.extend(got);
                left += n;
            }
            Ok((other, _)) => panic!("events are a list, not {other:?}"),
            Err(e) => return (Err(e), left),
        }
    }
    (Ok(joined_deltas(events)), left)
}

/// `text` cut into pieces of `step` bytes or a little more (each ends at a character boundary).
fn pieces(text: &str, step: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = (step.min(rest.len())..rest.len())
            .find(|&i| rest.is_char_boundary(i))
            .unwrap_or(rest.len());
        let (piece, after) = rest.split_at(cut);
        out.push(piece);
        rest = after;
    }
    out
}

/// `events` with the `arguments` events of each call taken out and their deltas, joined and read
/// as JSON, put in its `call_end` as `"joined"`.
fn joined_deltas(events: Vec<Value>) -> Vec<Value> {
    let mut deltas: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for event in events {
        let Value::Object(mut entries) = event else {
            panic!("an event is an object")
        };
        let field =
            |entries: &[(String, Value)], key: &str| entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let index = match field(&entries, "index") {
            Some(Value::Number(Number::Int(i))) => i,
            _ => -1,
        };
        match field(&entries, "type") {
            Some(Value::String(t)) if t == "arguments" => {
                let Some(Value::String(delta)) = field(&entries, "delta") else {
                    panic!("a delta")
                };
                assert!(!delta.is_empty(), "an empty delta reached the caller");
                deltas.entry(index).or_default().push_str(&delta);
            }
            Some(Value::String(t)) if t == "call_end" => {
                let joined = deltas.remove(&index).unwrap_or_default();
                // Beyond the nesting limit of a text of its own, the text itself is compared.
                let value = beacon_core::parse_json(&joined).unwrap_or(Value::String(joined));
                entries.push(("joined".to_owned(), value));
                out.push(Value::Object(entries));
            }
            _ => out.push(Value::Object(entries)),
        }
    }
    out
}

#[test]
fn a_host_stream_builds_what_the_core_stream_builds() {
    let (mut texts, mut left, mut ended) = (0, 0, 0);
    for case in common::fixture_cases() {
        let Some(input) = case["input"].as_str() else { continue };
        texts += 1;
        for step in [usize::MAX, 1, 7] {
            let (core, _) = stream_events(input, step, false);
            let (host, n) = stream_events(input, step, true);
            assert_eq!(host, core, "{:?} in pieces of {step}: {input:?}", case["id"]);
            if let Ok(events) = &core {
                ended += events
                    .iter()
                    .filter(|e| matches!(e, Value::Object(o) if o.iter().any(|(k, _)| k == "joined")))
                    .count();
            }
            left += n;
        }
    }
    assert!(texts > 1500, "{texts} texts");
    // The calls whose arguments are JSON are left in the text (2,307 of 4,194 when written):
    // not those in call syntax or written as text between a format's tags.
    assert!(left * 2 > ended, "only {left} of {ended} calls were left in the text");
}

/// Arguments written in JSON are built while the parse reads them (one-shot) and left in the
/// text (a host stream fed whole) in every JSON call shape a format writes: not only a call
/// object with `name` then `arguments`, but a call object in another order or with an id after
/// its arguments, a function object, a message, a call after a format's own tokens, and bare
/// JSON in prose (tier 2, which a stream reads once the text has ended).
#[test]
fn json_arguments_are_built_as_read_in_every_shape() {
    let args = r#"{"city": "Paris", "days": [1, 2]}"#;
    let quoted = r#""{\"city\": \"Paris\"}""#;
    let texts = [
        format!(r#"Sure: {{"name": "f", "arguments": {args}}} now."#),
        format!(r#"{{"name": "f", "parameters": {args}}}<|eot_id|>"#),
        format!(
            r#"{{"role": "assistant", "content": null, "tool_calls": [{{"type": "function", "function": {{"name": "f", "arguments": {quoted}}}}}]}}"#
        ),
        format!(
            r#"[TOOL_CALLS][{{"name": "f", "arguments": {args}, "id": "abcDEF123"}}, {{"name": "g", "arguments": {args}, "id": "abcDEF124"}}]</s>"#
        ),
        format!(
            r#"<tool_call>{{"id": "call_9", "type": "function", "function": {{"name": "f", "arguments": {quoted}}}}}</tool_call>"#
        ),
        format!(r#"<tool_call>{{"type": "tool_use", "id": "toolu_01", "name": "f", "input": {args}}}</tool_call>"#),
        format!(r#"<tool_call>{{"arguments": {args}, "name": "f"}}</tool_call>"#),
        format!("[TOOL_CALL]name=f;args={args}[/TOOL_CALL]"),
        format!(r#"<|tools_prefix|>[{{"f": {args}}}, {{"g": {args}}}]<|tools_suffix|>"#),
        format!("<function=f>{args}</function>"),
        format!("<tool_call>f\n{args}</tool_call>"),
        format!("Action:\n```json\n[{{\"tool_name\": \"f\", \"parameters\": {args}}}]\n```"),
    ];
    for text in &texts {
        let op = || Op::ToolCalls {
            formats: FormatSet::ALL,
            include_format: false,
            tools: ToolOptions::default(),
        };
        let mut tree = Tree::default();
        let answer = run_into(&mut tree, &Input::Text(text), op(), Host::Python);
        let Ok(Ok(Value::Array(calls))) = answer else {
            panic!("{text}: {:?}", answer.err())
        };
        assert_eq!(
            Ok(Value::Array(calls.clone())),
            self::answer(text, op(), false).0,
            "{text}"
        );
        assert_eq!(tree.built, calls.len(), "{text}: built as read");
        let (events, left) = stream_events(text, usize::MAX, true);
        assert!(events.is_ok(), "{text}: {events:?}");
        assert_eq!(left, calls.len(), "{text}: left in the text by the stream");
    }
}

/// Each provider fixture's response, as text and as a decoded value, with the operation that
/// reads its calls as the case says (tools left out: their checks read the core's values).
fn responses() -> Vec<(String, Input<'static>, Op)> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/providers");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        let cases = file
            .get("cases")
            .unwrap_or(&file)
            .as_array()
            .cloned()
            .unwrap_or_default();
        for case in cases {
            let text = match (&case["response_text"], &case["response"]) {
                (serde_json::Value::String(text), _) => text.clone(),
                (_, serde_json::Value::Null) => continue,
                (_, response) => response.to_string(),
            };
            let provider = match case["provider"].as_str() {
                None | Some("auto") => None,
                Some(id) => Some(Provider::parse(id).expect("provider")),
            };
            let op = Op::Response {
                provider,
                text_fallback: case["text_fallback"].as_bool().unwrap_or(false),
                query: Query::Calls,
                tools: ToolOptions {
                    repair: case["repair"].as_bool().unwrap_or(false),
                    ..ToolOptions::default()
                },
            };
            let value = match &case["response"] {
                serde_json::Value::Null => None,
                response => Some(Input::Value(common::from_serde(response))),
            };
            let id = case["id"].as_str().unwrap_or_default().to_owned();
            out.extend(value.map(|value| (id.clone(), value, op.clone())));
            out.push((id, Input::Text(Box::leak(text.into_boxed_str())), op));
        }
    }
    out
}

#[test]
fn response_arguments_built_as_read_are_what_the_core_builds() {
    let mut early = 0;
    let mut cases = 0;
    for (id, input, op) in responses() {
        cases += 1;
        let settled = match run_settled(&input, op.clone(), Host::Python) {
            Ok(output) => {
                let Ok(value) = emit(&mut Tree::default(), output);
                Ok(value)
            }
            Err(err) => Err((err.code.as_str().to_owned(), err.position)),
        };
        let mut tree = Tree::default();
        let into = match run_into(&mut tree, &input, op.clone(), Host::Python) {
            Ok(Ok(value)) => Ok(value),
            Err(err) => Err((err.code.as_str().to_owned(), err.position)),
        };
        assert_eq!(into, settled, "run_into: {id}");
        early += tree.early;
        let mut sink = JsonText::new(Plain, 0);
        let text = match run_into(sink.reading(0), &input, op.clone(), Host::Python) {
            Ok(Ok(piece)) => Ok(sink.text(piece).to_owned()),
            Err(err) => Err((err.code.as_str().to_owned(), err.position)),
        };
        assert_eq!(
            text,
            settled.as_ref().map(Value::to_json).map_err(Clone::clone),
            "JSON text: {id}"
        );
        let mut tape = Tape::new();
        let taped = match run_into(tape.reading(0), &input, op, Host::Python) {
            Ok(Ok(piece)) => {
                let Ok(value) = tape.replay(piece, &input, &mut Tree::default());
                Ok(value)
            }
            Err(err) => Err((err.code.as_str().to_owned(), err.position)),
        };
        assert_eq!(taped, settled, "tape: {id}");
    }
    assert!(cases > 250, "{cases} responses");
    // The calls of the responses that hold calls, made while the readers found them.
    assert!(
        early > 150,
        "only {early} objects were built while the responses were read"
    );
}

/// `answer` with each call's `arguments` (an object, in a list of calls, a call or a message's
/// `tool_calls`) replaced by its JSON text, spaced as [`Spaced`] writes it.
fn arguments_as_text(answer: Value) -> Value {
    fn text(value: Value) -> Value {
        let mut sink = JsonText::new(Spaced, 0);
        let Ok(piece) = emit(&mut sink, Output::Value(value));
        Value::String(sink.text(piece).to_owned())
    }
    fn call(value: Value) -> Value {
        match value {
            Value::Object(entries) => Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| match k.as_str() {
                        "arguments" => (k, text(v)),
                        _ => (k, v),
                    })
                    .collect(),
            ),
            other => other,
        }
    }
    match answer {
        Value::Array(calls) => Value::Array(calls.into_iter().map(call).collect()),
        Value::Object(entries) if entries.iter().any(|(k, _)| k == "tool_calls") => Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("tool_calls", Value::Array(calls)) => (k, Value::Array(calls.into_iter().map(call).collect())),
                    (_, v) => (k, v),
                })
                .collect(),
        ),
        other => call(other),
    }
}

#[test]
fn text_arguments_are_the_json_text_of_what_the_core_builds() {
    let mut calls = 0;
    for case in common::fixture_cases() {
        let Some(input) = case["input"].as_str() else { continue };
        let padded = format!("{input}{}", " ".repeat(4096));
        for text in [input, padded.as_str()] {
            for (settled_op, text_op) in ops().into_iter().zip(ops()) {
                let (settled, _) = answer(text, settled_op, false);
                let want = settled.map(arguments_as_text);
                let mut tree = Tree::default();
                let got = match run_text_arguments(&mut tree, &Input::Text(text), text_op.clone(), Host::Python) {
                    Ok(Ok(value)) => Ok(value),
                    Err(err) => Err((err.code.as_str().to_owned(), err.position)),
                };
                assert_eq!(got, want, "{:?} on {text:?}", case["id"]);
                let mut tape = Tape::new();
                let taped = match run_text_arguments(tape.reading(0), &Input::Text(text), text_op, Host::Python) {
                    Ok(Ok(piece)) => {
                        let Ok(value) = tape.replay(piece, &Input::Text(text), &mut Tree::default());
                        Ok(value)
                    }
                    Err(err) => Err((err.code.as_str().to_owned(), err.position)),
                };
                assert_eq!(taped, want, "tape: {:?} on {text:?}", case["id"]);
                if let Ok(Value::Array(list)) = &want {
                    calls += list.len();
                }
            }
        }
    }
    assert!(calls > 1000, "only {calls} calls");
    // Spaced as Python's `json.dumps` spaces it.
    let text = r#"<tool_call>{"name": "f", "arguments": {"a":[1,2.5],"b":{"c":null,"d":"\u00e9\n"}}}</tool_call>"#;
    let op = Op::ToolCall {
        formats: FormatSet::ALL,
        tools: ToolOptions::default(),
    };
    let Ok(Ok(call)) = run_text_arguments(&mut Tree::default(), &Input::Text(text), op, Host::Python) else {
        panic!("no call in {text:?}")
    };
    assert_eq!(
        call.get("arguments"),
        Some(&Value::String(
            r#"{"a": [1, 2.5], "b": {"c": null, "d": "é\n"}}"#.to_owned()
        ))
    );
}
