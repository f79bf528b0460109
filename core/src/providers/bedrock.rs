//! AWS Bedrock Converse: `output.message.content[]` blocks; a `toolUse` block is a call
//! (`toolUseId`, `name`, `input`), a `text` block is text.

use crate::error::ParseError;
use crate::value::{get, Value};

use super::walk::{self, Ctx, Found, ROOT};

pub(super) fn converse(ctx: &Ctx<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let Some(blocks) = walk::object(o, "output")
        .and_then(|out| walk::object(out, "message"))
        .and_then(|m| walk::array(m, "content"))
    else {
        return Ok(());
    };
    let output_at = ROOT.key("output");
    let message_at = output_at.key("message");
    let content_at = message_at.key("content");
    for (i, block) in blocks.iter().enumerate() {
        let Value::Object(b) = block else { continue };
        let at = content_at.index(i);
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
