//! One-shot equals stream for model text: any text read by `parse_message` and by
//! `ToolCallStream` fed in pieces gives the same content, reasoning and calls, or the same error
//! (code and offset); the stream's events come in order, each call's argument fragments add up
//! to its arguments, and neither reading is ever `internal`.
#![no_main]
use beacon_core::{parse_json, parse_message, ErrorCode, Event, Format, MessageOptions, Start, ToolCallStream, Value};
use libfuzzer_sys::fuzz_target;

#[path = "streams.rs"]
mod streams;

/// Content, reasoning, and the calls (id, name, format, arguments as JSON).
type Message = (String, String, Vec<(Option<String>, String, Format, String)>);

fuzz_target!(|data: &[u8]| {
    let Some((&[selector, step], rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let start = [Start::Detect, Start::Content, Start::Reasoning][usize::from(selector % 3)];
    let options = MessageOptions {
        start,
        ..MessageOptions::default()
    };
    let whole = parse_message(text, options).map(|m| {
        (
            m.content,
            m.reasoning.unwrap_or_default(),
            m.tool_calls
                .into_iter()
                .map(|c| (c.id, c.name, c.format, Value::Object(c.arguments).to_json()))
                .collect::<Vec<_>>(),
        )
    });
    let streamed = stream(text, usize::from(step % 32) + 1, options);
    streams::agree(text, &whole, &streamed);
});

fn stream(text: &str, step: usize, options: MessageOptions<'_>) -> Result<Message, beacon_core::ParseError> {
    let mut stream = ToolCallStream::new(options);
    let mut out: Message = (String::new(), String::new(), Vec::new());
    let mut open: Option<String> = None;
    for piece in streams::pieces(text, step) {
        assemble(stream.feed(piece)?, &mut out, &mut open);
    }
    assemble(stream.finish()?, &mut out, &mut open);
    assert!(open.is_none(), "a call started and never ended");
    Ok(out)
}

fn assemble(events: Vec<Event>, out: &mut Message, open: &mut Option<String>) {
    for event in events {
        match event {
            Event::Content { text } if open.is_none() => out.0.push_str(&text),
            Event::Reasoning { text } if open.is_none() => out.1.push_str(&text),
            Event::CallStart { index, id, name, format } if open.is_none() && index == out.2.len() => {
                out.2.push((id, name, format, String::new()));
                *open = Some(String::new());
            }
            Event::Arguments { index, delta } if open.is_some() && index + 1 == out.2.len() => {
                open.as_mut().expect("open").push_str(&delta);
            }
            Event::CallEnd { index, arguments, .. } if open.is_some() && index + 1 == out.2.len() => {
                let text = open.take().expect("open");
                let end = Value::Object(arguments).to_json();
                match parse_json(&text) {
                    Ok(parsed) => assert_eq!(parsed.to_json(), end, "fragments {text:?}"),
                    // Arguments nested as deep as values may be are one level deeper as an
                    // object's JSON than `parse_json` reads.
                    Err(e) if e.code == ErrorCode::JsonTooDeep => {}
                    Err(e) => panic!("the fragments {text:?} are not JSON: {e}"),
                }
                out.2[index].3 = end;
            }
            other => panic!("event out of order: {other:?}"),
        }
    }
}
