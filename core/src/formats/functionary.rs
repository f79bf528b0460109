//! Functionary v3.2: recipient headers `>>>NAME\n` each followed by that recipient's message:
//!
//! ```text
//! all
//! Let me check.>>>get_weather
//! {"city": "Paris"}>>>get_time
//! {}
//! ```
//!
//! A header is `>>>`, a name (ASCII letters, digits, `_`, `-`, `.`), then a line break. `>>>`
//! followed by anything else (`>>> import os`, `>>>x = 1`) is prose. The recipient `all` means
//! content: no call. The tool `python` takes raw code, which runs up to the next header,
//! `<|eot_id|>` or `<|eom_id|>` (code that runs to the end of the text is `tool_call.unclosed`:
//! any prefix of it would read as code too); it becomes the call `python` with the
//! arguments `{"code": CODE}` (an empty body is `tool_call.invalid_arguments`). Any other
//! recipient's message is a JSON object, its arguments; after it only whitespace, the next
//! `>>>`, `<|eot_id|>` or `<|eom_id|>` (consumed) or the end of the text may follow, else
//! `tool_call.syntax`. The text ending inside a header is `tool_call.unclosed`.
//!
//! The header `>>>all` + line break is not content (the text after it is).
//!
//! The chat template ends the prompt with `>>>`, so a model's output starts with the first
//! recipient's name, without `>>>`: at the start of a message (the leading position of
//! [`crate::text::lead`], after whitespace and reasoning blocks) `NAME\n` is read as that header
//! when a whole, well-formed message follows, as it would after `>>>` ([`leading_header`]). So
//! `get_weather\n{"city": "Paris"}` is a call, and a message that starts with `all\n` has those
//! four bytes taken out of its content. It is a leading call: a message that does not read as one
//! (`Note\n{broken`) is left to the other tiers, and so is a JSON call shape after the name
//! (`json\n{"name": "f", "arguments": {}}`, a fenced block whose fence was lost), which tier 2
//! reads as that call.
//!
//! Functionary v3.1 (`<function=NAME>{json}</function>`) is read with Qwen3-Coder's `<function=`
//! marker, in [`super::qwen3_coder`]; this module is about v3.2 only.

use memchr::memmem;

use super::Calls;
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws};
use crate::value::Value;

const V32_MARKER: &str = ">>>";
const V32_CONTENT: &str = "all";
const V32_CODE_TOOL: &str = "python";
pub(crate) const V32_ENDS: [&str; 2] = ["<|eot_id|>", "<|eom_id|>"];

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::FunctionaryV32],
    markers: &[V32_MARKER],
    tokens: &V32_ENDS,
    closers: &V32_ENDS,
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse_v32),
};

fn is_v32_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// The end of the recipient name that starts at `name_at` (`name_at` when there is none).
fn v32_name_end(bytes: &[u8], name_at: usize) -> usize {
    let mut i = name_at;
    while i < bytes.len() && is_v32_name_byte(bytes[i]) {
        i += 1;
    }
    i
}

/// Whether a complete header `>>>NAME\n` starts at `pos`.
fn is_v32_header(bytes: &[u8], pos: usize) -> bool {
    let name_at = pos + V32_MARKER.len();
    let name_to = v32_name_end(bytes, name_at);
    at(bytes, pos, V32_MARKER) && name_to > name_at && bytes.get(name_to) == Some(&b'\n')
}

/// Parses the message whose header `>>>` is at `start`; returns the offset after it.
fn parse_v32(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    message(text, start, start + V32_MARKER.len(), out)
}

/// What starts a message whose header has no `>>>` (the prompt wrote it), at a message's start.
pub(crate) enum Leading {
    /// No such header here.
    None,
    /// The text ends inside the name, or right after it: more text tells.
    Cut,
    /// `all` + line break: the header of content, which ends here.
    Content(usize),
    /// A header `NAME` + line break whose message starts here.
    Call,
}

/// The header without `>>>` that the text at `q` may start ([`Leading`]); `more`: the text may
/// grow.
pub(crate) fn leading_header(bytes: &[u8], q: usize, more: bool) -> Leading {
    let name_to = v32_name_end(bytes, q);
    if name_to == q {
        return Leading::None;
    }
    match bytes.get(name_to) {
        None if more => Leading::Cut,
        Some(b'\n') if &bytes[q..name_to] == V32_CONTENT.as_bytes() => Leading::Content(name_to + 1),
        Some(b'\n') => Leading::Call,
        _ => Leading::None,
    }
}

/// Parses the message whose recipient name starts at `name_at`, its header starting at `start`
/// (`>>>`, or the name itself when the prompt wrote the `>>>`); returns the offset after it.
pub(crate) fn message(text: &str, start: usize, name_at: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let name_to = v32_name_end(bytes, name_at);
    if name_to == name_at {
        return Ok(name_at);
    }
    let name = &text[name_at..name_to];
    match bytes.get(name_to) {
        Some(b'\n') => {}
        None if name == V32_CONTENT => return Ok(name_to),
        None => {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                name_to,
                "the text ends inside a `>>>` recipient header",
            ))
        }
        Some(_) => return Ok(name_to),
    }
    let body_at = name_to + 1;
    match name {
        V32_CONTENT => Ok(body_at),
        V32_CODE_TOOL => v32_code_call(text, start, name_at, body_at, out),
        _ => v32_json_call(text, start, name_at, name, body_at, out),
    }
}

/// The call `python` whose raw code starts at `body_at`.
fn v32_code_call(
    text: &str,
    start: usize,
    name_at: usize,
    body_at: usize,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let (body_end, end) = v32_code_end(bytes, body_at);
    let code = &text[body_at..body_end];
    if code.trim().is_empty() {
        if body_end == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends before the code of `python`",
            ));
        }
        return Err(ParseError::new(
            ErrorCode::InvalidArguments,
            body_at,
            "the message to `python` holds no code",
        ));
    }
    if body_end == bytes.len() {
        // Raw code has no end of its own: cut anywhere, it would still read as code.
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            "the code of `python` runs to the end of the text: expected `<|eot_id|>`, `<|eom_id|>` or the next `>>>`",
        ));
    }
    let arguments = vec![("code".to_string(), Value::String(code.to_string()))];
    let origin = Origin::At {
        name: name_at,
        args: Args::Params(vec![Param::new(body_at..body_end, Text::Typed)]),
    };
    let call = ToolCall::new(
        V32_CODE_TOOL.to_string(),
        arguments,
        Format::FunctionaryV32,
        start..body_end,
    );
    out.push(call.with_origin(origin));
    Ok(end)
}

/// Where raw code from `body_at` ends (the next header, end token or the end of the text), and
/// the offset after it (past an end token). Looks no further than the next header.
fn v32_code_end(bytes: &[u8], body_at: usize) -> (usize, usize) {
    let finder = memmem::Finder::new(V32_MARKER);
    let mut header = bytes.len();
    let mut from = body_at;
    while let Some(i) = finder.find(&bytes[from..]) {
        if is_v32_header(bytes, from + i) {
            header = from + i;
            break;
        }
        from += i + 1;
    }
    let mut end = (header, header);
    for token in V32_ENDS {
        if let Some(i) = memmem::find(&bytes[body_at..end.0], token.as_bytes()) {
            end = (body_at + i, body_at + i + token.len());
        }
    }
    end
}

/// The call to `name` whose JSON arguments start at `body_at`.
fn v32_json_call(
    text: &str,
    start: usize,
    name_at: usize,
    name: &str,
    body_at: usize,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let value_at = skip_ws(bytes, body_at);
    if value_at == bytes.len() {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            value_at,
            format!("the text ends before the arguments of {}", crate::lex::quote(name)),
        ));
    }
    let (arguments, deferred, end) = super::json_arguments_as(text, value_at, out.defer, || {
        super::object_arguments(text, value_at, name)
    })?;
    let origin = Origin::At {
        name: name_at,
        args: Args::Json(value_at),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::FunctionaryV32, start..end).with_origin(origin);
    call.deferred = deferred;
    out.push(call);
    let q = skip_ws(bytes, end);
    if q == bytes.len() || at(bytes, q, V32_MARKER) {
        return Ok(q);
    }
    if let Some(token) = V32_ENDS.into_iter().find(|t| at(bytes, q, t)) {
        return Ok(q + token.len());
    }
    let found = text[q..].chars().next().map(crate::lex::show_char).unwrap_or_default();
    Err(ParseError::new(
        ErrorCode::Syntax,
        q,
        format!("expected `>>>`, `<|eot_id|>`, `<|eom_id|>` or the end of the text after the arguments, found {found}"),
    ))
}
