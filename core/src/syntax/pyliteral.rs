//! Python literals as Python's `repr()` writes them: what a chat template prints for a value
//! (`str()` of a list or dict, of `True`, `None`), and what a spec that writes call syntax or
//! Python-style values writes back.

use crate::value::{Number, Value};

/// `value` as Python's `repr()` of the matching Python value: `None`, `True`/`False`, integers
/// as their digits, floats as [`float_repr`], strings as [`string_repr`], lists and dicts with
/// `", "` and `": "` (keys sorted when `sorted`).
pub(crate) fn write(value: &Value, sorted: bool, out: &mut String) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Number(Number::Int(i)) => out.push_str(&i.to_string()),
        Value::Number(Number::BigInt(digits)) => out.push_str(digits),
        Value::Number(Number::Float(f)) => float_repr(*f, out),
        Value::String(s) => string_repr(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(item, sorted, out);
            }
            out.push(']');
        }
        Value::Object(entries) => {
            out.push('{');
            for (i, (k, v)) in crate::value::entries_in_order(entries, sorted).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                string_repr(k, out);
                out.push_str(": ");
                write(v, sorted, out);
            }
            out.push('}');
        }
    }
}

/// Python's `repr(float)`: the shortest digits that read back, in positional notation when the
/// decimal exponent is in `-4..16` (with at least one digit after the point), else as
/// `d.ddde±XX`.
pub(crate) fn float_repr(f: f64, out: &mut String) {
    // `{:e}` gives the shortest round-trip digits: `-1.5e-5`, `2e16`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    out.push_str(sign);
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = usize::try_from(exp).unwrap_or(0) + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', usize::try_from(-exp - 1).unwrap_or(0)));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = std::fmt::Write::write_fmt(out, format_args!("{:02}", exp.unsigned_abs()));
    }
}

/// Python's `repr(str)`: single quotes unless the string holds a single quote and no double
/// one; backslash escapes for the quote, the backslash, `\t`, `\n`, `\r` and characters Python
/// does not print (control and format characters, separators other than the space).
pub(crate) fn string_repr(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let n = u32::from(c);
                let _ = if n < 0x100 {
                    std::fmt::Write::write_fmt(out, format_args!("\\x{n:02x}"))
                } else if n < 0x10000 {
                    std::fmt::Write::write_fmt(out, format_args!("\\u{n:04x}"))
                } else {
                    std::fmt::Write::write_fmt(out, format_args!("\\U{n:08x}"))
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Whether Python's `str.isprintable` holds for `c`, for the characters a conversation holds:
/// control characters, the no-break and other non-space separators, and the common format
/// characters (zero-width marks, the byte-order mark) are not.
fn printable(c: char) -> bool {
    !matches!(c,
        '\0'..='\x1f' | '\x7f'..='\u{a0}' | '\u{ad}' | '\u{1680}' | '\u{2000}'..='\u{200f}'
        | '\u{2028}'..='\u{202f}' | '\u{205f}'..='\u{2064}' | '\u{3000}' | '\u{feff}'
        | '\u{e000}'..='\u{f8ff}')
}
