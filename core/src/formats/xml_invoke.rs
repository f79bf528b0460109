//! `<invoke name="f"><parameter name="k">v</parameter></invoke>`, with or without a
//! `<function_calls>` wrapper (which is ignored).
//!
//! Names and values have XML entities decoded (`&lt; &gt; &amp; &quot; &apos; &#N; &#xH;`; any
//! other `&` stays as written). A value whose decoded text, trimmed, is strict JSON becomes that
//! JSON value; anything else is the decoded text as a string, untrimmed (with a tool list, the
//! parameter's schema types the decoded text instead, see [`crate::tools`]). A repeated parameter, or
//! a `name` attribute given twice in one tag, is `tool_call.duplicate_argument`; other attributes
//! are ignored. The text ending inside a tag is `tool_call.unclosed`.
//!
//! A value whose `</parameter>` is missing, so that the next `<parameter ` begins inside it at
//! the start of a line (where MiniMax's and Claude's templates write it), is `tool_call.unclosed`
//! at that value's `<parameter`: never one value holding the next parameter's text. A value holds
//! such a tag (an XML example, a code block) when the tag closes itself and the value's own
//! `</parameter>` follows; an `<invoke …>` inside it must close itself too ([`super::tagged`]).
//!
//! The same element grammar under other tag names is DeepSeek's DSML and Step-3's `steptml`: a
//! [`Dialect`] names the tags and says what differs (entities, the `string` attribute, a JSON
//! body); [`invoke`] parses one call of any dialect.

use std::borrow::Cow;
use std::ops::Range;

use super::tagged::{self, Opener, Parameters, Place, ValueTags};
use super::Calls;
use super::{cut_short, expect_token};
use crate::call::{Args, Format, Origin, Param, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::{at, decode_entities, find2_short, is_ws, skip_ws};
use crate::syntax::shape::{Defer, TextValue};
use crate::value::{Object, Value};

/// The tag names of one invoke dialect, and the rules in which dialects differ.
pub(crate) struct Dialect {
    /// `<` and the invoke element's name, e.g. `<invoke`.
    pub invoke: &'static str,
    pub invoke_close: &'static str,
    /// `<` and the parameter element's name, e.g. `<parameter`.
    pub parameter: &'static str,
    pub parameter_close: &'static str,
    pub format: Format,
    /// XML entities are decoded in names and values.
    pub entities: bool,
    /// A parameter's `string="true"` keeps its text verbatim and `string="false"` makes it a strict
    /// JSON value (DeepSeek DSML); without the attribute the value is typed as in `xml_invoke`.
    pub typed: bool,
    /// The invoke body may be one JSON object instead of parameters (DeepSeek DSML).
    pub json_body: bool,
    /// Where the template writes the next parameter tag after a value: a parameter tag there
    /// inside a value means that value was not closed ([`tagged`]).
    pub place: Place,
}

impl Dialect {
    /// How a value meets the tags around it.
    fn value_tags(&self) -> ValueTags<'static> {
        const WS: &[u8] = b" \t\r\n";
        ValueTags {
            open: self.parameter,
            close: self.parameter_close,
            sibling: Opener {
                tag: self.parameter,
                after: WS,
                pair: None,
            },
            call: Opener {
                tag: self.invoke,
                after: WS,
                pair: None,
            },
            call_close: self.invoke_close,
            place: self.place,
        }
    }
}

const XML: Dialect = Dialect {
    invoke: "<invoke",
    invoke_close: "</invoke>",
    parameter: "<parameter",
    parameter_close: "</parameter>",
    format: Format::XmlInvoke,
    entities: true,
    typed: false,
    json_body: false,
    place: Place::LineStart,
};

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[crate::call::Format::XmlInvoke],
    markers: &["<invoke ", "<invoke\n", "<invoke\t", "<invoke\r"],
    tokens: &["</invoke>", "<parameter ", "</parameter>"],
    closers: &["</invoke>"],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the call whose marker is at `start`; returns the offset after `</invoke>`.
pub(crate) fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let (call, end) = invoke(text, start, &XML, out.defer)?;
    out.push(call);
    Ok(end)
}

/// The call whose invoke tag (`d.invoke`) is at `start` (its parameters built as `defer` says),
/// and the offset after its closing tag.
pub(crate) fn invoke(text: &str, start: usize, d: &Dialect, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let (tag, body) = read_tag(text, start, d.invoke.len(), d)?;
    let body = skip_ws(bytes, body);
    let (arguments, deferred, args, end) = if d.json_body && bytes.get(body) == Some(&b'{') {
        let (arguments, end) = json_body(text, body, d)?;
        (arguments, None, Args::Json(body), end)
    } else {
        let (arguments, deferred, params, end) = parameters(text, body, d, defer)?;
        (arguments, deferred, Args::Params(params), end)
    };
    let origin = Origin::At {
        name: tag.name_at,
        args,
    };
    let mut call = ToolCall::new(tag.name.into_owned(), arguments, d.format, start..end).with_origin(origin);
    call.deferred = deferred;
    Ok((call, end))
}

/// The parameters from `p` up to the invoke's closing tag (as [`tagged::parameters`]).
fn parameters(text: &str, p: usize, d: &Dialect, defer: Defer<'_>) -> Result<Parameters, ParseError> {
    let bytes = text.as_bytes();
    let tags = d.value_tags();
    tagged::parameters(text, p, d.invoke_close, defer, |p, params| {
        if p == bytes.len() {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                p,
                format!("the text ends inside `{}>`: expected `{}`", d.invoke, d.invoke_close),
            ));
        }
        if !(at(bytes, p, d.parameter) && bytes.get(p + d.parameter.len()).is_some_and(|&b| is_ws(b))) {
            return Err(not_a_parameter(text, p, d));
        }
        let (param, value_at) = read_tag(text, p, d.parameter.len(), d)?;
        let (value, written, next) = parameter_value(text, p, value_at, param.string, d, &tags)?;
        if params.repeated(&param.name) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                p,
                format!("the parameter {} is given twice", crate::lex::quote(&param.name)),
            ));
        }
        params.push(param.name, value, written);
        Ok(next)
    })
}

/// The text at `p` inside an invoke is neither a parameter tag nor the closing tag: unclosed when
/// it stops partway through one of them, else a syntax error.
fn not_a_parameter(text: &str, p: usize, d: &Dialect) -> ParseError {
    let rest = &text.as_bytes()[p..];
    if [d.invoke_close, d.parameter]
        .iter()
        .any(|t| t.as_bytes().starts_with(rest))
    {
        return ParseError::new(
            ErrorCode::Unclosed,
            text.len(),
            format!("the text ends inside a tag of `{}>`", d.invoke),
        );
    }
    ParseError::new(
        ErrorCode::Syntax,
        p,
        format!(
            "expected `{} name=\"…\">` or `{}`, found {}",
            d.parameter,
            d.invoke_close,
            super::found_at(text, p)
        ),
    )
}

/// The JSON object at `p` as the whole body of an invoke, and the offset after the closing tag.
fn json_body(text: &str, p: usize, d: &Dialect) -> Result<(Object, usize), ParseError> {
    let (value, end) = crate::syntax::json::parse_value_at(text, p)?;
    let Value::Object(arguments) = value else {
        return Err(ParseError::new(
            ErrorCode::InvalidArguments,
            p,
            format!("the body of `{}>` must be a JSON object", d.invoke),
        ));
    };
    let close = skip_ws(text.as_bytes(), end);
    let end = expect_token(text, close, d.invoke_close, "after the JSON arguments")?;
    Ok((arguments, end))
}

/// The value of the parameter whose tag opens at `opener` and whose text starts at `value_at`,
/// where it is written, and the offset after its closing tag. `string` is the tag's `string`
/// attribute and where its value starts. [`tagged::read`] finds the close: a parameter tag inside
/// the value where the template writes the next one (`d.place`) means this value was not closed
/// (`tool_call.unclosed` at `opener`), unless that parameter closes itself and the value's own
/// close follows.
fn parameter_value<'t>(
    text: &'t str,
    opener: usize,
    value_at: usize,
    string: Option<(&str, usize)>,
    d: &Dialect,
    tags: &ValueTags<'_>,
) -> Result<(TextValue<'t>, Param, usize), ParseError> {
    let string = if d.typed { string } else { None };
    if let Some(("false", _)) = string {
        let (value, written, end) = json_parameter(text, opener, value_at, d)?;
        return Ok((TextValue::Typed(value), Param::new(written, Text::Typed), end));
    }
    if let Some((other, attr_at)) = string.filter(|(s, _)| *s != "true") {
        return Err(ParseError::new(
            ErrorCode::Syntax,
            attr_at,
            format!(
                "the `string` attribute must be \"true\" or \"false\", found {}",
                crate::lex::quote(other)
            ),
        ));
    }
    let tagged::Closed { len, amp } = tagged::read(text, opener, value_at, tags)?;
    let end = value_at + len + d.parameter_close.len();
    let written = value_at..value_at + len;
    let raw = &text[written.clone()];
    if string.is_some() {
        return Ok((TextValue::Text(raw), Param::new(written, Text::Typed), end));
    }
    let kind = if d.entities { Text::Xml } else { Text::Raw };
    let raw = if d.entities && amp {
        decode_entities(raw)
    } else {
        Cow::Borrowed(raw)
    };
    Ok((TextValue::Probed(raw), Param::new(written, kind), end))
}

/// A `string="false"` value: one strict JSON value (whitespace around it allowed), then the
/// closing tag. Returns the value, its text and the offset after the closing tag. The next
/// parameter's tag in place of the close means this value was not closed: `tool_call.unclosed`
/// at `opener`, as for a text value.
fn json_parameter(
    text: &str,
    opener: usize,
    value_at: usize,
    d: &Dialect,
) -> Result<(Value, Range<usize>, usize), ParseError> {
    let bytes = text.as_bytes();
    let (value, end) = crate::syntax::json::parse_value_at(text, value_at)?;
    let close = skip_ws(bytes, end);
    if at(bytes, close, d.parameter_close) {
        return Ok((value, skip_ws(bytes, value_at)..end, close + d.parameter_close.len()));
    }
    if cut_short(bytes, close, d.parameter_close) {
        return Err(ParseError::new(
            ErrorCode::Unclosed,
            bytes.len(),
            format!("the text ends before `{}`", d.parameter_close),
        ));
    }
    let tags = d.value_tags();
    if tags.sibling_at(bytes, close) {
        return Err(tagged::not_closed(text, opener, close, &tags).read_to(close));
    }
    Err(ParseError::new(
        ErrorCode::JsonUnexpectedToken,
        close,
        format!(
            "a `string=\"false\"` value must be one JSON value, followed by `{}`",
            d.parameter_close
        ),
    ))
}

/// What a tag's attributes say: its `name`, and its `string` attribute with the offset of its
/// value.
pub(crate) struct Tag<'t> {
    pub name: Cow<'t, str>,
    /// Where the name's attribute value starts.
    pub name_at: usize,
    string: Option<(&'t str, usize)>,
}

/// Reads the attributes of the tag at `start` (whose element name is `word_len` bytes long) up to
/// its `>`. Returns them and the offset after `>`.
pub(crate) fn read_tag<'t>(
    text: &'t str,
    start: usize,
    word_len: usize,
    d: &Dialect,
) -> Result<(Tag<'t>, usize), ParseError> {
    if let Some(plain) = plain_tag(text, start + word_len, d) {
        return Ok(plain);
    }
    let bytes = text.as_bytes();
    let tag = || format!("{}>", &text[start..start + word_len]);
    let mut p = start + word_len;
    let mut name = None;
    let mut name_at = start;
    let mut string = None;
    loop {
        p = skip_ws(bytes, p);
        match bytes.get(p) {
            Some(b'>') => break,
            None => {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    p,
                    format!("the text ends inside the `{}` tag", tag()),
                ))
            }
            _ => {}
        }
        let attr_at = p;
        let known;
        (p, known) = attr_name_end(bytes, p);
        let attr = &text[attr_at..p];
        let eq = skip_ws(bytes, p);
        let quote_at = skip_ws(bytes, eq + 1);
        let quote = bytes.get(quote_at).copied();
        if attr.is_empty() || bytes.get(eq) != Some(&b'=') || !matches!(quote, Some(b'"' | b'\'')) {
            if p >= bytes.len() || quote_at >= bytes.len() {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    bytes.len(),
                    format!("the text ends inside the `{}` tag", tag()),
                ));
            }
            return Err(ParseError::new(
                ErrorCode::Syntax,
                attr_at,
                format!("expected an attribute `name=\"…\"` in the `{}` tag", tag()),
            ));
        }
        let value_at = quote_at + 1;
        let Some((len, amp)) = attr_value(&bytes[value_at..], quote.unwrap_or(b'"')) else {
            return Err(ParseError::new(
                ErrorCode::Unclosed,
                bytes.len(),
                "the text ends inside an attribute value",
            ));
        };
        let raw = &text[value_at..value_at + len];
        if (known == Attr::Name && name.is_some()) || (d.typed && known == Attr::String && string.is_some()) {
            return Err(ParseError::new(
                ErrorCode::DuplicateArgument,
                attr_at,
                format!("the `{}` tag has two `{attr}` attributes", tag()),
            ));
        }
        if known == Attr::Name {
            let value = if d.entities && amp {
                decode_entities(raw)
            } else {
                Cow::Borrowed(raw)
            };
            // A name that begins with a visible ASCII character is not blank: no `trim` needed.
            if !value.as_bytes().first().is_some_and(u8::is_ascii_graphic) && value.trim().is_empty() {
                return Err(ParseError::new(
                    ErrorCode::InvalidName,
                    value_at,
                    format!("the `{}` name is empty", tag()),
                ));
            }
            name = Some(value);
            name_at = value_at;
        } else if known == Attr::String {
            string = Some((raw, value_at));
        }
        p = value_at + len + 1;
    }
    match name {
        Some(name) => Ok((Tag { name, name_at, string }, p + 1)),
        None => Err(ParseError::new(
            ErrorCode::InvalidName,
            start,
            format!("the `{}` tag has no `name` attribute", tag()),
        )),
    }
}

/// The tag as models write it, from `p` after its element name: ` name="NAME">`, or with
/// ` string="…"` after the name where the dialect reads it; `None` for anything else (entities,
/// other attributes or spacing, a name that may be blank), which [`read_tag`] reads in full.
fn plain_tag<'t>(text: &'t str, p: usize, d: &Dialect) -> Option<(Tag<'t>, usize)> {
    let bytes = text.as_bytes();
    let name_at = p + 7;
    if bytes.get(p..name_at) != Some(b" name=\"") {
        return None;
    }
    let (len, amp) = attr_value(&bytes[name_at..], b'"')?;
    let name = &text[name_at..name_at + len];
    if amp || !name.as_bytes().first().is_some_and(u8::is_ascii_graphic) {
        return None;
    }
    let mut end = name_at + len + 1;
    let mut string = None;
    if d.typed && bytes.get(end..end + 9) == Some(b" string=\"") {
        let at = end + 9;
        let (len, _) = attr_value(&bytes[at..], b'"')?;
        string = Some((&text[at..at + len], at));
        end = at + len + 1;
    }
    (bytes.get(end) == Some(&b'>')).then(|| {
        let name = Cow::Borrowed(name);
        (Tag { name, name_at, string }, end + 1)
    })
}

/// The attributes a tag's reader looks at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Attr {
    Name,
    String,
    Other,
}

/// Where an attribute's name that starts at `p` ends (ASCII letters, digits, `_`, `-` and `:`),
/// and which attribute it is.
fn attr_name_end(bytes: &[u8], p: usize) -> (usize, Attr) {
    // The attributes of almost every tag, followed by `=`.
    if bytes.get(p..p + 5) == Some(b"name=") {
        return (p + 4, Attr::Name);
    }
    if bytes.get(p..p + 7) == Some(b"string=") {
        return (p + 6, Attr::String);
    }
    let is_name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':');
    let end = p + bytes[p..].iter().take_while(|&&b| is_name(b)).count();
    let attr = match &bytes[p..end] {
        b"name" => Attr::Name,
        b"string" => Attr::String,
        _ => Attr::Other,
    };
    (end, attr)
}

/// The length of the attribute value at the start of `rest`, up to its closing `quote`, and
/// whether it holds an `&` (an entity to decode); `None` when the quote never closes. Eight bytes
/// at a time ([`find2_short`]): values are short names, where `memchr2`'s set-up costs more than
/// the scan. Inlined into every tag's reading: called, it cost about 30 instructions a tag more
/// (typical `xml_invoke` output, six tags: 24.85k → 24.67k instructions a parse).
#[allow(clippy::inline_always, reason = "measured: `#[inline]` left it out of line")]
#[inline(always)]
fn attr_value(rest: &[u8], quote: u8) -> Option<(usize, bool)> {
    let mut amp = false;
    let mut i = find2_short(rest, 0, quote, b'&');
    while rest.get(i) == Some(&b'&') {
        amp = true;
        i = find2_short(rest, i + 1, quote, b'&');
    }
    (i < rest.len()).then_some((i, amp))
}
