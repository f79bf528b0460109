//! What a binding passes in: text, bytes or a decoded value, and which host it is.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::error::{ErrorCode, ParseError, Unit};
use crate::providers::{self, ResponseOptions};
use crate::syntax::shape::BuildArguments;
use crate::value::{Number, Value};

use super::{Located, Output, Query};

/// The language a binding serves: it decides the unit of positions and the words of argument
/// errors (type names, how a path is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Python,
    JavaScript,
}

impl Host {
    /// The unit the host's strings are indexed in: code points (Python `str`), UTF-16 code units
    /// (JavaScript strings).
    pub const fn unit(self) -> Unit {
        match self {
            Host::Python => Unit::CodePoints,
            Host::JavaScript => Unit::Utf16,
        }
    }

    /// The host's name for the type of `value`, for messages (`str` / `a string`).
    pub(crate) fn type_name(self, value: &Value) -> &'static str {
        match (self, value) {
            (Host::Python, Value::Null) => "None",
            (Host::Python, Value::Bool(_)) => "bool",
            (Host::Python, Value::Number(Number::Float(_))) => "float",
            (Host::Python, Value::Number(_)) => "int",
            (Host::Python, Value::String(_)) => "str",
            (Host::Python, Value::Array(_)) => "list",
            (Host::Python, Value::Object(_)) => "dict",
            (Host::JavaScript, Value::Null) => "null",
            (Host::JavaScript, Value::Bool(_)) => "a boolean",
            (Host::JavaScript, Value::Number(_)) => "a number",
            (Host::JavaScript, Value::String(_)) => "a string",
            (Host::JavaScript, Value::Array(_)) => "an array",
            (Host::JavaScript, Value::Object(_)) => "an object",
        }
    }

    /// The host's words for "a string or nothing", "a boolean" and "a mapping".
    pub(crate) const fn words(self) -> Words {
        match self {
            Host::Python => Words {
                string: "str",
                optional_string: "str or None",
                boolean: "bool",
                mapping: "a dict",
            },
            Host::JavaScript => Words {
                string: "a string",
                optional_string: "a string or null",
                boolean: "a boolean",
                mapping: "an object",
            },
        }
    }

    /// Appends the step to `key` to a path the way the host writes it: `["key"]` in Python (a
    /// Python string literal), `.key` in JavaScript (`["key"]`, a JSON string, when the key is no
    /// identifier).
    pub fn push_key(self, path: &mut String, key: &str) {
        match self {
            Host::JavaScript if is_js_identifier(key) => {
                path.push('.');
                path.push_str(key);
            }
            Host::JavaScript => {
                path.push('[');
                path.push_str(&crate::lex::quote(key));
                path.push(']');
            }
            Host::Python => {
                path.push_str("[\"");
                for c in key.chars() {
                    match c {
                        '\\' => path.push_str("\\\\"),
                        '"' => path.push_str("\\\""),
                        '\n' => path.push_str("\\n"),
                        '\r' => path.push_str("\\r"),
                        '\t' => path.push_str("\\t"),
                        c if c.is_control() => {
                            let _ = write!(path, "\\x{:02x}", u32::from(c));
                        }
                        c => path.push(c),
                    }
                }
                path.push_str("\"]");
            }
        }
    }

    /// Appends the step to `index` to a path.
    pub fn push_index(self, path: &mut String, index: usize) {
        let _ = write!(path, "[{index}]");
    }
}

fn is_js_identifier(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b == b'_' || b == b'$' || b.is_ascii_alphabetic())
        && bytes.all(|b| b == b'_' || b == b'$' || b.is_ascii_alphanumeric())
}

/// Phrases of argument errors that differ between hosts.
pub(crate) struct Words {
    pub string: &'static str,
    pub optional_string: &'static str,
    pub boolean: &'static str,
    pub mapping: &'static str,
}

/// The caller's input.
#[derive(Debug, Clone)]
pub enum Input<'a> {
    /// Text in the host's own string type: errors and spans in the host's unit.
    Text(&'a str),
    /// UTF-8 bytes (an HTTP body; provider operations only): errors in bytes.
    Bytes(Cow<'a, [u8]>),
    /// A decoded JSON value (provider operations only): errors at position 0, the message names
    /// the path.
    Value(Value),
}

impl<'a> Input<'a> {
    /// The input's size in bytes (a decoded value counts as large: it has no text to measure),
    /// for a binding deciding whether to release its interpreter while the core runs.
    pub fn len(&self) -> usize {
        match self {
            Input::Text(text) => text.len(),
            Input::Bytes(bytes) => bytes.len(),
            Input::Value(_) => usize::MAX,
        }
    }

    /// Whether the input is empty text or bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text of a text-only operation. The bindings only pass text there; anything else is a
    /// bug in the binding.
    pub(super) fn text(&self) -> Result<&'a str, ParseError> {
        match self {
            Input::Text(text) => Ok(text),
            _ => Err(ParseError::new(
                ErrorCode::Internal,
                0,
                "this operation reads text only (a bug in the binding)",
            )),
        }
    }

    pub(super) fn response(
        &self,
        options: &ResponseOptions<'_>,
        query: Query,
        builder: Option<&dyn BuildArguments>,
    ) -> Result<Output<'static>, ParseError> {
        match self {
            Input::Text(text) => response_text(text, options, query, builder),
            Input::Bytes(bytes) => response_text(providers::utf8_text(bytes)?, options, query, builder),
            Input::Value(value) => Ok(match query {
                Query::Calls => {
                    let (calls, built) = providers::parse_response_value_built(value, options, builder)?;
                    Output::ProviderCalls {
                        calls,
                        built,
                        at: super::Receipts::default(),
                    }
                }
                Query::Has => Output::Bool(!providers::parse_response_value_with(value, options)?.is_empty()),
                Query::Detect => Output::Provider(providers::detect_provider_value(value)),
            }),
        }
    }

    /// `err` (a byte offset into the input) in `host`'s units: text in the host's unit, bytes in
    /// bytes (within their valid UTF-8 prefix, where every error lies), a value at position 0.
    pub(super) fn locate(&self, err: &ParseError, host: Host) -> Located {
        let (text, unit) = self.located_in(host);
        Located::new(err, text, unit)
    }

    /// The text positions in the input stand in, and their unit (see [`Self::locate`]).
    pub(super) fn located_in(&self, host: Host) -> (&str, Unit) {
        match self {
            Input::Text(text) => (*text, host.unit()),
            Input::Bytes(bytes) => (valid_prefix(bytes), Unit::Bytes),
            Input::Value(_) => ("", Unit::Bytes),
        }
    }
}

fn response_text(
    text: &str,
    options: &ResponseOptions<'_>,
    query: Query,
    builder: Option<&dyn BuildArguments>,
) -> Result<Output<'static>, ParseError> {
    Ok(match query {
        Query::Calls => {
            let (calls, built) = providers::parse_response_built(text, options, builder)?;
            Output::ProviderCalls {
                calls,
                built,
                at: super::Receipts::default(),
            }
        }
        Query::Has => Output::Bool(!providers::parse_response_with(text, options)?.is_empty()),
        Query::Detect => Output::Provider(providers::detect_provider(text)?),
    })
}

/// The longest valid UTF-8 prefix of `bytes`.
fn valid_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Converts increasing byte offsets into a text to another unit in one pass over the text
/// (an offset lower than the one before restarts the count from the beginning).
pub(crate) struct Counter<'t> {
    text: &'t str,
    unit: Unit,
    byte: usize,
    units: usize,
}

impl<'t> Counter<'t> {
    pub(crate) fn new(text: &'t str, unit: Unit) -> Self {
        Counter {
            text,
            unit,
            byte: 0,
            units: 0,
        }
    }

    /// The offset of byte `offset` in the counter's unit (clamped to a character boundary).
    pub(crate) fn at(&mut self, offset: usize) -> usize {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.byte {
            self.byte = 0;
            self.units = 0;
        }
        let between = &self.text[self.byte..offset];
        self.units += match self.unit {
            Unit::Bytes => between.len(),
            Unit::CodePoints => between.chars().count(),
            Unit::Utf16 => between.chars().map(char::len_utf16).sum(),
        };
        self.byte = offset;
        self.units
    }
}
