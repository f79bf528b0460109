//! Anthropic Messages: `content[]` blocks of type `tool_use` (`id`, `name`, `input`), in a
//! response or in an assistant message as stored in a conversation (`{"role", "content"}`).
//! Blocks the server runs itself (`server_tool_use`, `mcp_tool_use`) are not client calls and are
//! skipped; `text` blocks are text. `content` may also be a plain string (text).

use crate::error::ParseError;
use crate::value::{get, Value};

use super::walk::{self, Found, Source, ROOT};

pub(super) fn messages(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let content_at = ROOT.key("content");
    match get(o, "content") {
        None | Some(Value::Null) => {}
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                let at = content_at.index(i);
                let b = walk::item(ctx, block, &at, "a content block object")?;
                match walk::string(b, "type") {
                    Some("tool_use") => {
                        let id = walk::id(ctx, b, "id", &at)?;
                        found.calls.push(walk::call(ctx, b, &at, id, "input")?);
                    }
                    Some("text") => found.text_value(get(b, "text"), &at.key("text")),
                    _ => {}
                }
            }
        }
        Some(Value::String(s)) => found.text(s, &content_at),
        Some(other) => return Err(ctx.unrecognized(&content_at, "an array of content blocks", other)),
    }
    Ok(())
}
