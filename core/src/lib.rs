#![doc = include_str!("../README.md")]

mod call;
mod callsyntax;
mod content;
mod detect;
mod error;
mod formats;
pub mod host;
mod json;
mod lead;
mod markers;
mod marks;
mod message;
mod parse;
mod providers;
mod reasoning;
mod scan;
mod scanner;
mod shape;
mod stream;
mod tools;
mod value;

pub use call::{Format, FormatSet, ToolCall};
pub use error::{locate, ErrorCode, Location, ParseError, Unit};
pub use json::parse_json;
pub use message::{parse_message, Ids, Message, MessageOptions, Start};
pub use parse::{
    parse_tool_call, parse_tool_call_in, parse_tool_call_with, parse_tool_calls, parse_tool_calls_in,
    parse_tool_calls_with, ParseOptions,
};
pub use providers::{
    detect_provider, detect_provider_value, format_calls, format_results, has_tool_calls, has_tool_calls_value,
    parse_response, parse_response_value, parse_response_value_with, parse_response_with, utf8_text, Provider,
    ProviderCall, ResponseOptions, ResponseStream, ToolResult,
};
pub use stream::{scan_stream, Event, StreamScan, StreamState, ToolCallStream};
pub use tools::{SchemaViolation, Tool, Tools, ToolsError, UnknownTools};
pub use value::{Number, Object, Value, MAX_DEPTH};
