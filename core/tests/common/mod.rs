//! Helpers shared by the integration tests.

use beacon_core::{Number, Object, Value};
use proptest::prelude::*;

/// A serde_json value (parsed with `arbitrary_precision` and `preserve_order`) as beacon's
/// `Value`: numbers written with a fraction or exponent are floats, other numbers integers,
/// exact at any size; key order kept.
#[allow(dead_code)] // not every test binary that shares this module reads serde_json values
pub fn from_serde(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                Value::Number(Number::Float(text.parse().expect("a float")))
            } else {
                match text.parse::<i64>() {
                    Ok(i) => Value::Number(Number::Int(i)),
                    Err(_) => Value::Number(Number::BigInt(text)),
                }
            }
        }
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(a) => Value::Array(a.iter().map(from_serde).collect()),
        serde_json::Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), from_serde(v))).collect()),
    }
}

/// Arbitrary argument values for property tests: `leaf` values nested in arrays and objects
/// (keys from `key`, each key once per object) up to `depth` levels, `size` nodes, `width` items.
#[allow(dead_code)] // not every test binary that shares this module generates values
pub fn nested<L, K>(leaf: L, key: fn() -> K, depth: u32, size: u32, width: usize) -> impl Strategy<Value = Value>
where
    L: Strategy<Value = Value> + 'static,
    K: Strategy<Value = String> + 'static,
{
    leaf.prop_recursive(depth, size, width as u32, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..width).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..width).prop_map(|e| Value::Object(unique(e))),
        ]
    })
}

/// The entries with each key's first occurrence only, in order.
#[allow(dead_code)]
pub fn unique(entries: Vec<(String, Value)>) -> Object {
    let mut out: Object = Vec::new();
    for (k, v) in entries {
        if !out.iter().any(|(seen, _)| *seen == k) {
            out.push((k, v));
        }
    }
    out
}

/// Every case of the text fixtures (`tests/fixtures/*.json`), in file order. Some nest past
/// serde_json's default recursion limit.
#[allow(dead_code)]
pub fn fixture_cases() -> Vec<serde_json::Value> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("fixture file");
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        let doc = de
            .into_iter::<serde_json::Value>()
            .next()
            .and_then(Result::ok)
            .unwrap_or_else(|| panic!("{}: invalid JSON", path.display()));
        out.extend(doc["cases"].as_array().into_iter().flatten().cloned());
    }
    out
}

/// The check behind each fixture area's `every_case_has_its_test`: the case ids the test file
/// loaded are exactly those `core/build.rs` generated a test for (`generated`), each once.
#[allow(dead_code)] // used by the test binaries that run a fixture area
pub fn every_case_has_its_test<'a>(loaded: impl IntoIterator<Item = &'a str>, generated: &[&str]) {
    use std::collections::BTreeSet;
    let loaded: BTreeSet<&str> = loaded.into_iter().collect();
    let made: BTreeSet<&str> = generated.iter().copied().collect();
    assert_eq!(made.len(), generated.len(), "a case id appears twice");
    assert!(!loaded.is_empty(), "no case loaded");
    let missing: Vec<&&str> = loaded.difference(&made).collect();
    assert!(
        missing.is_empty(),
        "cases without a generated test (core/build.rs could not read them): {missing:?}"
    );
    let extra: Vec<&&str> = made.difference(&loaded).collect();
    assert!(
        extra.is_empty(),
        "tests generated for cases the test does not load: {extra:?}"
    );
}
