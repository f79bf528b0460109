//! GLM 4.5 / 4.6 / 4.7 / 5, Hunyuan v3 and Laguna: a tool name, then key/value tag pairs (or a JSON
//! object), inside
//! `<tool_call>…</tool_call>`. The grammar is written once, over a [`Tags`] set, and LongCat's
//! `<longcat_arg_key>` variant ([`super::longcat`]) uses it with its own tag names.
//!
//! ```text
//! <tool_call>get_weather
//! <arg_key>city</arg_key>
//! <arg_value>Beijing</arg_value>
//! </tool_call>
//! ```
//!
//! - `<tool_call>` is also the Hermes marker: [`super::hermes`] hands the call here when its
//!   content (after whitespace) is a NAME followed by `<arg_key>`, a line break, `</tool_call>`,
//!   `<tool_sep>` or the end of the text (see [`starts_call`]).
//! - NAME: ASCII letters, digits and `_ - . : /`, starting with a letter, a digit or `_`. Then,
//!   optionally, `<tool_sep>` (Hunyuan v3 ends the name with it).
//! - Then either one JSON object, the arguments, and `</tool_call>` (Laguna writes
//!   `<tool_call>NAME\n{JSON}</tool_call>`; the object is read as `hermes` reads arguments), or
//!   any number of `<arg_key>KEY</arg_key>` whitespace `<arg_value>VALUE</arg_value>`, then
//!   `</tool_call>`, with whitespace allowed between all tags: GLM 4.5/4.6 put each tag on its own
//!   line, GLM 4.7/5 write them back to back. `</tool_call>` is required: a call cut before it
//!   may be missing arguments, so the text ending inside a call is `tool_call.unclosed`.
//! - KEY is the text up to `</arg_key>` (it cannot contain `<`), trimmed; it must be non-empty
//!   (`tool_call.syntax`) and appear once per call (`tool_call.duplicate_argument`, at its
//!   `<arg_key>`).
//! - VALUE is the raw text up to its `</arg_value>`. The template writes strings as they are
//!   and every other type as JSON, so without a tool list values are typed like `xml_invoke`'s:
//!   the trimmed text as strict JSON when it is one (`5`, `true`, `null`, `[{"a": 1}]`), else the
//!   text as a string, untrimmed. A string argument that reads as JSON (`2024`, `true`) therefore
//!   comes back as that JSON value; with a tool list the parameter's schema types it
//!   ([`crate::tools`]).
//! - The next pair's opening, `<arg_key>KEY</arg_key>` then whitespace and `<arg_value>`, inside a
//!   VALUE is where the template writes the next pair: GLM 4.7/5 write it right after the value's
//!   `</arg_value>`, GLM 4.5/4.6 on the next line, so it counts anywhere in the value (a lone
//!   `<arg_key>` is text). The VALUE holds such a pair only when the pair closes itself (its own
//!   `</arg_value>`, then the VALUE's); when the text ends, or `</tool_call>` comes, with the VALUE
//!   still open, the VALUE was not closed and the call is `tool_call.unclosed` at its
//!   `<arg_value>` — never a value holding the next pair ([`super::tagged`]).
//! - Any other token where a tag is expected is `tool_call.syntax`.
//!
//! Text after `</tool_call>` (GLM's `<|observation|>`, `<|user|>`, `<|endoftext|>`, Hunyuan's
//! `</tool_calls>`) is left as prose.

use std::ops::Range;

use super::tagged::{self, Opener, Place, ValueTags};
use super::{expect, unexpected, unrecognized};
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, skip_ws, trim};
use crate::syntax::shape::{Defer, TextValue};
use crate::value::Value;

/// The tag names of one key/value pair grammar.
pub(crate) struct Tags {
    pub open: &'static str,
    pub close: &'static str,
    pub key: &'static str,
    pub key_close: &'static str,
    pub value: &'static str,
    pub value_close: &'static str,
    /// A token that may end the name (Hunyuan v3's `<tool_sep>`).
    pub name_sep: Option<&'static str>,
    pub format: Format,
}

impl Tags {
    /// How a value meets the tags around it: the next pair's key tag anywhere inside a value (GLM
    /// 4.7/5 write the tags back to back) means the value was not closed, unless that pair closes
    /// itself ([`tagged`]).
    pub(crate) fn value_tags(&self) -> ValueTags<'static> {
        ValueTags {
            open: self.value,
            close: self.value_close,
            sibling: Opener {
                tag: self.key.trim_end_matches('>'),
                after: b">",
                pair: Some((self.key_close, self.value)),
            },
            call: Opener {
                tag: self.open.trim_end_matches('>'),
                after: b">",
                pair: None,
            },
            call_close: self.close,
            place: Place::Anywhere,
        }
    }
}

/// GLM's tags (and Hunyuan v3's, which add `<tool_sep>`).
pub(crate) const TAGS: Tags = Tags {
    open: "<tool_call>",
    close: "</tool_call>",
    key: "<arg_key>",
    key_close: "</arg_key>",
    value: "<arg_value>",
    value_close: "</arg_value>",
    name_sep: Some("<tool_sep>"),
    format: Format::Glm45,
};

/// GLM calls start at the Hermes marker `<tool_call>`, whose parser hands them to [`call`]; this
/// family only declares the tokens of the pairs.
pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[Format::Glm45],
    markers: &[],
    tokens: &["<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<tool_sep>"],
    closers: &[],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(super::hermes::parse),
};

/// Whether the content at `pos` (right after the open tag and whitespace) begins a pairs call:
/// a name followed by the key tag, a line break, the close tag, the name separator or the end of
/// the text (also partway through one of those tags).
pub(crate) fn starts_call(text: &str, pos: usize, tags: &Tags) -> bool {
    let bytes = text.as_bytes();
    let end = name_end(bytes, pos);
    if end == pos {
        return false;
    }
    let mut p = end;
    while matches!(bytes.get(p), Some(b' ' | b'\t')) {
        p += 1;
    }
    if matches!(bytes.get(p), Some(b'\n' | b'\r')) {
        return true;
    }
    let rest = &bytes[p..];
    [Some(tags.key), Some(tags.close), tags.name_sep]
        .into_iter()
        .flatten()
        .any(|t| rest.starts_with(t.as_bytes()) || t.as_bytes().starts_with(rest))
}

/// The repair of a pairs call written escaped a second time, as a JSON string's content, whose
/// content starts at `pos`: a name, then a literal `\n` (backslash, `n`) and the key tag, so that
/// it is not a call (`tool_call.unrecognized`). The text from the backslash to the close tag
/// (trailing whitespace left) is decoded once as the content of a JSON string; when it decodes,
/// it takes that text's place (`repair.double_encoded`).
pub(crate) fn escaped_call(text: &str, pos: usize, tags: &Tags) -> Option<crate::repair::Fix> {
    let bytes = text.as_bytes();
    if !escaped_start(text, pos, tags) {
        return None;
    }
    let from = name_end(bytes, pos);
    let close = from + memchr::memmem::find(&bytes[from..], tags.close.as_bytes())?;
    let body = text[from..close].trim_end();
    let Ok(Value::String(decoded)) = crate::syntax::json::parse_complete(&format!("\"{body}\"")) else {
        return None;
    };
    Some(crate::repair::Fix {
        code: crate::repair::RepairCode::DoubleEncoded,
        at: from,
        range: from..from + body.len(),
        insert: decoded,
        message: "the call's text, escaped a second time (`\\n`, `\\\"`), was decoded once".to_owned(),
    })
}

/// Whether the content at `pos` is a name, a literal `\n` and the key tag: a pairs call escaped a
/// second time ([`escaped_call`]).
pub(crate) fn escaped_start(text: &str, pos: usize, tags: &Tags) -> bool {
    let bytes = text.as_bytes();
    let from = name_end(bytes, pos);
    from > pos && at(bytes, from, "\\n") && at(bytes, from + 2, tags.key)
}

/// Parses the call whose open tag is at `start` (its pairs built as `defer` says); returns it
/// and the offset after its close tag.
pub(crate) fn call(text: &str, start: usize, tags: &Tags, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let name_at = skip_ws(bytes, start + tags.open.len());
    let name_to = name_end(bytes, name_at);
    if name_to == name_at {
        return Err(unrecognized(text, name_at, tags.open));
    }
    let mut p = skip_ws(bytes, name_to);
    if let Some(sep) = tags.name_sep {
        if at(bytes, p, sep) {
            p = skip_ws(bytes, p + sep.len());
        } else if p < bytes.len() && sep.as_bytes().starts_with(&bytes[p..]) {
            // The text stops partway through the separator.
            return Err(unexpected(text, p, &[sep], "the tool call"));
        }
    }
    if bytes.get(p) == Some(&b'{') {
        return json_call(text, start, name_at..name_to, p, tags, defer);
    }
    // Made once a call, not once an argument (typical LongCat output: 24.7k → 24.4k instructions
    // a parse).
    let value_tags = tags.value_tags();
    let (arguments, deferred, params, end) = tagged::parameters(text, p, tags.close, defer, |p, params| {
        if !at(bytes, p, tags.key) {
            return Err(unexpected(text, p, &[tags.key, tags.close], "the tool call"));
        }
        let (key, value, written, end) = pair(text, p, tags, &value_tags)?;
        if params.repeated(key) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                p,
                format!("the argument {} is given twice", crate::lex::quote(key)),
            ));
        }
        params.push(key, value, Param::new(written, Text::Raw));
        Ok(end)
    })?;
    let name = text[name_at..name_to].to_string();
    let origin = Origin::At {
        name: name_at,
        args: Args::Params(params),
    };
    let mut call = ToolCall::new(name, arguments, tags.format, start..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// The call whose name (at `name`) is followed by a JSON object at `args_at` (Laguna), then the
/// close tag.
fn json_call(
    text: &str,
    start: usize,
    name: Range<usize>,
    args_at: usize,
    tags: &Tags,
    defer: Defer<'_>,
) -> Result<(ToolCall, usize), ParseError> {
    let (arguments, deferred, end) = super::json_arguments_as(text, args_at, defer, || {
        super::object_arguments(text, args_at, &text[name.clone()])
    })?;
    let end = expect(text, skip_ws(text.as_bytes(), end), tags.close, "the tool call")?;
    let origin = Origin::At {
        name: name.start,
        args: Args::Json(args_at),
    };
    let mut call = ToolCall::new(text[name].to_string(), arguments, tags.format, start..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// Parses the key/value pair whose key tag is at `pos` (its value read with `value_tags`, the
/// family's [`Tags::value_tags`]): its key, its value, where the value's text is, and the offset
/// after the value's close tag.
fn pair<'t>(
    text: &'t str,
    pos: usize,
    tags: &Tags,
    value_tags: &ValueTags<'_>,
) -> Result<(&'t str, TextValue<'t>, Range<usize>, usize), ParseError> {
    let bytes = text.as_bytes();
    let key_at = pos + tags.key.len();
    let key_to = crate::lex::find_short(bytes, key_at, b'<');
    let after_key = expect(text, key_to, tags.key_close, "the argument name")?;
    let key = trim(&text[key_at..key_to]);
    if key.is_empty() {
        return Err(ParseError::new(ErrorCode::Syntax, key_at, "the argument name is empty"));
    }
    let value_at = expect(text, skip_ws(bytes, after_key), tags.value, "the argument")?;
    let len = tagged::read(text, value_at - tags.value.len(), value_at, value_tags)?.len;
    let raw = &text[value_at..value_at + len];
    Ok((
        key,
        TextValue::Probed(raw.into()),
        value_at..value_at + len,
        value_at + len + tags.value_close.len(),
    ))
}

/// The end of the tool name starting at `pos`, or `pos` when none starts there.
fn name_end(bytes: &[u8], pos: usize) -> usize {
    if !bytes.get(pos).is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_') {
        return pos;
    }
    let mut p = pos + 1;
    while bytes
        .get(p)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/'))
    {
        p += 1;
    }
    p
}
