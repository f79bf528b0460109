//! Provider responses: the tool calls in the JSON a model API returned (OpenAI Chat Completions
//! and Responses, Anthropic Messages, Gemini generateContent and Interactions, Cohere v1 and v2,
//! Bedrock Converse, Ollama), which API a response came from, the assistant message that carries
//! calls to it ([`format_calls`]) and the messages that carry tool results back ([`format_results`]).
//!
//! A response is read by walking the paths its API documents; nothing else in it is searched.
//! Calls are strict like everywhere in beacon: a call whose name or arguments are broken is an
//! error naming the tool and its path in the response, never dropped; so is a container on the
//! way to calls that has the wrong type (a recognised shape that cannot be read never gives
//! `[]`), and a response that is an error the API returned (`response.error`). A call's
//! arguments are read from its API's key, or from another arguments key when that one is
//! missing. Errors point into the caller's text (the text variants) or carry offset 0 (the value
//! variants, which have no text). Every step is a single pass over the value; nothing here
//! indexes or unwraps data.

mod anthropic;
mod bedrock;
mod calls;
mod check;
mod cohere;
mod gemini;
mod ollama;
mod openai;
mod response_stream;
mod results;
mod walk;

pub use calls::format_calls;
pub use response_stream::ResponseStream;
pub use results::{format_results, ToolResult};

use crate::error::ParseError;
use crate::lex::skip_ws;
use crate::syntax::shape::BuildArguments;
use crate::tools::{Tools, UnknownTools};
use crate::value::{get, Object, Value};
use walk::{Found, Source, ROOT};

/// The API a response came from (and the one [`format_results`] writes for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions and every OpenAI-compatible server: a full response, a bare
    /// assistant message, one streamed chunk, or a list of streamed chunks.
    OpenaiChat,
    /// OpenAI Responses API: `output[]` items of type `function_call`.
    OpenaiResponses,
    /// Anthropic Messages: `content[]` blocks of type `tool_use`.
    Anthropic,
    /// Gemini `generateContent`: `candidates[].content.parts[].functionCall`.
    Gemini,
    /// Gemini Interactions API: `steps[]` (or launch-era `outputs[]`) of type `function_call`.
    GeminiInteractions,
    /// Cohere Chat v1: top-level `tool_calls[]` with `parameters`.
    CohereV1,
    /// Cohere Chat v2: `message.tool_calls[]`, shaped like OpenAI's.
    CohereV2,
    /// AWS Bedrock Converse: `output.message.content[].toolUse`.
    Bedrock,
    /// Ollama `/api/chat`: `message.tool_calls[]` with arguments as an object.
    Ollama,
}

impl Provider {
    pub const ALL: [Provider; 9] = [
        Provider::OpenaiChat,
        Provider::OpenaiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::GeminiInteractions,
        Provider::CohereV1,
        Provider::CohereV2,
        Provider::Bedrock,
        Provider::Ollama,
    ];

    /// The provider's id: `openai_chat`, `openai_responses`, `anthropic`, `gemini`,
    /// `gemini_interactions`, `cohere_v1`, `cohere_v2`, `bedrock`, `ollama`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenaiChat => "openai_chat",
            Provider::OpenaiResponses => "openai_responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::GeminiInteractions => "gemini_interactions",
            Provider::CohereV1 => "cohere_v1",
            Provider::CohereV2 => "cohere_v2",
            Provider::Bedrock => "bedrock",
            Provider::Ollama => "ollama",
        }
    }

    /// The provider with this id ([`Provider::as_str`]), exactly as written.
    pub fn parse(id: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str() == id)
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One tool call read from a provider response.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderCall {
    /// The id to send back with the result (Responses API: `call_id`; Bedrock: `toolUseId`),
    /// or `None` when the provider gave none. Never invented.
    pub id: Option<String>,
    pub name: String,
    /// The arguments, keys in the order written.
    pub arguments: Object,
    /// With [`ResponseOptions::repair`], the receipts of the mistakes mended in its arguments
    /// string (offsets into the response text; 0 for a response passed as a value).
    pub repairs: Vec<crate::repair::Repair>,
}

impl From<crate::call::ToolCall> for ProviderCall {
    /// The call's id, name and arguments (its format and span are left behind).
    fn from(call: crate::call::ToolCall) -> Self {
        ProviderCall {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
            repairs: call.repairs,
        }
    }
}

impl From<&crate::call::ToolCall> for ProviderCall {
    fn from(call: &crate::call::ToolCall) -> Self {
        ProviderCall {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            repairs: call.repairs.clone(),
        }
    }
}

/// What a response text holds.
enum Body {
    /// One JSON value (read once), from `start` (after a byte-order mark).
    Value(Value, usize),
    /// A recorded stream: SSE lines, or several JSON objects one after another (NDJSON).
    Stream,
    /// Neither: plain text.
    Text,
}

/// Reads the first JSON value of `text` once: the whole text when nothing but whitespace
/// follows it, a recorded stream when another object does, else the JSON error at what follows.
fn body_of(text: &str) -> Result<Body, ParseError> {
    let start = if text.starts_with(BOM) { BOM.len_utf8() } else { 0 };
    let bytes = text.as_bytes();
    let first = skip_ws(bytes, start);
    match bytes.get(first) {
        Some(b'{' | b'[') => {}
        Some(_) if response_stream::Frames::is_stream(text) => return Ok(Body::Stream),
        _ => return Ok(Body::Text),
    }
    let (value, end) = crate::syntax::json::parse_value_at(text, first)?;
    let after = skip_ws(bytes, end);
    match bytes.get(after) {
        None => Ok(Body::Value(value, start)),
        Some(b'{') if bytes[first] == b'{' => Ok(Body::Stream),
        Some(_) => Err(ParseError::new(
            crate::error::ErrorCode::JsonUnexpectedToken,
            after,
            "expected the end of the JSON value",
        )),
    }
}

/// The error of a response text whose JSON does not parse (`error`): for a list, as a stream meets
/// it (an error that an event before it raises comes first).
fn broken(text: &str, error: ParseError, options: &ResponseOptions<'_>) -> ParseError {
    let bytes = text.as_bytes();
    let start = if text.starts_with(BOM) { BOM.len_utf8() } else { 0 };
    match bytes.get(skip_ws(bytes, start)) {
        Some(b'[') => response_stream::broken_list(text, error, options),
        _ => error,
    }
}

/// The byte-order mark some servers and files put before UTF-8 text.
const BOM: char = '\u{feff}';

/// `bytes` as text for the text variants ([`parse_response`], [`detect_provider`],
/// [`has_tool_calls`]) when a response arrives as raw bytes (an HTTP body). Bytes that are not
/// valid UTF-8 are [`ErrorCode::JsonInvalidUtf8`](crate::ErrorCode::JsonInvalidUtf8) at the byte
/// offset where the first invalid sequence starts (where Python's decoder and
/// [`std::str::Utf8Error::valid_up_to`] put it); the message names the byte that is wrong, which
/// is a later one when a valid lead byte is followed by a byte that cannot continue it. Offsets of
/// errors on the returned text are byte offsets into `bytes` too.
pub fn utf8_text(bytes: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let lead = bytes.get(at).copied().unwrap_or_default();
        let message = match e.error_len() {
            None => format!(
                "not valid UTF-8: the input ends inside a character (the one byte 0x{lead:02X} at offset {at} begins)"
            ),
            // A byte that can begin a character (U+0080 and up) was followed by one that cannot
            // continue it: that byte is the wrong one.
            Some(len) if (0xC2..=0xF4).contains(&lead) => match bytes.get(at + len) {
                Some(bad) => format!(
                    "not valid UTF-8: byte 0x{bad:02X} at offset {} cannot continue the character that byte \
                     0x{lead:02X} at offset {at} begins",
                    at + len
                ),
                None => format!("not valid UTF-8 at offset {at}"),
            },
            Some(_) => format!("not valid UTF-8: byte 0x{lead:02X} at offset {at} does not begin a valid character"),
        };
        ParseError::new(crate::error::ErrorCode::JsonInvalidUtf8, at, message)
    })
}

/// Which API `response` came from, judged from its keys alone (`docs/providers.md`).
pub fn detect_provider_value(response: &Value) -> Option<Provider> {
    match response {
        Value::Array(items) => response_stream::detect_list(items).or_else(|| item_list(items)),
        Value::Object(o) => detect_object(o),
        _ => None,
    }
}

/// A list of input items as given back to an API (what [`format_calls`] writes for
/// `openai_responses` and `gemini_interactions`): an array of objects, one of them of type
/// `function_call`. The first such item decides: with a `call_id` it is a Responses API item,
/// without one a Gemini Interactions step.
fn item_list(items: &[Value]) -> Option<Provider> {
    if !items.iter().all(|i| matches!(i, Value::Object(_))) {
        return None;
    }
    items.iter().find_map(|i| match i {
        Value::Object(o) if walk::string(o, "type") == Some("function_call") => Some(if has_key(o, "call_id") {
            Provider::OpenaiResponses
        } else {
            Provider::GeminiInteractions
        }),
        _ => None,
    })
}

/// Content block types only Anthropic writes: a `content` array holding one is a Messages
/// response (or an assistant message as stored in a conversation).
const ANTHROPIC_BLOCKS: [&str; 5] = [
    "tool_use",
    "server_tool_use",
    "mcp_tool_use",
    "thinking",
    "redacted_thinking",
];

/// Whether some object in `items` satisfies `test`.
fn any_object(items: Option<&[Value]>, test: impl Fn(&Object) -> bool) -> bool {
    items.is_some_and(|items| items.iter().any(|i| matches!(i, Value::Object(o) if test(o))))
}

fn detect_object(o: &Object) -> Option<Provider> {
    let has = |k: &str| get(o, k).is_some();
    if has("choices") {
        return Some(Provider::OpenaiChat);
    }
    if has("candidates") || has("promptFeedback") {
        return Some(Provider::Gemini);
    }
    match get(o, "output") {
        Some(Value::Array(_)) => return Some(Provider::OpenaiResponses),
        Some(Value::Object(_)) => return Some(Provider::Bedrock),
        _ => {}
    }
    if walk::array(o, "steps").is_some() || walk::array(o, "outputs").is_some() {
        return Some(Provider::GeminiInteractions);
    }
    let content = walk::array(o, "content");
    if content.is_some()
        && (walk::string(o, "type") == Some("message")
            || has("stop_reason")
            || any_object(content, |b| {
                walk::string(b, "type").is_some_and(|t| ANTHROPIC_BLOCKS.contains(&t))
            }))
    {
        return Some(Provider::Anthropic);
    }
    if any_object(content, |b| get(b, "toolUse").is_some()) {
        return Some(Provider::Bedrock);
    }
    let parts = walk::array(o, "parts");
    if parts.is_some()
        && (walk::string(o, "role") == Some("model") || any_object(parts, |p| has_key(p, "functionCall")))
    {
        return Some(Provider::Gemini);
    }
    if walk::object(o, "message").is_some() {
        return Some(if has("done") || has("created_at") {
            Provider::Ollama
        } else {
            Provider::CohereV2
        });
    }
    let cohere_call = walk::array(o, "tool_calls")
        .and_then(|calls| calls.first())
        .is_some_and(|c| matches!(c, Value::Object(c) if has_key(c, "parameters")));
    if cohere_call || has("generation_id") || has("response_id") || has("chat_history") {
        return Some(Provider::CohereV1);
    }
    if has("tool_calls") || has("function_call") || walk::string(o, "role") == Some("assistant") {
        return Some(Provider::OpenaiChat);
    }
    None
}

fn has_key(o: &Object, key: &str) -> bool {
    get(o, key).is_some()
}

/// Which API the response text came from. Plain text (not starting with `{` or `[`) is
/// `Ok(None)`; malformed JSON is its `json.*` error.
pub fn detect_provider(text: &str) -> Result<Option<Provider>, ParseError> {
    let body = body_of(text).map_err(|e| broken(text, e, &ResponseOptions::default()));
    let detected = body.and_then(|body| match body {
        Body::Value(value, _) => Ok(detect_provider_value(&value)),
        Body::Stream => Ok(response_stream::detect_text(text)?.flatten()),
        Body::Text => Ok(None),
    });
    crate::error::within(text, detected)
}

/// How [`parse_response_with`] reads a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResponseOptions<'a> {
    /// The API the response came from; `None` detects it ([`detect_provider`]).
    pub provider: Option<Provider>,
    /// Read the assistant text of a response without structured calls by
    /// [`crate::parse_tool_calls_with`].
    pub text_fallback: bool,
    /// The caller's tools: each call's name must be in the list, and its arguments are checked
    /// against the tool's schema (`docs/tools.md`).
    pub tools: Option<&'a Tools>,
    /// With `tools`, check the arguments (`tool_call.schema`); when false, only names apply.
    pub validate: bool,
    /// With `tools`, what a call to a tool not in the list is.
    pub unknown: UnknownTools,
    /// Mend the model mistakes [`RepairCode`](crate::RepairCode) lists in an arguments string
    /// (and in the assistant text read by `text_fallback`), each reported in the call's `repairs`.
    pub repair: bool,
}

impl Default for ResponseOptions<'_> {
    fn default() -> Self {
        ResponseOptions {
            provider: None,
            text_fallback: false,
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
            repair: false,
        }
    }
}

impl<'a> ResponseOptions<'a> {
    /// The default options (detect the provider, no text fallback) with this tool list.
    pub fn with_tools(tools: &'a Tools) -> Self {
        ResponseOptions {
            tools: Some(tools),
            ..ResponseOptions::default()
        }
    }

    fn plain(provider: Option<Provider>, text_fallback: bool) -> Self {
        ResponseOptions {
            provider,
            text_fallback,
            ..ResponseOptions::default()
        }
    }
}

/// The tool calls in a provider response given as text. `provider: None` detects it
/// ([`detect_provider`]). With `text_fallback`, a response without structured calls has its
/// assistant text read by [`crate::parse_tool_calls`]. Plain text has no calls (`[]`).
pub fn parse_response(
    text: &str,
    provider: Option<Provider>,
    text_fallback: bool,
) -> Result<Vec<ProviderCall>, ParseError> {
    parse_response_with(text, &ResponseOptions::plain(provider, text_fallback))
}

/// [`parse_response`] with `options`, which may carry the caller's tools: a call to a tool not in
/// the list is `tool_call.unknown_tool` at its name, and arguments that break the tool's schema
/// are `tool_call.schema` at the offending value (also inside an arguments string).
pub fn parse_response_with(text: &str, options: &ResponseOptions<'_>) -> Result<Vec<ProviderCall>, ParseError> {
    parse_response_built(text, options, None).map(|(calls, _)| calls)
}

/// A response's calls, and the handle of each call's arguments (by index) where a host's
/// builder made them as they were found; that call's `arguments` are then empty. No handle
/// is made without a builder, with tools (their checks read the core's values) or with
/// repair.
pub(crate) type BuiltCalls = (Vec<ProviderCall>, Vec<Option<u32>>);

/// [`parse_response_with`], handing each call's arguments to `build` (see [`BuiltCalls`]).
pub(crate) fn parse_response_built(
    text: &str,
    options: &ResponseOptions<'_>,
    build: Option<&dyn BuildArguments>,
) -> Result<BuiltCalls, ParseError> {
    let body = body_of(text).map_err(|e| broken(text, e, options));
    let calls = body.and_then(|body| match body {
        Body::Value(value, start) => read(&Source::text(text, start).building(build), &value, options),
        Body::Stream => Ok((
            response_stream::read_text(text, options)?.unwrap_or_default(),
            Vec::new(),
        )),
        Body::Text => Ok((Vec::new(), Vec::new())),
    });
    crate::error::within(text, calls.map(|(calls, built)| (numbered(calls), built)))
}

/// [`parse_response`] for a response already decoded. Errors carry offset 0 (there is no text);
/// their messages name the path in the response.
pub fn parse_response_value(
    response: &Value,
    provider: Option<Provider>,
    text_fallback: bool,
) -> Result<Vec<ProviderCall>, ParseError> {
    parse_response_value_with(response, &ResponseOptions::plain(provider, text_fallback))
}

/// [`parse_response_with`] for a response already decoded (errors at offset 0, their messages
/// name the path in the response and, inside an arguments string, the byte in it).
pub fn parse_response_value_with(
    response: &Value,
    options: &ResponseOptions<'_>,
) -> Result<Vec<ProviderCall>, ParseError> {
    parse_response_value_built(response, options, None).map(|(calls, _)| calls)
}

/// [`parse_response_value_with`], handing each call's arguments to `build` (see
/// [`BuiltCalls`]).
pub(crate) fn parse_response_value_built(
    response: &Value,
    options: &ResponseOptions<'_>,
    build: Option<&dyn BuildArguments>,
) -> Result<BuiltCalls, ParseError> {
    read(&Source::value().building(build), response, options).map(|(calls, built)| (numbered(calls), built))
}

/// `calls` with each receipt's `call_index` set to its call's.
fn numbered(mut calls: Vec<ProviderCall>) -> Vec<ProviderCall> {
    for (i, call) in calls.iter_mut().enumerate() {
        for r in &mut call.repairs {
            r.call_index = Some(i);
        }
    }
    calls
}

/// Whether the response text has tool calls: exactly `!parse_response(..)?.is_empty()`.
pub fn has_tool_calls(text: &str, provider: Option<Provider>, text_fallback: bool) -> Result<bool, ParseError> {
    Ok(!parse_response(text, provider, text_fallback)?.is_empty())
}

/// Whether the decoded response has tool calls: exactly `!parse_response_value(..)?.is_empty()`.
pub fn has_tool_calls_value(
    response: &Value,
    provider: Option<Provider>,
    text_fallback: bool,
) -> Result<bool, ParseError> {
    Ok(!parse_response_value(response, provider, text_fallback)?.is_empty())
}

/// The calls of `value` read as `options` say, with the handles `ctx`'s builder made (see
/// [`BuiltCalls`]).
fn read(ctx: &Source<'_>, value: &Value, options: &ResponseOptions<'_>) -> Result<BuiltCalls, ParseError> {
    read_into(ctx, value, options, None)
}

/// [`read`], also giving the assistant's text of a response (not of a list of events) to `text`.
fn read_into(
    ctx: &Source<'_>,
    value: &Value,
    options: &ResponseOptions<'_>,
    text: Option<&mut String>,
) -> Result<BuiltCalls, ParseError> {
    let ctx = &ctx.repairing(options.repair);
    // A list that holds an event of a known API is a recorded stream, read event by event as a
    // stream reads it (an error event raises where it stands among them).
    if let Value::Array(items) = value {
        if let Some(detected) = response_stream::detect_list(items) {
            let provider = options.provider.unwrap_or(detected);
            return Ok((
                response_stream::read_list(&ctx.building(None), value, items, provider, options)?,
                Vec::new(),
            ));
        }
    }
    api_errors(ctx, value)?;
    let Some(provider) = options.provider.or_else(|| detect_provider_value(value)) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let ctx = &match (options.tools, options.repair) {
        (None, false) => *ctx,
        _ => ctx.building(None),
    };
    // A list of events is a recorded stream; a list of output items (Responses, Interactions)
    // is read as a response.
    if let (Value::Array(items), false) = (value, provider == Provider::OpenaiChat) {
        if item_list(items).is_none()
            && matches!(
                provider,
                Provider::OpenaiResponses
                    | Provider::Anthropic
                    | Provider::Gemini
                    | Provider::Bedrock
                    | Provider::CohereV2
                    | Provider::Ollama
            )
        {
            return Ok((
                response_stream::read_list(&ctx.building(None), value, items, provider, options)?,
                Vec::new(),
            ));
        }
    }
    let mut found = Found::new(options.text_fallback || text.is_some());
    match provider {
        Provider::OpenaiChat => openai::chat(ctx, value, &mut found)?,
        Provider::OpenaiResponses => openai::responses(ctx, value, &mut found)?,
        Provider::Anthropic => anthropic::messages(ctx, value, &mut found)?,
        Provider::Gemini => gemini::generate_content(ctx, value, &mut found)?,
        Provider::GeminiInteractions => gemini::interactions(ctx, value, &mut found)?,
        Provider::CohereV1 => cohere::v1(ctx, value, &mut found)?,
        Provider::CohereV2 => cohere::v2(ctx, value, &mut found)?,
        Provider::Bedrock => bedrock::converse(ctx, value, &mut found)?,
        Provider::Ollama => ollama::chat(ctx, value, &mut found)?,
    }
    if let Some(text) = text {
        text.clone_from(&found.text.text);
    }
    settle(ctx, value, found, options)
}

/// The answer from what a reader `found` in `response`: its calls with the caller's tools applied,
/// or, when it found none and `text_fallback` is on, the calls in the assistant's text; with the
/// handles of the arguments `ctx`'s builder made (see [`BuiltCalls`]).
fn settle(
    ctx: &Source<'_>,
    response: &Value,
    found: Found,
    options: &ResponseOptions<'_>,
) -> Result<BuiltCalls, ParseError> {
    let built = if ctx.builds() {
        found.calls.iter().map(|c| c.built).collect()
    } else {
        Vec::new()
    };
    let calls = settle_calls(ctx, response, found, options)?;
    Ok((calls, built))
}

fn settle_calls(
    ctx: &Source<'_>,
    response: &Value,
    found: Found,
    options: &ResponseOptions<'_>,
) -> Result<Vec<ProviderCall>, ParseError> {
    if found.calls.is_empty() && options.text_fallback {
        let parse = crate::text::parse::ParseOptions {
            formats: crate::call::FormatSet::ALL,
            tools: options.tools,
            validate: options.validate,
            unknown: options.unknown,
            repair: false,
        };
        return walk::fallback(ctx, &found.text, &parse);
    }
    match options.tools {
        Some(tools) => check::calls(ctx, response, found.calls, tools, options),
        None => Ok(found.calls.into_iter().map(|c| c.call).collect()),
    }
}

/// `response.error` when the response is an error the API returned: an object with an `error`
/// member ([`walk::api_error`]), on its own or as an item of an array (a stream that ended with
/// an error event).
fn api_errors(ctx: &Source<'_>, value: &Value) -> Result<(), ParseError> {
    let error_at = |o: &Object, at: &walk::At<'_>| match walk::api_error(o) {
        Some(e) => Err(walk::api_error_to_parse_error(ctx, e, &at.key("error"))),
        None => Ok(()),
    };
    match value {
        Value::Object(o) => error_at(o, &ROOT),
        Value::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| match item {
            Value::Object(o) => error_at(o, &ROOT.index(i)),
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn utf8_text_accepts_utf8_and_positions_the_first_invalid_byte() {
        assert_eq!(utf8_text("{\"ü\": \"😀\"}".as_bytes()), Ok("{\"ü\": \"😀\"}"));
        assert_eq!(utf8_text(b""), Ok(""));

        // A byte that cannot begin a character, after multi-byte characters: offset in bytes.
        let mut bytes = "{\"ü😀\": \"".as_bytes().to_vec();
        let at = bytes.len();
        bytes.extend_from_slice(b"\xFF\"}");
        let err = utf8_text(&bytes).unwrap_err();
        assert_eq!((err.code, err.offset), (ErrorCode::JsonInvalidUtf8, at));
        assert_eq!(err.code.as_str(), "json.invalid_utf8");
        assert!(err.message.contains("0xFF"), "{}", err.message);

        // A truncated sequence followed by ASCII: at its first byte.
        let err = utf8_text(b"[\"\xE2\x82x\"]").unwrap_err();
        assert_eq!((err.code, err.offset), (ErrorCode::JsonInvalidUtf8, 2));

        // A surrogate encoded in UTF-8 (CESU): 0xED can begin a character, 0xA0 cannot continue
        // it. The error is where the invalid sequence starts; the message names the wrong byte.
        let err = utf8_text(b"{\xED\xA0\x80}").unwrap_err();
        assert_eq!(err.offset, 1);
        assert!(
            err.message
                .contains("byte 0xA0 at offset 2 cannot continue the character that byte 0xED at offset 1"),
            "{}",
            err.message
        );
        // An overlong encoding: 0xC0 never begins a character.
        let err = utf8_text(b"{\xC0\xAF}").unwrap_err();
        assert_eq!(err.offset, 1);
        assert!(
            err.message.contains("byte 0xC0 at offset 1 does not begin"),
            "{}",
            err.message
        );
        // A truncated sequence followed by ASCII: the ASCII byte cannot continue it.
        let err = utf8_text(b"[\"\xE2\x82x\"]").unwrap_err();
        assert!(
            err.message.contains("byte 0x78 at offset 4 cannot continue"),
            "{}",
            err.message
        );
        // Above U+10FFFF: 0xF4 0x90.
        let err = utf8_text(b"\xF4\x90\x80\x80").unwrap_err();
        assert!(
            err.message.contains("byte 0x90 at offset 1 cannot continue"),
            "{}",
            err.message
        );

        // Input ending inside a character: at the start of that character.
        let err = utf8_text(b"{\"a\": \"\xF0\x9F\x98").unwrap_err();
        assert_eq!((err.code, err.offset), (ErrorCode::JsonInvalidUtf8, 7));
        assert!(err.message.contains("ends inside a character"), "{}", err.message);

        // The valid text then parses with offsets that are byte offsets into the input.
        let text = utf8_text("{\"ü\": }".as_bytes()).unwrap();
        let err = parse_response(text, None, false).unwrap_err();
        assert_eq!(
            (err.code, err.offset),
            (ErrorCode::JsonUnexpectedToken, "{\"ü\": ".len())
        );
    }
}
