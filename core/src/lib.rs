//! beacon: the tool-call parser for LLM output.
//!
//! [`parse_tool_calls`] finds every tool call a model wrote, in any of the common formats, and
//! returns each as a name plus an object of arguments. Formats are tried in three tiers and the
//! first tier that finds anything wins (see [`Format`]). Arguments are parsed strictly; a call
//! that is broken is reported as a [`ParseError`] with a stable code and the byte offset of the
//! offending character, never dropped.
//!
//! [`parse_response`] reads the tool calls out of a provider API's response JSON (OpenAI,
//! Anthropic, Gemini, Cohere, Bedrock, Ollama), or a recorded stream of it; [`format_calls`]
//! writes calls and [`format_results`] writes results back in each API's shape.
//!
//! [`ToolCallStream`] reads a model's output while it arrives, and [`ResponseStream`] a provider's
//! response stream: both report [`Event`]s that add up to the one-shot answer.

// Pedantic as warnings (CI denies warnings) for the library, with the lints that do not fit a
// parser's API and docs allowed; any other allowance stands where it applies, with its reason.
#![warn(clippy::pedantic)]
#![allow(
    clippy::doc_markdown,
    clippy::missing_errors_doc,
    clippy::must_use_candidate,
    clippy::module_name_repetitions
)]

mod call;
mod error;
mod formats;
pub mod host;
mod lex;
mod providers;
mod syntax;
mod text;
mod tools;
mod value;

pub use call::{Format, FormatSet, ToolCall};
pub use error::{locate, ErrorCode, Location, ParseError, Unit};
pub use providers::{
    detect_provider, detect_provider_value, format_calls, format_results, has_tool_calls, has_tool_calls_value,
    parse_response, parse_response_value, parse_response_value_with, parse_response_with, utf8_text, Provider,
    ProviderCall, ResponseOptions, ResponseStream, ToolResult,
};
pub use syntax::json::parse_json;
pub use text::message::{parse_message, Ids, Message, MessageOptions};
pub use text::parse::{
    parse_tool_call, parse_tool_call_in, parse_tool_call_with, parse_tool_calls, parse_tool_calls_in,
    parse_tool_calls_with, ParseOptions,
};
pub use text::reasoning::Start;
pub use text::stream::{scan_stream, Event, StreamScan, StreamState, ToolCallStream};
pub use tools::{SchemaViolation, Tool, Tools, ToolsError, UnknownTools};
pub use value::{Number, Object, Value, MAX_DEPTH};
