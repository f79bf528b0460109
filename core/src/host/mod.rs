//! The host boundary: everything a binding (Python, WebAssembly) does besides building its own
//! objects and raising its own exceptions.
//!
//! A binding reads its arguments into an [`Input`] and an [`Op`] (with the option readers
//! [`formats`], [`tools`], [`provider`] and the like, and the tool-result reader
//! [`read_results`]), runs it ([`run`]: plain Rust, so Python can release the GIL meanwhile),
//! and then walks the [`Output`] into its [`Sink`] ([`emit`]) or raises the [`Located`] error.
//! A host that builds while the parse reads runs [`run_into`] (or [`message_into`], for the
//! calls' arguments alone); one that takes JSON text uses the [`JsonText`] sink; one that
//! cannot make its objects while the parse runs records the answer on a [`Tape`] and builds it
//! after.
//! So the output's key names, the error text and its position in the caller's units, and the
//! meaning of every option exist here only; a binding implements [`Sink`] and maps [`Failure`]
//! to its exception classes.
//!
//! Positions: a text input is counted in the host's unit ([`Host::unit`]: code points for
//! Python, UTF-16 for JavaScript), bytes in bytes, and a decoded value has none (position 0, the
//! message names the path).

mod answer;
mod error;
mod feed;
mod input;
mod json_text;
mod options;
mod ordered;
mod raw;
mod results;
mod sink;
mod tape;

pub use answer::{emit, emit_error};
pub use error::{
    describe, lone_surrogate_in_text, lone_surrogate_in_value, non_finite_number, ArgError, Failure, Located,
};
pub use feed::Stream;
pub use input::{Host, Input};
pub use json_text::{Dialect, JsonText, Plain, Spaced};
pub use options::{formats, ids, provider, provider_id, spec, start, tools, unknown};
pub use ordered::{Open, Piece};
pub use results::{read_calls, read_results};
pub use sink::{Field, Key, Sink, Written};
pub use tape::Tape;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::call::{Deferred, FormatSet, ToolCall};
use crate::error::{locate, ErrorCode, ParseError};
use crate::providers::{Provider, ProviderCall, ResponseOptions, ToolResult};
use crate::syntax::shape::Defer;
use crate::text::message::{message_with, Ids, Message, MessageOptions};
use crate::text::parse::ParseOptions;
use crate::text::stream::{Event, StreamState};
use crate::tools::{Tools, UnknownTools};
use crate::value::Value;

/// What a binding was asked to do, its options read.
#[derive(Debug, Clone)]
pub enum Op {
    /// `parse_tool_call`: exactly one call.
    ToolCall { formats: FormatSet, tools: ToolOptions },
    /// `parse_tool_calls`: every call, each with its format when `include_format`.
    ToolCalls {
        formats: FormatSet,
        include_format: bool,
        tools: ToolOptions,
    },
    /// `parse_message`: content, reasoning and calls with ids, formats and spans.
    Message {
        formats: FormatSet,
        ids: Ids,
        tools: ToolOptions,
    },
    /// `scan_stream`.
    ScanStream,
    /// `parse_response` (`query: Calls`), `has_tool_calls` (`Has`) or `detect_provider` (`Detect`);
    /// `tools` apply to the calls read (`Has` is then whether any call stands).
    Response {
        provider: Option<Provider>,
        text_fallback: bool,
        query: Query,
        tools: ToolOptions,
    },
    /// `format_results`: the results already read ([`read_results`]); the input is unused.
    FormatResults {
        results: Vec<ToolResult>,
        provider: Provider,
    },
    /// `format_calls`: the calls already read ([`read_calls`]) and the message's text, in a
    /// provider's wire shape or as a format spec writes them ([`Wire`]); the input is unused.
    FormatCalls {
        calls: Vec<ProviderCall>,
        wire: Wire,
        content: Option<String>,
    },
    /// `FormatSpec.from_template`: the tool-call format a chat template writes
    /// ([`crate::template::infer`]), as [`FormatSpec::describe`](crate::template::FormatSpec::describe)
    /// gives it. The input is the template's text or a `tokenizer_config.json` (its text, or
    /// decoded); `bos_token`, `eos_token` replace the config's, and `special_tokens` add to its
    /// added tokens. With the `templates` feature.
    #[cfg(feature = "templates")]
    InferFormat {
        bos_token: Option<String>,
        eos_token: Option<String>,
        special_tokens: Vec<String>,
    },
    /// Panics inside [`run`], so a binding's tests can check that a panic becomes `internal`.
    #[doc(hidden)]
    PanicForTesting,
}

/// What `format_calls` writes: a provider's assistant message, or (`template=`) the text a
/// format spec writes, [`FormatSpec::write`](crate::template::FormatSpec::write), after the
/// content when there is one.
#[derive(Debug, Clone)]
pub enum Wire {
    Provider(Provider),
    Spec(Box<crate::template::FormatSpec>),
}

/// The tools options of the parse operations: the caller's tools, compiled once ([`tools`]) and
/// shared by every call that passes them, whether to validate, and what an unknown tool's call is
/// ([`unknown`]). `validate` and `unknown` apply only with `tools`; `repair` mends the mistakes
/// [`RepairCode`](crate::RepairCode) lists, with or without tools.
#[derive(Debug, Clone)]
pub struct ToolOptions {
    pub tools: Option<Arc<Tools>>,
    pub validate: bool,
    pub unknown: UnknownTools,
    pub repair: bool,
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
            repair: false,
        }
    }
}

impl ToolOptions {
    /// The options of `parse_response` (and of a response stream) with these tools options.
    pub fn response_options(&self, provider: Option<Provider>, text_fallback: bool) -> ResponseOptions<'_> {
        ResponseOptions {
            provider,
            text_fallback,
            tools: self.tools.as_deref(),
            validate: self.validate,
            unknown: self.unknown,
            repair: self.repair,
        }
    }

    /// The options of `parse_message` (and of a stream) with these tools options.
    pub fn message_options(
        &self,
        formats: FormatSet,
        ids: Ids,
        start: crate::text::reasoning::Start,
    ) -> MessageOptions<'_> {
        MessageOptions {
            formats,
            ids,
            tools: self.tools.as_deref(),
            validate: self.validate,
            unknown: self.unknown,
            start,
            repair: self.repair,
        }
    }

    fn parse_options(&self, formats: FormatSet) -> ParseOptions<'_> {
        ParseOptions {
            formats,
            tools: self.tools.as_deref(),
            validate: self.validate,
            unknown: self.unknown,
            repair: self.repair,
        }
    }
}

/// What a provider operation answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    Calls,
    Has,
    Detect,
}

/// The result of [`run`], ready for [`emit`]. Positions are already in the caller's units.
///
/// The calls of `Call`, `Calls` and `Message` may have their arguments still in `source`, the
/// text they were parsed from (the common JSON call shapes: checked, not built), so that [`emit`]
/// builds the host's values straight from the text; [`run_settled`] builds them in the core.
#[derive(Debug, Clone, PartialEq)]
pub enum Output<'a> {
    /// A call; `at` locates its receipts in the caller's units ([`Receipts`]).
    Call {
        call: ToolCall,
        source: &'a str,
        at: Receipts,
    },
    Calls {
        calls: Vec<ToolCall>,
        include_format: bool,
        source: &'a str,
        at: Receipts,
    },
    /// A message, with each call's span in the caller's units (same order as its calls), and its
    /// receipts when the parse was asked to repair (`repair`).
    Message {
        message: Message,
        spans: Vec<[usize; 2]>,
        source: &'a str,
        at: Receipts,
        repair: bool,
    },
    /// A response's calls; `at` locates their receipts ([`Receipts`]). A call whose index holds
    /// a handle in `built` had its arguments made by the host's builder as the response was read
    /// ([`run_into`]); its `arguments` are empty.
    ProviderCalls {
        calls: Vec<ProviderCall>,
        built: Vec<Option<u32>>,
        at: Receipts,
    },
    Bool(bool),
    Provider(Option<Provider>),
    Scan {
        state: StreamState,
        position: usize,
    },
    Value(Value),
    /// What a stream reported ([`Stream`]). The `CallEnd` of each call in `deferred` (in order)
    /// has its arguments still in `source`, the text the stream was fed, and so has its
    /// `Arguments` event when its delta is empty.
    Events {
        events: Vec<Event>,
        deferred: Vec<LeftInText>,
        source: &'a str,
        at: Receipts,
    },
}

/// A call of a stream whose arguments are left in the stream's text: its index, and where and
/// in which grammar they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeftInText {
    pub(crate) index: usize,
    pub(crate) deferred: Deferred,
}

/// Runs `op` on `input` for `host`: the core call, with its error located in the caller's
/// units. A panic (a bug in beacon) is an `internal` error, never an unwinding into the host.
pub fn run<'a>(input: &Input<'a>, op: Op, host: Host) -> Result<Output<'a>, Located> {
    run_with(input, op, host, Defer::Large)
}

/// [`run`] and [`emit`] in one: the arguments of the common call shapes are built in `sink`
/// while the parse reads them, so no [`Value`] tree is built and freed in between. The sink is
/// told when the parse has ended ([`Sink::parsed`]); the values it made before are placed by
/// `push` and `set`. The answer, or the sink's own error; a parse error as in [`run`].
pub fn run_into<S: Sink>(
    sink: &mut S,
    input: &Input<'_>,
    op: Op,
    host: Host,
) -> Result<Result<S::Value, S::Error>, Located> {
    let (output, built) = run_building(sink, input, op, host);
    let output = output?;
    Ok(built.and_then(|built| answer::emit_built(sink, output, built)))
}

/// What [`run_building`] gives: the output, and what the sink built or its error.
type Building<'a, S> = (
    Result<Output<'a>, Located>,
    Result<raw::Built<<S as Sink>::Value>, <S as Sink>::Error>,
);

/// [`run`] with the arguments of the common call shapes built in `sink` while the parse reads
/// them; the sink is then told the parse has ended ([`Sink::parsed`]). The output, and what the
/// sink built (by handle) or its error.
fn run_building<'a, S: Sink>(sink: &mut S, input: &Input<'a>, op: Op, host: Host) -> Building<'a, S> {
    let arguments = raw::Arguments::new(sink);
    let output = run_with(input, op, host, Defer::Build(&arguments));
    let (sink, built) = arguments.finish();
    sink.parsed();
    (output, built)
}

/// [`run_into`] for a host that takes each call's arguments as a string of their JSON text
/// (spaced as [`Spaced`] says) rather than as values, as an inference server answers them: the
/// arguments of the common call shapes are written as text while the parse reads them, the
/// others from the text where the parse left them, or from the core's object. Everything else of
/// the answer is as [`run_into`] builds it.
pub fn run_text_arguments<S: Sink>(
    sink: &mut S,
    input: &Input<'_>,
    op: Op,
    host: Host,
) -> Result<Result<S::Value, S::Error>, Located> {
    let mut text = JsonText::new(Spaced, 0);
    let (output, built) = run_building(text.reading(0), input, op, host);
    let Ok(built) = built;
    Ok(answer::emit_text_arguments(sink, &mut text, output?, built))
}

/// A message whose calls' arguments were taken out, and those arguments as a host built them, in
/// the calls' order ([`message_into`]).
pub type MessageArguments<V> = (Message, Vec<V>);

/// `parse_message` (`op` is an [`Op::Message`]) for a host that keeps each call's arguments
/// apart from the rest of the answer (Arrow's columns): the message, its calls' arguments left
/// empty, and each call's arguments built in `sink`, in order (while the parse reads them, as
/// in [`run_into`]). Another operation is an `internal` error.
pub fn message_into<S: Sink>(
    sink: &mut S,
    input: &Input<'_>,
    op: Op,
    host: Host,
) -> Result<Result<MessageArguments<S::Value>, S::Error>, Located> {
    let (output, built) = run_building(sink, input, op, host);
    let Output::Message { message, source, .. } = output? else {
        let err = ParseError::new(ErrorCode::Internal, 0, "message_into runs parse_message only");
        return Err(input.locate(&err, host));
    };
    Ok(built.and_then(|built| answer::message_arguments(sink, message, source, built)))
}

/// [`run`] with every call's arguments built in the core: an output that does not borrow the
/// input, for a caller that keeps it past the input (a batch) or reads the calls itself.
pub fn run_settled(input: &Input<'_>, op: Op, host: Host) -> Result<Output<'static>, Located> {
    run_with(input, op, host, Defer::Never).map(|output| match output {
        Output::Call { call, at, .. } => Output::Call { call, source: "", at },
        Output::Calls {
            calls,
            include_format,
            at,
            ..
        } => Output::Calls {
            calls,
            include_format,
            source: "",
            at,
        },
        Output::Message {
            message,
            spans,
            at,
            repair,
            ..
        } => Output::Message {
            message,
            spans,
            source: "",
            at,
            repair,
        },
        Output::ProviderCalls { calls, built, at } => Output::ProviderCalls { calls, built, at },
        Output::Bool(b) => Output::Bool(b),
        Output::Provider(p) => Output::Provider(p),
        Output::Scan { state, position } => Output::Scan { state, position },
        Output::Value(v) => Output::Value(v),
        // The one-shot operations answer no events; a stream's are built from its own text.
        Output::Events { events, at, .. } => Output::Events {
            events,
            deferred: Vec::new(),
            source: "",
            at,
        },
    })
}

fn run_with<'a>(input: &Input<'a>, op: Op, host: Host, defer: Defer<'_>) -> Result<Output<'a>, Located> {
    catch_unwind(AssertUnwindSafe(|| run_op(input, op, host, defer)))
        .unwrap_or_else(|payload| Err(ParseError::new(ErrorCode::Internal, 0, panic_message(&*payload))))
        .map_err(|err| input.locate(&err, host))
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("beacon panicked ({detail}); this is a bug in beacon, please report it with the input")
}

/// `format_calls`: the provider's message, or the text the spec writes after the content.
fn format_calls(calls: &[ProviderCall], wire: Wire, content: Option<String>) -> Result<Value, ParseError> {
    match wire {
        Wire::Provider(provider) => crate::providers::format_calls(calls, provider, content.as_deref()),
        Wire::Spec(spec) => {
            let written = spec.write(calls.iter().map(|c| (c.name.as_str(), &c.arguments, c.id.as_deref())))?;
            Ok(Value::String(content.unwrap_or_default() + &written))
        }
    }
}

fn run_op<'a>(input: &Input<'a>, op: Op, host: Host, defer: Defer<'_>) -> Result<Output<'a>, ParseError> {
    match op {
        Op::ToolCall { formats, tools } => {
            let source = input.text()?;
            let call = crate::text::parse::call_with(source, &tools.parse_options(formats), defer)?;
            let at = Receipts::new(source, &call.repairs, host.unit());
            Ok(Output::Call { call, source, at })
        }
        Op::ToolCalls {
            formats,
            include_format,
            tools,
        } => {
            let source = input.text()?;
            let calls = crate::text::parse::calls_with(source, &tools.parse_options(formats), defer)?;
            let at = Receipts::new(source, calls.iter().flat_map(|c| &c.repairs), host.unit());
            Ok(Output::Calls {
                calls,
                include_format,
                source,
                at,
            })
        }
        Op::Message { formats, ids, tools } => {
            let source = input.text()?;
            let options = tools.message_options(formats, ids, crate::text::reasoning::Start::default());
            let message = message_with(source, options, defer)?;
            let spans = spans(source, &message.tool_calls, host);
            let at = Receipts::new(source, &message.repairs, host.unit());
            Ok(Output::Message {
                message,
                spans,
                source,
                at,
                repair: tools.repair,
            })
        }
        Op::ScanStream => {
            let text = input.text()?;
            let scan = crate::text::stream::scan_stream(text);
            Ok(Output::Scan {
                state: scan.state,
                position: locate(text, scan.offset, host.unit()).offset,
            })
        }
        Op::Response {
            provider,
            text_fallback,
            query,
            tools,
        } => match input.response(&tools.response_options(provider, text_fallback), query, defer.builder())? {
            Output::ProviderCalls { calls, built, .. } => {
                let (text, unit) = input.located_in(host);
                let at = Receipts::new(text, calls.iter().flat_map(|c| &c.repairs), unit);
                Ok(Output::ProviderCalls { calls, built, at })
            }
            other => Ok(other),
        },
        Op::FormatResults { results, provider } => {
            Ok(Output::Value(crate::providers::format_results(&results, provider)?))
        }
        Op::FormatCalls { calls, wire, content } => format_calls(&calls, wire, content).map(Output::Value),
        #[cfg(feature = "templates")]
        Op::InferFormat {
            bos_token,
            eos_token,
            special_tokens,
        } => {
            let mut template = match input {
                Input::Value(config) => crate::template::ChatTemplate::from_config(config)?,
                _ => crate::template::ChatTemplate::read(input.text()?)?,
            };
            if let Some(bos) = bos_token {
                template.bos_token = bos;
            }
            if let Some(eos) = eos_token {
                template.eos_token = eos;
            }
            let tokens = &mut template.special_tokens;
            tokens.extend(special_tokens);
            tokens.extend([template.bos_token.clone(), template.eos_token.clone()]);
            tokens.retain(|t| !t.is_empty());
            tokens.sort();
            tokens.dedup();
            Ok(Output::Value(crate::template::infer(&template)?.describe()))
        }
        Op::PanicForTesting => panic!("deliberate panic for testing"),
    }
}

impl Output<'_> {
    /// The tool calls of the output (of a text: none for other outputs).
    fn text_calls(&self) -> &[ToolCall] {
        match self {
            Output::Call { call, .. } => std::slice::from_ref(call),
            Output::Calls { calls, .. } => calls,
            Output::Message { message, .. } => &message.tool_calls,
            _ => &[],
        }
    }

    /// How many calls the answer holds (of a text or of a provider's response): a host that
    /// pauses its garbage collector while it builds a large answer asks this first.
    pub fn calls(&self) -> usize {
        match self {
            Output::ProviderCalls { calls, .. } => calls.len(),
            _ => self.text_calls().len(),
        }
    }

    /// How many of the output's calls have their arguments still in the text, for tests of
    /// [`emit`]'s reading of them.
    #[doc(hidden)]
    pub fn deferred_calls(&self) -> usize {
        self.text_calls().iter().filter(|c| c.deferred.is_some()).count()
    }
}

/// The spans of `calls` (in text order) in `host`'s units, counted in one pass over the text.
/// Where the receipts of an answer's calls stand in the caller's units: each receipt's byte
/// offset with its location, so that an answer built without its text still places them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Receipts(Vec<(usize, crate::error::Location)>);

impl Receipts {
    pub(crate) fn new<'r>(
        text: &str,
        repairs: impl IntoIterator<Item = &'r crate::repair::Repair>,
        unit: crate::error::Unit,
    ) -> Self {
        Receipts::sorted(
            repairs
                .into_iter()
                .map(|r| (r.offset, locate(text, r.offset, unit)))
                .collect(),
        )
    }

    /// Sorts by offset outside the generic [`Receipts::new`], so that the module links one copy
    /// of the sort for all its callers, not one per iterator type (about 5 KB of WebAssembly each).
    fn sorted(mut at: Vec<(usize, crate::error::Location)>) -> Self {
        at.sort_by_key(|(offset, _)| *offset);
        Receipts(at)
    }

    /// The location of the receipt at byte `offset`.
    pub(crate) fn at(&self, offset: usize) -> crate::error::Location {
        match self.0.binary_search_by_key(&offset, |(o, _)| *o) {
            Ok(i) => self.0[i].1,
            Err(_) => crate::error::Location {
                offset,
                line: 1,
                column: 1,
            },
        }
    }
}

fn spans(text: &str, calls: &[ToolCall], host: Host) -> Vec<[usize; 2]> {
    let mut counter = input::Counter::new(text, host.unit());
    calls
        .iter()
        .map(|c| [counter.at(c.span.start), counter.at(c.span.end)])
        .collect()
}
