//! Helpers shared by the integration tests.

use beacon_core::{Number, Value};

/// A serde_json value (parsed with `arbitrary_precision` and `preserve_order`) as beacon's
/// `Value`: numbers written with a fraction or exponent are floats, other numbers integers,
/// exact at any size; key order kept.
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
