//! Reading the calls of a format spec at its opening marker (the section's start, or the first
//! call's), strictly: each marker the spec has must stand where the spec puts it, white space
//! around markers is free, and text that ends partway through a call is `tool_call.unclosed` at
//! the end (so that a growing text waits for more).
//!
//! - With a section, its calls follow its start, separated by `separator` when the spec has
//!   one, up to `section_end` (JSON call objects without markers of their own may follow each
//!   other with only white space between); a section without an end runs while calls follow. A section with
//!   no call is `tool_call.unrecognized`.
//! - Without one, a region is one call; the next call is found by its own marker.
//! - A name written as text (`tag_json`, `tag_per_argument`) runs up to `name_suffix` on its line
//!   (without one: up to white space, the arguments or the call's end; with the id after the name:
//!   up to the last `name_suffix` before `id_suffix`), trimmed: non-empty and without white space,
//!   else `tool_call.invalid_name`.
//! - A tagged value runs to the first `value_close` after it; a line break at its start is the
//!   template's (left out) when the key's close, as the format writes it, ends with one, and one
//!   at its end when `value_close` begins with one. Inside a value, the next key's tag counts
//!   as markup only whole: where the key's close holds the value's opening tag
//!   (`</arg_key><arg_value>`), a lone `<arg_key>` is text. Without `key_close_non_string`, its text is typed as the
//!   text of the built-in tagged families is (strict JSON first, else a string; a tool's schema
//!   types it instead); with one, the marker says which: a string is its text, anything else
//!   strict JSON.

use super::{ArgumentsEncoding, CallKind, FormatSpec, IdPosition};
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::formats::tagged::{self, Parameters};
use crate::formats::Calls;
use crate::lex::{at, find, skip_ws};
use crate::syntax::json;
use crate::syntax::shape::{Defer, TextValue};
use crate::value::{Object, Value};

/// Reads the region whose opening marker is at `start`; pushes its calls and returns the offset
/// after them.
pub(crate) fn read(
    spec: &'static FormatSpec,
    text: &str,
    start: usize,
    out: &mut Calls<'_>,
) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if spec.section_start.is_empty() {
        let (call, end) = call(spec, text, start, out.defer)?;
        out.push(call);
        return Ok(end);
    }
    let mut p = skip_ws(bytes, expect(text, start, &spec.section_start)?);
    if !spec.section_end.is_empty() && at(bytes, p, &spec.section_end) {
        return Err(ParseError::new(
            ErrorCode::Unrecognized,
            start,
            format!("`{}` holds no call", spec.section_start),
        ));
    }
    loop {
        let (call, end) = call(spec, text, skip_ws(bytes, p), out.defer)?;
        out.push(call);
        p = skip_ws(bytes, end);
        if !spec.section_end.is_empty() && at(bytes, p, &spec.section_end) {
            return Ok(p + spec.section_end.len());
        }
        if let Some(end) = stop_dropped(bytes, p, &spec.section_end) {
            return Ok(end);
        }
        if !spec.separator.is_empty() {
            if at(bytes, p, &spec.separator) {
                p += spec.separator.len();
                continue;
            }
        } else if !spec.call_start.is_empty() && at(bytes, p, &spec.call_start) {
            continue;
        } else if spec.call_start.is_empty()
            && !spec.section_end.is_empty()
            && matches!(spec.kind, CallKind::JsonObject | CallKind::NameKeyedObject)
            && bytes.get(p) == Some(&b'{')
        {
            // JSON objects one after another, with only white space between (MiniMax-M1's
            // one object a line): the section's end says where they stop.
            continue;
        }
        if spec.section_end.is_empty() {
            return Ok(end);
        }
        if spec.section_end.as_bytes().starts_with(&bytes[p..]) {
            return Err(ends_inside(text, "the call"));
        }
        let wanted = if spec.separator.is_empty() {
            &spec.section_end
        } else {
            &spec.separator
        };
        return Err(expected(
            text,
            p,
            wanted,
            &format!("`{}` or `{}`", spec.section_end, wanted),
        ));
    }
}

/// The call at `p` (its `call_start`, when the spec has one; arguments written one per tag built
/// as `defer` says), and the offset after it.
fn call(spec: &'static FormatSpec, text: &str, p: usize, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let from = p;
    let mut p = if spec.call_start.is_empty() {
        p
    } else {
        expect(text, p, &spec.call_start)?
    };
    let mut id = None;
    if spec.id == IdPosition::BeforeName {
        let (written, after) = call_id(spec, text, p)?;
        id = Some(written);
        p = after;
    }
    let (name, name_at, arguments, args, q) = match spec.kind {
        CallKind::JsonObject | CallKind::NameKeyedObject => return object_call(spec, text, from, p),
        CallKind::TagJson => {
            let (name, name_at, q) = name(spec, text, p, b"{")?;
            let q = after_name_id(spec, text, q, &mut id)?;
            let q = skip_ws(bytes, q);
            let (arguments, end) = json_object(text, q)?;
            (name, name_at, arguments, Args::Json(q), end)
        }
        CallKind::CallSyntax => {
            let (name, name_at, open) = word_name(text, p, b'(', crate::lex::dotted_name_end)?;
            let (arguments, end) = crate::syntax::callsyntax::parse_arguments(text, open)?;
            (name, name_at, arguments, Args::Call(open), end)
        }
        CallKind::ObjectLiteral => {
            let (name, name_at, open) = word_name(text, p, b'{', |bytes: &[u8], at: usize| {
                at + bytes[at..]
                    .iter()
                    .take_while(|&&b| crate::syntax::object_literal::is_name_byte(b))
                    .count()
            })?;
            let mut literal = crate::syntax::object_literal::Literal {
                text,
                bytes,
                pos: open,
                depth: 0,
                delimiter: &spec.string_delimiter,
            };
            let arguments = literal.object(true)?;
            let args = Args::Gemma {
                at: open,
                delimiter: &spec.string_delimiter,
            };
            (name, name_at, arguments, args, literal.pos)
        }
        CallKind::TagPerArgument => {
            let (name, name_at, q) = name(spec, text, p, b"")?;
            let q = after_name_id(spec, text, q, &mut id)?;
            let (arguments, deferred, params, end) = parameters(spec, text, q, defer)?;
            let mut call = ToolCall::new(name, arguments, Format::Spec, from..end).with_origin(Origin::At {
                name: name_at,
                args: Args::Params(params),
            });
            call.id = id;
            call.deferred = deferred;
            return Ok((call, end));
        }
    };
    let end = close_call(spec, text, q)?;
    let mut call =
        ToolCall::new(name, arguments, Format::Spec, from..end).with_origin(Origin::At { name: name_at, args });
    call.id = id;
    Ok((call, end))
}

/// A name written as a word from `p` (after white space) whose end `end_of` finds, right before
/// `open`: the name, where it starts and the offset of `open`.
fn word_name(
    text: &str,
    p: usize,
    open: u8,
    end_of: impl Fn(&[u8], usize) -> usize,
) -> Result<(String, usize, usize), ParseError> {
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    let end = end_of(bytes, p);
    if end == bytes.len() {
        return Err(ends_inside(text, "the tool's name"));
    }
    if end == p {
        return Err(ParseError::new(ErrorCode::InvalidName, p, "expected the tool's name"));
    }
    if bytes[end] != open {
        let wanted = format!("`{}` after the tool's name", char::from(open));
        return Err(expected(text, end, "", &wanted));
    }
    Ok((text[p..end].to_owned(), p, end))
}

/// After the name at `q`: the id, when the spec writes it there; the offset after it.
fn after_name_id(spec: &FormatSpec, text: &str, q: usize, id: &mut Option<String>) -> Result<usize, ParseError> {
    if spec.id != IdPosition::AfterName {
        return Ok(q);
    }
    let (written, after) = call_id(spec, text, q)?;
    *id = Some(written);
    Ok(after)
}

/// The call id written from `p` up to `id_suffix` on its line (trimmed, one word), and the offset
/// after the suffix.
fn call_id(spec: &FormatSpec, text: &str, p: usize) -> Result<(String, usize), ParseError> {
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    let line_end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |n| p + n);
    let window = &bytes[p..(line_end + spec.id_suffix.len()).min(bytes.len())];
    let Some(n) = find(window, &spec.id_suffix) else {
        if line_end == bytes.len() {
            return Err(ends_inside(text, "the call's id"));
        }
        return Err(ParseError::new(
            ErrorCode::Syntax,
            line_end,
            format!("expected `{}` after the call's id", spec.id_suffix),
        ));
    };
    let id = text[p..p + n].trim();
    if id.is_empty() || id.contains(char::is_whitespace) {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            p,
            "a call id must be non-empty, without whitespace",
        ));
    }
    Ok((id.to_owned(), p + n + spec.id_suffix.len()))
}

/// `json_object` and `name_keyed_object`: the JSON object at `p` (after white space), then the
/// call's end.
fn object_call(spec: &'static FormatSpec, text: &str, from: usize, p: usize) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let q = skip_ws(bytes, p);
    if q == bytes.len() {
        return Err(ends_inside(text, "the call"));
    }
    if bytes[q] != b'{' {
        return Err(expected(text, q, "{", "a JSON object"));
    }
    let (value, after) = json::parse_value_at(text, q)?;
    let Value::Object(mut object) = value else {
        unreachable!("a JSON value that starts with `{{` is an object")
    };
    let (name, arguments, origin) = if spec.kind == CallKind::NameKeyedObject {
        if object.len() != 1 {
            return Err(ParseError::new(
                ErrorCode::Unrecognized,
                q,
                format!(
                    "expected an object with one key, the tool's name; it has {}",
                    object.len()
                ),
            ));
        }
        let (name, value) = object.remove(0);
        let Value::Object(arguments) = value else {
            let at = json::locate_key(text, q, &[], &name);
            return Err(ParseError::new(
                ErrorCode::InvalidArguments,
                at,
                format!("the arguments of `{name}` are not an object"),
            ));
        };
        let name_at = json::locate_key(text, q, &[], &name);
        let args_at = json::locate_path(text, q, &[crate::syntax::path::Step::Key(name.as_str())]);
        (
            name,
            arguments,
            Origin::At {
                name: name_at,
                args: Args::Json(args_at),
            },
        )
    } else {
        let name = take(&mut object, &spec.name_key);
        let Some(Value::String(name)) = name else {
            let at = if name.is_some() {
                json::locate_path(text, q, &[crate::syntax::path::Step::Key(spec.name_key.as_str())])
            } else {
                q
            };
            return Err(ParseError::new(
                ErrorCode::InvalidName,
                at,
                format!("expected the tool's name as a string under `{}`", spec.name_key),
            ));
        };
        let arguments = match (take(&mut object, &spec.arguments_key), spec.arguments) {
            (None, _) => Object::new(),
            (Some(Value::Object(arguments)), ArgumentsEncoding::Object) => arguments,
            (Some(Value::String(inner)), ArgumentsEncoding::String) => {
                let at = json::locate_path(text, q, &[crate::syntax::path::Step::Key(spec.arguments_key.as_str())]);
                match json::parse_complete(&inner) {
                    Ok(Value::Object(arguments)) => arguments,
                    Ok(_) => return Err(not_an_object(at, &spec.arguments_key)),
                    Err(e) => {
                        let offset = json::raw_offset_in_string(text, at, e.offset);
                        return Err(ParseError::new(ErrorCode::InvalidArguments, offset, e.message));
                    }
                }
            }
            (Some(_), _) => {
                let at = json::locate_path(text, q, &[crate::syntax::path::Step::Key(spec.arguments_key.as_str())]);
                return Err(not_an_object(at, &spec.arguments_key));
            }
        };
        let origin = Origin::Object {
            at: q,
            wrapped: false,
            name: spec.name_key.as_str(),
            args: Some(spec.arguments_key.as_str()),
        };
        if name.is_empty() {
            return Err(ParseError::new(ErrorCode::InvalidName, q, "the tool name is empty"));
        }
        (name, arguments, origin)
    };
    let end = close_call(spec, text, after)?;
    Ok((
        ToolCall::new(name, arguments, Format::Spec, from..end).with_origin(origin),
        end,
    ))
}

fn not_an_object(at: usize, key: &str) -> ParseError {
    let message = format!("`{key}` must hold a JSON object (as a JSON string)");
    ParseError::new(ErrorCode::InvalidArguments, at, message)
}

/// The value under `key`, taken out of `object`.
fn take(object: &mut Object, key: &str) -> Option<Value> {
    let i = object.iter().position(|(k, _)| k == key)?;
    Some(object.remove(i).1)
}

/// The JSON object at `q` and the offset after it.
fn json_object(text: &str, q: usize) -> Result<(Object, usize), ParseError> {
    let bytes = text.as_bytes();
    if q == bytes.len() {
        return Err(ends_inside(text, "the call"));
    }
    if bytes[q] != b'{' {
        return Err(expected(text, q, "{", "the arguments as a JSON object"));
    }
    let (value, end) = json::parse_value_at(text, q)?;
    let Value::Object(arguments) = value else {
        unreachable!("a JSON value that starts with `{{` is an object")
    };
    Ok((arguments, end))
}

/// After a call's arguments at `q`: its `call_end` (after white space), when the spec has one.
fn close_call(spec: &FormatSpec, text: &str, q: usize) -> Result<usize, ParseError> {
    if spec.call_end.is_empty() {
        return Ok(q);
    }
    let p = skip_ws(text.as_bytes(), q);
    if spec.section_start.is_empty() {
        if let Some(end) = stop_dropped(text.as_bytes(), p, &spec.call_end) {
            return Ok(end);
        }
    }
    expect(text, p, &spec.call_end)
}

/// Whether the text ends at `p` where the region's last marker would follow, less its last
/// token (`<SPECIAL_12>` of `]</TOOLCALL><SPECIAL_12>`, Functionary's `<|eom_id|>`): the stop
/// token a serving engine drops from the text it returns (white space may end the text). Where
/// the region ends then.
fn stop_dropped(bytes: &[u8], p: usize, marker: &str) -> Option<usize> {
    let m = marker.as_bytes();
    let last = m.iter().rposition(|&b| matches!(b, b'<' | b'['))?;
    let token = &m[last..];
    let whole = token.len() > 2
        && matches!((token[0], token[token.len() - 1]), (b'<', b'>') | (b'[', b']'))
        && !token[1..token.len() - 1]
            .iter()
            .any(|&b| b.is_ascii_whitespace() || matches!(b, b'<' | b'>' | b'[' | b']'));
    let rest = bytes.get(p..)?;
    let rest = &rest[..rest.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1)];
    (whole && rest == &m[..last]).then_some(p + last)
}

/// A name written as text from `p`: the name, where it starts and the offset after it (after
/// `name_suffix`, or where the name ends: white space, one of `stops`, `key_open` or `call_end`).
fn name(spec: &FormatSpec, text: &str, p: usize, stops: &[u8]) -> Result<(String, usize, usize), ParseError> {
    let bytes = text.as_bytes();
    let p = skip_ws(bytes, p);
    let line_end = memchr::memchr(b'\n', &bytes[p..]).map_or(bytes.len(), |n| p + n);
    let (raw, after) = if spec.name_suffix.is_empty() {
        let ends_here = |e: usize| {
            let at_marker = |m: &str| !m.is_empty() && at(bytes, e, m);
            bytes[e].is_ascii_whitespace()
                || stops.contains(&bytes[e])
                || at_marker(&spec.key_open)
                || at_marker(&spec.call_end)
        };
        let mut e = p;
        while e < line_end && !ends_here(e) {
            e += 1;
        }
        if e == bytes.len() {
            return Err(ends_inside(text, "the tool's name"));
        }
        (&text[p..e], e)
    } else {
        let window = &bytes[p..(line_end + spec.name_suffix.len()).min(bytes.len())];
        let found = if spec.id == IdPosition::AfterName && !spec.id_suffix.is_empty() {
            // The id follows the name: the name ends at the last suffix before the id's own
            // (`functions.files:read:0` names `files:read`), so its end is known only once the
            // id's suffix is there.
            let id_window = &bytes[p..(line_end + spec.id_suffix.len()).min(bytes.len())];
            match find(id_window, &spec.id_suffix) {
                Some(id_end) => memchr::memmem::rfind(&bytes[p..p + id_end], spec.name_suffix.as_bytes()),
                None if line_end == bytes.len() => return Err(ends_inside(text, "the tool's name")),
                None => find(window, &spec.name_suffix),
            }
        } else {
            find(window, &spec.name_suffix)
        };
        match found {
            Some(n) => (&text[p..p + n], p + n + spec.name_suffix.len()),
            None if line_end == bytes.len() => return Err(ends_inside(text, "the tool's name")),
            // The suffix on a line of its own (`NAME\n```json`).
            None => (
                &text[p..line_end],
                expect(text, skip_ws(bytes, line_end), &spec.name_suffix)?,
            ),
        }
    };
    let name = raw.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        let why = if name.is_empty() { "empty" } else { "not one word" };
        return Err(ParseError::new(
            ErrorCode::InvalidName,
            p,
            format!("the tool name is {why}"),
        ));
    }
    Ok((name.to_owned(), p + (raw.len() - raw.trim_start().len()), after))
}

/// `tag_per_argument`: the parameters from `p` up to the call's end, where their values are
/// written, and the offset after the call's end.
fn parameters(spec: &FormatSpec, text: &str, p: usize, defer: Defer<'_>) -> Result<Parameters, ParseError> {
    let bytes = text.as_bytes();
    let open = format!("{}…", spec.key_open);
    tagged::parameters(text, p, &spec.call_end, defer, |p, params| {
        if p == bytes.len() || spec.call_end.as_bytes().starts_with(&bytes[p..]) {
            return Err(ends_inside(text, "the call"));
        }
        if !at(bytes, p, &spec.key_open) {
            let wanted = format!("`{}` or `{}`", spec.key_open, spec.call_end);
            return Err(expected(text, p, &spec.key_open, &wanted));
        }
        let key_at = p + spec.key_open.len();
        let rest = &bytes[key_at..];
        // A key is one line; its close may take in line breaks.
        let line = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let longest = spec.key_close.len().max(spec.key_close_non_string.len());
        let window = &rest[..(line + longest).min(rest.len())];
        let close = find(window, &spec.key_close);
        let raw_close = (!spec.key_close_non_string.is_empty())
            .then(|| find(window, &spec.key_close_non_string))
            .flatten();
        let (key_len, value_at, typed) = match (close, raw_close) {
            (Some(c), Some(r)) if r < c || (r == c && spec.key_close_non_string.len() > spec.key_close.len()) => {
                (r, key_at + r + spec.key_close_non_string.len(), Some(false))
            }
            (Some(c), _) => (
                c,
                key_at + c + spec.key_close.len(),
                (!spec.key_close_non_string.is_empty()).then_some(true),
            ),
            (None, Some(r)) => (r, key_at + r + spec.key_close_non_string.len(), Some(false)),
            (None, None) if line == rest.len() => return Err(ends_inside(text, "a parameter's name")),
            (None, None) => {
                return Err(ParseError::new(
                    ErrorCode::Syntax,
                    key_at + line,
                    format!("expected `{}` after the parameter's name", spec.key_close),
                ))
            }
        };
        let key = text[key_at..key_at + key_len].trim();
        params.check_key(key, key_at, p)?;
        let len = tagged::read(text, p, value_at, &value_tags(spec, &open))?.len;
        let value_end = value_at + len;
        let breaks = spec.value_breaks;
        let lead = if typed == Some(false) {
            breaks.after_non_string_key
        } else {
            breaks.after_key
        };
        let raw = tagged::trim_line_breaks_at(&text[value_at..value_end], lead, breaks.before_close);
        let raw_at = crate::syntax::origin::offset_of(text, raw);
        let raw_end = raw_at + raw.len();
        let (value, how) = match typed {
            None => (TextValue::Probed(raw.into()), Text::Raw),
            Some(true) => (TextValue::Text(raw), Text::Typed),
            Some(false) => {
                let value = json::parse_complete(raw.trim()).map_err(|e| {
                    let at = raw_at + (raw.len() - raw.trim_start().len());
                    ParseError::new(ErrorCode::InvalidArguments, at + e.offset, e.message)
                })?;
                (TextValue::Typed(value), Text::Typed)
            }
        };
        params.push(key, value, Param::new(raw_at..raw_end, how));
        Ok(value_end + spec.value_close.len())
    })
}

/// How a value meets the tags around it ([`tagged`]): the spec does not say where its template
/// writes the next parameter's opening, so it counts anywhere (a value that holds one closes
/// it, or the value was not closed).
fn value_tags<'a>(spec: &'a FormatSpec, open: &'a str) -> tagged::ValueTags<'a> {
    tagged::ValueTags {
        open,
        close: &spec.value_close,
        sibling: tagged::Opener {
            pair: key_pair(&spec.key_close),
            ..opener(&spec.key_open)
        },
        call: opener(&spec.call_start),
        call_close: &spec.call_end,
        place: tagged::Place::Anywhere,
    }
}

/// A key's close that holds the value's opening tag too (`</arg_key>` `<arg_value>`, white
/// space between them or not): the two tags.
fn key_pair(key_close: &str) -> Option<(&str, &str)> {
    let at = key_close.rfind('<').filter(|&i| i > 0)?;
    let close = key_close[..at].trim_end();
    close.starts_with('<').then_some((close, &key_close[at..]))
}

/// A marker as an opening tag: its text less its last character, then that character.
fn opener(marker: &str) -> tagged::Opener<'_> {
    let last = marker.char_indices().next_back().map_or(0, |(i, _)| i);
    tagged::Opener {
        tag: &marker[..last],
        after: &marker.as_bytes()[last..],
        pair: None,
    }
}

/// `token` at `p`: the offset after it. The text ending partway through it is
/// `tool_call.unclosed` at the end; anything else there is `tool_call.syntax`.
fn expect(text: &str, p: usize, token: &str) -> Result<usize, ParseError> {
    if at(text.as_bytes(), p, token) {
        return Ok(p + token.len());
    }
    Err(expected(text, p, token, &format!("`{token}`")))
}

/// The error for text at `p` that is not `token` (described as `wanted`).
fn expected(text: &str, p: usize, token: &str, wanted: &str) -> ParseError {
    let rest = &text.as_bytes()[p.min(text.len())..];
    if token.as_bytes().starts_with(rest) {
        return ends_inside(text, "the call");
    }
    let found = text[p..].chars().next().map(crate::lex::show_char).unwrap_or_default();
    ParseError::new(ErrorCode::Syntax, p, format!("expected {wanted}, found {found}"))
}

fn ends_inside(text: &str, what: &str) -> ParseError {
    ParseError::new(ErrorCode::Unclosed, text.len(), format!("the text ends inside {what}"))
}
