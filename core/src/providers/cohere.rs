//! Cohere Chat: v1 (top-level `tool_calls[]` of `{name, parameters}`, no ids; `text` is text, and
//! so is `message` in a `CHATBOT` message as stored in `chat_history`) and v2
//! (`message.tool_calls[]` shaped like OpenAI's, `message.content[]` text parts; a bare assistant
//! message, as stored in `messages`, is read the same way; the `tool_plan` is the model's
//! reasoning, not its answer, and is not text).

use crate::error::ParseError;
use crate::value::{get, Value};

use super::openai;
use super::walk::{self, Found, Source, ROOT};

pub(super) fn v1(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let calls_at = ROOT.key("tool_calls");
    for (i, item) in walk::array_at(ctx, o, "tool_calls", &ROOT)?
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let at = calls_at.index(i);
        let call = walk::item(ctx, item, &at, "an object with `name` and `parameters`")?;
        found.calls.push(walk::call(ctx, call, &at, None, "parameters")?);
    }
    found.text_value(get(o, "text"), &ROOT.key("text"));
    found.text_value(get(o, "message"), &ROOT.key("message"));
    Ok(())
}

pub(super) fn v2(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    match walk::object_at(ctx, o, "message", &ROOT)? {
        Some(m) => openai::message(ctx, m, &ROOT.key("message"), found),
        None if get(o, "message").is_none() => openai::message(ctx, o, &ROOT, found),
        None => Ok(()),
    }
}
