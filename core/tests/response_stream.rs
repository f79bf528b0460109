//! Recorded provider streams (`tests/fixtures/providers/*.json`, the cases marked `"stream":
//! true`) read by `ResponseStream` as they arrive — the whole text at once, in random pieces, one
//! code point at a time, and (for a list of events) one decoded event at a time — give the calls
//! `parse_response` gives on the whole recording, or its error (code and position); the events
//! are in order and each call's argument fragments add up to its arguments. A case with tools is
//! read with its tools, `validate` and `unknown` (as `parse_response_with` reads it), and again
//! with unknown tools kept, unknown tools dropped, and without validation.

mod common;

use std::path::PathBuf;

use beacon_core::{
    locate, parse_json, parse_response_with, Event, ParseError, Provider, ProviderCall, ResponseOptions,
    ResponseStream, Tools, Unit, UnknownTools, Value,
};
use common::from_serde;
use serde_json::Value as J;

fn cases() -> Vec<(String, J)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/providers");
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let doc: J = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        let file = path.file_name().expect("name").to_string_lossy().into_owned();
        for case in doc["cases"].as_array().into_iter().flatten() {
            if case.get("stream").and_then(J::as_bool) == Some(true) {
                out.push((format!("{file}:{}", case["id"].as_str().unwrap_or("?")), case.clone()));
            }
        }
    }
    out
}

/// The calls of a stream's events, checking their order and fragments.
fn assemble(
    events: &[Event],
    calls: &mut Vec<ProviderCall>,
    open: &mut Option<(usize, Option<String>, String, String)>,
) -> Result<(), String> {
    for event in events {
        match event {
            Event::Content { .. } | Event::Reasoning { .. } if open.is_none() => {}
            Event::CallStart { index, id, name, .. } if open.is_none() && *index == calls.len() => {
                *open = Some((*index, id.clone(), name.clone(), String::new()));
            }
            Event::Arguments { index, delta } if open.as_ref().is_some_and(|o| o.0 == *index) => {
                open.as_mut().expect("open").3.push_str(delta);
            }
            Event::CallEnd { index, arguments } if open.as_ref().is_some_and(|o| o.0 == *index) => {
                let (_, id, name, text) = open.take().expect("open");
                let parsed = parse_json(&text).map_err(|e| format!("fragments {text:?}: {e}"))?;
                if parsed != Value::Object(arguments.clone()) {
                    return Err(format!("fragments {text:?} are not {arguments:?}"));
                }
                calls.push(ProviderCall {
                    id,
                    name,
                    arguments: arguments.clone(),
                });
            }
            other => return Err(format!("event out of order: {other:?}")),
        }
    }
    Ok(())
}

/// What a reading gave: the calls or the stream's error; or why its events were out of order.
type Reading = Result<Result<Vec<ProviderCall>, ParseError>, String>;

/// The options a case is read with: its own (tools, `validate`, `unknown`), and, with tools, the
/// other ways of treating unknown tools and no validation.
fn option_sets(case: &J, tools: Option<&Tools>) -> Vec<(String, UnknownTools, bool)> {
    let validate = case
        .get("validate")
        .is_none_or(|v| v.as_bool().expect("validate is a boolean"));
    let unknown = match case.get("unknown").and_then(J::as_str) {
        None | Some("error") => UnknownTools::Error,
        Some("keep") => UnknownTools::Keep,
        Some("drop") => UnknownTools::Drop,
        Some(other) => panic!("unknown must be \"error\", \"keep\" or \"drop\", found {other:?}"),
    };
    let mut sets = vec![(String::new(), unknown, validate)];
    if tools.is_some() {
        sets.push((" [unknown keep]".into(), UnknownTools::Keep, validate));
        sets.push((" [unknown drop]".into(), UnknownTools::Drop, validate));
        sets.push((" [no validation]".into(), unknown, false));
    }
    sets
}

/// Reads `pieces` with a fresh stream.
fn read(pieces: &[&str], values: Option<&[Value]>, options: &ResponseOptions<'_>) -> Reading {
    let mut stream = ResponseStream::with_options(options);
    let mut calls = Vec::new();
    let mut open = None;
    let steps: Vec<Result<Vec<Event>, ParseError>> = match values {
        Some(values) => values.iter().map(|v| stream.feed_value(v)).collect(),
        None => pieces.iter().map(|p| stream.feed(p)).collect(),
    };
    for step in steps {
        match step {
            Ok(events) => assemble(&events, &mut calls, &mut open)?,
            Err(e) => return Ok(Err(e)),
        }
    }
    match stream.finish() {
        Ok(events) => assemble(&events, &mut calls, &mut open)?,
        Err(e) => return Ok(Err(e)),
    }
    Ok(Ok(calls))
}

#[test]
fn recorded_streams_read_as_they_arrive_give_the_whole_recordings_calls() {
    let cases = cases();
    assert!(cases.len() >= 14, "only {} recorded streams", cases.len());
    let mut providers = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for (label, case) in &cases {
        let (text, values) = match case.get("response_text").and_then(J::as_str) {
            Some(t) => (t.to_string(), None),
            None => {
                let items = case["response"].as_array().expect("a list of events");
                (
                    serde_json::to_string(&case["response"]).expect("serialise"),
                    Some(items.iter().map(from_serde).collect::<Vec<_>>()),
                )
            }
        };
        let tools = case
            .get("tools")
            .map(|t| Tools::from_value(&from_serde(t)).expect("the case's tools"));
        if let Some(p) = case["expected"]["provider"]
            .as_str()
            .or(case["error"]["provider"].as_str())
        {
            providers.insert(p.to_string());
        }
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let mut ways: Vec<Vec<&str>> = vec![
            vec![text.as_str()],
            cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect(),
        ];
        let mut seed = text.len() as u64 | 1;
        for _ in 0..10 {
            let mut pieces = Vec::new();
            let mut from = 0;
            while from < text.len() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let to = cuts
                    .iter()
                    .copied()
                    .find(|&c| c >= from + 1 + (seed % 40) as usize)
                    .unwrap_or(text.len());
                pieces.push(&text[from..to]);
                from = to;
            }
            ways.push(pieces);
        }
        for (variant, unknown, validate) in option_sets(case, tools.as_ref()) {
            let options = ResponseOptions {
                tools: tools.as_ref(),
                unknown,
                validate,
                ..ResponseOptions::default()
            };
            let whole = parse_response_with(&text, &options);
            let mut outcomes: Vec<(String, Reading)> = ways
                .iter()
                .map(|w| (format!("{} pieces{variant}", w.len()), read(w, None, &options)))
                .collect();
            if let Some(values) = &values {
                let reading = read(&[], Some(values), &options);
                outcomes.push((format!("decoded events{variant}"), reading));
            }
            for (how, got) in outcomes {
                let got = match got {
                    Ok(got) => got,
                    Err(why) => {
                        failures.push(format!("{label} ({how}): {why}"));
                        continue;
                    }
                };
                let same = match (&got, &whole) {
                    (Ok(a), Ok(b)) => a == b,
                    // Decoded events have no text: their errors are at 0.
                    (Err(a), Err(b)) if how.starts_with("decoded events") => {
                        (a.code, &a.message) == (b.code, &b.message)
                    }
                    (Err(a), Err(b)) => (a.code, a.offset, &a.message) == (b.code, b.offset, &b.message),
                    _ => false,
                };
                if !same {
                    let show = |r: &Result<Vec<ProviderCall>, ParseError>| match r {
                        Ok(c) => format!("{c:?}"),
                        Err(e) => format!(
                            "{} at {} ({})",
                            e.code.as_str(),
                            locate(&text, e.offset, Unit::CodePoints).offset,
                            e.message
                        ),
                    };
                    failures.push(format!(
                        "{label} ({how}):\n  whole:  {}\n  stream: {}",
                        show(&whole),
                        show(&got)
                    ));
                }
            }
        }
    }
    let wanted = [
        "anthropic",
        "bedrock",
        "cohere_v2",
        "gemini",
        "ollama",
        "openai_chat",
        "openai_responses",
    ];
    for p in wanted {
        assert!(providers.contains(p), "no recorded stream of {p}");
        assert!(Provider::parse(p).is_some());
    }
    for f in &failures {
        println!("{f}\n");
    }
    assert!(failures.is_empty(), "{} stream readings differ", failures.len());
}

/// With tools: a call that fails stops the events and `finish` raises its error, unless a later
/// event raises first (as in `parse_response`); a dropped call shows no event at all.
#[test]
fn tools_errors_come_in_one_shot_order_and_dropped_calls_show_nothing() {
    let tools = Tools::from_value(&parse_json(r#"["get_weather"]"#).expect("json")).expect("tools");
    let block = |i: usize, name: &str| {
        format!(
            "data: {{\"type\":\"content_block_start\",\"index\":{i},\"content_block\":{{\"type\":\"tool_use\",\"id\":\"t{i}\",\"name\":\"{name}\",\"input\":{{}}}}}}\n\n\
             data: {{\"type\":\"content_block_delta\",\"index\":{i},\"delta\":{{\"type\":\"input_json_delta\",\"partial_json\":\"{{}}\"}}}}\n\n\
             data: {{\"type\":\"content_block_stop\",\"index\":{i}}}\n\n"
        )
    };
    let text = format!("{}{}", block(0, "nope"), block(1, "get_weather"));
    let error = "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let all = |options: &ResponseOptions<'_>, text: &str| {
        let mut stream = ResponseStream::with_options(options);
        let mut events = stream.feed(text)?;
        events.extend(stream.finish()?);
        Ok::<_, ParseError>(events)
    };
    let strict = ResponseOptions::with_tools(&tools);
    let mut stream = ResponseStream::with_options(&strict);
    assert_eq!(stream.feed(&text).expect("no error yet"), vec![]);
    let e = stream.finish().expect_err("unknown tool");
    assert_eq!(e, parse_response_with(&text, &strict).expect_err("unknown tool"));
    assert_eq!(e.code.as_str(), "tool_call.unknown_tool");
    let later = format!("{text}{error}");
    let e = all(&strict, &later).expect_err("error event");
    assert_eq!(e.code.as_str(), "response.error");
    assert_eq!(e, parse_response_with(&later, &strict).expect_err("error event"));
    let drop = ResponseOptions {
        unknown: UnknownTools::Drop,
        ..strict
    };
    let events = all(&drop, &text).expect("dropped");
    let names: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::CallStart { index, name, .. } => Some((*index, name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(names, [(0, "get_weather")]);
    assert_eq!(events.len(), 3, "{events:?}");
}
