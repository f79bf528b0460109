//! The one error type of beacon: a stable string code, a message, and the byte offset of the
//! offending character in the caller's input.

use std::fmt;

/// Why parsing failed. Each variant has a stable string code ([`ErrorCode::as_str`]) that callers
/// may match on; the codes never change meaning between releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `tool_call.not_found`: no tier found a tool call in the text.
    NotFound,
    /// `tool_call.multiple`: `parse_tool_call` found more than one call.
    Multiple,
    /// `tool_call.unrecognized`: tagged content (or a value that claims to be a call) is not a
    /// call shape.
    Unrecognized,
    /// `tool_call.invalid_name`: the name is empty, not a string, or not a valid identifier.
    InvalidName,
    /// `tool_call.invalid_arguments`: the arguments are not an object, or an arguments string is
    /// not a JSON object.
    InvalidArguments,
    /// `tool_call.ambiguous_arguments`: more than one of `arguments`, `parameters`, `input`, `args`.
    AmbiguousArguments,
    /// `tool_call.positional_argument`: a positional argument in call syntax, `f(q=1, 2)`.
    PositionalArgument,
    /// `tool_call.duplicate_argument`: the same argument twice, `f(q=1, q=2)`.
    DuplicateArgument,
    /// `tool_call.unclosed`: the text ends inside a call: a tag, parenthesis or string that is
    /// never closed; or a tagged value was not closed before the next parameter's opener began
    /// inside it (at the value's opening tag).
    Unclosed,
    /// `tool_call.syntax`: malformed call syntax or tag structure (a token other than the one the
    /// grammar allows at that point).
    Syntax,
    /// `tool_call.invalid_literal`: a call-syntax value that is not a literal (`f(q=x)`), or a
    /// malformed string or number literal.
    InvalidLiteral,
    /// `tool_call.too_deep`: call-syntax literals nested deeper than [`crate::MAX_DEPTH`].
    CallTooDeep,
    /// `tool_call.unknown_tool`: with a tool list, a tagged call names a tool that is not in it
    /// (at the name).
    UnknownTool,
    /// `tool_call.schema`: with a tool list, an argument fits none of the types its schema allows,
    /// or the arguments violate the tool's schema; [`ParseError::path`] is the JSON pointer of the
    /// offending value in the arguments, and the message names the schema keyword that failed.
    Schema,
    /// `json.unexpected_token`: a character that cannot start or continue the JSON value here.
    JsonUnexpectedToken,
    /// `json.unexpected_end`: the input ends inside a JSON value.
    JsonUnexpectedEnd,
    /// `json.invalid_string`: a raw control character (U+0000–U+001F) inside a JSON string.
    JsonInvalidString,
    /// `json.invalid_escape`: an escape sequence JSON does not define.
    JsonInvalidEscape,
    /// `json.invalid_unicode`: a `\u` escape that is not four hex digits or is a lone surrogate.
    JsonInvalidUnicode,
    /// `json.invalid_number`: a number JSON does not allow (`01`, `1.`, `.5`, `+1`), or one too
    /// large for a 64-bit float.
    JsonInvalidNumber,
    /// `json.duplicate_key`: the same key twice in one object.
    JsonDuplicateKey,
    /// `json.too_deep`: arrays and objects nested deeper than [`crate::MAX_DEPTH`].
    JsonTooDeep,
    /// `json.invalid_utf8`: a response given as bytes is not valid UTF-8 (at the first byte that
    /// does not begin a valid character, or at the end when the input stops inside one); see
    /// [`crate::utf8_text`].
    JsonInvalidUtf8,
    /// `result.missing_field`: a tool result lacks a field the provider requires (the call id, or
    /// the tool name), so `format_results` cannot write it.
    ResultMissingField,
    /// `result.unsupported`: `format_results` cannot write results for this provider.
    ResultUnsupported,
    /// `response.error`: the provider response is an error the API returned (an object with an
    /// `error` member, on its own or among streamed chunks) instead of a model's answer; the
    /// message carries the API's own message.
    ResponseError,
    /// `template.render`: a chat template cannot be rendered (a syntax error, an undefined
    /// function, a `raise_exception` call); the message gives the template's line. At position 0.
    TemplateRender,
    /// `template.no_tool_calls`: the chat template renders no tool calls (it has no branch for an
    /// assistant message's `tool_calls`), so no format can be inferred from it. At position 0.
    TemplateNoToolCalls,
    /// `template.ambiguous`: the renders of the probe conversations allow two readings of the
    /// format; the message names both. At position 0.
    TemplateAmbiguous,
    /// `template.limit`: rendering a chat template used up its fuel, nested too deep, or wrote
    /// more than the output limit; the message says which. At position 0.
    TemplateLimit,
    /// `input.too_large`: the input needs more memory than the runtime allows (the WebAssembly
    /// build's linear memory, at most 4 GiB, or a lower limit set for testing).
    InputTooLarge,
    /// `internal`: a bug in beacon. Reported instead of crashing the host process.
    Internal,
}

impl ErrorCode {
    /// Every code, in documentation order.
    pub const ALL: [ErrorCode; 32] = [
        ErrorCode::NotFound,
        ErrorCode::Multiple,
        ErrorCode::Unrecognized,
        ErrorCode::InvalidName,
        ErrorCode::InvalidArguments,
        ErrorCode::AmbiguousArguments,
        ErrorCode::PositionalArgument,
        ErrorCode::DuplicateArgument,
        ErrorCode::Unclosed,
        ErrorCode::Syntax,
        ErrorCode::InvalidLiteral,
        ErrorCode::CallTooDeep,
        ErrorCode::UnknownTool,
        ErrorCode::Schema,
        ErrorCode::JsonUnexpectedToken,
        ErrorCode::JsonUnexpectedEnd,
        ErrorCode::JsonInvalidString,
        ErrorCode::JsonInvalidEscape,
        ErrorCode::JsonInvalidUnicode,
        ErrorCode::JsonInvalidNumber,
        ErrorCode::JsonDuplicateKey,
        ErrorCode::JsonTooDeep,
        ErrorCode::JsonInvalidUtf8,
        ErrorCode::ResultMissingField,
        ErrorCode::ResultUnsupported,
        ErrorCode::ResponseError,
        ErrorCode::TemplateRender,
        ErrorCode::TemplateNoToolCalls,
        ErrorCode::TemplateAmbiguous,
        ErrorCode::TemplateLimit,
        ErrorCode::InputTooLarge,
        ErrorCode::Internal,
    ];

    /// The stable string code, e.g. `"tool_call.not_found"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "tool_call.not_found",
            ErrorCode::Multiple => "tool_call.multiple",
            ErrorCode::Unrecognized => "tool_call.unrecognized",
            ErrorCode::InvalidName => "tool_call.invalid_name",
            ErrorCode::InvalidArguments => "tool_call.invalid_arguments",
            ErrorCode::AmbiguousArguments => "tool_call.ambiguous_arguments",
            ErrorCode::PositionalArgument => "tool_call.positional_argument",
            ErrorCode::DuplicateArgument => "tool_call.duplicate_argument",
            ErrorCode::Unclosed => "tool_call.unclosed",
            ErrorCode::Syntax => "tool_call.syntax",
            ErrorCode::InvalidLiteral => "tool_call.invalid_literal",
            ErrorCode::CallTooDeep => "tool_call.too_deep",
            ErrorCode::UnknownTool => "tool_call.unknown_tool",
            ErrorCode::Schema => "tool_call.schema",
            ErrorCode::JsonUnexpectedToken => "json.unexpected_token",
            ErrorCode::JsonUnexpectedEnd => "json.unexpected_end",
            ErrorCode::JsonInvalidString => "json.invalid_string",
            ErrorCode::JsonInvalidEscape => "json.invalid_escape",
            ErrorCode::JsonInvalidUnicode => "json.invalid_unicode",
            ErrorCode::JsonInvalidNumber => "json.invalid_number",
            ErrorCode::JsonDuplicateKey => "json.duplicate_key",
            ErrorCode::JsonTooDeep => "json.too_deep",
            ErrorCode::JsonInvalidUtf8 => "json.invalid_utf8",
            ErrorCode::ResultMissingField => "result.missing_field",
            ErrorCode::ResultUnsupported => "result.unsupported",
            ErrorCode::ResponseError => "response.error",
            ErrorCode::TemplateRender => "template.render",
            ErrorCode::TemplateNoToolCalls => "template.no_tool_calls",
            ErrorCode::TemplateAmbiguous => "template.ambiguous",
            ErrorCode::TemplateLimit => "template.limit",
            ErrorCode::InputTooLarge => "input.too_large",
            ErrorCode::Internal => "internal",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parse failure: what went wrong ([`ParseError::code`]), a message for people, and where.
///
/// `offset` is a byte offset into the text the caller passed in (never into an inner substring
/// such as a decoded arguments string); [`locate`] turns it into the caller's own units and a
/// 1-based line and column.
#[derive(Debug, Clone)]
pub struct ParseError {
    pub code: ErrorCode,
    pub message: String,
    pub offset: usize,
    /// For `tool_call.schema`: the JSON pointer (RFC 6901) of the offending value inside the
    /// call's arguments (`""` for the arguments object itself, `/todos/1/status` deeper). `None`
    /// for every other error.
    pub path: Option<String>,
    /// How far the parser read before it failed, when that is past `offset`: an error placed at
    /// an opening tag that the parser read beyond (a tagged value that was not closed). The
    /// scanner, which reads on after a call that fails inside reasoning, resumes there, so that
    /// no text is read twice. Not part of the error's identity (equality ignores it).
    pub(crate) read_to: Option<usize>,
    /// How to mend this error when the caller asks for repairs (see [`Repair`](crate::Repair)): only a
    /// raising site that knows more than the error's code and place sets it.
    pub(crate) fix: Option<Box<crate::repair::Fix>>,
    /// A mend that needs more reading than the error's raising site does (tried readings of a
    /// string, a set's extent), worked out only when the caller asks for repairs
    /// ([`crate::repair::Mend`]).
    pub(crate) mend: Option<Box<crate::repair::Mend>>,
}

/// Two errors are equal when they say the same thing at the same place; how far the parser
/// read is bookkeeping.
impl PartialEq for ParseError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
            && self.offset == other.offset
            && self.message == other.message
            && self.path == other.path
    }
}

impl Eq for ParseError {}

impl ParseError {
    pub fn new(code: ErrorCode, offset: usize, message: impl Into<String>) -> Self {
        ParseError {
            code,
            message: message.into(),
            offset,
            path: None,
            read_to: None,
            fix: None,
            mend: None,
        }
    }

    /// Whether the error only says that the text (of `len` bytes) ended inside a call: it stands
    /// at the end of the text. Such a call is cut off, and no repair mends it.
    pub fn truncated(&self, len: usize) -> bool {
        self.code != ErrorCode::NotFound && self.offset >= len
    }

    #[must_use]
    pub(crate) fn fix(mut self, fix: crate::repair::Fix) -> Self {
        self.fix = Some(Box::new(fix));
        self
    }

    #[must_use]
    pub(crate) fn mend(mut self, mend: crate::repair::Mend) -> Self {
        self.mend = Some(Box::new(mend));
        self
    }

    /// The error of a piece of text that starts at `by` in the text, in the text's offsets.
    pub(crate) fn shift(&mut self, by: usize) {
        if let Some(mend) = &mut self.mend {
            mend.shift(by);
        }
        self.offset += by;
        self.read_to = self.read_to.map(|r| r + by);
        if let Some(fix) = &mut self.fix {
            fix.at += by;
            fix.range = fix.range.start + by..fix.range.end + by;
        }
    }

    /// The error, with the parser having read up to `end` (see [`ParseError::read_to`]).
    #[must_use]
    pub(crate) fn read_to(mut self, end: usize) -> Self {
        self.read_to = Some(end);
        self
    }

    /// The error with a JSON pointer into the call's arguments (see [`ParseError::path`]).
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The error as `code at line L, column C: message`, with columns counted in `unit`.
    pub fn describe(&self, input: &str, unit: Unit) -> String {
        let loc = locate(input, self.offset, unit);
        format!(
            "{} at line {}, column {}: {}",
            self.code, loc.line, loc.column, self.message
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}: {}", self.code, self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

/// `result` as an entry point returns it for `input`: in debug builds (and so in every test and
/// fuzz run) an error's offset must be a character boundary inside `input`, its end included.
/// Every entry point that parses a caller's text passes its answer through here, so an offset
/// that strays is a failed assertion where it is made, never a position a binding has to clamp.
pub(crate) fn within<T>(input: &str, result: Result<T, ParseError>) -> Result<T, ParseError> {
    if let Err(e) = &result {
        debug_assert!(
            e.offset <= input.len() && input.is_char_boundary(e.offset),
            "error offset {} is not a character boundary of the {}-byte input: {e}",
            e.offset,
            input.len()
        );
    }
    result
}

/// The unit a caller counts string positions in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// UTF-8 bytes (Rust `&str` indices).
    Bytes,
    /// Unicode scalar values (Python `str` indices).
    CodePoints,
    /// UTF-16 code units (JavaScript string indices).
    Utf16,
}

/// A position in the caller's units: 0-based `offset`, 1-based `line` and `column`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

fn count_units(s: &str, unit: Unit) -> usize {
    match unit {
        Unit::Bytes => s.len(),
        Unit::CodePoints => s.chars().count(),
        Unit::Utf16 => s.chars().map(char::len_utf16).sum(),
    }
}

/// Converts a byte offset into `input` to `unit`s, with a 1-based line (lines end at `\n`) and a
/// 1-based column counted in the same unit. An offset past the end or inside a character is
/// clamped down to the nearest character boundary.
pub fn locate(input: &str, byte_offset: usize, unit: Unit) -> Location {
    let mut at = byte_offset.min(input.len());
    while !input.is_char_boundary(at) {
        at -= 1;
    }
    let before = &input[..at];
    let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
    let line = 1 + memchr::memchr_iter(b'\n', before.as_bytes()).count();
    Location {
        offset: count_units(before, unit),
        line,
        column: 1 + count_units(&before[line_start..], unit),
    }
}
