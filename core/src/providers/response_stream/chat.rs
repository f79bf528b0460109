//! OpenAI Chat Completions streams: `chat.completion.chunk` objects, joined as a chunk list is
//! ([`crate::providers::openai`]); a call is reported once its name (and id) came, its arguments
//! as their fragments come, and it ends when the next call of its choice begins or the choice
//! finishes (or at the end, from the joined chunks).

use crate::error::{ErrorCode, ParseError};
use crate::value::{get, Value};

use super::super::openai::{Progress, Stream};
use super::super::walk::{self, ArgsAt, At, Found, FoundCall, Source};
use super::super::ProviderCall;
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
        self.report(ctx, out);
        Ok(())
    }

    /// Reports what the chunks so far add to the calls.
    fn report(&mut self, ctx: &Source<'_>, out: &mut Emit) {
        let progress = self.stream.progress();
        loop {
            if out.is_open() {
                let p = &progress[self.started - 1];
                out.arguments(&p.arguments.text[self.sent..]);
                self.sent = p.arguments.text.len();
                if !p.closed {
                    return;
                }
                match complete(p) {
                    Some(call) => out.end(ctx, call, !p.arguments.text.is_empty()),
                    None => return,
                }
            }
            let Some(p) = progress.get(self.started) else { return };
            if p.skip {
                self.started += 1;
                continue;
            }
            let Some(name) = p.name.filter(|_| p.id.is_some() || p.closed) else {
                return;
            };
            out.start(p.id.map(str::to_string), name.to_string());
            self.started += 1;
            self.sent = 0;
        }
    }

    pub(super) fn finish(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let rest = out
            .is_open()
            .then(|| self.stream.progress()[self.started - 1].arguments.text[self.sent..].to_string());
        let streamed = self.sent > 0 || rest.as_ref().is_some_and(|r| !r.is_empty());
        let whole = self.stream.has_message_calls();
        let mut found = Found::new(out.found.want_text);
        std::mem::take(&mut self.stream).finish(ctx, &mut found)?;
        let done = out.found.calls.len();
        let same =
            |a: &[FoundCall], b: &[FoundCall]| a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.call == b.call);
        if whole || !found.calls.get(..done).is_some_and(|head| same(head, &out.found.calls)) {
            return Err(ParseError::new(
                ErrorCode::Internal,
                0,
                "the streamed calls differ from the joined chunks (interleaved fragments)",
            ));
        }
        // The same calls, now with where they stand in the chunks (for the tools' positions).
        let mut calls = found.calls.into_iter();
        out.found.calls = calls.by_ref().take(done).collect();
        if let Some(rest) = rest {
            let Some(call) = calls.next() else {
                return Err(ParseError::new(
                    ErrorCode::Unclosed,
                    ctx.offset(&[]),
                    "the stream ends inside a tool call whose arguments are not complete",
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

/// A call whose joined arguments are a JSON object (`""` is `{}`, no arguments written), placed
/// where its name and fragments stand.
fn complete(p: &Progress<'_>) -> Option<FoundCall> {
    let (arguments, args) = if p.arguments.text.is_empty() {
        (crate::value::Object::new(), ArgsAt::None)
    } else {
        match crate::syntax::json::parse_complete(&p.arguments.text) {
            Ok(Value::Object(o)) => (o, ArgsAt::Joined(p.arguments.clone())),
            _ => return None,
        }
    };
    Some(FoundCall {
        call: ProviderCall {
            id: p.id.map(str::to_string),
            name: p.name?.to_string(),
            arguments,
        },
        name_at: p.name_at.to_vec(),
        args,
    })
}
