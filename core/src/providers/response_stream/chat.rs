//! OpenAI Chat Completions streams: `chat.completion.chunk` objects, joined as a chunk list is
//! ([`crate::providers::openai`]); a call is reported once its name (and id) came, its arguments
//! as their fragments come, and it ends when the next call of its choice begins or the choice
//! finishes (or at the end, from the joined chunks). A call whose arguments do not parse raises
//! when it ends; a stream that ends inside one raises `tool_call.unclosed`.

use crate::error::{ErrorCode, ParseError};
use crate::value::{get, Value};

use super::super::openai::{Ending, Entry, Stream};
use super::super::walk::{self, At, Found, FoundCall, Source};
use super::Emit;

#[derive(Default)]
pub(super) struct Chat {
    stream: Stream,
    /// Calls of the joined chunks started so far (skipped ones counted), and how much of the
    /// open one's arguments was reported.
    started: usize,
    sent: usize,
}

impl Chat {
    pub(super) fn event(
        &mut self,
        ctx: &Source<'_>,
        value: &Value,
        at: &At<'_>,
        out: &mut Emit,
    ) -> Result<(), ParseError> {
        let o = walk::item(ctx, value, at, "a streamed chunk object")?;
        self.stream.chunk(ctx, o, at, out.found.want_text)?;
        for choice in walk::array(o, "choices").unwrap_or_default() {
            let Some(delta) = choice_delta(choice) else { continue };
            if let Some(Value::String(s)) = get(delta, "content") {
                out.content_event(s);
            }
            for key in ["reasoning_content", "reasoning"] {
                if let Some(Value::String(s)) = get(delta, key) {
                    out.reasoning(s);
                }
            }
        }
        self.report(ctx, out)
    }

    /// Reports what the chunks so far add to the calls: a streamed call starts once its name (and
    /// id) came, its fragments follow, and it ends once closed, complete or raising its error; a
    /// whole message's call is reported whole.
    fn report(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let progress = self.stream.progress();
        loop {
            if out.is_open() {
                let p = &progress[self.started - 1];
                if let Entry::Streamed(partial) = p.entry {
                    out.arguments(&partial.arguments()[self.sent..]);
                    self.sent = partial.arguments().len();
                }
                if !p.closed {
                    return Ok(());
                }
                if let Some(call) = p.complete(ctx)? {
                    out.end(ctx, call, self.sent > 0);
                }
            }
            let Some(p) = progress.get(self.started) else {
                return Ok(());
            };
            match p.entry {
                Entry::Whole(call) => {
                    out.call(ctx, call.clone());
                    self.started += 1;
                }
                Entry::Streamed(partial) if partial.skip() => self.started += 1,
                Entry::Streamed(partial) => {
                    let name = match partial.name() {
                        Some(name) if partial.id().is_some() || p.closed => name,
                        // A closed call without a name raises its error here.
                        None if p.closed => {
                            p.complete(ctx)?;
                            return Ok(());
                        }
                        _ => return Ok(()),
                    };
                    out.start(partial.id().map(str::to_string), name.to_string());
                    self.started += 1;
                    self.sent = 0;
                }
            }
        }
    }

    pub(super) fn finish(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let rest = out
            .is_open()
            .then(|| match self.stream.progress()[self.started - 1].entry {
                Entry::Streamed(partial) => partial.arguments()[self.sent..].to_string(),
                Entry::Whole(_) => String::new(),
            });
        let streamed = self.sent > 0 || rest.as_ref().is_some_and(|r| !r.is_empty());
        let mut found = Found::new(out.found.want_text);
        std::mem::take(&mut self.stream).finish(ctx, &mut found, Ending::Recording)?;
        let done = out.found.calls.len();
        let same =
            |a: &[FoundCall], b: &[FoundCall]| a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.call == b.call);
        if !found.calls.get(..done).is_some_and(|head| same(head, &out.found.calls)) {
            return Err(ParseError::new(
                ErrorCode::Internal,
                0,
                "the streamed calls differ from the joined chunks",
            ));
        }
        // The same calls, now with where they stand in the chunks (for the tools' positions).
        let mut calls = found.calls.into_iter();
        out.found.calls = calls.by_ref().take(done).collect();
        if let Some(rest) = rest {
            let Some(call) = calls.next() else {
                return Err(ParseError::new(
                    ErrorCode::Internal,
                    0,
                    "the stream ends inside a tool call the joined chunks do not hold",
                ));
            };
            out.arguments(&rest);
            out.end(ctx, call, streamed);
        }
        for call in calls {
            out.call(ctx, call);
        }
        out.found.text.append("\n", found.text);
        Ok(())
    }
}

/// The `delta` object of a streamed choice.
fn choice_delta(choice: &Value) -> Option<&crate::value::Object> {
    match choice {
        Value::Object(c) => walk::object(c, "delta"),
        _ => None,
    }
}
