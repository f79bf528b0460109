//! The most common message shape read without building the message around its calls:
//! `{"role": …, "content": …, "tool_calls": [{"id": …, "type": "function", "function": {"name":
//! …, "arguments": "…"}}, …]}`, as OpenAI's API and its imitators write an assistant message.
//!
//! Every member other than `tool_calls` is checked with the strict parse and not built; a call's
//! arguments, an object or a JSON string holding one, are built as [`Defer`] says (by the host's
//! builder, straight from the text, when there is one). Anything else (an escaped key, a repeated
//! key, `function_call`, an empty list, a call written another way, any error) is `None`: the
//! caller reads the value the general way (`shape::calls_in`), which gives the same calls for
//! this shape and reports every error. A failure costs one more read of the value, so reading
//! stays linear.

use crate::call::{Deferred, Format, Grammar, Origin, ToolCall};
use crate::lex::{self, skip_ws};
use crate::syntax::json::{self, Tree};
use crate::syntax::shape::{BuildArguments, Defer, ARGUMENT_KEYS, DEFER_FROM, ID_KEYS};
use crate::value::{Object, Value};

/// The most keys one object of the shape may have here (more: the general reading).
const MOST_KEYS: usize = 8;

/// The calls of the message at `pos` (a `{`), pushed to `out` in order, and the offset after
/// the message; `None` when it is not this shape as written here (nothing is pushed then).
pub(crate) fn message_calls(src: &str, pos: usize, defer: Defer<'_>, out: &mut Vec<ToolCall>) -> Option<usize> {
    let first = out.len();
    let mut listed = false;
    let end = entries(src, pos, |key, p| match key {
        "tool_calls" if !listed => {
            listed = true;
            tool_calls(src, p, defer, out)
        }
        // A call object's keys: not a message (the general reading says what it is).
        "tool_calls" | "function_call" | "function" => None,
        _ if ARGUMENT_KEYS.contains(&key) => None,
        _ => json::check_nested_at(src, p, 1),
    });
    match end {
        Some(end) if listed => Some(end),
        _ => {
            out.truncate(first);
            None
        }
    }
}

/// The non-empty list of function objects at `p`, inside the message: the offset after it.
fn tool_calls(src: &str, p: usize, defer: Defer<'_>, out: &mut Vec<ToolCall>) -> Option<usize> {
    let bytes = src.as_bytes();
    if bytes.get(p) != Some(&b'[') {
        return None;
    }
    let mut p = skip_ws(bytes, p + 1);
    loop {
        let (call, end) = function_object(src, p, defer)?;
        out.push(call);
        p = skip_ws(bytes, end);
        match bytes.get(p)? {
            b',' => p = skip_ws(bytes, p + 1),
            b']' => return Some(p + 1),
            _ => return None,
        }
    }
}

/// `{"id": …, "type": "function", "function": {…}}` at `at`, in the list (its members are
/// three containers deep): the call, whose span is this object, and the offset after it.
fn function_object(src: &str, at: usize, defer: Defer<'_>) -> Option<(ToolCall, usize)> {
    if src.as_bytes().get(at) != Some(&b'{') {
        return None;
    }
    let mut call = None;
    let end = entries(src, at, |key, p| match key {
        "function" => {
            let (read, end) = call_object(src, p, defer)?;
            call = Some(read);
            Some(end)
        }
        "type" => lex::at(src.as_bytes(), p, "\"function\"").then_some(p + "\"function\"".len()),
        _ if ID_KEYS.contains(&key) => json::check_nested_at(src, p, 3),
        _ => None,
    })?;
    let (name, arguments, deferred, key) = call?;
    let origin = Origin::Object {
        at,
        wrapped: true,
        name: "name",
        args: key,
    };
    let mut call = ToolCall::new(name, arguments, Format::Json, at..end).with_origin(origin);
    call.deferred = deferred;
    Some((call, end))
}

/// A call read by [`call_object`]: name, arguments, where the host built them, and the key they
/// were under (`None`: none written).
type Read = (String, Object, Option<Deferred>, Option<&'static str>);

/// `{"name": …, "arguments": …}` at `p` (four containers deep): the call and the offset after it.
fn call_object(src: &str, p: usize, defer: Defer<'_>) -> Option<(Read, usize)> {
    if src.as_bytes().get(p) != Some(&b'{') {
        return None;
    }
    let mut name = None;
    let mut arguments = None;
    let end = entries(src, p, |key, v| {
        if key == "name" {
            let (Value::String(s), end) = json::value_nested_at(src, v, 4)? else {
                return None;
            };
            name = Some(s).filter(|s| !s.is_empty());
            return name.as_ref().map(|_| end);
        }
        if let Some(&k) = ARGUMENT_KEYS.iter().find(|k| **k == key) {
            if arguments.is_some() {
                return None;
            }
            let (object, deferred, end) = arguments_at(src, v, defer)?;
            arguments = Some((object, deferred, k));
            return Some(end);
        }
        ID_KEYS.contains(&key).then(|| json::check_nested_at(src, v, 4))?
    })?;
    let read = match arguments {
        Some((object, deferred, key)) => (name?, object, deferred, Some(key)),
        None => (name?, Object::new(), None, None),
    };
    Some((read, end))
}

/// The arguments at `p` (four containers deep): an object, or a string whose whole content is
/// one JSON object (read as a text of its own, from depth zero). The offset after them comes last.
fn arguments_at(src: &str, p: usize, defer: Defer<'_>) -> Option<(Object, Option<Deferred>, usize)> {
    let kept = |builder: &dyn BuildArguments, (handle, end): (usize, usize), grammar| {
        Some((Object::new(), Some(builder.deferred(handle, p, grammar)?), end))
    };
    match src.as_bytes().get(p)? {
        b'{' => match defer {
            Defer::Build(builder) => kept(builder, builder.object(src, p, 4)?, Grammar::Json),
            Defer::Large if src.len() - p >= DEFER_FROM => Some((
                Object::new(),
                Some(Deferred::Text {
                    at: p,
                    grammar: Grammar::Json,
                }),
                json::check_nested_at(src, p, 4)?,
            )),
            _ => match json::value_nested_at(src, p, 4)? {
                (Value::Object(object), end) => Some((object, None, end)),
                _ => None,
            },
        },
        b'"' => {
            if let Defer::Build(builder) = defer {
                return kept(builder, builder.json_string(src, p)?, Grammar::JsonString);
            }
            let (object, end) = if let (Some(read), _) = json::build_object_in_string(src, p, Tree) {
                read
            } else {
                let (text, end) = json::string_at(src, p)?;
                (json::build_complete_object(&text, Tree).0?, end)
            };
            match object {
                Value::Object(object) => Some((object, None, end)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Reads the object at `at` (a `{`) whose keys are written without escapes, calling `member`
/// with each key and the offset of its value, which answers with the offset after the value: the
/// offset after the object, or `None` when `member` does, a key repeats, or the text is not such
/// an object.
fn entries(src: &str, at: usize, mut member: impl FnMut(&str, usize) -> Option<usize>) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut keys: [&str; MOST_KEYS] = [""; MOST_KEYS];
    let mut count = 0;
    let mut p = skip_ws(bytes, at + 1);
    if bytes.get(p) == Some(&b'}') {
        return Some(p + 1);
    }
    loop {
        if bytes.get(p) != Some(&b'"') {
            return None;
        }
        let start = p + 1;
        let len = bytes[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if bytes[start + len] != b'"' || count == MOST_KEYS {
            return None;
        }
        let key = &src[start..start + len];
        if keys[..count].contains(&key) {
            return None;
        }
        keys[count] = key;
        count += 1;
        let colon = skip_ws(bytes, start + len + 1);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        p = skip_ws(bytes, member(key, skip_ws(bytes, colon + 1))?);
        match bytes.get(p)? {
            b',' => p = skip_ws(bytes, p + 1),
            b'}' => return Some(p + 1),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::message_calls;
    use crate::call::{Format, ToolCall};
    use crate::syntax::shape::{call_spans, calls_in, Defer, Mode};

    /// The calls of the message at `pos`, read the general way (as a leading JSON call is).
    fn general(src: &str, pos: usize) -> Vec<ToolCall> {
        let (value, end) = crate::syntax::json::probe_value_at(src, pos).unwrap();
        let spans = call_spans(src, pos, end, &value, Mode::Bare);
        let calls = calls_in(src, pos, value, Mode::Bare).unwrap().unwrap();
        let spans = spans.into_iter().chain(std::iter::repeat(pos..end));
        calls
            .into_iter()
            .zip(spans)
            .map(|(c, s)| c.into_call(Format::Json, s))
            .collect()
    }

    /// The fast reading gives the calls, spans and origins of the general one.
    #[test]
    fn messages_read_as_the_general_shapes_do() {
        for src in [
            r#"{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1, \"b\": [true, null], \"c\": \"\\u00e9\\n\"}"}}]}"#,
            r#"{"tool_calls":[{"type":"function","function":{"name":"f","arguments":{"a":{"b":2}}}},{"function":{"name":"g\u00e9","parameters":" {} "},"index":1}],"content":"x [1] {2}","refusal":null}"#,
            r#"{"content": "", "tool_calls": [{"function": {"name": "f", "id": "x", "type": "y"}}]}"#,
            r#"{"tool_calls": [{"call_id": 7, "function": {"input": "{\"q\": \"a\\\"b\"}", "name": "search"}}], "role": "assistant"}"#,
        ] {
            let mut fast = Vec::new();
            let end = message_calls(src, 0, Defer::Never, &mut fast);
            assert_eq!(end, Some(src.len()), "{src}");
            let general = general(src, 0);
            assert_eq!(fast, general, "{src}");
            let origins = |calls: &[ToolCall]| calls.iter().map(|c| c.origin.clone()).collect::<Vec<_>>();
            assert_eq!(origins(&fast), origins(&general), "{src}");
        }
    }

    /// Anything but this shape as written here is left to the general reading, which reads it
    /// (or reports its error); nothing is pushed.
    #[test]
    fn other_shapes_are_left_to_the_general_reading() {
        let call = r#"{"type": "function", "function": {"name": "f", "arguments": "{}"}}"#;
        for src in [
            format!(r#"{{"tool\u005fcalls": [{call}]}}"#),
            format!(r#"{{"role": "a", "role": "b", "tool_calls": [{call}]}}"#),
            format!(r#"{{"tool_calls": [{call}], "function_call": {{"name": "g", "arguments": "{{}}"}}}}"#),
            r#"{"tool_calls": []}"#.to_string(),
            r#"{"content": "x"}"#.to_string(),
            r#"{"tool_calls": [{"name": "f", "arguments": {}}]}"#.to_string(),
            r#"{"tool_calls": [{"type": "tool", "function": {"name": "f"}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": }"}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": {}, "parameters": {}}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "", "arguments": {}}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1, "a": 2}}}]}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": {}}}], "n": 1e999}"#.to_string(),
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": {}}}]"#.to_string(),
            format!(r#"{{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "tool_calls": [{call}]}}"#),
        ] {
            let mut out = Vec::new();
            assert_eq!(message_calls(&src, 0, Defer::Never, &mut out), None, "{src}");
            assert!(out.is_empty(), "{src}");
        }
    }
}
