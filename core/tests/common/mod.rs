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
