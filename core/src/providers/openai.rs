//! OpenAI: Chat Completions (a full response, a bare assistant message, streamed chunks) and the
//! Responses API. OpenAI-compatible servers (vLLM, SGLang, llama.cpp, LM Studio, Mistral,
//! DeepSeek, xAI, …) come through here too, and Cohere v2 and Ollama reuse [`message`].

use std::collections::HashMap;

use crate::error::{ErrorCode, ParseError};
use crate::lex::quote;
use crate::value::{get, Number, Object, Value};

use super::walk::{self, ArgsAt, At, Found, FoundCall, Joined, Source, ROOT};
use super::ProviderCall;
use crate::syntax::path::Step;

/// Chat Completions: a response (`choices[]`), a list of streamed chunks, or a bare message.
pub(super) fn chat(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    match value {
        Value::Array(chunks) => {
            let mut stream = Stream::default();
            for (i, chunk) in chunks.iter().enumerate() {
                let at = ROOT.index(i);
                let o = walk::item(ctx, chunk, &at, "a streamed chunk object")?;
                stream.chunk(ctx, o, &at, found.want_text)?;
            }
            stream.finish(ctx, found, Ending::Recording)
        }
        Value::Object(o) if get(o, "choices").is_some() => {
            let mut stream = Stream::default();
            stream.chunk(ctx, o, &ROOT, found.want_text)?;
            stream.finish(ctx, found, Ending::Chunk)
        }
        Value::Object(o) => message(ctx, o, &ROOT, found),
        _ => Ok(()),
    }
}

/// An assistant message: `tool_calls[]` (function calls; other tool types are skipped), then the
/// legacy `function_call` (no id); its `content` (a string, or parts of type `text`) is text.
pub(super) fn message(ctx: &Source<'_>, o: &Object, at: &At<'_>, found: &mut Found) -> Result<(), ParseError> {
    let calls_at = at.key("tool_calls");
    match get(o, "tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(call) = tool_call(ctx, item, &calls_at.index(i))? {
                    found.calls.push(call);
                }
            }
        }
        Some(other) => return Err(ctx.unrecognized(&calls_at, "an array of tool calls", other)),
    }
    let legacy_at = at.key("function_call");
    match get(o, "function_call") {
        None | Some(Value::Null) => {}
        Some(Value::Object(f)) => found.calls.push(walk::call(ctx, f, &legacy_at, None, "arguments")?),
        Some(other) => return Err(ctx.unrecognized(&legacy_at, "an object with `name` and `arguments`", other)),
    }
    content(o, at, found);
    Ok(())
}

/// `content` as text: a string, or an array of parts whose `text` parts count.
fn content(o: &Object, at: &At<'_>, found: &mut Found) {
    let content_at = at.key("content");
    match get(o, "content") {
        Some(Value::String(s)) => found.text(s, &content_at),
        Some(Value::Array(parts)) => {
            for (i, part) in parts.iter().enumerate() {
                if let Value::Object(p) = part {
                    if walk::string(p, "type") == Some("text") {
                        let part_at = content_at.index(i);
                        found.text_value(get(p, "text"), &part_at.key("text"));
                    }
                }
            }
        }
        _ => {}
    }
}

/// A call of the chunks so far, for a reader that reports calls while they arrive.
pub(super) enum Entry<'a> {
    /// A call of a whole message (a response's `message`, not a `delta`).
    Whole(&'a FoundCall),
    /// A call streamed in fragments.
    Streamed(&'a Partial),
}

/// A call as far as the chunks go, in the order [`Stream::finish`] reports them.
pub(super) struct Progress<'a> {
    pub entry: Entry<'a>,
    /// Its choice has finished, or another call of the choice has begun after it: no fragment
    /// comes for it any more (one that did would be an error), so it is complete or broken.
    pub closed: bool,
}

impl Progress<'_> {
    /// The call, once closed: complete, or its error.
    pub(super) fn complete(&self, ctx: &Source<'_>) -> Result<Option<FoundCall>, ParseError> {
        match self.entry {
            Entry::Whole(call) => Ok(Some(call.clone())),
            Entry::Streamed(p) => complete(ctx, p, Close::Closed),
        }
    }
}

impl Partial {
    pub(super) fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    pub(super) fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Its argument fragments joined so far.
    pub(super) fn arguments(&self) -> &str {
        &self.arguments.text
    }

    /// Not a function call (skipped).
    pub(super) fn skip(&self) -> bool {
        self.skip
    }
}

impl Stream {
    /// The calls so far, in the order [`Stream::finish`] reports them: each choice's whole calls,
    /// then its streamed ones; choices in order, up to the first that has not finished (a later
    /// choice's calls wait, as the joined answer lists them after it).
    pub(super) fn progress(&self) -> Vec<Progress<'_>> {
        let mut out = Vec::new();
        for c in &self.choices {
            out.extend(c.found.calls.iter().map(|call| Progress {
                entry: Entry::Whole(call),
                closed: true,
            }));
            for (i, p) in c.partials.iter().enumerate() {
                out.push(Progress {
                    entry: Entry::Streamed(p),
                    closed: c.finished || i + 1 < c.partials.len(),
                });
            }
            if !c.finished {
                break;
            }
        }
        out
    }
}

/// How a recording ends for the last streamed call of a choice that did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// A recorded stream (a list of chunks, or a stream read as it arrives): a call it holds is
    /// whole or an error, and one it visibly cuts is `tool_call.unclosed`.
    Recording,
    /// One chunk on its own: only the calls complete within it count.
    Chunk,
}

/// What the chunks say about a call's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// Its choice finished, or a later call of the choice began.
    Closed,
    /// The last call of a recording whose choice did not finish.
    Cut,
    /// A call of a single chunk whose choice did not finish.
    Open,
}

/// Whether a `type` field allows a function call: missing, null or `"function"`. A call of another
/// type (`custom` tools carry free text, not arguments) is skipped.
fn is_function(ctx: &Source<'_>, o: &Object, at: &At<'_>) -> Result<bool, ParseError> {
    match get(o, "type") {
        None | Some(Value::Null) => Ok(true),
        Some(Value::String(t)) => Ok(t == "function"),
        Some(other) => Err(ctx.unrecognized(&at.key("type"), "a string", other)),
    }
}

/// One `tool_calls` item: `{"id", "type": "function", "function": {"name", "arguments"}}`.
fn tool_call(ctx: &Source<'_>, item: &Value, at: &At<'_>) -> Result<Option<FoundCall>, ParseError> {
    let Value::Object(tc) = item else {
        return Err(ctx.unrecognized(at, "a tool call object", item));
    };
    if !is_function(ctx, tc, at)? {
        return Ok(None);
    }
    let function_at = at.key("function");
    let function = match get(tc, "function") {
        Some(Value::Object(f)) => f,
        Some(other) => return Err(ctx.unrecognized(&function_at, "an object with `name` and `arguments`", other)),
        None => {
            return Err(ctx.error(
                ErrorCode::Unrecognized,
                at,
                format!("the tool call at {} has no `function` object", at.show()),
            ))
        }
    };
    let id = walk::id(ctx, tc, "id", at)?;
    walk::call(ctx, function, &function_at, id, "arguments").map(Some)
}

/// Streamed chunks, joined per choice (by the choice's `index`) and per call (by the fragment's
/// `index`, else the choice's last call; a fragment naming another id or tool starts a new call).
/// Also serves full responses, whose choices carry a `message` instead of a `delta`.
#[derive(Default)]
pub(super) struct Stream {
    choices: Vec<Choice>,
    by_index: HashMap<u64, usize>,
}

#[derive(Default)]
struct Choice {
    finished: bool,
    /// It finished in an earlier chunk than the one being read: no call may follow.
    finished_before: bool,
    /// Calls and text of complete messages, then streamed text.
    found: Found,
    partials: Vec<Partial>,
    by_index: HashMap<u64, usize>,
    legacy: Option<usize>,
    last: Option<usize>,
}

/// The fragments of one streamed call seen so far.
pub(super) struct Partial {
    /// Where the first fragment stands.
    at: Vec<Step<&'static str>>,
    skip: bool,
    id: Option<String>,
    name: Option<String>,
    /// Where the name was taken from.
    name_at: Vec<Step<&'static str>>,
    arguments: Joined,
    object: Option<(Object, Vec<Step<&'static str>>)>,
}

impl Partial {
    /// Whether a fragment carrying `id` and `name` (each when non-empty) continues this call: it
    /// does unless it names an id or a tool other than the one this call already has.
    fn continues(&self, id: Option<&str>, name: Option<&String>) -> bool {
        let same = |mine: Option<&str>, theirs: Option<&str>| match (mine, theirs) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        same(self.id.as_deref(), id) && same(self.name.as_deref(), name.map(String::as_str))
    }

    fn new(at: &At<'_>) -> Self {
        Partial {
            at: at.path(),
            skip: false,
            id: None,
            name: None,
            name_at: Vec::new(),
            arguments: Joined::default(),
            object: None,
        }
    }
}

/// A non-negative integer `index`, or `None` when missing or null.
fn index(ctx: &Source<'_>, o: &Object, at: &At<'_>) -> Result<Option<u64>, ParseError> {
    match get(o, "index") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(Number::Int(i))) if *i >= 0 => Ok(Some(i.unsigned_abs())),
        Some(other) => Err(ctx.unrecognized(&at.key("index"), "a non-negative integer", other)),
    }
}

impl Stream {
    #[allow(clippy::similar_names, reason = "the names follow the JSON they walk")]
    pub(super) fn chunk(
        &mut self,
        ctx: &Source<'_>,
        o: &Object,
        at: &At<'_>,
        want_text: bool,
    ) -> Result<(), ParseError> {
        let Some(choices) = walk::array_at(ctx, o, "choices", at)? else {
            return Ok(());
        };
        let choices_at = at.key("choices");
        for (pos, choice) in choices.iter().enumerate() {
            let choice_at = choices_at.index(pos);
            let c = walk::item(ctx, choice, &choice_at, "a choice object")?;
            let index = index(ctx, c, &choice_at)?.unwrap_or(pos as u64);
            let slot = if let Some(&i) = self.by_index.get(&index) {
                i
            } else {
                self.choices.push(Choice {
                    found: Found::new(want_text),
                    ..Choice::default()
                });
                self.by_index.insert(index, self.choices.len() - 1);
                self.choices.len() - 1
            };
            let Some(slot) = self.choices.get_mut(slot) else {
                continue;
            };
            slot.finished_before = slot.finished;
            if !matches!(get(c, "finish_reason"), None | Some(Value::Null)) {
                slot.finished = true;
            }
            if let Some(m) = walk::object_at(ctx, c, "message", &choice_at)? {
                let message_at = choice_at.key("message");
                let before = slot.found.calls.len();
                message(ctx, m, &message_at, &mut slot.found)?;
                if slot.found.calls.len() > before && (slot.finished_before || !slot.partials.is_empty()) {
                    let why = if slot.finished_before {
                        "its choice finished in an earlier chunk"
                    } else {
                        "its choice streams its calls in deltas"
                    };
                    return Err(ctx.error(
                        ErrorCode::Unrecognized,
                        &message_at,
                        format!("{} brings tool calls, but {why}", message_at.show()),
                    ));
                }
            }
            if let Some(d) = walk::object_at(ctx, c, "delta", &choice_at)? {
                slot.delta(ctx, d, &choice_at.key("delta"))?;
            }
        }
        Ok(())
    }

    /// The calls of every choice, in order of first appearance: each choice's whole calls, then
    /// its streamed ones, each complete or its error (the last one of a choice that did not
    /// finish as `ending` says).
    pub(super) fn finish(self, ctx: &Source<'_>, found: &mut Found, ending: Ending) -> Result<(), ParseError> {
        for choice in self.choices {
            found.calls.extend(choice.found.calls);
            let last = choice.partials.len().saturating_sub(1);
            for (i, p) in choice.partials.iter().enumerate() {
                let close = match (choice.finished, ending) {
                    (true, _) => Close::Closed,
                    (false, Ending::Chunk) => Close::Open,
                    (false, Ending::Recording) if i < last => Close::Closed,
                    (false, Ending::Recording) => Close::Cut,
                };
                if let Some(call) = complete(ctx, p, close)? {
                    found.calls.push(call);
                }
            }
            found.text.append("\n", choice.found.text);
        }
        Ok(())
    }
}

impl Choice {
    fn delta(&mut self, ctx: &Source<'_>, d: &Object, at: &At<'_>) -> Result<(), ParseError> {
        let content_at = at.key("content");
        if let Some(Value::String(s)) = get(d, "content") {
            if self.found.want_text {
                self.found.text.push("", s, content_at.path());
            }
        }
        let calls_at = at.key("tool_calls");
        match get(d, "tool_calls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    self.fragment(ctx, item, &calls_at.index(i), false)?;
                }
            }
            Some(other) => return Err(ctx.unrecognized(&calls_at, "an array of tool call fragments", other)),
        }
        match get(d, "function_call") {
            None | Some(Value::Null) => Ok(()),
            Some(f @ Value::Object(_)) => self.fragment(ctx, f, &at.key("function_call"), true),
            Some(other) => Err(ctx.unrecognized(&at.key("function_call"), "an object", other)),
        }
    }

    /// One fragment: `{"index", "id"?, "type"?, "function": {"name"?, "arguments"?}}`, or (legacy)
    /// `{"name"?, "arguments"?}` itself.
    fn fragment(&mut self, ctx: &Source<'_>, item: &Value, at: &At<'_>, legacy: bool) -> Result<(), ParseError> {
        let Value::Object(fo) = item else {
            return Err(ctx.unrecognized(at, "a tool call fragment object", item));
        };
        if self.finished_before {
            return Err(ctx.error(
                ErrorCode::Unrecognized,
                at,
                format!("{} continues a choice that finished in an earlier chunk", at.show()),
            ));
        }
        let (id, function, function_at) = if legacy {
            (None, Some(fo), *at)
        } else {
            let function = match get(fo, "function") {
                None | Some(Value::Null) => None,
                Some(Value::Object(f)) => Some(f),
                Some(other) => return Err(ctx.unrecognized(&at.key("function"), "an object", other)),
            };
            (walk::id(ctx, fo, "id", at)?, function, at.key("function"))
        };
        let name_at = function_at.key("name");
        let name = match function.and_then(|f| get(f, "name")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s).filter(|s| !s.is_empty()),
            Some(other) => return Err(walk::name_not_a_string(ctx, &name_at, other)),
        };
        let index = if legacy { None } else { index(ctx, fo, at)? };
        // The call this fragment continues: the one with its `index` (legacy: the one legacy call;
        // without `index`: the last call), unless the fragment names another id or tool.
        let candidate = match (legacy, index) {
            (true, _) => self.legacy,
            (false, Some(i)) => self.by_index.get(&i).copied(),
            (false, None) => self.last,
        };
        let continued = candidate.filter(|&c| self.partials.get(c).is_some_and(|p| p.continues(id.as_deref(), name)));
        let pos = if let Some(p) = continued {
            if p + 1 < self.partials.len() {
                return Err(ctx.error(
                    ErrorCode::Unrecognized,
                    at,
                    format!(
                        "{} continues the tool call that began at {}, after a later call of its choice began",
                        at.show(),
                        walk::show(&self.partials[p].at)
                    ),
                ));
            }
            p
        } else {
            self.partials.push(Partial::new(at));
            self.partials.len() - 1
        };
        if let Some(i) = index {
            self.by_index.insert(i, pos);
        }
        if legacy {
            self.legacy = Some(pos);
        } else {
            self.last = Some(pos);
        }
        let Some(partial) = self.partials.get_mut(pos) else {
            return Ok(());
        };
        if !legacy && !is_function(ctx, fo, at)? {
            if continued.is_some() && !partial.skip {
                return Err(ctx.error(
                    ErrorCode::Unrecognized,
                    &at.key("type"),
                    format!(
                        "{} changes the type of a function call fragment by fragment",
                        at.key("type").show()
                    ),
                ));
            }
            partial.skip = true;
        }
        if partial.id.is_none() {
            partial.id = id;
        }
        if partial.name.is_none() && name.is_some() {
            partial.name = name.cloned();
            partial.name_at = name_at.path();
        }
        partial.add_arguments(ctx, function, &function_at)
    }
}

impl Partial {
    /// The arguments a fragment's `function` carries: a string fragment, or an object (once).
    fn add_arguments(
        &mut self,
        ctx: &Source<'_>,
        function: Option<&Object>,
        function_at: &At<'_>,
    ) -> Result<(), ParseError> {
        let (key, arguments) = match function {
            Some(f) => walk::arguments_key(ctx, f, function_at, "arguments")?,
            None => ("arguments", None),
        };
        let args_at = function_at.key(key);
        match arguments {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) => self.arguments.push("", s, args_at.path()),
            Some(Value::Object(o)) => {
                if let Some((_, first)) = &self.object {
                    return Err(ctx.error(
                        ErrorCode::InvalidArguments,
                        &args_at,
                        format!(
                            "the streamed arguments at {} are a second object (the first is at {})",
                            args_at.show(),
                            walk::show(first)
                        ),
                    ));
                }
                self.object = Some((o.clone(), args_at.path()));
            }
            Some(other) => {
                return Err(ctx.error(
                    ErrorCode::InvalidArguments,
                    &args_at,
                    format!(
                        "the arguments fragment at {} must be a string, found {}",
                        args_at.show(),
                        other.kind()
                    ),
                ))
            }
        }
        Ok(())
    }
}

/// A streamed call as `close` says its chunks end: when closed, complete or an error; when a
/// recording cuts it, complete, `tool_call.unclosed` (no name yet, no arguments, or JSON that
/// stops early) or an error; when one chunk leaves it open, complete or nothing.
fn complete(ctx: &Source<'_>, p: &Partial, close: Close) -> Result<Option<FoundCall>, ParseError> {
    if p.skip {
        return Ok(None);
    }
    let unclosed = |what: &str| {
        Err(ParseError::new(
            ErrorCode::Unclosed,
            ctx.offset(&p.at),
            format!(
                "the stream ends inside the tool call starting at {} ({what})",
                walk::show(&p.at)
            ),
        ))
    };
    let Some(name) = p.name.clone() else {
        return match close {
            Close::Open => Ok(None),
            Close::Cut => unclosed("it has no name yet"),
            Close::Closed => Err(ParseError::new(
                ErrorCode::InvalidName,
                ctx.offset(&p.at),
                format!("the streamed tool call starting at {} has no name", walk::show(&p.at)),
            )),
        };
    };
    let mut repairs = Vec::new();
    let (arguments, args) = match &p.object {
        Some((o, path)) if p.arguments.text.is_empty() => (o.clone(), ArgsAt::Value(path.clone())),
        Some((_, path)) => {
            return Err(ParseError::new(
                ErrorCode::InvalidArguments,
                ctx.offset(path),
                format!(
                    "the streamed arguments of {} mix an object (at {}) with text fragments",
                    quote(&name),
                    walk::show(path)
                ),
            ))
        }
        None if p.arguments.text.is_empty() => match close {
            Close::Open => return Ok(None),
            Close::Cut => return unclosed("no arguments were streamed"),
            Close::Closed => (Object::new(), ArgsAt::None),
        },
        None => match ctx.decode(&p.arguments.text) {
            Ok((Value::Object(o), mended)) => {
                repairs = p.arguments.place(ctx, mended);
                (o, ArgsAt::Joined(p.arguments.clone()))
            }
            _ if close == Close::Open => return Ok(None),
            Err(e) if close == Close::Cut && e.code == ErrorCode::JsonUnexpectedEnd => {
                return unclosed("its arguments stop before their JSON ends")
            }
            Ok((other, _)) => {
                let (offset, path) = p.arguments.locate(ctx, 0);
                return Err(ParseError::new(
                    ErrorCode::InvalidArguments,
                    offset,
                    format!(
                        "the streamed arguments of {} (joined from {} fragments, the first at {path}) must be a JSON object, found {}",
                        quote(&name),
                        p.arguments.pieces(),
                        other.kind()
                    ),
                ));
            }
            Err(e) => {
                let (offset, path) = p.arguments.locate(ctx, e.offset);
                return Err(ParseError::new(
                    ErrorCode::InvalidArguments,
                    offset,
                    format!(
                        "the streamed arguments of {} are not valid JSON: {} ({}), in the fragment at {path}{}",
                        quote(&name),
                        e.message,
                        e.code,
                        if ctx.has_text() {
                            String::new()
                        } else {
                            format!(", at byte {} of the joined arguments", e.offset)
                        }
                    ),
                ));
            }
        },
    };
    Ok(Some(FoundCall {
        call: ProviderCall {
            id: p.id.clone(),
            name,
            arguments,
            repairs,
        },
        name_at: p.name_at.clone(),
        args,
        built: None,
    }))
}

/// Responses API: `output[]` items of type `function_call` (id: `call_id`), or the same items as
/// a bare list (input items, as stored in a conversation); the `output_text` parts of `message`
/// items, or their `content` when it is a string, are text. Other item types (reasoning, built-in
/// tool calls, custom tool calls) are not function calls and are skipped.
pub(super) fn responses(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    match value {
        Value::Array(items) => response_items(ctx, items, &ROOT, found),
        Value::Object(o) => match walk::array_at(ctx, o, "output", &ROOT)? {
            Some(items) => response_items(ctx, items, &ROOT.key("output"), found),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The items of the list at `list_at`.
fn response_items(ctx: &Source<'_>, items: &[Value], list_at: &At<'_>, found: &mut Found) -> Result<(), ParseError> {
    for (i, item) in items.iter().enumerate() {
        let at = list_at.index(i);
        let it = walk::item(ctx, item, &at, "an output item object")?;
        match walk::string(it, "type") {
            Some("function_call") => {
                let id = walk::id(ctx, it, "call_id", &at)?;
                found.calls.push(walk::call(ctx, it, &at, id, "arguments")?);
            }
            Some("message") => message_item_text(it, &at, found),
            _ => {}
        }
    }
    Ok(())
}

/// The text of a `message` item: its `content` string, or its `output_text` parts.
fn message_item_text(it: &Object, at: &At<'_>, found: &mut Found) {
    let content_at = at.key("content");
    match get(it, "content") {
        Some(Value::String(s)) => found.text(s, &content_at),
        Some(Value::Array(parts)) => {
            for (j, part) in parts.iter().enumerate() {
                if let Value::Object(p) = part {
                    if walk::string(p, "type") == Some("output_text") {
                        let part_at = content_at.index(j);
                        found.text_value(get(p, "text"), &part_at.key("text"));
                    }
                }
            }
        }
        _ => {}
    }
}
