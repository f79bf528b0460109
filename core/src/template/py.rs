//! Python's spelling of values, as jinja2 writes them when it renders a chat template: `str()` for
//! `{{ value }}` and `|string`, `repr()` inside lists and dicts, `json.dumps` for `|tojson`, and
//! `strftime` for `strftime_now`. minijinja writes values its own way (`true`, `none`, JSON-like
//! lists); a template renders byte for byte as the model's tokenizer renders it only with these.

use crate::syntax::pyliteral::{float_repr, string_repr};
use minijinja::value::ValueKind;
use minijinja::{Error, ErrorKind, Value};

/// The deepest nesting `repr` and `json.dumps` write; deeper values are an error, not a stack
/// overflow (the conversation itself is at most [`crate::value::MAX_DEPTH`] deep).
const MAX_NESTING: usize = 256;

/// Python's `str(value)`: a string as it is, `None`, `True`/`False`, numbers as Python prints
/// them, containers as their `repr`; an undefined value is empty (jinja2's `Undefined`).
pub(crate) fn str_of(value: &Value, out: &mut String) -> Result<(), Error> {
    match value.kind() {
        ValueKind::Undefined => Ok(()),
        ValueKind::String => {
            out.push_str(value.as_str().unwrap_or_default());
            Ok(())
        }
        _ => repr_of(value, out, 0),
    }
}

/// Python's `repr(value)`.
fn repr_of(value: &Value, out: &mut String, depth: usize) -> Result<(), Error> {
    if depth > MAX_NESTING {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "a value nested too deep to print",
        ));
    }
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => number(value, out, false),
        ValueKind::String => string_repr(value.as_str().unwrap_or_default(), out),
        ValueKind::Map => {
            out.push('{');
            for (i, key) in value.try_iter()?.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr_of(&key, out, depth + 1)?;
                out.push_str(": ");
                repr_of(&value.get_item(&key)?, out, depth + 1)?;
            }
            out.push('}');
        }
        ValueKind::Seq | ValueKind::Iterable => {
            out.push('[');
            for (i, item) in value.try_iter()?.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                repr_of(&item, out, depth + 1)?;
            }
            out.push(']');
        }
        _ => out.push_str(&value.to_string()),
    }
    Ok(())
}

/// An integer as its digits; a float as Python's `repr` (or, for JSON, `Infinity` and `NaN`).
fn number(value: &Value, out: &mut String, json: bool) {
    if value.is_integer() {
        out.push_str(&value.to_string());
        return;
    }
    let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
    if f.is_nan() {
        out.push_str(if json { "NaN" } else { "nan" });
    } else if f.is_infinite() {
        let sign = if f < 0.0 { "-" } else { "" };
        out.push_str(sign);
        out.push_str(if json { "Infinity" } else { "inf" });
    } else {
        float_repr(f, out);
    }
}

/// Python's `str.splitlines()`: the lines of `s` without their line breaks (`\n`, `\r\n`, `\r`,
/// `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, U+2028, U+2029); a break at the very end starts no line.
pub(crate) fn splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(
            c,
            '\n' | '\r' | '\x0b' | '\x0c' | '\x1c'..='\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
        ) {
            lines.push(&s[start..i]);
            let mut end = i + c.len_utf8();
            if c == '\r' && chars.peek().is_some_and(|&(_, n)| n == '\n') {
                chars.next();
                end += 1;
            }
            start = end;
        }
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// The options of `json.dumps` that `|tojson` passes on.
pub(crate) struct JsonOptions {
    /// `indent`: `None` writes one line; otherwise the string each level is indented by.
    pub indent: Option<String>,
    pub ensure_ascii: bool,
    pub sort_keys: bool,
    /// `separators`: between items and between a key and its value.
    pub item_separator: String,
    pub key_separator: String,
}

/// Python's `json.dumps(value, …)`. A lazy sequence (`tools | map(attribute='function')`) is
/// written as a list, and an undefined value as an empty list, as the fixtures' renderer does
/// (`default=list`).
pub(crate) fn json_dumps(value: &Value, options: &JsonOptions, out: &mut String) -> Result<(), Error> {
    json_value(value, options, out, 0)
}

fn json_value(value: &Value, o: &JsonOptions, out: &mut String, depth: usize) -> Result<(), Error> {
    if depth > MAX_NESTING {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "a value nested too deep for tojson",
        ));
    }
    match value.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => number(value, out, true),
        ValueKind::String => json_string(value.as_str().unwrap_or_default(), o.ensure_ascii, out),
        ValueKind::Map => {
            let mut keys: Vec<Value> = value.try_iter()?.collect();
            if o.sort_keys {
                keys.sort_by_key(ToString::to_string);
            }
            let entries = keys
                .into_iter()
                .map(|k| {
                    let v = value.get_item(&k)?;
                    Ok((k, v))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            container(out, o, depth, '{', '}', &entries, |out, (k, v)| {
                json_key(k, o, out);
                out.push_str(&o.key_separator);
                json_value(v, o, out, depth + 1)
            })?;
        }
        ValueKind::Undefined | ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = if value.is_undefined() {
                Vec::new()
            } else {
                value.try_iter()?.collect()
            };
            container(out, o, depth, '[', ']', &items, |out, v| {
                json_value(v, o, out, depth + 1)
            })?;
        }
        _ => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("Object of type {} is not JSON serializable", value.kind()),
            ))
        }
    }
    Ok(())
}

/// A JSON object key as `json.dumps` writes it: strings quoted, other keys as their JSON text in
/// quotes (`1` → `"1"`, `true` → `"true"`).
fn json_key(key: &Value, o: &JsonOptions, out: &mut String) {
    if let Some(s) = key.as_str() {
        json_string(s, o.ensure_ascii, out);
    } else {
        let mut text = String::new();
        match key.kind() {
            ValueKind::None => text.push_str("null"),
            ValueKind::Bool => text.push_str(if key.is_true() { "true" } else { "false" }),
            ValueKind::Number => number(key, &mut text, true),
            _ => text.push_str(&key.to_string()),
        }
        json_string(&text, o.ensure_ascii, out);
    }
}

/// The items between `open` and `close`, one line each (indented a level deeper) when there is
/// an indent; an empty container stays `[]` / `{}`.
fn container<T>(
    out: &mut String,
    o: &JsonOptions,
    depth: usize,
    open: char,
    close: char,
    items: &[T],
    mut write: impl FnMut(&mut String, &T) -> Result<(), Error>,
) -> Result<(), Error> {
    out.push(open);
    if items.is_empty() {
        out.push(close);
        return Ok(());
    }
    let newline = |out: &mut String, level: usize| {
        if let Some(indent) = &o.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(indent);
            }
        }
    };
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&o.item_separator);
        }
        newline(out, depth + 1);
        write(out, item)?;
    }
    newline(out, depth);
    out.push(close);
    Ok(())
}

/// A JSON string as Python's `json` writes it: `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other
/// control characters as `\u00XX`; with `ensure_ascii` every character outside space..`~` as
/// `\uXXXX` (a surrogate pair above U+FFFF), lowercase hex.
fn json_string(s: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c < ' ' || (ensure_ascii && c > '~') => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = std::fmt::Write::write_fmt(out, format_args!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The fixed moment `strftime_now` reports, so that a render is the same on every day: Friday,
/// 2 January 2026, 00:00:00 (the fixtures' renderer uses the same).
const NOW: (i32, u32, u32) = (2026, 1, 2);

/// Python's `datetime.strftime(fmt)` at [`NOW`], for the directives chat templates use (dates,
/// names of days and months, the time of day, glibc's `%-d`); any other directive is written as
/// it stands.
pub(crate) fn strftime(fmt: &str) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let (year, month, day) = NOW;
    let weekday = "Friday";
    let month_name = MONTHS[(month - 1) as usize];
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let unpadded = chars.peek() == Some(&'-');
        if unpadded {
            chars.next();
        }
        let pad = |n: u32, width: usize| {
            if unpadded {
                n.to_string()
            } else {
                format!("{n:0width$}")
            }
        };
        match chars.next() {
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&pad(u32::try_from(year % 100).unwrap_or(0), 2)),
            Some('m') => out.push_str(&pad(month, 2)),
            Some('d') => out.push_str(&pad(day, 2)),
            Some('e') => {
                let _ = std::fmt::Write::write_fmt(&mut out, format_args!("{day:2}"));
            }
            Some('j') => out.push_str(&pad(day, 3)),
            Some('B') => out.push_str(month_name),
            Some('b' | 'h') => out.push_str(&month_name[..3]),
            Some('A') => out.push_str(weekday),
            Some('a') => out.push_str(&weekday[..3]),
            Some('H' | 'M' | 'S') => out.push_str(&pad(0, 2)),
            Some('I') => out.push_str(&pad(12, 2)),
            Some('p') => out.push_str("AM"),
            Some('%') | None => out.push('%'),
            Some(other) => {
                out.push('%');
                if unpadded {
                    out.push('-');
                }
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(f: f64) -> String {
        let mut s = String::new();
        float_repr(f, &mut s);
        s
    }

    #[test]
    fn floats_as_python_writes_them() {
        for (f, want) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (21.0, "21.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (123.456, "123.456"),
            (0.0, "0.0"),
            (1e300, "1e+300"),
        ] {
            assert_eq!(repr(f), want, "{f}");
        }
    }

    #[test]
    fn strings_as_python_quotes_them() {
        for (s, want) in [
            ("Paris", "'Paris'"),
            ("it's", "\"it's\""),
            ("it's \"x\"", "'it\\'s \"x\"'"),
            ("a\nb\\", "'a\\nb\\\\'"),
            ("\u{1}é", "'\\x01é'"),
        ] {
            let mut out = String::new();
            string_repr(s, &mut out);
            assert_eq!(out, want, "{s}");
        }
    }

    #[test]
    fn dates_at_the_fixed_moment() {
        assert_eq!(strftime("%d %b %Y"), "02 Jan 2026");
        assert_eq!(strftime("%-d %B %Y, %A"), "2 January 2026, Friday");
        assert_eq!(strftime("%Y-%m-%d %H:%M:%S %%"), "2026-01-02 00:00:00 %");
    }
}
