//! JSON call shapes: which JSON values are tool calls, and how name and arguments are read from
//! them.
//!
//! A value is first *classified* by its keys alone (no errors: a value that is not a call shape
//! is data). A value that is a call shape is then *extracted*, and every problem found there is an
//! error, since the value claimed to be a call. Errors point into the caller's text by walking the
//! JSON source again along the path to the offending value (errors are rare; the happy path keeps
//! no positions).

use std::ops::Range;

use crate::call::{Deferred, Grammar};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{quote, skip_ws};
use crate::syntax::json::{self, locate_key, locate_path};
use crate::syntax::path::Step;
use crate::value::{get, Object, Value};

/// Keys that carry the arguments of a call object.
pub(crate) const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "input", "args"];
/// Keys allowed beside `name` and the arguments in a call object, or beside `function` in a
/// function object.
pub(crate) const ID_KEYS: [&str; 4] = ["id", "type", "call_id", "index"];

/// Where the JSON value stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Inside a tag (tier 1): the value claims to be a call, and a call object may leave out its
    /// arguments.
    Tagged,
    /// Found by scanning text (tier 2): only the documented shapes count.
    Bare,
}

/// A call read from a call shape.
pub(crate) struct NamedArgs {
    pub name: String,
    pub arguments: Object,
    /// Where the arguments went when they were not built here (see [`Defer`]).
    pub deferred: Option<Deferred>,
    /// The call object is the `"function"` member of the value it was read from.
    pub wrapped: bool,
    /// The key its arguments were read from (`None`: none written).
    pub key: Option<&'static str>,
}

impl NamedArgs {
    /// The call, found in the value that spans `span` (its own object, see [`call_spans`]).
    pub(crate) fn into_call(self, format: crate::call::Format, span: Range<usize>) -> crate::call::ToolCall {
        let origin = crate::call::Origin::Object {
            at: span.start,
            wrapped: self.wrapped,
            name: "name",
            args: self.key,
        };
        let mut call = crate::call::ToolCall::new(self.name, self.arguments, format, span).with_origin(origin);
        call.deferred = self.deferred;
        call
    }
}

/// The calls in `value` (parsed from `src[start..]`), or `None` when it is not a call shape.
pub(crate) fn calls_in(
    src: &str,
    start: usize,
    value: Value,
    mode: Mode,
) -> Result<Option<Vec<NamedArgs>>, ParseError> {
    if !is_call_shape(&value, mode) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(1);
    let mut path = Path::default();
    let extractor = Extractor { src, start, mode };
    extractor.extract(value, &mut path, &mut out)?;
    Ok(Some(out))
}

/// The keys of a call object as a template writes them, in order: the id (a string) when the
/// call has one, the name (a non-empty string) and the arguments (an object) under the first of
/// `arguments` present.
pub(crate) struct CallKeys<'a> {
    pub id: Option<&'static str>,
    pub name: &'static str,
    pub arguments: &'a [&'static str],
}

/// A call read by [`plain_calls`].
pub(crate) struct PlainCall {
    /// The id, when the keys have one.
    pub id: Option<String>,
    pub name: String,
    pub arguments: Object,
    /// Where the arguments object is, when it was checked but not built (see [`Defer::Large`]).
    pub deferred: Option<Deferred>,
    pub name_key: &'static str,
    /// The key the arguments were read from.
    pub arguments_key: &'static str,
}

impl PlainCall {
    /// The call, whose object spans `span`, with the origin the general reading gives it.
    pub(crate) fn into_call(self, format: crate::call::Format, span: Range<usize>) -> crate::call::ToolCall {
        let origin = crate::call::Origin::Object {
            at: span.start,
            wrapped: false,
            name: self.name_key,
            args: Some(self.arguments_key),
        };
        let mut call = crate::call::ToolCall::new(self.name, self.arguments, format, span).with_origin(origin);
        call.id = self.id;
        call.deferred = self.deferred;
        call
    }
}

/// The least text from an arguments object to the end of the input for [`Defer::Large`] to leave
/// the object in the text. Checking and then building from the text reads it twice; that costs
/// more than building and freeing a small tree (typical hermes output: 27.1k instructions
/// deferred, 25.9k not, callgrind) and less than a large one (10 KB of arguments: 464k against
/// 523k), whose tree also doubles the memory a host needs.
pub(crate) const DEFER_FROM: usize = 2048;

/// Whether [`plain_calls`] leaves a call's arguments in the text, or hands them to a host's
/// builder.
#[derive(Clone, Copy, Default)]
pub(crate) enum Defer<'b> {
    /// Never: they are built as a [`Value`] tree.
    #[default]
    Never,
    /// When large: checked but not built when at least [`DEFER_FROM`] bytes of text follow their start: such
    /// a call has empty `arguments` and the offset of its arguments object in
    /// [`ToolCall::deferred`](crate::call::ToolCall), for a host that builds its own values
    /// straight from the text (`host::emit`, the function). Checking is the same strict parse without the tree,
    /// so the errors and the calls found are the same.
    Large,
    /// Always, into the host's own values as they are read ([`BuildArguments`]): such a call has
    /// empty `arguments` and [`Deferred::Built`]. The builder's parse is the same strict parse,
    /// so the errors and the calls found are the same.
    Build(&'b dyn BuildArguments),
}

impl<'b> Defer<'b> {
    /// Whether the arguments are left in the text when large ([`Defer::Large`]).
    pub(crate) fn is_large(self) -> bool {
        matches!(self, Defer::Large)
    }

    /// The host's builder, when there is one ([`Defer::Build`]).
    pub(crate) fn builder(self) -> Option<&'b dyn BuildArguments> {
        match self {
            Defer::Build(build) => Some(build),
            _ => None,
        }
    }
}

/// A call's arguments at `at`, written in `grammar`, read as `defer` says: by the host's builder
/// when there is one (`build`; the arguments are then empty and [`Deferred::Built`] says where
/// they went), else by `read` in the core, which also reads what the builder could not, for its
/// error. The offset after them comes last.
pub(crate) fn arguments_as(
    defer: Defer<'_>,
    at: usize,
    grammar: Grammar,
    build: impl FnOnce(&dyn BuildArguments) -> Option<(usize, usize)>,
    read: impl FnOnce() -> Result<(Object, usize), ParseError>,
) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    if let Defer::Build(builder) = defer {
        if let Some((deferred, end)) =
            build(builder).and_then(|(h, end)| Some((builder.deferred(h, at, grammar)?, end)))
        {
            return Ok((Object::new(), Some(deferred), end));
        }
    }
    let (arguments, end) = read()?;
    Ok((arguments, None, end))
}

/// A host's builder of arguments objects ([`Defer::Build`]): it keeps what it builds, and names
/// it by a handle.
pub(crate) trait BuildArguments {
    /// Reads the JSON object at `at` in `src` (inside `depth` containers, for the nesting limit)
    /// into the host's values: their handle and the offset after the object, or `None` when the
    /// text there is not one strict JSON object (nothing is kept; the caller reads it the
    /// general way, which reports the error).
    fn object(&self, src: &str, at: usize, depth: usize) -> Option<(usize, usize)>;

    /// Reads the JSON object that is the whole content of the JSON string at `at` in `src` (its
    /// `"`; the content decoded, then read from depth zero), as [`Self::object`] does: the
    /// handle and the offset after the string, or `None`.
    fn json_string(&self, src: &str, at: usize) -> Option<(usize, usize)>;

    /// Reads the call-syntax argument list whose `(` is at `open` in `src` into the host's
    /// values, as [`Self::object`] does: their handle and the offset past the `)`, or `None`.
    fn call_arguments(&self, src: &str, open: usize) -> Option<(usize, usize)>;

    /// Reads Gemma's object literal whose `{` is at `open` in `src` (strings between two
    /// `delimiter`s) into the host's values, as [`Self::object`] does.
    fn object_literal(&self, src: &str, open: usize, delimiter: &'static str) -> Option<(usize, usize)>;

    /// Builds the arguments of a call written as one text per argument between a format's tags:
    /// each key with its value, in the order written (the keys checked already). Their handle,
    /// or `None` when the host failed: nothing is kept, and the host's error is the answer.
    fn params(&self, params: Vec<(std::borrow::Cow<'_, str>, TextValue<'_>)>) -> Option<usize>;

    /// Reads the JSON object that is the whole of `text` (whitespace around it allowed: an
    /// arguments string's content, decoded) into the host's values, as [`Self::object`] does:
    /// their handle, or `None`.
    fn object_text(&self, text: &str) -> Option<usize>;

    /// Builds the host's values of an object the core holds as a tree already (the arguments
    /// object of a decoded provider response): their handle, or `None` when the host failed.
    fn tree(&self, object: &crate::value::Object) -> Option<usize>;

    /// Whether it keeps what it reads (a host's builder), or only checks it ([`CHECK`]): the
    /// arguments are then left in the text, for the host to build from there.
    fn keeps(&self) -> bool {
        true
    }
}

impl dyn BuildArguments + '_ {
    /// Where the arguments at `at`, in `grammar`, went once this builder read them and named them
    /// `handle`: kept by the host, or left in the text when it only checks. `None` when the
    /// handle does not fit.
    pub(crate) fn deferred(&self, handle: usize, at: usize, grammar: Grammar) -> Option<Deferred> {
        if !self.keeps() {
            return Some(Deferred::Text { at, grammar });
        }
        let handle = u32::try_from(handle).ok()?;
        Some(Deferred::Built { handle, at, grammar })
    }
}

/// Checks arguments written in JSON (an object, or an arguments string) as strictly as a host's
/// builder reads them, and keeps nothing: the arguments it accepts are left in the text
/// ([`Deferred::Text`]), for a host that builds them from there later (a stream reports a call
/// after the feed that read it), and whose JSON text is there to show. The other grammars are
/// declined, so the parse builds them as a tree: a stream must show their arguments as JSON text
/// too, and the tree gives that and the host's values from one reading. (Checking them here, then
/// building the host's values and writing the JSON from the text, took a typical pythonic stream
/// fed whole from 59.4k to 72.2k instructions, and added 58 KB to the WebAssembly module.) Values
/// written as text between a format's tags are read from the text alone, so those are built as a
/// tree too.
pub(crate) struct Check;

/// The one [`Check`].
pub(crate) const CHECK: &Check = &Check;

impl BuildArguments for Check {
    fn object(&self, src: &str, at: usize, depth: usize) -> Option<(usize, usize)> {
        json::check_nested_at(src, at, depth).map(|end| (0, end))
    }

    fn json_string(&self, src: &str, at: usize) -> Option<(usize, usize)> {
        if let (Some(((), end)), _) = json::build_object_in_string(src, at, json::Check::default()) {
            return Some((0, end));
        }
        let (text, end) = json::string_at(src, at)?;
        json::build_complete_object(&text, json::Check::default())
            .0
            .map(|()| (0, end))
    }

    fn call_arguments(&self, _: &str, _: usize) -> Option<(usize, usize)> {
        None
    }

    fn object_literal(&self, _: &str, _: usize, _: &'static str) -> Option<(usize, usize)> {
        None
    }

    fn params(&self, _: Vec<(std::borrow::Cow<'_, str>, TextValue<'_>)>) -> Option<usize> {
        // Not asked: with a builder that keeps nothing, params are built as a tree.
        None
    }

    // Not asked: a provider response is read with a host's builder or none.
    fn object_text(&self, _: &str) -> Option<usize> {
        None
    }

    fn tree(&self, _: &crate::value::Object) -> Option<usize> {
        None
    }

    fn keeps(&self) -> bool {
        false
    }
}

/// The value of one argument written as text between a format's tags.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TextValue<'t> {
    /// Typed the JSON-first way ([`json::probe_text`]): the JSON value the text is, trimmed,
    /// when it is exactly one, else the text as a string.
    Probed(std::borrow::Cow<'t, str>),
    /// The text as a string, as the format says (DeepSeek's `string="true"`, a CDATA section).
    Text(&'t str),
    /// As the format itself types it otherwise (DeepSeek's `string="false"`: JSON).
    Typed(Value),
}

impl TextValue<'_> {
    /// The value as the core builds it.
    pub(crate) fn into_value(self) -> Value {
        match self {
            TextValue::Probed(raw) => json::probe_text(&raw).unwrap_or_else(|| Value::String(raw.into_owned())),
            TextValue::Text(text) => Value::String(text.to_owned()),
            TextValue::Typed(value) => value,
        }
    }
}

/// Reads the most common call shapes without building the object around each call: one object
/// with exactly the `keys`, written in their order without escapes, or a list of such objects.
/// Calls `push` with each call and its span, and returns the offset after the value. Anything
/// else, including any error, is `None`: the caller then drops what was pushed and reads the
/// value the general way, which gives the same calls for these shapes and reports errors. (A
/// failure costs one more read of the value, so reading stays linear.)
pub(crate) fn plain_calls(
    src: &str,
    pos: usize,
    keys: &CallKeys<'_>,
    defer: Defer<'_>,
    mut push: impl FnMut(PlainCall, Range<usize>),
) -> Option<usize> {
    let bytes = src.as_bytes();
    match bytes.get(pos)? {
        b'{' => {
            let (call, end) = plain_call(src, pos, 0, keys, defer)?;
            push(call, pos..end);
            Some(end)
        }
        b'[' => {
            let mut p = skip_ws(bytes, pos + 1);
            loop {
                if bytes.get(p) != Some(&b'{') {
                    return None;
                }
                let (call, end) = plain_call(src, p, 1, keys, defer)?;
                push(call, p..end);
                p = skip_ws(bytes, end);
                match bytes.get(p)? {
                    b',' => p = skip_ws(bytes, p + 1),
                    b']' => return Some(p + 1),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// The call object with `keys` at `at` (a `{`), inside `outer` containers: the call and the
/// offset after it.
pub(crate) fn plain_call(
    src: &str,
    at: usize,
    outer: usize,
    keys: &CallKeys<'_>,
    defer: Defer<'_>,
) -> Option<(PlainCall, usize)> {
    let bytes = src.as_bytes();
    let mut p = skip_ws(bytes, at + 1);
    let mut id = None;
    if let Some(at) = keys.id.and_then(|key| after_key(bytes, p, key)) {
        let (Value::String(s), end) = json::value_nested_at(src, at, outer + 1)? else {
            return None;
        };
        id = Some(s);
        p = after_comma(bytes, end)?;
    }
    let (Value::String(name), end) = json::value_nested_at(src, after_key(bytes, p, keys.name)?, outer + 1)? else {
        return None;
    };
    if name.is_empty() {
        return None;
    }
    let p = after_comma(bytes, end)?;
    let (arguments_key, p) = keys
        .arguments
        .iter()
        .find_map(|&k| Some((k, after_key(bytes, p, k)?)))?;
    if bytes.get(p) != Some(&b'{') {
        return None;
    }
    let (arguments, deferred, end) = crate::syntax::plain_shapes::arguments_at(src, p, outer + 1, defer)?;
    let p = skip_ws(bytes, end);
    let call = PlainCall {
        id,
        name,
        arguments,
        deferred,
        name_key: keys.name,
        arguments_key,
    };
    (bytes.get(p) == Some(&b'}')).then_some((call, p + 1))
}

/// The offset of the value after the quoted `key`, `:` and whitespace at `p`.
fn after_key(bytes: &[u8], p: usize, key: &str) -> Option<usize> {
    let end = p + key.len() + 2;
    let quoted = bytes.get(p..end)?;
    if quoted[0] != b'"' || &quoted[1..quoted.len() - 1] != key.as_bytes() || quoted[quoted.len() - 1] != b'"' {
        return None;
    }
    let colon = skip_ws(bytes, end);
    (bytes.get(colon) == Some(&b':')).then(|| skip_ws(bytes, colon + 1))
}

/// The offset after whitespace, `,` and whitespace at `p`.
fn after_comma(bytes: &[u8], p: usize) -> Option<usize> {
    let p = skip_ws(bytes, p);
    (bytes.get(p) == Some(&b',')).then(|| skip_ws(bytes, p + 1))
}

fn is_call_object(o: &Object, mode: Mode) -> bool {
    get(o, "name").is_some()
        && o.iter()
            .all(|(k, _)| k == "name" || ARGUMENT_KEYS.contains(&k.as_str()) || ID_KEYS.contains(&k.as_str()))
        && (mode == Mode::Tagged || o.iter().any(|(k, _)| ARGUMENT_KEYS.contains(&k.as_str())))
}

/// In a value that is not a call shape only because a call object (one with a string `name`)
/// holds a key no call has: where that object is (its index in a list) and the key, for an
/// error that names it.
pub(crate) fn stray_key(value: &Value) -> Option<(Option<usize>, &str)> {
    fn stray(o: &Object) -> Option<&str> {
        if !matches!(get(o, "name"), Some(Value::String(_))) {
            return None;
        }
        o.iter()
            .map(|(k, _)| k.as_str())
            .find(|k| *k != "name" && !ARGUMENT_KEYS.contains(k) && !ID_KEYS.contains(k))
    }
    match value {
        Value::Object(o) => stray(o).map(|k| (None, k)),
        Value::Array(items) => items.iter().enumerate().find_map(|(i, item)| match item {
            Value::Object(o) => stray(o).map(|k| (Some(i), k)),
            _ => None,
        }),
        _ => None,
    }
}

fn is_function_object(o: &Object) -> bool {
    matches!(get(o, "function"), Some(Value::Object(f)) if is_call_object(f, Mode::Tagged))
        && o.iter().all(|(k, _)| k == "function" || ID_KEYS.contains(&k.as_str()))
        && get(o, "type").is_none_or(|t| t.as_str() == Some("function"))
}

fn is_message(o: &Object) -> bool {
    matches!(get(o, "tool_calls"), Some(Value::Array(_))) || matches!(get(o, "function_call"), Some(Value::Object(_)))
}

fn is_call_shape_object(value: &Value, mode: Mode) -> bool {
    match value {
        Value::Object(o) => is_call_object(o, mode) || is_function_object(o) || is_message(o),
        _ => false,
    }
}

/// Whether `value` is a call shape inside a tool-call tag.
pub(crate) fn is_tagged_call_shape(value: &Value) -> bool {
    is_call_shape(value, Mode::Tagged)
}

fn is_call_shape(value: &Value, mode: Mode) -> bool {
    match value {
        Value::Array(items) => !items.is_empty() && items.iter().all(|v| is_call_shape_object(v, mode)),
        v => is_call_shape_object(v, mode),
    }
}

/// The byte range of each call's own value in the call shape `value`, which spans
/// `src[start..end]`, in the order [`calls_in`] returns the calls: each call of an array or a
/// message is its own object there. A lone call or function object is the whole value: for it the
/// list is empty, and callers use `start..end` once the list runs out. Walks the source once,
/// matching brackets without parsing, and only for arrays and messages.
pub(crate) fn call_spans(src: &str, start: usize, end: usize, value: &Value, mode: Mode) -> Vec<Range<usize>> {
    call_spans_of_items(src, start, end, value, mode, None)
}

/// [`call_spans`], given the ranges of the elements when `value` is an array (from
/// [`json::parse_value_items_at`]), so that they are not found again.
pub(crate) fn call_spans_of_items(
    src: &str,
    start: usize,
    end: usize,
    value: &Value,
    mode: Mode,
    items: Option<Vec<Range<usize>>>,
) -> Vec<Range<usize>> {
    let lone = matches!(value, Value::Object(o) if is_call_object(o, mode) || is_function_object(o));
    if lone || !is_call_shape(value, mode) {
        return Vec::new();
    }
    let bytes = src.as_bytes();
    match (value, items) {
        (Value::Array(values), Some(ranges)) if ranges.len() == values.len() => {
            let lone = |v: &Value| matches!(v, Value::Object(o) if is_call_object(o, mode) || is_function_object(o));
            if values.iter().all(lone) {
                return ranges;
            }
            let mut out = Vec::new();
            for (item, range) in values.iter().zip(ranges) {
                spans_into(bytes, range, item, mode, &mut out);
            }
            out
        }
        _ => {
            let mut out = Vec::new();
            spans_into(bytes, start..end, value, mode, &mut out);
            out
        }
    }
}

fn spans_into(bytes: &[u8], range: Range<usize>, value: &Value, mode: Mode, out: &mut Vec<Range<usize>>) {
    match value {
        Value::Array(items) => {
            for (item, item_range) in items.iter().zip(raw_items(bytes, range.start)) {
                spans_into(bytes, item_range, item, mode, out);
            }
        }
        Value::Object(o) if is_call_object(o, mode) || is_function_object(o) => out.push(range),
        Value::Object(o) => {
            // Each member's text is walked once: a `tool_calls` array by its items (the last
            // one's end is the array's), and nothing after the last member that holds calls.
            let wanted = |(key, member): &(String, Value)| {
                (key == "tool_calls" && matches!(member, Value::Array(_))) || key == "function_call"
            };
            let Some(last) = o.iter().rposition(wanted) else {
                return;
            };
            let mut p = skip_ws(bytes, range.start + 1);
            for (i, (key, member)) in o.iter().enumerate().take(last + 1) {
                let Some(key_end) = json::raw_string_end(bytes, p) else {
                    return;
                };
                let value_at = skip_ws(bytes, skip_ws(bytes, key_end) + 1); // past `:`
                let end = if key == "tool_calls" && matches!(member, Value::Array(_)) {
                    let mut end = value_at + 1;
                    for item in raw_items(bytes, value_at) {
                        end = item.end;
                        out.push(item);
                    }
                    skip_ws(bytes, end) + 1 // past `]`
                } else {
                    let Some(end) = json::raw_value_end(bytes, value_at) else {
                        return;
                    };
                    if key == "function_call" {
                        out.push(value_at..end);
                    }
                    end
                };
                if i < last {
                    p = next_member(bytes, end);
                }
            }
        }
        _ => {}
    }
}

/// The ranges of the elements of the (well-formed) JSON array at `at`.
fn raw_items(bytes: &[u8], at: usize) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut p = skip_ws(bytes, at + 1);
    std::iter::from_fn(move || {
        let end = json::raw_value_end(bytes, p).filter(|_| bytes[p] != b']')?;
        let item = p..end;
        p = next_member(bytes, end);
        Some(item)
    })
}

/// Past the whitespace and `,` after a member or element that ends at `end`.
fn next_member(bytes: &[u8], end: usize) -> usize {
    let p = skip_ws(bytes, end);
    if bytes.get(p) == Some(&b',') {
        skip_ws(bytes, p + 1)
    } else {
        p
    }
}

/// The steps from the root of a call shape to the value being read, kept on the stack: errors
/// need them, the happy path should not allocate for them. Call shapes nest at most five steps
/// deep (array, message `tool_calls`, index, `function`, a key of the call object).
struct Path<'k> {
    steps: [Step<&'k str>; 8],
    len: usize,
}

impl Default for Path<'_> {
    fn default() -> Self {
        Path {
            steps: [Step::Index(0); 8],
            len: 0,
        }
    }
}

impl<'k> Path<'k> {
    fn push(&mut self, step: Step<&'k str>) {
        debug_assert!(self.len < self.steps.len(), "call shapes nest at most five steps");
        if let Some(slot) = self.steps.get_mut(self.len) {
            *slot = step;
            self.len += 1;
        }
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    fn steps(&self) -> &[Step<&'k str>] {
        &self.steps[..self.len]
    }
}

/// Reads the calls out of a value classified as a call shape, pointing errors into `src`.
struct Extractor<'a> {
    src: &'a str,
    start: usize,
    mode: Mode,
}

impl Extractor<'_> {
    fn at(&self, path: &[Step<&str>]) -> usize {
        locate_path(self.src, self.start, path)
    }

    fn error(&self, code: ErrorCode, path: &[Step<&str>], message: String) -> ParseError {
        ParseError::new(code, self.at(path), message)
    }

    /// Extracts the calls of a classified value.
    fn extract(&self, value: Value, path: &mut Path<'_>, out: &mut Vec<NamedArgs>) -> Result<(), ParseError> {
        match value {
            Value::Array(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    path.push(Step::Index(i));
                    self.extract(item, path, out)?;
                    path.pop();
                }
                Ok(())
            }
            Value::Object(o) if is_call_object(&o, self.mode) => {
                out.push(self.call_object(o, path)?);
                Ok(())
            }
            Value::Object(o) if is_function_object(&o) => {
                let Some(Value::Object(inner)) = o.into_iter().find(|(k, _)| k == "function").map(|(_, v)| v) else {
                    unreachable!("classified as a function object")
                };
                path.push(Step::Key("function"));
                let mut call = self.call_object(inner, path)?;
                call.wrapped = true;
                out.push(call);
                path.pop();
                Ok(())
            }
            Value::Object(o) => self.message(o, path, out),
            _ => unreachable!("classified as a call shape"),
        }
    }

    /// `{"tool_calls": [...]}` and/or `{"function_call": {...}}`, in the order written.
    fn message(&self, o: Object, path: &mut Path<'_>, out: &mut Vec<NamedArgs>) -> Result<(), ParseError> {
        for (key, value) in o {
            match key.as_str() {
                "tool_calls" => {
                    path.push(Step::Key("tool_calls"));
                    let Value::Array(items) = value else {
                        return Err(self.error(
                            ErrorCode::Unrecognized,
                            path.steps(),
                            format!("`tool_calls` must be an array of calls, found {}", value.kind()),
                        ));
                    };
                    for (i, item) in items.into_iter().enumerate() {
                        path.push(Step::Index(i));
                        let ok = matches!(&item, Value::Object(o) if is_call_object(o, Mode::Tagged) || is_function_object(o));
                        if !ok {
                            return Err(self.error(
                                ErrorCode::Unrecognized,
                                path.steps(),
                                "a `tool_calls` item must be a call: {\"type\": \"function\", \"function\": {\"name\": ..., \"arguments\": ...}}".to_string(),
                            ));
                        }
                        self.extract(item, path, out)?;
                        path.pop();
                    }
                    path.pop();
                }
                "function_call" => {
                    path.push(Step::Key("function_call"));
                    match value {
                        Value::Object(o) if is_call_object(&o, Mode::Tagged) => out.push(self.call_object(o, path)?),
                        _ => {
                            return Err(self.error(
                                ErrorCode::Unrecognized,
                                path.steps(),
                                "`function_call` must be an object with `name` and `arguments`".to_string(),
                            ))
                        }
                    }
                    path.pop();
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Name and arguments of `{"name": ..., "arguments": ...}` (or `parameters`, `input`, `args`).
    fn call_object(&self, o: Object, path: &mut Path<'_>) -> Result<NamedArgs, ParseError> {
        let mut name = None;
        let mut args: Option<(&'static str, Value)> = None;
        for (key, value) in o {
            if key == "name" {
                name = Some(value);
            } else if let Some(&k) = ARGUMENT_KEYS.iter().find(|k| **k == key) {
                if let Some((first, _)) = &args {
                    let at = locate_key(self.src, self.start, path.steps(), k);
                    let message = format!("both `{first}` and `{k}` are given; a call has one arguments key");
                    return Err(ParseError::new(ErrorCode::AmbiguousArguments, at, message));
                }
                args = Some((k, value));
            }
        }
        path.push(Step::Key("name"));
        let name = match name {
            Some(Value::String(s)) if !s.is_empty() => s,
            Some(Value::String(_)) => {
                return Err(self.error(ErrorCode::InvalidName, path.steps(), "the tool name is empty".into()))
            }
            Some(v) => {
                return Err(self.error(
                    ErrorCode::InvalidName,
                    path.steps(),
                    format!("the tool name must be a string, found {}", v.kind()),
                ))
            }
            None => {
                path.pop();
                return Err(self.error(ErrorCode::InvalidName, path.steps(), "the call has no `name`".into()));
            }
        };
        path.pop();
        let Some((key, value)) = args else {
            return Ok(NamedArgs {
                name,
                arguments: Object::new(),
                deferred: None,
                wrapped: false,
                key: None,
            });
        };
        path.push(Step::Key(key));
        let arguments = self.arguments(&name, key, value, path.steps())?;
        path.pop();
        Ok(NamedArgs {
            name,
            arguments,
            deferred: None,
            wrapped: false,
            key: Some(key),
        })
    }

    /// `err`, for an arguments string at `path` that decodes to `decoded` (not an object), with
    /// the repair `repair.double_encoded` when `decoded` is a string holding the JSON of an object
    /// (`"\"{\\\"a\\\": 1}\""`, encoded twice): the literal becomes that string's JSON.
    fn double_encoded(&self, path: &[Step<&str>], decoded: &Value, err: ParseError) -> ParseError {
        let Value::String(inner) = decoded else {
            return err;
        };
        if !matches!(json::parse_complete(inner), Ok(Value::Object(_))) {
            return err;
        }
        let literal = self.at(path);
        let Some(end) = json::raw_string_end(self.src.as_bytes(), literal) else {
            return err;
        };
        err.fix(crate::repair::Fix {
            code: crate::repair::RepairCode::DoubleEncoded,
            at: literal,
            range: literal..end,
            insert: quote(inner),
            message: "an arguments string JSON-encoded twice was decoded once".to_owned(),
        })
    }

    fn arguments(&self, name: &str, key: &str, value: Value, path: &[Step<&str>]) -> Result<Object, ParseError> {
        match value {
            Value::Object(o) => Ok(o),
            Value::String(s) => match json::parse_complete(&s) {
                Ok(Value::Object(o)) => Ok(o),
                Ok(other) => Err(self.double_encoded(
                    path,
                    &other,
                    self.error(
                        ErrorCode::InvalidArguments,
                        path,
                        format!(
                            "the `{key}` string of {} must decode to a JSON object, found {}",
                            quote(name),
                            other.kind()
                        ),
                    ),
                )),
                Err(e) => {
                    let literal = self.at(path);
                    Err(ParseError::new(
                        ErrorCode::InvalidArguments,
                        json::raw_offset_in_string(self.src, literal, e.offset),
                        format!(
                            "the `{key}` string of {} is not valid JSON: {} ({})",
                            quote(name),
                            e.message,
                            e.code
                        ),
                    ))
                }
            },
            other => Err(self.error(
                ErrorCode::InvalidArguments,
                path,
                format!(
                    "the `{key}` of {} must be an object, found {}",
                    quote(name),
                    other.kind()
                ),
            )),
        }
    }
}

/// Whether the well-formed JSON value at `bytes[start..]` may be a call shape, by the keys of
/// the object it is or (a list) begins with, as written: a message's key (`tool_calls`,
/// `function_call`), or only keys a call object or a function object may have, or a key written
/// with an escape. A value that may not is data, whose tree need not be built.
pub(crate) fn may_be_call_shape(bytes: &[u8], start: usize) -> bool {
    use crate::syntax::json::{raw_string_end, raw_value_end};
    const MESSAGE_KEYS: [&[u8]; 2] = [b"tool_calls", b"function_call"];
    let mut p = start;
    if bytes.get(p) == Some(&b'[') {
        p = skip_ws(bytes, p + 1);
    }
    if bytes.get(p) != Some(&b'{') {
        return false;
    }
    let call_key = |key: &[u8]| {
        key == b"name" || key == b"function" || ARGUMENT_KEYS.iter().chain(&ID_KEYS).any(|k| k.as_bytes() == key)
    };
    let mut calls_only = true;
    p = skip_ws(bytes, p + 1);
    while bytes.get(p) == Some(&b'"') {
        let Some(key_end) = raw_string_end(bytes, p) else {
            return true;
        };
        let key = &bytes[p + 1..key_end - 1];
        if MESSAGE_KEYS.contains(&key) || key.contains(&b'\\') {
            return true;
        }
        calls_only &= call_key(key);
        let value_at = skip_ws(bytes, skip_ws(bytes, key_end) + 1);
        let Some(value_end) = raw_value_end(bytes, value_at) else {
            return true;
        };
        p = skip_ws(bytes, value_end);
        if bytes.get(p) == Some(&b',') {
            p = skip_ws(bytes, p + 1);
        }
    }
    calls_only
}

/// Keys that make a broken object claim to be a call, as they stand in the text.
const CLAIM_KEYS: [&[u8]; 4] = [b"\"name\"", b"\"function\"", b"\"tool_calls\"", b"\"function_call\""];

/// Whether the broken JSON text at `pos` (a `{` or `[`), which fails to parse at `limit`,
/// *claims* to be a call: a call-shape key — `name`, `function`, `tool_calls`, `function_call`,
/// or `type` whose value is `"function"` or `"tool_use"` — stands at its top level before
/// `limit`, in any position among its keys; for `[`, at the top level of its first element. Only
/// the text before `limit` is read, so the scan that resumes at `limit` stays linear.
pub(crate) fn claims_call(bytes: &[u8], pos: usize, limit: usize) -> bool {
    use crate::lex::at;
    use crate::syntax::json::{raw_string_end, raw_value_end};
    let bytes = &bytes[..limit.min(bytes.len())];
    let mut p = pos;
    if bytes.get(p) == Some(&b'[') {
        p = skip_ws(bytes, p + 1);
    }
    if bytes.get(p) != Some(&b'{') {
        return false;
    }
    p = skip_ws(bytes, p + 1);
    loop {
        let Some(key_end) = raw_string_end(bytes, p) else {
            return false;
        };
        let key = &bytes[p..key_end];
        if CLAIM_KEYS.contains(&key) {
            return true;
        }
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return false;
        }
        let value_at = skip_ws(bytes, colon + 1);
        if key == b"\"type\"" && (at(bytes, value_at, "\"function\"") || at(bytes, value_at, "\"tool_use\"")) {
            return true;
        }
        let Some(value_end) = raw_value_end(bytes, value_at) else {
            return false;
        };
        p = skip_ws(bytes, value_end);
        if bytes.get(p) != Some(&b',') {
            return false;
        }
        p = skip_ws(bytes, p + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::{call_spans_of_items, calls_in, is_call_shape, may_be_call_shape, plain_calls, CallKeys, Defer, Mode};
    use crate::call::{Format, ToolCall};

    /// `{"name": …, "arguments": …}`, or `"parameters"` in place of `"arguments"`.
    const NAME_ARGUMENTS: CallKeys<'static> = CallKeys {
        id: None,
        name: "name",
        arguments: &["arguments", "parameters"],
    };

    /// The calls of the JSON value at `pos`, read the general way (as `tagged_json` does).
    fn general(src: &str, pos: usize) -> Vec<ToolCall> {
        let (value, end, items) = crate::syntax::json::parse_value_items_at(src, pos).unwrap();
        let spans = call_spans_of_items(src, pos, end, &value, Mode::Tagged, Some(items));
        let calls = calls_in(src, pos, value, Mode::Tagged).unwrap().unwrap();
        let spans = spans.into_iter().chain(std::iter::repeat(pos..end));
        calls
            .into_iter()
            .zip(spans)
            .map(|(c, s)| c.into_call(Format::Hermes, s))
            .collect()
    }

    /// The fast reading gives the calls, spans and origins of the general one.
    #[test]
    fn plain_calls_read_as_the_general_shapes_do() {
        for src in [
            r#"x {"name": "f", "arguments": {"a": 1, "b": [true, null]}}"#,
            r#"x {"name":"f","parameters":{}}"#,
            r#"x [{"name": "f", "arguments": {"a": "é"}}, {"name": "g", "parameters": {"b": {"c": 2}}} ]"#,
        ] {
            let mut fast = Vec::new();
            let end = plain_calls(src, 2, &NAME_ARGUMENTS, Defer::Never, |c, span| {
                fast.push(c.into_call(Format::Hermes, span));
            });
            assert_eq!(end, Some(src.trim_end().len()), "{src}");
            let general = general(src, 2);
            assert_eq!(fast, general, "{src}");
            let origins = |calls: &[ToolCall]| calls.iter().map(|c| c.origin.clone()).collect::<Vec<_>>();
            assert_eq!(origins(&fast), origins(&general), "{src}");
        }
    }

    /// A value that may be a call shape is built and classified; one that cannot is skipped as
    /// data, and every call shape may be one.
    #[test]
    fn data_is_told_from_call_shapes_by_its_keys() {
        for (src, may) in [
            (r#"{"name": "f", "arguments": {"x": 1}}"#, true),
            (r#"[{"id": 1, "name": "f", "parameters": {}}, {"name": "g"}]"#, true),
            (r#"{"type": "function", "function": {"name": "f"}}"#, true),
            (r#"{"role": "assistant", "content": "", "tool_calls": []}"#, true),
            (r#"{"n\u0061me": "f", "arguments": {}}"#, true),
            ("{}", true),
            (r#"{"name": "item-1", "price": 1.5}"#, false),
            (
                r#"[{"id": 1, "name": "a", "tags": []}, {"name": "f", "arguments": {}}]"#,
                false,
            ),
            (r#"{"a": {"name": "f", "arguments": {}}}"#, false),
            ("[1, 2]", false),
            ("[]", false),
        ] {
            assert_eq!(may_be_call_shape(src.as_bytes(), 0), may, "{src}");
            let value = crate::syntax::json::parse_complete(src).unwrap();
            if is_call_shape(&value, Mode::Bare) || is_call_shape(&value, Mode::Tagged) {
                assert!(may, "{src}");
            }
        }
    }

    /// Anything but the plain shape is left to the general reading.
    #[test]
    fn plain_calls_leave_other_shapes() {
        for src in [
            r#"x {"arguments": {}, "name": "f"}"#,
            r#"x {"name": "f", "arguments": "{}"}"#,
            r#"x {"name": "", "arguments": {}}"#,
            r#"x {"name": "f", "arguments": {}, "id": "1"}"#,
            r#"x {"name": "f", "arguments": {"a": 1, "a": 2}}"#,
            "x []",
            r#"x [{"name": "f", "arguments": {}}, 1]"#,
            r#"x {"name": "f", "arguments": {"#,
        ] {
            assert_eq!(
                plain_calls(src, 2, &NAME_ARGUMENTS, Defer::Never, |_, _| {}),
                None,
                "{src}"
            );
        }
    }
}
