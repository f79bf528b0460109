//! Streaming: a model's output read while it arrives, with the same answer as
//! [`crate::parse_message`] on the whole text however the text is split.
//!
//! [`ToolCallStream`] keeps the text it was fed and runs the scanner ([`crate::text::scanner`]) over it
//! after every delta. The scanner decides only what no later text can change; the stream turns
//! each decision into [`Event`]s as soon as it is made:
//!
//! - prose becomes `Content` (less end-of-turn tokens and wrappers, by the content rule of
//!   [`crate::parse_message`]; whitespace at the end is held back, since a cut right after it
//!   drops it), held back only where the text may end partway through a marker or tag;
//! - reasoning text becomes `Reasoning` as it arrives;
//! - a tagged or leading call becomes `CallStart`, `Arguments` and `CallEnd` once it is parsed;
//!   for calls whose arguments are a JSON object written out in the text, the object's text
//!   streams as `Arguments` fragments while it arrives ([`args`]).
//!
//! When the text ends ([`ToolCallStream::finish`]), the scanner settles the rest, tiers 2 and 3
//! run over the whole text, and the calls they find (or the calls inside reasoning, when no call
//! stands outside) follow. A broken call is the error `parse_message` raises; `feed` never raises
//! for a call, `finish` does, and anything fed after a broken call waits for it.
//!
//! With the caller's tools ([`MessageOptions::tools`]) each call is named, typed and validated as
//! [`crate::parse_message`] does: before its `CallStart` when it comes whole, at its `CallStart`
//! (the name) and when its region is settled (the arguments) when its arguments stream. A call
//! that fails stops the events: `finish` raises what `parse_message` raises on the whole text (a
//! broken call after it comes first, as there). With [`crate::UnknownTools::Drop`] calls come
//! whole, so that a dropped call shows nothing.

mod args;
mod hold;
mod state;

pub use state::{scan_stream, StreamScan, StreamState};

use crate::call::{Deferred, Format, Grammar, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::repair::Repair;
use crate::syntax::json::{parse_value_at, raw_value_end};
use crate::syntax::shape::{BuildArguments, Defer, CHECK};
use crate::text::content::{prose, Content, Out};
use crate::text::message::{parse_message, region_start, IdHasher, MessageOptions};
use crate::text::scanner::marks::Marks;
use crate::text::scanner::{Scanner, Segment};
use crate::text::tiers::{self, Found};
use crate::tools::{Tools, UnknownTools};
use crate::value::{Object, Value};

use args::{Piece, Walk};
use hold::Hold;

/// What a stream reports, in text order. Concatenated, the `Content` texts are the message's
/// content, the `Reasoning` texts its reasoning, and each call's `Arguments` deltas the JSON text
/// of its `CallEnd` arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Text of the content.
    Content { text: String },
    /// Text of the reasoning.
    Reasoning { text: String },
    /// A call begins: the `index`-th call of the message (from 0), its id (the format's own, or a
    /// generated one with [`crate::Ids::Generate`] or [`crate::Ids::Seeded`]), name and format.
    CallStart {
        index: usize,
        id: Option<String>,
        name: String,
        format: Format,
    },
    /// A fragment of the JSON text of the call's arguments.
    Arguments { index: usize, delta: String },
    /// The call is complete; its arguments, which the fragments add up to, and, with
    /// [`MessageOptions::repair`], the receipts of the mistakes mended in it.
    CallEnd {
        index: usize,
        arguments: Object,
        repairs: Vec<Repair>,
    },
}

impl Event {
    /// `content`, `reasoning`, `call_start`, `arguments` or `call_end`.
    pub const fn kind(&self) -> &'static str {
        match self {
            Event::Content { .. } => "content",
            Event::Reasoning { .. } => "reasoning",
            Event::CallStart { .. } => "call_start",
            Event::Arguments { .. } => "arguments",
            Event::CallEnd { .. } => "call_end",
        }
    }
}

/// Incremental tool-call parsing: [`feed`](ToolCallStream::feed) the text as it arrives, then
/// [`finish`](ToolCallStream::finish). The events add up to [`crate::parse_message`] of the whole
/// text with the same options, for every way of splitting it.
///
/// Give a stream [`crate::Start::Content`] or [`crate::Start::Reasoning`] when the prompt's
/// template is known: with the default, [`crate::Start::Detect`], the stream cannot tell
/// content from reasoning (nor show calls) before a reasoning close tag arrives or the text ends.
///
/// A server that turns a local model's tokens into OpenAI `chat.completion.chunk` deltas:
///
/// ```
/// use beacon_core::{Event, Ids, MessageOptions, Start, ToolCallStream, Value};
///
/// /// The `delta` of one chunk for one event (a call's end needs none).
/// fn delta(event: &Event) -> Option<String> {
///     let s = |text: &str| Value::String(text.to_string()).to_json();
///     match event {
///         Event::Content { text } => Some(format!(r#"{{"content":{}}}"#, s(text))),
///         Event::Reasoning { text } => Some(format!(r#"{{"reasoning_content":{}}}"#, s(text))),
///         Event::CallStart { index, id, name, .. } => Some(format!(
///             r#"{{"tool_calls":[{{"index":{index},"id":{},"type":"function","function":{{"name":{},"arguments":""}}}}]}}"#,
///             s(id.as_deref().unwrap_or_default()),
///             s(name)
///         )),
///         Event::Arguments { index, delta } => Some(format!(
///             r#"{{"tool_calls":[{{"index":{index},"function":{{"arguments":{}}}}}]}}"#,
///             s(delta)
///         )),
///         Event::CallEnd { .. } => None,
///     }
/// }
///
/// let options = MessageOptions { ids: Ids::Generate, start: Start::Content, ..Default::default() };
/// let mut stream = ToolCallStream::new(options);
/// let tokens = ["Let me check", ".\n<tool", "_call>\n{\"name\": \"get_weather\", ", "\"arguments\": {\"city\": \"Pa", "ris\"}}\n</tool_call>", "<|im_end|>"];
/// let mut deltas = Vec::new();
/// let mut called = false;
/// for token in tokens {
///     for event in stream.feed(token)? {
///         called |= matches!(event, Event::CallEnd { .. });
///         deltas.extend(delta(&event));
///     }
/// }
/// for event in stream.finish()? {
///     called |= matches!(event, Event::CallEnd { .. });
///     deltas.extend(delta(&event));
/// }
/// let finish_reason = if called { "tool_calls" } else { "stop" };
/// // `check` waits for the next token, which might have made it `check(…)`, a call.
/// assert_eq!(deltas[..2], [r#"{"content":"Let me"}"#, r#"{"content":" check."}"#]);
/// assert!(deltas[2].starts_with(r#"{"tool_calls":[{"index":0,"id":"call_"#));
/// assert_eq!(deltas[3], r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\": \"Pa"}}]}"#);
/// assert_eq!(finish_reason, "tool_calls");
/// # Ok::<(), beacon_core::ParseError>(())
/// ```
pub struct ToolCallStream {
    /// The options, less the tools (kept in `tools`).
    options: MessageOptions<'static>,
    tools: Option<Tools>,
    text: String,
    scanner: Scanner,
    /// The content rule, and how far the text has gone into it (or into reasoning and calls).
    rule: Content,
    emitted: usize,
    /// Where the last feed's plain prose left the scan, when that feed took the prose path: the
    /// text from `emitted` to there is prose that [`Hold`] holds back, nothing else.
    prose_scanned: Option<usize>,
    /// What holds back prose that may be a JSON or call-syntax call, and, once the text has
    /// ended, the next of the calls found in the prose (whose text is no content).
    hold: Hold,
    cut: usize,
    /// The text has ended: what is left is decided.
    ended: bool,
    /// The next segment of the scanner to report, and how far the reasoning of the block at
    /// hand has been reported.
    segment: usize,
    reasoning_to: usize,
    /// Calls taken from the scanner (reported, or dropped by the tools), the index of the next
    /// call reported, and how many taken calls the tools have checked.
    calls: usize,
    index: usize,
    checked: usize,
    /// A call failed the tools: `finish` raises the whole text's error.
    refused: bool,
    /// The walk over the arguments of the region at hand.
    walk: Option<Walk>,
    steps: Vec<Piece>,
    /// The events so far disagree with the scanner (a bug): `finish` reports it.
    diverged: bool,
    /// The ids of this stream's calls, from one seed (fresh with [`Ids::Generate`](crate::Ids::Generate)).
    hasher: Option<IdHasher>,
    /// When arguments are left in the text for the host ([`ToolCallStream::leaving_arguments`]),
    /// the calls so left: their index and where their arguments are.
    deferred: Option<Vec<(usize, Deferred)>>,
    /// With [`MessageOptions::repair`]: what the events have shown so far, and the receipts.
    shown: Option<Box<Shown>>,
    repairs: Vec<Repair>,
    state: State,
}

#[derive(Debug)]
enum State {
    Open,
    Finished,
    Failed(ParseError),
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "the state shown is what a caller can act on"
)]
impl std::fmt::Debug for ToolCallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCallStream")
            .field("options", &self.options)
            .field("fed", &self.text.len())
            .field("calls", &self.calls)
            .field("state", &self.state)
            .finish()
    }
}

impl ToolCallStream {
    /// A stream with the options of [`crate::parse_message`] (formats, ids, tools, validation,
    /// unknown tools, start). The tools are copied, so the stream owns everything it needs.
    pub fn new(options: MessageOptions<'_>) -> Self {
        ToolCallStream {
            tools: options.tools.cloned(),
            options: MessageOptions { tools: None, ..options },
            text: String::new(),
            // Calls the scanner reads are checked and left in the text when large (the stream
            // reports each once, building it then): only the tools need them built at once.
            scanner: Scanner::new(options.formats, options.start, options.defer(Defer::Large).is_large()),
            rule: Content::with_tags(options.formats.marks().prose()),
            emitted: 0,
            prose_scanned: None,
            hold: Hold::new(options.formats),
            cut: 0,
            ended: false,
            segment: 0,
            reasoning_to: 0,
            calls: 0,
            index: 0,
            checked: 0,
            refused: false,
            walk: None,
            steps: Vec::new(),
            diverged: false,
            hasher: options.ids.seed().map(IdHasher::new),
            deferred: None,
            shown: options.repair.then(Box::default),
            repairs: Vec::new(),
            state: State::Open,
        }
    }

    /// A stream for a host that builds its own values from the text ([`crate::host`]): a call's
    /// arguments written in JSON (an object, or an arguments string) are checked where they are
    /// written and left there ([`CHECK`]); the call ends with empty `arguments`, its index and
    /// where they are being kept for [`Self::take_deferred`], and when it is read whole its
    /// `Arguments` delta is empty too: the host builds both from the text. No tree of such
    /// arguments is built, so the host's values are the only ones made, and the stream needs
    /// about the memory of [`crate::parse_message`] on the same text. Arguments in call syntax
    /// or written as text between a format's tags are built as a tree (see [`CHECK`]), and so
    /// are all arguments when the caller gives tools (their checks read the tree).
    pub(crate) fn leaving_arguments(options: MessageOptions<'_>) -> Self {
        ToolCallStream {
            deferred: options.defer(Defer::Large).is_large().then(Vec::new),
            ..ToolCallStream::new(options)
        }
    }

    /// The calls whose arguments were left in the text since the last call: (call index, where
    /// they are in [`Self::text`]), in order.
    pub(crate) fn take_deferred(&mut self) -> Vec<(usize, Deferred)> {
        self.deferred.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Adds `delta` to the text; returns what it decided.
    pub fn feed(&mut self, delta: &str) -> Result<Vec<Event>, ParseError> {
        let mut out = Vec::new();
        self.feed_into(delta, &mut out)?;
        Ok(out)
    }

    /// [`feed`](Self::feed), appending the events to `out`. Text of the same kind as an event the
    /// caller left last in `out` (`Content` after `Content`, `Reasoning` after `Reasoning`) is
    /// added to that event's text rather than reported as a new event: a caller that keeps the
    /// vector between feeds gets fewer, longer events that add up to the same text.
    pub fn feed_into(&mut self, delta: &str, out: &mut Vec<Event>) -> Result<(), ParseError> {
        let mark = self.shown.is_some().then(|| Mark::of(out));
        self.feed_strict(delta, out)?;
        if let (Some(shown), Some(mark)) = (&mut self.shown, mark) {
            shown.record(out, mark);
        }
        Ok(())
    }

    fn feed_strict(&mut self, delta: &str, out: &mut Vec<Event>) -> Result<(), ParseError> {
        self.check_open()?;
        if delta.is_empty() {
            // No new text decides nothing new (providers stream empty deltas, often first).
            return Ok(());
        }
        let before = self.text.len();
        self.text.push_str(delta);
        if self.refused {
            return Ok(());
        }
        let mut events = Events(out);
        let settled = self.walk.is_none() && self.segment == self.scanner.found.segments.len();
        // Plain prose that holds no tag: content as it comes. The content shown may stop short
        // of the scan where this path left it (a word that may yet name a call in prose, or
        // whitespace before a call, is held back); the text between was scanned as prose.
        let held = self.prose_scanned.take();
        let prose = settled
            .then(|| self.scanner.prose_at())
            .flatten()
            .filter(|&at| at == self.emitted || held == Some(at));
        if let Some(from) = prose {
            if let Some(to) = plain_to(self.scanner.marks(), self.text.as_bytes(), from) {
                self.scanner.prose_to(to);
                let shown = self.shown_to(to, true);
                self.rule.kept(&self.text[self.emitted..shown], &mut events);
                self.emitted = shown;
                self.prose_scanned = Some(to);
                return Ok(());
            }
        }
        // Reasoning text that holds no tag or close tag: reasoning as it comes (once the block's
        // reasoning has been reported up to where the scan stands).
        let reasoning = self
            .scanner
            .reasoning_at()
            .filter(|&at| settled && self.reasoning_to >= at);
        if let Some(from) = reasoning {
            if let Some(to) = plain_to(self.scanner.marks(), self.text.as_bytes(), from) {
                self.scanner.prose_to(to);
                // A byte held back may begin a marker, not a close tag: then it is reasoning.
                let safe = if to < self.text.len() {
                    self.scanner.open_reasoning(&self.text).map_or(to, |(_, safe)| safe)
                } else {
                    to
                };
                if safe > self.reasoning_to {
                    events.reasoning(&self.text[self.reasoning_to..safe]);
                    self.reasoning_to = safe;
                }
                return Ok(());
            }
        }
        // Arguments that stream, fed text that cannot close them (no quote, backslash or
        // bracket): their text as it comes, without a scan (the next one reads it; a scan could
        // settle nothing here, as the region cannot end before its arguments do).
        if let Some(walk) = self.walk.as_mut() {
            if walk.take_plain(before, delta.as_bytes()) {
                let piece = &self.text[before..];
                match events.0.last_mut() {
                    Some(Event::Arguments { index, delta }) if *index == self.index => delta.push_str(piece),
                    _ => events.0.push(Event::Arguments {
                        index: self.index,
                        delta: piece.to_owned(),
                    }),
                }
                return Ok(());
            }
        }
        self.pump(None, &mut events);
        Ok(())
    }

    /// The text has ended: the rest of the events, or the error `parse_message` raises on the
    /// whole text.
    pub fn finish(&mut self) -> Result<Vec<Event>, ParseError> {
        self.check_open()?;
        let mut out = Vec::new();
        let finished = self.finish_into(&mut out);
        match crate::error::within(&self.text, finished) {
            Ok(()) => {
                self.state = State::Finished;
                Ok(out)
            }
            Err(e) => {
                self.state = State::Failed(e.clone());
                Err(e)
            }
        }
    }

    /// The text fed so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether [`finish`](Self::finish) was called (and succeeded or failed).
    pub fn is_finished(&self) -> bool {
        !matches!(self.state, State::Open)
    }

    #[inline]
    fn check_open(&self) -> Result<(), ParseError> {
        match &self.state {
            State::Open => Ok(()),
            _ => Err(self.closed()),
        }
    }

    /// Why a finished or failed stream takes no more text.
    #[cold]
    fn closed(&self) -> ParseError {
        match &self.state {
            State::Open => diverged(),
            State::Failed(e) => e.clone(),
            State::Finished => ParseError::new(
                ErrorCode::Internal,
                self.text.len(),
                "the stream has finished: it takes no more text",
            ),
        }
    }

    /// The tools that decide which candidates are calls: none when unknown calls are kept.
    fn names(&self) -> Option<&Tools> {
        self.tools
            .as_ref()
            .filter(|_| self.options.unknown != UnknownTools::Keep)
    }

    /// Whether arguments may stream before their call is settled.
    fn walks(&self) -> bool {
        // With repair a call comes whole: a mistake later in it would change what streamed.
        !self.options.repair && (self.tools.is_none() || self.options.unknown != UnknownTools::Drop)
    }

    /// The whole text's error, once a call has failed the tools.
    fn refusal(&self) -> ParseError {
        let options = MessageOptions {
            tools: self.tools.as_ref(),
            ..self.options
        };
        match parse_message(&self.text, options) {
            Err(e) => e,
            Ok(_) => diverged(),
        }
    }

    /// The receipts of the mistakes mended ([`MessageOptions::repair`]), in text order, once
    /// [`finish`](Self::finish) has succeeded; each is also in its call's `CallEnd`.
    pub fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    fn finish_into(&mut self, out: &mut Vec<Event>) -> Result<(), ParseError> {
        let strict = self.finish_strict(out);
        match (strict, self.shown.take()) {
            (Err(_), Some(shown)) => {
                out.clear();
                self.mend(&shown, out)
            }
            (strict, _) => strict,
        }
    }

    /// Reads the whole text as [`crate::parse_message`] with `repair` does, and reports what the
    /// events have not shown yet: the events of the mended text, less the `shown` ones (which the
    /// strict reading decided before the first mistake, so the mended text begins with them).
    fn mend(&mut self, shown: &Shown, out: &mut Vec<Event>) -> Result<(), ParseError> {
        let options = MessageOptions {
            tools: self.tools.as_ref(),
            ..self.options
        };
        let crate::text::message::Mended {
            message,
            text: mended,
            edits,
            reasoning: blocks,
        } = crate::text::message::mended(&self.text, options)?;
        self.repairs.clone_from(&message.repairs);
        // Reasoning is the caller's text: each replayed piece of it, mapped back through the edits.
        let mut written = Written {
            text: &self.text,
            edits: &edits,
            blocks: &blocks,
            block: 0,
            at: blocks.first().map_or(0, |b| b.start),
        };
        // The mended text read as a repairing stream reads it (the tools' repairs included), but
        // with nothing left to mend.
        let mut replay = ToolCallStream::new(options);
        replay.shown = None;
        replay.hasher = self.hasher.take();
        let mut events = replay
            .feed(mended.as_deref().unwrap_or(&self.text))
            .map_err(|_| diverged())?;
        events.extend(replay.finish().map_err(|_| diverged())?);
        let (mut content, mut reasoning, mut differs) = (0, 0, false);
        for event in events {
            let event = match event {
                Event::Content { text } => {
                    after_shown(&shown.content, &mut content, text, &mut differs).map(|text| Event::Content { text })
                }
                Event::Reasoning { text } => {
                    let text = if mended.is_some() {
                        written.next(text.len())
                    } else {
                        text
                    };
                    after_shown(&shown.reasoning, &mut reasoning, text, &mut differs)
                        .map(|text| Event::Reasoning { text })
                }
                Event::CallStart { index, .. } | Event::Arguments { index, .. } | Event::CallEnd { index, .. }
                    if index < shown.calls =>
                {
                    None
                }
                Event::CallEnd { index, arguments, .. } => Some(Event::CallEnd {
                    index,
                    arguments,
                    repairs: message
                        .tool_calls
                        .get(index)
                        .map(|c| c.repairs.clone())
                        .unwrap_or_default(),
                }),
                event => Some(event),
            };
            out.extend(event);
        }
        let all_shown = content == shown.content.len() && reasoning == shown.reasoning.len();
        if differs || !all_shown || message.tool_calls.len() < shown.calls {
            return Err(diverged());
        }
        Ok(())
    }

    fn finish_strict(&mut self, out: &mut Vec<Event>) -> Result<(), ParseError> {
        if self.refused {
            return Err(self.refusal());
        }
        let mut events = Events(out);
        let names = self
            .tools
            .as_ref()
            .filter(|_| self.options.unknown != UnknownTools::Keep);
        let check = self.checker();
        self.scanner.run_building(&self.text, false, names, check)?;
        let (late, found) = tiers::later_tiers(
            &self.text,
            self.options.formats,
            &self.scanner.found,
            self.names(),
            check.map_or(Defer::Never, Defer::Build),
        )?;
        let late = late.map(|scanned| {
            self.scanner.found.scanned = scanned.regions;
            tiers::with_leading(self.scanner.found.outside.clone(), scanned.calls)
        });
        let total = match (&late, found) {
            (Some(calls), _) => calls.len(),
            (None, Found::Inside) => self.scanner.found.inside.len(),
            (None, _) => self.scanner.found.outside.len(),
        };
        self.ended = true;
        self.pump(Some(total > 0), &mut events);
        self.rule.finish(&mut events);
        // Calls found once the text ended: the tiers' (after the leading calls reported), or
        // those inside reasoning.
        let late = match (late, found) {
            (Some(calls), _) => calls,
            (None, Found::Inside) => std::mem::take(&mut self.scanner.found.inside),
            (None, _) => Vec::new(),
        };
        let text = std::mem::take(&mut self.text);
        for (index, call) in late.into_iter().enumerate().skip(self.calls) {
            let at = region_start(found, &self.scanner.found, index, &call);
            self.report_call(&text, call, at, &mut events);
        }
        self.text = text;
        if self.refused {
            return Err(self.refusal());
        }
        let walked = self.walk.as_ref().is_some_and(|w| w.ended > 0 || w.open);
        if self.diverged || self.calls != total || (found != Found::Tagged && walked) {
            return Err(diverged());
        }
        Ok(())
    }

    /// Runs the scanner and reports what it decided. `has_calls`: whether the message has calls,
    /// once the text has ended.
    fn pump(&mut self, has_calls: Option<bool>, events: &mut Events<'_>) {
        let text = std::mem::take(&mut self.text);
        self.pump_text(&text, has_calls, events);
        self.text = text;
    }

    fn pump_text(&mut self, text: &str, has_calls: Option<bool>, events: &mut Events<'_>) {
        let more = has_calls.is_none();
        if more {
            // Errors wait for `finish`: a growing text never fails here.
            let names = self
                .tools
                .as_ref()
                .filter(|_| self.options.unknown != UnknownTools::Keep);
            let _ = self.scanner.run_building(text, true, names, self.checker());
        }
        let has_calls = has_calls.or(self.calls_certain().then_some(true));
        self.walk_on(text, events);
        while let Some(segment) = self.scanner.found.segments.get(self.segment).cloned() {
            let (range, calls) = match &segment {
                Segment::Calls { range, calls } => (range.clone(), Some(calls.clone())),
                Segment::Reasoning(r) => (r.outer.clone(), None),
            };
            if !self.prose_to(text, range.start, has_calls, false, events) {
                return;
            }
            self.rule.cut();
            match (&segment, calls) {
                (Segment::Reasoning(r), _) => {
                    let from = self.reasoning_to.max(r.inner.start);
                    events.reasoning(&text[from..r.inner.end.max(from)]);
                    self.reasoning_to = 0;
                }
                (_, Some(calls)) => {
                    if self.walk.as_ref().is_some_and(|w| w.region == range.start) {
                        self.walk = None;
                    }
                    let done = self.calls;
                    let checked = self.checked;
                    for i in calls.clone().filter(|&i| i < done && i >= checked) {
                        self.check_walked(text, i);
                    }
                    for i in calls.filter(|&i| i >= done) {
                        // Taken out: the stream reports each call once.
                        let call = &mut self.scanner.found.outside[i];
                        let call = ToolCall {
                            id: call.id.take(),
                            name: std::mem::take(&mut call.name),
                            arguments: std::mem::take(&mut call.arguments),
                            format: call.format,
                            span: call.span.clone(),
                            origin: std::mem::take(&mut call.origin),
                            deferred: call.deferred,
                            repairs: Vec::new(),
                        };
                        self.report_call(text, call, range.start, events);
                    }
                    if self.refused {
                        return;
                    }
                }
                _ => {}
            }
            self.emitted = range.end;
            self.hold.skip_to(range.end);
            self.segment += 1;
        }
        let frontier = self.scanner.frontier();
        // A region that gave no call: its walk is over (and must not have started one).
        if self
            .walk
            .as_ref()
            .is_some_and(|w| w.region < frontier && w.first == self.calls)
        {
            let walk = self.walk.take().expect("a walk");
            self.diverged |= walk.ended > 0 || walk.open;
        }
        let open = more || !self.scanner.is_done();
        if !self.prose_to(text, frontier, has_calls, open, events) {
            return;
        }
        if !more {
            return;
        }
        if let Some((start, safe)) = self.scanner.open_reasoning(text) {
            let from = self.reasoning_to.max(start);
            if safe > from {
                events.reasoning(&text[from..safe]);
                self.reasoning_to = safe;
            }
            return;
        }
        self.pending_calls(text, frontier, events);
    }

    /// Whether the message certainly has calls: a tagged or leading call has been found.
    fn calls_certain(&self) -> bool {
        !self.scanner.found.outside.is_empty() || self.scanner.pending.as_ref().is_some_and(|p| !p.calls.is_empty())
    }

    /// Reports the prose from `emitted` to `to`; false when it stopped before that: before a
    /// wrapper tag (whether it is content depends on calls not known yet), or where the prose
    /// may be a call ([`Hold`]). Once the text has ended, the calls found in the prose are cut out
    /// of it.
    fn prose_to(
        &mut self,
        text: &str,
        to: usize,
        has_calls: Option<bool>,
        open: bool,
        events: &mut Events<'_>,
    ) -> bool {
        if to <= self.emitted {
            return true;
        }
        if self.ended {
            let cuts = &self.scanner.found.scanned;
            while let Some(cut) = cuts.get(self.cut).filter(|c| c.start < to) {
                // Text shown already that is a call: a bug the end of `finish` reports.
                self.diverged |= cut.start < self.emitted;
                let from = self.emitted.min(cut.start);
                prose(text, from..cut.start, has_calls, false, &mut self.rule, events);
                self.rule.cut();
                self.emitted = cut.end.max(self.emitted);
                self.cut += 1;
            }
            let reached = prose(
                text,
                self.emitted..to.max(self.emitted),
                has_calls,
                open,
                &mut self.rule,
                events,
            );
            self.emitted = reached;
            return reached == to;
        }
        let shown = self.shown_to_in(text, to, open);
        let reached = prose(text, self.emitted..shown, has_calls, open, &mut self.rule, events);
        self.emitted = reached;
        reached == to
    }

    /// How far the prose up to `to` may be shown now ([`Hold`]), on the text the stream keeps.
    fn shown_to(&mut self, to: usize, open: bool) -> usize {
        let text = std::mem::take(&mut self.text);
        let shown = self.shown_to_in(&text, to, open);
        self.text = text;
        shown
    }

    fn shown_to_in(&mut self, text: &str, to: usize, open: bool) -> usize {
        if !self.hold.active() {
            return to;
        }
        let found = &self.scanner.found;
        let tagged = found.outside.len() > found.leading
            || self
                .scanner
                .pending
                .as_ref()
                .is_some_and(|p| p.shown && p.family().is_some() && !p.calls.is_empty());
        if tagged {
            self.hold.release();
            return to;
        }
        let known = self
            .tools
            .as_ref()
            .filter(|_| self.options.unknown != UnknownTools::Keep);
        self.hold.allow(text, to, open, known).max(self.emitted)
    }

    /// The calls of the region the scanner waits at that are certain already, and the
    /// arguments of the one being written.
    fn pending_calls(&mut self, text: &str, frontier: usize, events: &mut Events<'_>) {
        let Some((pending, _)) = self
            .scanner
            .waiting()
            .filter(|&(p, start)| start == frontier && p.shown)
        else {
            return;
        };
        let first = self.scanner.found.outside.len();
        if self.walk.is_none() && first == self.calls && pending.claimed && self.walks() {
            if let Some(body) = pending
                .json_body(text)
                .filter(|b| self.options.formats.contains(b.format))
            {
                self.walk = Some(Walk::new(frontier, first, body));
                self.walk_on(text, events);
            }
        }
        if self.walk.as_ref().is_some_and(|w| !w.done() || w.broken()) {
            return;
        }
        let Some(pending) = self.scanner.pending.as_ref() else {
            return;
        };
        if pending.calls.len() + first <= self.calls {
            return;
        }
        let calls: Vec<ToolCall> = pending.calls[self.calls - first..].to_vec();
        for call in calls {
            self.report_call(text, call, frontier, events);
        }
    }

    /// Advances the walk over the arguments of the region at hand.
    fn walk_on(&mut self, text: &str, events: &mut Events<'_>) {
        let Some(walk) = self.walk.as_mut() else {
            return;
        };
        let mut steps = std::mem::take(&mut self.steps);
        walk.advance(
            text,
            self.calls == walk.first + walk.ended,
            self.deferred.is_some(),
            &mut steps,
        );
        let (region, format) = (walk.region, walk.format);
        for step in steps.drain(..) {
            let index = self.index;
            if self.refused {
                break;
            }
            match step {
                Piece::Start { name } => {
                    if self.names().is_some_and(|t| !t.contains(&name)) {
                        self.refused = true;
                        break;
                    }
                    let id = self.hasher.as_mut().map(|h| h.id(text, region, &name, index));
                    events.0.push(Event::CallStart {
                        index,
                        id,
                        name,
                        format,
                    });
                }
                Piece::Arguments(range) => match events.0.last_mut() {
                    Some(Event::Arguments { index: i, delta }) if *i == index => delta.push_str(&text[range]),
                    _ => events.0.push(Event::Arguments {
                        index,
                        delta: text[range].to_string(),
                    }),
                },
                Piece::End { arguments, deferred } => {
                    if let (Some(at), Some(left)) = (deferred, &mut self.deferred) {
                        left.push((
                            index,
                            Deferred::Text {
                                at,
                                grammar: Grammar::Json,
                            },
                        ));
                    }
                    events.0.push(Event::CallEnd {
                        index,
                        arguments,
                        repairs: Vec::new(),
                    });
                    self.calls += 1;
                    self.index += 1;
                }
            }
        }
        self.steps = steps;
    }

    /// Checks a call whose arguments streamed (the `i`-th of the scanner's outside calls) against
    /// the tools, now that its region is settled: typing must leave the streamed arguments as
    /// they are, and validation must pass.
    fn check_walked(&mut self, text: &str, i: usize) {
        self.checked = i + 1;
        let Some(tools) = &self.tools else { return };
        let call = self.scanner.found.outside[i].clone();
        let arguments = call.arguments.clone();
        match crate::tools::check(text, call, tools, self.options.validate, self.options.unknown) {
            Ok(Some(c)) if c.arguments == arguments => {}
            _ => self.refused = true,
        }
    }

    /// `call` named, typed and validated by `tools` (with repair, as a repairing parse does).
    fn check(&self, text: &str, call: ToolCall, tools: &Tools) -> Result<Option<ToolCall>, ParseError> {
        let (validate, unknown) = (self.options.validate, self.options.unknown);
        if self.options.repair {
            crate::tools::check_repairing(text, call, tools, validate, unknown)
        } else {
            crate::tools::check(text, call, tools, validate, unknown)
        }
    }

    /// Reports a whole call (the rest of it, when its start and some arguments were streamed),
    /// named, typed and validated by the tools.
    fn report_call(&mut self, text: &str, call: ToolCall, region: usize, events: &mut Events<'_>) {
        self.calls += 1;
        self.checked = self.calls;
        if self.refused {
            return;
        }
        let call = match &self.tools {
            None => call,
            Some(tools) => match self.check(text, call, tools) {
                Ok(Some(call)) => call,
                Ok(None) => return,
                Err(_) => {
                    self.refused = true;
                    return;
                }
            },
        };
        let index = self.index;
        if self.walk.as_ref().is_some_and(|w| w.open) {
            self.diverged = true;
        }
        let id = match (&call.id, self.hasher.as_mut()) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(hasher)) => Some(hasher.id(text, region, &call.name, index)),
            (None, None) => None,
        };
        events.0.push(Event::CallStart {
            index,
            id,
            name: call.name,
            format: call.format,
        });
        // Receipts of the tools' repairs (`repair.wrapped_arguments`), made as the call was checked.
        let repairs: Vec<Repair> = call
            .repairs
            .into_iter()
            .map(|r| Repair {
                call_index: Some(index),
                ..r
            })
            .collect();
        self.repairs.extend(repairs.iter().cloned());
        let (delta, arguments) = match call.deferred {
            None => (crate::value::object_json(&call.arguments), call.arguments),
            Some(deferred) if self.deferred.is_some() => self.left_for_host(index, deferred),
            Some(deferred) => self.built_from_text(text, deferred),
        };
        events.0.push(Event::Arguments { index, delta });
        events.0.push(Event::CallEnd {
            index,
            arguments,
            repairs,
        });
        self.index += 1;
    }

    /// The arguments delta and `CallEnd` arguments of a call whose large JSON arguments the
    /// scanner checked and left in the text ([`Defer::Large`]), for a caller that is not a host:
    /// the object's text, and the object built from it.
    fn built_from_text(&mut self, text: &str, deferred: Deferred) -> (String, Object) {
        if let Deferred::Text {
            at,
            grammar: Grammar::Json,
        } = deferred
        {
            if let Some(end) = raw_value_end(text.as_bytes(), at) {
                if let Ok((Value::Object(arguments), _)) = parse_value_at(text, at) {
                    return (text[at..end].to_string(), arguments);
                }
            }
        }
        self.diverged = true;
        (String::new(), Object::new())
    }

    /// The arguments delta and `CallEnd` arguments of the `index`-th call, whose arguments the
    /// scanner checked and left in the text for the host: both empty, the host writing the delta
    /// (compact JSON, as for a call whose arguments were built) and the arguments from the text.
    fn left_for_host(&mut self, index: usize, deferred: Deferred) -> (String, Object) {
        match &mut self.deferred {
            Some(left) => left.push((index, deferred)),
            // Only a stream for a host checks arguments without building them.
            None => self.diverged = true,
        }
        (String::new(), Object::new())
    }

    /// The builder the scanner and the later tiers read arguments with: [`CHECK`] when they are
    /// left in the text for the host, else none (a tree).
    fn checker(&self) -> Option<&'static dyn BuildArguments> {
        self.deferred.is_some().then_some(CHECK as &dyn BuildArguments)
    }
}

/// For prose from `from` (text before it is decided, text from it held back as the possible
/// beginning of a tag) to the end of `bytes`: how far it is now decided to be plain text, with
/// no tag in it (the rest may begin one); `None` when a tag may stand in it (the scanner
/// decides). A tag may start only at a byte where its first two bytes allow one
/// ([`Marks::may_start_tag`]); the last byte, which has none after it yet, is held back when it
/// may begin one. Where no tag may start, no marker, reasoning tag, end token or wrapper tag
/// does, so the scanner and the content rule have nothing to take out. Judging every byte by
/// two sends prose with `<b>` or `[1]` in it to the scanner less often (`stream_bench`, 4-byte
/// feeds, instructions a feed: prose 956 → 846, reasoning 832 → 670).
fn plain_to(marks: &Marks, bytes: &[u8], from: usize) -> Option<usize> {
    let rest = &bytes[from..];
    let Some(&last) = rest.last() else {
        return Some(bytes.len());
    };
    if marks.may_start_tag_before_last(rest) {
        return None;
    }
    Some(bytes.len() - usize::from(marks.may_start_tag(&[last])))
}

/// The stream's events disagree with the whole text's message: a bug.
fn diverged() -> ParseError {
    ParseError::new(
        ErrorCode::Internal,
        0,
        "the stream's calls differ from the whole text's: a bug in beacon",
    )
}

/// What a repairing stream's events have shown: the content and reasoning texts, and how many
/// calls.
#[derive(Default)]
struct Shown {
    content: String,
    reasoning: String,
    calls: usize,
}

/// Where a feed began in the caller's events: their number, and the length of the last one's
/// text (which the feed may extend).
#[derive(Clone, Copy)]
struct Mark {
    len: usize,
    last: usize,
}

impl Mark {
    fn of(out: &[Event]) -> Mark {
        let last = match out.last() {
            Some(Event::Content { text } | Event::Reasoning { text }) => text.len(),
            _ => 0,
        };
        Mark { len: out.len(), last }
    }
}

impl Shown {
    /// Adds the events of one feed, from `mark` on.
    fn record(&mut self, out: &[Event], mark: Mark) {
        let from = mark.len.saturating_sub(1);
        for (i, event) in out.iter().enumerate().skip(from) {
            let cut = if i + 1 == mark.len { mark.last } else { 0 };
            match event {
                Event::Content { text } if i >= mark.len || cut > 0 => self.content.push_str(&text[cut..]),
                Event::Reasoning { text } if i >= mark.len || cut > 0 => self.reasoning.push_str(&text[cut..]),
                Event::CallEnd { .. } if i >= mark.len => self.calls += 1,
                _ => {}
            }
        }
    }
}

/// The reasoning blocks of a mended text (`blocks`, in its offsets), read piece by piece as the
/// caller wrote them (`text`, through `edits`).
struct Written<'a> {
    text: &'a str,
    edits: &'a crate::repair::Edits,
    blocks: &'a [std::ops::Range<usize>],
    /// The block at hand, and how far into the mended text it has been read.
    block: usize,
    at: usize,
}

impl Written<'_> {
    /// The caller's text of the next `len` bytes of the mended reasoning.
    fn next(&mut self, mut len: usize) -> String {
        let mut out = String::new();
        while len > 0 {
            let Some(block) = self.blocks.get(self.block) else {
                break;
            };
            let to = block.end.min(self.at + len);
            let written = self.edits.original_range(&(self.at..to));
            out.push_str(self.text.get(written).unwrap_or_default());
            len -= to - self.at;
            self.at = to;
            if self.at >= block.end {
                self.block += 1;
                self.at = self.blocks.get(self.block).map_or(0, |b| b.start);
            }
        }
        out
    }
}

/// The part of a replay's `text` after what was `shown` (`at` of it passed so far, moved on
/// past `text`), or `None`; `diverged` when the replay does not begin with what was shown.
fn after_shown(shown: &str, at: &mut usize, text: String, diverged: &mut bool) -> Option<String> {
    let n = (shown.len() - *at).min(text.len());
    *diverged |= shown.as_bytes()[*at..*at + n] != text.as_bytes()[..n];
    *at += n;
    match n {
        n if n == text.len() => None,
        0 => Some(text),
        n => Some(text[n..].to_string()),
    }
}

/// The events of one call of the stream, with adjacent texts of one kind joined.
struct Events<'a>(&'a mut Vec<Event>);

impl Out for Events<'_> {
    fn push(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Event::Content { text: last }) => last.push_str(text),
            _ => self.0.push(Event::Content { text: owned(text) }),
        }
    }
}

impl Events<'_> {
    fn reasoning(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.0.last_mut() {
            Some(Event::Reasoning { text: last }) => last.push_str(text),
            _ => self.0.push(Event::Reasoning { text: owned(text) }),
        }
    }
}

/// An event's text: room for a few more bytes, which a piece fed right after it often adds
/// (whitespace held back, then the word after it) without growing the string again.
fn owned(text: &str) -> String {
    let mut s = String::with_capacity(text.len().max(16));
    s.push_str(text);
    s
}

#[cfg(test)]
mod tests {
    use crate::text::scanner::marks::Marks;

    /// Prose is plain up to a byte whose first two bytes may begin a tag: `<b>` and `[1]` begin
    /// none, `</` (a close tag's) and `[T` (`[TOOL_CALLS]`'s) may; a last byte that may begin one
    /// is held back.
    #[test]
    fn prose_is_plain_where_no_tag_may_start() {
        let marks = Marks::builtin();
        let plain = |text: &str, from: usize| super::plain_to(marks, text.as_bytes(), from);
        assert_eq!(plain("a <b>x [1] y", 0), Some(12));
        assert_eq!(plain("a <b>x [1] y", 5), Some(12));
        assert_eq!(plain("a <b>x [1] y<", 0), Some(12));
        assert_eq!(plain("a <b>x [1] y[", 2), Some(12));
        assert_eq!(plain("a </b> y", 0), None);
        assert_eq!(plain("a [TOOL", 0), None);
        assert_eq!(plain("a <|", 0), None);
        assert_eq!(plain("a <b", 0), Some(4));
        assert_eq!(plain("a <b", 4), Some(4));
        assert_eq!(plain("<", 0), Some(0));
    }

    /// `plain_to` holds back a last byte that may begin a tag as the beginning of one, and finds
    /// close tags by the bytes that may begin a tag (but for leading blocks' close phrases, whose
    /// text the stream leaves to the scanner).
    #[test]
    fn every_tag_is_longer_than_a_byte() {
        for b in 0..=255u8 {
            assert_eq!(
                Marks::builtin().may_start_tag(&[b]),
                Marks::builtin().begins_tag(&[b]),
                "byte {b}"
            );
        }
        for block in crate::text::reasoning::BLOCKS.iter().filter(|b| !b.leading) {
            assert!(
                Marks::builtin().begins_tag(&block.close.as_bytes()[..1]),
                "{}",
                block.close
            );
        }
    }
}
