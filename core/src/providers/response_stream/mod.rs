//! Recorded and live response streams of the provider APIs: the events each API streams, read
//! one at a time by one reader per API, which reports [`Event`]s as they come and the calls of the
//! whole stream at its end. [`crate::parse_response`] runs the same readers over a complete
//! recording, so a stream read in one shot and one read as it arrives give the same calls.
//!
//! Framings ([`frames`]): SSE text, JSON values one after another (NDJSON), or a JSON list of
//! events; or events already decoded, one by one ([`ResponseStream::feed_value`]).
//!
//! Readers, by API (what starts a call, what continues it, what ends it):
//!
//! | provider | events | call |
//! | --- | --- | --- |
//! | `openai_chat` | `chat.completion.chunk` objects | `delta.tool_calls[]` fragments, joined as in a chunk list; a call ends when the next call of its choice begins, its choice finishes, or the stream ends |
//! | `openai_responses` | `response.*` events | `response.output_item.added` (a `function_call` item), `response.function_call_arguments.delta`, `response.output_item.done` |
//! | `anthropic` | `message_start`, `content_block_*`, `message_delta`, … | `content_block_start` (`tool_use`), `input_json_delta`, `content_block_stop` |
//! | `gemini` | `GenerateContentResponse` chunks | a `functionCall` part, whole |
//! | `bedrock` | ConverseStream events | `contentBlockStart` (`toolUse`), `contentBlockDelta` (`toolUse.input`), `contentBlockStop` |
//! | `cohere_v2` | `message-start`, `tool-call-*`, `content-delta`, … | `tool-call-start`, `tool-call-delta`, `tool-call-end` |
//! | `ollama` | `/api/chat` chunks | `message.tool_calls[]`, whole |
//!
//! Errors the API streams (an `error` event or member, Responses `response.failed`, Bedrock
//! exceptions, Cohere's `message-end` with an `error`) are `response.error` with the API's
//! message. A stream whose shape is recognised but that cannot be read raises, as a response
//! does; so does a stream that ends inside a call it had begun.

mod anthropic;
mod chat;
mod events;
pub(crate) mod frames;

use crate::call::Format;
use crate::error::{ErrorCode, ParseError};
use crate::repair::Repair;
use crate::text::stream::Event;
use crate::tools::{Tools, UnknownTools};
use crate::value::{Object, Value};

use super::walk::{self, ArgsAt, At, Found, FoundCall, Joined, Source, ROOT};
use super::{Provider, ProviderCall, ResponseOptions};
use crate::syntax::path::Step;
pub(super) use frames::Frames;
use frames::{Frame, Framing};

/// Where events go: the stream's [`Event`]s, and the calls and text of the whole response.
pub(super) struct Emit {
    pub events: Vec<Event>,
    pub found: Found,
    /// The call being reported, by the stream's index.
    open: Option<usize>,
    /// Where the open call's events begin in `events`.
    call_from: usize,
    /// Once a call has failed the tools: how many of `events` came before it.
    kept: usize,
    calls: usize,
    /// The caller's tools, applied to each call as it ends (a [`ResponseStream`] with tools).
    check: Option<Check>,
    /// Arguments are read with repair: each call's events wait for its end, since a mended
    /// call's fragments would not add up to its arguments.
    repair: bool,
}

/// A stream's tools: what [`super::check::call`] needs, and the first call that failed.
struct Check {
    tools: Tools,
    validate: bool,
    unknown: UnknownTools,
    /// A call failed the tools: no more events, and `finish` raises this.
    failed: Option<ParseError>,
}

impl Emit {
    fn new(want_text: bool) -> Self {
        Emit {
            events: Vec::new(),
            found: Found::new(want_text),
            open: None,
            call_from: 0,
            kept: 0,
            calls: 0,
            check: None,
            repair: false,
        }
    }

    /// The events to report now: none once a call has failed the tools; with unknown calls
    /// dropped, those before the open call (its own wait for its end).
    #[allow(clippy::similar_names, reason = "the names follow the JSON they walk")]
    fn take(&mut self) -> Vec<Event> {
        let hold = match &self.check {
            Some(c) if c.failed.is_some() => {
                let mut out = std::mem::take(&mut self.events);
                out.truncate(self.kept);
                self.kept = 0;
                return out;
            }
            Some(c) => (self.repair || c.unknown == UnknownTools::Drop) && self.open.is_some(),
            None => self.repair && self.open.is_some(),
        };
        if hold {
            let held = self.events.split_off(self.call_from);
            self.call_from = 0;
            std::mem::replace(&mut self.events, held)
        } else {
            self.call_from = 0;
            std::mem::take(&mut self.events)
        }
    }

    /// The first failure of a call, with tools.
    fn failure(&self) -> Option<&ParseError> {
        self.check.as_ref().and_then(|c| c.failed.as_ref())
    }

    /// Assistant text, from the value at `at`.
    pub(super) fn content(&mut self, text: &str, at: &At<'_>) {
        if text.is_empty() {
            return;
        }
        self.found.text(text, at);
        match self.events.last_mut() {
            Some(Event::Content { text: last }) => last.push_str(text),
            _ => self.events.push(Event::Content { text: text.to_string() }),
        }
    }

    /// Assistant text the reader keeps for the text fallback itself.
    pub(super) fn content_event(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.events.last_mut() {
            Some(Event::Content { text: last }) => last.push_str(text),
            _ => self.events.push(Event::Content { text: text.to_string() }),
        }
    }

    /// Reasoning text.
    pub(super) fn reasoning(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.events.last_mut() {
            Some(Event::Reasoning { text: last }) => last.push_str(text),
            _ => self.events.push(Event::Reasoning { text: text.to_string() }),
        }
    }

    /// Whether a call is being reported.
    pub(super) fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// A call begins.
    pub(super) fn start(&mut self, id: Option<String>, name: String) {
        let index = self.calls;
        self.open = Some(index);
        self.call_from = self.events.len();
        self.events.push(Event::CallStart {
            index,
            id,
            name,
            format: Format::Json,
        });
    }

    /// A fragment of the arguments of the call being reported.
    pub(super) fn arguments(&mut self, delta: &str) {
        let Some(index) = self.open else { return };
        if delta.is_empty() {
            return;
        }
        match self.events.last_mut() {
            Some(Event::Arguments { index: i, delta: last }) if *i == index => last.push_str(delta),
            _ => self.events.push(Event::Arguments {
                index,
                delta: delta.to_string(),
            }),
        }
    }

    /// The call being reported ends with `found` (whose arguments its fragments add up to, or,
    /// when none were reported, written out here). With tools, the call is checked first, as
    /// [`crate::parse_response`] checks it: its `CallEnd` carries the checked arguments; a call
    /// dropped as unknown leaves no event; a failure stops the events.
    pub(super) fn end(&mut self, ctx: &Source<'_>, mut found: FoundCall, streamed: bool) {
        let Some(index) = self.open.take() else { return };
        let mut arguments = found.call.arguments.clone();
        if let Some(check) = self.check.as_mut().filter(|c| c.failed.is_none()) {
            let root = super::check::Root::Event(ctx.event_at_hand());
            let result = super::check::call(ctx, root, &mut found, &check.tools, check.validate, check.unknown);
            // The found call keeps its arguments as read (the chunk list's reading compares them).
            std::mem::swap(&mut found.call.arguments, &mut arguments);
            match result {
                Ok(true) => {}
                Ok(false) => {
                    let from = self.call_from.min(self.events.len());
                    let mut rest = self.events.split_off(from);
                    rest.retain(|e| !is_call(e, index));
                    self.events.extend(rest);
                    self.found.calls.push(found);
                    return;
                }
                Err(e) => {
                    check.failed = Some(e);
                    self.kept = self.call_from.min(self.events.len());
                    self.found.calls.push(found);
                    return;
                }
            }
        }
        if self.repair && streamed {
            // The call comes whole: one delta, the JSON of the arguments as read.
            self.events
                .retain(|e| !matches!(e, Event::Arguments { index: i, .. } if *i == index));
        }
        if !streamed || self.repair {
            self.events.push(Event::Arguments {
                index,
                delta: crate::value::object_json(&arguments),
            });
        }
        let repairs = numbered(&found.call.repairs, index);
        self.events.push(Event::CallEnd {
            index,
            arguments,
            repairs,
        });
        self.found.calls.push(found);
        self.calls += 1;
    }

    /// A call already read and checked (a response read whole).
    fn whole(&mut self, call: ProviderCall) {
        let index = self.calls;
        self.calls += 1;
        self.events.push(Event::CallStart {
            index,
            id: call.id,
            name: call.name,
            format: Format::Json,
        });
        self.events.push(Event::Arguments {
            index,
            delta: crate::value::object_json(&call.arguments),
        });
        self.events.push(Event::CallEnd {
            index,
            arguments: call.arguments,
            repairs: numbered(&call.repairs, index),
        });
    }

    /// A whole call.
    pub(super) fn call(&mut self, ctx: &Source<'_>, found: FoundCall) {
        self.start(found.call.id.clone(), found.call.name.clone());
        self.end(ctx, found, false);
    }
}

/// `repairs` as receipts of the call `index`.
fn numbered(repairs: &[Repair], index: usize) -> Vec<Repair> {
    repairs
        .iter()
        .map(|r| Repair {
            call_index: Some(index),
            ..r.clone()
        })
        .collect()
}

/// Whether `event` belongs to the call `index`.
fn is_call(event: &Event, index: usize) -> bool {
    match event {
        Event::CallStart { index: i, .. } | Event::Arguments { index: i, .. } | Event::CallEnd { index: i, .. } => {
            *i == index
        }
        _ => false,
    }
}

/// One reader per API.
enum Reader {
    Chat(chat::Chat),
    Events(events::Events),
    Anthropic(anthropic::Anthropic),
}

impl Reader {
    fn new(provider: Provider) -> Result<Reader, ParseError> {
        Ok(match provider {
            Provider::OpenaiChat => Reader::Chat(chat::Chat::default()),
            Provider::Anthropic => Reader::Anthropic(anthropic::Anthropic::default()),
            Provider::OpenaiResponses
            | Provider::Gemini
            | Provider::Bedrock
            | Provider::CohereV2
            | Provider::Ollama => Reader::Events(events::Events::new(provider)),
            Provider::GeminiInteractions | Provider::CohereV1 => {
                return Err(ParseError::new(
                    ErrorCode::Unrecognized,
                    0,
                    format!("{provider} responses are not read as streams"),
                ))
            }
        })
    }

    fn event(
        &mut self,
        ctx: &Source<'_>,
        value: &Value,
        at: &At<'_>,
        name: Option<&str>,
        out: &mut Emit,
    ) -> Result<(), ParseError> {
        if let Value::Object(o) = value {
            stream_error(ctx, o, at, name)?;
        }
        match self {
            Reader::Chat(r) => r.event(ctx, value, at, out),
            Reader::Events(r) => r.event(ctx, value, at, out),
            Reader::Anthropic(r) => r.event(ctx, value, at, out),
        }
    }

    fn finish(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        match self {
            Reader::Chat(r) => r.finish(ctx, out),
            Reader::Events(r) => r.finish(ctx, out),
            Reader::Anthropic(r) => r.finish(ctx, out),
        }
    }
}

/// `response.error` for an event that reports an error: one with an `error` member, or (as the
/// Responses API and SSE `event: error` write it) of type `error` with a `message`.
fn stream_error(ctx: &Source<'_>, o: &Object, at: &At<'_>, name: Option<&str>) -> Result<(), ParseError> {
    if let Some(e) = walk::api_error(o) {
        return Err(walk::api_error_to_parse_error(ctx, e, &at.key("error")));
    }
    let typed = walk::string(o, "type") == Some("error") || name == Some("error");
    if typed && walk::string(o, "message").is_some() {
        return Err(walk::api_error_to_parse_error(ctx, &Value::Object(o.clone()), at));
    }
    Ok(())
}

/// The API a stream's first event comes from.
fn detect_event(value: &Value) -> Option<Provider> {
    let Value::Object(o) = value else { return None };
    let has = |k: &str| crate::value::get(o, k).is_some();
    let kind = walk::string(o, "type").unwrap_or_default();
    if has("choices") || walk::string(o, "object") == Some("chat.completion.chunk") {
        return Some(Provider::OpenaiChat);
    }
    if kind.starts_with("response.") {
        return Some(Provider::OpenaiResponses);
    }
    if matches!(
        kind,
        "message_start"
            | "content_block_start"
            | "content_block_delta"
            | "content_block_stop"
            | "message_delta"
            | "message_stop"
            | "ping"
    ) {
        return Some(Provider::Anthropic);
    }
    if matches!(
        kind,
        "message-start"
            | "content-start"
            | "content-delta"
            | "content-end"
            | "tool-plan-delta"
            | "tool-call-start"
            | "tool-call-delta"
            | "tool-call-end"
            | "citation-start"
            | "citation-end"
            | "message-end"
    ) {
        return Some(Provider::CohereV2);
    }
    if has("candidates") || has("usageMetadata") || has("promptFeedback") {
        return Some(Provider::Gemini);
    }
    if events::BEDROCK_EVENTS.iter().any(|k| has(k)) {
        return Some(Provider::Bedrock);
    }
    if has("message") && (has("done") || has("created_at")) {
        return Some(Provider::Ollama);
    }
    None
}

/// The API of a decoded list of streamed events: that of the first item that is an event of a
/// known API, whatever the other items are (the reader raises at an item it cannot read).
pub(super) fn detect_list(items: &[Value]) -> Option<Provider> {
    items.iter().find_map(detect_event)
}

/// The provider of a list of events: the given one, or the first event's that shows one.
fn provider_of(given: Option<Provider>, frames: &[(&Value, Option<&str>)]) -> Option<Provider> {
    given.or_else(|| frames.iter().find_map(|(v, _)| detect_event(v)))
}

/// The API of a recorded stream given as text: `None` when the text is not a stream,
/// `Some(None)` for a stream of no known API.
#[allow(
    clippy::option_option,
    reason = "three answers: not this, this with nothing, this with a value"
)]
pub(super) fn detect_text(text: &str) -> Result<Option<Option<Provider>>, ParseError> {
    if !Frames::is_stream(text) {
        return Ok(None);
    }
    let mut frames = Vec::new();
    Frames::default().read(text, true, &mut frames)?;
    Ok(Some(frames.iter().find_map(|f| detect_event(&f.value))))
}

/// Reads a whole recorded stream (text) for [`crate::parse_response`]: its calls, or `None`
/// when the text is not a stream.
pub(super) fn read_text(text: &str, options: &ResponseOptions<'_>) -> Result<Option<Vec<ProviderCall>>, ParseError> {
    if !Frames::is_stream(text) {
        return Ok(None);
    }
    let mut frames = Vec::new();
    // The events before a framing error are read first, as a stream reads them as they come.
    let read = Frames::default().read(text, true, &mut frames);
    let starts: Vec<usize> = frames.iter().map(|f| f.start).collect();
    let ctx = Source::events(text, &starts).repairing(options.repair);
    let events: Vec<(&Value, Option<&str>)> = frames.iter().map(|f| (&f.value, f.name.as_deref())).collect();
    let detected = provider_of(options.provider, &events);
    read_all(&ctx, &Value::Null, detected, &events, options, read).map(Some)
}

/// The error of a JSON list text that does not parse (`error`), as a stream meets it: an error
/// that a known API's reader raises in an event before it comes first.
pub(super) fn broken_list(text: &str, error: ParseError, options: &ResponseOptions<'_>) -> ParseError {
    let mut frames = Vec::new();
    if Frames::default().read(text, true, &mut frames).is_ok() {
        return error;
    }
    let items: Vec<Value> = frames.iter().map(|f| f.value.clone()).collect();
    let provider = detect_list(&items).map(|detected| options.provider.unwrap_or(detected));
    let starts: Vec<usize> = frames.iter().map(|f| f.start).collect();
    let ctx = Source::events(text, &starts);
    let events: Vec<(&Value, Option<&str>)> = items.iter().map(|v| (v, None)).collect();
    match read_all(&ctx, &Value::Null, provider, &events, options, Err(error)) {
        Err(e) => e,
        Ok(_) => ParseError::new(ErrorCode::Internal, 0, "a list that does not parse was read"),
    }
}

/// Reads a decoded list of events (`provider` known or detected); `response` is the list.
pub(super) fn read_list(
    ctx: &Source<'_>,
    response: &Value,
    items: &[Value],
    provider: Provider,
    options: &ResponseOptions<'_>,
) -> Result<Vec<ProviderCall>, ParseError> {
    let events: Vec<(&Value, Option<&str>)> = items.iter().map(|v| (v, None)).collect();
    read_all(ctx, response, Some(provider), &events, options, Ok(()))
}

/// The calls of a whole recorded stream (`response` is its decoded list, or `Null` when read
/// from text), with the caller's tools applied as to a response. `framed` is how framing the
/// text ended: its error comes after those of the events read before it.
fn read_all(
    ctx: &Source<'_>,
    response: &Value,
    provider: Option<Provider>,
    events: &[(&Value, Option<&str>)],
    options: &ResponseOptions<'_>,
    framed: Result<(), ParseError>,
) -> Result<Vec<ProviderCall>, ParseError> {
    let mut out = Emit::new(options.text_fallback);
    let Some(provider) = provider else {
        // Not a known API's stream: an error event still raises.
        for (i, (value, name)) in events.iter().enumerate() {
            if let Value::Object(o) = value {
                stream_error(ctx, o, &ROOT.index(i), *name)?;
            }
        }
        framed?;
        return Ok(Vec::new());
    };
    // A stream begins its reader at its first event (or at its end when there is none), once
    // that event is not an error the API streamed.
    match events.first() {
        None => framed.clone()?,
        Some((Value::Object(o), name)) => stream_error(ctx, o, &ROOT.index(0), *name)?,
        Some(_) => {}
    }
    let mut reader = Reader::new(provider)?;
    for (i, (value, name)) in events.iter().enumerate() {
        reader.event(ctx, value, &ROOT.index(i), *name, &mut out)?;
    }
    framed?;
    reader.finish(ctx, &mut out)?;
    super::settle_calls(ctx, response, out.found, options)
}

/// Reads a provider's response stream as it arrives: text (SSE, NDJSON or a JSON list, in pieces
/// of any size) or decoded events, reporting [`Event`]s as they come: `Content` for assistant
/// text, `Reasoning` where the API marks it (Anthropic thinking, Gemini thoughts, Cohere's tool
/// plan, `reasoning_content` deltas), and the calls (`CallStart`, `Arguments`, `CallEnd`; their
/// format is `json`). The events add up to [`crate::parse_response`] of the whole recording: the
/// same calls, or the same error at the same position.
///
/// Events wait until the stream shows what it is, as the one-shot reading decides it: until an
/// event of a known API arrives (events before it are then read by that API's reader, in order);
/// for NDJSON text and decoded events, also until a second event arrives, since one value alone
/// is a response, read whole at the end as `parse_response` reads it (its assistant text as one
/// `Content`, then its calls); for a JSON list, until an
/// event arrives, since a list of other items is read whole at the end. Plain text holds no
/// events. An error event that comes first raises at once.
pub struct ResponseStream {
    given: Option<Provider>,
    reader: Option<Reader>,
    text: String,
    frames: Frames,
    /// Where each event read from the text starts (for error positions).
    starts: Vec<usize>,
    /// Events decoded by the caller, counted (their errors have offset 0).
    values: usize,
    /// Events that arrived before the stream showed what it is, with their index and name.
    held: Vec<(Value, usize, Option<String>)>,
    pending: Vec<Frame>,
    emit: Emit,
    /// The options a value read whole at the end is read with.
    validate: bool,
    unknown: UnknownTools,
    repair: bool,
    state: Option<Result<(), ParseError>>,
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "the state shown is what a caller can act on"
)]
impl std::fmt::Debug for ResponseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseStream")
            .field("provider", &self.provider())
            .field("fed", &self.text.len())
            .field("events", &(self.starts.len() + self.values))
            .finish()
    }
}

impl ResponseStream {
    /// A stream of `provider`'s API, or of the API its first event shows (`None`).
    pub fn new(provider: Option<Provider>) -> Self {
        ResponseStream::with_options(&ResponseOptions {
            provider,
            ..ResponseOptions::default()
        })
    }

    /// A stream with the options of [`crate::parse_response_with`]: the provider, and the
    /// caller's tools, validation and unknown tools, applied to each call as it ends, so that the
    /// calls are those of the whole recording (`text_fallback` is not read: a stream does not look
    /// for calls in the assistant's text). The tools are copied, so the stream owns everything it
    /// needs. A call that fails the tools stops the events; `finish` raises what
    /// `parse_response` raises on the whole recording (an error in a later event comes first, as
    /// there). With [`UnknownTools::Drop`] a call's events wait for its end, so that a dropped
    /// call shows nothing.
    pub fn with_options(options: &ResponseOptions<'_>) -> Self {
        let mut emit = Emit::new(false);
        emit.repair = options.repair;
        emit.check = options.tools.map(|tools| Check {
            tools: tools.clone(),
            validate: options.validate,
            unknown: options.unknown,
            failed: None,
        });
        ResponseStream {
            given: options.provider,
            reader: None,
            text: String::new(),
            frames: Frames::default(),
            starts: Vec::new(),
            values: 0,
            held: Vec::new(),
            pending: Vec::new(),
            emit,
            validate: options.validate,
            unknown: options.unknown,
            repair: options.repair,
            state: None,
        }
    }

    /// The API of the stream, once known.
    pub fn provider(&self) -> Option<Provider> {
        self.given.or(match &self.reader {
            Some(Reader::Chat(_)) => Some(Provider::OpenaiChat),
            Some(Reader::Anthropic(_)) => Some(Provider::Anthropic),
            Some(Reader::Events(e)) => Some(e.provider()),
            None => None,
        })
    }

    /// The text fed so far (error offsets are byte offsets into it).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Adds text of the stream (any piece of it); returns what it completed.
    pub fn feed(&mut self, chunk: &str) -> Result<Vec<Event>, ParseError> {
        self.check()?;
        self.text.push_str(chunk);
        let mut frames = std::mem::take(&mut self.pending);
        let read = self.frames.read(&self.text, false, &mut frames);
        let result = self.take(frames, read);
        self.settle(result)
    }

    /// Adds one event already decoded (an SDK's event object as JSON).
    pub fn feed_value(&mut self, event: &Value) -> Result<Vec<Event>, ParseError> {
        self.check()?;
        let index = self.values;
        self.values += 1;
        let result = self.arrive(event.clone(), index, None);
        self.settle(result)
    }

    /// The stream has ended: the rest of the events, or its error.
    pub fn finish(&mut self) -> Result<Vec<Event>, ParseError> {
        self.check()?;
        let mut frames = Vec::new();
        let read = self.frames.read(&self.text, true, &mut frames);
        let mut result = self.take(frames, read);
        if result.is_ok() {
            result = self.end();
        }
        if let (Ok(()), Some(e)) = (&result, self.emit.failure()) {
            result = Err(e.clone());
        }
        let events = self.settle(result)?;
        self.state = Some(Ok(()));
        Ok(events)
    }

    /// The end of the events: the reader's end, or, when no reader began, the events held read as
    /// one-shot reading reads them.
    fn end(&mut self) -> Result<(), ParseError> {
        let starts = std::mem::take(&mut self.starts);
        let text = std::mem::take(&mut self.text);
        let result = self.end_with(&text, &starts);
        self.starts = starts;
        self.text = text;
        result
    }

    fn end_with(&mut self, text: &str, starts: &[usize]) -> Result<(), ParseError> {
        let fed = self.values > 0;
        if let Some(mut reader) = self.reader.take() {
            let ctx = if fed {
                Source::value()
            } else {
                Source::events(text, starts)
            };
            return reader.finish(&ctx.repairing(self.repair), &mut self.emit);
        }
        // SSE of a given API with no event in it: that API's reader, which may not read streams.
        if let (false, Some(Framing::Sse), Some(provider)) = (fed, self.frames.framing(), self.given) {
            let ctx = Source::events(text, starts);
            return Reader::new(provider)?.finish(&ctx, &mut self.emit);
        }
        let held = std::mem::take(&mut self.held);
        let options = ResponseOptions {
            provider: self.given,
            text_fallback: false,
            tools: self.emit.check.as_ref().map(|c| &c.tools),
            validate: self.validate,
            unknown: self.unknown,
            repair: self.repair,
        };
        let calls = match (fed, self.frames.framing()) {
            // One value alone is a response.
            (true, _) | (false, Some(Framing::Values)) if held.len() == 1 => {
                let (value, index, _) = &held[0];
                let ctx = if fed {
                    Source::value()
                } else {
                    Source::text(text, starts[*index])
                };
                let mut said = String::new();
                let (calls, _) = super::read_into(&ctx, value, &options, Some(&mut said))?;
                self.emit.content_event(&said);
                calls
            }
            // A list whose items are not events: read whole.
            (false, Some(Framing::Array)) => {
                let list = Value::Array(held.into_iter().map(|(v, _, _)| v).collect());
                super::read(&Source::text(text, frames::bom(text)), &list, &options)?.0
            }
            // Events of no known API: an error event among them still raises.
            _ => {
                for (value, index, name) in &held {
                    if let Value::Object(o) = value {
                        let ctx = if fed {
                            Source::event(*index, value)
                        } else {
                            Source::events(text, starts)
                        };
                        stream_error(&ctx, o, &ROOT.index(*index), name.as_deref())?;
                    }
                }
                Vec::new()
            }
        };
        for call in calls {
            self.emit.whole(call);
        }
        Ok(())
    }

    fn check(&self) -> Result<(), ParseError> {
        match &self.state {
            None => Ok(()),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(())) => Err(ParseError::new(
                ErrorCode::Internal,
                self.text.len(),
                "the stream has finished: it takes no more events",
            )),
        }
    }

    fn settle(&mut self, result: Result<(), ParseError>) -> Result<Vec<Event>, ParseError> {
        match crate::error::within(&self.text, result) {
            Ok(()) => Ok(self.emit.take()),
            Err(e) => {
                self.state = Some(Err(e.clone()));
                Err(e)
            }
        }
    }

    /// Reads frames from the text, then raises how framing it `ended`. NDJSON events held
    /// when a second value began are read first, as one-shot reading reads them: the text is a
    /// stream.
    fn take(&mut self, frames: Vec<Frame>, ended: Result<(), ParseError>) -> Result<(), ParseError> {
        for frame in frames {
            self.starts.push(frame.start);
            let index = self.starts.len() - 1;
            self.arrive(frame.value, index, frame.name)?;
        }
        // One-shot reading reads the events before a framing error first (except after a single
        // NDJSON value, which is one response with something after it).
        let framing = self.frames.framing();
        let read_first = match framing {
            Some(Framing::Values) => self.frames.began() >= 2,
            Some(Framing::Sse | Framing::Array) => true,
            _ => false,
        };
        if ended.is_err() && self.reader.is_none() && read_first {
            let provider = match framing {
                Some(Framing::Values) => self
                    .given
                    .or_else(|| self.held.iter().find_map(|(v, _, _)| detect_event(v))),
                _ => None,
            };
            if let Some(provider) = provider {
                self.begin(provider)?;
                for (value, index, name) in std::mem::take(&mut self.held) {
                    self.dispatch(&value, index, name.as_deref())?;
                }
            } else {
                let held = std::mem::take(&mut self.held);
                for (value, index, name) in &held {
                    if let Value::Object(o) = value {
                        self.with_ctx(*index, value, |ctx| {
                            stream_error(ctx, o, &ROOT.index(*index), name.as_deref())
                        })?;
                    }
                }
                self.held = held;
            }
        }
        ended
    }

    /// An event arrives: read by the reader, or held until the stream shows what it is.
    fn arrive(&mut self, value: Value, index: usize, name: Option<String>) -> Result<(), ParseError> {
        if self.reader.is_some() {
            return self.dispatch(&value, index, name.as_deref());
        }
        // An error event that comes first raises at once, where it stands among events (NDJSON
        // and decoded events wait: one value alone is a response, and its error reads as one).
        let framing = self.frames.framing();
        if self.held.is_empty() && self.values == 0 && matches!(framing, Some(Framing::Sse | Framing::Array)) {
            if let Value::Object(o) = &value {
                self.with_ctx(index, &value, |ctx| {
                    stream_error(ctx, o, &ROOT.index(index), name.as_deref())
                })?;
            }
        }
        let detected = detect_event(&value);
        self.held.push((value, index, name));
        let provider = match (self.values > 0, self.frames.framing()) {
            (true, _) | (false, Some(Framing::Values)) if self.held.len() < 2 => None,
            (true, _) | (false, Some(Framing::Values | Framing::Sse)) => self
                .given
                .or_else(|| self.held.iter().find_map(|(v, _, _)| detect_event(v))),
            (false, Some(Framing::Array)) => detected.map(|d| self.given.unwrap_or(d)),
            (false, Some(Framing::Text) | None) => None,
        };
        let Some(provider) = provider else { return Ok(()) };
        self.begin(provider)?;
        for (value, index, name) in std::mem::take(&mut self.held) {
            self.dispatch(&value, index, name.as_deref())?;
        }
        Ok(())
    }

    /// The reader of `provider` begins, once the first event is not an error the API streamed (as
    /// one-shot reading checks it first).
    fn begin(&mut self, provider: Provider) -> Result<(), ParseError> {
        if let Some((value @ Value::Object(_), index, name)) = self.held.first() {
            let (value, index, name) = (value.clone(), *index, name.clone());
            if let Value::Object(o) = &value {
                self.with_ctx(index, &value, |ctx| {
                    stream_error(ctx, o, &ROOT.index(index), name.as_deref())
                })?;
            }
        }
        self.reader = Some(Reader::new(provider)?);
        Ok(())
    }

    /// Runs `f` with the source an event at `index` is located in.
    fn with_ctx<T>(&mut self, index: usize, value: &Value, f: impl FnOnce(&Source<'_>) -> T) -> T {
        let repair = self.repair;
        if self.values > 0 {
            return f(&Source::event(index, value).repairing(repair));
        }
        let starts = std::mem::take(&mut self.starts);
        let text = std::mem::take(&mut self.text);
        let out = f(&Source::events(&text, &starts).repairing(repair));
        self.text = text;
        self.starts = starts;
        out
    }

    /// The reader reads one event.
    fn dispatch(&mut self, value: &Value, index: usize, name: Option<&str>) -> Result<(), ParseError> {
        let Some(mut reader) = self.reader.take() else {
            return Ok(());
        };
        let mut emit = std::mem::replace(&mut self.emit, Emit::new(false));
        let result = self.with_ctx(index, value, |ctx| {
            reader.event(ctx, value, &ROOT.index(index), name, &mut emit)
        });
        self.emit = emit;
        self.reader = Some(reader);
        result
    }
}

/// How a streamed call began: where it stands (for `tool_call.unclosed`), where its name's value
/// stands (for the tools' `tool_call.unknown_tool`, and a violation when no arguments were
/// written), its id and its name.
pub(super) struct Head {
    pub at: Vec<Step<&'static str>>,
    pub name_at: Vec<Step<&'static str>>,
    pub id: Option<String>,
    pub name: String,
}

/// A call whose arguments arrive in fragments.
pub(super) struct Streamed {
    pub head: Head,
    /// Arguments sent whole (Anthropic's `input`, a Responses item's `arguments` object), and
    /// their path.
    pub whole: Option<(Object, Vec<Step<&'static str>>)>,
    pub json: Joined,
    /// How much of `json` was reported, and whether the call ended.
    pub sent: usize,
    pub stopped: bool,
}

/// Streamed calls in the order they started, each with the key its reader finds it by, reported
/// one after another: a call's fragments as they come, its end once it stopped, then the next.
pub(super) struct Queue<K> {
    pub list: Vec<(K, Streamed)>,
    reported: usize,
}

impl<K> Default for Queue<K> {
    fn default() -> Self {
        Queue {
            list: Vec::new(),
            reported: 0,
        }
    }
}

impl<K> Queue<K> {
    /// A call starts: its index in the list.
    pub(super) fn start(&mut self, key: K, head: Head, whole: Option<(Object, Vec<Step<&'static str>>)>) -> usize {
        self.list.push((
            key,
            Streamed {
                head,
                whole,
                json: Joined::default(),
                sent: 0,
                stopped: false,
            },
        ));
        self.list.len() - 1
    }

    /// Reports the calls as far as they have come; `what` names their arguments' field.
    pub(super) fn report(&mut self, ctx: &Source<'_>, out: &mut Emit, what: &str) -> Result<(), ParseError> {
        while let Some((_, call)) = self.list.get_mut(self.reported) {
            if !out.is_open() {
                out.start(call.head.id.clone(), call.head.name.clone());
            }
            out.arguments(&call.json.text[call.sent..]);
            call.sent = call.json.text.len();
            if !call.stopped {
                return Ok(());
            }
            let streamed = call.sent > 0;
            let done = streamed_call(ctx, &call.head, &call.json, call.whole.as_ref(), what)?;
            out.end(ctx, done, streamed);
            self.reported += 1;
        }
        Ok(())
    }

    /// When the stream ends: `tool_call.unclosed` at the first call that has not ended, its
    /// message worded by `message` from the call's quoted name.
    pub(super) fn ended(&self, ctx: &Source<'_>, message: impl FnOnce(&str) -> String) -> Result<(), ParseError> {
        match self.list.get(self.reported) {
            Some((_, call)) => Err(ParseError::new(
                ErrorCode::Unclosed,
                ctx.offset(&call.head.at),
                message(&crate::lex::quote(&call.head.name)),
            )),
            None => Ok(()),
        }
    }
}

/// A streamed call that has ended: its joined JSON fragments parsed as an object. No fragment (or
/// only whitespace) gives the object the call was given `whole` (with its path), else `{}`: an
/// empty `whole` (Anthropic's `"input": {}` placeholder) counts as no arguments written, so the
/// tools position a violation at the name. `what` names the field (`input`, `arguments`) in the
/// error.
fn streamed_call(
    ctx: &Source<'_>,
    head: &Head,
    json: &Joined,
    whole: Option<&(Object, Vec<Step<&'static str>>)>,
    what: &str,
) -> Result<FoundCall, ParseError> {
    let name = &head.name;
    let mut repairs = Vec::new();
    let (arguments, args) = if json.text.trim().is_empty() {
        match whole {
            Some((o, path)) if !o.is_empty() => (o.clone(), ArgsAt::Value(path.clone())),
            _ => (Object::new(), ArgsAt::None),
        }
    } else {
        match ctx.decode(&json.text) {
            Ok((Value::Object(o), mended)) => {
                repairs = json.place(ctx, mended);
                (o, ArgsAt::Joined(json.clone()))
            }
            Ok((other, _)) => {
                let (offset, path) = json.locate(ctx, 0);
                let message = format!(
                    "the JSON streamed as the {what} of {} (from {path}) must be an object, found {}",
                    crate::lex::quote(name),
                    other.kind()
                );
                return Err(ParseError::new(ErrorCode::InvalidArguments, offset, message));
            }
            Err(e) => {
                let (offset, path) = json.locate(ctx, e.offset);
                let message = format!(
                    "the JSON streamed as the {what} of {} is not valid: {} ({}), in the fragment at {path}",
                    crate::lex::quote(name),
                    e.message,
                    e.code
                );
                return Err(ParseError::new(ErrorCode::InvalidArguments, offset, message));
            }
        }
    };
    Ok(FoundCall {
        call: ProviderCall {
            id: head.id.clone(),
            name: name.clone(),
            arguments,
            repairs,
        },
        name_at: head.name_at.clone(),
        args,
        built: None,
    })
}
