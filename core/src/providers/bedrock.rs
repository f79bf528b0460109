//! AWS Bedrock Converse: `output.message.content[]` blocks (or, for an assistant message as stored
//! in a conversation, `content[]` at the top); a `toolUse` block is a call (`toolUseId`, `name`,
//! `input`), a `text` block is text.

use crate::error::ParseError;
use crate::value::{get, Value};

use super::walk::{self, At, Found, Source, ROOT};

pub(super) fn converse(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let output_at = ROOT.key("output");
    let message_at = output_at.key("message");
    match walk::object_at(ctx, o, "output", &ROOT)? {
        Some(output) => match walk::object_at(ctx, output, "message", &output_at)? {
            Some(m) => message(ctx, m, &message_at, found),
            None => Ok(()),
        },
        None if get(o, "output").is_none() => message(ctx, o, &ROOT, found),
        None => Ok(()),
    }
}

/// A message `{"role", "content": [blocks]}` at `at`.
fn message(ctx: &Source<'_>, m: &crate::value::Object, at: &At<'_>, found: &mut Found) -> Result<(), ParseError> {
    let Some(blocks) = walk::array_at(ctx, m, "content", at)? else {
        return Ok(());
    };
    let content_at = at.key("content");
    for (i, block) in blocks.iter().enumerate() {
        let at = content_at.index(i);
        let b = walk::item(ctx, block, &at, "a content block object")?;
        let use_at = at.key("toolUse");
        match get(b, "toolUse") {
            None | Some(Value::Null) => {}
            Some(Value::Object(tu)) => {
                let id = walk::id(ctx, tu, "toolUseId", &use_at)?;
                found.calls.push(walk::call(ctx, tu, &use_at, id, "input")?);
            }
            Some(other) => {
                return Err(ctx.unrecognized(&use_at, "an object with `toolUseId`, `name` and `input`", other))
            }
        }
        found.text_value(get(b, "text"), &at.key("text"));
    }
    Ok(())
}
