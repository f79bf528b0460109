//! Error messages that must say what is wrong (the fixtures pin codes and positions, not text).

use beacon_core::{parse_tool_calls, ErrorCode};

/// A `<tool_call>` object with a key no call has: the message names the key, the position is
/// its opening quote.
#[test]
fn an_extra_key_in_a_tagged_call_is_named() {
    for (text, key) in [
        (
            r#"<tool_call>{"name": "f", "arguments": {}, "reasoning": "x"}</tool_call>"#,
            "reasoning",
        ),
        (
            r#"<tool_call>{"name": "f", "thoughts": 1, "arguments": {}}</tool_call>"#,
            "thoughts",
        ),
        (
            r#"<tool_call>[{"name": "f", "arguments": {}}, {"name": "g", "why": 2}]</tool_call>"#,
            "why",
        ),
    ] {
        let e = parse_tool_calls(text).unwrap_err();
        assert_eq!(e.code, ErrorCode::Unrecognized, "{text}");
        assert!(
            e.message.contains(&format!("unexpected key \"{key}\"")),
            "{text}: {}",
            e.message
        );
        assert_eq!(e.offset, text.find(&format!("\"{key}\"")).unwrap(), "{text}");
    }
}
