//! What a binding raises: a parse failure located in the caller's units ([`Located`]), or a bad
//! argument ([`ArgError`]).

use std::fmt;

use crate::error::{locate, ErrorCode, ParseError, Unit};

/// A parse failure where the caller can find it: the code, the message, and the position as a
/// 0-based offset plus a 1-based line and column, all counted in the caller's unit. Its
/// [`Display`](fmt::Display) is the one text of a beacon error in every host:
/// `CODE at line L, column C: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub code: ErrorCode,
    pub message: String,
    pub position: usize,
    pub line: usize,
    pub column: usize,
    /// For `tool_call.schema`: the JSON pointer of the offending value in the call's arguments
    /// (`""` for the arguments themselves); `None` for every other error.
    pub path: Option<String>,
    /// Whether the text ended inside the call ([`ParseError::truncated`]): a cut-off output, which
    /// no repair mends.
    pub truncated: bool,
}

impl Located {
    /// `err`, whose byte offset points into `text`, located in `unit`s.
    pub fn new(err: &ParseError, text: &str, unit: Unit) -> Located {
        let at = locate(text, err.offset, unit);
        Located {
            code: err.code,
            message: err.message.clone(),
            position: at.offset,
            line: at.line,
            column: at.column,
            path: err.path.clone(),
            truncated: err.truncated(text.len()),
        }
    }

    /// Whether this is `tool_call.not_found` (hosts raise a subclass for it).
    pub fn is_not_found(&self) -> bool {
        self.code == ErrorCode::NotFound
    }
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe(self.code.as_str(), self.line, self.column, &self.message))
    }
}

/// The text of a beacon error, `CODE at line L, column C: MESSAGE`: [`Located`]'s `Display`, and
/// what a host's own error class shows (Python's `ToolCallError.__str__` calls this).
pub fn describe(code: &str, line: usize, column: usize, message: &str) -> String {
    format!("{code} at line {line}, column {column}: {message}")
}

impl std::error::Error for Located {}

/// An argument the caller got wrong, before anything was parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// Of the wrong type (Python and JavaScript `TypeError`).
    Type(String),
    /// Of the right type, but not one of the values allowed, such as an unknown provider id
    /// (Python `ValueError`; JavaScript `RangeError` or `TypeError`, as its API documents).
    Value(String),
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Type(message) | ArgError::Value(message) => f.write_str(message),
        }
    }
}

/// Anything a binding call can fail with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    Parse(Located),
    Arg(ArgError),
}

impl From<Located> for Failure {
    fn from(err: Located) -> Self {
        Failure::Parse(err)
    }
}

impl From<ArgError> for Failure {
    fn from(err: ArgError) -> Self {
        Failure::Arg(err)
    }
}

/// `json.invalid_unicode` for caller text that holds a lone surrogate (a host string that is not
/// Unicode text, so it has no UTF-8 form): `before` is the text before it (which is valid),
/// `surrogate` the code unit (U+D800–U+DFFF) and `index` its index in the host's string.
pub fn lone_surrogate_in_text(before: &str, surrogate: u32, index: usize, unit: Unit) -> Located {
    let message = format!(
        "the text holds a lone surrogate (U+{surrogate:04X}) at index {index}: it is not Unicode text, and has no UTF-8 form"
    );
    Located::new(
        &ParseError::new(ErrorCode::JsonInvalidUnicode, before.len(), message),
        before,
        unit,
    )
}

/// `json.invalid_unicode` for a string inside a decoded value (at `path`) that holds a lone
/// surrogate (`what`: "holds", "has a key with"): position 0, the message names the path.
pub fn lone_surrogate_in_value(path: &str, what: &str, surrogate: u32, index: usize) -> Located {
    let message =
        format!("{path} {what} a lone surrogate (U+{surrogate:04X}) at index {index}: it is not Unicode text");
    Located::new(
        &ParseError::new(ErrorCode::JsonInvalidUnicode, 0, message),
        "",
        Unit::Bytes,
    )
}

/// `json.invalid_number` for a number of a decoded value that JSON cannot write (`shown`: how
/// the host writes it, `nan`, `Infinity`, …) at `path`; `before` is the value's JSON text up to
/// it, when the host has one (else `""`: position 0).
pub fn non_finite_number(path: &str, shown: &str, before: &str, unit: Unit) -> Located {
    let message = format!("{path} is {shown}, which is not a JSON number");
    Located::new(
        &ParseError::new(ErrorCode::JsonInvalidNumber, before.len(), message),
        before,
        unit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_code_line_column_message() {
        let err = ParseError::new(ErrorCode::Syntax, "ab\ncd😀".len(), "bad");
        let located = Located::new(&err, "ab\ncd😀e", Unit::Utf16);
        assert_eq!((located.position, located.line, located.column), (7, 2, 5));
        assert_eq!(located.to_string(), "tool_call.syntax at line 2, column 5: bad");
        let located = lone_surrogate_in_text("x\ny", 0xD800, 3, Unit::CodePoints);
        assert_eq!((located.position, located.line, located.column), (3, 2, 2));
        assert!(located.message.contains("U+D800") && located.message.contains("index 3"));
    }
}
