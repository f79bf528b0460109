//! A JSON object read where it is written inside a JSON string (an arguments string:
//! `"{\"a\": \"x\\ny\"}"`), its escapes decoded on the fly rather than the string decoded first.
//!
//! Only the escapes such a string is written with are read here: `\"` for a quote, `\n`, `\t`
//! and `\r` for whitespace between tokens, and in the strings within, `\\` followed by an
//! escape (`\\\"`, `\\\\`, `\\n`, `\\u00e9`…) and `\/`. Any other escape, and any error, is
//! `None`: the caller decodes the string and reads the text it holds, which gives the same value
//! for everything read here and reports every error. Strings within that need no decoding are
//! borrowed from the text.

use std::borrow::Cow;

use super::{decode_escape, hex4, Build, Parser};
use crate::value::MAX_DEPTH;

/// The JSON object that is the whole content of the JSON string at `at` in `src` (its `"`),
/// read in place into `build` from depth zero (whitespace around it allowed): the value and the
/// offset after the string; and the builder back. `None` when the string is not one strict JSON
/// object, or when its escapes are not all of those read here (see the module): the caller then
/// decodes the string ([`super::string_at`]) and reads what it holds
/// ([`super::build_complete_object`]), which settles it.
pub(crate) fn build_object_in_string<'a, B: Build<'a>>(
    src: &'a str,
    at: usize,
    build: B,
) -> (Option<(B::Value, usize)>, B) {
    let mut reader = Reader(Parser::with(src, at + 1, build));
    let value = reader.whole();
    (value, reader.0.build)
}

/// The parser's position, depth and builder, over escaped text.
struct Reader<'a, B>(Parser<'a, B>);

impl<'a, B: Build<'a>> Reader<'a, B> {
    fn whole(&mut self) -> Option<(B::Value, usize)> {
        self.ws();
        if self.peek() != Some(b'{') {
            return None;
        }
        let value = self.object()?;
        self.ws();
        (self.peek() == Some(b'"')).then(|| (value, self.0.pos + 1))
    }

    fn peek(&self) -> Option<u8> {
        self.0.bytes.get(self.0.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.0.bytes.get(self.0.pos + ahead).copied()
    }

    /// Skips whitespace, written as itself (a space) or escaped (`\n`, `\t`, `\r`).
    fn ws(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(b' '), _) => self.0.pos += 1,
                (Some(b'\\'), Some(b'n' | b't' | b'r')) => self.0.pos += 2,
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Option<B::Value> {
        match self.peek()? {
            b'{' => self.object(),
            b'[' => self.array(),
            b'\\' if self.peek_at(1) == Some(b'"') => {
                let s = self.string()?;
                Some(self.0.build.string(s))
            }
            b'-' | b'0'..=b'9' => self.0.number().ok(),
            b't' => self.0.keyword("true").ok().map(|()| self.0.build.bool(true)),
            b'f' => self.0.keyword("false").ok().map(|()| self.0.build.bool(false)),
            b'n' => self.0.keyword("null").ok().map(|()| self.0.build.null()),
            _ => None,
        }
    }

    fn enter(&mut self) -> Option<()> {
        self.0.depth += 1;
        (self.0.depth <= MAX_DEPTH).then_some(())
    }

    fn array(&mut self) -> Option<B::Value> {
        self.enter()?;
        self.0.pos += 1;
        self.ws();
        let mut items = self.0.build.array();
        if self.peek() != Some(b']') {
            loop {
                self.0.build.item(&mut items);
                let item = self.value()?;
                self.0.build.push(&mut items, item);
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.0.pos += 1;
                        self.ws();
                    }
                    b']' => break,
                    _ => return None,
                }
            }
        }
        self.0.pos += 1;
        self.0.depth -= 1;
        Some(self.0.build.end_array(items))
    }

    fn object(&mut self) -> Option<B::Value> {
        self.enter()?;
        self.0.pos += 1;
        self.ws();
        let mut object = self.0.build.object();
        if self.peek() != Some(b'}') {
            loop {
                if (self.peek(), self.peek_at(1)) != (Some(b'\\'), Some(b'"')) {
                    return None;
                }
                let key = self.string()?;
                self.0.build.key(&mut object, key).ok()?;
                self.ws();
                if self.peek() != Some(b':') {
                    return None;
                }
                self.0.pos += 1;
                self.ws();
                let value = self.value()?;
                self.0.build.value(&mut object, value);
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.0.pos += 1;
                        self.ws();
                    }
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        self.0.pos += 1;
        self.0.depth -= 1;
        Some(self.0.build.end_object(object))
    }

    /// The string whose opening `\"` is at the position: borrowed when nothing in it is escaped,
    /// else decoded (keys always; values when the builder decodes them).
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let bytes = self.0.bytes;
        let start = self.0.pos + 2;
        let mut i = crate::lex::json_string_stop(bytes, start);
        if (bytes.get(i), bytes.get(i + 1)) == (Some(&b'\\'), Some(&b'"')) {
            self.0.pos = i + 2;
            return Some(Cow::Borrowed(&self.0.src[start..i]));
        }
        let mut out = String::with_capacity(i - start + 16);
        let mut run = start;
        loop {
            match *bytes.get(i)? {
                b'\\' => {
                    out.push_str(&self.0.src[run..i]);
                    match *bytes.get(i + 1)? {
                        b'"' => {
                            self.0.pos = i + 2;
                            return Some(Cow::Owned(out));
                        }
                        b'/' => {
                            out.push('/');
                            i += 2;
                        }
                        // An escape of the string within, escaped: `\\` and what follows.
                        b'\\' => match *bytes.get(i + 2)? {
                            // `\\\"` and `\\\\`: a quote and a backslash.
                            b'\\' => {
                                let c = *bytes.get(i + 3)?;
                                if c != b'"' && c != b'\\' {
                                    return None;
                                }
                                out.push(char::from(c));
                                i += 4;
                            }
                            // `\\u` and four hex digits as written; a surrogate (half of a pair) is
                            // left to the decoding reader.
                            b'u' => {
                                let c = hex4(bytes, i + 3).and_then(char::from_u32)?;
                                out.push(c);
                                i += 7;
                            }
                            b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                                let (c, next) = decode_escape(bytes, i + 1).ok()?;
                                out.push(c);
                                i = next;
                            }
                            _ => return None,
                        },
                        _ => return None,
                    }
                    run = i;
                }
                // The string ends, or holds a control character: not JSON.
                b'"' | 0..=0x1f => return None,
                _ => i = crate::lex::json_string_stop(bytes, i),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::build_object_in_string;
    use crate::syntax::json::{parse_complete, Tree};
    use crate::value::Value;

    /// `text` as a JSON string literal, as JSON encoders write it (with `ascii`, every
    /// non-ASCII character as a `\u` escape, as Python's `json.dumps` does by default).
    fn encode(text: &str, ascii: bool) -> String {
        let mut out = String::new();
        crate::value::write_string(text, ascii, &mut out);
        out
    }

    fn in_place(literal: &str) -> Option<(Value, usize)> {
        build_object_in_string(literal, 0, Tree).0
    }

    /// What is read in place is what decoding the string and reading its text gives.
    #[test]
    fn reads_what_decoding_first_reads() {
        for inner in [
            r#"{"location": "San Francisco, CA", "days": 3, "include": ["hourly", "alerts"], "options": {"round": true, "threshold": 0.75, "x": null, "y": false}}"#,
            "{}",
            " \n\t{ \"a\" : [ ] , \"b\" : { } }\r\n ",
            r#"{"q": "a \"quoted\" word, a \\ backslash, a / slash and \/ that", "n": -0.5e-3}"#,
            r#"{"code": "line 1\nline 2\ttab\r\b\f", "é": "naïve 日本 😀"}"#,
            r#"{"u": "caf\u00e9 \u0041\u0000", "deep": [[[{"a": [1, [2, [3]]]}]]]}"#,
            r#"{"big": 123456789012345678901234567890, "e": 1E+2}"#,
        ] {
            let expected = parse_complete(inner).unwrap();
            let literal = encode(inner, false);
            assert_eq!(in_place(&literal), Some((expected, literal.len())), "{literal}");
        }
    }

    /// Escapes that are not read here, and strings that do not hold one strict JSON object, are
    /// left to the decoding reader.
    #[test]
    fn leaves_the_rest_to_the_decoding_reader() {
        // Written with a `\u` escape for every non-ASCII character, as `json.dumps` does by default:
        // the strings within are read in place, an escape outside them is left.
        let inner = r#"{"a": "é 😀", "b": 1}"#;
        let ascii = encode(inner, true);
        assert_eq!(ascii, r#""{\"a\": \"\u00e9 \ud83d\ude00\", \"b\": 1}""#);
        assert_eq!(in_place(&ascii), None);
        for literal in [
            r#""{\"a\": \"\\u00e9\"}""#,
            r#""{\u0022a\u0022: 1}""#,
            r#""{\"a\": \"x\ny\"}""#,
            r#""{\"a\": \"\\ud83d\ude00\"}""#,
            r#""{\"a\": \"\\ud83d\\ude00\"}""#,
            r#""{\"a\": 1, \"a\": 2}""#,
            r#""{\"a\": 1,}""#,
            r#""{\"a\": 01}""#,
            r#""{\"a\": 1e999}""#,
            r#""[1]""#,
            r#""{} {}""#,
            r#""{\"a\": 1}"#,
            "\"{\\\"a\\\": \"x\"}\"",
            "\"{\\\"a\\\": \\\"\t\\\"}\"",
        ] {
            let read = in_place(literal);
            let decoded = crate::syntax::json::string_at(literal, 0)
                .and_then(|(text, end)| Some((parse_complete(&text).ok()?, end)))
                .filter(|(v, _)| matches!(v, Value::Object(_)));
            match read {
                None => {}
                Some(read) => assert_eq!(Some(read), decoded, "{literal}"),
            }
        }
        assert_eq!(
            in_place(r#""{\"a\": \"\\u00e9\"}""#).map(|(v, _)| v),
            parse_complete(r#"{"a": "é"}"#).ok()
        );
        let deep = format!("\"{}{}\"", "[".repeat(200), "]".repeat(200));
        assert_eq!(
            in_place(&format!("\"{{\\\"a\\\": {}}}\"", &deep[1..deep.len() - 1])),
            None
        );
    }
}
