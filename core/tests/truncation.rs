//! Truncation property over the shared fixtures: a prefix of a model's output is never read as a
//! different call. For every valid fixture input whose calls all share one format, every prefix
//! (cut at every char boundary) either raises or returns exactly the first k calls of the full
//! result (names and arguments equal, k ≤ the full count).
//!
//! One exemption: when the cut removes every tagged (tier-1) call, a lower tier may find calls in
//! the prose before the first marker. That is allowed only where those calls stand before the
//! input's first marker, i.e. the input itself mixes tiers.

mod common;

use beacon_core::{parse_message, parse_tool_calls, Format, MessageOptions, ToolCall};
use serde_json::Value as Json;

/// An input to check, with its fixture id.
struct Input {
    id: String,
    text: String,
}

/// The inputs of every case that expects calls, all of one format.
fn single_format_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for case in common::fixture_cases() {
        let Some(calls) = case.get("calls").and_then(Json::as_array) else {
            continue;
        };
        let format = |c: &Json| c.get("format").and_then(Json::as_str).map(str::to_owned);
        if calls.iter().any(|c| format(c) != format(&calls[0])) {
            continue;
        }
        out.push(Input {
            id: case["id"].as_str().expect("id").to_owned(),
            text: case["input"].as_str().expect("input").to_owned(),
        });
    }
    out
}

/// The tier of a format: 1 tagged, 2 JSON, 3 call syntax.
fn tier(format: Format) -> u8 {
    match format {
        Format::Json => 2,
        Format::Python => 3,
        Format::Pythonic => 3,
        _ => 1,
    }
}

/// Whether the prefix's calls are of a lower tier than the full input's: cutting off the
/// higher-tier calls lets a lower tier win (exempt only for inputs that mix tiers).
fn mixes_tiers(full: &[ToolCall], got: &[ToolCall]) -> bool {
    let full_tier = full.iter().map(|c| tier(c.format)).min().unwrap_or(3);
    got.iter().all(|c| tier(c.format) > full_tier)
}

/// Whether the prefix's calls were written inside reasoning (as the prefix reads, or as the full
/// input does, when its close tag comes later): they count only while no call stands outside
/// it, so a later call outside may replace them (the reasoning rule).
fn inside_reasoning(input: &str, prefix: &str, got: &[ToolCall]) -> bool {
    let reasoning = |text: &str| {
        parse_message(text, MessageOptions::default())
            .ok()
            .and_then(|m| m.reasoning)
            .unwrap_or_default()
    };
    let (here, there) = (reasoning(prefix), reasoning(input));
    got.iter().all(|c| {
        let written = &prefix[c.span.clone()];
        here.contains(written) || there.contains(written)
    })
}

fn show(calls: &[ToolCall]) -> String {
    let items: Vec<String> = calls
        .iter()
        .map(|c| {
            format!(
                "{}({})",
                c.name,
                beacon_core::Value::Object(c.arguments.clone()).to_json()
            )
        })
        .collect();
    items.join(", ")
}

/// What is wrong with the result of one prefix, if anything.
fn check_prefix(input: &str, cut: usize, full: &[ToolCall]) -> Option<String> {
    let got = parse_tool_calls(&input[..cut]).ok()?;
    let is_first_k = got.len() <= full.len()
        && got
            .iter()
            .zip(full)
            .all(|(g, f)| g.name == f.name && g.arguments == f.arguments);
    if is_first_k || mixes_tiers(full, &got) || inside_reasoning(input, &input[..cut], &got) {
        return None;
    }
    Some(format!(
        "prefix {:?} gives [{}]; the full input gives [{}]",
        &input[..cut],
        show(&got),
        show(full)
    ))
}

#[test]
fn every_prefix_raises_or_gives_the_first_calls() {
    let inputs = single_format_inputs();
    assert!(inputs.len() >= 100, "only {} single-format inputs", inputs.len());
    let mut failures = Vec::new();
    let mut failing_cases = 0;
    for input in &inputs {
        let text = input.text.as_str();
        let Ok(full) = parse_tool_calls(text) else {
            // The fixtures test reports it; without the full result there is nothing to compare.
            println!("skipped {}: the full input does not parse", input.id);
            continue;
        };
        let before = failures.len();
        for cut in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            if let Some(problem) = check_prefix(text, cut, &full) {
                failures.push(format!("{}: {problem}", input.id));
            }
        }
        failing_cases += usize::from(failures.len() > before);
    }
    for f in &failures {
        println!("{f}");
    }
    println!(
        "{} inputs checked; {failing_cases} with failing prefixes ({} prefixes)",
        inputs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{failing_cases} inputs have prefixes read as other calls"
    );
}
