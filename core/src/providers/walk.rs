//! Shared machinery of the provider readers: where a value stands in the response (for error
//! positions and messages), how one call's name, id and arguments are read, and how assistant
//! text is collected for the text fallback.

use std::fmt::Write as _;

use crate::error::{ErrorCode, ParseError};
use crate::lex::quote;
use crate::syntax::json::{self, locate_key, locate_path};
use crate::syntax::path::Step;
use crate::syntax::shape::BuildArguments;
use crate::value::{get, Object, Value};

use super::ProviderCall;
use crate::repair::Repair;

/// Where a value stands in the response, as a chain of stack frames: building a path costs no
/// allocation; it is only written out (`to_vec`) for an error or a text piece.
#[derive(Debug, Clone, Copy)]
pub(super) struct At<'a> {
    parent: Option<&'a At<'a>>,
    seg: Option<Step<&'static str>>,
}

/// The response itself.
pub(super) const ROOT: At<'static> = At {
    parent: None,
    seg: None,
};

impl<'a> At<'a> {
    pub(super) fn key(&'a self, key: &'static str) -> At<'a> {
        At {
            parent: Some(self),
            seg: Some(Step::Key(key)),
        }
    }

    pub(super) fn index(&'a self, index: usize) -> At<'a> {
        At {
            parent: Some(self),
            seg: Some(Step::Index(index)),
        }
    }

    pub(super) fn path(&self) -> Vec<Step<&'static str>> {
        let mut out = Vec::new();
        let mut at = Some(self);
        while let Some(a) = at {
            if let Some(seg) = a.seg {
                out.push(seg);
            }
            at = a.parent;
        }
        out.reverse();
        out
    }

    pub(super) fn show(&self) -> String {
        show(&self.path())
    }
}

/// A path as people write it: `choices[0].message.tool_calls[1].function.arguments`.
pub(super) fn show(path: &[Step<&'static str>]) -> String {
    if path.is_empty() {
        return "the response".to_string();
    }
    let mut out = String::new();
    for seg in path {
        match seg {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

/// The caller's text when there is one: errors point into it. Without text (a response passed
/// as a value) every offset is 0 and the message's path is the only position.
#[derive(Clone, Copy)]
pub(super) struct Source<'s> {
    src: Option<&'s str>,
    /// Where the response's JSON starts in `src` (after a byte-order mark).
    start: usize,
    /// A recorded stream: where the JSON of each event starts in `src`; a path's first index
    /// picks the event.
    events: Option<&'s [usize]>,
    /// A stream fed decoded events: the event at hand and its index (for the tools' message).
    event: Option<(usize, &'s Value)>,
    /// Arguments strings are read with repair ([`super::ResponseOptions::repair`]).
    repair: bool,
    /// The host's builder, which makes each call's arguments as the reader finds them
    /// ([`FoundCall::built`]): `None` builds them as the core's [`Object`].
    build: Option<&'s dyn BuildArguments>,
}

impl<'s> Source<'s> {
    /// The response's JSON is `src[start..]`.
    pub(super) fn text(src: &'s str, start: usize) -> Self {
        Source {
            src: Some(src),
            start,
            events: None,
            event: None,
            repair: false,
            build: None,
        }
    }

    pub(super) fn value() -> Self {
        Source {
            src: None,
            start: 0,
            events: None,
            event: None,
            repair: false,
            build: None,
        }
    }

    /// This source, reading arguments strings with `repair` or strictly.
    pub(super) fn repairing(self, repair: bool) -> Self {
        Source { repair, ..self }
    }

    /// This source, handing each call's arguments to `build` (see [`Source::build`]).
    pub(super) fn building(self, build: Option<&'s dyn BuildArguments>) -> Self {
        Source { build, ..self }
    }

    /// Whether the host's builder makes the calls' arguments ([`Source::building`]).
    pub(super) fn builds(&self) -> bool {
        self.build.is_some()
    }

    /// The JSON value of `json` (an arguments string, or streamed fragments joined): strictly,
    /// or with repair mending the mistakes it lists. The receipts' offsets are `json`'s, for the
    /// caller to place.
    pub(super) fn decode(&self, json: &str) -> Result<(Value, Vec<Repair>), ParseError> {
        if !self.repair {
            return json::parse_complete(json).map(|v| (v, Vec::new()));
        }
        crate::repair::run(json, json::parse_complete).map(|(value, repairs, _)| (value, repairs))
    }

    /// A recorded stream in `src`, event `i` starting at `starts[i]`.
    pub(super) fn events(src: &'s str, starts: &'s [usize]) -> Self {
        Source {
            src: Some(src),
            start: 0,
            events: Some(starts),
            event: None,
            repair: false,
            build: None,
        }
    }

    /// A response without text, at the decoded event `index` of a stream.
    pub(super) fn event(index: usize, event: &'s Value) -> Self {
        Source {
            event: Some((index, event)),
            ..Source::value()
        }
    }

    /// The decoded event at hand, with its index (see [`Source::event`]).
    pub(super) fn event_at_hand(&self) -> Option<(usize, &'s Value)> {
        self.event
    }

    pub(super) fn has_text(&self) -> bool {
        self.src.is_some()
    }

    /// The caller's text (`None` for a response passed as a value).
    pub(super) fn src(&self) -> Option<&'s str> {
        self.src
    }

    /// The offset of the value at `path` (the response parsed from the text, so the path exists).
    pub(super) fn offset(&self, path: &[Step<&'static str>]) -> usize {
        self.locate(path, None)
    }

    /// The offset of the value at `path`, or (with `key_name`) of the opening quote of that key
    /// in the object at `path`.
    fn locate(&self, path: &[Step<&'static str>], key_name: Option<&str>) -> usize {
        let Some(src) = self.src else { return 0 };
        let (start, path) = match (self.events, path.first()) {
            (Some(starts), Some(&Step::Index(i))) => match starts.get(i) {
                Some(&start) => (start, &path[1..]),
                None => return src.len(),
            },
            _ => (self.start, path),
        };
        match key_name {
            Some(key) => locate_key(src, start, path, key),
            None => locate_path(src, start, path),
        }
    }

    /// The offset of the character that decoded to byte `decoded` of the string at `path`.
    pub(super) fn offset_in_string(&self, path: &[Step<&'static str>], decoded: usize) -> usize {
        let Some(src) = self.src else { return 0 };
        json::raw_offset_in_string(src, self.offset(path), decoded)
    }

    pub(super) fn error(&self, code: ErrorCode, at: &At<'_>, message: String) -> ParseError {
        ParseError::new(code, self.offset(&at.path()), message)
    }

    /// An error at the key `key` (its opening quote) of the object at `at`.
    pub(super) fn key_error(&self, code: ErrorCode, at: &At<'_>, key: &str, message: String) -> ParseError {
        ParseError::new(code, self.locate(&at.path(), Some(key)), message)
    }

    /// `tool_call.unrecognized` for the member `key` of the object at `at`, which must be `what`:
    /// at the member's value when it is there, at the object when it is missing.
    pub(super) fn required(&self, at: &At<'_>, key: &'static str, what: &str, found: Option<&Value>) -> ParseError {
        match found {
            Some(value) => self.unrecognized(&at.key(key), what, value),
            None => self.error(
                ErrorCode::Unrecognized,
                at,
                format!("{} is missing: it must be {what}", at.key(key).show()),
            ),
        }
    }

    /// `tool_call.unrecognized` at `at`: a value that claims to hold calls but has the wrong shape.
    pub(super) fn unrecognized(&self, at: &At<'_>, what: &str, found: &Value) -> ParseError {
        self.error(
            ErrorCode::Unrecognized,
            at,
            format!("{} must be {what}, found {}", at.show(), found.kind()),
        )
    }
}

/// Text pieces joined into one string, remembering where each piece came from so that an
/// offset into the joined string can be mapped back into the caller's text.
#[derive(Debug, Default, Clone)]
pub(super) struct Joined {
    pub(super) text: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
struct Part {
    start: usize,
    len: usize,
    path: Vec<Step<&'static str>>,
}

impl Joined {
    /// Appends `piece` (the string at `path`), preceded by `sep` unless nothing came before.
    pub(super) fn push(&mut self, sep: &str, piece: &str, path: Vec<Step<&'static str>>) {
        if !self.parts.is_empty() {
            self.text.push_str(sep);
        }
        self.parts.push(Part {
            start: self.text.len(),
            len: piece.len(),
            path,
        });
        self.text.push_str(piece);
    }

    /// Appends everything in `other`, preceded by `sep` unless either side is empty.
    pub(super) fn append(&mut self, sep: &str, other: Joined) {
        if other.parts.is_empty() {
            return;
        }
        if !self.parts.is_empty() {
            self.text.push_str(sep);
        }
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.parts.extend(other.parts.into_iter().map(|p| Part {
            start: base + p.start,
            ..p
        }));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The number of pieces.
    pub(super) fn pieces(&self) -> usize {
        self.parts.len()
    }

    /// Maps byte `offset` of the joined text to the caller's text, with the path of the piece it
    /// falls in (an offset in a separator or at the end maps to the end of the piece before it).
    pub(super) fn locate(&self, ctx: &Source<'_>, offset: usize) -> (usize, String) {
        let i = self.parts.partition_point(|p| p.start <= offset).saturating_sub(1);
        match self.parts.get(i) {
            Some(p) => {
                let decoded = offset.saturating_sub(p.start).min(p.len);
                (ctx.offset_in_string(&p.path, decoded), show(&p.path))
            }
            None => (0, show(&[])),
        }
    }

    /// `repairs` made in the joined text, placed in the caller's text.
    pub(super) fn place(&self, ctx: &Source<'_>, repairs: Vec<Repair>) -> Vec<Repair> {
        repairs
            .into_iter()
            .map(|r| Repair {
                offset: self.locate(ctx, r.offset).0,
                ..r
            })
            .collect()
    }
}

/// A call a reader found, with where its name and arguments stand in the response (for the
/// positions of the tools checks, [`crate::tools`]).
#[derive(Debug, Clone)]
pub(super) struct FoundCall {
    pub(super) call: ProviderCall,
    /// The path of the name's value.
    pub(super) name_at: Vec<Step<&'static str>>,
    pub(super) args: ArgsAt,
    /// The handle of its arguments when the host's builder made them ([`Source::building`]);
    /// `call.arguments` is then empty.
    pub(super) built: Option<u32>,
}

/// Where a call's arguments are written.
#[derive(Debug, Clone)]
pub(super) enum ArgsAt {
    /// Nowhere (no arguments key, no fragment streamed): positions are the name's.
    None,
    /// The value at this path: an object, or a string holding its JSON.
    Value(Vec<Step<&'static str>>),
    /// Streamed `arguments` fragments, joined.
    Joined(Joined),
}

/// What a reader found: the structured calls, and (when the text fallback may need it) the
/// assistant's text.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub(super) calls: Vec<FoundCall>,
    pub(super) text: Joined,
    pub(super) want_text: bool,
}

impl Found {
    pub(super) fn new(want_text: bool) -> Self {
        Found {
            calls: Vec::new(),
            text: Joined::default(),
            want_text,
        }
    }

    /// Records a piece of assistant text (pieces are joined with `\n`).
    pub(super) fn text(&mut self, piece: &str, at: &At<'_>) {
        if self.want_text {
            self.text.push("\n", piece, at.path());
        }
    }

    /// Records `value` as assistant text when it is a string.
    pub(super) fn text_value(&mut self, value: Option<&Value>, at: &At<'_>) {
        if let Some(Value::String(s)) = value {
            self.text(s, at);
        }
    }
}

/// The object under `key`, if the value there is one.
pub(super) fn object<'v>(o: &'v Object, key: &str) -> Option<&'v Object> {
    match get(o, key) {
        Some(Value::Object(inner)) => Some(inner),
        _ => None,
    }
}

/// The array under `key`, if the value there is one.
pub(super) fn array<'v>(o: &'v Object, key: &str) -> Option<&'v [Value]> {
    match get(o, key) {
        Some(Value::Array(items)) => Some(items),
        _ => None,
    }
}

/// The array under `key` of `o` (which stands at `at`), on the way to calls: `None` when the key
/// is missing or null; any other type is `tool_call.unrecognized` (the response has this API's
/// shape but cannot be read).
pub(super) fn array_at<'v>(
    ctx: &Source<'_>,
    o: &'v Object,
    key: &'static str,
    at: &At<'_>,
) -> Result<Option<&'v [Value]>, ParseError> {
    match get(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(ctx.unrecognized(&at.key(key), "an array", other)),
    }
}

/// The object under `key` of `o` (which stands at `at`), on the way to calls: `None` when the
/// key is missing or null; any other type is `tool_call.unrecognized`.
pub(super) fn object_at<'v>(
    ctx: &Source<'_>,
    o: &'v Object,
    key: &'static str,
    at: &At<'_>,
) -> Result<Option<&'v Object>, ParseError> {
    match get(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(inner)) => Ok(Some(inner)),
        Some(other) => Err(ctx.unrecognized(&at.key(key), "an object", other)),
    }
}

/// An item of an array on the way to calls (a choice, a content block, a part, …), which must be
/// an object: anything else is `tool_call.unrecognized`.
pub(super) fn item<'v>(ctx: &Source<'_>, value: &'v Value, at: &At<'_>, what: &str) -> Result<&'v Object, ParseError> {
    match value {
        Value::Object(o) => Ok(o),
        other => Err(ctx.unrecognized(at, what, other)),
    }
}

/// The error an API returned instead of an answer: `o["error"]` when it is an object or a
/// non-empty string (`null`, as in a successful Responses API response, is no error).
pub(super) fn api_error(o: &Object) -> Option<&Value> {
    match get(o, "error") {
        Some(e @ Value::Object(_)) => Some(e),
        Some(e @ Value::String(s)) if !s.is_empty() => Some(e),
        _ => None,
    }
}

/// `response.error` for the error payload `error` found at `at` (the `error` member), carrying
/// the API's own message: `error.message` (with its `type`, `code` or `status` when given), a
/// string error as is, or else the error's JSON.
pub(super) fn api_error_to_parse_error(ctx: &Source<'_>, error: &Value, at: &At<'_>) -> ParseError {
    let said = match error {
        Value::Object(e) => match string(e, "message") {
            Some(m) => {
                let kind = ["type", "code", "status"].into_iter().find_map(|k| match get(e, k) {
                    Some(v @ (Value::String(_) | Value::Number(_))) => Some(format!(" ({k} {})", v.to_json())),
                    _ => None,
                });
                format!("{}{}", quote(m), kind.unwrap_or_default())
            }
            None => error.to_json(),
        },
        other => other.to_json(),
    };
    ctx.error(
        ErrorCode::ResponseError,
        at,
        format!(
            "the API returned an error instead of an answer, at {}: {said}",
            at.show()
        ),
    )
}

/// `o[key]` when it is a string.
pub(super) fn string<'v>(o: &'v Object, key: &str) -> Option<&'v str> {
    get(o, key).and_then(Value::as_str)
}

/// A call id under `key` of `o` (which stands at `at`): a non-empty string, or `None` when the
/// key is missing, null or `""`. Any other type is `tool_call.unrecognized`.
pub(super) fn id(ctx: &Source<'_>, o: &Object, key: &'static str, at: &At<'_>) -> Result<Option<String>, ParseError> {
    match get(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ctx.unrecognized(&at.key(key), "a string (the call id)", other)),
    }
}

/// The tool name under `name` of `o` (which stands at `at`): a non-empty string.
pub(super) fn name(ctx: &Source<'_>, o: &Object, at: &At<'_>) -> Result<String, ParseError> {
    let name_at = at.key("name");
    match get(o, "name") {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(ctx.error(
            ErrorCode::InvalidName,
            &name_at,
            format!("the tool name at {} is empty", name_at.show()),
        )),
        None | Some(Value::Null) => Err(ctx.error(
            ErrorCode::InvalidName,
            at,
            format!("the call at {} has no `name`", at.show()),
        )),
        Some(other) => Err(name_not_a_string(ctx, &name_at, other)),
    }
}

/// `tool_call.invalid_name` for a name at `name_at` that is `other`, not a string.
pub(super) fn name_not_a_string(ctx: &Source<'_>, name_at: &At<'_>, other: &Value) -> ParseError {
    ctx.error(
        ErrorCode::InvalidName,
        name_at,
        format!(
            "the tool name at {} must be a string, found {}",
            name_at.show(),
            other.kind()
        ),
    )
}

/// The arguments of `name`, the value at `at` (or missing), with the receipts of what repair
/// mended in them ([`Source::decode`]): an object as is; a string decoded as strict JSON, which
/// must be an object (`""` is `{}`); missing or null is `{}`; anything else is
/// `tool_call.invalid_arguments`.
pub(super) fn arguments(
    ctx: &Source<'_>,
    name: &str,
    value: Option<&Value>,
    at: &At<'_>,
) -> Result<(Object, Vec<Repair>), ParseError> {
    match value {
        None | Some(Value::Null) => Ok((Object::new(), Vec::new())),
        Some(Value::Object(o)) => Ok((o.clone(), Vec::new())),
        Some(Value::String(s)) if s.is_empty() => Ok((Object::new(), Vec::new())),
        Some(Value::String(s)) => match ctx.decode(s) {
            Ok((Value::Object(o), mut repairs)) => {
                let path = at.path();
                for r in &mut repairs {
                    r.offset = ctx.offset_in_string(&path, r.offset);
                }
                Ok((o, repairs))
            }
            Ok((other, _)) => Err(ctx.error(
                ErrorCode::InvalidArguments,
                at,
                format!(
                    "the arguments of {} at {} must be a JSON object, but the string decodes to {}",
                    quote(name),
                    at.show(),
                    other.kind()
                ),
            )),
            Err(e) => {
                let path = at.path();
                Err(ParseError::new(
                    ErrorCode::InvalidArguments,
                    ctx.offset_in_string(&path, e.offset),
                    format!(
                        "the arguments of {} at {} are not valid JSON: {} ({}){}",
                        quote(name),
                        show(&path),
                        e.message,
                        e.code,
                        inner_offset(ctx, e.offset)
                    ),
                ))
            }
        },
        Some(other) => Err(ctx.error(
            ErrorCode::InvalidArguments,
            at,
            format!(
                "the arguments of {} at {} must be an object or a JSON string, found {}",
                quote(name),
                at.show(),
                other.kind()
            ),
        )),
    }
}

/// Without text to point into, a message names the byte inside the string instead.
pub(super) fn inner_offset(ctx: &Source<'_>, offset: usize) -> String {
    if ctx.has_text() {
        String::new()
    } else {
        format!(", at byte {offset} of the string")
    }
}

/// The keys that may hold a call's arguments: each API's own key is one of them, and a call
/// written with another (`{"name": "f", "parameters": {...}}` where the API says `arguments`)
/// is read too, as in the JSON tier.
const ARGUMENT_KEYS: [&str; 4] = ["arguments", "parameters", "input", "args"];

/// The arguments key of the call object `o` (at `at`), with its value: the one of
/// [`ARGUMENT_KEYS`] present (null counts as present), or `own` (absent) when there is none.
/// Two present is `tool_call.ambiguous_arguments` at the second.
pub(super) fn arguments_key<'v>(
    ctx: &Source<'_>,
    o: &'v Object,
    at: &At<'_>,
    own: &'static str,
) -> Result<(&'static str, Option<&'v Value>), ParseError> {
    let mut found: Option<(&'static str, &'v Value)> = None;
    for (key, value) in o {
        let Some(&k) = ARGUMENT_KEYS.iter().find(|k| **k == key) else {
            continue;
        };
        if let Some((first, _)) = found {
            return Err(ctx.key_error(
                ErrorCode::AmbiguousArguments,
                at,
                k,
                format!(
                    "the call at {} has both `{first}` and `{k}`; a call has one arguments key",
                    at.show()
                ),
            ));
        }
        found = Some((k, value));
    }
    Ok(found.map_or((own, None), |(k, v)| (k, Some(v))))
}

/// One call from the object `o` at `at` holding `name` and the arguments under `own` (the
/// API's key) or another arguments key ([`arguments_key`]).
pub(super) fn call(
    ctx: &Source<'_>,
    o: &Object,
    at: &At<'_>,
    id: Option<String>,
    own: &'static str,
) -> Result<FoundCall, ParseError> {
    let name = name(ctx, o, at)?;
    let (key, value) = arguments_key(ctx, o, at, own)?;
    let args_at = at.key(key);
    let built = ctx.build.zip(value).and_then(|(build, value)| built(build, value));
    let (arguments, repairs) = match built {
        Some(_) => (Object::new(), Vec::new()),
        None => arguments(ctx, &name, value, &args_at)?,
    };
    Ok(FoundCall {
        call: ProviderCall {
            id,
            name,
            arguments,
            repairs,
        },
        name_at: at.key("name").path(),
        args: match value {
            Some(_) => ArgsAt::Value(args_at.path()),
            None => ArgsAt::None,
        },
        built,
    })
}

/// The handle of arguments `value` once `build` made them: an object, or a string whose whole
/// content is one. `None` for anything else, and for a string that is not strict JSON, which
/// [`arguments`] reads for its error (an empty string and `null` are the empty object it gives).
fn built(build: &dyn BuildArguments, value: &Value) -> Option<u32> {
    let handle = match value {
        Value::Object(o) => build.tree(o)?,
        Value::String(s) if !s.is_empty() => build.object_text(s)?,
        _ => return None,
    };
    u32::try_from(handle).ok()
}

/// The text fallback: the calls written in the assistant's text, by [`crate::parse_tool_calls`].
/// No call there is `[]`; any other error is raised at its position mapped back into the
/// caller's text (the message names the path of the text piece).
pub(super) fn fallback(
    ctx: &Source<'_>,
    text: &Joined,
    options: &crate::text::parse::ParseOptions<'_>,
) -> Result<Vec<ProviderCall>, ParseError> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    match crate::text::parse::parse_tool_calls_with(&text.text, options) {
        Ok(calls) => Ok(calls
            .into_iter()
            .map(|c| ProviderCall {
                id: None,
                name: c.name,
                arguments: c.arguments,
                repairs: text.place(ctx, c.repairs),
            })
            .collect()),
        Err(e) if e.code == ErrorCode::NotFound => Ok(Vec::new()),
        Err(e) => {
            let (offset, path) = text.locate(ctx, e.offset);
            let inner = if ctx.has_text() {
                String::new()
            } else {
                format!(", at byte {} of the assistant text", e.offset)
            };
            Err(ParseError {
                offset,
                message: format!("{} (in the assistant text at {path}{inner})", e.message),
                ..e
            })
        }
    }
}
