//! Property tests for gpt-oss Harmony, Gemma 4 and FunctionGemma: random calls rendered the way
//! the models write them parse back equal, and streaming such a call only moves forward.

mod common;

use beacon_core::{parse_tool_calls, scan_stream, Format, Number, Object, StreamState, Value};
use proptest::prelude::*;

fn string_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,8}",
        // quotes, backslashes, brackets, line breaks, non-ASCII and astral characters
        "[a-z\"'\\\\\\[\\]{}()<>|/=;,:\\n\\t\\r\\u{1}é漢😀]{0,12}",
        // the formats' own tokens inside strings
        prop::sample::select(vec![
            "<tool_call|>",
            "<|tool_call>",
            "call:f{}",
            "<end_function_call>",
            "<|call|>",
            "<|end|>",
            "<|start|>assistant",
            "<|channel|>final<|message|>",
            "<|tool_response>",
            "None",
        ])
        .prop_map(str::to_string),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| Value::Number(Number::Int(i))),
        "[1-9][0-9]{19,40}".prop_map(|d| Value::Number(Number::BigInt(d))),
        prop_oneof![
            (-1000i32..1000).prop_map(|i| f64::from(i) / 8.0),
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ]
        .prop_map(|f| Value::Number(Number::Float(f))),
        string_value().prop_map(Value::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z_][a-z0-9_.-]{0,8}", string_value()]
}

fn value() -> impl Strategy<Value = Value> {
    common::nested(leaf(), key, 4, 48, 5)
}

fn arguments() -> impl Strategy<Value = Object> {
    prop::collection::vec((key(), value()), 0..5).prop_map(common::unique)
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_.-]{0,16}"
}

/// Whether every string (keys included) avoids `delimiter`, so that it can be written verbatim.
fn writable(v: &Value, delimiter: &str) -> bool {
    match v {
        Value::String(s) => !s.contains(delimiter),
        Value::Array(items) => items.iter().all(|i| writable(i, delimiter)),
        Value::Object(o) => o.iter().all(|(k, v)| !k.contains(delimiter) && writable(v, delimiter)),
        _ => true,
    }
}

/// The Gemma object-literal form of `v`: strings between delimiters, keys bare when they can be.
fn literal(v: &Value, delimiter: &str) -> String {
    match v {
        Value::String(s) => format!("{delimiter}{s}{delimiter}"),
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|i| literal(i, delimiter))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Object(o) => object(o, delimiter),
        other => other.to_json(),
    }
}

fn object(o: &Object, delimiter: &str) -> String {
    let entries: Vec<String> = o
        .iter()
        .map(|(k, v)| {
            let bare = !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b));
            let k = if bare {
                k.clone()
            } else {
                format!("{delimiter}{k}{delimiter}")
            };
            format!("{k}:{}", literal(v, delimiter))
        })
        .collect();
    format!("{{{}}}", entries.join(","))
}

/// `(format, marker, text)` for every way these models write a call.
fn renderings(name: &str, args: &Object) -> Vec<(Format, &'static str, String)> {
    let json = Value::Object(args.clone()).to_json();
    let mut out = vec![
        (
            Format::Harmony,
            "<|channel|>",
            format!("<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{json}<|call|>"),
        ),
        (
            Format::Harmony,
            "<|channel|>",
            format!(" to=functions.{name}<|channel|>commentary json<|message|>{json}<|call|>"),
        ),
        (
            Format::Harmony,
            "<|start|>",
            format!(
                "<|channel|>analysis<|message|>Thinking.<|end|><|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>{json}<|call|>"
            ),
        ),
    ];
    let whole = Value::Object(args.clone());
    if writable(&whole, "<|\"|>") {
        out.push((
            Format::Gemma4,
            "<|tool_call>",
            format!(
                "<|tool_call>call:{name}{}<tool_call|><|tool_response>",
                object(args, "<|\"|>")
            ),
        ));
    }
    if writable(&whole, "<escape>") {
        out.push((
            Format::FunctionGemma,
            "<start_function_call>",
            format!(
                "<start_function_call>call:{name}{}<end_function_call>",
                object(args, "<escape>")
            ),
        ));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_rendering_round_trips(name in name(), args in arguments()) {
        for (format, _, text) in renderings(&name, &args) {
            let calls = parse_tool_calls(&text).map_err(|e| TestCaseError::fail(format!("{format:?}: {e} in {text:?}")))?;
            prop_assert_eq!(calls.len(), 1, "{:?}", text);
            prop_assert_eq!(calls[0].format, format, "{:?}", text);
            prop_assert_eq!(&calls[0].name, &name, "{:?}", text);
            prop_assert_eq!(&calls[0].arguments, &args, "{:?}", text);
        }
    }

    #[test]
    fn streaming_a_call_moves_only_forward(name in name(), args in arguments()) {
        for (_, marker, text) in renderings(&name, &args) {
            let marker_end = text.find(marker).expect("the marker") + marker.len();
            let mut last = StreamState::None;
            for end in (marker_end..=text.len()).filter(|&e| text.is_char_boundary(e)) {
                let scan = scan_stream(&text[..end]);
                prop_assert!(scan.state as u8 >= last as u8, "{:?} after {:?} in {:?}", scan.state, last, &text[..end]);
                prop_assert!(scan.state != StreamState::None, "{:?}", &text[..end]);
                last = scan.state;
            }
            prop_assert_eq!(last, StreamState::Found, "{:?}", text);
        }
    }

    #[test]
    fn two_gemma_calls_come_back_in_order(a in name(), b in name(), args in arguments()) {
        prop_assume!(writable(&Value::Object(args.clone()), "<|\"|>"));
        let text = format!(
            "<|tool_call>call:{a}{}<tool_call|><|tool_call>call:{b}{{}}<tool_call|><|tool_response>",
            object(&args, "<|\"|>")
        );
        let calls = parse_tool_calls(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(calls.len(), 2);
        prop_assert_eq!(&calls[0].name, &a);
        prop_assert_eq!(&calls[0].arguments, &args);
        prop_assert_eq!(&calls[1].name, &b);
    }
}
