//! The one-shot entry points over model text: every call ([`parse_tool_calls`]) or exactly one
//! ([`parse_tool_call`]), optionally recognising only some formats and checking calls against the
//! caller's tools ([`ParseOptions`]).

use crate::call::{FormatSet, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::repair;
use crate::syntax::shape::Defer;
use crate::text::tiers;
use crate::tools::{self, Tools, UnknownTools};

/// What the parse functions recognise and check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions<'a> {
    /// The formats recognised; every other format's text is prose.
    pub formats: FormatSet,
    /// The caller's tools: with them, calls are named, typed and validated (see [`Tools`]).
    pub tools: Option<&'a Tools>,
    /// With `tools`, check the arguments against each tool's schema (`tool_call.schema`); when
    /// false, only names and typing apply.
    pub validate: bool,
    /// With `tools`, what a call to a tool not in the list is.
    pub unknown: UnknownTools,
    /// Mend the model mistakes [`RepairCode`](crate::RepairCode) lists, each reported in its call's `repairs`.
    pub repair: bool,
}

impl Default for ParseOptions<'_> {
    fn default() -> Self {
        ParseOptions {
            formats: FormatSet::ALL,
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
            repair: false,
        }
    }
}

impl<'a> ParseOptions<'a> {
    /// The default options with this tool list.
    pub fn with_tools(tools: &'a Tools) -> Self {
        ParseOptions {
            tools: Some(tools),
            ..ParseOptions::default()
        }
    }
}

/// Every tool call in `text`, in text order. Errs with [`ErrorCode::NotFound`] when there is none.
pub fn parse_tool_calls(text: &str) -> Result<Vec<ToolCall>, ParseError> {
    parse_tool_calls_in(text, FormatSet::ALL)
}

/// [`parse_tool_calls`] recognising only `formats`: every other format's text is prose.
pub fn parse_tool_calls_in(text: &str, formats: FormatSet) -> Result<Vec<ToolCall>, ParseError> {
    // Not through `parse_tool_calls_with`: a defer that never passes tools links no schema code.
    let detected = tiers::detect(text, formats, crate::text::reasoning::Start::Detect, None, Defer::Never);
    crate::error::within(text, detected.and_then(|(calls, _)| found(calls)))
}

/// [`parse_tool_calls`] with `options`: the formats recognised, and the caller's tools.
pub fn parse_tool_calls_with(text: &str, options: &ParseOptions<'_>) -> Result<Vec<ToolCall>, ParseError> {
    calls_with(text, options, Defer::Never)
}

/// [`parse_tool_calls_with`], building the arguments as `defer` says when no tools are given
/// (typing and validation read built arguments).
pub(crate) fn calls_with(
    text: &str,
    options: &ParseOptions<'_>,
    defer: Defer<'_>,
) -> Result<Vec<ToolCall>, ParseError> {
    if options.repair {
        let repaired = repair::run(text, |t| calls_in(t, options, Defer::Never));
        return crate::error::within(
            text,
            repaired.map(|(mut calls, repairs, edits)| {
                repair::settle(&mut calls, repairs, &edits);
                calls
            }),
        );
    }
    crate::error::within(text, calls_in(text, options, defer))
}

fn calls_in(text: &str, options: &ParseOptions<'_>, defer: Defer<'_>) -> Result<Vec<ToolCall>, ParseError> {
    let defer = if options.tools.is_some() { Defer::Never } else { defer };
    let (calls, _) = tiers::detect(
        text,
        options.formats,
        crate::text::reasoning::Start::Detect,
        options.names(),
        defer,
    )?;
    let calls = match options.tools {
        Some(tools) => tools::apply(text, calls, tools, options.validate, options.unknown, options.repair)?,
        None => calls,
    };
    found(calls)
}

/// The calls, or `tool_call.not_found` when there is none.
fn found(calls: Vec<ToolCall>) -> Result<Vec<ToolCall>, ParseError> {
    if calls.is_empty() {
        return Err(ParseError::new(
            ErrorCode::NotFound,
            0,
            "no tool call found in any format",
        ));
    }
    Ok(calls)
}

impl ParseOptions<'_> {
    /// The tools whose names decide which candidates are calls (none when unknown calls are kept).
    pub(crate) fn names(&self) -> Option<&Tools> {
        self.tools.filter(|_| self.unknown != UnknownTools::Keep)
    }
}

/// The one tool call in `text`. Errs with [`ErrorCode::Multiple`] (at the second call) when
/// there are several, and with [`ErrorCode::NotFound`] when there is none.
pub fn parse_tool_call(text: &str) -> Result<ToolCall, ParseError> {
    parse_tool_call_in(text, FormatSet::ALL)
}

/// [`parse_tool_call`] recognising only `formats`.
pub fn parse_tool_call_in(text: &str, formats: FormatSet) -> Result<ToolCall, ParseError> {
    one(parse_tool_calls_in(text, formats)?)
}

/// [`parse_tool_call`] with `options` (see [`parse_tool_calls_with`]).
pub fn parse_tool_call_with(text: &str, options: &ParseOptions<'_>) -> Result<ToolCall, ParseError> {
    one(parse_tool_calls_with(text, options)?)
}

/// [`parse_tool_call_with`], building the arguments as [`calls_with`] does.
pub(crate) fn call_with(text: &str, options: &ParseOptions<'_>, defer: Defer<'_>) -> Result<ToolCall, ParseError> {
    one(calls_with(text, options, defer)?)
}

/// The one call of `calls`, or `tool_call.multiple` at the second.
fn one(mut calls: Vec<ToolCall>) -> Result<ToolCall, ParseError> {
    if calls.len() > 1 {
        let second = &calls[1];
        return Err(ParseError::new(
            ErrorCode::Multiple,
            second.span.start,
            format!(
                "expected exactly one tool call, found {} (`{}` and `{}`…); use parse_tool_calls for parallel calls",
                calls.len(),
                calls[0].name,
                second.name
            ),
        ));
    }
    Ok(calls.remove(0))
}
