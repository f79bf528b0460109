//! Leading calls: a message that *begins* with a JSON call or a call-syntax call (after
//! whitespace and reasoning blocks), the way Llama 3 JSON, xLAM lists and pythonic lists are
//! written, is a tool-call message. Such a call is a claim, like a tagged call: it counts with the
//! tagged calls (tier 1), in text order, and must parse. Calls that follow it directly (after
//! whitespace and at most one `;` or `,`) are leading calls too; the first text that does not
//! begin one ends the run.
//!
//! What begins a leading call: a `{` or `[` that opens a well-formed JSON value of a call shape; a
//! `[` that opens a well-formed list of call-syntax calls (`[f(a=1), g()]`, format `pythonic`); a
//! dotted name directly followed by `(` and then `)` or `identifier=`, and a well-formed call
//! (format `python`); a Functionary v3.2 recipient header whose `>>>` the prompt wrote, `NAME`
//! and a line break, followed by a whole message as it reads after `>>>` (format
//! `functionary_v32`; not when that message is a JSON call shape, which tier 2 reads). Anything
//! else, broken calls included, is left to the tiers as before: a broken call raises when its tier
//! reads it. The content header `all` + line break there is no call, and not content either
//! ([`Lead::Header`]).
//!
//! With the caller's tools (`known`), a leading call to a tool not in the list is no leading
//! call: its text is left to the tiers, which treat it as content.
//!
//! Each answer may be [`Lead::Pending`] while more text may follow (`more`): the text ends
//! before the call, its shape or its end is known.

use crate::call::{Args, Format, FormatSet, Origin, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::formats::functionary::{self, Leading};
use crate::formats::pythonic;
use crate::formats::Calls;
use crate::lex::{dotted_name_end, skip_ws};
use crate::syntax::callsyntax::{arguments_as, is_keyword, keyword_list};
use crate::syntax::plain_shapes;
use crate::syntax::shape::{call_spans, calls_in, Defer, Mode};
use crate::tools::Tools;

/// What stands at a leading position.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lead {
    /// No call begins here.
    None,
    /// More text is needed to tell.
    Pending,
    /// Calls were pushed; the offset after them.
    Calls(usize),
    /// A header that is neither a call nor content ends at this offset (Functionary v3.2's
    /// `all` + line break); what follows is the message's content.
    Header(usize),
}

/// The leading call at `q` (a non-whitespace offset), if one begins there; its calls are pushed
/// to `out`. `more`: the text may grow.
pub(crate) fn lead_at(
    text: &str,
    q: usize,
    formats: FormatSet,
    known: Option<&Tools>,
    more: bool,
    out: &mut Calls<'_>,
) -> Lead {
    let first = out.len();
    let lead = lead_of(text, q, formats, more, out);
    let unknown = known.is_some_and(|tools| out[first..].iter().any(|c| !tools.contains(&c.name)));
    if unknown {
        out.truncate(first);
        return Lead::None;
    }
    lead
}

fn lead_of(text: &str, q: usize, formats: FormatSet, more: bool, out: &mut Calls<'_>) -> Lead {
    let bytes = text.as_bytes();
    match bytes.get(q) {
        Some(b'{' | b'[') => {
            if formats.contains(Format::Json) {
                let defer = out.defer;
                match json_at(text, q, more, defer, out) {
                    Lead::None => {}
                    found => return found,
                }
            }
            if bytes[q] == b'[' && formats.contains(Format::Pythonic) {
                return list_at(text, q, more, out);
            }
            Lead::None
        }
        Some(_) => {
            if formats.contains(Format::FunctionaryV32) {
                match recipient_at(text, q, formats, more, out) {
                    Lead::None => {}
                    found => return found,
                }
            }
            if formats.contains(Format::Python) {
                return call_at(text, q, more, out);
            }
            Lead::None
        }
        None => Lead::None,
    }
}

/// A Functionary v3.2 message at `q` whose header's `>>>` the prompt wrote.
fn recipient_at(text: &str, q: usize, formats: FormatSet, more: bool, out: &mut Vec<ToolCall>) -> Lead {
    let bytes = text.as_bytes();
    match functionary::leading_header(bytes, q, more) {
        Leading::None => return Lead::None,
        Leading::Cut => return Lead::Pending,
        Leading::Content(end) => return Lead::Header(end),
        Leading::Call => {}
    }
    // A JSON call shape after the name is that call, for tier 2 (a fence's language line left
    // without its fence): not a message to a tool named so.
    let body = skip_ws(
        bytes,
        memchr::memchr(b'\n', &bytes[q..]).map_or(bytes.len(), |n| q + n + 1),
    );
    if bytes.get(body) == Some(&b'{') {
        match json_at(text, body, more, Defer::Never, &mut Vec::new()) {
            Lead::None => {}
            Lead::Pending => return Lead::Pending,
            Lead::Calls(_) | Lead::Header(_) => return Lead::None,
        }
    }
    let first = out.len();
    let result = functionary::message(text, q, q, &mut Calls::new(out, Defer::Never));
    match result {
        // Text may still follow a message that runs to the end of the text (not one ended by
        // `<|eot_id|>` or `<|eom_id|>`), which would make it no message.
        Ok(end) if more && end == bytes.len() && !functionary::V32_ENDS.iter().any(|t| text.ends_with(t)) => {
            out.truncate(first);
            Lead::Pending
        }
        Ok(end) if out.len() > first => Lead::Calls(end),
        Ok(_) => Lead::None,
        Err(e) => {
            out.truncate(first);
            let cut = formats.marks().begins_tag(bytes.get(e.offset..).unwrap_or_default());
            if more && (incomplete(&e, bytes.len()) || cut) {
                Lead::Pending
            } else {
                Lead::None
            }
        }
    }
}

/// A JSON value of a call shape at `q`.
fn json_at(text: &str, q: usize, more: bool, defer: Defer<'_>, out: &mut Vec<ToolCall>) -> Lead {
    if let Some(end) = plain_shapes::calls(text, q, Mode::Bare, Format::Json, defer, out) {
        return Lead::Calls(end);
    }
    let (value, end) = match crate::syntax::json::probe_value_at(text, q) {
        Ok(parsed) => parsed,
        Err(offset) if more && offset >= text.len() => return Lead::Pending,
        Err(_) => return Lead::None,
    };
    let spans = call_spans(text, q, end, &value, Mode::Bare);
    match calls_in(text, q, value, Mode::Bare).unwrap_or(None) {
        Some(calls) if !calls.is_empty() => {
            let spans = spans.into_iter().chain(std::iter::repeat(q..end));
            out.extend(
                calls
                    .into_iter()
                    .zip(spans)
                    .map(|(call, span)| call.into_call(Format::Json, span)),
            );
            Lead::Calls(end)
        }
        _ => Lead::None,
    }
}

/// A list of call-syntax calls at `q` (a `[`).
fn list_at(text: &str, q: usize, more: bool, out: &mut Calls<'_>) -> Lead {
    match starts_list(text.as_bytes(), q, more) {
        None => return Lead::Pending,
        Some(false) => return Lead::None,
        Some(true) => {}
    }
    let first = out.len();
    match pythonic::bare_list(text, q, out) {
        Ok(end) => Lead::Calls(end),
        Err(e) => {
            out.truncate(first);
            if more && incomplete(&e, text.len()) {
                Lead::Pending
            } else {
                Lead::None
            }
        }
    }
}

/// A call-syntax call at `q`.
fn call_at(text: &str, q: usize, more: bool, out: &mut Calls<'_>) -> Lead {
    let bytes = text.as_bytes();
    let open = dotted_name_end(bytes, q);
    if open == q {
        return Lead::None;
    }
    if more && (open == bytes.len() || (bytes[open] == b'.' && open + 1 == bytes.len())) {
        return Lead::Pending; // the name may go on
    }
    if bytes.get(open) != Some(&b'(') || text[q..open].split('.').any(is_keyword) {
        return Lead::None;
    }
    match keyword_list(bytes, open, more) {
        None => return Lead::Pending,
        Some(false) => return Lead::None,
        Some(true) => {}
    }
    match arguments_as(text, open, out.defer) {
        // `f(a=1)(` calls the result, which raises: the end of the text may hide that `(`.
        Ok((_, _, end)) if more && end == bytes.len() => Lead::Pending,
        Ok((_, _, end)) if bytes.get(end) == Some(&b'(') => Lead::None,
        Ok((arguments, deferred, end)) => {
            let origin = Origin::At {
                name: q,
                args: Args::Call(open),
            };
            let mut call = ToolCall::new(text[q..open].to_string(), arguments, Format::Python, q..end);
            call.deferred = deferred;
            out.push(call.with_origin(origin));
            Lead::Calls(end)
        }
        Err(e) if more && incomplete(&e, bytes.len()) => Lead::Pending,
        Err(_) => Lead::None,
    }
}

/// Whether a list of calls starts at the `[` at `p`: `[`, whitespace, then a call by the
/// recognition rule; `None` while the text ends before that is known.
fn starts_list(bytes: &[u8], p: usize, more: bool) -> Option<bool> {
    let q = skip_ws(bytes, p + 1);
    let name_to = dotted_name_end(bytes, q);
    if more && (q == bytes.len() || name_to == bytes.len() || (bytes[name_to] == b'.' && name_to + 1 == bytes.len())) {
        return None;
    }
    if name_to == q || bytes.get(name_to) != Some(&b'(') {
        return Some(false);
    }
    keyword_list(bytes, name_to, more)
}

/// Whether an error only says that the text ends too early: its offset is the end of the text,
/// or it is `tool_call.unclosed`.
pub(crate) fn incomplete(e: &ParseError, len: usize) -> bool {
    e.offset >= len || e.code == ErrorCode::Unclosed
}
