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
//! - **Section or call markers.** With two calls, what stands between the two objects is the
//!   first call's end marker, a separator and the second call's start marker; the part of the
//!   one-call markers that it repeats belongs to each call, the rest to the section.
//! - **Tokens.** Where the tokenizer's added tokens are known ([`ChatTemplate::special_tokens`]),
//!   a diff never splits one: two renders may share the first characters of two different
//!   tokens (`<|START_RESPONSE|>` and `<|START_ACTION|>`), which belong to the call's text.
//! - **Checks.** A call to another tool with other arguments must render with the same markers;
//!   if not, or if two objects or two keys fit, the renders have two readings
//!   (`template.ambiguous`).

use super::render::{ChatTemplate, Renderer};
use super::spec::{ArgumentsEncoding, FormatSpec};
use crate::error::{ErrorCode, ParseError};
use crate::syntax::json::{parse_json, parse_value_at};
use crate::value::{Number, Object, Value};

/// The longest call text searched for the call object, in bytes.
const MAX_CALL_TEXT: usize = 64 * 1024;

/// One probe call: a tool's name and its arguments.
struct Call {
    name: &'static str,
    arguments: Value,
}

fn s(text: &str) -> Value {
    Value::String(text.to_owned())
}

fn obj(entries: Vec<(&str, Value)>) -> Value {
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

/// The tools the probe calls use, as an OpenAI tool list.
fn tools() -> Value {
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
    ])
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
                    ("id", s(&format!("call{i}Xyz9"))),
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
struct Renders {
    /// What bounds a call's text: the conversation with an assistant turn without calls, for
    /// each of [`CONTENTS`] that renders; or, when none does, the conversation up to the
    /// generation prompt (for the start) and with an empty assistant turn (for the end).
    starts: Vec<String>,
    ends: Vec<String>,
    /// The tokenizer's added tokens: a call's text never starts or ends inside one.
    tokens: Vec<String>,
    one: String,
    other: String,
    two: Option<String>,
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
        Ok(Renders {
            starts,
            ends,
            tokens: tokens.to_vec(),
            one,
            other,
            two,
        })
    }

    /// What the model writes for the turn rendered as `full`: from where it first differs from
    /// every bounding render to where it last differs from every one. Of the places a diff could
    /// split, this takes the ones that leave the most text to the call; a diff that would split
    /// an added token moves to the token's start (or end).
    fn call_text<'a>(&self, full: &'a str) -> &'a str {
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

    /// `at`, or, when it falls inside an added token written in `text`, that token's start
    /// (`after` false) or end.
    fn outside_tokens(&self, text: &str, at: usize, after: bool) -> usize {
        for token in self.tokens.iter().filter(|t| !t.is_empty()) {
            let from = floor(text, at.saturating_sub(token.len() - 1));
            for (i, _) in text[from..at].char_indices() {
                let i = from + i;
                if at < i + token.len() && text[i..].starts_with(token.as_str()) {
                    return if after { i + token.len() } else { i };
                }
            }
        }
        at
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &str, b: &str) -> usize {
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

/// A call object found in a call text: where it stands and how it holds the call.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Found {
    start: usize,
    end: usize,
    name_key: String,
    arguments_key: String,
    arguments: ArgumentsEncoding,
}

/// Every reading of `call` in `text`: each JSON object in it with the call's name as a string
/// under one key and its arguments under another.
fn find(text: &str, call: &Call) -> Vec<Found> {
    let mut found = Vec::new();
    for (start, _) in text.match_indices('{') {
        let Ok((Value::Object(entries), end)) = parse_value_at(text, start) else {
            continue;
        };
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
                    name_key: name_key.clone(),
                    arguments_key: arguments_key.clone(),
                    arguments,
                });
            }
        }
    }
    found
}

fn ambiguous(message: &str) -> ParseError {
    ParseError::new(ErrorCode::TemplateAmbiguous, 0, format!("two readings: {message}"))
}

fn no_calls(message: impl Into<String>) -> ParseError {
    ParseError::new(ErrorCode::TemplateNoToolCalls, 0, message)
}

/// The one reading of `call` in `text`.
fn find_one(text: &str, call: &Call) -> Result<Found, ParseError> {
    let mut found = find(text, call);
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(no_calls(format!(
            "no tool calls rendered as a JSON object with the name and the arguments: the call to `{}` renders as {:?}",
            call.name, text
        ))),
        _ => Err(ambiguous(&format!(
            "the call to `{}` is the object at byte {} (name in {:?}, arguments in {:?}) or at byte {} (name in {:?}, arguments in {:?})",
            call.name,
            found[0].start,
            found[0].name_key,
            found[0].arguments_key,
            found[1].start,
            found[1].name_key,
            found[1].arguments_key
        ))),
    }
}

/// The spec of the template's tool calls (see the module's documentation).
pub fn infer(template: &ChatTemplate) -> Result<FormatSpec, ParseError> {
    let renders = Renders::new(&template.compile()?, &template.special_tokens)?;
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
    let first = find_one(one, &a)?;
    let (before, after) = (&one[..first.start], &one[first.end..]);

    // Another name and other arguments: the same markers and keys.
    let other = renders.call_text(&renders.other);
    let second = find_one(other, &b)?;
    let (other_before, other_after) = (&other[..second.start], &other[second.end..]);
    if (other_before, other_after) != (before, after)
        || (&second.name_key, &second.arguments_key) != (&first.name_key, &first.arguments_key)
    {
        return Err(ambiguous(&format!(
            "a call renders as {before:?} + object + {after:?}, and a call to another tool as {other_before:?} + object + {other_after:?}"
        )));
    }

    // Two calls: what stands between the objects tells call markers from section markers.
    let (mut call_start, mut call_end, mut separator) = (before, after, "");
    let (mut section_start, mut section_end) = ("", "");
    if let Some(two) = &renders.two {
        let two = renders.call_text(two);
        let (x, y) = (find_one(two, &a)?, find_one(two, &b)?);
        if x.end > y.start || &two[..x.start] != before || &two[y.end..] != after {
            return Err(ambiguous(&format!(
                "one call renders as {before:?} + object + {after:?}, two calls as {two:?}"
            )));
        }
        let between = &two[x.end..y.start];
        let end_len = floor(after, common_prefix(after, between));
        let start_len = common_suffix(before, &between[end_len..]);
        let start_len = before.len() - ceil(before, before.len() - start_len);
        call_end = &after[..end_len];
        section_end = &after[end_len..];
        call_start = &before[before.len() - start_len..];
        section_start = &before[..before.len() - start_len];
        separator = &between[end_len..between.len() - start_len];
    }
    Ok(FormatSpec {
        section_start: section_start.trim().to_owned(),
        section_end: section_end.trim().to_owned(),
        call_start: call_start.trim().to_owned(),
        call_end: call_end.trim().to_owned(),
        separator: separator.trim().to_owned(),
        name_key: first.name_key,
        arguments_key: first.arguments_key,
        arguments: first.arguments,
    })
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
