//! One module per format family. Tier 1 families start at a marker and parse forward from it;
//! tier 2 (`json_shapes`, format `json`) and tier 3 (`python`) search the whole text.
//!
//! Every tier-1 marker is declared once, in its family's [`Family`], and [`FAMILIES`] lists the
//! families: the scanner (`crate::text::tiers`) and `scan_stream` read markers and tokens from there
//! and nowhere else.

pub(crate) mod bracket;
pub(crate) mod deepseek;
pub(crate) mod functionary;
pub(crate) mod functools;
pub(crate) mod gemma;
pub(crate) mod gigachat;
pub(crate) mod glm;
pub(crate) mod harmony;
pub(crate) mod hermes;
pub(crate) mod ifm;
pub(crate) mod json_shapes;
pub(crate) mod json_tags;
pub(crate) mod kimi_k2;
pub(crate) mod llama;
pub(crate) mod longcat;
pub(crate) mod minicpm;
pub(crate) mod mistral;
pub(crate) mod python;
pub(crate) mod pythonic;
pub(crate) mod qwen3_coder;
pub(crate) mod solar_open;
pub(crate) mod spec;
pub(crate) mod step3;
pub(crate) mod tagged;
pub(crate) mod tokens;
pub(crate) mod xml_invoke;

/// A tier-1 parser: given the text and the offset of one of its family's markers, parses the
/// call(s) there, pushes them to `out` and returns the offset after them. Returning without
/// pushing a call means the marker does not start a call here (e.g. Harmony's final channel):
/// scanning goes on at the returned offset, which must be past `start`.
pub(crate) type Parser = fn(&str, usize, &mut Calls<'_>) -> Result<usize, ParseError>;

/// Where a parser puts the calls it reads, and whether it defers their arguments: a list of calls
/// (it derefs to the list) with the [`Defer`] the caller asked for.
pub(crate) struct Calls<'a> {
    list: &'a mut Vec<ToolCall>,
    pub defer: Defer<'a>,
}

impl<'a> Calls<'a> {
    pub(crate) fn new(list: &'a mut Vec<ToolCall>, defer: Defer<'a>) -> Self {
        Calls { list, defer }
    }
}

impl std::ops::Deref for Calls<'_> {
    type Target = Vec<ToolCall>;
    fn deref(&self) -> &Vec<ToolCall> {
        self.list
    }
}

impl std::ops::DerefMut for Calls<'_> {
    fn deref_mut(&mut self) -> &mut Vec<ToolCall> {
        self.list
    }
}

/// One tier-1 format family.
pub(crate) struct Family {
    /// The texts a call of this family starts with. Each contains at least one of `<`, `[`, `>`
    /// (the scanner looks for those bytes and matches markers around them).
    pub markers: &'static [&'static str],
    /// Every format its calls can have (a caller's `formats` filter skips the family when it
    /// allows none of them).
    pub formats: &'static [crate::call::Format],
    /// Every other token the family's grammar expects after a marker (closing tags, separators):
    /// a text that stops partway through one of these is incomplete, not wrong.
    pub tokens: &'static [&'static str],
    /// Tokens that end a region for good: when the text a parse consumed ends with one of them,
    /// the parser read nothing after it, so more text cannot change the result (a stream relies
    /// on this to show what follows; `text/scanner/tests.rs` tests it on every fixture).
    pub closers: &'static [&'static str],
    /// Markers after which (and whitespace) the grammar reads a JSON call shape with
    /// [`tagged_json`]: a stream may show the calls of such a body while they arrive.
    pub json_bodies: &'static [JsonBody],
    /// For a family whose call's span takes in text before its marker (its lead: GigaChat's
    /// `<|message_sep|>` before the role, Harmony's ` to=RECIPIENT` opening the text), how a
    /// growing text holds that text back: a stream must not show as content what may become part
    /// of a call ([`LeadScan`]).
    pub lead: Option<LeadHold>,
    pub parse: Parse,
}

/// How a family reads the calls at one of its markers.
#[derive(Clone, Copy)]
pub(crate) enum Parse {
    /// With its own parser.
    Fn(Parser),
    /// As a format spec describes (a family compiled from one: [`spec`]).
    Spec(&'static spec::FormatSpec),
}

impl Family {
    /// Parses the call(s) at the family's marker at `start` (see [`Parser`]).
    pub(crate) fn read(&self, text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
        match self.parse {
            Parse::Fn(parse) => parse(text, start, out),
            Parse::Spec(spec) => spec::read(spec, text, start, out),
        }
    }
}

/// Follows a growing text for the lead of a family's marker (see [`Family::lead`]): updates
/// `scan` for the text as it stands, looking at each byte a bounded number of times over all
/// calls.
pub(crate) type LeadHold = fn(&[u8], &mut LeadScan);

/// What a growing text holds of a family's lead, kept between runs of the scanner.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LeadScan {
    /// Where text starts that is, or may still become, the lead of a marker.
    pub hold: Option<usize>,
    /// Where the marker of that lead starts, once the whole marker has arrived.
    pub marker: Option<usize>,
    /// How far the hook has looked at the text.
    pub checked: usize,
    /// Set by the scanner: the marker of the hold was decided (it gave its call, or none), and
    /// the text has been decided up to `checked`.
    pub settled: bool,
    /// No lead can begin any more.
    pub over: bool,
}

impl LeadScan {
    /// The marker of the hold was decided, and the text up to `end` with it.
    pub(crate) fn settle(&mut self, end: usize) {
        self.hold = None;
        self.marker = None;
        self.checked = self.checked.max(end);
        self.settled = true;
    }
}

/// A marker followed by a JSON call shape, the format of its calls, and where the body starts:
/// `back` bytes before the end of the marker (`functools[` ends with the list's `[`), then
/// whitespace.
pub(crate) struct JsonBody {
    pub marker: &'static str,
    pub format: crate::call::Format,
    pub back: usize,
}

impl JsonBody {
    pub(crate) const fn at(marker: &'static str, format: crate::call::Format) -> Self {
        JsonBody {
            marker,
            format,
            back: 0,
        }
    }
}

/// Every tier-1 family. Where two markers match at one offset, the longer one wins.
pub(crate) const FAMILIES: &[Family] = &[
    hermes::FAMILY,
    mistral::FAMILY,
    bracket::FAMILY,
    llama::FAMILY,
    xml_invoke::FAMILY,
    qwen3_coder::FAMILY,
    deepseek::FAMILY,
    step3::FAMILY,
    kimi_k2::FAMILY,
    glm::FAMILY,
    longcat::FAMILY,
    ifm::FAMILY,
    minicpm::FAMILY,
    harmony::FAMILY,
    gemma::FAMILY,
    pythonic::FAMILY,
    json_tags::FAMILY,
    functionary::FAMILY,
    functools::FAMILY,
    gigachat::FAMILY,
    solar_open::FAMILY,
];

use crate::call::{Deferred, Format, Grammar, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws};
use crate::syntax::path::Step;
use crate::syntax::shape::{self, Defer, Mode};
use crate::value::{Object, Value};

/// Parses the JSON call shape at `pos` (after whitespace) as the content of a tag. Pushes its
/// calls, each spanning its own value, and returns the offset after the JSON value. A shape with
/// no calls (a message whose `tool_calls` is empty) is `tool_call.unrecognized`.
pub(crate) fn tagged_json(
    text: &str,
    pos: usize,
    format: Format,
    marker: &str,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let pos = skip_ws(bytes, pos);
    match bytes.get(pos) {
        Some(b'{' | b'[') => {}
        Some(_) => return Err(unrecognized(text, pos, marker)),
        None => return Err(unclosed_marker(text, marker)),
    }
    let defer = out.defer;
    if let Some(end) = crate::syntax::plain_shapes::calls(text, pos, Mode::Tagged, format, defer, out) {
        return Ok(end);
    }
    let (value, end, items) = crate::syntax::json::parse_value_items_at(text, pos)?;
    let spans = shape::call_spans_of_items(text, pos, end, &value, Mode::Tagged, Some(items));
    if let Some((index, key)) = shape::stray_key(&value).filter(|_| !shape::is_tagged_call_shape(&value)) {
        let path: Vec<Step<&str>> = index.map(Step::Index).into_iter().collect();
        return Err(ParseError::new(
            ErrorCode::Unrecognized,
            crate::syntax::json::locate_key(text, pos, &path, key),
            format!(
                "unexpected key {} in the tool call after `{marker}`: a call has `name` and `arguments`",
                crate::lex::quote(key)
            ),
        ));
    }
    let calls = shape::calls_in(text, pos, value, Mode::Tagged)?.ok_or_else(|| unrecognized(text, pos, marker))?;
    if calls.is_empty() {
        // A message whose `tool_calls` is empty: the marker claimed a call that is not there.
        return Err(unrecognized(text, pos, marker));
    }
    let spans = spans.into_iter().chain(std::iter::repeat(pos..end));
    out.extend(
        calls
            .into_iter()
            .zip(spans)
            .map(|(call, span)| call.into_call(format, span)),
    );
    Ok(end)
}

/// Content after a marker that is not a call.
pub(crate) fn unrecognized(text: &str, pos: usize, marker: &str) -> ParseError {
    let found: String = text[pos..].chars().take(24).collect();
    ParseError::new(
        ErrorCode::Unrecognized,
        pos,
        format!(
            "`{marker}` must be followed by a tool call, found {}",
            crate::lex::quote(&found)
        ),
    )
}

/// The text ends right after a marker.
pub(crate) fn unclosed_marker(text: &str, marker: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends after `{marker}` without a tool call"),
    )
}

/// Expects whitespace then `close` at `pos`; the end of the text is accepted in its place, and a
/// text that ends partway through `close` is `tool_call.unclosed`. Returns the offset after the
/// closing tag.
pub(crate) fn closing_tag(text: &str, pos: usize, close: &str) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let pos = skip_ws(bytes, pos);
    if at(bytes, pos, close) {
        return Ok(pos + close.len());
    }
    if pos == bytes.len() {
        return Ok(pos);
    }
    if close.as_bytes().starts_with(&bytes[pos..]) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            format!("the text ends inside `{close}`"),
        ));
    }
    let found = text[pos..]
        .chars()
        .next()
        .map(crate::lex::show_char)
        .unwrap_or_default();
    Err(ParseError::new(
        ErrorCode::Syntax,
        pos,
        format!("expected `{close}` after the tool call, found {found}"),
    ))
}

/// Expects `token` at `pos`; returns the offset after it. See [`unexpected`] for the error.
/// Inlined, with the error built out of line: the tagged families expect a tag or two per
/// argument (typical `glm45` output: 24.99k → 24.62k instructions a parse).
#[inline]
pub(crate) fn expect(text: &str, pos: usize, token: &str, inside: &str) -> Result<usize, ParseError> {
    if at(text.as_bytes(), pos, token) {
        return Ok(pos + token.len());
    }
    Err(unexpected(text, pos, &[token], inside))
}

/// The error for a text that holds none of the `expected` tokens at `pos` (inside `inside`, for
/// the message): `tool_call.unclosed` at the end when the text stops there or partway through one
/// of them, `tool_call.syntax` at `pos` otherwise.
#[cold]
pub(crate) fn unexpected(text: &str, pos: usize, expected: &[&str], inside: &str) -> ParseError {
    missing(text, pos, expected, &format!("in {inside}"))
}

/// The error for none of `expected` at `pos`; `place` says where, for the message ("in the tool
/// call", "after the tool name").
fn missing(text: &str, pos: usize, expected: &[&str], place: &str) -> ParseError {
    let wanted = expected
        .iter()
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(" or ");
    if expected.iter().any(|t| {
        text.as_bytes()
            .get(pos..)
            .is_some_and(|rest| t.as_bytes().starts_with(rest))
    }) {
        return ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            format!("the text ends where {wanted} is expected {place}"),
        );
    }
    ParseError::new(
        ErrorCode::Syntax,
        pos,
        format!("expected {wanted} {place}, found {}", found_at(text, pos)),
    )
}

/// The JSON arguments at `value_at` (after whitespace), read as `defer` says
/// (`shape::arguments_as`): an object by the host's builder when there is one (the arguments
/// are then empty, and where they went comes second), else, and for what the builder cannot
/// read, by `read` ([`object_arguments`] or a format's own reading).
pub(crate) fn json_arguments_as(
    text: &str,
    value_at: usize,
    defer: Defer<'_>,
    read: impl FnOnce() -> Result<(Object, usize), ParseError>,
) -> Result<(Object, Option<Deferred>, usize), ParseError> {
    let at = skip_ws(text.as_bytes(), value_at);
    let object = text.as_bytes().get(at) == Some(&b'{');
    shape::arguments_as(
        defer,
        at,
        Grammar::Json,
        |build| object.then(|| build.object(text, at, 0)).flatten(),
        read,
    )
}

/// The JSON value at `value_at`, which must be an object: the arguments of the call `name`, and
/// the offset after them. Another JSON value is `tool_call.invalid_arguments` at it.
///
/// A JSON string holding the JSON of an object, written where the object belongs, carries the
/// repair `repair.double_encoded`: the string's content takes its place.
pub(crate) fn object_arguments(text: &str, value_at: usize, name: &str) -> Result<(Object, usize), ParseError> {
    match crate::syntax::json::parse_value_at(text, value_at)? {
        (Value::Object(arguments), end) => Ok((arguments, end)),
        (other, end) => {
            let at = skip_ws(text.as_bytes(), value_at);
            let err = ParseError::new(
                ErrorCode::InvalidArguments,
                value_at,
                format!(
                    "the arguments of {} must be a JSON object, found {}",
                    crate::lex::quote(name),
                    other.kind()
                ),
            );
            match other {
                Value::String(inner) if matches!(crate::syntax::json::parse_complete(&inner), Ok(Value::Object(_))) => {
                    Err(err.fix(crate::repair::Fix {
                        code: crate::repair::RepairCode::DoubleEncoded,
                        at,
                        range: at..end,
                        insert: inner,
                        message: "arguments written as a JSON string of the object were decoded once".to_owned(),
                    }))
                }
                _ => Err(err),
            }
        }
    }
}

/// Sets the span of the calls pushed since `first` to `start..end` when there is one call (the
/// whole tag); several calls from one tag keep their own spans (each its own object in a JSON
/// array or message).
pub(crate) fn widen_span(out: &mut [ToolCall], first: usize, start: usize, end: usize) {
    if out.len() == first + 1 {
        out[first].span = start..end;
    }
}

/// Whether the text from `pos` to its end is a proper beginning of `token` (the end of the text
/// itself included): the text stops partway through it.
pub(crate) fn cut_short(bytes: &[u8], pos: usize, token: &str) -> bool {
    bytes
        .get(pos..)
        .is_some_and(|rest| rest.len() < token.len() && token.as_bytes().starts_with(rest))
}

/// Expects `token` at `pos` and returns the offset after it. The text ending at `pos` or partway
/// through the token is `tool_call.unclosed` at the end; anything else is `tool_call.syntax` at
/// `pos`, with `context` (e.g. "after the tool name") in the message.
pub(crate) fn expect_token(text: &str, pos: usize, token: &str, context: &str) -> Result<usize, ParseError> {
    if at(text.as_bytes(), pos, token) {
        return Ok(pos + token.len());
    }
    Err(missing(text, pos, &[token], context))
}

/// The character at `pos`, for a message.
pub(crate) fn found_at(text: &str, pos: usize) -> String {
    text.get(pos..)
        .and_then(|rest| rest.chars().next())
        .map_or_else(|| "the end of the text".to_string(), crate::lex::show_char)
}
