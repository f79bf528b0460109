//! Inferring a [`FormatSpec`] from a chat template by differential rendering: conversations that
//! differ in one thing (no call or a call, one name or another, one call or two) are rendered and
//! compared, and every marker is text that a diff isolates. No marker is known in advance: the
//! only things looked for are the probe's own data (its names and arguments) as JSON.
//!
//! - **The call's text.** The model writes its calls where it would write content: a call's text
//!   is what a turn with the call renders between the start and the end it shares with turns of
//!   content only (two contents, so that no marker begins or ends as both do); a template that
//!   renders no such turn is bounded by its generation prompt and an empty turn instead.
//! - **The call object.** Within that text, the one JSON object that holds the probe's name as a
//!   string under one key and its arguments (as an object, or as their JSON text) under another.
//!   The text before it and after it are the markers.
//! - **The name as text.** Where no such object is there, the call is its name written as
//!   text, then either a JSON object equal to its arguments (`tag_json`; the text between is the
//!   name's suffix) or each argument as key and value text (`tag_per_argument`): in the call with
//!   two arguments, what stands before the first key and between the first value and the second
//!   key end alike (the key's opening), the rest between two arguments is the value's close, and
//!   between a key and its value stands the key's close (one for a string value, one for a
//!   number). A probe with a boolean and a list tells whether such values are written as JSON or
//!   as Python's `str()`.
//! - **Shared characters.** Where two markers meet on characters both could own (`>` of
//!   `<function=NAME>` and of `</parameter>`), the split is taken after a closing bracket or white
//!   space and before an opening one.
//! - **Section or call markers.** With two calls, what stands between the two objects is the
//!   first call's end marker, a separator and the second call's start marker; the part of the
//!   one-call markers that it repeats belongs to each call, the rest to the section.
//! - **Tokens.** Where the tokenizer's added tokens are known ([`ChatTemplate::special_tokens`]),
//!   a diff never splits one: two renders may share the first characters of two different
//!   tokens (`<|START_RESPONSE|>` and `<|START_ACTION|>`), which belong to the call's text.
//! - **Checks.** A call to another tool with other arguments must render with the same markers;
//!   if not, or if two objects or two keys fit, or markers hold the call's id (they change from
//!   call to call), the renders have two readings (`template.ambiguous`). A template that
//!   renders only the first of two calls writes one call per message.

use super::render::{ChatTemplate, Renderer};
use crate::error::{ErrorCode, ParseError};
use crate::formats::spec::{ArgumentsEncoding, CallKind, CallToWrite, FormatSpec, IdPosition, JsonLayout, ValueStyle};
use crate::syntax::json::{parse_json, parse_value_at};
use crate::value::{Number, Object, Value};

/// The longest call text searched for the call object, in bytes.
const MAX_CALL_TEXT: usize = 64 * 1024;

/// One probe call: a tool's name and its arguments.
struct Call {
    name: &'static str,
    arguments: Value,
}

pub(super) fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

pub(super) fn obj(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// The two probe calls: different names, different argument names, counts and types.
fn calls() -> [Call; 2] {
    [
        Call {
            name: "get_weather",
            arguments: obj(vec![("city", s("Paris"))]),
        },
        Call {
            name: "search_web",
            arguments: obj(vec![("query", s("rust")), ("limit", Value::Number(Number::Int(5)))]),
        },
    ]
}

/// How every probe call's id ends (`call0Xyz9`, `call1Xyz9`): the one text no marker holds.
const ID_TAIL: &str = "Xyz9";

/// The tools the probe calls use, as an OpenAI tool list.
pub(super) fn tools() -> Value {
    let function = |name: &str, description: &str, properties: Vec<(&str, &str)>| {
        let props: Object = properties
            .iter()
            .map(|(p, t)| ((*p).to_owned(), obj(vec![("type", s(t))])))
            .collect();
        let required = Value::Array(properties.iter().map(|(p, _)| s(p)).collect());
        obj(vec![
            ("type", s("function")),
            (
                "function",
                obj(vec![
                    ("name", s(name)),
                    ("description", s(description)),
                    (
                        "parameters",
                        obj(vec![
                            ("type", s("object")),
                            ("properties", Value::Object(props)),
                            ("required", required),
                        ]),
                    ),
                ]),
            ),
        ])
    };
    Value::Array(vec![
        function(
            "get_weather",
            "Get the current weather in a city.",
            vec![("city", "string")],
        ),
        function(
            "search_web",
            "Search the web.",
            vec![("query", "string"), ("limit", "integer")],
        ),
        function("set_flag", "Set a flag.", vec![("on", "boolean"), ("tags", "array")]),
    ])
}

/// The probe call whose values are not strings: how a format that writes each argument as text
/// writes a boolean and a list (whose `é` shows whether JSON is written ASCII only).
fn typed_call() -> Call {
    Call {
        name: "set_flag",
        arguments: obj(vec![
            ("on", Value::Bool(true)),
            ("tags", Value::Array(vec![s("é"), Value::Number(Number::Int(1))])),
        ]),
    }
}

/// The context of a conversation: a user's question, then (unless `calls` is `None`) the
/// assistant's turn with `content` and those calls, arguments as objects or (`as_text`) as JSON
/// text.
fn conversation(calls: Option<&[&Call]>, content: &str, as_text: bool) -> Value {
    let user = obj(vec![
        ("role", s("user")),
        ("content", s("What is the weather in Paris?")),
    ]);
    let mut messages = vec![user];
    if let Some(calls) = calls {
        let tool_calls = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let arguments = if as_text {
                    s(&c.arguments.to_json())
                } else {
                    c.arguments.clone()
                };
                obj(vec![
                    ("id", s(&probe_id(i))),
                    ("type", s("function")),
                    ("function", obj(vec![("name", s(c.name)), ("arguments", arguments)])),
                ])
            })
            .collect();
        let mut turn = vec![("role", s("assistant")), ("content", s(content))];
        if !calls.is_empty() {
            turn.push(("tool_calls", Value::Array(tool_calls)));
        }
        messages.push(obj(turn));
    }
    obj(vec![
        ("messages", Value::Array(messages)),
        ("tools", tools()),
        ("add_generation_prompt", Value::Bool(calls.is_none())),
    ])
}

/// The contents of the turns without calls that bound a call's text: the model writes content
/// where it would write calls, so the text before and after the content is the turn's own.
/// Two, so that a marker cannot begin (or end) as both do.
const CONTENTS: [&str; 2] = ["Okay.", "Yes!"];

/// The renders of the probe conversations.
pub(super) struct Renders {
    /// What bounds a call's text: the conversation with an assistant turn without calls, for
    /// each of [`CONTENTS`] that renders; or, when none does, the conversation up to the
    /// generation prompt (for the start) and with an empty assistant turn (for the end).
    starts: Vec<String>,
    ends: Vec<String>,
    /// The tokenizer's added tokens: a call's text never starts or ends inside one.
    tokens: Vec<String>,
    pub(super) one: String,
    other: String,
    two: Option<String>,
    /// A call of [`typed_call`], where the template renders it.
    typed: Option<String>,
}

impl Renders {
    fn new(renderer: &Renderer, tokens: &[String]) -> Result<Self, ParseError> {
        let [a, b] = calls();
        let mut without = Vec::new();
        for content in CONTENTS {
            match renderer.render(&conversation(Some(&[]), content, false)) {
                Ok(text) => without.push(text),
                // A template may refuse a turn of content only; the prompt bounds the call then.
                Err(e) if e.code == ErrorCode::TemplateRender => {}
                Err(e) => return Err(e),
            }
        }
        let (starts, ends) = if without.is_empty() {
            (
                vec![renderer.render(&conversation(None, "", false))?],
                vec![renderer.render(&conversation(Some(&[]), "", false))?],
            )
        } else {
            (without.clone(), without)
        };
        // Most templates take arguments as objects; some only as JSON text (as the API sends).
        let (one, as_text) = match renderer.render(&conversation(Some(&[&a]), "", false)) {
            Ok(one) => (one, false),
            Err(first) => match renderer.render(&conversation(Some(&[&a]), "", true)) {
                Ok(one) => (one, true),
                Err(_) => return Err(first),
            },
        };
        let other = renderer.render(&conversation(Some(&[&b]), "", as_text))?;
        let two = renderer.render(&conversation(Some(&[&a, &b]), "", as_text)).ok();
        let typed = renderer.render(&conversation(Some(&[&typed_call()]), "", as_text)).ok();
        Ok(Renders {
            starts,
            ends,
            tokens: tokens.to_vec(),
            one,
            other,
            two,
            typed,
        })
    }

    /// What the model writes for the turn rendered as `full`: from where it first differs from
    /// every bounding render to where it last differs from every one. Of the places a diff could
    /// split, this takes the ones that leave the most text to the call; a diff that would split
    /// an added token moves to the token's start (or end).
    pub(super) fn call_text<'a>(&self, full: &'a str) -> &'a str {
        let start = self
            .starts
            .iter()
            .map(|other| common_prefix(full, other))
            .min()
            .unwrap_or(0);
        let start = self.outside_tokens(full, floor(full, start), false);
        let turn = &full[start..];
        let shared_end = self
            .ends
            .iter()
            .map(|other| common_suffix(turn, other))
            .min()
            .unwrap_or(0);
        let end = self.outside_tokens(turn, ceil(turn, turn.len() - shared_end), true);
        &turn[..end]
    }

    /// `at`, or, when it falls inside an added token written in `text` (or, where no added
    /// token is known there, inside text shaped like one: [`tag_around`]), that token's start
    /// (`after` false) or end.
    pub(super) fn outside_tokens(&self, text: &str, at: usize, after: bool) -> usize {
        for token in self.tokens.iter().filter(|t| !t.is_empty()) {
            let from = floor(text, at.saturating_sub(token.len() - 1));
            for (i, _) in text[from..at].char_indices() {
                let i = from + i;
                if at < i + token.len() && text[i..].starts_with(token.as_str()) {
                    return if after { i + token.len() } else { i };
                }
            }
        }
        match tag_around(text.as_bytes(), at) {
            Some((start, end)) => {
                if after {
                    end
                } else {
                    start
                }
            }
            None => at,
        }
    }
}

/// The longest text shaped like a special token that a diff may cut into.
const MAX_TAG: usize = 64;

/// The bracketed word (`<|START_ACTION|>`, `<TOOLCALL>`, `[TOOL_CALLS]`: a `<` or `[`, then no
/// white space or bracket up to its `>` or `]`, at most [`MAX_TAG`] bytes) that `at` falls
/// strictly inside, if any: its start and end. Two renders that share a token's first
/// characters (`<|START_` of `<|START_RESPONSE|>` and `<|START_ACTION|>`) diff inside it, where
/// no marker begins or ends.
fn tag_around(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    let word = |b: u8| !b.is_ascii_whitespace() && !matches!(b, b'<' | b'>' | b'[' | b']');
    let mut open = at.checked_sub(1)?;
    while word(bytes[open]) {
        if at - open >= MAX_TAG || open == 0 {
            return None;
        }
        open -= 1;
    }
    let close_byte = match bytes[open] {
        b'<' => b'>',
        b'[' => b']',
        _ => return None,
    };
    let mut close = at;
    while close < bytes.len() && word(bytes[close]) {
        if close - open >= MAX_TAG {
            return None;
        }
        close += 1;
    }
    (bytes.get(close) == Some(&close_byte) && close > open + 1).then_some((open, close + 1))
}

/// Of the places `lo..=hi` where a diff could split `text` between two markers (the renders
/// agree on all of them), the one at a boundary: after a closing bracket or white space, before
/// an opening bracket or white space (both sides count twice as much as one); among equals, the
/// one nearest `default`.
fn best_split(text: &str, lo: usize, hi: usize, default: usize) -> usize {
    let closes = |c: char| matches!(c, '>' | ']' | '}' | ')') || c.is_whitespace();
    let opens = |c: char| matches!(c, '<' | '[' | '{' | '(') || c.is_whitespace();
    let score = |p: usize| {
        u8::from(text[..p].chars().next_back().is_some_and(closes))
            + u8::from(text[p..].chars().next().is_some_and(opens))
    };
    (lo..=hi)
        .filter(|&p| text.is_char_boundary(p))
        .max_by_key(|&p| (score(p), std::cmp::Reverse(p.abs_diff(default))))
        .unwrap_or(default)
}

pub(super) fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

pub(super) fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes().rev().zip(b.bytes().rev()).take_while(|(x, y)| x == y).count()
}

/// The character boundary at or before `i`.
fn floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The character boundary at or after `i`.
fn ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// How a located call is written between its markers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    /// One JSON object with the name under one key and the arguments under another.
    Object {
        name_key: String,
        arguments_key: String,
        arguments: ArgumentsEncoding,
    },
    /// One JSON object whose only key is the name, the arguments its value.
    NameKeyed,
    /// The name as text, `name_suffix`, then the arguments as a JSON object.
    TagJson { name_suffix: String },
    /// The name as text, then each argument in its own markers.
    TagPerArgument(ArgumentMarkers),
    /// A Python call: the name, then `(key=value, …)`.
    CallSyntax,
    /// The name, then an object literal whose strings stand between `delimiter`s.
    ObjectLiteral { delimiter: String },
}

/// The markers of a format that writes each argument in tags, as rendered (white space kept).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ArgumentMarkers {
    name_suffix: String,
    key_open: String,
    key_close: String,
    key_close_non_string: String,
    value_close: String,
}

/// A call found in a call text: where it stands (the text before and after are its markers)
/// and how it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Found {
    start: usize,
    end: usize,
    shape: Shape,
}

/// Every reading of `call` in `text` as a JSON object: each object in it with the call's name
/// as a string under one key and its arguments under another, or with the name as its only key.
fn find_objects(text: &str, call: &Call) -> Vec<Found> {
    let mut found = Vec::new();
    for (start, _) in text.match_indices('{') {
        let Ok((Value::Object(entries), end)) = parse_value_at(text, start) else {
            continue;
        };
        if let [(key, v)] = entries.as_slice() {
            if key == call.name && *v == call.arguments {
                found.push(Found {
                    start,
                    end,
                    shape: Shape::NameKeyed,
                });
            }
        }
        let names = entries
            .iter()
            .filter(|(_, v)| v.as_str() == Some(call.name))
            .map(|(k, _)| k);
        for name_key in names {
            for (arguments_key, v) in &entries {
                let arguments = if *v == call.arguments {
                    ArgumentsEncoding::Object
                } else if v.as_str().and_then(|t| parse_json(t).ok()).as_ref() == Some(&call.arguments) {
                    ArgumentsEncoding::String
                } else {
                    continue;
                };
                found.push(Found {
                    start,
                    end,
                    shape: Shape::Object {
                        name_key: name_key.clone(),
                        arguments_key: arguments_key.clone(),
                        arguments,
                    },
                });
            }
        }
    }
    // An object nested in a reading (the arguments of a name-keyed object) is not another one.
    let spans: Vec<(usize, usize)> = found.iter().map(|f| (f.start, f.end)).collect();
    found.retain(|f| !spans.iter().any(|&(s, e)| s < f.start && f.end <= e));
    found
}

/// Every reading of `call` in `text` as its name written as text, then a JSON object equal to
/// its arguments.
/// Every place where `call` is written as a Python call: its name, then `(` and keyword
/// arguments equal to its arguments.
fn find_call_syntax(text: &str, call: &Call) -> Vec<Found> {
    text.match_indices(call.name)
        .filter_map(|(at, _)| {
            let open = at + call.name.len();
            if text.as_bytes().get(open) != Some(&b'(') {
                return None;
            }
            let (arguments, end) = crate::syntax::callsyntax::parse_arguments(text, open).ok()?;
            (Value::Object(arguments) == call.arguments).then_some(Found {
                start: at,
                end,
                shape: Shape::CallSyntax,
            })
        })
        .collect()
}

/// Every place where `call` is written as its name and an object literal equal to its
/// arguments (in any key order, as a template that sorts them writes), with its strings between
/// one delimiter: what stands between a string argument's `key:` and its value.
fn find_object_literal(text: &str, call: &Call) -> Vec<Found> {
    let Value::Object(arguments) = &call.arguments else {
        return Vec::new();
    };
    let Some((key, first)) = arguments.iter().find_map(|(k, v)| Some((k, v.as_str()?))) else {
        return Vec::new();
    };
    text.match_indices(call.name)
        .filter_map(|(at, _)| {
            let open = at + call.name.len();
            let body = text.get(open..)?.strip_prefix('{')?;
            let after_key = body.find(&format!("{key}:"))? + key.len() + 1;
            let written = &body[after_key..];
            let delimiter = &written[..written.find(first)?];
            if delimiter.is_empty() || !written[delimiter.len() + first.len()..].starts_with(delimiter) {
                return None;
            }
            let mut literal = crate::syntax::object_literal::Literal {
                text,
                bytes: text.as_bytes(),
                pos: open,
                depth: 0,
                delimiter,
            };
            let read = literal.object(true).ok()?;
            let same = read.len() == arguments.len() && read.iter().all(|entry| arguments.contains(entry));
            same.then(|| Found {
                start: at,
                end: literal.pos,
                shape: Shape::ObjectLiteral {
                    delimiter: delimiter.to_owned(),
                },
            })
        })
        .collect()
}

fn find_tag_json(text: &str, call: &Call) -> Vec<Found> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(call.name) {
        let after = at + call.name.len();
        for (i, _) in text[after..].match_indices('{') {
            let start = after + i;
            if let Ok((v, end)) = parse_value_at(text, start) {
                if v == call.arguments {
                    found.push(Found {
                        start: at,
                        end,
                        shape: Shape::TagJson {
                            name_suffix: text[after..start].to_owned(),
                        },
                    });
                    break;
                }
            }
        }
    }
    found
}

/// `value` as a format that writes arguments as text writes a string: the string itself; other
/// values as JSON (the probe's other values, `5`, read the same in JSON and Python).
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_json(),
    }
}

/// The markers of `call` (two arguments at least) written one argument at a time: after the
/// name, `g0` = name suffix + key open, then per argument key, `g1` (key close), value, and
/// between two arguments `g2` = value close + key open; after the last value, value close and
/// the call's end. Key open is what `g0` and `g2` end with alike, value close the rest of `g2`,
/// which the text after the last value must begin with.
fn learn_arguments(text: &str, call: &Call) -> Option<(Found, Vec<String>)> {
    let Value::Object(args) = &call.arguments else {
        return None;
    };
    let mut names = text.match_indices(call.name);
    let (at, _) = names.next()?;
    if names.next().is_some() || args.len() < 2 {
        return None;
    }
    let mut cursor = at + call.name.len();
    let mut gaps = Vec::new();
    for (key, value) in args {
        let k = cursor + text[cursor..].find(key.as_str())?;
        gaps.push(text[cursor..k].to_owned());
        cursor = k + key.len();
        let v_text = text_of(value);
        let v = cursor + text[cursor..].find(v_text.as_str())?;
        gaps.push(text[cursor..v].to_owned());
        cursor = v + v_text.len();
    }
    let tail = &text[cursor..];
    let (g0, g2) = (&gaps[0], &gaps[2]);
    let shared = g2.len() - ceil(g2, g2.len() - common_suffix(g0, g2));
    // The name's suffix is at least what `g0` does not share with `g2`.
    let suffix_len = best_split(g0, g0.len() - shared, g0.len(), g0.len() - shared);
    let open_len = g0.len() - suffix_len;
    let key_open = &g2[g2.len() - open_len..];
    let value_close = &g2[..g2.len() - open_len];
    if key_open.trim().is_empty() || value_close.trim().is_empty() || !tail.starts_with(value_close) {
        return None;
    }
    let string_close = args.iter().position(|(_, v)| matches!(v, Value::String(_)))?;
    let other_close = args.iter().position(|(_, v)| !matches!(v, Value::String(_)))?;
    let markers = ArgumentMarkers {
        name_suffix: g0[..g0.len() - open_len].to_owned(),
        key_open: key_open.to_owned(),
        key_close: gaps[2 * string_close + 1].clone(),
        key_close_non_string: gaps[2 * other_close + 1].clone(),
        value_close: value_close.to_owned(),
    };
    Some((
        Found {
            start: at,
            end: cursor + value_close.len(),
            shape: Shape::TagPerArgument(markers),
        },
        gaps,
    ))
}

/// `call` as the markers write it, from its name to its last value's close.
fn write_arguments(m: &ArgumentMarkers, call: &Call) -> String {
    let mut out = format!("{}{}", call.name, m.name_suffix);
    if let Value::Object(args) = &call.arguments {
        for (key, value) in args {
            let close = if matches!(value, Value::String(_)) {
                &m.key_close
            } else {
                &m.key_close_non_string
            };
            out.push_str(&m.key_open);
            out.push_str(key);
            out.push_str(close);
            out.push_str(&text_of(value));
            out.push_str(&m.value_close);
        }
    }
    out
}

/// How the format writes the typed probe's boolean (`scalars`) and list (`containers`): the
/// text between the key's markers and the value's close, read as JSON or as Python's `str()`.
fn value_styles(m: &ArgumentMarkers, text: &str) -> Result<(ValueStyle, ValueStyle), ParseError> {
    let call = typed_call();
    let Value::Object(args) = &call.arguments else {
        return Err(no_calls("the typed probe has no arguments"));
    };
    let mut styles = Vec::new();
    for (key, value) in args {
        let opening = format!("{}{key}{}", m.key_open, m.key_close_non_string);
        let written = text.find(&opening).and_then(|i| {
            let from = i + opening.len();
            text[from..].find(&m.value_close).map(|j| text[from..from + j].trim())
        });
        let Some(written) = written else {
            return Err(no_calls(format!(
                "the call to `{}` does not write its argument `{key}` as the other calls do: {text:?}",
                call.name
            )));
        };
        let mut python = String::new();
        let _ = super::py::str_of(&super::render::to_jinja(value), &mut python);
        let style = if parse_json(written).ok().as_ref() == Some(value) {
            ValueStyle::Json
        } else if written == python {
            ValueStyle::Python
        } else {
            return Err(ambiguous(&format!(
                "the value {} of `{key}` is written as {written:?}, neither JSON nor Python",
                value.to_json()
            )));
        };
        styles.push(style);
    }
    Ok((styles[0], styles[1]))
}

fn ambiguous(message: &str) -> ParseError {
    ParseError::new(ErrorCode::TemplateAmbiguous, 0, format!("two readings: {message}"))
}

fn no_calls(message: impl Into<String>) -> ParseError {
    ParseError::new(ErrorCode::TemplateNoToolCalls, 0, message)
}

/// The one reading of `call` in `text` as a JSON object or as a tag and a JSON object; `None`
/// when there is neither.
fn find_one(text: &str, call: &Call) -> Result<Option<Found>, ParseError> {
    let mut found = find_objects(text, call);
    if found.is_empty() {
        found = find_tag_json(text, call);
    }
    if found.is_empty() {
        found = find_call_syntax(text, call);
    }
    if found.is_empty() {
        found = find_object_literal(text, call);
    }
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(ambiguous(&format!(
            "the call to `{}` is {} at byte {} or {} at byte {}",
            call.name,
            describe_shape(&found[0].shape),
            found[0].start,
            describe_shape(&found[1].shape),
            found[1].start
        ))),
    }
}

fn describe_shape(shape: &Shape) -> String {
    match shape {
        Shape::Object {
            name_key,
            arguments_key,
            ..
        } => format!("the object with the name in {name_key:?} and the arguments in {arguments_key:?}"),
        Shape::NameKeyed => "the object keyed by the name".to_owned(),
        Shape::TagJson { name_suffix } => format!("the name, {name_suffix:?} and the arguments' object"),
        Shape::TagPerArgument(m) => format!("the name and tagged arguments {m:?}"),
        Shape::CallSyntax => "a Python call".to_owned(),
        Shape::ObjectLiteral { delimiter } => format!("the name and an object literal with strings in {delimiter:?}"),
    }
}

/// The calls to the two probe tools located in their call texts, in one shape: the call with
/// two arguments tells the shape where neither is a JSON object; the other call must agree.
fn read_pair(one: &str, other: &str, a: &Call, b: &Call) -> Result<(Found, Found), ParseError> {
    if let (Some(x), Some(y)) = (find_one(one, a)?, find_one(other, b)?) {
        return Ok((x, y));
    }
    let Some((second, _)) = learn_arguments(other, b) else {
        return Err(no_calls(format!(
            "no tool calls rendered as JSON or as tagged arguments: the call to `{}` renders as {other:?}",
            b.name
        )));
    };
    let Shape::TagPerArgument(m) = &second.shape else {
        return Err(no_calls("the call's arguments are not tagged"));
    };
    let written = write_arguments(m, a);
    let Some(start) = one.find(&written) else {
        return Err(ambiguous(&format!(
            "the call to `{}` reads as tagged arguments {m:?}, but the call to `{}` renders as {one:?}",
            b.name, a.name
        )));
    };
    let first = Found {
        start,
        end: start + written.len(),
        shape: second.shape.clone(),
    };
    Ok((first, second))
}

/// The fields of `spec` that the shape of its calls gives.
/// `marker` less the empty reasoning blocks it begins with (`<|START_THINKING|><|END_THINKING|>`
/// before Command R7B's `<|START_ACTION|>`): a template that writes one before its calls leaves
/// what the model thinks there to the reasoning rules, which read the block wherever it stands.
fn without_empty_reasoning(marker: &str) -> String {
    let mut rest = marker;
    while let Some(after) = crate::text::reasoning::BLOCKS.iter().find_map(|b| {
        let inner = rest.strip_prefix(b.open)?.trim_start();
        Some(inner.strip_prefix(b.close)?.trim_start())
    }) {
        if after.is_empty() {
            break;
        }
        rest = after;
    }
    rest.to_owned()
}

/// The probe id of the call at `index` of a turn.
pub(super) fn probe_id(index: usize) -> String {
    format!("call{index}{ID_TAIL}")
}

/// A marker that holds the first call's probe id, split around it.
fn split_id(marker: &str) -> Option<(String, String)> {
    let (before, after) = marker.split_once(&probe_id(0))?;
    Some((before.to_owned(), after.to_owned()))
}

/// Whether `marker` is no marker: empty, or white space only.
fn blank(marker: &str) -> bool {
    marker.trim().is_empty()
}

/// The text between a call's name and its arguments: the name's suffix, or the suffix, the
/// call's id and the id's suffix.
fn set_name_suffix(spec: &mut FormatSpec, text: &str) -> Result<(), ParseError> {
    match split_id(text) {
        Some((_, suffix)) if blank(&suffix) || spec.id != IdPosition::None => Err(ambiguous(&format!(
            "the template writes each call's id after its name ({text:?}) with nothing after it to end it"
        ))),
        Some((name_suffix, suffix)) => {
            spec.name_suffix = name_suffix;
            spec.id = IdPosition::AfterName;
            spec.id_suffix = suffix;
            Ok(())
        }
        None if text.contains(ID_TAIL) => Err(ambiguous(&format!(
            "the template writes each call's id after its name ({text:?}): markers that change from call to call are not one format"
        ))),
        None => {
            text.clone_into(&mut spec.name_suffix);
            Ok(())
        }
    }
}

fn fill(spec: &mut FormatSpec, shape: Shape, renders: &Renders) -> Result<(), ParseError> {
    match shape {
        Shape::Object {
            name_key,
            arguments_key,
            arguments,
        } => {
            spec.kind = CallKind::JsonObject;
            spec.name_key = name_key;
            spec.arguments_key = arguments_key;
            spec.arguments = arguments;
        }
        Shape::NameKeyed => spec.kind = CallKind::NameKeyedObject,
        Shape::CallSyntax => spec.kind = CallKind::CallSyntax,
        Shape::ObjectLiteral { delimiter } => {
            spec.kind = CallKind::ObjectLiteral;
            spec.string_delimiter = delimiter;
        }
        Shape::TagJson { name_suffix } => {
            spec.kind = CallKind::TagJson;
            set_name_suffix(spec, &name_suffix)?;
        }
        Shape::TagPerArgument(m) => {
            let typed = renders
                .typed
                .as_deref()
                .map(|t| renders.call_text(t))
                .ok_or_else(|| no_calls(format!("the call to `{}` does not render", typed_call().name)))?;
            let (scalars, containers) = value_styles(&m, typed)?;
            spec.kind = CallKind::TagPerArgument;
            set_name_suffix(spec, &m.name_suffix)?;
            spec.key_open = m.key_open;
            if m.key_close_non_string != m.key_close {
                spec.key_close_non_string = m.key_close_non_string;
            }
            spec.key_close = m.key_close;
            spec.value_close = m.value_close;
            spec.scalars = scalars;
            spec.containers = containers;
        }
    }
    Ok(())
}

/// Where the call's id stands in the markers: right after the call's start marker, the id and
/// then the rest of that marker come before the name; anywhere else, an id is text that changes
/// from call to call.
fn place_id(spec: &mut FormatSpec) -> Result<(), ParseError> {
    let opening = if blank(&spec.section_start) {
        &mut spec.call_start
    } else {
        &mut spec.section_start
    };
    *opening = without_empty_reasoning(opening);
    if let Some((start, suffix)) = split_id(&spec.call_start) {
        spec.call_start = start;
        spec.id = IdPosition::BeforeName;
        spec.id_suffix = suffix;
    }
    for marker in [
        &spec.section_start,
        &spec.section_end,
        &spec.call_start,
        &spec.call_end,
        &spec.separator,
    ] {
        if marker.contains(ID_TAIL) {
            return Err(ambiguous(&format!(
                "the template writes each call's id in its markers ({marker:?}): markers that change from call to call are not one format"
            )));
        }
    }
    Ok(())
}

/// A template that numbers its calls after the name (Kimi K2's `functions.NAME:0`): in the render
/// of two calls `two`, the second call (`core_b` alone, a call to `name`) written with the
/// first's number, so that the calls compare; whether it was numbered (the number is then the
/// call's id).
fn renumber(shape: &Shape, core_b: &str, name: &str, two: Option<&mut String>) -> bool {
    let (Shape::TagJson { name_suffix }, Some(text)) = (shape, two) else {
        return false;
    };
    let (false, Some(at)) = (text.contains(core_b), name_suffix.find('0')) else {
        return false;
    };
    let at = name.len() + at;
    let renumbered = format!("{}1{}", &core_b[..at], &core_b[at + 1..]);
    if !text.contains(&renumbered) {
        return false;
    }
    *text = text.replace(&renumbered, core_b);
    true
}

/// The spec of the template's tool calls (see the module's documentation).
pub fn infer(template: &ChatTemplate) -> Result<FormatSpec, ParseError> {
    let renderer = template.compile()?;
    let renders = Renders::new(&renderer, &template.special_tokens)?;
    let [a, b] = calls();
    let one = renders.call_text(&renders.one);
    if one.is_empty() || !one.contains(a.name) {
        return Err(no_calls(
            "no tool calls rendered: an assistant message with tool_calls renders without them",
        ));
    }
    if one.len() > MAX_CALL_TEXT {
        return Err(ParseError::new(
            ErrorCode::TemplateLimit,
            0,
            format!("the text of one call is longer than {MAX_CALL_TEXT} bytes"),
        ));
    }
    let other = renders.call_text(&renders.other);

    let (first, second) = read_pair(one, other, &a, &b)?;
    let (before, after) = (&one[..first.start], &one[first.end..]);
    let (other_before, other_after) = (&other[..second.start], &other[second.end..]);
    if (other_before, other_after) != (before, after) || first.shape != second.shape {
        return Err(ambiguous(&format!(
            "a call renders as {before:?} + {} + {after:?}, and a call to another tool as {other_before:?} + {} + {other_after:?}",
            describe_shape(&first.shape),
            describe_shape(&second.shape)
        )));
    }

    // Two calls: what stands between them tells call markers from section markers. A template
    // that renders only the first of two calls writes one call per message.
    let (mut call_start, mut call_end, mut separator) = (before, after, "");
    let (mut section_start, mut section_end) = ("", "");
    // The second call's id, written as the first's: markers that hold the id then compare.
    let mut two = renders.two.as_ref().map(|two| two.replace(&probe_id(1), &probe_id(0)));
    let numbered = renumber(&first.shape, &other[second.start..second.end], b.name, two.as_mut());
    if let Some(two) = &two {
        let two = renders.call_text(two);
        if two.contains(b.name) {
            let (x, y) = match &first.shape {
                Shape::Object { .. } | Shape::NameKeyed => (find_one(two, &a)?, find_one(two, &b)?),
                _ => {
                    let (core_a, core_b) = (&one[first.start..first.end], &other[second.start..second.end]);
                    let x = two.find(core_a).map(|s| (s, s + core_a.len()));
                    let y = x.and_then(|(_, e)| two[e..].find(core_b).map(|s| (e + s, e + s + core_b.len())));
                    let at = |span: Option<(usize, usize)>| {
                        span.map(|(start, end)| Found {
                            start,
                            end,
                            shape: first.shape.clone(),
                        })
                    };
                    (at(x), at(y))
                }
            };
            let (Some(x), Some(y)) = (x, y) else {
                return Err(ambiguous(&format!(
                    "one call renders as {before:?} + call + {after:?}, but in two calls {two:?} the calls are not written as alone"
                )));
            };
            if x.end > y.start || &two[..x.start] != before || &two[y.end..] != after {
                return Err(ambiguous(&format!(
                    "one call renders as {before:?} + call + {after:?}, two calls as {two:?}"
                )));
            }
            let between = &two[x.end..y.start];
            let end_max = floor(after, common_prefix(after, between));
            let start_max = common_suffix(before, between);
            let end_min = between.len().saturating_sub(start_max).min(end_max);
            let end_len = best_split(between, end_min, end_max, end_max);
            let start_len = common_suffix(before, &between[end_len..]);
            let start_len = before.len() - ceil(before, before.len() - start_len);
            call_end = &after[..end_len];
            section_end = &after[end_len..];
            call_start = &before[before.len() - start_len..];
            section_start = &before[..before.len() - start_len];
            separator = &between[end_len..between.len() - start_len];
        }
    }
    let mut spec = FormatSpec {
        section_start: section_start.to_owned(),
        section_end: section_end.to_owned(),
        call_start: call_start.to_owned(),
        call_end: call_end.to_owned(),
        separator: separator.to_owned(),
        ..FormatSpec::default()
    };
    place_id(&mut spec)?;
    let shape = match first.shape {
        Shape::TagJson { name_suffix } if numbered => Shape::TagJson {
            name_suffix: name_suffix.replacen('0', &probe_id(0), 1),
        },
        shape => shape,
    };
    fill(&mut spec, shape, &renders)?;
    if spec.id != IdPosition::None && matches!(spec.kind, CallKind::JsonObject | CallKind::NameKeyedObject) {
        return Err(ambiguous(&format!(
            "the template writes each call's id in its start marker before a JSON call object ({:?})",
            spec.call_start
        )));
    }
    choose_layout(&mut spec, &renders, numbered);
    super::turn::infer(&renderer, &renders, &mut spec);
    Ok(spec)
}

/// The layout of what the spec writes ([`FormatSpec::write`]): the first of spaced or compact
/// JSON, keys in order or sorted (and, for call syntax, the value styles) with which the spec
/// writes each probe turn as the template rendered it. Where none does, the spec keeps the
/// default (spaced, in order): reading does not depend on it.
fn choose_layout(spec: &mut FormatSpec, renders: &Renders, numbered: bool) {
    let [a, b] = calls();
    let typed = typed_call();
    let id = |i: usize| if numbered { i.to_string() } else { probe_id(i) };
    let (id0, id1) = (id(0), id(1));
    let args = |c: &Call| match &c.arguments {
        Value::Object(entries) => entries.clone(),
        _ => Object::new(),
    };
    let (args_a, args_b, args_typed) = (args(&a), args(&b), args(&typed));
    let mut turns: Vec<(String, Vec<CallToWrite<'_>>)> = vec![
        (
            renders.call_text(&renders.one).to_owned(),
            vec![(a.name, &args_a, Some(&id0))],
        ),
        (
            renders.call_text(&renders.other).to_owned(),
            vec![(b.name, &args_b, Some(&id0))],
        ),
    ];
    if let Some(typed_text) = &renders.typed {
        turns.push((
            renders.call_text(typed_text).to_owned(),
            vec![(typed.name, &args_typed, Some(&id0))],
        ));
    }
    if let Some(two) = renders
        .two
        .as_deref()
        .map(|t| renders.call_text(t))
        .filter(|t| t.contains(b.name))
    {
        let both = vec![
            (a.name, &args_a, Some(id0.as_str())),
            (b.name, &args_b, Some(id1.as_str())),
        ];
        turns.push((two.to_owned(), both));
    }
    let styles: &[(ValueStyle, ValueStyle)] = if spec.kind == CallKind::CallSyntax {
        &[
            (ValueStyle::Python, ValueStyle::Json),
            (ValueStyle::Python, ValueStyle::Python),
            (ValueStyle::Json, ValueStyle::Json),
            (ValueStyle::Json, ValueStyle::Python),
        ]
    } else {
        &[(spec.scalars, spec.containers)]
    };
    let mut candidate = spec.clone();
    for &(scalars, containers) in styles {
        for json in [JsonLayout::Spaced, JsonLayout::Compact] {
            for (sorted_keys, ascii) in [(false, false), (true, false), (false, true), (true, true)] {
                candidate.scalars = scalars;
                candidate.containers = containers;
                candidate.json = json;
                candidate.sorted_keys = sorted_keys;
                candidate.ascii = ascii;
                let writes_all = turns.iter().all(|(text, calls)| {
                    candidate
                        .write(calls.iter().copied())
                        .is_ok_and(|written| text.contains(&written))
                });
                if writes_all {
                    *spec = candidate;
                    return;
                }
            }
        }
    }
    if spec.kind == CallKind::CallSyntax {
        spec.scalars = ValueStyle::Python;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A template written here for the test, with markers of its own: inference finds them from
    /// the renders alone.
    const TOY: &str = "{% for m in messages %}[{{ m.role }}]{% if m.tool_calls %}<<calls>>{% for c in m.tool_calls %}{% if not loop.first %};{% endif %}@@{\"fn\": {{ c.function.name | tojson }}, \"args\": {{ c.function.arguments | tojson }}}##{% endfor %}<</calls>>{% else %}{{ m.content }}{% endif %}[end]{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}";

    #[test]
    fn a_toy_template_gives_its_own_markers() {
        let spec = infer(&ChatTemplate::new(TOY)).unwrap();
        assert_eq!(
            (spec.section_start.as_str(), spec.section_end.as_str()),
            ("<<calls>>", "<</calls>>")
        );
        assert_eq!((spec.call_start.as_str(), spec.call_end.as_str()), ("@@", "##"));
        assert_eq!(spec.separator, ";");
        assert_eq!((spec.name_key.as_str(), spec.arguments_key.as_str()), ("fn", "args"));
        assert_eq!(spec.arguments, ArgumentsEncoding::Object);
        assert_eq!(spec.kind, CallKind::JsonObject);
    }

    #[test]
    fn a_template_without_calls_has_none() {
        let e = infer(&ChatTemplate::new("{% for m in messages %}{{ m.content }}{% endfor %}")).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateNoToolCalls);
    }

    #[test]
    fn two_keys_holding_the_name_are_two_readings() {
        let t = "{% for m in messages %}{% for c in m.tool_calls %}<c>{\"a\": {{ c.function.name | tojson }}, \"b\": {{ c.function.name | tojson }}, \"args\": {{ c.function.arguments | tojson }}}</c>{% endfor %}{% endfor %}";
        let e = infer(&ChatTemplate::new(t)).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateAmbiguous, "{e}");
        assert!(e.message.starts_with("two readings: "), "{}", e.message);
    }

    #[test]
    fn a_render_error_is_reported() {
        let e = infer(&ChatTemplate::new("{{ raise_exception('no tools here') }}")).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateRender);
        assert!(e.message.contains("no tools here"), "{}", e.message);
    }
}
