//! parse_message beyond the shared fixtures: generated ids.

use std::collections::HashSet;

use beacon_core::{parse_message, Ids, MessageOptions};

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

#[test]
fn generated_ids_look_like_openai_ids_and_are_stable() {
    let first = ids(TWO, Ids::Generate);
    assert_eq!(first, ids(TWO, Ids::Generate), "the same text gives the same ids");
    for id in first.iter().flatten() {
        assert!(id.starts_with("call_") && id.len() == 29, "{id}");
        assert!(id[5..].bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    }
    assert_ne!(first[0], first[1], "the index is part of the id");
    let other = ids(&TWO.replace("\"a\"", "\"c\""), Ids::Generate);
    assert_ne!(first[1], other[1], "another text gives other ids");
}

#[test]
fn native_ids_are_kept_when_generating() {
    let text = "[TOOL_CALLS]f[CALL_ID]a1B2c3D4e[ARGS]{}";
    let kept = ids(text, Ids::Keep);
    if kept[0].is_some() {
        assert_eq!(ids(text, Ids::Generate), kept);
    }
}

/// The ids are pinned: computed by an independent implementation of the documented derivation
/// (FNV-1a 128 over the text before the call's region, a zero byte, the name, a zero byte and the
/// index as u64 little-endian; 12 base-62 digits from it and 12 from it carried on over the index
/// and the region's offset, both u64 little-endian), so every target must give these.
#[test]
fn generated_ids_are_the_same_on_every_target() {
    assert_eq!(
        ids(TWO, Ids::Generate),
        vec![
            Some("call_iZOluDJkSJRd4Hrj2ScUE4ZN".to_string()),
            Some("call_lUblUv9a98OL15pzYRRyC5Ym".to_string())
        ]
    );
    let text = "Checking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
    assert_eq!(
        ids(text, Ids::Generate),
        vec![Some("call_q1J4iuJsMUaX9lRwxI4eJaG6".to_string())]
    );
}

/// Messages that differ before the call, even in one character, never share an id here, and
/// every one of the 24 digits varies. (Messages that differ only from the call's marker on give
/// it the same id: a stream gives the id when the call starts, before its arguments.)
#[test]
fn generated_ids_differ_across_messages() {
    let mut seen = HashSet::new();
    let mut digits: Vec<HashSet<u8>> = vec![HashSet::new(); 24];
    for i in 0..2000 {
        let call = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>";
        let text = format!("Step {i}.{call}");
        for id in [
            ids(&text, Ids::Generate),
            ids(&format!("Step {i}:{call}"), Ids::Generate),
        ]
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
