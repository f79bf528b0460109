//! JSON calls between special tokens: one table, [`ENTRIES`], with a row per format. A row names
//! the open marker, a token that must follow it, what stands inside (one JSON value or several),
//! how an object inside names a call, and the closing marker if the format has one.
//!
//! | marker | content | format |
//! | --- | --- | --- |
//! | `<\|START_ACTION\|>` … `<\|END_ACTION\|>` | `[{"tool_call_id": "0", "tool_name": NAME, "parameters": {…}}, …]` | `command_r7b` |
//! | `Action:` and a line break (or a space), ```` ```json ````, a line break, then the list … ```` ``` ```` (Command R+) | `[{"tool_name": NAME, "parameters": {…}}, …]` | `command_r7b` |
//! | `<\|tool_call\|>` (Granite 3.0), `<function_call>` (Granite-20B-FunctionCalling) | a JSON call shape | `granite` |
//! | `<TOOLCALL>` … `</TOOLCALL>` | a JSON call shape | `nemotron` |
//! | `<\|tools_prefix\|>` … `<\|tools_suffix\|>` | `[{NAME: {…}}, …]` | `apertus` |
//! | `<tool_calls>` … `</tool_calls>` | JSON call shapes, one or more (a list, or one object a line) | `tool_calls` |
//! | `<\|action_start\|>` `<\|plugin\|>` … `<\|action_end\|>` | a JSON call shape | `internlm` |
//!
//! Grammar, for every row:
//!
//! - After the marker (and after the row's following token, InternLM's `<|plugin|>`, with
//!   whitespace allowed around it), whitespace, then a JSON object or array. Anything else is
//!   `tool_call.unrecognized`; the text ending there is `tool_call.unclosed`.
//! - A *JSON call shape* is what [`crate::syntax::shape`] reads inside a tag: `{"name": …, "arguments":
//!   …}` (or `parameters`, `input`, `args`; arguments may be left out, and a JSON string of an
//!   object is decoded), the OpenAI function object, or a non-empty array of those.
//! - Command R+'s `Action:` block is a fenced JSON list: its marker ends with the list's `[`,
//!   which belongs to the value, and the closing fence follows the list. Prose that mentions
//!   `Action:` without the fenced list is no marker.
//! - Command R7B (and R+) reads fixed keys: `tool_name` (required, a non-empty string), `parameters` (an
//!   object or a JSON string of one; may be left out) and `tool_call_id` (a string, kept as the
//!   call's id); any other key is `tool_call.unrecognized`. Apertus reads objects of exactly one
//!   key: the key is the name, its value the arguments.
//! - `<tool_calls>` may hold several JSON values separated by whitespace (MiniMax-M1 writes one
//!   object a line, Jamba and Hunyuan-A13B one list). Every other row holds one value: another
//!   JSON value after it is `tool_call.syntax`.
//! - Command R7B's list may leave out the comma between two objects (`[{…}\n {…}]`, as Command A
//!   writes its actions): an object, whitespace, then `{` reads as the next element. Only in that
//!   list; everywhere else, and for anything else in it, the JSON is strict.
//! - Then whitespace and the closing marker. Like `</tool_call>`, it may be missing only at the
//!   very end of the text; any other text in its place is `tool_call.syntax`. Rows without a
//!   closing marker end after their value, and prose may follow.
//! - The text ending partway through an expected token (`<|END_ACT`, `<|plug`) was cut off:
//!   `tool_call.unclosed` at the end of the text.
//! - End-of-turn tokens after the calls (`<|END_OF_TURN_TOKEN|>`, `<|end_of_text|>`,
//!   `<|assistant_end|>`, `<|im_end|>`) are left as prose.
//!
//! Two kinds of content after a marker are not JSON:
//!
//! - `<tool_calls>` followed by `<tool_call>` is Hunyuan v3's wrapper around calls of another
//!   grammar: no call of this family starts there, and scanning goes on at the inner marker.
//! - `<|action_start|><|interpreter|>` is InternLM's code interpreter, a built-in tool the model
//!   calls with code (usually a fenced Python block) instead of JSON. It is one call named
//!   `interpreter` with one argument, `code`: the text up to `<|action_end|>`, trimmed of
//!   whitespace. Its end is known only from `<|action_end|>`, so without it the text is
//!   `tool_call.unclosed`.

use super::Calls;
use super::{closing_tag, tagged_json, unclosed_marker, unrecognized, widen_span};
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, quote, skip_ws};
use crate::syntax::json::{
    locate_key, locate_path, parse_complete, parse_spaced_items_at, parse_value_items_at, raw_offset_in_string,
};
use crate::syntax::origin::offset_of;
use crate::syntax::path::Step;
use crate::syntax::shape::{plain_calls, CallKeys, Defer};
use crate::value::{Object, Value};

const START_ACTION: &str = "<|START_ACTION|>";
const END_ACTION: &str = "<|END_ACTION|>";
const GRANITE: &str = "<|tool_call|>";
const GRANITE_20B: &str = "<function_call>";
const TOOLCALL: &str = "<TOOLCALL>";
const TOOLCALL_CLOSE: &str = "</TOOLCALL>";
const TOOLS_PREFIX: &str = "<|tools_prefix|>";
const TOOLS_SUFFIX: &str = "<|tools_suffix|>";
const TOOL_CALLS: &str = "<tool_calls>";
const TOOL_CALLS_CLOSE: &str = "</tool_calls>";
const ACTION_START: &str = "<|action_start|>";
const PLUGIN: &str = "<|plugin|>";
const INTERPRETER: &str = "<|interpreter|>";
const ACTION_END: &str = "<|action_end|>";
/// Command R+'s `Action:` block, as its tool-use template writes it (and with a space for the
/// line break); the marker ends with the list's `[`.
const R_PLUS_ACTION: &str = "Action:\n```json\n[";
const R_PLUS_ACTION_SPACE: &str = "Action: ```json\n[";
const FENCE: &str = "```";

/// How the objects inside the tag name a call.
#[derive(Clone, Copy)]
enum Reader {
    /// The JSON call shapes of [`crate::syntax::shape`].
    Shape,
    /// Objects with these keys for the id, the name and the arguments; no other key.
    Keys {
        id: &'static str,
        name: &'static str,
        arguments: &'static str,
    },
    /// Objects of one key: the name, whose value is the arguments.
    NameKey,
}

/// How many JSON values stand inside the tag.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    One,
    /// One or more, separated by whitespace.
    Many,
}

/// Content after the marker (after whitespace) that is not this row's JSON.
enum Other {
    /// Another grammar's marker: no call of this row starts here, and scanning goes on at it.
    Defer(&'static str),
    /// `token`, raw code, then `close`: one call named `name` whose one argument `key` is the
    /// code, trimmed of whitespace.
    Code {
        token: &'static str,
        name: &'static str,
        key: &'static str,
        close: &'static str,
    },
}

impl Other {
    const fn token(&self) -> &'static str {
        match self {
            Other::Defer(token) | Other::Code { token, .. } => token,
        }
    }
}

/// One format of the family.
struct Entry {
    open: &'static str,
    /// How many bytes at the end of `open` belong to the value (`Action:`'s `[`).
    back: usize,
    /// The marker as messages name it.
    label: &'static str,
    /// A token that must follow `open` (after whitespace).
    then: Option<&'static str>,
    others: &'static [Other],
    body: Body,
    reader: Reader,
    /// Whether a list's objects may be separated by whitespace alone.
    spaced: bool,
    close: Option<&'static str>,
    format: Format,
}

impl Entry {
    const fn new(open: &'static str, close: Option<&'static str>, reader: Reader, format: Format) -> Self {
        Entry {
            open,
            back: 0,
            label: open,
            then: None,
            others: &[],
            body: Body::One,
            reader,
            spaced: false,
            close,
            format,
        }
    }
}

/// How Command R7B, Command A and Command R+ name a call.
const COMMAND_KEYS: Reader = Reader::Keys {
    id: "tool_call_id",
    name: "tool_name",
    arguments: "parameters",
};

const ENTRIES: [Entry; 9] = [
    Entry {
        spaced: true,
        ..Entry::new(START_ACTION, Some(END_ACTION), COMMAND_KEYS, Format::CommandR7b)
    },
    Entry {
        back: 1,
        label: "Action:",
        ..Entry::new(R_PLUS_ACTION, Some(FENCE), COMMAND_KEYS, Format::CommandR7b)
    },
    Entry {
        back: 1,
        label: "Action:",
        ..Entry::new(R_PLUS_ACTION_SPACE, Some(FENCE), COMMAND_KEYS, Format::CommandR7b)
    },
    Entry::new(GRANITE, None, Reader::Shape, Format::Granite),
    Entry::new(GRANITE_20B, None, Reader::Shape, Format::Granite),
    Entry::new(TOOLCALL, Some(TOOLCALL_CLOSE), Reader::Shape, Format::Nemotron),
    Entry::new(TOOLS_PREFIX, Some(TOOLS_SUFFIX), Reader::NameKey, Format::Apertus),
    Entry {
        others: &[Other::Defer("<tool_call>")],
        body: Body::Many,
        ..Entry::new(TOOL_CALLS, Some(TOOL_CALLS_CLOSE), Reader::Shape, Format::ToolCalls)
    },
    Entry {
        then: Some(PLUGIN),
        others: &[Other::Code {
            token: INTERPRETER,
            name: "interpreter",
            key: "code",
            close: ACTION_END,
        }],
        ..Entry::new(ACTION_START, Some(ACTION_END), Reader::Shape, Format::Internlm)
    },
];

const MARKERS: [&str; ENTRIES.len()] = {
    let mut markers = [""; ENTRIES.len()];
    let mut i = 0;
    while i < ENTRIES.len() {
        markers[i] = ENTRIES[i].open;
        i += 1;
    }
    markers
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[
        Format::CommandR7b,
        Format::Granite,
        Format::Nemotron,
        Format::Apertus,
        Format::ToolCalls,
        Format::Internlm,
    ],
    markers: &MARKERS,
    tokens: &[
        END_ACTION,
        TOOLCALL_CLOSE,
        TOOLS_SUFFIX,
        TOOL_CALLS_CLOSE,
        PLUGIN,
        INTERPRETER,
        ACTION_END,
        FENCE,
    ],
    closers: &[
        END_ACTION,
        TOOLCALL_CLOSE,
        TOOLS_SUFFIX,
        TOOL_CALLS_CLOSE,
        ACTION_END,
        FENCE,
    ],
    json_bodies: &[
        super::JsonBody::at(GRANITE, Format::Granite),
        super::JsonBody::at(GRANITE_20B, Format::Granite),
        super::JsonBody::at(TOOLCALL, Format::Nemotron),
        super::JsonBody::at(TOOL_CALLS, Format::ToolCalls),
    ],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the calls whose marker is at `start`; returns the offset after them.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let entry = ENTRIES
        .iter()
        .filter(|e| at(bytes, start, e.open))
        .max_by_key(|e| e.open.len())
        .expect("called at one of the family's markers");
    let mut p = skip_ws(bytes, start + entry.open.len() - entry.back);
    for other in entry.others {
        if at(bytes, p, other.token()) {
            return other_content(text, start, p, other, entry.format, out);
        }
        if ends_inside(bytes, p, other.token()) {
            return Err(ends_inside_token(text, other.token()));
        }
    }
    let mut marker = entry.label;
    if let Some(then) = entry.then {
        p = follow(text, p, marker, then)?;
        marker = then;
    }
    let first = out.len();
    let end = loop {
        let end = value(text, p, entry, marker, out)?;
        let q = skip_ws(bytes, end);
        let another = matches!(bytes.get(q), Some(b'{' | b'['));
        if another && entry.body == Body::Many {
            p = q;
            continue;
        }
        break match entry.close {
            Some(close) if ends_inside(bytes, q, close) => return Err(ends_inside_token(text, close)),
            Some(close) => closing_tag(text, end, close)?,
            None if another => return Err(another_value(q, marker)),
            None => end,
        };
    };
    widen_span(out, first, start, end);
    Ok(end)
}

/// Reads the `other` content at `p` (of the marker at `start`); returns where scanning goes on.
fn other_content(
    text: &str,
    start: usize,
    p: usize,
    other: &Other,
    format: Format,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let &Other::Code {
        token,
        name,
        key,
        close,
    } = other
    else {
        return Ok(p);
    };
    let from = p + token.len();
    let Some(len) = crate::lex::find(&text.as_bytes()[from..], close) else {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            format!("the text ends inside the code after `{token}`: expected `{close}`"),
        ));
    };
    let code = text[from..from + len].trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let arguments = vec![(key.to_string(), Value::String(code.to_string()))];
    let end = from + len + close.len();
    let code_at = offset_of(text, code);
    let origin = Origin::At {
        name: p,
        args: Args::Params(vec![Param::new(code_at..code_at + code.len(), Text::Typed)]),
    };
    out.push(ToolCall::new(name.to_string(), arguments, format, start..end).with_origin(origin));
    Ok(end)
}

/// Whether the text from `p` on is a non-empty proper beginning of `token`: it was cut there.
fn ends_inside(bytes: &[u8], p: usize, token: &str) -> bool {
    p < bytes.len() && token.len() > bytes.len() - p && token.as_bytes().starts_with(&bytes[p..])
}

fn ends_inside_token(text: &str, token: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends inside `{token}`"),
    )
}

/// Expects `then` at `p` (after whitespace); returns the offset after it and the whitespace
/// that follows.
fn follow(text: &str, p: usize, marker: &str, then: &str) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if at(bytes, p, then) {
        return Ok(skip_ws(bytes, p + then.len()));
    }
    if p == bytes.len() {
        return Err(unclosed_marker(text, marker));
    }
    if ends_inside(bytes, p, then) {
        return Err(ends_inside_token(text, then));
    }
    Err(ParseError::new(
        ErrorCode::Unrecognized,
        p,
        format!("`{marker}` must be followed by `{then}`"),
    ))
}

fn another_value(q: usize, marker: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Syntax,
        q,
        format!("`{marker}` is followed by one JSON value; another call needs its own `{marker}`"),
    )
}

/// Reads the JSON value at `p` with the row's reader and pushes its calls; returns the offset
/// after the value.
fn value(text: &str, p: usize, entry: &Entry, marker: &str, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    if let Reader::Shape = entry.reader {
        return tagged_json(text, p, entry.format, marker, out);
    }
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    match bytes.get(p) {
        Some(b'{' | b'[') => {}
        Some(_) => return Err(unrecognized(text, p, marker)),
        None => return Err(unclosed_marker(text, marker)),
    }
    if let Reader::Keys { id, name, arguments } = entry.reader {
        let keys = CallKeys {
            id: Some(id),
            name,
            arguments: &[arguments],
        };
        let first = out.len();
        if let Some(end) = plain_calls(text, p, &keys, out.defer, |call, span| {
            out.push(call.into_call(entry.format, span));
        }) {
            return Ok(end);
        }
        out.truncate(first);
    }
    if let (Reader::NameKey, false) = (entry.reader, entry.spaced) {
        let defer = out.defer;
        if let Some(end) = name_keyed_calls(text, p, entry.format, defer, out) {
            return Ok(end);
        }
    }
    let (value, end, ranges) = if entry.spaced {
        parse_spaced_items_at(text, p)?
    } else {
        parse_value_items_at(text, p)?
    };
    // Each call spans its own object: the element of a list, or the whole value.
    let (items, spans): (Vec<_>, Vec<_>) = match value {
        Value::Array(items) if items.is_empty() => return Err(unrecognized(text, p, marker)),
        Value::Array(items) => (items, ranges),
        v => (vec![v], std::iter::once(p..end).collect()),
    };
    for (item, span) in items.into_iter().zip(spans) {
        // Errors inside an item are found from the item itself (a spaced list has no commas to
        // count its elements by).
        let item_at = Item {
            text,
            value_at: span.start,
        };
        let (call, origin) = match entry.reader {
            Reader::Keys { id, name, arguments } => {
                let (read, has_arguments) = item_at.keyed(item, [id, name, arguments])?;
                let origin = Origin::Object {
                    at: span.start,
                    wrapped: false,
                    name,
                    args: has_arguments.then_some(arguments),
                };
                (read, origin)
            }
            Reader::NameKey => (item_at.name_keyed(item)?, name_key_origin(bytes, span.start)),
            Reader::Shape => unreachable!("read by tagged_json"),
        };
        let (id, name, arguments) = call;
        let mut call = ToolCall::new(name, arguments, entry.format, span).with_origin(origin);
        call.id = id;
        out.push(call);
    }
    Ok(end)
}

/// The calls of `[{"NAME": {arguments}}, …]` (or one such object) at `p`, read without building
/// the list, their arguments as `defer` says: pushed to `out` as calls of `format`, and the offset
/// after the value. `None` when it is not written so (a name with an escape, arguments that are
/// not one object, any error; nothing is pushed): the general reading reads it or reports why.
fn name_keyed_calls(text: &str, p: usize, format: Format, defer: Defer<'_>, out: &mut Vec<ToolCall>) -> Option<usize> {
    let bytes = text.as_bytes();
    let first = out.len();
    let mut one = |at: usize, outer: usize| -> Option<usize> {
        let key_at = skip_ws(bytes, at + 1);
        let name_at = key_at + 1;
        let len = bytes
            .get(name_at..)?
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if bytes.get(key_at) != Some(&b'"') || bytes[name_at + len] != b'"' || len == 0 {
            return None;
        }
        let colon = skip_ws(bytes, name_at + len + 1);
        let args_at = skip_ws(bytes, colon + 1);
        if bytes.get(colon) != Some(&b':') || bytes.get(args_at) != Some(&b'{') {
            return None;
        }
        let (arguments, deferred, end) = crate::syntax::plain_shapes::arguments_at(text, args_at, outer + 1, defer)?;
        let close = skip_ws(bytes, end);
        if bytes.get(close) != Some(&b'}') {
            return None;
        }
        let origin = name_key_origin(bytes, at);
        let name = text[name_at..name_at + len].to_owned();
        let mut call = ToolCall::new(name, arguments, format, at..close + 1).with_origin(origin);
        call.deferred = deferred;
        out.push(call);
        Some(close + 1)
    };
    let end = match bytes.get(p) {
        Some(b'{') => one(p, 0),
        Some(b'[') => {
            let mut q = skip_ws(bytes, p + 1);
            loop {
                if bytes.get(q) != Some(&b'{') {
                    break None;
                }
                let Some(end) = one(q, 1) else { break None };
                q = skip_ws(bytes, end);
                match bytes.get(q) {
                    Some(b',') => q = skip_ws(bytes, q + 1),
                    Some(b']') => break Some(q + 1),
                    _ => break None,
                }
            }
        }
        _ => None,
    };
    if end.is_none() {
        out.truncate(first);
    }
    end
}

/// Where the name and arguments of `{"NAME": {arguments}}` at `at` stand: the key, its value.
fn name_key_origin(bytes: &[u8], at: usize) -> Origin {
    let key_at = skip_ws(bytes, at + 1);
    let key_end = crate::syntax::json::raw_string_end(bytes, key_at).unwrap_or(key_at);
    Origin::At {
        name: key_at,
        args: Args::Json(skip_ws(bytes, skip_ws(bytes, key_end) + 1)),
    }
}

/// A call read from one object: id, name, arguments.
type Read = (Option<String>, String, Object);

/// One object, the JSON value that stands at `value_at` (the whole value or an element of a
/// list). Errors point into the text by walking the JSON source from it.
struct Item<'t> {
    text: &'t str,
    value_at: usize,
}

impl Item<'_> {
    /// The offset of the item, or of what `step` reaches inside it.
    fn at(&self, step: Option<Step<&str>>) -> usize {
        let path: Vec<Step<&str>> = step.into_iter().collect();
        locate_path(self.text, self.value_at, &path)
    }

    fn error(&self, code: ErrorCode, step: Option<Step<&str>>, message: String) -> ParseError {
        ParseError::new(code, self.at(step), message)
    }

    /// An error about the key `key` itself, at its opening quote in the item.
    fn key_error(&self, code: ErrorCode, key: &str, message: String) -> ParseError {
        ParseError::new(code, locate_key(self.text, self.value_at, &[], key), message)
    }

    fn object(&self, item: Value) -> Result<Object, ParseError> {
        match item {
            Value::Object(o) => Ok(o),
            other => Err(self.error(
                ErrorCode::Unrecognized,
                None,
                format!("a tool call must be a JSON object, found {}", other.kind()),
            )),
        }
    }

    /// An object with fixed keys for the id, the name and the arguments.
    fn keyed(&self, item: Value, [id_key, name_key, args_key]: [&str; 3]) -> Result<(Read, bool), ParseError> {
        let mut id = None;
        let mut name = None;
        let mut arguments = Object::new();
        let mut has_arguments = false;
        for (key, value) in self.object(item)? {
            if key == id_key {
                match value {
                    Value::String(s) => id = Some(s),
                    other => {
                        let message = format!("`{id_key}` must be a string, found {}", other.kind());
                        return Err(self.error(ErrorCode::Unrecognized, Some(Step::Key(id_key)), message));
                    }
                }
            } else if key == name_key {
                name = Some(self.name(value, name_key)?);
            } else if key == args_key {
                arguments = self.arguments(value, Step::Key(args_key), name.as_deref())?;
                has_arguments = true;
            } else {
                let message = format!(
                    "a call has only `{id_key}`, `{name_key}` and `{args_key}`, found {}",
                    quote(&key)
                );
                return Err(self.key_error(ErrorCode::Unrecognized, &key, message));
            }
        }
        let Some(name) = name else {
            return Err(self.error(ErrorCode::InvalidName, None, format!("the call has no `{name_key}`")));
        };
        Ok(((id, name, arguments), has_arguments))
    }

    /// The name under `key`: a non-empty string.
    fn name(&self, value: Value, key: &str) -> Result<String, ParseError> {
        match value {
            Value::String(s) if !s.is_empty() => Ok(s),
            Value::String(_) => Err(self.error(
                ErrorCode::InvalidName,
                Some(Step::Key(key)),
                "the tool name is empty".into(),
            )),
            other => Err(self.error(
                ErrorCode::InvalidName,
                Some(Step::Key(key)),
                format!("the tool name must be a string, found {}", other.kind()),
            )),
        }
    }

    /// `{NAME: arguments}`.
    fn name_keyed(&self, item: Value) -> Result<Read, ParseError> {
        let mut members = self.object(item)?.into_iter();
        let Some((name, value)) = members.next() else {
            return Err(self.error(
                ErrorCode::InvalidName,
                None,
                "a call is an object of one key, the tool name; this one is empty".into(),
            ));
        };
        if let Some((second, _)) = members.next() {
            return Err(self.key_error(
                ErrorCode::Unrecognized,
                &second,
                format!(
                    "a call is an object of one key, the tool name; found a second key {}",
                    quote(&second)
                ),
            ));
        }
        if name.is_empty() {
            return Err(self.key_error(ErrorCode::InvalidName, "", "the tool name is empty".into()));
        }
        let arguments = self.arguments(value, Step::Key(&name), Some(&name))?;
        Ok((None, name, arguments))
    }

    /// Arguments: an object, or a string holding a JSON object.
    fn arguments(&self, value: Value, step: Step<&str>, name: Option<&str>) -> Result<Object, ParseError> {
        let of = || name.map(|n| format!(" of {}", quote(n))).unwrap_or_default();
        match value {
            Value::Object(o) => Ok(o),
            Value::String(s) => match parse_complete(&s) {
                Ok(Value::Object(o)) => Ok(o),
                Ok(other) => Err(self.error(
                    ErrorCode::InvalidArguments,
                    Some(step),
                    format!(
                        "the arguments string{} must hold a JSON object, found {}",
                        of(),
                        other.kind()
                    ),
                )),
                Err(e) => Err(ParseError::new(
                    ErrorCode::InvalidArguments,
                    raw_offset_in_string(self.text, self.at(Some(step)), e.offset),
                    format!(
                        "the arguments string{} is not valid JSON: {} ({})",
                        of(),
                        e.message,
                        e.code
                    ),
                )),
            },
            other => Err(self.error(
                ErrorCode::InvalidArguments,
                Some(step),
                format!("the arguments{} must be an object, found {}", of(), other.kind()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streaming holds back a text cut inside any token the grammar expects after a marker.
    #[test]
    fn every_expected_token_is_listed() {
        for e in &ENTRIES {
            let mut expected: Vec<&str> = e.close.into_iter().chain(e.then).collect();
            for other in e.others {
                expected.push(other.token());
                if let Other::Code { close, .. } = other {
                    expected.push(close);
                }
            }
            for token in expected {
                let marker = super::super::FAMILIES.iter().any(|f| f.markers.contains(&token));
                assert!(FAMILY.tokens.contains(&token) || marker, "{token} is not listed");
            }
        }
    }
}
