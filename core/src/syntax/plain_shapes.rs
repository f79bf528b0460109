//! The documented JSON call shapes read without building the value around their calls:
//!
//! - a call object, `{"name": …, "arguments": …}` (or `parameters`, `input`, `args`), with the
//!   keys a call may have beside them (`id`, `type`, `call_id`, `index`) in any order;
//! - a function object, `{"type": "function", "function": {call object}}`, as OpenAI's API
//!   writes each of a message's calls;
//! - a list of call and function objects;
//! - an assistant message, `{"role": …, "content": …, "tool_calls": [function objects]}`.
//!
//! Every member other than a call's name and arguments is checked with the strict parse and not
//! built; a call's arguments, an object or a JSON string holding one, are built as [`Defer`]
//! says (by the host's builder, straight from the text, when there is one). Anything else (an
//! escaped key, a repeated key, `function_call`, an empty list, a call written another way, any
//! error) is `None`: the caller reads the value the general way (`shape::calls_in`), which gives
//! the same calls for these shapes and reports every error. A failure costs one more read of the
//! value, so reading stays linear.

use std::ops::Range;

use crate::call::{Deferred, Format, Grammar, ToolCall};
use crate::lex::{self, skip_ws};
use crate::syntax::json::{self, Tree};
use crate::syntax::shape::{BuildArguments, Defer, Mode, NamedArgs, ARGUMENT_KEYS, DEFER_FROM, ID_KEYS};
use crate::value::{same_key, Object, Value};

/// The most keys one object of these shapes may have here (more: the general reading).
const MOST_KEYS: usize = 8;

/// The calls of the call shape at `pos` (a `{` or `[`), standing as `mode` says, pushed to `out`
/// in order as calls of `format`, each spanning its own object; and the offset after the value.
/// `None` when it is not one of these shapes as written here (nothing is pushed then).
pub(crate) fn calls(
    src: &str,
    pos: usize,
    mode: Mode,
    format: Format,
    defer: Defer<'_>,
    out: &mut Vec<ToolCall>,
) -> Option<usize> {
    let first = out.len();
    let mut push = |(call, span): (NamedArgs, Range<usize>)| out.push(call.into_call(format, span));
    let end = match src.as_bytes().get(pos)? {
        b'{' => match lone(src, pos, 1, mode, defer) {
            Some((call, end)) => {
                push((call, pos..end));
                Some(end)
            }
            None => message(src, pos, defer, &mut push),
        },
        b'[' => items(src, pos, |at| lone(src, at, 2, mode, defer), &mut push),
        _ => None,
    };
    if end.is_none() {
        out.truncate(first);
    }
    end
}

/// A call object or a function object at `at` (a `{`), whose members are inside `inside`
/// containers: the call and the offset after it. The first key says which it may be: a key
/// neither has (a message's) is `None` at once.
fn lone(src: &str, at: usize, inside: usize, mode: Mode, defer: Defer<'_>) -> Option<(NamedArgs, usize)> {
    match first_key(src, at)? {
        "function" => function_object(src, at, inside, defer),
        key if key == "name" || ARGUMENT_KEYS.contains(&key) => call_object(src, at, inside, mode, defer),
        key if ID_KEYS.contains(&key) => {
            call_object(src, at, inside, mode, defer).or_else(|| function_object(src, at, inside, defer))
        }
        _ => None,
    }
}

/// The first key of the object at `at` (a `{`) when it is written without escapes.
fn first_key(src: &str, at: usize) -> Option<&str> {
    let bytes = src.as_bytes();
    let start = skip_ws(bytes, at + 1) + 1;
    if bytes.get(start - 1) != Some(&b'"') {
        return None;
    }
    let len = memchr::memchr(b'"', bytes.get(start..)?)?;
    Some(&src[start..start + len])
}

/// The non-empty list of objects at `pos` (a `[`), each read by `read` (given where it starts)
/// and pushed: the offset after the list.
fn items(
    src: &str,
    pos: usize,
    mut read: impl FnMut(usize) -> Option<(NamedArgs, usize)>,
    push: &mut impl FnMut((NamedArgs, Range<usize>)),
) -> Option<usize> {
    let bytes = src.as_bytes();
    if bytes.get(pos) != Some(&b'[') {
        return None;
    }
    let mut p = skip_ws(bytes, pos + 1);
    loop {
        if bytes.get(p) != Some(&b'{') {
            return None;
        }
        let (call, end) = read(p)?;
        push((call, p..end));
        p = skip_ws(bytes, end);
        match bytes.get(p)? {
            b',' => p = skip_ws(bytes, p + 1),
            b']' => return Some(p + 1),
            _ => return None,
        }
    }
}

/// The calls of the message at `pos` (a `{`), and the offset after it.
fn message(src: &str, pos: usize, defer: Defer<'_>, push: &mut impl FnMut((NamedArgs, Range<usize>))) -> Option<usize> {
    let mut listed = false;
    let end = entries(src, pos, |key, p| match key {
        "tool_calls" if !listed => {
            listed = true;
            // The calls' members are three containers deep: the message, the list, the call.
            items(src, p, |at| function_object(src, at, 3, defer), push)
        }
        // A call object's keys: not a message (the general reading says what it is).
        "tool_calls" | "function_call" | "function" => None,
        _ if ARGUMENT_KEYS.contains(&key) => None,
        _ => json::check_nested_at(src, p, 1),
    });
    end.filter(|_| listed)
}

/// `{"id": …, "type": "function", "function": {…}}` at `at`, whose members are inside `inside`
/// containers: the call and the offset after it.
fn function_object(src: &str, at: usize, inside: usize, defer: Defer<'_>) -> Option<(NamedArgs, usize)> {
    if src.as_bytes().get(at) != Some(&b'{') {
        return None;
    }
    let mut call = None;
    let end = entries(src, at, |key, p| match key {
        "function" => {
            let (read, end) = call_object(src, p, inside + 1, Mode::Tagged, defer)?;
            call = Some(read);
            Some(end)
        }
        "type" => lex::at(src.as_bytes(), p, "\"function\"").then_some(p + "\"function\"".len()),
        _ if ID_KEYS.contains(&key) => json::check_nested_at(src, p, inside),
        _ => None,
    })?;
    let mut call = call?;
    call.wrapped = true;
    Some((call, end))
}

/// `{"name": …, "arguments": …}` at `p`, whose members are inside `inside` containers: the call
/// and the offset after it. As a bare value (`mode`), a call object has arguments written.
fn call_object(src: &str, p: usize, inside: usize, mode: Mode, defer: Defer<'_>) -> Option<(NamedArgs, usize)> {
    if src.as_bytes().get(p) != Some(&b'{') {
        return None;
    }
    let mut name = None;
    let mut arguments = None;
    let end = entries(src, p, |key, v| {
        if key == "name" {
            let (Value::String(s), end) = json::value_nested_at(src, v, inside)? else {
                return None;
            };
            name = Some(s).filter(|s| !s.is_empty());
            return name.as_ref().map(|_| end);
        }
        let Some(&argument_key) = ARGUMENT_KEYS.iter().find(|k| **k == key) else {
            return ID_KEYS.contains(&key).then(|| json::check_nested_at(src, v, inside))?;
        };
        if arguments.is_some() {
            return None;
        }
        let (object, deferred, end) = arguments_at(src, v, inside, defer)?;
        arguments = Some((object, deferred, argument_key));
        Some(end)
    })?;
    let (arguments, deferred, key) = match arguments {
        Some((object, deferred, key)) => (object, deferred, Some(key)),
        None if mode == Mode::Bare => return None,
        None => (Object::new(), None, None),
    };
    let call = NamedArgs {
        name: name?,
        arguments,
        deferred,
        wrapped: false,
        key,
    };
    Some((call, end))
}

/// The arguments at `p` (inside `inside` containers), read as `defer` says: an object, or a
/// string whose whole content is one JSON object (read as a text of its own, from depth zero).
/// The offset after them comes last.
pub(crate) fn arguments_at(
    src: &str,
    p: usize,
    inside: usize,
    defer: Defer<'_>,
) -> Option<(Object, Option<Deferred>, usize)> {
    let kept = |builder: &dyn BuildArguments, (handle, end): (usize, usize), grammar| {
        Some((Object::new(), Some(builder.deferred(handle, p, grammar)?), end))
    };
    match src.as_bytes().get(p)? {
        b'{' => match defer {
            Defer::Build(builder) => kept(builder, builder.object(src, p, inside)?, Grammar::Json),
            Defer::Large if src.len() - p >= DEFER_FROM => Some((
                Object::new(),
                Some(Deferred::Text {
                    at: p,
                    grammar: Grammar::Json,
                }),
                json::check_nested_at(src, p, inside)?,
            )),
            _ => match json::value_nested_at(src, p, inside)? {
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
        let len = crate::lex::json_string_stop(bytes, start) - start;
        if bytes.get(start + len) != Some(&b'"') || count == MOST_KEYS {
            return None;
        }
        let key = &src[start..start + len];
        if keys[..count].iter().any(|k| same_key(k, key)) {
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
    use super::calls;
    use crate::call::{Format, ToolCall};
    use crate::syntax::shape::{call_spans, calls_in, Defer, Mode};
    use crate::value::MAX_DEPTH;

    /// The calls of the JSON value at `pos` read the general way, in `mode`, and the offset
    /// after it; `None` when it is no call shape, or its error.
    fn general(src: &str, pos: usize, mode: Mode) -> Result<Option<(Vec<ToolCall>, usize)>, crate::error::ParseError> {
        let (value, end) = crate::syntax::json::parse_value_at(src, pos)?;
        let spans = call_spans(src, pos, end, &value, mode);
        let Some(calls) = calls_in(src, pos, value, mode)? else {
            return Ok(None);
        };
        let spans = spans.into_iter().chain(std::iter::repeat(pos..end));
        let calls = calls.into_iter().zip(spans).map(|(c, s)| c.into_call(Format::Json, s));
        Ok(Some((calls.collect(), end)))
    }

    /// The calls read here, and the offset after the value, or `None`.
    fn fast(src: &str, pos: usize, mode: Mode) -> Option<(Vec<ToolCall>, usize)> {
        let mut out = Vec::new();
        let end = calls(src, pos, mode, Format::Json, Defer::Never, &mut out);
        assert!(end.is_some() || out.is_empty(), "calls left behind at {pos} of {src:?}");
        end.map(|end| (out, end))
    }

    /// Where this reading gives calls, the general one gives the same calls, spans, origins and
    /// end; whether it did.
    fn agrees(src: &str, pos: usize, mode: Mode) -> bool {
        let Some((calls, end)) = fast(src, pos, mode) else {
            return false;
        };
        let general = general(src, pos, mode);
        let Ok(Some((want, want_end))) = general else {
            panic!("{mode:?} at {pos} of {src:?}: read here, but the general reading gives {general:?}")
        };
        assert_eq!(calls, want, "{mode:?} at {pos} of {src:?}");
        let origins = |calls: &[ToolCall]| calls.iter().map(|c| c.origin.clone()).collect::<Vec<_>>();
        assert_eq!(origins(&calls), origins(&want), "{mode:?} at {pos} of {src:?}");
        assert_eq!(end, want_end, "{mode:?} at {pos} of {src:?}");
        true
    }

    /// Each documented shape is read here, as the general reading reads it, in both modes (a
    /// call object without arguments only inside a tag).
    #[test]
    fn the_shapes_read_as_the_general_reading_does() {
        for (src, bare) in [
            (
                r#"{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1, \"b\": [true, null], \"c\": \"\\u00e9\\n\"}"}}]}"#,
                true,
            ),
            (
                r#"{"tool_calls":[{"type":"function","function":{"name":"f","arguments":{"a":{"b":2}}}},{"function":{"name":"g\u00e9","parameters":" {} "},"index":1}],"content":"x [1] {2}","refusal":null}"#,
                true,
            ),
            (
                r#"{"content": "", "tool_calls": [{"function": {"name": "f", "id": "x", "type": "y"}}]}"#,
                true,
            ),
            (
                r#"{"tool_calls": [{"call_id": 7, "function": {"input": "{\"q\": \"a\\\"b\"}", "name": "search"}}], "role": "assistant"}"#,
                true,
            ),
            (r#"{"name": "f", "arguments": {"a": 1, "b": [true, null]}}"#, true),
            (r#"{"arguments": {"name": "John"}, "name": "get_age"}"#, true),
            (r#"{"name": "f", "arguments": {"x": 1}, "id": "abcDEF123"}"#, true),
            (
                r#"{"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}"#,
                true,
            ),
            (
                r#"{"type": "function_call", "id": "fc_1", "call_id": "c_1", "name": "f", "arguments": "{\"city\":\"Paris\"}"}"#,
                true,
            ),
            (
                r#"{"id": "call_9", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}"#,
                true,
            ),
            (r#"{"function": {"name": "f"}}"#, true),
            (
                r#"[{"name": "f", "args": {"a": 1}}, {"name": "g", "input": {"b": 2}}]"#,
                true,
            ),
            (
                r#"[{"type": "function", "function": {"name": "a", "arguments": "{}"}}, {"name": "b", "arguments": {"x": 1}}]"#,
                true,
            ),
            (
                r#"[ {"name": "a", "parameters": {}} , {"name": "b", "arguments": "{}"} ]"#,
                true,
            ),
            (r#"{"name": "get_time"}"#, false),
            (r#"{"id": "call_1", "name": "get_time"}"#, false),
            (r#"[{"name": "a"}, {"name": "b", "arguments": {}}]"#, false),
        ] {
            assert!(agrees(src, 0, Mode::Tagged), "not read inside a tag: {src}");
            assert_eq!(agrees(src, 0, Mode::Bare), bare, "read bare: {src}");
        }
    }

    /// Anything but these shapes as written here is left to the general reading, which reads it
    /// (or reports its error); nothing is pushed.
    #[test]
    fn other_shapes_are_left_to_the_general_reading() {
        let call = r#"{"type": "function", "function": {"name": "f", "arguments": "{}"}}"#;
        for src in [
            format!(r#"{{"tool\u005fcalls": [{call}]}}"#),
            format!(r#"{{"role": "a", "role": "b", "tool_calls": [{call}]}}"#),
            format!(r#"{{"tool_calls": [{call}], "function_call": {{"name": "g", "arguments": "{{}}"}}}}"#),
            format!(r#"{{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "tool_calls": [{call}]}}"#),
            format!("[{call}, 1]"),
            format!(r#"[{{"tool_calls": [{call}]}}]"#),
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
            r#"{"name": "f", "arguments": {}, "extra": 1}"#.to_string(),
            r#"{"name": "f", "arguments": [1]}"#.to_string(),
            r#"{"name": 1, "arguments": {}}"#.to_string(),
            r#"{"name": "f", "arguments": {}, "name": "g"}"#.to_string(),
            r#"{"type": "function", "function": {"name": "f"}, "extra": 1}"#.to_string(),
            r#"{"name": "Alice", "age": 3}"#.to_string(),
            "[]".to_string(),
        ] {
            for mode in [Mode::Tagged, Mode::Bare] {
                assert_eq!(fast(&src, 0, mode), None, "{mode:?}: {src}");
            }
        }
    }

    /// Arguments nested to the limit are read here in every shape, and one level more is left
    /// to the general reading, which reports it: the depth each shape counts is the general one.
    #[test]
    fn nesting_is_counted_as_the_general_reading_counts_it() {
        let shapes = [
            r#"{"name": "f", "arguments": ARGS}"#,
            r#"[{"name": "f", "arguments": ARGS}]"#,
            r#"{"type": "function", "function": {"name": "f", "arguments": ARGS}}"#,
            r#"[{"function": {"name": "f", "arguments": ARGS}}]"#,
            r#"{"tool_calls": [{"function": {"name": "f", "arguments": ARGS}}]}"#,
            r#"{"name": "f", "arguments": {}, "id": ARGS}"#,
            r#"{"function": {"name": "f"}, "id": ARGS}"#,
            r#"{"tool_calls": [{"function": {"name": "f"}, "id": ARGS}], "content": ARGS}"#,
        ];
        for shape in shapes {
            let (mut read, mut deep) = (0, 0);
            for depth in MAX_DEPTH - 8..=MAX_DEPTH {
                let args = format!("{}1{}", "{\"a\": ".repeat(depth), "}".repeat(depth));
                let src = shape.replace("ARGS", &args);
                let general = general(&src, 0, Mode::Tagged);
                if general.is_err() {
                    assert!(fast(&src, 0, Mode::Tagged).is_none(), "{shape} at depth {depth}");
                    deep += 1;
                } else {
                    assert!(agrees(&src, 0, Mode::Tagged), "{shape} at depth {depth}: not read");
                    read += 1;
                }
            }
            assert!(read > 0 && deep > 0, "{shape}: {read} read, {deep} too deep");
        }
    }

    /// Every JSON value in every text fixture that this reading reads, it reads as the general
    /// reading does, in both modes.
    #[test]
    fn every_fixture_value_reads_as_the_general_reading_does() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).expect("fixtures") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("fixture");
            let mut de = serde_json::Deserializer::from_str(&text);
            de.disable_recursion_limit();
            let doc: serde_json::Value = serde::Deserialize::deserialize(&mut de).expect("fixture JSON");
            for case in doc["cases"].as_array().into_iter().flatten() {
                let Some(input) = case["input"].as_str() else { continue };
                for (pos, _) in input.match_indices(['{', '[']) {
                    for mode in [Mode::Tagged, Mode::Bare] {
                        read += usize::from(agrees(input, pos, mode));
                    }
                }
            }
        }
        assert!(read > 1000, "only {read} values read");
    }
}
