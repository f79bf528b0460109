//! The settled-region rule checked on every fixture.

use super::*;
use crate::formats::FAMILIES;
use crate::text::scanner::marks::Kind;

/// Every fixture input, from `tests/fixtures/*.json`.
fn fixture_inputs() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read");
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        let doc = de
            .into_iter::<serde_json::Value>()
            .next()
            .expect("a value")
            .expect("json");
        for case in doc["cases"].as_array().into_iter().flatten() {
            out.extend(case["input"].as_str().map(str::to_owned));
        }
    }
    out
}

/// Texts that might continue a region: more calls, tokens, whitespace, prose.
const PROBES: [&str; 14] = [
    "{",
    "[",
    "g{\"a\": 1}",
    "g[ARGS]{}",
    " [ARGS]",
    "<",
    ";",
    ",",
    " ",
    "\n",
    "x",
    "</s>",
    "<|eot_id|>",
    "<tool_call>",
];

/// What a region's parse gives, for comparison.
fn outcome(text: &str, at: usize, family: &Family) -> Option<(usize, Vec<(String, String)>)> {
    let mut calls = Vec::new();
    let end = family
        .read(
            text,
            at,
            &mut crate::formats::Calls::new(&mut calls, crate::syntax::shape::Defer::Never),
        )
        .ok()?;
    let calls = calls
        .into_iter()
        .map(|c| (c.name, crate::value::Value::Object(c.arguments).to_json()))
        .collect();
    Some((end, calls))
}

/// The stream shows the text after a region once [`region_final`] says the region is
/// settled: on every fixture, every marker and every cut of the text after it, a region that
/// is settled in the cut text parses the same in the whole text.
#[test]
fn settled_regions_parse_the_same_in_the_whole_text() {
    let mut problems = Vec::new();
    for text in fixture_inputs() {
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some((at, len, kind)) =
            crate::text::scanner::marks::Marks::builtin().next_candidate(bytes, from, bytes.len(), true)
        {
            from = at + 1;
            let Kind::Call(family) = kind else { continue };
            let whole = outcome(&text, at, family);
            for cut in (at + len..=text.len()).filter(|&c| text.is_char_boundary(c)) {
                let part = &text[..cut];
                let Some((end, calls)) = outcome(part, at, family) else {
                    continue;
                };
                if !region_final(part, at, end, family, crate::text::scanner::marks::Marks::builtin()) {
                    continue;
                }
                if whole.as_ref() != Some(&(end, calls.clone())) {
                    problems.push(format!(
                        "{text:?} at {at}, cut {cut}: settled {end} {calls:?}, whole {whole:?}"
                    ));
                }
                for probe in PROBES {
                    let longer = format!("{part}{probe}");
                    if outcome(&longer, at, family).as_ref() != Some(&(end, calls.clone())) {
                        problems.push(format!("{part:?} + {probe:?}: settled {end} {calls:?} changes"));
                    }
                }
            }
        }
    }
    assert!(FAMILIES.iter().all(|f| f.closers.iter().all(|c| !c.is_empty())));
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
