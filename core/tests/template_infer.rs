//! Inferring a tool-call format from a real chat template (`../shared/chat-templates`, or
//! `$BEACON_CHAT_TEMPLATES`) by differential rendering. Every template is tried and its outcome
//! printed (a spec, or the coded error that says why not); the templates of the first form the
//! inference covers must give their markers and keys.

use std::path::PathBuf;

use beacon_core::template::{infer, ArgumentsEncoding, FormatSpec};
use beacon_core::ChatTemplate;

fn templates_dir() -> PathBuf {
    std::env::var_os("BEACON_CHAT_TEMPLATES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/chat-templates"),
        PathBuf::from,
    )
}

fn template(name: &str) -> ChatTemplate {
    let path = templates_dir().join(format!("{name}.jinja"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: set BEACON_CHAT_TEMPLATES or put shared/chat-templates beside the repository",
            path.display()
        )
    });
    let mut t = ChatTemplate::new(source);
    t.bos_token = "<s>".into();
    t.eos_token = "</s>".into();
    t
}

fn spec(name: &str) -> FormatSpec {
    infer(&template(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn hermes_and_qwen_give_tool_call_tags_around_name_and_arguments() {
    for name in [
        "Qwen-Qwen2.5-7B-Instruct",
        "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
    ] {
        let spec = spec(name);
        assert_eq!(
            (spec.call_start.as_str(), spec.call_end.as_str()),
            ("<tool_call>", "</tool_call>"),
            "{name}: {spec:?}"
        );
        assert_eq!(
            (spec.section_start.as_str(), spec.section_end.as_str()),
            ("", ""),
            "{name}"
        );
        assert_eq!(spec.separator, "", "{name}");
        assert_eq!(
            (spec.name_key.as_str(), spec.arguments_key.as_str()),
            ("name", "arguments"),
            "{name}"
        );
        assert_eq!(spec.arguments, ArgumentsEncoding::Object, "{name}");
    }
}

#[test]
fn lists_bare_objects_and_thinking_turns() {
    // Mistral Nemo: one section, calls in a JSON list.
    let nemo = spec("mistralai-Mistral-Nemo-Instruct-2407");
    assert_eq!(
        (
            nemo.section_start.as_str(),
            nemo.section_end.as_str(),
            nemo.separator.as_str()
        ),
        ("[TOOL_CALLS][", "]", ","),
        "{nemo:?}"
    );
    assert_eq!((nemo.call_start.as_str(), nemo.call_end.as_str()), ("", ""));
    // Llama 3.1: a bare object with `parameters`.
    let llama = spec("meta-llama-Llama-3.1-8B-Instruct");
    assert_eq!(
        (llama.call_start.as_str(), llama.section_start.as_str()),
        ("", ""),
        "{llama:?}"
    );
    assert_eq!(
        (llama.name_key.as_str(), llama.arguments_key.as_str()),
        ("name", "parameters")
    );
    // QwQ's prompt opens `<think>`, Qwen3 writes an empty think block before the call: neither
    // is part of the call's markers.
    for name in ["Qwen-QwQ-32B", "Qwen-Qwen3-0.6B"] {
        let spec = spec(name);
        assert_eq!(
            (
                spec.section_start.as_str(),
                spec.call_start.as_str(),
                spec.call_end.as_str()
            ),
            ("", "<tool_call>", "</tool_call>"),
            "{name}: {spec:?}"
        );
    }
}

/// Cohere's turns of content and of calls begin alike (`<|START_RESPONSE|>`, `<|START_ACTION|>`):
/// with the tokenizer's added tokens, the diff does not split them.
#[test]
fn added_tokens_keep_a_diff_from_splitting_a_token() {
    let mut t = template("Cohere2MoE");
    let without = infer(&t).unwrap();
    assert_ne!(
        without.section_start, "<|START_ACTION|>[",
        "the char-level diff splits the token: {without:?}"
    );
    t.special_tokens = [
        "<|START_ACTION|>",
        "<|END_ACTION|>",
        "<|START_RESPONSE|>",
        "<|END_RESPONSE|>",
        "<|END_OF_TURN_TOKEN|>",
    ]
    .map(String::from)
    .to_vec();
    let spec = infer(&t).unwrap();
    assert_eq!(
        (
            spec.section_start.as_str(),
            spec.section_end.as_str(),
            spec.separator.as_str()
        ),
        ("<|START_ACTION|>[", "]<|END_ACTION|>", ","),
        "{spec:?}"
    );
    assert_eq!(
        (spec.name_key.as_str(), spec.arguments_key.as_str()),
        ("tool_name", "parameters")
    );
}

#[test]
fn every_template_gives_a_spec_or_says_why_not() {
    let mut names: Vec<String> = std::fs::read_dir(templates_dir())
        .expect("the chat templates")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".jinja").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 49, "only {} templates", names.len());
    let mut specs = 0;
    for name in &names {
        match infer(&template(name)) {
            Ok(spec) => {
                specs += 1;
                println!("{name}: {}", spec.describe().to_json());
            }
            Err(e) => {
                let mut message = e.message.clone();
                if message.len() > 160 {
                    let cut = (0..=160).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
                    message.truncate(cut);
                    message.push('…');
                }
                println!("{name}: {} {message}", e.code);
            }
        }
    }
    println!("{specs} of {} templates give a spec", names.len());
}
