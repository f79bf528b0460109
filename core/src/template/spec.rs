//! `FormatSpec`: a tool-call format as data. This first form covers the formats that write each
//! call as one JSON object holding the name and the arguments (`{"name": …, "arguments": …}`),
//! wrapped in per-call markers, in a section, or in both (Hermes and Qwen2.5's
//! `<tool_call>…</tool_call>`, Mistral's `[TOOL_CALLS][…, …]`, Llama 3's bare JSON).

use crate::value::Value;

/// How a call object holds its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentsEncoding {
    /// A JSON object: `"arguments": {"city": "Paris"}`.
    Object,
    /// A JSON string holding the object's JSON text: `"arguments": "{\"city\": \"Paris\"}"`.
    String,
}

impl ArgumentsEncoding {
    /// The encoding's id in [`FormatSpec::describe`].
    pub const fn as_str(self) -> &'static str {
        match self {
            ArgumentsEncoding::Object => "json_object",
            ArgumentsEncoding::String => "json_string",
        }
    }
}

/// A tool-call format whose calls are JSON objects: `section_start`, then the calls, each as
/// `call_start` + the object + `call_end`, with `separator` between two calls, then
/// `section_end`. Markers are stored without the white space around them (white space between
/// markers and objects is free); an empty marker is no marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatSpec {
    pub section_start: String,
    pub section_end: String,
    pub call_start: String,
    pub call_end: String,
    /// Between two calls, besides their own markers (`,` in a JSON list; empty when calls only
    /// follow each other).
    pub separator: String,
    /// The key of the call object that holds the tool's name.
    pub name_key: String,
    /// The key of the call object that holds the arguments.
    pub arguments_key: String,
    pub arguments: ArgumentsEncoding,
}

impl FormatSpec {
    /// The spec as a JSON-ready object:
    /// `{"call": "json_object", "section": {"start", "end"}, "call_markers": {"start", "end"},
    /// "separator", "name_key", "arguments_key", "arguments": "json_object" | "json_string"}`.
    pub fn describe(&self) -> Value {
        let s = |text: &str| Value::String(text.to_owned());
        let pair = |start: &str, end: &str| Value::Object(vec![("start".into(), s(start)), ("end".into(), s(end))]);
        Value::Object(vec![
            ("call".into(), s("json_object")),
            ("section".into(), pair(&self.section_start, &self.section_end)),
            ("call_markers".into(), pair(&self.call_start, &self.call_end)),
            ("separator".into(), s(&self.separator)),
            ("name_key".into(), s(&self.name_key)),
            ("arguments_key".into(), s(&self.arguments_key)),
            ("arguments".into(), s(self.arguments.as_str())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_is_plain_data() {
        let spec = FormatSpec {
            section_start: String::new(),
            section_end: String::new(),
            call_start: "<c>".into(),
            call_end: "</c>".into(),
            separator: String::new(),
            name_key: "name".into(),
            arguments_key: "arguments".into(),
            arguments: ArgumentsEncoding::Object,
        };
        assert_eq!(
            spec.describe().to_json(),
            r#"{"call":"json_object","section":{"start":"","end":""},"call_markers":{"start":"<c>","end":"</c>"},"separator":"","name_key":"name","arguments_key":"arguments","arguments":"json_object"}"#
        );
    }
}
