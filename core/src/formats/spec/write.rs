//! Calls written in a spec's format ([`FormatSpec::write`]): the reverse of reading. Every
//! marker is put down as the spec holds it, white space included, so that a spec inferred from
//! a chat template writes calls as the template renders them.
//!
//! Rules:
//! - The section's start, then each call (`separator` between two), then the section's end.
//! - A call is its start marker, the id where the format writes one before the name, the body
//!   its kind gives, and its end marker. A call with an empty name, or without an id where the
//!   format writes ids, is `result.missing_field`: an id is never invented.
//! - JSON is laid out as `json` says, and keys are sorted when `sorted_keys` says so (the
//!   arguments' keys, at every depth; a call object keeps the name before the arguments).
//! - `tag_per_argument` writes a string value as its text and other values as `values` says
//!   (JSON, or Python's `str()`); `call_syntax` writes keyword arguments, a string as Python's
//!   `repr()` where its scalars are Python (as JSON otherwise); `object_literal` writes strings
//!   between the delimiters and other values bare.
//! - Text is written as it is: a value holding the format's own markers is written so too.

use super::{ArgumentsEncoding, CallKind, FormatSpec, IdPosition, JsonLayout, ValueStyle};
use crate::error::{ErrorCode, ParseError};
use crate::lex::quote;
use crate::syntax::pyliteral;
use crate::value::{entries_in_order, write_json_string, write_json_styled, write_object, JsonStyle, Object, Value};

/// One call to write: its name, its arguments and its id (if any).
pub type CallToWrite<'a> = (&'a str, &'a Object, Option<&'a str>);

impl FormatSpec {
    /// `calls` as the format writes them (see the module's documentation).
    pub fn write<'a>(&self, calls: impl IntoIterator<Item = CallToWrite<'a>>) -> Result<String, ParseError> {
        let mut out = self.section_start.clone();
        for (i, (name, arguments, id)) in calls.into_iter().enumerate() {
            if name.is_empty() {
                return Err(missing(format!("call {i} has no name")));
            }
            let id = match (self.id, id.filter(|id| !id.is_empty())) {
                (IdPosition::None, _) => None,
                (_, Some(id)) => Some(id),
                (_, None) => {
                    return Err(missing(format!(
                        "call {i} ({}) has no id; this format writes each call's id",
                        quote(name)
                    )))
                }
            };
            if i > 0 {
                out.push_str(&self.separator);
            }
            out.push_str(&self.call_start);
            if let (IdPosition::BeforeName, Some(id)) = (self.id, id) {
                out.push_str(id);
                out.push_str(&self.id_suffix);
            }
            self.body(name, arguments, id, &mut out);
            out.push_str(&self.call_end);
        }
        out.push_str(&self.section_end);
        Ok(out)
    }

    fn style(&self) -> JsonStyle {
        JsonStyle {
            spaced: self.json == JsonLayout::Spaced,
            sorted: self.sorted_keys,
            ascii: self.ascii,
        }
    }

    /// What stands between a call's markers.
    fn body(&self, name: &str, arguments: &Object, id: Option<&str>, out: &mut String) {
        let style = self.style();
        let (item, key_sep) = if style.spaced { (", ", ": ") } else { (",", ":") };
        let arguments_json = |out: &mut String| write_object(arguments, style, out);
        match self.kind {
            CallKind::JsonObject => {
                out.push('{');
                write_json_string(&self.name_key, out);
                out.push_str(key_sep);
                write_json_string(name, out);
                out.push_str(item);
                write_json_string(&self.arguments_key, out);
                out.push_str(key_sep);
                match self.arguments {
                    ArgumentsEncoding::Object => arguments_json(out),
                    ArgumentsEncoding::String => {
                        let mut text = String::new();
                        arguments_json(&mut text);
                        write_json_string(&text, out);
                    }
                }
                out.push('}');
            }
            CallKind::NameKeyedObject => {
                out.push('{');
                write_json_string(name, out);
                out.push_str(key_sep);
                arguments_json(out);
                out.push('}');
            }
            CallKind::TagJson => {
                self.name_and_id(name, id, out);
                arguments_json(out);
            }
            CallKind::TagPerArgument => {
                self.name_and_id(name, id, out);
                for (key, value) in entries_in_order(arguments, self.sorted_keys) {
                    out.push_str(&self.key_open);
                    out.push_str(key);
                    match value {
                        Value::String(text) => {
                            out.push_str(&self.key_close);
                            out.push_str(text);
                        }
                        other => {
                            let close = if self.key_close_non_string.is_empty() {
                                &self.key_close
                            } else {
                                &self.key_close_non_string
                            };
                            out.push_str(close);
                            self.value(other, out);
                        }
                    }
                    out.push_str(&self.value_close);
                }
            }
            CallKind::CallSyntax => {
                out.push_str(name);
                out.push('(');
                for (i, (key, value)) in entries_in_order(arguments, self.sorted_keys).enumerate() {
                    if i > 0 {
                        out.push_str(item);
                    }
                    out.push_str(key);
                    out.push('=');
                    match value {
                        Value::String(text) if self.scalars == ValueStyle::Python => pyliteral::string_repr(text, out),
                        other => self.value(other, out),
                    }
                }
                out.push(')');
            }
            CallKind::ObjectLiteral => {
                out.push_str(name);
                self.literal_object(arguments, out);
            }
        }
    }

    /// The name, the name's suffix, and the id where the format writes it after the name.
    fn name_and_id(&self, name: &str, id: Option<&str>, out: &mut String) {
        out.push_str(name);
        out.push_str(&self.name_suffix);
        if let (IdPosition::AfterName, Some(id)) = (self.id, id) {
            out.push_str(id);
            out.push_str(&self.id_suffix);
        }
    }

    /// A value that is not a string, as `values` says.
    fn value(&self, value: &Value, out: &mut String) {
        let style = match value {
            Value::Array(_) | Value::Object(_) => self.containers,
            _ => self.scalars,
        };
        match style {
            ValueStyle::Json => write_json_styled(value, self.style(), out),
            ValueStyle::Python => pyliteral::write(value, self.sorted_keys, out),
        }
    }

    /// `value` as an object literal: bare keys, strings between the delimiters.
    fn literal(&self, value: &Value, out: &mut String) {
        let item = if self.json == JsonLayout::Spaced { ", " } else { "," };
        match value {
            Value::String(text) => {
                out.push_str(&self.string_delimiter);
                out.push_str(text);
                out.push_str(&self.string_delimiter);
            }
            Value::Array(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(item);
                    }
                    self.literal(v, out);
                }
                out.push(']');
            }
            Value::Object(entries) => self.literal_object(entries, out),
            scalar => write_json_styled(scalar, JsonStyle::default(), out),
        }
    }

    fn literal_object(&self, entries: &Object, out: &mut String) {
        let item = if self.json == JsonLayout::Spaced { ", " } else { "," };
        out.push('{');
        for (i, (k, v)) in entries_in_order(entries, self.sorted_keys).enumerate() {
            if i > 0 {
                out.push_str(item);
            }
            out.push_str(k);
            out.push(':');
            self.literal(v, out);
        }
        out.push('}');
    }
}

fn missing(message: String) -> ParseError {
    ParseError::new(ErrorCode::ResultMissingField, 0, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Number;

    fn args(entries: Vec<(&str, Value)>) -> Object {
        entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }

    #[test]
    fn markers_are_written_as_they_are() {
        let spec = FormatSpec {
            call_start: "<tool_call>\n".into(),
            call_end: "\n</tool_call>".into(),
            separator: "\n".into(),
            name_key: "name".into(),
            arguments_key: "arguments".into(),
            ..FormatSpec::default()
        };
        let a = args(vec![
            ("city", Value::String("Paris".into())),
            ("n", Value::Number(Number::Int(2))),
        ]);
        let written = spec.write([("f", &a, None), ("g", &Object::new(), None)]).unwrap();
        assert_eq!(
            written,
            "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"city\": \"Paris\", \"n\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>"
        );
    }

    #[test]
    fn each_kind_writes_its_body() {
        let a = args(vec![
            ("q", Value::String("it's".into())),
            ("on", Value::Bool(true)),
            ("tags", Value::Array(vec![Value::String("a".into()), Value::Null])),
        ]);
        let tagged = FormatSpec {
            kind: CallKind::TagPerArgument,
            call_start: "<function=".into(),
            call_end: "</function>".into(),
            name_suffix: ">\n".into(),
            key_open: "<parameter=".into(),
            key_close: ">".into(),
            value_close: "</parameter>\n".into(),
            scalars: ValueStyle::Python,
            ..FormatSpec::default()
        };
        assert_eq!(
            tagged.write([("f", &a, None)]).unwrap(),
            "<function=f>\n<parameter=q>it's</parameter>\n<parameter=on>True</parameter>\n<parameter=tags>[\"a\", null]</parameter>\n</function>"
        );
        let call_syntax = FormatSpec {
            kind: CallKind::CallSyntax,
            section_start: "[".into(),
            section_end: "]".into(),
            separator: ", ".into(),
            scalars: ValueStyle::Python,
            json: JsonLayout::Compact,
            ..FormatSpec::default()
        };
        assert_eq!(
            call_syntax
                .write([("f", &a, None), ("g", &Object::new(), None)])
                .unwrap(),
            "[f(q=\"it's\",on=True,tags=[\"a\",null]), g()]"
        );
        let literal = FormatSpec {
            kind: CallKind::ObjectLiteral,
            call_start: "<|tool_call>call:".into(),
            call_end: "<tool_call|>".into(),
            string_delimiter: "<|\"|>".into(),
            json: JsonLayout::Compact,
            sorted_keys: true,
            ..FormatSpec::default()
        };
        assert_eq!(
            literal.write([("f", &a, None)]).unwrap(),
            "<|tool_call>call:f{on:true,q:<|\"|>it's<|\"|>,tags:[<|\"|>a<|\"|>,null]}<tool_call|>"
        );
    }

    #[test]
    fn ids_are_written_and_never_invented() {
        let spec = FormatSpec {
            kind: CallKind::TagJson,
            call_start: "[TOOL_CALLS]".into(),
            name_suffix: "[CALL_ID]".into(),
            id: IdPosition::AfterName,
            id_suffix: "[ARGS]".into(),
            json: JsonLayout::Compact,
            ..FormatSpec::default()
        };
        let a = args(vec![("x", Value::Number(Number::Int(1)))]);
        assert_eq!(
            spec.write([("f", &a, Some("abc123XYZ"))]).unwrap(),
            "[TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{\"x\":1}"
        );
        let e = spec.write([("f", &a, None)]).unwrap_err();
        assert_eq!(e.code, ErrorCode::ResultMissingField);
        assert!(e.message.contains("no id"), "{}", e.message);
        assert_eq!(
            spec.write([("", &a, Some("i"))]).unwrap_err().code,
            ErrorCode::ResultMissingField
        );
    }
}
