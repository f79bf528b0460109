//! One-shot equals stream for provider responses: any text read by `parse_response_with` and by
//! `ResponseStream` fed in pieces gives the same calls or the same error (code and offset);
//! the stream's events come in order, each call's argument fragments add up to its arguments, and
//! neither reading is ever `internal`.
#![no_main]
use beacon_core::{parse_json, parse_response_with, ErrorCode, Event, Provider, ProviderCall, ResponseOptions, ResponseStream, Value};
use libfuzzer_sys::fuzz_target;

#[path = "streams.rs"]
mod streams;

fuzz_target!(|data: &[u8]| {
    let Some((&[selector, step], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let provider = Provider::ALL
        .get(selector as usize % (Provider::ALL.len() + 1))
        .copied();
    let options = ResponseOptions {
        provider,
        ..ResponseOptions::default()
    };
    let whole = parse_response_with(text, &options);
    let streamed = stream(text, usize::from(step % 48) + 1, &options);
    streams::agree(text, &whole, &streamed);
});

/// The calls of `text` fed to a stream in pieces of about `step` bytes (at character boundaries).
fn stream(text: &str, step: usize, options: &ResponseOptions<'_>) -> Result<Vec<ProviderCall>, beacon_core::ParseError> {
    let mut stream = ResponseStream::with_options(options);
    let mut calls = Vec::new();
    let mut open: Option<(usize, Option<String>, String, String)> = None;
    for piece in streams::pieces(text, step) {
        assemble(stream.feed(piece)?, &mut calls, &mut open);
    }
    assemble(stream.finish()?, &mut calls, &mut open);
    assert!(open.is_none(), "a call started and never ended");
    Ok(calls)
}

fn assemble(events: Vec<Event>, calls: &mut Vec<ProviderCall>, open: &mut Option<(usize, Option<String>, String, String)>) {
    for event in events {
        match event {
            // Text the API interleaves with a call's fragments is reported as it comes.
            Event::Content { .. } | Event::Reasoning { .. } => {}
            Event::CallStart { index, id, name, .. } if open.is_none() && index == calls.len() => {
                *open = Some((index, id, name, String::new()));
            }
            Event::Arguments { index, delta } if open.as_ref().is_some_and(|o| o.0 == index) => {
                open.as_mut().expect("open").3.push_str(&delta);
            }
            Event::CallEnd { index, arguments, .. } if open.as_ref().is_some_and(|o| o.0 == index) => {
                let (_, id, name, text) = open.take().expect("open");
                match parse_json(&text) {
                    Ok(parsed) => assert_eq!(parsed, Value::Object(arguments.clone()), "fragments {text:?}"),
                    Err(e) if e.code == ErrorCode::JsonTooDeep => {}
                    Err(e) => panic!("the fragments {text:?} are not JSON: {e}"),
                }
                calls.push(ProviderCall {
                    id,
                    name,
                    arguments,
                    repairs: Vec::new(),
                });
            }
            other => panic!("event out of order: {other:?}"),
        }
    }
}
