//! Recorded streams as text: the events in it, found as the text arrives. Three framings:
//!
//! - **SSE** (`text/event-stream`): lines `data: …`, `event: …`, `id: …`, `retry: …` and
//!   comments (`: …`); an event is its `data` lines (joined with line breaks, as the standard
//!   says), ended by a blank line; `data: [DONE]` ends the stream. The data must be JSON. An
//!   `event:` name is kept for the reader (`event: error`).
//! - **NDJSON** (Ollama, Bedrock recordings): JSON values one after another, one a line (read
//!   as values separated by whitespace, so one response fed in pieces is one event).
//! - **A JSON array** of events (Gemini's `streamGenerateContent` without `alt=sse`, a list of
//!   recorded events), read element by element while it arrives.
//!
//! The framing is told by the first character that is not whitespace (after a byte-order
//! mark): `[` an array, `{` NDJSON, an SSE field name (or `:`) SSE, anything else plain text,
//! which holds no events (as [`crate::parse_response`] reads no calls in it). Every event keeps the offset where its JSON
//! starts, so errors point into the caller's text.

use crate::error::{ErrorCode, ParseError};
use crate::lex::skip_ws;
use crate::syntax::json::Nesting;
use crate::value::Value;

/// One event: its JSON value, where that JSON starts in the text, and its SSE `event:` name.
#[derive(Debug)]
pub(crate) struct Frame {
    pub value: Value,
    pub start: usize,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    Sse,
    /// JSON values one after another (NDJSON, or one response).
    Values,
    Array,
    /// Neither JSON nor SSE: plain text, which holds no events.
    Text,
}

/// The SSE fields (and the comment mark) a stream's first line starts with.
const SSE_FIELDS: [&str; 5] = ["data:", "event:", "id:", "retry:", ":"];

/// The framing state over a growing text.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    framing: Option<Framing>,
    /// How far the text has been read.
    pos: usize,
    /// SSE: the `data` lines of the event being read (where the first one's value starts), and its
    /// name.
    data: Option<(usize, String)>,
    name: Option<String>,
    /// Array: where its `[` stands.
    array_at: usize,
    /// Array: where the element being read starts, and the nesting inside it.
    element: Option<usize>,
    nesting: Nesting,
    /// Array: an element was read, so `,` or `]` comes next.
    after_element: bool,
    /// `[DONE]`, or the array's `]`: nothing more counts.
    done: bool,
    /// Values read (NDJSON and lists), and values begun.
    count: usize,
    begun: usize,
}

impl Frames {
    /// Whether `text` (from its start) looks like a stream rather than one JSON response: SSE
    /// lines, or several JSON values a line.
    pub(crate) fn is_stream(text: &str) -> bool {
        let bytes = text.as_bytes();
        let first = skip_ws(bytes, bom(text));
        match bytes.get(first) {
            Some(b'd' | b'e' | b'i' | b'r' | b':') => {
                SSE_FIELDS.iter().any(|f| bytes[first..].starts_with(f.as_bytes()))
            }
            // Checked, not built: a single response is read again by the caller.
            Some(b'{') => crate::syntax::json::check_nested_at(text, first, 0)
                .is_some_and(|end| bytes.get(skip_ws(bytes, end)) == Some(&b'{')),
            _ => false,
        }
    }

    /// Reads the events that are complete in `text` (which extends the text of earlier calls).
    /// With `end`, the text is complete: a last line without a line break counts.
    pub(crate) fn read(&mut self, text: &str, end: bool, out: &mut Vec<Frame>) -> Result<(), ParseError> {
        if self.framing.is_none() {
            let bytes = text.as_bytes();
            let first = skip_ws(bytes, bom(text));
            let Some(&b) = bytes.get(first) else {
                return Ok(());
            };
            let rest = &bytes[first..];
            self.framing = Some(match b {
                b'[' => Framing::Array,
                b'{' => Framing::Values,
                _ if SSE_FIELDS.iter().any(|f| rest.starts_with(f.as_bytes())) => Framing::Sse,
                // Too little text yet to tell SSE from plain text.
                _ if !end && SSE_FIELDS.iter().any(|f| f.as_bytes().starts_with(rest)) => return Ok(()),
                _ => Framing::Text,
            });
            self.pos = if b == b'[' { first + 1 } else { bom(text) };
            if b == b'[' {
                self.nesting = Nesting::at_depth(1);
                self.array_at = first;
            }
        }
        match self.framing {
            Some(Framing::Sse) => self.sse(text, end, out),
            Some(Framing::Values) => self.values(text, end, false, out),
            Some(Framing::Array) => self.values(text, end, true, out),
            Some(Framing::Text) | None => Ok(()),
        }
    }

    /// How many object or array values began (NDJSON and lists).
    pub(crate) fn began(&self) -> usize {
        self.begun
    }

    /// How the text frames its events, once its first characters tell.
    pub(crate) fn framing(&self) -> Option<Framing> {
        self.framing
    }

    /// The complete lines from `pos`: (start, end without the line break).
    fn next_line(&mut self, text: &str, end: bool) -> Option<(usize, usize)> {
        let bytes = text.as_bytes();
        let start = self.pos;
        match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => {
                self.pos = start + i + 1;
                let stop = if i > 0 && bytes[start + i - 1] == b'\r' {
                    start + i - 1
                } else {
                    start + i
                };
                Some((start, stop))
            }
            None if end && start < bytes.len() => {
                self.pos = bytes.len();
                Some((start, bytes.len()))
            }
            None => None,
        }
    }

    fn sse(&mut self, text: &str, end: bool, out: &mut Vec<Frame>) -> Result<(), ParseError> {
        while let Some((start, stop)) = self.next_line(text, end) {
            let line = &text[start..stop];
            if line.is_empty() {
                self.dispatch(text, out)?;
                continue;
            }
            let (field, value, value_at) = match line.find(':') {
                Some(0) => continue, // a comment
                Some(c) => {
                    let skip = usize::from(line[c + 1..].starts_with(' '));
                    (&line[..c], &line[c + 1 + skip..], start + c + 1 + skip)
                }
                None => (line, "", stop),
            };
            match field {
                "data" if self.done => {}
                "data" if value == "[DONE]" && self.data.is_none() => self.done = true,
                "data" => match &mut self.data {
                    Some((_, data)) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some((value_at, value.to_string())),
                },
                "event" => self.name = Some(value.to_string()),
                "id" | "retry" => {}
                _ => {
                    return Err(ParseError::new(
                        ErrorCode::Unrecognized,
                        start,
                        format!(
                            "a line of an event stream must be a field (`data:`, `event:`, `id:`, `retry:`) or a comment, found {}",
                            crate::lex::quote(&line.chars().take(24).collect::<String>())
                        ),
                    ))
                }
            }
        }
        if end {
            self.dispatch(text, out)?;
        }
        Ok(())
    }

    /// Ends the SSE event being read.
    fn dispatch(&mut self, text: &str, out: &mut Vec<Frame>) -> Result<(), ParseError> {
        let name = self.name.take();
        let Some((start, data)) = self.data.take() else {
            return Ok(());
        };
        // One `data` line: its JSON is the caller's text; several are joined, and errors point
        // to the first.
        let value = if text[start..].starts_with(data.as_str()) {
            crate::syntax::json::parse_complete_at(&text[..start + data.len()], start)?
        } else {
            crate::syntax::json::parse_complete(&data).map_err(|mut e| {
                e.offset = start;
                e
            })?
        };
        out.push(Frame { value, start, name });
        Ok(())
    }

    /// JSON values one after another: in a list (`list`: `[`, commas, `]`), or separated by
    /// whitespace.
    fn values(&mut self, text: &str, end: bool, list: bool, out: &mut Vec<Frame>) -> Result<(), ParseError> {
        let bytes = text.as_bytes();
        while self.pos < bytes.len() && !self.done {
            let b = bytes[self.pos];
            if let Some(start) = self.element {
                self.pos += 1;
                if self.nesting.byte(b) {
                    self.element = None;
                    self.push_value(text, start, out)?;
                }
                continue;
            }
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b',' if list && self.after_element => {
                    self.after_element = false;
                    self.pos += 1;
                }
                // `]` after a `,` is a trailing comma.
                b']' if list && (self.after_element || self.count == 0) => {
                    self.pos += 1;
                    self.done = true;
                }
                // NDJSON holds objects only (a response text of one object and then an array is
                // malformed, as one-shot reading says); a list holds any values.
                b'{' if !list || !self.after_element => self.start_element(b),
                b'[' if list && !self.after_element => self.start_element(b),
                _ if list && !self.after_element && !matches!(b, b',' | b']') => {
                    // A string or scalar element (not an event, but read as JSON all the same).
                    let stop = match b {
                        b'"' => crate::syntax::json::raw_string_end(bytes, self.pos),
                        _ => bytes[self.pos..]
                            .iter()
                            .position(|&c| matches!(c, b',' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                            .map(|n| self.pos + n),
                    };
                    let Some(stop) = stop.or(end.then_some(bytes.len())) else {
                        return Ok(());
                    };
                    let start = self.pos;
                    self.pos = stop;
                    self.push_value(text, start, out)?;
                }
                // One value and then not an object: one response with more after it, as
                // one-shot reading says.
                _ if !list && self.count == 1 => {
                    return Err(ParseError::new(
                        ErrorCode::JsonUnexpectedToken,
                        self.pos,
                        "expected the end of the JSON value",
                    ))
                }
                // Whatever else breaks a list, the JSON parser says as it says for the whole text.
                _ if list => {
                    crate::syntax::json::parse_complete_at(text, self.array_at)?;
                    return Err(ParseError::new(
                        ErrorCode::JsonUnexpectedToken,
                        self.pos,
                        "expected `,` or `]` between streamed events",
                    ));
                }
                _ => {
                    return Err(ParseError::new(
                        ErrorCode::JsonUnexpectedToken,
                        self.pos,
                        format!(
                            "expected {} between streamed events, found {}",
                            if list { "`,` or `]`" } else { "a JSON object" },
                            crate::lex::show_char(text[self.pos..].chars().next().unwrap_or(' '))
                        ),
                    ))
                }
            }
        }
        if list && self.done {
            // After the list's `]`, only whitespace, as after any one JSON value.
            let after = skip_ws(bytes, self.pos);
            if after < bytes.len() {
                return Err(ParseError::new(
                    ErrorCode::JsonUnexpectedToken,
                    after,
                    "expected the end of the JSON value",
                ));
            }
            self.pos = after;
        }
        if end && (self.element.is_some() || (list && !self.done)) {
            // The error one-shot reading gives: the JSON parser's, over the list, or over the
            // value that is not complete.
            let from = if list {
                self.array_at
            } else {
                self.element.unwrap_or(self.pos)
            };
            crate::syntax::json::parse_complete_at(text, from)?;
            return Err(ParseError::new(
                ErrorCode::JsonUnexpectedEnd,
                bytes.len(),
                if list {
                    "the text ends inside the list of streamed events: expected `]`"
                } else {
                    "the text ends inside a streamed event"
                },
            ));
        }
        Ok(())
    }

    /// An object or array element begins at `pos` with `b`.
    fn start_element(&mut self, b: u8) {
        self.begun += 1;
        self.element = Some(self.pos);
        self.nesting = Nesting::default();
        self.nesting.byte(b);
        self.pos += 1;
    }

    /// Parses the element `text[start..pos]` and adds it.
    fn push_value(&mut self, text: &str, start: usize, out: &mut Vec<Frame>) -> Result<(), ParseError> {
        let value = crate::syntax::json::parse_complete_at(&text[..self.pos], start).map_err(|e| {
            // In a list, the error the JSON parser gives for the whole list (as one-shot reading
            // reads it), which stands in this element.
            match self.framing {
                Some(Framing::Array) => crate::syntax::json::parse_complete_at(text, self.array_at)
                    .err()
                    .unwrap_or(e),
                _ => e,
            }
        })?;
        out.push(Frame {
            value,
            start,
            name: None,
        });
        self.after_element = true;
        self.count += 1;
        Ok(())
    }
}

/// The length of a UTF-8 byte-order mark at the start of `text` (0 when there is none).
pub(crate) fn bom(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}
