//! Arguments checked against a compiled schema: the first violation in a fixed order, with the
//! JSON pointer of the offending value and the keyword that failed.
//!
//! Order: at each value, `$ref`, `type`, `enum`, `const`, then the keywords of its type (objects:
//! `required`, `minProperties`/`maxProperties`, `dependentRequired`, then each member in the order
//! written: `propertyNames`, `properties`, `patternProperties`, `additionalProperties`; arrays:
//! `minItems`/`maxItems`, `uniqueItems`, then each element; strings: `minLength`/`maxLength`,
//! `pattern`, `format`; numbers: the bounds, `multipleOf`), then `allOf`, `anyOf`, `oneOf`, `not`.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

use super::schema::{
    as_f64, type_names, Node, NodeId, Schema, ANY, ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING,
};
use crate::lex::quote;
use crate::syntax::path::Step;
use crate::value::{Number, Object, Value};

/// How many `$ref`s and subschemas one value may be checked through: beyond it a schema that
/// refers to itself without consuming the value would not end.
const MAX_NESTING: usize = 512;

/// A value that violates the schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Violation {
    /// Where the value is in the arguments.
    pub path: Vec<Step>,
    /// The keyword that failed.
    pub keyword: &'static str,
    pub message: String,
}

/// The first violation of `value` against node `id`, if any.
pub(crate) fn first_violation(schema: &Schema, id: NodeId, value: &Value) -> Option<Violation> {
    let mut path = Vec::new();
    let checker = Checker {
        schema,
        following: RefCell::new(Vec::new()),
    };
    checker.check(id, value, &mut path, 0).err()
}

/// Whether `value` is valid against node `id`.
pub(crate) fn is_valid(schema: &Schema, id: NodeId, value: &Value) -> bool {
    first_violation(schema, id, value).is_none()
}

struct Checker<'s> {
    schema: &'s Schema,
    /// The `$ref`s being followed, each with the value it is followed for: a `$ref` reached
    /// again for the same value adds nothing (its checks are already running), so it passes.
    following: RefCell<Vec<(NodeId, *const Value)>>,
}

type Checked = Result<(), Violation>;

fn fail(path: &[Step<&str>], keyword: &'static str, message: String) -> Checked {
    let path = path.iter().map(Step::to_owned).collect();
    Err(Violation { path, keyword, message })
}

impl Checker<'_> {
    fn check<'v>(&self, id: NodeId, v: &'v Value, path: &mut Vec<Step<&'v str>>, depth: usize) -> Checked {
        if depth > MAX_NESTING {
            return fail(path, "$ref", "the schema refers to itself without end".to_string());
        }
        let n = self.schema.node(id);
        if n.never {
            return fail(
                path,
                "false",
                "no value is allowed here (the schema is `false`)".to_string(),
            );
        }
        if let Some(r) = n.reference {
            let key = (r, std::ptr::from_ref::<Value>(v));
            if !self.following.borrow().contains(&key) {
                self.following.borrow_mut().push(key);
                let result = self.check(r, v, path, depth + 1);
                self.following.borrow_mut().pop();
                result?;
            }
        }
        if n.types != ANY && !has_type(n.types, v) {
            let message = format!("expected {}, found {}", type_names(n.types), describe(v));
            return fail(path, "type", message);
        }
        if let Some(options) = &n.enumeration {
            if !options.iter().any(|o| same(o, v)) {
                let list: Vec<String> = options.iter().map(Value::to_json).collect();
                let message = format!("{} is not one of {}", v.to_json(), list.join(", "));
                return fail(path, "enum", message);
            }
        }
        if let Some(c) = &n.constant {
            if !same(c, v) {
                return fail(
                    path,
                    "const",
                    format!("expected {}, found {}", c.to_json(), v.to_json()),
                );
            }
        }
        match v {
            Value::Object(o) => self.object(n, o, path, depth)?,
            Value::Array(items) => self.array(n, items, path, depth)?,
            Value::String(s) => string(n, s, path)?,
            Value::Number(x) => number(n, x, path)?,
            _ => {}
        }
        self.combinators(n, v, path, depth)
    }

    fn combinators<'v>(&self, n: &Node, v: &'v Value, path: &mut Vec<Step<&'v str>>, depth: usize) -> Checked {
        for &sub in &n.all_of {
            self.check(sub, v, path, depth + 1)?;
        }
        if !n.any_of.is_empty() && !n.any_of.iter().any(|&s| self.valid(s, v, depth)) {
            let message = format!(
                "{} fits none of the {} `anyOf` alternatives",
                describe(v),
                n.any_of.len()
            );
            return fail(path, "anyOf", message);
        }
        if !n.one_of.is_empty() {
            let fits = n.one_of.iter().filter(|&&s| self.valid(s, v, depth)).count();
            if fits != 1 {
                let message = format!(
                    "{} fits {fits} of the {} `oneOf` alternatives; exactly one must fit",
                    describe(v),
                    n.one_of.len()
                );
                return fail(path, "oneOf", message);
            }
        }
        if let Some(not) = n.not {
            if self.valid(not, v, depth) {
                return fail(path, "not", format!("{} fits the schema under `not`", describe(v)));
            }
        }
        Ok(())
    }

    fn valid(&self, id: NodeId, v: &Value, depth: usize) -> bool {
        self.check(id, v, &mut Vec::new(), depth + 1).is_ok()
    }

    fn object<'v>(&self, n: &Node, o: &'v Object, path: &mut Vec<Step<&'v str>>, depth: usize) -> Checked {
        if let Some(missing) = n.required.iter().find(|k| !o.iter().any(|(key, _)| key == *k)) {
            return fail(
                path,
                "required",
                format!("the required property {} is missing", quote(missing)),
            );
        }
        count(o.len(), n.min_properties, n.max_properties, "properties", path)?;
        for (key, needs) in &n.dependent_required {
            if o.iter().any(|(k, _)| k == key) {
                if let Some(missing) = needs.iter().find(|k| !o.iter().any(|(key, _)| key == *k)) {
                    let message = format!("{} is required when {} is given", quote(missing), quote(key));
                    return fail(path, "dependentRequired", message);
                }
            }
        }
        for (key, value) in o {
            path.push(Step::Key(key));
            self.member(n, key, value, path, depth)?;
            path.pop();
        }
        Ok(())
    }

    fn member<'v>(
        &self,
        n: &Node,
        key: &str,
        value: &'v Value,
        path: &mut Vec<Step<&'v str>>,
        depth: usize,
    ) -> Checked {
        if let Some(names) = n.property_names {
            if let Err(e) = self.check(names, &Value::String(key.to_string()), &mut Vec::new(), depth + 1) {
                let message = format!("the property name {}: {}", quote(key), e.message);
                return fail(path, e.keyword, message);
            }
        }
        let mut matched = false;
        if let Some((_, sub)) = n.properties.iter().find(|(k, _)| k == key) {
            matched = true;
            self.check(*sub, value, path, depth + 1)?;
        }
        for (pattern, sub) in &n.pattern_properties {
            if pattern.is_match(key) {
                matched = true;
                self.check(*sub, value, path, depth + 1)?;
            }
        }
        match n.additional_properties {
            Some(extra) if !matched && !n.skip_additional => {
                if self.schema.node(extra).never {
                    let message = format!("the property {} is not allowed", quote(key));
                    return fail(path, "additionalProperties", message);
                }
                self.check(extra, value, path, depth + 1)
            }
            _ => Ok(()),
        }
    }

    fn array<'v>(&self, n: &Node, items: &'v [Value], path: &mut Vec<Step<&'v str>>, depth: usize) -> Checked {
        count(items.len(), n.min_items, n.max_items, "items", path)?;
        if n.unique_items {
            if let Some((i, j)) = first_repeat(items) {
                path.push(Step::Index(j));
                let message = format!("element {j} repeats element {i}; the items must be unique");
                return fail(path, "uniqueItems", message);
            }
        }
        for (i, item) in items.iter().enumerate() {
            let sub = n
                .prefix_items
                .get(i)
                .copied()
                .or(if i >= n.prefix_items.len() { n.items } else { None });
            if let Some(sub) = sub {
                path.push(Step::Index(i));
                self.check(sub, item, path, depth + 1)?;
                path.pop();
            }
        }
        Ok(())
    }
}

/// `minItems`/`maxItems` or `minProperties`/`maxProperties`.
fn count(len: usize, min: Option<u64>, max: Option<u64>, what: &'static str, path: &[Step<&str>]) -> Checked {
    let len = len as u64;
    let (min_kw, max_kw) = if what == "items" {
        ("minItems", "maxItems")
    } else {
        ("minProperties", "maxProperties")
    };
    if let Some(min) = min.filter(|&m| len < m) {
        return fail(path, min_kw, format!("{len} {what}, fewer than {min}"));
    }
    if let Some(max) = max.filter(|&m| len > m) {
        return fail(path, max_kw, format!("{len} {what}, more than {max}"));
    }
    Ok(())
}

fn string(n: &Node, s: &str, path: &[Step<&str>]) -> Checked {
    if n.min_length.is_some() || n.max_length.is_some() {
        let len = s.chars().count() as u64;
        if let Some(min) = n.min_length.filter(|&m| len < m) {
            return fail(
                path,
                "minLength",
                format!("{} is {len} characters long, shorter than {min}", quote(s)),
            );
        }
        if let Some(max) = n.max_length.filter(|&m| len > m) {
            return fail(
                path,
                "maxLength",
                format!("{} is {len} characters long, longer than {max}", quote(s)),
            );
        }
    }
    if let Some(p) = &n.pattern {
        if !p.is_match(s) {
            return fail(
                path,
                "pattern",
                format!("{} does not match the pattern {}", quote(s), quote(p.source())),
            );
        }
    }
    if let Some(f) = n.format {
        if !super::formats::valid(f, s) {
            return fail(path, "format", format!("{} is not a valid {f}", quote(s)));
        }
    }
    Ok(())
}

/// A bound, its keyword, which orderings of the value against it pass, and the relation that
/// fails, for the message.
type Bound<'n> = (&'n Option<Number>, &'static str, fn(Ordering) -> bool, &'static str);

fn number(n: &Node, x: &Number, path: &[Step<&str>]) -> Checked {
    let bounds: [Bound<'_>; 4] = [
        (&n.minimum, "minimum", |o| o != Ordering::Less, "less than"),
        (&n.maximum, "maximum", |o| o != Ordering::Greater, "greater than"),
        (
            &n.exclusive_minimum,
            "exclusiveMinimum",
            |o| o == Ordering::Greater,
            "not greater than",
        ),
        (
            &n.exclusive_maximum,
            "exclusiveMaximum",
            |o| o == Ordering::Less,
            "not less than",
        ),
    ];
    for (bound, keyword, ok, relation) in bounds {
        if let Some(b) = bound {
            if !compare(x, b).is_some_and(ok) {
                let message = format!("{} is {relation} {}", show_number(x), show_number(b));
                return fail(path, keyword, message);
            }
        }
    }
    if let Some(m) = &n.multiple_of {
        if !multiple_of(x, m) {
            return fail(
                path,
                "multipleOf",
                format!("{} is not a multiple of {}", show_number(x), show_number(m)),
            );
        }
    }
    Ok(())
}

fn show_number(n: &Number) -> String {
    Value::Number(n.clone()).to_json()
}

/// Whether `value` has one of `types`; an integer type also takes a number without a fraction.
pub(crate) fn has_type(types: u8, value: &Value) -> bool {
    let bit = match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::String(_) => STRING,
        Value::Array(_) => ARRAY,
        Value::Object(_) => OBJECT,
        Value::Number(n) if is_integer(n) => INTEGER | NUMBER,
        Value::Number(_) => NUMBER,
    };
    types & bit != 0
}

fn is_integer(n: &Number) -> bool {
    match n {
        Number::Int(_) | Number::BigInt(_) => true,
        Number::Float(f) => f.fract() == 0.0,
    }
}

/// `a` compared with `b` by value: exactly between integers of `i64`, as floats otherwise.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => Some(x.cmp(y)),
        _ => as_f64(a).partial_cmp(&as_f64(b)),
    }
}

fn multiple_of(x: &Number, m: &Number) -> bool {
    if let (Number::Int(a), Number::Int(b)) = (x, m) {
        a % b == 0
    } else {
        let q = as_f64(x) / as_f64(m);
        q.is_finite() && q.fract() == 0.0
    }
}

/// JSON equality: numbers by value, objects whatever their key order.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().find(|(j, _)| j == k).is_some_and(|(_, w)| same(v, w)))
        }
        _ => a == b,
    }
}

/// The first element that repeats an earlier one, as (the earlier one's index, its index): the
/// smallest such index, and the first element it repeats. Elements are bucketed by a hash that
/// agrees with [`same`], so the work is linear in the array's size, not quadratic in its length
/// (40,000 items took seconds pairwise); the hasher is seeded per call, so model output cannot
/// aim for one bucket.
fn first_repeat(items: &[Value]) -> Option<(usize, usize)> {
    let state = RandomState::new();
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::with_capacity(items.len());
    for (j, b) in items.iter().enumerate() {
        let bucket = seen.entry(same_hash(b, &state)).or_default();
        if let Some(&i) = bucket.iter().find(|&&i| same(&items[i], b)) {
            return Some((i, j));
        }
        bucket.push(j);
    }
    None
}

/// A hash of `v` under which values that are [`same`] hash alike: a number by its value as a
/// float (`1` and `1.0` alike; two integers that differ only past a float's precision collide,
/// and `same` tells them apart), an object whatever its key order (its members' hashes summed).
fn same_hash(v: &Value, state: &RandomState) -> u64 {
    let mut h = state.build_hasher();
    match v {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => (1u8, *b).hash(&mut h),
        Value::Number(n) => {
            let f = as_f64(n);
            // -0.0 equals 0.0.
            (2u8, if f == 0.0 { 0 } else { f.to_bits() }).hash(&mut h);
        }
        Value::String(s) => (3u8, s.as_str()).hash(&mut h),
        Value::Array(items) => {
            (4u8, items.len()).hash(&mut h);
            for item in items {
                same_hash(item, state).hash(&mut h);
            }
        }
        Value::Object(o) => {
            let members = o.iter().fold(0u64, |sum, (k, v)| {
                sum.wrapping_add(state.hash_one((k.as_str(), same_hash(v, state))))
            });
            (5u8, o.len(), members).hash(&mut h);
        }
    }
    h.finish()
}

/// A value for a message: short ones written out, others by kind.
fn describe(v: &Value) -> String {
    match v {
        Value::Object(_) | Value::Array(_) => v.kind().to_string(),
        Value::String(s) if s.chars().count() > 40 => format!("a string ({} characters)", s.chars().count()),
        _ => v.to_json(),
    }
}

#[cfg(test)]
mod tests {
    use super::{first_repeat, same};
    use crate::syntax::json::parse_json;
    use crate::value::Value;

    /// The pairwise reading of `uniqueItems` that `first_repeat` must agree with.
    fn pairwise(items: &[Value]) -> Option<(usize, usize)> {
        (0..items.len()).find_map(|j| items[..j].iter().position(|a| same(a, &items[j])).map(|i| (i, j)))
    }

    fn items(json: &str) -> Vec<Value> {
        match parse_json(json).expect("test JSON parses") {
            Value::Array(items) => items,
            other => panic!("not an array: {other:?}"),
        }
    }

    #[test]
    fn repeats_are_found_as_the_pairwise_check_finds_them() {
        for json in [
            "[]",
            "[1, 2, 3]",
            "[1, 2, 1.0]",
            "[0, -0.0]",
            "[9007199254740992, 9007199254740993]",
            "[9007199254740993, 1, 9007199254740993]",
            r#"[{"a": 1, "b": [1, 2]}, {"b": [1, 2.0], "a": 1}]"#,
            r#"[{"a": 1}, {"a": 1, "b": 2}, {"b": 2, "a": 1}]"#,
            "[[1, 2], [2, 1], [1, 2]]",
            r#"["a", "b", "a", "b"]"#,
            r#"[null, false, 0, "", [], {}, null]"#,
            r#"[true, 1, "1", [1], {"1": 1}]"#,
            "[123456789012345678901234567890, 123456789012345678901234567891, 123456789012345678901234567890]",
        ] {
            let items = items(json);
            assert_eq!(first_repeat(&items), pairwise(&items), "{json}");
        }
    }

    #[test]
    fn many_distinct_items_have_no_repeat() {
        let json = format!(
            "[{}]",
            (0..20_000)
                .map(|i| format!(r#"{{"id": {i}}}"#))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut items = items(&json);
        assert_eq!(first_repeat(&items), None);
        items.push(items[12_345].clone());
        assert_eq!(first_repeat(&items), Some((12_345, 20_000)));
    }
}
