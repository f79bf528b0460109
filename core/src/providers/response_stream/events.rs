//! The streams whose events name what they continue: OpenAI Responses, Gemini, Bedrock
//! ConverseStream, Cohere v2, Ollama. Calls that stream (Responses, Bedrock, Cohere) are kept by
//! the key their events carry and reported in the order they started; Gemini and Ollama send
//! each call whole, in one chunk.
//!
//! - **openai_responses**: `response.output_item.added` with a `function_call` item starts a
//!   call (`call_id`, `name`), `response.function_call_arguments.delta` continues it (by
//!   `output_index`), `response.output_item.done` ends it (its `arguments` when no delta came);
//!   `response.output_text.delta` is text, `response.reasoning_summary_text.delta` and
//!   `response.reasoning_text.delta` reasoning; `response.failed` is its response's error.
//! - **gemini**: every chunk is a `GenerateContentResponse`, read as one (`functionCall` parts
//!   are calls; `text` parts are text, or reasoning when `thought`).
//! - **bedrock**: `contentBlockStart` with `start.toolUse` starts a call (`toolUseId`, `name`),
//!   `contentBlockDelta` with `delta.toolUse.input` continues it, `contentBlockStop` ends it (by
//!   `contentBlockIndex`); `delta.text` is text, `delta.reasoningContent.text` reasoning; an
//!   exception event (`internalServerException`, `modelStreamErrorException`, …) is the API's
//!   error.
//! - **cohere_v2**: `tool-call-start`, `tool-call-delta`, `tool-call-end` (by `index`, under
//!   `delta.message.tool_calls`); `content-delta` is text, `tool-plan-delta` reasoning; a
//!   `message-end` whose `delta.error` is set is the API's error.
//! - **ollama**: every chunk is a `/api/chat` response: `message.tool_calls`, `message.content`,
//!   `message.thinking` (reasoning).

use crate::error::{ErrorCode, ParseError};
use crate::value::{get, Number, Object, Value};

use super::super::walk::{self, At, Found, Source};
use super::super::{gemini, openai, Provider};
use super::{Emit, Head, Queue, Streamed};

/// The event keys of Bedrock's ConverseStream, exceptions included.
pub(super) const BEDROCK_EVENTS: [&str; 11] = [
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
];

pub(super) struct Events {
    provider: Provider,
    calls: Calls,
}

impl Events {
    pub(super) fn new(provider: Provider) -> Self {
        Events {
            provider,
            calls: Calls::default(),
        }
    }

    pub(super) fn provider(&self) -> Provider {
        self.provider
    }

    pub(super) fn event(
        &mut self,
        ctx: &Source<'_>,
        value: &Value,
        at: &At<'_>,
        out: &mut Emit,
    ) -> Result<(), ParseError> {
        let o = walk::item(ctx, value, at, "a stream event object")?;
        match self.provider {
            Provider::OpenaiResponses => self.responses(ctx, o, at, out)?,
            Provider::Gemini => gemini_chunk(ctx, value, at, out)?,
            Provider::Bedrock => self.bedrock(ctx, o, at, out)?,
            Provider::CohereV2 => self.cohere(ctx, o, at, out)?,
            _ => ollama_chunk(ctx, o, at, out)?,
        }
        self.calls.report(ctx, out)
    }

    pub(super) fn finish(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        self.calls.report(ctx, out)?;
        self.calls.finish(ctx)
    }

    fn responses(&mut self, ctx: &Source<'_>, o: &Object, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let key = || match get(o, "output_index") {
            Some(Value::Number(Number::Int(i))) => Key::Index(*i),
            _ => Key::Id(walk::string(o, "item_id").unwrap_or_default().to_string()),
        };
        match walk::string(o, "type").unwrap_or_default() {
            "response.output_item.added" | "response.output_item.done" => {
                let item_at = at.key("item");
                let Some(item) = walk::object_at(ctx, o, "item", at)? else {
                    return Ok(());
                };
                if walk::string(item, "type") != Some("function_call") {
                    return Ok(());
                }
                let done = walk::string(o, "type") == Some("response.output_item.done");
                if !done || self.calls.open(&key()).is_none() {
                    let id = walk::id(ctx, item, "call_id", &item_at)?;
                    let name = walk::name(ctx, item, &item_at)?;
                    self.calls.start(key(), head(&item_at, &item_at, id, name));
                }
                let call = self.calls.open(&key()).expect("just started");
                if call.json.is_empty() {
                    match get(item, "arguments") {
                        Some(Value::String(s)) if !s.is_empty() => {
                            call.json.push("", s, item_at.key("arguments").path());
                        }
                        Some(Value::Object(args)) => call.whole = Some((args.clone(), item_at.key("arguments").path())),
                        _ => {}
                    }
                }
                call.stopped |= done;
            }
            "response.function_call_arguments.delta" => {
                if let (Some(call), Some(Value::String(s))) = (self.calls.open(&key()), get(o, "delta")) {
                    call.json.push("", s, at.key("delta").path());
                }
            }
            "response.output_text.delta" => {
                if let Some(Value::String(s)) = get(o, "delta") {
                    out.content(s, &at.key("delta"));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(Value::String(s)) = get(o, "delta") {
                    out.reasoning(s);
                }
            }
            "response.failed" | "response.incomplete" => {
                let response_at = at.key("response");
                if let Some(r) = walk::object_at(ctx, o, "response", at)? {
                    if let Some(e) = walk::api_error(r) {
                        return Err(walk::api_error_to_parse_error(ctx, e, &response_at.key("error")));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn bedrock(&mut self, ctx: &Source<'_>, o: &Object, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
        for exception in &BEDROCK_EVENTS[6..] {
            if let Some(e) = get(o, exception) {
                let said: Object = vec![
                    ("message".to_string(), get_message(e)),
                    ("type".to_string(), Value::String(exception.to_string())),
                ];
                return Err(walk::api_error_to_parse_error(
                    ctx,
                    &Value::Object(said),
                    &at.key(exception),
                ));
            }
        }
        let index = |e: &Object, e_at: &At<'_>| block_index(ctx, e, "contentBlockIndex", e_at);
        if let Some(e) = walk::object_at(ctx, o, "contentBlockStart", at)? {
            let e_at = at.key("contentBlockStart");
            let start_at = e_at.key("start");
            let tool_at = start_at.key("toolUse");
            let tool = walk::object_at(ctx, e, "start", &e_at)?
                .map(|s| walk::object_at(ctx, s, "toolUse", &start_at))
                .transpose()?
                .flatten();
            if let Some(tool) = tool {
                let id = walk::id(ctx, tool, "toolUseId", &tool_at)?;
                let name = walk::name(ctx, tool, &tool_at)?;
                self.calls
                    .start(Key::Index(index(e, &e_at)?), head(&tool_at, &tool_at, id, name));
            }
        }
        if let Some(e) = walk::object_at(ctx, o, "contentBlockDelta", at)? {
            let e_at = at.key("contentBlockDelta");
            let delta_at = e_at.key("delta");
            let key = Key::Index(index(e, &e_at)?);
            let d = walk::object_at(ctx, e, "delta", &e_at)?;
            if d.is_none() {
                return Err(ctx.required(&e_at, "delta", "an object", None));
            }
            if let Some(d) = d {
                if let Some(Value::String(s)) = get(d, "text") {
                    out.content(s, &delta_at.key("text"));
                }
                if let Some(Value::Object(r)) = get(d, "reasoningContent") {
                    if let Some(Value::String(s)) = get(r, "text") {
                        out.reasoning(s);
                    }
                }
                let use_at = delta_at.key("toolUse");
                if let Some(tool) = walk::object_at(ctx, d, "toolUse", &delta_at)? {
                    let Some(call) = self.calls.open(&key) else {
                        return Err(ctx.error(
                            ErrorCode::Unrecognized,
                            &use_at,
                            format!("{} continues a tool use that has not started", use_at.show()),
                        ));
                    };
                    match get(tool, "input") {
                        Some(Value::String(s)) => call.json.push("", s, use_at.key("input").path()),
                        None | Some(Value::Null) => {}
                        Some(other) => return Err(ctx.unrecognized(&use_at.key("input"), "a string", other)),
                    }
                }
            }
        }
        if let Some(e) = walk::object_at(ctx, o, "contentBlockStop", at)? {
            let key = Key::Index(index(e, &at.key("contentBlockStop"))?);
            if let Some(call) = self.calls.open(&key) {
                call.stopped = true;
            }
        }
        Ok(())
    }

    fn cohere(&mut self, ctx: &Source<'_>, o: &Object, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let kind = walk::string(o, "type").unwrap_or_default();
        let delta_at = at.key("delta");
        let message_at = delta_at.key("message");
        let delta = walk::object_at(ctx, o, "delta", at)?;
        let message = delta
            .map(|d| walk::object_at(ctx, d, "message", &delta_at))
            .transpose()?
            .flatten();
        match kind {
            "content-delta" => {
                let text = message
                    .and_then(|m| walk::object(m, "content"))
                    .and_then(|c| walk::string(c, "text"));
                if let Some(s) = text {
                    out.content(s, &message_at.key("content").key("text"));
                }
            }
            "tool-plan-delta" => {
                if let Some(s) = message.and_then(|m| walk::string(m, "tool_plan")) {
                    out.reasoning(s);
                }
            }
            "tool-call-start" | "tool-call-delta" => {
                let key = Key::Index(block_index(ctx, o, "index", at)?);
                let calls_at = message_at.key("tool_calls");
                let Some(tc) = message
                    .map(|m| walk::object_at(ctx, m, "tool_calls", &message_at))
                    .transpose()?
                    .flatten()
                else {
                    return Ok(());
                };
                let function_at = calls_at.key("function");
                let function = walk::object_at(ctx, tc, "function", &calls_at)?;
                if kind == "tool-call-start" {
                    let id = walk::id(ctx, tc, "id", &calls_at)?;
                    let name = match function {
                        Some(f) => walk::name(ctx, f, &function_at)?,
                        None => return Err(ctx.required(&calls_at, "function", "an object with `name`", None)),
                    };
                    self.calls.start(key.clone(), head(&calls_at, &function_at, id, name));
                }
                let Some(call) = self.calls.open(&key) else {
                    return Err(ctx.error(
                        ErrorCode::Unrecognized,
                        at,
                        format!("{} continues tool call {key:?}, which has not started", at.show()),
                    ));
                };
                if let Some(Value::String(s)) = function.and_then(|f| get(f, "arguments")) {
                    call.json.push("", s, function_at.key("arguments").path());
                }
            }
            "tool-call-end" => {
                let key = Key::Index(block_index(ctx, o, "index", at)?);
                if let Some(call) = self.calls.open(&key) {
                    call.stopped = true;
                }
            }
            "message-end" => {
                if let Some(d) = delta {
                    if let Some(e @ Value::String(s)) = get(d, "error") {
                        if !s.is_empty() {
                            return Err(walk::api_error_to_parse_error(ctx, e, &delta_at.key("error")));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The `message` of a Bedrock exception event, as the API's message.
fn get_message(e: &Value) -> Value {
    match e {
        Value::Object(o) => get(o, "message").cloned().unwrap_or(Value::Null),
        Value::String(_) => e.clone(),
        _ => Value::Null,
    }
}

/// A Gemini chunk: its calls whole, its text and thoughts.
fn gemini_chunk(ctx: &Source<'_>, value: &Value, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
    let mut found = Found::new(out.found.want_text);
    gemini::generate_content_at(ctx, value, at, &mut found)?;
    if let Value::Object(o) = value {
        for candidate in walk::array(o, "candidates").unwrap_or_default() {
            let Value::Object(c) = candidate else { continue };
            let parts = walk::object(c, "content").and_then(|content| walk::array(content, "parts"));
            for part in parts.unwrap_or_default() {
                let Value::Object(p) = part else { continue };
                match (walk::string(p, "text"), get(p, "thought")) {
                    (Some(t), Some(Value::Bool(true))) => out.reasoning(t),
                    (Some(t), _) => out.content_event(t),
                    _ => {}
                }
            }
        }
    }
    for call in found.calls {
        out.call(ctx, call);
    }
    out.found.text.append("\n", found.text);
    Ok(())
}

/// An Ollama chunk: its calls whole, its text and thinking.
fn ollama_chunk(ctx: &Source<'_>, o: &Object, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
    let message_at = at.key("message");
    let Some(m) = walk::object_at(ctx, o, "message", at)? else {
        return Ok(());
    };
    if let Some(Value::String(s)) = get(m, "thinking") {
        out.reasoning(s);
    }
    if let Some(Value::String(s)) = get(m, "content") {
        out.content_event(s);
    }
    let mut found = Found::new(out.found.want_text);
    openai::message(ctx, m, &message_at, &mut found)?;
    for call in found.calls {
        out.call(ctx, call);
    }
    out.found.text.append("", found.text);
    Ok(())
}

/// A non-negative integer index under `key`.
fn block_index(ctx: &Source<'_>, o: &Object, key: &'static str, at: &At<'_>) -> Result<i64, ParseError> {
    match get(o, key) {
        Some(Value::Number(Number::Int(i))) if *i >= 0 => Ok(*i),
        other => Err(ctx.required(at, key, "a non-negative integer", other)),
    }
}

/// What an API's events call a call by.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Key {
    Index(i64),
    Id(String),
}

/// How a call that starts at `at`, its name under `named_at`, began.
fn head(at: &At<'_>, named_at: &At<'_>, id: Option<String>, name: String) -> Head {
    Head {
        at: at.path(),
        name_at: named_at.key("name").path(),
        id,
        name,
    }
}

/// A call that streams.
/// The streaming calls, by the key their events name them with.
#[derive(Default)]
struct Calls(Queue<Key>);

impl Calls {
    fn start(&mut self, key: Key, head: Head) {
        self.0.start(key, head, None);
    }

    /// The latest call with `key` that has not ended.
    fn open(&mut self, key: &Key) -> Option<&mut Streamed> {
        self.0
            .list
            .iter_mut()
            .rev()
            .find(|(k, c)| k == key && !c.stopped)
            .map(|(_, c)| c)
    }

    fn report(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        self.0.report(ctx, out, "arguments")
    }

    fn finish(&self, ctx: &Source<'_>) -> Result<(), ParseError> {
        self.0
            .ended(ctx, |name| format!("the stream ends inside the tool call {name}"))
    }
}
