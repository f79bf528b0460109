//! parse_message beyond the shared fixtures: generated ids.

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
