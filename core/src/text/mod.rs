//! Model text → calls, message and events: the tiers of detection, the resumable scanner,
//! reasoning, the content rule, leading calls, `parse_message`, `ToolCallStream` and
//! `scan_stream`.

pub(crate) mod content;
pub(crate) mod lead;
pub(crate) mod message;
pub(crate) mod parse;
pub(crate) mod reasoning;
pub(crate) mod scanner;
pub(crate) mod stream;
pub(crate) mod tiers;
