//! parse_message beyond the shared fixtures: generated ids, random and seeded.

mod common;

use std::collections::HashSet;

use beacon_core::{parse_message, Event, Ids, MessageOptions, ToolCallStream};

const TWO: &str = "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>";

fn ids(text: &str, mode: Ids) -> Vec<Option<String>> {
    parse_message(
        text,
        MessageOptions {
            ids: mode,
            ..Default::default()
        },
    )
    .unwrap()
    .tool_calls
    .into_iter()
    .map(|c| c.id)
    .collect()
}

#[test]
fn keep_invents_nothing() {
    assert_eq!(ids(TWO, Ids::Keep), vec![None, None]);
}

const SEED: Ids = Ids::Seeded(beacon_core::IdSeed::new("request-42"));

#[test]
fn generated_ids_look_like_openai_ids_and_differ_within_a_message() {
    for mode in [Ids::Generate, SEED] {
        let first = ids(TWO, mode);
        for id in first.iter().flatten() {
            assert!(id.starts_with("call_") && id.len() == 29, "{id}");
            assert!(id[5..].bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
        }
        assert_ne!(first[0], first[1], "the index is part of the id");
    }
}

/// #26 item 13: three outputs that open with a call to the same tool (Paris and Tokyo in Hermes,
/// Berlin in Mistral) all got one id when ids were a hash of the text before the call. By
/// default they are random: every output, the same text twice included, gets its own.
#[test]
fn generated_ids_are_unique_across_outputs_by_default() {
    let outputs = [
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Tokyo\"}}\n</tool_call>",
        "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Berlin\"}}]",
    ];
    let mut seen = HashSet::new();
    for _ in 0..100 {
        for text in outputs {
            let id = ids(text, Ids::Generate).remove(0).expect("an id");
            assert!(seen.insert(id.clone()), "{id} repeats");
        }
    }
    // The stream draws its own seed too.
    let stream_id = |text: &str| {
        let mut stream = ToolCallStream::new(MessageOptions {
            ids: Ids::Generate,
            ..Default::default()
        });
        let mut events = stream.feed(text).unwrap();
        events.extend(stream.finish().unwrap());
        events
            .into_iter()
            .find_map(|e| match e {
                Event::CallStart { id, .. } => id,
                _ => None,
            })
            .expect("a call")
    };
    assert_ne!(stream_id(outputs[0]), stream_id(outputs[0]));
}

/// Seeded ids: the same seed and text give the same ids, in `parse_message` and in the stream (at
/// `call_start`); another seed gives others.
#[test]
fn seeded_ids_are_stable() {
    assert_eq!(ids(TWO, SEED), ids(TWO, SEED));
    let other = Ids::Seeded(beacon_core::IdSeed::new("request-43"));
    assert_ne!(ids(TWO, SEED)[0], ids(TWO, other)[0]);
    let mut stream = ToolCallStream::new(MessageOptions {
        ids: SEED,
        ..Default::default()
    });
    let mut streamed = Vec::new();
    for piece in TWO.as_bytes().chunks(7) {
        for e in stream.feed(std::str::from_utf8(piece).unwrap()).unwrap() {
            if let Event::CallStart { id, .. } = e {
                streamed.push(id);
            }
        }
    }
    for e in stream.finish().unwrap() {
        if let Event::CallStart { id, .. } = e {
            streamed.push(id);
        }
    }
    assert_eq!(streamed, ids(TWO, SEED));
}

#[test]
fn native_ids_are_kept_when_generating() {
    let text = "[TOOL_CALLS]f[CALL_ID]a1B2c3D4e[ARGS]{}";
    let kept = ids(text, Ids::Keep);
    if kept[0].is_some() {
        assert_eq!(ids(text, Ids::Generate), kept);
    }
}

/// Seeded ids are pinned: computed by an independent implementation of the documented
/// derivation (FNV-1a 128 over the 16 bytes, little-endian, of the seed, itself the FNV-1a 128 of
/// the seed string; then the text before the call's region, a zero byte, the name, a zero byte
/// and the index as u64 little-endian; 12 base-62 digits from it and 12 from it carried on over
/// the index and the region's offset, both u64 little-endian), so every target must give these
/// (tests/python/test_message.py and tests/js/api.test.mjs pin the same).
#[test]
fn seeded_ids_are_the_same_on_every_target() {
    assert_eq!(
        ids(TWO, SEED),
        vec![
            Some("call_DRWNE4fNQq0wjbTbFjsPK57j".to_string()),
            Some("call_q0xFUBWyv7BeWy9kSjPAcFwJ".to_string())
        ]
    );
    let text = "Checking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
    assert_eq!(ids(text, SEED), vec![Some("call_FPw2uiMCpvYCiUhKSTfp0kbY".to_string())]);
}

/// With one seed, messages that differ before the call, even in one character, never share an
/// id here, and every one of the 24 digits varies. (With one seed, messages that differ only
/// from the call's marker on give it the same id: a stream gives the id when the call starts,
/// before its arguments.)
#[test]
fn generated_ids_differ_across_messages() {
    let mut seen = HashSet::new();
    let mut digits: Vec<HashSet<u8>> = vec![HashSet::new(); 24];
    for i in 0..2000 {
        let call = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
        let text = format!("Step {i}.{call}");
        for id in [ids(&text, SEED), ids(&format!("Step {i}:{call}"), SEED)]
            .into_iter()
            .flatten()
            .flatten()
        {
            for (d, b) in id.bytes().skip(5).enumerate() {
                digits[d].insert(b);
            }
            assert!(seen.insert(id.clone()), "{id} repeats");
        }
    }
    for (d, seen_digits) in digits.iter().enumerate() {
        assert!(
            seen_digits.len() > 40,
            "digit {d} takes only {} values",
            seen_digits.len()
        );
    }
}

/// Native ids are kept, and the calls around them get generated ones by their index.
#[test]
fn a_native_id_is_kept_beside_generated_ones() {
    let text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>";
    let kept = ids(text, Ids::Keep);
    assert_eq!(kept, vec![Some("functions.a:0".to_string())]);
    assert_eq!(ids(text, Ids::Generate), kept);
}

/// #26 item 12: no text is both a call and content. For every fixture input that parses, a
/// call's own text (when it is not blank and occurs once in the input) is not in the content.
#[test]
fn a_calls_text_is_never_content() {
    let mut checked = 0;
    for case in common::fixture_cases() {
        let Some(input) = case["input"].as_str() else {
            continue;
        };
        let Ok(message) = parse_message(input, MessageOptions::default()) else {
            continue;
        };
        for call in &message.tool_calls {
            let text = &input[call.span.clone()];
            if text.trim().is_empty() || input.matches(text).count() != 1 {
                continue;
            }
            assert!(
                !message.content.contains(text),
                "{}: the call {text:?} is also content {:?}",
                case["id"],
                message.content
            );
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} calls checked");
}
