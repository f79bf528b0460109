//! The streams of the bindings: a model's text ([`ToolCallStream`]) or a provider's response
//! stream ([`ResponseStream`]), fed piece by piece. A binding reads its arguments, calls
//! [`Stream`], and walks the [`Output::Events`] into its sink ([`super::emit`]) or raises the
//! [`Failure`]. Errors are located in the whole stream as the caller fed it, in the caller's
//! units, as the one-shot functions locate them in the whole text.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{ErrorCode, ParseError, Unit};
use crate::providers::{utf8_text, Provider, ResponseStream};
use crate::text::message::MessageOptions;
use crate::text::stream::{Event, ToolCallStream};
use crate::value::Value;

use super::{panic_message, ArgError, Failure, Host, LeftInText, Located, Output, Receipts, ToolOptions};

/// A stream being fed, for one binding object.
#[derive(Debug)]
pub struct Stream {
    kind: Kind,
    host: Host,
    /// The class name, for messages (`ToolCallStream`, `ResponseStream`).
    name: &'static str,
    fed: Fed,
    /// The bytes of a character cut at the end of the last bytes fed.
    partial: Vec<u8>,
    finished: bool,
}

#[derive(Debug)]
enum Kind {
    Text(Box<ToolCallStream>),
    Response(Box<ResponseStream>),
}

/// What the caller feeds a response stream: one kind throughout, since it decides the unit of
/// positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fed {
    Nothing,
    Text,
    Bytes,
    Values,
}

impl Fed {
    const fn what(self) -> &'static str {
        match self {
            Fed::Nothing => "nothing",
            Fed::Text => "text",
            Fed::Bytes => "bytes",
            Fed::Values => "decoded events",
        }
    }
}

impl Stream {
    /// A stream of model output with `parse_message`'s options.
    pub fn text(options: MessageOptions<'_>, host: Host) -> Stream {
        Stream::new(
            Kind::Text(Box::new(ToolCallStream::leaving_arguments(options))),
            "ToolCallStream",
            host,
        )
    }

    /// A provider's response stream (`None`: the API its first event shows) with
    /// `parse_response`'s tools options.
    pub fn response(provider: Option<Provider>, tools: &ToolOptions, host: Host) -> Stream {
        let options = tools.response_options(provider, false);
        Stream::new(
            Kind::Response(Box::new(ResponseStream::with_options(&options))),
            "ResponseStream",
            host,
        )
    }

    fn new(kind: Kind, name: &'static str, host: Host) -> Stream {
        Stream {
            kind,
            host,
            name,
            fed: Fed::Nothing,
            partial: Vec::new(),
            finished: false,
        }
    }

    /// The text fed so far (empty for bytes or decoded events).
    pub fn text_fed(&self) -> &str {
        match (&self.kind, self.fed) {
            (Kind::Text(s), _) => s.text(),
            (Kind::Response(s), Fed::Text) => s.text(),
            (Kind::Response(_), _) => "",
        }
    }

    /// Whether `finish` was called (or a piece failed: the stream then answers that error).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Feeds text: the next delta of the model's output, or a piece of a response stream's text.
    pub fn feed(&mut self, text: &str) -> Result<Output<'_>, Failure> {
        self.begin("feed", Fed::Text)?;
        self.guard(|kind| match kind {
            Kind::Text(s) => s.feed(text),
            Kind::Response(s) => s.feed(text),
        })
    }

    /// `json.invalid_unicode` for a lone `surrogate` at `index` (in the host's units) of the text
    /// the caller was about to feed, `before` being that text up to it: positioned in everything
    /// fed, as the one-shot reading of the whole text would be. The stream is then over, as after
    /// any error: every later `feed` or `finish` is refused.
    pub fn lone_surrogate(&mut self, before: &str, surrogate: u32, index: usize) -> Failure {
        let fed = self.text_fed();
        let unit = self.host.unit();
        let fed_len = match unit {
            Unit::Bytes => fed.len(),
            Unit::CodePoints => fed.chars().count(),
            Unit::Utf16 => fed.encode_utf16().count(),
        };
        let err = super::lone_surrogate_in_text(&format!("{fed}{before}"), surrogate, fed_len + index, unit);
        self.finished = true;
        err.into()
    }

    /// Feeds bytes of a response stream (UTF-8; a character may be cut between two pieces).
    /// Positions are then in bytes.
    pub fn feed_bytes(&mut self, bytes: &[u8]) -> Result<Output<'_>, Failure> {
        self.begin("feed", Fed::Bytes)?;
        let mut joined = std::mem::take(&mut self.partial);
        joined.extend_from_slice(bytes);
        let (text, rest) = match std::str::from_utf8(&joined) {
            Ok(text) => (text, &[][..]),
            Err(e) if e.error_len().is_none() => {
                let (valid, rest) = joined.split_at(e.valid_up_to());
                (std::str::from_utf8(valid).unwrap_or_default(), rest)
            }
            Err(_) => return Err(self.invalid_utf8(&joined)),
        };
        self.partial = rest.to_vec();
        self.guard(|kind| match kind {
            Kind::Response(s) => s.feed(text),
            Kind::Text(s) => s.feed(text),
        })
    }

    /// Feeds one decoded event of a response stream (positions are then 0; the message names
    /// the event by its index).
    pub fn feed_value(&mut self, event: &Value) -> Result<Output<'_>, Failure> {
        self.begin("feed", Fed::Values)?;
        self.guard(|kind| match kind {
            Kind::Response(s) => s.feed_value(event),
            Kind::Text(_) => Err(ParseError::new(
                ErrorCode::Internal,
                0,
                "a text stream reads text only (a bug in the binding)",
            )),
        })
    }

    /// The stream has ended: the rest of the events, or the error of the whole stream.
    pub fn finish(&mut self) -> Result<Output<'_>, Failure> {
        self.begin("finish", Fed::Nothing)?;
        if !self.partial.is_empty() {
            let partial = std::mem::take(&mut self.partial);
            return Err(self.invalid_utf8(&partial));
        }
        self.finished = true;
        self.guard(|kind| match kind {
            Kind::Text(s) => s.finish(),
            Kind::Response(s) => s.finish(),
        })
    }

    /// Checks that the stream takes `what` now.
    fn begin(&mut self, method: &str, what: Fed) -> Result<(), Failure> {
        let name = self.name;
        if self.finished {
            return Err(ArgError::Value(format!(
                "{name}.{method}(): the stream has finished; it takes no more (start a new {name})"
            ))
            .into());
        }
        if what == Fed::Nothing || self.fed == what {
            return Ok(());
        }
        if self.fed != Fed::Nothing {
            return Err(ArgError::Type(format!(
                "{name}.{method}(): the stream was fed {} so far; feed one kind throughout, not {}",
                self.fed.what(),
                what.what()
            ))
            .into());
        }
        self.fed = what;
        Ok(())
    }

    /// Runs one step of the core stream: its events, or its error located (a panic is an
    /// `internal` error). After an error the stream is over.
    fn guard(&mut self, step: impl FnOnce(&mut Kind) -> Result<Vec<Event>, ParseError>) -> Result<Output<'_>, Failure> {
        let result = catch_unwind(AssertUnwindSafe(|| step(&mut self.kind)))
            .unwrap_or_else(|payload| Err(ParseError::new(ErrorCode::Internal, 0, panic_message(&*payload))));
        match result {
            Ok(events) => {
                let receipts = events.iter().flat_map(|e| match e {
                    Event::CallEnd { repairs, .. } => repairs.as_slice(),
                    _ => &[],
                });
                let (text, unit) = self.positions();
                let at = Receipts::new(text, receipts, unit);
                Ok(match &mut self.kind {
                    Kind::Text(s) => Output::Events {
                        events,
                        deferred: s
                            .take_deferred()
                            .into_iter()
                            .map(|(index, deferred)| LeftInText { index, deferred })
                            .collect(),
                        source: s.text(),
                        at,
                    },
                    Kind::Response(_) => Output::Events {
                        events,
                        deferred: Vec::new(),
                        source: "",
                        at,
                    },
                })
            }
            Err(err) => {
                self.finished = true;
                Err(self.locate(&err).into())
            }
        }
    }

    /// `err`, whose offset is a byte offset into everything fed, in the caller's units.
    fn locate(&self, err: &ParseError) -> Located {
        let (text, unit) = self.positions();
        Located::new(err, text, unit)
    }

    /// The text positions stand in (everything fed), and their unit.
    fn positions(&self) -> (&str, Unit) {
        match (&self.kind, self.fed) {
            (Kind::Text(s), _) => (s.text(), self.host.unit()),
            (Kind::Response(s), Fed::Bytes) => (s.text(), Unit::Bytes),
            (Kind::Response(_), Fed::Values) => ("", Unit::Bytes),
            (Kind::Response(s), _) => (s.text(), self.host.unit()),
        }
    }

    /// `json.invalid_utf8` for bytes that are not UTF-8 (`bytes`: the ones not yet fed to the
    /// core), as the one-shot reading of all the bytes reports it.
    fn invalid_utf8(&mut self, bytes: &[u8]) -> Failure {
        self.finished = true;
        let Kind::Response(s) = &self.kind else {
            return ArgError::Type(format!("{}.feed(): text is fed as str", self.name)).into();
        };
        let mut all = s.text().as_bytes().to_vec();
        all.extend_from_slice(bytes);
        let err = match utf8_text(&all) {
            Err(e) => e,
            Ok(_) => ParseError::new(
                ErrorCode::Internal,
                0,
                "bytes judged invalid are valid (a bug in beacon)",
            ),
        };
        let before = std::str::from_utf8(&all[..err.offset.min(all.len())]).unwrap_or_default();
        Located::new(&err, before, Unit::Bytes).into()
    }
}
