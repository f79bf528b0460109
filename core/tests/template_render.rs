//! beacon renders every chat template of `../shared/chat-templates` (or `$BEACON_CHAT_TEMPLATES`)
//! byte for byte as jinja2 does: the probe conversations of `tests/fixtures/template/renders.json`
//! (written by its `_author.py` with the fixture authors' jinja2 renderer) rendered through each
//! template give exactly the text recorded there; where jinja2 fails, beacon fails too, with
//! `template.render`.

mod common;

use std::path::PathBuf;

use beacon_core::{ChatTemplate, ErrorCode, Value};
use serde_json::Value as Json;

/// Templates that render differently, with the reason. Python's `Markup + str` escapes the
/// plain side (`"'"|safe + name + … + t|tojson` writes `&#34;` for each quote of the JSON) even
/// with autoescape off; minijinja escapes in a concatenation only under autoescape, which would
/// escape every output. It touches only the tool descriptions of the system prompt, never a call.
const KNOWN: &[(&str, &str)] = &[(
    "meetkai-functionary-medium-v3.1",
    "Markup + str escapes the str in Python, not in minijinja",
)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn templates_dir() -> PathBuf {
    std::env::var_os("BEACON_CHAT_TEMPLATES").map_or_else(
        || root().join("..").join("shared").join("chat-templates"),
        PathBuf::from,
    )
}

/// The context of one probe: its messages, tools and `add_generation_prompt`, plus the special
/// tokens the recording used.
fn context(probe: &Json, tokens: &Json) -> Value {
    let mut entries = match common::from_serde(probe) {
        Value::Object(entries) => entries,
        other => panic!("a probe is an object, not {other:?}"),
    };
    if let Value::Object(t) = common::from_serde(tokens) {
        entries.extend(t);
    }
    Value::Object(entries)
}

#[test]
fn every_template_renders_as_jinja2_renders_it() {
    let path = root().join("tests/fixtures/template/renders.json");
    let doc: Json = serde_json::from_str(&std::fs::read_to_string(&path).expect("renders.json")).expect("JSON");
    let dir = templates_dir();
    assert!(
        dir.is_dir(),
        "{} is missing: set BEACON_CHAT_TEMPLATES or put shared/chat-templates beside the repository",
        dir.display()
    );
    let probes = doc["probes"].as_object().expect("probes");
    let renders = doc["renders"].as_object().expect("renders");
    let mut problems = Vec::new();
    let (mut same, mut both_fail, mut total_templates) = (0, 0, 0);
    for (name, by_probe) in renders {
        total_templates += 1;
        let source =
            std::fs::read_to_string(dir.join(format!("{name}.jinja"))).unwrap_or_else(|e| panic!("{name}.jinja: {e}"));
        let renderer = match ChatTemplate::new(source).compile() {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("{name}: does not compile: {e}"));
                continue;
            }
        };
        let known = KNOWN.iter().find(|(k, _)| k == name);
        let mut template_ok = true;
        let before = problems.len();
        for (probe, want) in by_probe.as_object().expect("a template's renders") {
            let got = renderer.render(&context(&probes[probe], &doc["context"]));
            match (want.get("text").and_then(Json::as_str), got) {
                (Some(text), Ok(out)) if out == text => {}
                (Some(text), Ok(out)) => {
                    template_ok = false;
                    let at = text.bytes().zip(out.bytes()).take_while(|(a, b)| a == b).count();
                    let from = at.saturating_sub(40);
                    problems.push(format!(
                        "{name}/{probe}: differs at byte {at}:\n  jinja2: {:?}\n  beacon: {:?}",
                        text.get(from..(at + 60).min(text.len())).unwrap_or(""),
                        out.get(from..(at + 60).min(out.len())).unwrap_or("")
                    ));
                }
                (Some(_), Err(e)) => {
                    template_ok = false;
                    problems.push(format!("{name}/{probe}: jinja2 renders, beacon fails: {e}"));
                }
                (None, Ok(_)) => {
                    template_ok = false;
                    problems.push(format!(
                        "{name}/{probe}: jinja2 fails ({}), beacon renders",
                        want["error"]
                    ));
                }
                (None, Err(e)) => {
                    both_fail += 1;
                    println!("{name}/{probe}: both fail; jinja2: {}; beacon: {e}", want["error"]);
                    if e.code != ErrorCode::TemplateRender {
                        template_ok = false;
                        problems.push(format!("{name}/{probe}: jinja2 fails, beacon fails with {e}"));
                    }
                }
            }
        }
        if template_ok {
            same += 1;
        }
        match known {
            Some((_, why)) if !template_ok => {
                println!("{name}: differs as known ({why})");
                problems.truncate(before);
            }
            Some(_) => problems.push(format!("{name}: renders as jinja2 now: take it off KNOWN")),
            None => {}
        }
    }
    println!(
        "{same} of {total_templates} templates render every probe as jinja2 does ({both_fail} renders fail in both)"
    );
    for p in &problems {
        println!("{p}");
    }
    assert!(
        total_templates >= 49,
        "only {total_templates} templates in renders.json"
    );
    assert!(problems.is_empty(), "{} render(s) differ from jinja2", problems.len());
}
