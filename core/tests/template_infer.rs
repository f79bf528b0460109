//! Inferring a tool-call format from a real chat template (`../shared/chat-templates`, or
//! `$BEACON_CHAT_TEMPLATES`) by differential rendering. Every template is tried and its outcome
//! printed (a spec, or the coded error that says why not); the templates of the first form the
//! inference covers must give their markers and keys.

use std::path::PathBuf;

use beacon_core::template::{infer, ArgumentsEncoding, CallKind, FormatSpec, IdPosition, ValueStyle};
use beacon_core::ChatTemplate;
use beacon_core::ErrorCode;

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
    infer(&template(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .trimmed()
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
/// the diff does not split them, with the tokenizer's added tokens or, without them, because
/// the cut falls inside text shaped like a token.
#[test]
fn added_tokens_keep_a_diff_from_splitting_a_token() {
    let mut t = template("Cohere2MoE");
    let without = infer(&t).unwrap().trimmed();
    assert_eq!(
        (without.section_start.as_str(), without.section_end.as_str()),
        ("<|START_ACTION|>[", "]<|END_ACTION|>"),
        "{without:?}"
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
    let spec = infer(&t).unwrap().trimmed();
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
    let mut kinds = std::collections::BTreeMap::new();
    for name in &names {
        match infer(&template(name)) {
            Ok(spec) => {
                specs += 1;
                *kinds.entry(spec.kind.as_str()).or_insert(0) += 1;
                assert_eq!(
                    FormatSpec::from_value(&spec.describe()).as_ref().ok(),
                    Some(&spec),
                    "{name}: describe() reads back"
                );
                println!("{name}: {} {}", spec.kind.as_str(), spec.describe().to_json());
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
    println!("{specs} of {} templates give a spec: {kinds:?}", names.len());
    assert!(specs >= 45, "{specs} templates give a spec");
}

fn assert_markers(name: &str, spec: &FormatSpec, section: (&str, &str), call: (&str, &str), separator: &str) {
    assert_eq!(
        (spec.section_start.as_str(), spec.section_end.as_str()),
        section,
        "{name}: {spec:?}"
    );
    assert_eq!(
        (spec.call_start.as_str(), spec.call_end.as_str()),
        call,
        "{name}: {spec:?}"
    );
    assert_eq!(spec.separator, separator, "{name}: {spec:?}");
}

#[test]
fn a_name_tag_then_a_json_object() {
    for (name, section, call, suffix) in [
        (
            "meetkai-functionary-medium-v3.1",
            ("", "<|eom_id|>"),
            ("<function=", "</function>"),
            ">",
        ),
        (
            "mistralai-Ministral-3-14B-Reasoning-2512",
            ("", ""),
            ("[TOOL_CALLS]", ""),
            "[ARGS]",
        ),
        (
            "unsloth-mistral-Devstral-Small-2507",
            ("", ""),
            ("[TOOL_CALLS]", ""),
            "[ARGS]",
        ),
        (
            "deepseek-ai-DeepSeek-V3.1",
            ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
            ("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
            "<｜tool▁sep｜>",
        ),
        (
            "llama-cpp-deepseek-r1",
            ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
            ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>", "```<｜tool▁call▁end｜>"),
            "```json",
        ),
        (
            "openai-gpt-oss-120b",
            ("", ""),
            ("to=functions.", "<|call|>"),
            "<|channel|>commentary json<|message|>",
        ),
    ] {
        let spec = spec(name);
        assert_eq!(spec.kind, CallKind::TagJson, "{name}: {spec:?}");
        assert_markers(name, &spec, section, call, "");
        assert_eq!(spec.name_suffix, suffix, "{name}");
    }
    // Functionary v3.2: calls follow each other after `>>>`, the prompt's own opening.
    let v32 = spec("meetkai-functionary-medium-v3.2");
    assert_eq!(v32.kind, CallKind::TagJson);
    assert_markers("v3.2", &v32, ("", ""), ("", ""), ">>>");
}

#[test]
fn one_tag_per_argument() {
    for name in [
        "Qwen3-Coder",
        "Qwen3.5-4B",
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
        "stepfun-ai-Step-3.5-Flash",
        "ByteDance-Seed-OSS",
    ] {
        let spec = spec(name);
        assert_eq!(spec.kind, CallKind::TagPerArgument, "{name}: {spec:?}");
        let function = if name == "ByteDance-Seed-OSS" {
            ("<seed:tool_call>\n<function=", "</function>\n</seed:tool_call>")
        } else {
            ("<tool_call>\n<function=", "</function>\n</tool_call>")
        };
        assert_markers(name, &spec, ("", ""), function, "");
        assert_eq!(
            (
                spec.name_suffix.as_str(),
                spec.key_open.as_str(),
                spec.key_close.as_str(),
                spec.value_close.as_str()
            ),
            (">", "<parameter=", ">", "</parameter>"),
            "{name}"
        );
        assert_eq!(spec.key_close_non_string, "", "{name}");
        // Booleans as Python's str(); lists as JSON, except Seed's.
        assert_eq!(spec.scalars, ValueStyle::Python, "{name}");
        let lists = if name == "ByteDance-Seed-OSS" {
            ValueStyle::Python
        } else {
            ValueStyle::Json
        };
        assert_eq!(spec.containers, lists, "{name}");
    }
    for (name, key_close) in [
        ("GLM-4.6", "</arg_key>\n<arg_value>"),
        ("GLM-4.7-Flash", "</arg_key><arg_value>"),
    ] {
        let spec = spec(name);
        assert_markers(name, &spec, ("", ""), ("<tool_call>", "</tool_call>"), "");
        assert_eq!(
            (
                spec.name_suffix.as_str(),
                spec.key_open.as_str(),
                spec.key_close.as_str(),
                spec.value_close.as_str()
            ),
            ("", "<arg_key>", key_close, "</arg_value>"),
            "{name}"
        );
        assert_eq!(
            (spec.scalars, spec.containers),
            (ValueStyle::Json, ValueStyle::Json),
            "{name}"
        );
    }
    let minimax = spec("MiniMax-M2");
    assert_markers(
        "MiniMax-M2",
        &minimax,
        ("<minimax:tool_call>", "</minimax:tool_call>"),
        ("<invoke name=\"", "</invoke>"),
        "",
    );
    assert_eq!(
        (
            minimax.name_suffix.as_str(),
            minimax.key_open.as_str(),
            minimax.key_close.as_str(),
            minimax.value_close.as_str()
        ),
        ("\">", "<parameter name=\"", "\">", "</parameter>")
    );
    // DeepSeek V3.2 says in the key's tag whether the value is a string.
    let dsml = spec("deepseek-ai-DeepSeek-V3.2");
    assert_markers(
        "DeepSeek-V3.2",
        &dsml,
        ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
        ("<｜DSML｜invoke name=\"", "</｜DSML｜invoke>"),
        "",
    );
    assert_eq!(
        (
            dsml.key_open.as_str(),
            dsml.key_close.as_str(),
            dsml.key_close_non_string.as_str(),
            dsml.value_close.as_str()
        ),
        (
            "<｜DSML｜parameter name=\"",
            "\" string=\"true\">",
            "\" string=\"false\">",
            "</｜DSML｜parameter>"
        )
    );
}

#[test]
fn name_keyed_objects_and_one_call_per_message() {
    let apertus = spec("Apertus-8B-Instruct");
    assert_eq!(apertus.kind, CallKind::NameKeyedObject);
    assert_markers(
        "Apertus",
        &apertus,
        ("<|tools_prefix|>[", "]<|tools_suffix|>"),
        ("", ""),
        ",",
    );
    // GigaChat renders only the first of two calls: one call per message, no separator.
    for (name, start) in [
        ("GigaChat3-10B-A1.8B", "<|message_sep|>\n\nfunction call<|role_sep|>"),
        ("GigaChat3.1-10B-A1.8B", "<|function_call|>"),
    ] {
        let spec = spec(name);
        assert_eq!(spec.kind, CallKind::JsonObject, "{name}");
        assert_markers(name, &spec, ("", ""), (start, ""), "");
    }
}

#[test]
fn ids_written_beside_the_name() {
    // Mistral Small 3.2: `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`.
    let mistral = spec("Mistral-Small-3.2-24B-Instruct-2506");
    assert_eq!(mistral.kind, CallKind::TagJson);
    assert_eq!(
        (
            mistral.call_start.as_str(),
            mistral.name_suffix.as_str(),
            mistral.id,
            mistral.id_suffix.as_str()
        ),
        ("[TOOL_CALLS]", "[CALL_ID]", IdPosition::AfterName, "[ARGS]")
    );
    // Solar-Open: `<|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{…}`.
    let solar = spec("upstage-Solar-Open-100B");
    assert_eq!(
        (
            solar.call_start.as_str(),
            solar.id,
            solar.id_suffix.as_str(),
            solar.name_suffix.as_str()
        ),
        (
            "<|tool_call:begin|>",
            IdPosition::BeforeName,
            "<|tool_call:name|>",
            "<|tool_call:args|>"
        )
    );
    assert_eq!(FormatSpec::from_value(&solar.describe()).unwrap(), solar);
}

#[test]
fn calls_numbered_after_the_name_and_templates_without_calls() {
    // Kimi numbers its calls after the name, `functions.NAME:0`: the number is the call's id.
    for name in ["moonshotai-Kimi-K2", "Kimi-K2-Instruct", "Kimi-K2-Thinking"] {
        let kimi = spec(name);
        assert_eq!(
            (
                kimi.call_start.as_str(),
                kimi.name_suffix.as_str(),
                kimi.id,
                kimi.id_suffix.as_str()
            ),
            (
                "<|tool_call_begin|>functions.",
                ":",
                IdPosition::AfterName,
                "<|tool_call_argument_begin|>"
            ),
            "{name}"
        );
    }
    let e = infer(&template("ibm-granite-granite-3.3-2B-Instruct")).unwrap_err();
    assert_eq!(e.code, ErrorCode::TemplateNoToolCalls, "{e}");
}

#[test]
fn python_calls_and_object_literals() {
    // LFM2.5: `<|tool_call_start|>[get_weather(city='Paris'), …]<|tool_call_end|>`.
    let lfm = spec("LFM2.5-8B-A1B");
    assert_eq!(lfm.kind, CallKind::CallSyntax);
    assert_markers(
        "LFM2.5-8B-A1B",
        &lfm,
        ("<|tool_call_start|>[", "]<|tool_call_end|>"),
        ("", ""),
        ",",
    );
    // Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`, keys sorted.
    for name in ["google-gemma-4-31B-it", "google-gemma-4-31B-it-interleaved"] {
        let gemma = spec(name);
        assert_eq!(gemma.kind, CallKind::ObjectLiteral, "{name}");
        assert_eq!(
            (
                gemma.call_start.as_str(),
                gemma.call_end.as_str(),
                gemma.string_delimiter.as_str()
            ),
            ("<|tool_call>call:", "<tool_call|>", "<|\"|>"),
            "{name}"
        );
        assert_eq!(FormatSpec::from_value(&gemma.describe()).unwrap(), gemma);
    }
}

/// `tests/fixtures/template/errors.json`: every template from which no format can be inferred
/// fails with its case's `template.*` code, position and message, whether it is given as its
/// text, as a tokenizer config or as the config's JSON text.
#[test]
fn template_error_fixtures() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/template/errors.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("errors.json")).expect("errors.json is JSON");
    let cases = doc["cases"].as_array().expect("cases");
    let mut codes = Vec::new();
    for case in cases {
        let id = case["id"].as_str().expect("id");
        let (text, outcome) = match &case["template"] {
            serde_json::Value::String(source) => (source.clone(), ChatTemplate::read(source)),
            config if case["config_text"].as_bool() == Some(true) => {
                let text = config.to_string();
                let outcome = ChatTemplate::read(&text);
                (text, outcome)
            }
            config => {
                let text = config.to_string();
                let value = beacon_core::parse_json(&text).expect("a config is JSON");
                (text, ChatTemplate::from_config(&value))
            }
        };
        let e = outcome.and_then(|t| infer(&t)).expect_err(id);
        let want = &case["error"];
        assert_eq!(e.code.as_str(), want["code"].as_str().unwrap(), "{id}: {e}");
        let at = beacon_core::locate(&text, e.offset, beacon_core::Unit::Bytes);
        assert_eq!(
            (at.offset, at.line, at.column),
            (
                want["position"].as_u64().unwrap() as usize,
                want["line"].as_u64().unwrap() as usize,
                want["column"].as_u64().unwrap() as usize
            ),
            "{id}"
        );
        let part = want["message"].as_str().unwrap();
        assert!(e.message.contains(part), "{id}: {:?} lacks {part:?}", e.message);
        if !codes.contains(&e.code) {
            codes.push(e.code);
        }
    }
    let template_codes: Vec<ErrorCode> = ErrorCode::ALL
        .into_iter()
        .filter(|c| c.as_str().starts_with("template."))
        .collect();
    assert!(
        template_codes.iter().all(|c| codes.contains(c)),
        "every template.* code has a case: {codes:?}"
    );
}
