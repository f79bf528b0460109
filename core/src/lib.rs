#![doc = include_str!("../README.md")]
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
mod repair;
mod syntax;
pub mod template;
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
pub use repair::{Repair, RepairCode, MAX_REPAIRS};
pub use syntax::json::parse_json;
pub use template::{ChatTemplate, Renderer};
pub use text::message::{parse_message, set_random_source, IdSeed, Ids, Message, MessageOptions};
pub use text::parse::{
    parse_tool_call, parse_tool_call_in, parse_tool_call_with, parse_tool_calls, parse_tool_calls_in,
    parse_tool_calls_with, ParseOptions,
};
pub use text::reasoning::Start;
pub use text::stream::{scan_stream, Event, StreamScan, StreamState, ToolCallStream};
pub use tools::{SchemaViolation, Tool, Tools, ToolsError, UnknownTools};
pub use value::{write_json_escaped, write_json_string, Number, Object, Value, MAX_DEPTH};
