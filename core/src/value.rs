//! Argument values: what JSON and call-syntax literals decode to.

use std::fmt::Write as _;

/// The deepest nesting of arrays and objects (JSON) or lists, tuples and dicts (call syntax)
/// that beacon accepts; deeper input is an error, not a stack overflow.
pub const MAX_DEPTH: usize = 128;

/// A decoded argument value. Objects keep their keys in the order written.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Object),
}

/// A number as written: integers stay exact at any size.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    /// An integer that fits in `i64`.
    Int(i64),
    /// An integer outside `i64`, as its decimal digits with an optional leading `-`.
    BigInt(String),
    /// A number written with a fraction or an exponent.
    Float(f64),
}

/// An object: keys unique, in the order written.
pub type Object = Vec<(String, Value)>;

/// Whether two keys of one object are the same: their lengths and first bytes are compared before
/// their bytes, since keys of one object rarely share both and the bytes' comparison is a call
/// (typical Harmony and hermes outputs, eight keys: 45 instructions fewer a parse, of 24.6k).
#[inline]
pub(crate) fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// Finds repeated keys while an object is built: by linear search while it is small, by a hash
/// set once it has 16 keys, so that a huge object stays linear.
#[derive(Default)]
pub(crate) struct Keys(Option<std::collections::HashSet<String>>);

impl Keys {
    /// Whether `key` is already among `entries` (the object so far), before it is pushed.
    pub(crate) fn repeated<K: AsRef<str>, T>(&mut self, entries: &[(K, T)], key: &str) -> bool {
        if let Some(set) = &mut self.0 {
            return !set.insert(key.to_owned());
        }
        if entries.iter().any(|(k, _)| same_key(k.as_ref(), key)) {
            return true;
        }
        if entries.len() + 1 >= 16 {
            let keys = entries
                .iter()
                .map(|(k, _)| k.as_ref().to_owned())
                .chain(std::iter::once(key.to_owned()));
            self.0 = Some(keys.collect());
        }
        false
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Looks `key` up in an object value.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(o) => get(o, key),
            _ => None,
        }
    }

    /// A short name of the value's type, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// Serialises the value as compact JSON (keys in order, integers exact).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }
}

/// Serialises an object as compact JSON, as [`Value::to_json`] does.
pub(crate) fn object_json(entries: &Object) -> String {
    let mut out = String::new();
    write_object(entries, JsonStyle::default(), &mut out);
    out
}

/// Looks `key` up in an object.
pub fn get<'a>(object: &'a Object, key: &str) -> Option<&'a Value> {
    object.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// How JSON is written: compact (`{"a":1,"b":[2,3]}`, what [`Value::to_json`] gives) or spaced
/// (`{"a": 1, "b": [2, 3]}`, Python's `json.dumps`), keys in their order or sorted, text beyond
/// ASCII as it is or escaped (`\u00e9`, Python's `ensure_ascii`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct JsonStyle {
    pub spaced: bool,
    pub sorted: bool,
    pub ascii: bool,
}

/// The entries of an object in their order, or sorted by key (as Python's `sort_keys` and
/// jinja2's `dictsort` order them: by code point).
pub(crate) fn entries_in_order(entries: &Object, sorted: bool) -> impl Iterator<Item = &(String, Value)> {
    // Only a sorted order is collected: the plain order allocates nothing.
    let mut order: Vec<&(String, Value)> = Vec::new();
    if sorted {
        order.extend(entries.iter());
        order.sort_by(|a, b| a.0.cmp(&b.0));
    }
    let plain = (!sorted).then(|| entries.iter()).into_iter().flatten();
    order.into_iter().chain(plain)
}

fn write_json(value: &Value, out: &mut String) {
    write_json_styled(value, JsonStyle::default(), out);
}

/// Writes `value` as JSON laid out as `style` says.
pub(crate) fn write_json_styled(value: &Value, style: JsonStyle, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(Number::Int(i)) => out.push_str(&i.to_string()),
        Value::Number(Number::BigInt(s)) => out.push_str(s),
        Value::Number(Number::Float(f)) => write_float(*f, out),
        Value::String(s) => write_string(s, style.ascii, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(if style.spaced { ", " } else { "," });
                }
                write_json_styled(item, style, out);
            }
            out.push(']');
        }
        Value::Object(entries) => write_object(entries, style, out),
    }
}

/// Writes an object as JSON laid out as `style` says.
pub(crate) fn write_object(entries: &Object, style: JsonStyle, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in entries_in_order(entries, style.sorted).enumerate() {
        if i > 0 {
            out.push_str(if style.spaced { ", " } else { "," });
        }
        write_string(k, style.ascii, out);
        out.push_str(if style.spaced { ": " } else { ":" });
        write_json_styled(v, style, out);
    }
    out.push('}');
}

/// Writes a float as JSON: a whole number below 10^16 with one decimal (`2.0`), any other as
/// its shortest round-trip text.
pub(crate) fn write_float(f: f64, out: &mut String) {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        let _ = write!(out, "{f:.1}");
    } else {
        let _ = write!(out, "{f:?}");
    }
}

/// Writes `s` as a JSON string literal.
pub fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    write_json_escaped(s, out);
    out.push('"');
}

/// Writes the JSON-escaped contents of `s` (no quotes): its unescaped runs copied in one go
/// (most strings have nothing to escape), found eight bytes at a time.
pub fn write_json_escaped(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = crate::lex::json_string_stop(bytes, 0);
    while let Some(&b) = bytes.get(i) {
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        start = i + 1;
        i = crate::lex::json_string_stop(bytes, start);
    }
    out.push_str(&s[start..]);
}

/// Writes `s` as a JSON string literal; with `ascii`, every character beyond ASCII as a `\u`
/// escape in lowercase hex (a surrogate pair beyond the BMP), as Python's `json.dumps` does.
pub(crate) fn write_string(s: &str, ascii: bool, out: &mut String) {
    if !ascii {
        return write_json_string(s, out);
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json writes inside the quotes for `s`, a string of one ASCII byte among
    /// characters that are not `b` or `f`: with its `\b` and `\f` in the `\u` form beacon writes.
    fn escaped_by_serde(s: &str) -> String {
        let quoted = serde_json::to_string(s).expect("a string");
        quoted[1..quoted.len() - 1]
            .replace("\\b", "\\u0008")
            .replace("\\f", "\\u000c")
    }

    #[test]
    fn every_byte_is_escaped_wherever_it_stands_in_the_eight() {
        // Each ASCII byte at every offset of strings of 0 to 19 bytes, among plain letters and
        // among characters of two, three and four bytes (whose bytes are all 0x80 or above).
        for filler in ["a", "é", "€", "😀", "\u{7f}"] {
            for len in 0..20 {
                for at in 0..len {
                    for b in 0u8..0x80 {
                        let mut s = String::new();
                        for i in 0..len {
                            if i == at {
                                s.push(char::from(b));
                            } else {
                                s.push_str(filler);
                            }
                        }
                        let mut out = String::new();
                        write_json_escaped(&s, &mut out);
                        assert_eq!(out, escaped_by_serde(&s), "{s:?}");
                    }
                }
            }
        }
        // Two to escape in one group of eight, the second first found after the first.
        let mut out = String::new();
        write_json_escaped("ab\"c\\d\u{1}e\nfghijk\"", &mut out);
        assert_eq!(out, "ab\\\"c\\\\d\\u0001e\\nfghijk\\\"");
    }
}
