//! Ollama `/api/chat`: `message.tool_calls[]` of `{"function": {"name", "arguments": {...}}}`
//! (an `id` is read when a version sends one; Ollama's own responses have none), and
//! `message.content` as text; a bare message, as stored in `messages`, is read the same way.

use crate::error::ParseError;
use crate::value::{get, Value};

use super::openai;
use super::walk::{self, Found, Source, ROOT};

pub(super) fn chat(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    match walk::object_at(ctx, o, "message", &ROOT)? {
        Some(m) => openai::message(ctx, m, &ROOT.key("message"), found),
        None if get(o, "message").is_none() => openai::message(ctx, o, &ROOT, found),
        None => Ok(()),
    }
}
