//! Any text: the answer a host gets with its values built while the parse reads (`run_into`, as
//! Python and WebAssembly get theirs) is exactly the answer built from the core's calls
//! (`run_settled`), errors and their positions included, and `run_text_arguments` writes each
//! call's arguments as JSON text that reads back as the same arguments. The first byte picks
//! the operation: `parse_tool_call`, `parse_tool_calls`, `parse_message`, or `parse_response`
//! (the byte's upper bits pick the provider; the last choice detects it).
#![no_main]
use beacon_core::host::{
    emit, run_into, run_settled, run_text_arguments, Host, Input, JsonText, Op, Plain, Query, ToolOptions,
};
use beacon_core::{parse_json, ErrorCode, FormatSet, Ids, Provider, Value};
use libfuzzer_sys::fuzz_target;

type Answer = Result<String, (&'static str, usize)>;

fn op(selector: u8) -> Op {
    let tools = ToolOptions::default();
    match selector % 4 {
        0 => Op::ToolCall {
            formats: FormatSet::ALL,
            tools,
        },
        1 => Op::ToolCalls {
            formats: FormatSet::ALL,
            include_format: true,
            tools,
        },
        2 => Op::Message {
            formats: FormatSet::ALL,
            ids: Ids::Keep,
            tools,
        },
        _ => Op::Response {
            provider: Provider::ALL
                .get(usize::from(selector >> 2) % (Provider::ALL.len() + 1))
                .copied(),
            text_fallback: true,
            query: Query::Calls,
            tools,
        },
    }
}

fn settled(input: &Input<'_>, op: Op) -> Answer {
    let output = run_settled(input, op, Host::Python).map_err(|e| (e.code.as_str(), e.position))?;
    let mut sink = JsonText::new(Plain, 0);
    let Ok(piece) = emit(sink.reading(0), output);
    Ok(sink.text(piece).to_owned())
}

fn built(input: &Input<'_>, op: Op) -> Answer {
    let mut sink = JsonText::new(Plain, 0);
    let Ok(piece) = run_into(sink.reading(0), input, op, Host::Python).map_err(|e| (e.code.as_str(), e.position))?;
    Ok(sink.text(piece).to_owned())
}

fn text_arguments(input: &Input<'_>, op: Op) -> Answer {
    let mut sink = JsonText::new(Plain, 0);
    let Ok(piece) =
        run_text_arguments(sink.reading(0), input, op, Host::Python).map_err(|e| (e.code.as_str(), e.position))?;
    Ok(sink.text(piece).to_owned())
}

/// The answer with every `arguments` string read as the JSON it holds; `None` when one nests
/// deeper than `parse_json` reads (call syntax does not count its arguments object as a level,
/// so `f(x=[[…]])` may hold 128 lists where the JSON text of its arguments holds 129 levels).
fn arguments_read(value: Value) -> Option<Value> {
    Some(match value {
        Value::Array(items) => Value::Array(items.into_iter().map(arguments_read).collect::<Option<_>>()?),
        Value::Object(entries) => Value::Object(
            entries
                .into_iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("arguments", Value::String(text)) => match parse_json(&text) {
                        Ok(read) => Some((key, read)),
                        Err(e) if e.code == ErrorCode::JsonTooDeep => None,
                        Err(e) => panic!("arguments text {text:?}: {e:?}"),
                    },
                    (_, value) => Some((key, arguments_read(value)?)),
                })
                .collect::<Option<_>>()?,
        ),
        other => other,
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let input = Input::Text(text);
    let settled = settled(&input, op(selector));
    assert_eq!(built(&input, op(selector)), settled, "run_into and run_settled differ");
    match (text_arguments(&input, op(selector)), &settled) {
        (Ok(written), Ok(settled)) => {
            // An answer that nests deeper than `parse_json` reads is not compared.
            let read = |text: &str| match parse_json(text) {
                Ok(value) => Some(value),
                Err(e) if e.code == ErrorCode::JsonTooDeep => None,
                Err(e) => panic!("the answer is not JSON: {e:?}"),
            };
            if let (Some(written), Some(settled)) = (read(&written).and_then(arguments_read), read(settled)) {
                assert_eq!(written, settled, "text arguments differ");
            }
        }
        (written, settled) => assert_eq!(
            written.err(),
            settled.clone().err(),
            "run_text_arguments fails otherwise"
        ),
    }
});
