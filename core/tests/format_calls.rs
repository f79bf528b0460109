//! `format_calls` → `parse_response` round trip over every provider, with random calls: the
//! message written for an API reads back as exactly the calls given (for Cohere v1, whose wire
//! has no call ids, without their ids), whether the provider is given or detected, from the value
//! and from its JSON text. A call without an id where the API needs one is `result.missing_field`.

mod common;

use beacon_core::{
    format_calls, parse_response, parse_response_value, ErrorCode, Number, Provider, ProviderCall, Value,
};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 _.-]{0,12}",
        // quotes, backslashes, control characters, non-ASCII and astral characters, markup
        "[a-z\"'\\\\{}\\[\\]<>/:,\\n\\t\\u{0}\\u{1f}é漢😀]{0,12}",
        prop::sample::select(vec!["<tool_call>", "{\"name\": \"f\"}", "[TOOL_CALLS]", "f(x=1)"])
            .prop_map(str::to_string),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| Value::Number(Number::Int(i))),
        "-?[1-9][0-9]{19,40}".prop_map(|d| Value::Number(Number::BigInt(d))),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| Value::Number(Number::Float(f))),
        text().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    common::nested(leaf(), text, 3, 32, 4)
}

fn call(with_id: bool) -> impl Strategy<Value = ProviderCall> {
    let id = if with_id {
        "[a-zA-Z0-9_:.-]{1,30}".prop_map(Some).boxed()
    } else {
        prop::option::of("[a-zA-Z0-9_:.-]{1,30}").boxed()
    };
    (
        id,
        "[a-zA-Z_][a-zA-Z0-9_.-]{0,20}",
        prop::collection::vec((text(), value()), 0..5),
    )
        .prop_map(|(id, name, arguments)| ProviderCall {
            id,
            name,
            arguments: common::unique(arguments),
            repairs: Vec::new(),
        })
}

fn provider() -> impl Strategy<Value = Provider> {
    prop::sample::select(Provider::ALL.to_vec())
}

/// Whether the API needs a call id.
fn needs_id(p: Provider) -> bool {
    !matches!(p, Provider::Gemini | Provider::Ollama | Provider::CohereV1)
}

/// What reading back must give: the calls, without ids for Cohere v1.
fn read_back(calls: &[ProviderCall], p: Provider) -> Vec<ProviderCall> {
    calls
        .iter()
        .map(|c| ProviderCall {
            id: if p == Provider::CohereV1 { None } else { c.id.clone() },
            ..c.clone()
        })
        .collect()
}

proptest! {
    #[test]
    fn calls_read_back_equal(
        p in provider(),
        calls in prop::collection::vec(call(true), 0..4),
        content in prop::option::of(text()),
    ) {
        let message = format_calls(&calls, p, content.as_deref()).expect("calls with ids and names are written");
        let want = read_back(&calls, p);
        for given in [Some(p), None] {
            prop_assert_eq!(&parse_response_value(&message, given, false).expect("reads back"), &want, "value, provider {:?}", given);
            prop_assert_eq!(&parse_response(&message.to_json(), given, false).expect("reads back"), &want, "text, provider {:?}", given);
        }
    }

    #[test]
    fn a_missing_id_is_an_error_where_the_api_needs_one(
        p in provider(),
        calls in prop::collection::vec(call(false), 1..4),
    ) {
        let missing = calls.iter().position(|c| c.id.is_none());
        match format_calls(&calls, p, None) {
            Ok(message) => {
                prop_assert!(missing.is_none() || !needs_id(p), "{p}: a call without an id was written");
                prop_assert_eq!(parse_response_value(&message, Some(p), false).expect("reads back"), read_back(&calls, p));
            }
            Err(e) => {
                prop_assert!(needs_id(p));
                prop_assert_eq!(e.code, ErrorCode::ResultMissingField);
                prop_assert_eq!(e.offset, 0);
                let want = format!("call {} ", missing.expect("a call without id"));
                prop_assert!(e.message.starts_with(&want), "{}", e.message);
            }
        }
    }
}

#[test]
fn parse_message_calls_convert() {
    let m = beacon_core::parse_message(
        "Checking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",
        beacon_core::MessageOptions {
            ids: beacon_core::Ids::Generate,
            ..Default::default()
        },
    )
    .expect("parses");
    let calls: Vec<ProviderCall> = m.tool_calls.iter().map(ProviderCall::from).collect();
    let message = format_calls(&calls, Provider::OpenaiChat, Some(&m.content)).expect("ids generated");
    assert_eq!(parse_response_value(&message, None, false), Ok(calls));
    assert_eq!(message.get("content"), Some(&Value::String("Checking.".into())));
}
