//! gpt-oss Harmony: messages `<|start|>ROLE<|channel|>CHANNEL<|message|>BODY`, each ended by
//! `<|end|>`, `<|call|>` or `<|return|>`.
//!
//! The prompt usually ends with `<|start|>assistant`, so the output may begin at `<|channel|>`.
//! Both `<|start|>` and `<|channel|>` start a message here.
//!
//! Header: after `<|start|>`, a role, then optionally ` to=RECIPIENT`; then optionally
//! `<|channel|>` and a channel name, followed by any of ` to=RECIPIENT` and a content type
//! (`json`, `<|constrain|>json`, ` code`), then `<|message|>`. Fields are separated by
//! whitespace; a recipient or content type given twice is `tool_call.syntax`, as is any other
//! token in the header. Text that begins ` to=RECIPIENT<|channel|>…` (the prompt wrote
//! `<|start|>assistant`) has its recipient on the role: only whitespace may precede it.
//!
//! A message whose recipient is `functions.NAME` is a call of `NAME` (an empty `NAME` is
//! `tool_call.invalid_name`), whatever its channel. Its body is the arguments: a JSON object,
//! whatever the content type (any other body is `tool_call.invalid_arguments`, broken JSON a
//! `json.*` error). Whitespace and `<|call|>` follow; `<|call|>` may be missing only at the very
//! end of the text. Parallel calls are successive messages.
//!
//! Every other message is not a call and is skipped up to its end token (or up to the
//! `<|start|>` or `<|channel|>` that begins the next message, or the end of the text): the
//! `final` channel and `commentary` without a recipient (a preamble) are content; a recipient
//! other than `functions.*` is a built-in tool (`browser.search`, `python`) or, in a rendered
//! conversation, a tool's answer (`to=assistant`), none of which are function calls. A message
//! without a recipient that ends with `<|call|>` is `tool_call.syntax` at `<|call|>`: it claims a
//! call it does not address. An `analysis` message without a recipient is reasoning, which the
//! scanner reads (`crate::text::reasoning`); after `<|start|>assistant` the parser stops before it.
//!
//! The text ending inside a header, right after `<|message|>` of a call, or partway through
//! `<|call|>` is `tool_call.unclosed`; inside the JSON, `json.unexpected_end`.

use super::{Calls, LeadScan};
use crate::call::{Args, Format, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, find, is_ws, skip_ws};
use crate::syntax::shape::Defer;
use crate::value::Value;

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const MESSAGE: &str = "<|message|>";
const CONSTRAIN: &str = "<|constrain|>";
const CALL: &str = "<|call|>";
const END: &str = "<|end|>";
const RETURN: &str = "<|return|>";
/// The open tag of the reasoning block (`crate::text::reasoning`).
const ANALYSIS: &str = "<|channel|>analysis<|message|>";
const TO: &str = "to=";
const FUNCTIONS: &str = "functions.";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Harmony],
    markers: &[START, CHANNEL],
    tokens: &[MESSAGE, CONSTRAIN, CALL, END, RETURN],
    closers: &[CALL, END, RETURN],
    json_bodies: &[],
    lead: Some(lead),
    parse: super::Parse::Fn(parse),
};

/// What a message header says.
#[derive(Default)]
struct Header<'t> {
    /// The recipient and the offset of its first byte.
    recipient: Option<(&'t str, usize)>,
    content_type: Option<&'t str>,
}

/// Parses the message whose `<|start|>` or `<|channel|>` is at `start`. Pushes its call, if it is
/// one, and returns the offset after the message.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let mut header = Header::default();
    let mut span_start = start;
    let mut p = start;
    if at(bytes, start, START) {
        let (_role, role_end) = word(text, start + START.len(), "a role after `<|start|>`")?;
        p = fields(text, role_end, &mut header, false)?;
        if header.recipient.is_none() && at(bytes, p, ANALYSIS) {
            // Reasoning: the scanner reads it from its open tag.
            return Ok(p);
        }
    } else if let Some((lead, recipient, recipient_at)) = leading_recipient(text, start) {
        span_start = lead;
        header.recipient = Some((recipient, recipient_at));
    }
    if at(bytes, p, CHANNEL) {
        let (_channel, channel_end) = word(text, p + CHANNEL.len(), "a channel name after `<|channel|>`")?;
        p = fields(text, channel_end, &mut header, true)?;
    }
    let body = p + MESSAGE.len();
    match header.recipient {
        Some((recipient, recipient_at)) if recipient.starts_with(FUNCTIONS) => {
            let name_at = recipient_at + FUNCTIONS.len();
            let name = &recipient[FUNCTIONS.len()..];
            let (call, end) = call(text, span_start, name, name_at, body, out.defer)?;
            out.push(call);
            Ok(end)
        }
        recipient => skip_message(text, body, recipient.is_some()),
    }
}

/// The header fields from `p` on: ` to=RECIPIENT`, and after a channel name also a content type.
/// Returns the offset of `<|message|>`, or after a role also of `<|channel|>`.
fn fields<'t>(text: &'t str, mut p: usize, header: &mut Header<'t>, after_channel: bool) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    loop {
        p = skip_ws(bytes, p);
        if p == bytes.len() {
            return Err(unclosed(text, "a message header"));
        }
        if at(bytes, p, MESSAGE) || (!after_channel && at(bytes, p, CHANNEL)) {
            return Ok(p);
        }
        let field = p;
        if at(bytes, p, TO) {
            let (recipient, end) = word(text, p + TO.len(), "a recipient after `to=`")?;
            if header.recipient.is_some() {
                return Err(syntax(field, "a message has one recipient; found a second `to=`"));
            }
            header.recipient = Some((recipient, p + TO.len()));
            p = end;
            continue;
        }
        let type_at = if at(bytes, p, CONSTRAIN) {
            p + CONSTRAIN.len()
        } else if bytes[p] == b'<' {
            return Err(header_token(text, p));
        } else {
            p
        };
        let (content_type, end) = word(text, type_at, "a content type after `<|constrain|>`")?;
        if !after_channel {
            if end == bytes.len() {
                return Err(unclosed(text, "a message header"));
            }
            return Err(syntax(
                field,
                "expected ` to=…`, `<|channel|>` or `<|message|>` after the role",
            ));
        }
        if header.content_type.is_some() {
            return Err(syntax(field, "a message has one content type; found a second"));
        }
        header.content_type = Some(content_type);
        p = end;
    }
}

/// A role, channel, recipient or content type at `p`: the bytes up to whitespace or `<`.
/// Returns it and the offset after it.
fn word<'t>(text: &'t str, p: usize, what: &str) -> Result<(&'t str, usize), ParseError> {
    let bytes = text.as_bytes();
    let len = bytes[p..]
        .iter()
        .position(|&b| is_ws(b) || b == b'<')
        .unwrap_or(bytes.len() - p);
    if len == 0 {
        if p == bytes.len() {
            return Err(unclosed(text, "a message header"));
        }
        return Err(syntax(p, &format!("expected {what}")));
    }
    Ok((&text[p..p + len], p + len))
}

/// The error for a `<` in a header that starts none of its tokens.
fn header_token(text: &str, p: usize) -> ParseError {
    let rest = &text.as_bytes()[p..];
    if [MESSAGE, CONSTRAIN, CHANNEL]
        .iter()
        .any(|t| t.as_bytes().starts_with(rest))
    {
        return unclosed(text, "a message header");
    }
    syntax(p, "expected `<|message|>` to end the message header")
}

/// For a `<|channel|>` at `start`: the recipient the text opens with, ` to=RECIPIENT` right
/// before it, when the prompt wrote `<|start|>assistant`. Returns the offset of `to=`, the
/// recipient and its offset.
fn leading_recipient(text: &str, start: usize) -> Option<(usize, &str, usize)> {
    let bytes = text.as_bytes();
    let lead = bytes[..start]
        .iter()
        .rposition(|&b| is_ws(b) || b == b'<')
        .map_or(0, |i| i + 1);
    let recipient = text[lead..start].strip_prefix(TO)?;
    let only_space_before = bytes[..lead].iter().rev().all(|&b| is_ws(b));
    (only_space_before && !recipient.is_empty()).then_some((lead, recipient, lead + TO.len()))
}

/// The lead of a `<|channel|>` that opens the text, for a growing text (see
/// [`crate::formats::Family::lead`]): ` to=RECIPIENT` with only whitespace before it, which
/// [`leading_recipient`] puts into the call's span. Holds the text from `to=` while it may still
/// become that lead; once it cannot, or once the scanner has decided its `<|channel|>`, no lead
/// can begin any more.
fn lead(bytes: &[u8], scan: &mut LeadScan) {
    if scan.over || scan.settled {
        scan.over = true;
        scan.hold = None;
        return;
    }
    let h = if let Some(h) = scan.hold {
        h
    } else {
        let p = skip_ws(bytes, scan.checked);
        scan.checked = p;
        if p == bytes.len() {
            return;
        }
        scan.hold = Some(p);
        p
    };
    let rest = &bytes[h..];
    let alive = if rest.len() < TO.len() {
        TO.as_bytes().starts_with(rest)
    } else if rest.starts_with(TO.as_bytes()) {
        let mut q = scan.checked.max(h + TO.len());
        while q < bytes.len() && !is_ws(bytes[q]) && bytes[q] != b'<' {
            q += 1;
        }
        scan.checked = q;
        let tail = &bytes[q..];
        if tail.is_empty() {
            true
        } else if q > h + TO.len() && tail.starts_with(CHANNEL.as_bytes()) {
            scan.marker = Some(q);
            true
        } else {
            q > h + TO.len() && CHANNEL.as_bytes().starts_with(tail)
        }
    } else {
        false
    };
    if !alive {
        scan.hold = None;
        scan.over = true;
    }
}

/// The call `NAME` whose body starts at `body` (its arguments built as `defer` says), and the
/// offset after its `<|call|>`.
fn call(
    text: &str,
    span_start: usize,
    name: &str,
    name_at: usize,
    body: usize,
    defer: Defer<'_>,
) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    if name.is_empty() {
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            name_at,
            "the recipient `functions.` names no function",
        ));
    }
    let q = skip_ws(bytes, body);
    if q == bytes.len() {
        return Err(unclosed(text, "the call, before its arguments"));
    }
    if bytes[q] != b'{' {
        return Err(ParseError::new(
            ErrorCode::InvalidArguments,
            q,
            "the body of a call to `functions.…` must be a JSON object of arguments",
        ));
    }
    let (arguments, deferred, json_end) = super::json_arguments_as(text, q, defer, || {
        let (value, end) = crate::syntax::json::parse_value_at(text, q)?;
        let Value::Object(arguments) = value else {
            unreachable!("a JSON value that starts with `{{` is an object")
        };
        Ok((arguments, end))
    })?;
    let r = skip_ws(bytes, json_end);
    let end = if at(bytes, r, CALL) {
        r + CALL.len()
    } else if r == bytes.len() {
        r
    } else if CALL.as_bytes().starts_with(&bytes[r..]) {
        return Err(unclosed(text, "`<|call|>`"));
    } else {
        return Err(syntax(r, "expected `<|call|>` after the arguments"));
    };
    let origin = Origin::At {
        name: name_at,
        args: Args::Json(q),
    };
    let mut call = ToolCall::new(name.to_string(), arguments, Format::Harmony, span_start..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// Skips the body of a message that is not a call, from `body` to after its end token (or to
/// the next message's `<|start|>` or `<|channel|>`, or the end of the text).
fn skip_message(text: &str, body: usize, has_recipient: bool) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    let mut i = body;
    while let Some(k) = find(&bytes[i..], "<|") {
        let t = i + k;
        if at(bytes, t, END) {
            return Ok(t + END.len());
        }
        if at(bytes, t, RETURN) {
            return Ok(t + RETURN.len());
        }
        if at(bytes, t, CALL) {
            if has_recipient {
                return Ok(t + CALL.len());
            }
            return Err(syntax(
                t,
                "`<|call|>` ends a message without a recipient: a call needs `to=functions.NAME`",
            ));
        }
        if at(bytes, t, START) || at(bytes, t, CHANNEL) {
            return Ok(t);
        }
        i = t + 2;
    }
    Ok(bytes.len())
}

fn unclosed(text: &str, inside: &str) -> ParseError {
    ParseError::new(
        ErrorCode::Unclosed,
        text.len(),
        format!("the text ends inside {inside}"),
    )
}

fn syntax(at: usize, message: &str) -> ParseError {
    ParseError::new(ErrorCode::Syntax, at, message)
}
