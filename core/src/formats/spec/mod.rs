//! `FormatSpec`: a tool-call format as data. A format writes its calls in a section
//! (`section_start` … `section_end`), each call between `call_start` and `call_end`, with
//! `separator` between two calls. What stands between a call's markers is one of four shapes
//! ([`CallKind`]):
//!
//! - **`json_object`**: one JSON object holding the name under `name_key` and the arguments
//!   under `arguments_key` (Hermes and Qwen2.5's `<tool_call>{"name": …, "arguments": …}`,
//!   Mistral's `[TOOL_CALLS][…]`, Llama 3's bare object);
//! - **`name_keyed_object`**: one JSON object whose only key is the name and whose value is the
//!   arguments (`{"get_weather": {"city": "Paris"}}`);
//! - **`tag_json`**: the name as text right after `call_start`, then `name_suffix`, then the
//!   arguments as a JSON object (`<function=NAME>{…}</function>`, `[TOOL_CALLS]NAME[ARGS]{…}`);
//! - **`call_syntax`**: a Python call, `NAME(key=value, …)` with Python literals (LFM2's
//!   `[get_weather(city='Paris')]`);
//! - **`object_literal`**: the name, then Gemma's object literal, `NAME{key:DELIM text DELIM,
//!   n:3}` with strings between `string_delimiter`s;
//! - **`tag_per_argument`**: the name, `name_suffix`, then each argument as `key_open` + key +
//!   `key_close` + value + `value_close`; a string value is its text, and other values are written
//!   as `values` says (JSON, or Python's `str()`), so that a value's text is typed by the tool's
//!   schema. A diff cannot tell where a key's closing ends and a value's opening begins (they
//!   always stand together), so `key_close` is all the text between a key and its value.
//!
//! A spec may also hold the tags around the model's reasoning (`reasoning_start`,
//! `reasoning_end`, and whether the generation prompt opens the block): they are read as one more
//! kind of reasoning block (`crate::text::reasoning`).
//!
//! Markers are stored as the format writes them, white space included. Reading ignores the
//! white space around a marker (white space between markers is free, and a marker of white space
//! only is no marker), except at a tagged value: a line break the template writes between the
//! key's close and the value, or between the value and its close, is the template's and is left
//! out of the value; any other white space there is the value's own. Writing ([`FormatSpec::write`]) puts every marker down as it is, with the
//! JSON layout `json` and `sorted_keys` say, so that calls come out as the template renders them.

mod compile;
mod read;
mod write;

pub use write::CallToWrite;

pub(crate) use compile::family;
pub(crate) use read::read;

use crate::error::{ErrorCode, ParseError};
use crate::value::Value;

/// How a call object holds its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ArgumentsEncoding {
    /// A JSON object: `"arguments": {"city": "Paris"}`.
    #[default]
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

    fn parse(id: &str) -> Option<Self> {
        [ArgumentsEncoding::Object, ArgumentsEncoding::String]
            .into_iter()
            .find(|e| e.as_str() == id)
    }
}

/// What stands between a call's markers (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CallKind {
    #[default]
    JsonObject,
    NameKeyedObject,
    TagJson,
    TagPerArgument,
    CallSyntax,
    ObjectLiteral,
}

impl CallKind {
    /// The kind's id in [`FormatSpec::describe`].
    pub const fn as_str(self) -> &'static str {
        match self {
            CallKind::JsonObject => "json_object",
            CallKind::NameKeyedObject => "name_keyed_object",
            CallKind::TagJson => "tag_json",
            CallKind::TagPerArgument => "tag_per_argument",
            CallKind::CallSyntax => "call_syntax",
            CallKind::ObjectLiteral => "object_literal",
        }
    }

    fn parse(id: &str) -> Option<Self> {
        [
            CallKind::JsonObject,
            CallKind::NameKeyedObject,
            CallKind::TagJson,
            CallKind::TagPerArgument,
            CallKind::CallSyntax,
            CallKind::ObjectLiteral,
        ]
        .into_iter()
        .find(|k| k.as_str() == id)
    }
}

/// How a `tag_per_argument` format writes a value that is not a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ValueStyle {
    /// As JSON: `true`, `["a", 1]`.
    #[default]
    Json,
    /// As Python's `str()`: `True`, `['a', 1]`.
    Python,
}

impl ValueStyle {
    /// The style's id in [`FormatSpec::describe`].
    pub const fn as_str(self) -> &'static str {
        match self {
            ValueStyle::Json => "json",
            ValueStyle::Python => "python",
        }
    }

    fn parse(id: &str) -> Option<Self> {
        [ValueStyle::Json, ValueStyle::Python]
            .into_iter()
            .find(|s| s.as_str() == id)
    }
}

/// How a format lays out the JSON it writes (arguments, values): with `", "` between items and
/// `": "` after a key, as Python's `json.dumps` and so most templates' `tojson` do, or with
/// neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JsonLayout {
    #[default]
    Spaced,
    Compact,
}

impl JsonLayout {
    /// The layout's id in [`FormatSpec::describe`].
    pub const fn as_str(self) -> &'static str {
        match self {
            JsonLayout::Spaced => "spaced",
            JsonLayout::Compact => "compact",
        }
    }

    fn parse(id: &str) -> Option<Self> {
        [JsonLayout::Spaced, JsonLayout::Compact]
            .into_iter()
            .find(|l| l.as_str() == id)
    }
}

/// Where a tag format writes each call's id (Solar-Open's `<|tool_call:begin|>ID<|tool_call:name|>`,
/// Mistral's `NAME[CALL_ID]ID[ARGS]`): nowhere, right after `call_start` (before the name), or
/// right after `name_suffix`; the id then runs to `id_suffix`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IdPosition {
    #[default]
    None,
    BeforeName,
    AfterName,
}

impl IdPosition {
    /// The position's id in [`FormatSpec::describe`].
    pub const fn as_str(self) -> &'static str {
        match self {
            IdPosition::None => "none",
            IdPosition::BeforeName => "before_name",
            IdPosition::AfterName => "after_name",
        }
    }

    fn parse(id: &str) -> Option<Self> {
        [IdPosition::None, IdPosition::BeforeName, IdPosition::AfterName]
            .into_iter()
            .find(|p| p.as_str() == id)
    }
}

/// A tool-call format (see the module's documentation). Fields that a kind does not use are
/// empty (or their default).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FormatSpec {
    pub kind: CallKind,
    pub section_start: String,
    pub section_end: String,
    pub call_start: String,
    pub call_end: String,
    /// Between two calls, besides their own markers (`,` in a JSON list; empty when calls only
    /// follow each other).
    pub separator: String,
    /// `json_object`: the key of the call object that holds the tool's name.
    pub name_key: String,
    /// `json_object`: the key of the call object that holds the arguments.
    pub arguments_key: String,
    /// `json_object`: how the arguments are held.
    pub arguments: ArgumentsEncoding,
    /// `tag_json`, `tag_per_argument`: between the name and the arguments.
    pub name_suffix: String,
    /// `tag_per_argument`: before each key.
    pub key_open: String,
    /// `tag_per_argument`: between a key and a string value.
    pub key_close: String,
    /// `tag_per_argument`: between a key and a value that is not a string, where the format
    /// writes it otherwise (DeepSeek's `string="false"`); empty when it is `key_close`.
    pub key_close_non_string: String,
    /// `tag_per_argument`: after each value.
    pub value_close: String,
    /// `tag_per_argument`, `call_syntax`: how booleans, numbers and null are written.
    pub scalars: ValueStyle,
    /// `tag_per_argument`, `call_syntax`: how lists and objects are written.
    pub containers: ValueStyle,
    /// `tag_json`, `tag_per_argument`: where each call's id is written.
    pub id: IdPosition,
    /// After the id, when there is one.
    pub id_suffix: String,
    /// `object_literal`: what stands before and after a string (Gemma 4's `<|"|>`).
    pub string_delimiter: String,
    /// Writing: how the JSON (and object literals) of the calls are laid out.
    pub json: JsonLayout,
    /// Writing: whether the keys of arguments are written sorted (Gemma 4's template sorts
    /// them) rather than in their order.
    pub sorted_keys: bool,
    /// Writing: whether JSON escapes every character beyond ASCII (`\u00e9`), as a template that
    /// calls `tojson(ensure_ascii=True)` writes it (Reka's).
    pub ascii: bool,
    /// The tags around the model's reasoning, as the template writes them (empty when it writes
    /// none): read as a reasoning block besides the built-in kinds.
    pub reasoning_start: String,
    pub reasoning_end: String,
    /// Whether the generation prompt opens the reasoning block (the model writes its reasoning,
    /// then only the close tag).
    pub reasoning_prompt_opened: bool,
    /// The token that ends the model's turn, as the template writes it (empty when it writes
    /// none): content leaves it out, as it does the built-in end-of-turn tokens.
    pub end_of_turn: String,
    /// The tags the template writes around a turn's content (empty when none; the close tag may
    /// be empty alone): content leaves them out where they wrap it.
    pub content_start: String,
    pub content_end: String,
    /// Reading (set by [`FormatSpec::trimmed`]): the line breaks around a tagged value that the
    /// markers, as the format writes them, put there.
    pub(crate) value_breaks: ValueBreaks,
}

/// The line breaks a `tag_per_argument` format writes around a value: after `key_close`, after
/// `key_close_non_string`, and before `value_close`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct ValueBreaks {
    pub after_key: bool,
    pub after_non_string_key: bool,
    pub before_close: bool,
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

fn pair(start: &str, end: &str) -> Value {
    Value::Object(vec![("start".into(), s(start)), ("end".into(), s(end))])
}

impl FormatSpec {
    /// The spec as it reads: every marker without the white space around it.
    #[must_use]
    pub fn trimmed(&self) -> FormatSpec {
        let mut spec = self.clone();
        let ends_in_break = |m: &str| m.trim_end_matches([' ', '\t']).ends_with('\n');
        spec.value_breaks = ValueBreaks {
            after_key: ends_in_break(&self.key_close),
            after_non_string_key: ends_in_break(&self.key_close_non_string),
            before_close: self
                .value_close
                .trim_start_matches([' ', '\t'])
                .starts_with(['\n', '\r']),
        };
        for marker in [
            &mut spec.section_start,
            &mut spec.section_end,
            &mut spec.call_start,
            &mut spec.call_end,
            &mut spec.separator,
            &mut spec.name_suffix,
            &mut spec.key_open,
            &mut spec.key_close,
            &mut spec.key_close_non_string,
            &mut spec.value_close,
            &mut spec.id_suffix,
            &mut spec.string_delimiter,
            &mut spec.reasoning_start,
            &mut spec.reasoning_end,
            &mut spec.end_of_turn,
            &mut spec.content_start,
            &mut spec.content_end,
        ] {
            if marker.trim().len() != marker.len() {
                *marker = marker.trim().to_owned();
            }
        }
        spec
    }

    /// Whether the spec writes bare JSON call objects, with no marker, that the `json` format
    /// (tier 2) reads as they are.
    pub(crate) fn reads_as_json(&self) -> bool {
        self.kind == CallKind::JsonObject
            && [&self.section_start, &self.section_end, &self.call_start, &self.call_end]
                .iter()
                .all(|m| m.trim().is_empty())
            && self.name_key == "name"
            && ["arguments", "parameters"].contains(&self.arguments_key.as_str())
    }

    /// The spec as a JSON-ready object: `{"call": kind, "section": {"start", "end"},
    /// "call_markers": {"start", "end"}, "separator"}` and the kind's own fields:
    /// `json_object`: `"name_key", "arguments_key", "arguments": "json_object" | "json_string"`;
    /// `tag_json`: `"name_suffix"`; `tag_per_argument`: `"name_suffix", "key": {"start", "end",
    /// "end_non_string"}, "value_close", "values": {"scalars", "containers"}` ("json" |
    /// "python"; `call_syntax` has `"values"` too). A tag format that writes ids also has `"id":
    /// {"position": "before_name" | "after_name", "suffix"}`. A template that writes the model's
    /// reasoning gives `"reasoning": {"start", "end", "prompt_opened"}`, one that ends the turn
    /// with a token `"end_of_turn"`, one that wraps content `"content": {"start", "end"}`. Every
    /// spec has `"write":
    /// {"json": "spaced" | "compact", "sorted_keys", "ascii"}`, how its calls are written.
    pub fn describe(&self) -> Value {
        let mut out = vec![
            ("call".to_owned(), s(self.kind.as_str())),
            ("section".into(), pair(&self.section_start, &self.section_end)),
            ("call_markers".into(), pair(&self.call_start, &self.call_end)),
            ("separator".into(), s(&self.separator)),
        ];
        match self.kind {
            CallKind::JsonObject => {
                out.push(("name_key".into(), s(&self.name_key)));
                out.push(("arguments_key".into(), s(&self.arguments_key)));
                out.push(("arguments".into(), s(self.arguments.as_str())));
            }
            CallKind::NameKeyedObject => {}
            CallKind::CallSyntax => out.push(("values".into(), self.values())),
            CallKind::ObjectLiteral => out.push(("string_delimiter".into(), s(&self.string_delimiter))),
            CallKind::TagJson => out.push(("name_suffix".into(), s(&self.name_suffix))),
            CallKind::TagPerArgument => {
                out.push(("name_suffix".into(), s(&self.name_suffix)));
                out.push((
                    "key".into(),
                    Value::Object(vec![
                        ("start".into(), s(&self.key_open)),
                        ("end".into(), s(&self.key_close)),
                        ("end_non_string".into(), s(&self.key_close_non_string)),
                    ]),
                ));
                out.push(("value_close".into(), s(&self.value_close)));
                out.push(("values".into(), self.values()));
            }
        }
        if self.id != IdPosition::None {
            out.push((
                "id".into(),
                Value::Object(vec![
                    ("position".into(), s(self.id.as_str())),
                    ("suffix".into(), s(&self.id_suffix)),
                ]),
            ));
        }
        if !self.reasoning_start.is_empty() {
            out.push((
                "reasoning".into(),
                Value::Object(vec![
                    ("start".into(), s(&self.reasoning_start)),
                    ("end".into(), s(&self.reasoning_end)),
                    ("prompt_opened".into(), Value::Bool(self.reasoning_prompt_opened)),
                ]),
            ));
        }
        if !self.end_of_turn.is_empty() {
            out.push(("end_of_turn".into(), s(&self.end_of_turn)));
        }
        if !self.content_start.is_empty() {
            out.push(("content".into(), pair(&self.content_start, &self.content_end)));
        }
        out.push((
            "write".into(),
            Value::Object(vec![
                ("json".into(), s(self.json.as_str())),
                ("sorted_keys".into(), Value::Bool(self.sorted_keys)),
                ("ascii".into(), Value::Bool(self.ascii)),
            ]),
        ));
        Value::Object(out)
    }

    fn values(&self) -> Value {
        Value::Object(vec![
            ("scalars".into(), s(self.scalars.as_str())),
            ("containers".into(), s(self.containers.as_str())),
        ])
    }

    /// The fields of `value` about the rest of the turn (`reasoning`, `end_of_turn`, `content`).
    fn read_turn(&mut self, value: &Value) -> Result<(), ParseError> {
        if let Some(reasoning) = value.get("reasoning") {
            self.reasoning_start = field_text(reasoning, "reasoning.", "start")?;
            self.reasoning_end = field_text(reasoning, "reasoning.", "end")?;
            self.reasoning_prompt_opened = flag(reasoning, "reasoning.", "prompt_opened", Some(false))?;
            if self.reasoning_start.trim().is_empty() != self.reasoning_end.trim().is_empty() {
                return Err(ParseError::new(
                    ErrorCode::ResultMissingField,
                    0,
                    "a format spec's `reasoning` needs both `start` and `end`",
                ));
            }
        }
        if value.get("end_of_turn").is_some() {
            self.end_of_turn = field_text(value, "", "end_of_turn")?;
        }
        if let Some(content) = value.get("content") {
            self.content_start = field_text(content, "content.", "start")?;
            self.content_end = field_text(content, "content.", "end")?;
            if self.content_start.trim().is_empty() && !self.content_end.trim().is_empty() {
                return Err(ParseError::new(
                    ErrorCode::ResultMissingField,
                    0,
                    "a format spec's `content` wrapper needs its `start`",
                ));
            }
        }
        Ok(())
    }

    /// The spec that [`FormatSpec::describe`] wrote: `from_value(&spec.describe()) == spec`. A
    /// missing or mistyped field is `result.missing_field`, an unknown kind or style
    /// `result.unsupported`. `write` may be left out (a spec written by hand): JSON is then
    /// spaced and keys keep their order; so may `values` of `call_syntax` (scalars in Python,
    /// containers in JSON).
    pub fn from_value(value: &Value) -> Result<FormatSpec, ParseError> {
        let missing = |path: &str| {
            ParseError::new(
                ErrorCode::ResultMissingField,
                0,
                format!("a format spec needs the string `{path}`"),
            )
        };
        let text = field_text;
        let part = |key: &str| value.get(key).ok_or_else(|| missing(key));
        let unsupported = |what: &str, id: &str| {
            ParseError::new(
                ErrorCode::ResultUnsupported,
                0,
                format!("a format spec's {what} is not {id:?}"),
            )
        };
        let read_values = |spec: &mut FormatSpec, values: &Value| -> Result<(), ParseError> {
            for (key, slot) in [("scalars", &mut spec.scalars), ("containers", &mut spec.containers)] {
                let id = text(values, "values.", key)?;
                *slot = ValueStyle::parse(&id).ok_or_else(|| unsupported(key, &id))?;
            }
            Ok(())
        };
        let kind_id = text(value, "", "call")?;
        let kind = CallKind::parse(&kind_id).ok_or_else(|| unsupported("call", &kind_id))?;
        let (section, markers) = (part("section")?, part("call_markers")?);
        let mut spec = FormatSpec {
            kind,
            section_start: text(section, "section.", "start")?,
            section_end: text(section, "section.", "end")?,
            call_start: text(markers, "call_markers.", "start")?,
            call_end: text(markers, "call_markers.", "end")?,
            separator: text(value, "", "separator")?,
            ..FormatSpec::default()
        };
        match kind {
            CallKind::JsonObject => {
                spec.name_key = text(value, "", "name_key")?;
                spec.arguments_key = text(value, "", "arguments_key")?;
                let id = text(value, "", "arguments")?;
                spec.arguments = ArgumentsEncoding::parse(&id).ok_or_else(|| unsupported("arguments", &id))?;
            }
            CallKind::NameKeyedObject => {}
            CallKind::CallSyntax => match value.get("values") {
                Some(values) => read_values(&mut spec, values)?,
                None => spec.scalars = ValueStyle::Python,
            },
            CallKind::ObjectLiteral => spec.string_delimiter = text(value, "", "string_delimiter")?,
            CallKind::TagJson => spec.name_suffix = text(value, "", "name_suffix")?,
            CallKind::TagPerArgument => {
                spec.name_suffix = text(value, "", "name_suffix")?;
                let key = part("key")?;
                spec.key_open = text(key, "key.", "start")?;
                spec.key_close = text(key, "key.", "end")?;
                spec.key_close_non_string = text(key, "key.", "end_non_string")?;
                spec.value_close = text(value, "", "value_close")?;
                read_values(&mut spec, part("values")?)?;
            }
        }
        if let Some(id) = value.get("id") {
            let position = text(id, "id.", "position")?;
            spec.id = IdPosition::parse(&position).ok_or_else(|| unsupported("id position", &position))?;
            spec.id_suffix = text(id, "id.", "suffix")?;
        }
        spec.read_turn(value)?;
        if let Some(write) = value.get("write") {
            let json = text(write, "write.", "json")?;
            spec.json = JsonLayout::parse(&json).ok_or_else(|| unsupported("JSON layout", &json))?;
            spec.sorted_keys = flag(write, "write.", "sorted_keys", None)?;
            spec.ascii = flag(write, "write.", "ascii", Some(false))?;
        }
        Ok(spec)
    }
}

/// The string `key` of `v` (`path` names `v` in messages), or `result.missing_field`.
fn field_text(v: &Value, path: &str, key: &str) -> Result<String, ParseError> {
    v.get(key).and_then(Value::as_str).map(str::to_owned).ok_or_else(|| {
        ParseError::new(
            ErrorCode::ResultMissingField,
            0,
            format!("a format spec needs the string `{path}{key}`"),
        )
    })
}

/// The boolean `key` of `v` (`path` names `v` in messages); `default` when it is missing, or,
/// without one, `result.missing_field`.
fn flag(v: &Value, path: &str, key: &str, default: Option<bool>) -> Result<bool, ParseError> {
    match (v.get(key), default) {
        (Some(Value::Bool(b)), _) => Ok(*b),
        (None, Some(b)) => Ok(b),
        _ => Err(ParseError::new(
            ErrorCode::ResultMissingField,
            0,
            format!("a format spec needs the boolean `{path}{key}`"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_is_plain_data() {
        let spec = FormatSpec {
            call_start: "<c>".into(),
            call_end: "</c>".into(),
            name_key: "name".into(),
            arguments_key: "arguments".into(),
            ..FormatSpec::default()
        };
        assert_eq!(
            spec.describe().to_json(),
            r#"{"call":"json_object","section":{"start":"","end":""},"call_markers":{"start":"<c>","end":"</c>"},"separator":"","name_key":"name","arguments_key":"arguments","arguments":"json_object","write":{"json":"spaced","sorted_keys":false,"ascii":false}}"#
        );
        assert_eq!(FormatSpec::from_value(&spec.describe()).unwrap(), spec);
    }

    #[test]
    fn every_kind_reads_back() {
        let tagged = FormatSpec {
            kind: CallKind::TagPerArgument,
            call_start: "<f=".into(),
            call_end: "</f>".into(),
            name_suffix: ">".into(),
            key_open: "<p=".into(),
            key_close: ">".into(),
            key_close_non_string: " raw>".into(),
            value_close: "</p>".into(),
            scalars: ValueStyle::Python,
            ..FormatSpec::default()
        };
        let tag_json = FormatSpec {
            kind: CallKind::TagJson,
            name_suffix: "[ARGS]".into(),
            ..FormatSpec::default()
        };
        for spec in [tagged, tag_json] {
            assert_eq!(FormatSpec::from_value(&spec.describe()).unwrap(), spec);
        }
    }

    #[test]
    fn a_bad_spec_says_what_is_wrong() {
        let e = FormatSpec::from_value(&Value::Object(vec![("call".into(), s("tag_json"))])).unwrap_err();
        assert_eq!(e.code, ErrorCode::ResultMissingField);
        assert!(e.message.contains("`section`"), "{}", e.message);
        let mut d = FormatSpec::default().describe();
        if let Value::Object(entries) = &mut d {
            entries[0].1 = s("xml");
        }
        assert_eq!(
            FormatSpec::from_value(&d).unwrap_err().code,
            ErrorCode::ResultUnsupported
        );
    }
}
