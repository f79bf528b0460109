//! Runs the shared provider-response fixtures (`tests/fixtures/providers/`, schema in its
//! README): `parse_response` (text and value variants), `detect_provider`, `has_tool_calls`
//! agreement on every case, `format_results`, and `format_calls` (with the round trip of its
//! output through `parse_response`). Prints every failure, then fails once.

mod common;

use common::from_serde;
use std::path::PathBuf;

use beacon_core::{
    detect_provider, detect_provider_value, format_calls, format_results, has_tool_calls, has_tool_calls_value, locate,
    parse_response, parse_response_value, parse_response_value_with, parse_response_with, ErrorCode, ParseError,
    Provider, ProviderCall, ResponseOptions, ToolResult, Tools, Unit, UnknownTools, Value,
};
use serde_json::Value as J;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/providers")
}

fn provider_of(j: Option<&J>) -> Result<Option<Provider>, String> {
    match j.and_then(J::as_str).unwrap_or("auto") {
        "auto" => Ok(None),
        id => Provider::parse(id)
            .map(Some)
            .ok_or_else(|| format!("unknown provider {id:?}")),
    }
}

fn expected_calls(j: &J) -> Vec<ProviderCall> {
    j.as_array()
        .expect("`calls` is an array")
        .iter()
        .map(|c| ProviderCall {
            id: c["id"].as_str().map(str::to_string),
            name: c["name"].as_str().expect("`name` is a string").to_string(),
            arguments: match from_serde(&c["arguments"]) {
                Value::Object(o) => o,
                other => panic!("`arguments` must be an object, found {other:?}"),
            },
        })
        .collect()
}

fn same_outcome<T: PartialEq>(a: &Result<T, ParseError>, b: &Result<T, ParseError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => x.code == y.code && x.offset == y.offset,
        _ => false,
    }
}

/// Checks one outcome against `expected` (`{"provider", "calls"}`) or `error`.
fn check_outcome(
    got: &Result<Vec<ProviderCall>, ParseError>,
    case: &J,
    text: Option<&str>,
    label: &str,
    failures: &mut Vec<String>,
) {
    if let Some(exp) = case.get("expected") {
        let want = expected_calls(&exp["calls"]);
        match got {
            Ok(calls) if *calls == want => {}
            Ok(calls) => failures.push(format!("{label}: calls differ\n   got: {calls:?}\n  want: {want:?}")),
            Err(e) => failures.push(format!("{label}: unexpected error {e}")),
        }
        return;
    }
    let err = &case["error"];
    let code = err["code"].as_str().expect("error.code");
    match got {
        Ok(calls) => failures.push(format!("{label}: expected error {code}, got {calls:?}")),
        Err(e) => {
            if e.code.as_str() != code {
                failures.push(format!("{label}: expected {code}, got {e}"));
            }
            if let Some(want) = err.get("message_contains").and_then(J::as_str) {
                if !e.message.contains(want) {
                    failures.push(format!("{label}: message {:?} does not contain {want:?}", e.message));
                }
            }
            let want_path = err.get("path").and_then(J::as_str);
            if e.path.as_deref() != want_path {
                failures.push(format!("{label}: path {:?}, expected {want_path:?} ({e})", e.path));
            }
            match text {
                Some(text) => {
                    if let Some(pos) = err.get("position").and_then(J::as_u64) {
                        let at = locate(text, e.offset, Unit::CodePoints).offset;
                        if at as u64 != pos {
                            failures.push(format!("{label}: position {at}, expected {pos} ({e})"));
                        }
                    }
                }
                None if e.offset != 0 => {
                    failures.push(format!("{label}: value variant offset {} (expected 0)", e.offset))
                }
                None => {}
            }
        }
    }
}

fn check_response_case(file: &str, case: &J, failures: &mut Vec<String>) {
    let id = case["id"].as_str().unwrap_or("?");
    let label = format!("{file}:{id}");
    let provider = match provider_of(case.get("provider")) {
        Ok(p) => p,
        Err(e) => return failures.push(format!("{label}: {e}")),
    };
    let fallback = case.get("text_fallback").and_then(J::as_bool).unwrap_or(false);
    if case.get("expected").is_some() == case.get("error").is_some() {
        return failures.push(format!("{label}: a case has exactly one of `expected` and `error`"));
    }
    let tools = match case.get("tools").map(|t| Tools::from_value(&from_serde(t))) {
        None => None,
        Some(Ok(tools)) => Some(tools),
        Some(Err(e)) => return failures.push(format!("{label}: the case's tools cannot be read: {e}")),
    };
    let options = ResponseOptions {
        provider,
        text_fallback: fallback,
        tools: tools.as_ref(),
        validate: case.get("validate").and_then(J::as_bool).unwrap_or(true),
        unknown: match case.get("unknown").and_then(J::as_str) {
            Some("keep") => UnknownTools::Keep,
            Some("drop") => UnknownTools::Drop,
            _ => UnknownTools::Error,
        },
    };
    let (text, value) = match case.get("response_text").and_then(J::as_str) {
        Some(t) => (t.to_string(), serde_json::from_str::<J>(t).ok().map(|j| from_serde(&j))),
        None => (
            serde_json::to_string(&case["response"]).expect("serialise"),
            Some(from_serde(&case["response"])),
        ),
    };
    let want_provider: Option<Option<&str>> = match (case.get("expected"), case.get("error")) {
        (Some(exp), _) => Some(exp["provider"].as_str()),
        (_, Some(err)) => err.get("provider").map(J::as_str),
        _ => None,
    };
    let error_code = case.get("error").and_then(|e| e["code"].as_str()).unwrap_or("");
    // An error case without `provider` is a malformed response: detection raises the same error.
    let json_error = case.get("error").is_some_and(|e| e.get("provider").is_none());

    // Text variant. has_tool_calls takes no tools: it agrees with parse_response without them.
    let got = parse_response_with(&text, &options);
    check_outcome(&got, case, Some(&text), &format!("{label} [text]"), failures);
    if tools.is_none() && got != parse_response(&text, provider, fallback) {
        failures.push(format!("{label} [text]: parse_response_with without tools differs"));
    }
    let has = has_tool_calls(&text, provider, fallback);
    if tools.is_none() && !same_outcome(&has, &got.as_ref().map(|c| !c.is_empty()).map_err(Clone::clone)) {
        failures.push(format!(
            "{label} [text]: has_tool_calls {has:?} disagrees with parse_response"
        ));
    }
    let detected = detect_provider(&text);
    match (&detected, want_provider) {
        (Ok(d), Some(want)) if d.map(Provider::as_str) != want => {
            failures.push(format!("{label} [text]: detected {d:?}, expected {want:?}"))
        }
        (Err(e), _) if !json_error || e.code.as_str() != error_code => {
            failures.push(format!("{label} [text]: detect_provider failed: {e}"))
        }
        (Err(e), _) if got.as_ref().err().map(|g| g.offset) != Some(e.offset) => failures.push(format!(
            "{label} [text]: detect_provider error {e} is not parse_response's"
        )),
        (Ok(_), _) if json_error => failures.push(format!("{label} [text]: detect_provider accepted malformed JSON")),
        _ => {}
    }
    if let (Ok(None), Ok(calls)) = (&detected, &got) {
        if provider.is_none() && !calls.is_empty() {
            failures.push(format!("{label} [text]: calls found although no provider was detected"));
        }
    }

    // Value variant (same outcome, offset 0), unless the text is not one strict JSON value.
    let Some(value) = value.filter(|_| !json_error) else {
        return;
    };
    let got = parse_response_value_with(&value, &options);
    check_outcome(&got, case, None, &format!("{label} [value]"), failures);
    if tools.is_none() && got != parse_response_value(&value, provider, fallback) {
        failures.push(format!(
            "{label} [value]: parse_response_value_with without tools differs"
        ));
    }
    let has = has_tool_calls_value(&value, provider, fallback);
    if tools.is_none() && !same_outcome(&has, &got.as_ref().map(|c| !c.is_empty()).map_err(Clone::clone)) {
        failures.push(format!(
            "{label} [value]: has_tool_calls {has:?} disagrees with parse_response"
        ));
    }
    let detected = detect_provider_value(&value);
    if let Some(want) = want_provider {
        if detected.map(Provider::as_str) != want {
            failures.push(format!("{label} [value]: detected {detected:?}, expected {want:?}"));
        }
    }
    if detected.is_none() && provider.is_none() && got.as_ref().is_ok_and(|c| !c.is_empty()) {
        failures.push(format!(
            "{label} [value]: calls found although no provider was detected"
        ));
    }
}

fn check_results_case(case: &J, failures: &mut Vec<String>) {
    let id = case["id"].as_str().unwrap_or("?");
    let label = format!("format_results.json:{id}");
    let provider = match provider_of(case.get("provider")) {
        Ok(Some(p)) => p,
        Ok(None) => return failures.push(format!("{label}: format_results needs a provider")),
        Err(e) => return failures.push(format!("{label}: {e}")),
    };
    let results: Vec<ToolResult> = case["results"]
        .as_array()
        .expect("`results` is an array")
        .iter()
        .map(|r| ToolResult {
            id: r.get("id").and_then(J::as_str).map(str::to_string),
            name: r.get("name").and_then(J::as_str).map(str::to_string),
            content: from_serde(r.get("content").unwrap_or(&J::Null)),
            is_error: r.get("is_error").and_then(J::as_bool).unwrap_or(false),
        })
        .collect();
    let got = format_results(&results, provider);
    match (case.get("expected"), case.get("error"), got) {
        (Some(exp), None, Ok(v)) => {
            let want = from_serde(exp);
            if v != want {
                failures.push(format!(
                    "{label}: output differs\n   got: {}\n  want: {}",
                    v.to_json(),
                    want.to_json()
                ));
            }
        }
        (Some(_), None, Err(e)) => failures.push(format!("{label}: unexpected error {e}")),
        (None, Some(err), Ok(v)) => {
            failures.push(format!("{label}: expected error {}, got {}", err["code"], v.to_json()))
        }
        (None, Some(err), Err(e)) => {
            if Some(e.code.as_str()) != err["code"].as_str() {
                failures.push(format!("{label}: expected {}, got {e}", err["code"]));
            }
            if let Some(want) = err.get("message_contains").and_then(J::as_str) {
                if !e.message.contains(want) {
                    failures.push(format!("{label}: message {:?} does not contain {want:?}", e.message));
                }
            }
        }
        _ => failures.push(format!("{label}: a case has exactly one of `expected` and `error`")),
    }
}

/// The calls of a `format_calls.json` case (`id` may be missing or null).
fn calls_of(j: &J) -> Vec<ProviderCall> {
    j.as_array()
        .expect("`calls` is an array")
        .iter()
        .map(|c| ProviderCall {
            id: c.get("id").and_then(J::as_str).map(str::to_string),
            name: c["name"].as_str().expect("`name` is a string").to_string(),
            arguments: match from_serde(&c["arguments"]) {
                Value::Object(o) => o,
                other => panic!("`arguments` must be an object, found {other:?}"),
            },
        })
        .collect()
}

/// What `parse_response` must read back from `format_calls(calls, provider)`: the calls, without
/// their ids where the provider's wire has none (Cohere v1).
fn read_back(calls: &[ProviderCall], provider: Provider) -> Vec<ProviderCall> {
    calls
        .iter()
        .map(|c| ProviderCall {
            id: if provider == Provider::CohereV1 {
                None
            } else {
                c.id.clone()
            },
            ..c.clone()
        })
        .collect()
}

fn check_calls_case(case: &J, failures: &mut Vec<String>) {
    let id = case["id"].as_str().unwrap_or("?");
    let label = format!("format_calls.json:{id}");
    let provider = match provider_of(case.get("provider")) {
        Ok(Some(p)) => p,
        Ok(None) => return failures.push(format!("{label}: format_calls needs a provider")),
        Err(e) => return failures.push(format!("{label}: {e}")),
    };
    let calls = calls_of(&case["calls"]);
    let content = case.get("content").and_then(J::as_str);
    let got = format_calls(&calls, provider, content);
    match (case.get("expected"), case.get("error"), got) {
        (Some(exp), None, Ok(v)) => {
            let want = from_serde(exp);
            if v != want {
                failures.push(format!(
                    "{label}: output differs\n   got: {}\n  want: {}",
                    v.to_json(),
                    want.to_json()
                ));
            }
            // The round trip, with the provider given and detected, as a value and as text.
            let back = read_back(&calls, provider);
            for (how, given) in [("given", Some(provider)), ("detected", None)] {
                let as_value = parse_response_value(&v, given, false);
                let as_text = parse_response(&v.to_json(), given, false);
                for (kind, read) in [("value", as_value), ("text", as_text)] {
                    if read.as_ref() != Ok(&back) {
                        failures.push(format!(
                            "{label}: parse_response ({kind}, provider {how}) reads {read:?}, not the calls {back:?}"
                        ));
                    }
                }
            }
        }
        (Some(_), None, Err(e)) => failures.push(format!("{label}: unexpected error {e}")),
        (None, Some(err), Ok(v)) => {
            failures.push(format!("{label}: expected error {}, got {}", err["code"], v.to_json()))
        }
        (None, Some(err), Err(e)) => {
            if Some(e.code.as_str()) != err["code"].as_str() || e.offset != 0 {
                failures.push(format!("{label}: expected {} at 0, got {e}", err["code"]));
            }
            if let Some(want) = err.get("message_contains").and_then(J::as_str) {
                if !e.message.contains(want) {
                    failures.push(format!("{label}: message {:?} does not contain {want:?}", e.message));
                }
            }
        }
        _ => failures.push(format!("{label}: a case has exactly one of `expected` and `error`")),
    }
}

#[test]
fn provider_fixtures() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/fixtures/providers exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut ids = std::collections::HashSet::new();
    for path in &files {
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let text = std::fs::read_to_string(path).expect("read fixture file");
        let doc: J = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let list = doc["cases"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: a fixture file is {{\"cases\": [...]}}"));
        for case in list {
            cases += 1;
            let id = case["id"].as_str().unwrap_or("?").to_string();
            if !ids.insert(format!("{file}:{id}")) {
                failures.push(format!("{file}: duplicate id {id}"));
            }
            if file == "format_results.json" {
                check_results_case(case, &mut failures);
            } else if file == "format_calls.json" {
                check_calls_case(case, &mut failures);
            } else {
                check_response_case(&file, case, &mut failures);
            }
        }
    }
    assert!(cases > 0, "no provider fixtures found");
    if !failures.is_empty() {
        panic!(
            "{} failures in {cases} provider fixture cases:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }
    eprintln!("{cases} provider fixture cases passed");
}

#[test]
fn provider_ids_round_trip() {
    for p in Provider::ALL {
        assert_eq!(Provider::parse(p.as_str()), Some(p));
    }
    assert_eq!(Provider::parse("auto"), None);
    assert_eq!(Provider::parse("OpenAI_Chat"), None);
}

/// Every response fixture, cut short and with structural characters knocked out: no panic, an
/// error offset on a character boundary of the text, `has_tool_calls` and `detect_provider`
/// agreeing with `parse_response`, for every provider choice.
#[test]
fn mutated_fixtures_never_panic_and_agree() {
    let mut texts = Vec::new();
    for entry in std::fs::read_dir(dir()).expect("fixture dir") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "json") || path.ends_with("format_results.json") {
            continue;
        }
        let doc: J = serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("parse");
        for case in doc["cases"].as_array().expect("cases") {
            texts.push(match case.get("response_text").and_then(J::as_str) {
                Some(t) => t.to_string(),
                None => serde_json::to_string_pretty(&case["response"]).expect("serialise"),
            });
        }
    }
    let providers: Vec<Option<Provider>> = std::iter::once(None).chain(Provider::ALL.map(Some)).collect();
    for text in &texts {
        let boundaries: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let step = (boundaries.len() / 24).max(1);
        let mut variants: Vec<String> = boundaries
            .iter()
            .step_by(step)
            .map(|&i| text[..i].to_string())
            .collect();
        let structural: Vec<usize> = text
            .char_indices()
            .filter(|(_, c)| "{}[]:,\"".contains(*c))
            .map(|(i, _)| i)
            .collect();
        let step = (structural.len() / 24).max(1);
        for &i in structural.iter().step_by(step) {
            let mut v = text.clone();
            v.replace_range(i..i + 1, " ");
            variants.push(v);
        }
        for v in &variants {
            let detected = detect_provider(v);
            for &provider in &providers {
                for fallback in [false, true] {
                    let got = parse_response(v, provider, fallback);
                    if let Err(e) = &got {
                        assert!(
                            e.offset <= v.len() && v.is_char_boundary(e.offset),
                            "offset {} in {v:?}: {e}",
                            e.offset
                        );
                    }
                    let has = has_tool_calls(v, provider, fallback);
                    assert!(
                        same_outcome(&has, &got.as_ref().map(|c| !c.is_empty()).map_err(Clone::clone)),
                        "{v:?}"
                    );
                    if provider.is_none() {
                        match &detected {
                            // No provider: no calls, or the error an API returned.
                            Ok(None) => assert!(
                                matches!(&got, Ok(c) if c.is_empty())
                                    || matches!(&got, Err(e) if e.code == ErrorCode::ResponseError),
                                "{v:?}"
                            ),
                            Err(d) => assert!(matches!(&got, Err(e) if e == d), "{v:?}"),
                            Ok(Some(_)) => {}
                        }
                    }
                }
            }
        }
    }
}
