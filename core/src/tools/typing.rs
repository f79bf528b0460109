//! Typing a value written as text (an XML or Qwen3-Coder parameter, a GLM `<arg_value>`, …) by
//! its parameter's schema.
//!
//! The types the schema allows are read from `type` (a name or a list), through `$ref`, `allOf`
//! (all must allow it), `anyOf` / `oneOf` (one must), and `enum` / `const` when there is no
//! `type`. They are tried in this order, and the first that fits wins:
//!
//! 1. `null`: `null` or Python's `None`;
//! 2. `boolean`: `true` / `false` or Python's `True` / `False`;
//! 3. `integer`: a JSON integer (no fraction or exponent);
//! 4. `number`: a JSON number;
//! 5. `object`, then 6. `array`: JSON, or a Python literal (`{'a': 1}`, `[1, 2]`, `(1, 2)`)
//!    when the text is not JSON;
//! 7. `string`: the text as written.
//!
//! Every type but `string` reads the text trimmed of whitespace. With validation on, a value
//! that fits a type but breaks the schema (an integer below its `minimum` where a string is also
//! allowed) gives way to a later type that passes; when none passes, the first that fit is kept
//! and validation reports it. A text that fits no allowed type is `tool_call.schema`. A schema
//! that allows any type leaves the value as the format typed it (JSON-first inference).

use super::schema::{type_names, Schema, ANY, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use super::validate::is_valid;
use crate::value::{Number, Value};

/// The order types are tried in.
const ORDER: [u8; 7] = [NULL, BOOLEAN, INTEGER, NUMBER, OBJECT, ARRAY, STRING];

/// How deep `$ref` and combinators are followed to find the allowed types.
const MAX_NESTING: usize = 64;

/// The value of `raw` under node `id`: `Ok(None)` when the schema allows any type (the caller
/// keeps its own reading), `Err` with the reason when no allowed type fits.
pub(crate) fn type_text(schema: &Schema, id: usize, raw: &str, validate: bool) -> Result<Option<Value>, String> {
    let types = allowed(schema, id, 0);
    if types == ANY {
        return Ok(None);
    }
    let mut first = None;
    for bit in ORDER.into_iter().filter(|b| types & b != 0) {
        let Some(value) = convert(raw, bit) else { continue };
        if !validate || is_valid(schema, id, &value) {
            return Ok(Some(value));
        }
        first.get_or_insert(value);
    }
    match first {
        Some(value) => Ok(Some(value)),
        None if types == 0 => Err("the schema allows no value here".to_string()),
        None => Err(format!(
            "{} is not {} (type)",
            crate::lex::quote(raw),
            type_names(types)
        )),
    }
}

/// The types node `id` allows.
fn allowed(schema: &Schema, id: usize, depth: usize) -> u8 {
    if depth > MAX_NESTING {
        return ANY;
    }
    let n = schema.node(id);
    if n.never {
        return 0;
    }
    let mut types = n.types;
    if let Some(r) = n.reference {
        types &= allowed(schema, r, depth + 1);
    }
    for &sub in &n.all_of {
        types &= allowed(schema, sub, depth + 1);
    }
    for alternatives in [&n.any_of, &n.one_of] {
        if !alternatives.is_empty() {
            types &= alternatives
                .iter()
                .fold(0, |acc, &s| acc | allowed(schema, s, depth + 1));
        }
    }
    if types == ANY {
        let listed: Vec<&Value> = n.enumeration.iter().flatten().chain(n.constant.iter()).collect();
        if !listed.is_empty() {
            types = listed.iter().fold(0, |acc, v| acc | kind(v));
        }
    }
    types
}

fn kind(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Number(_) => INTEGER | NUMBER,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
    }
}

/// `raw` as a value of the type `bit`, if it reads as one.
fn convert(raw: &str, bit: u8) -> Option<Value> {
    let t = raw.trim();
    match bit {
        NULL => matches!(t, "null" | "None").then_some(Value::Null),
        BOOLEAN => match t {
            "true" | "True" => Some(Value::Bool(true)),
            "false" | "False" => Some(Value::Bool(false)),
            _ => None,
        },
        INTEGER => match crate::syntax::json::probe_complete(t)? {
            v @ Value::Number(Number::Int(_) | Number::BigInt(_)) => Some(v),
            _ => None,
        },
        NUMBER => crate::syntax::json::probe_complete(t).filter(|v| matches!(v, Value::Number(_))),
        OBJECT | ARRAY => {
            let v =
                crate::syntax::json::probe_complete(t).or_else(|| crate::syntax::callsyntax::literal_complete(t))?;
            let fits = matches!((&v, bit), (Value::Object(_), OBJECT) | (Value::Array(_), ARRAY));
            fits.then_some(v)
        }
        _ => Some(Value::String(raw.to_string())),
    }
}
