//! Gemini: `generateContent` (`candidates[].content.parts[].functionCall` with `name`, `args` and,
//! when present, `id`) and the Interactions API (`steps[]`, or the launch-era `outputs[]`, of
//! type `function_call` with `id`, `name`, `arguments`).

use crate::error::ParseError;
use crate::value::{get, Value};

use super::walk::{self, Ctx, Found, ROOT};

pub(super) fn generate_content(ctx: &Ctx<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let Some(candidates) = walk::array(o, "candidates") else {
        return Ok(());
    };
    let candidates_at = ROOT.key("candidates");
    for (i, candidate) in candidates.iter().enumerate() {
        let Value::Object(c) = candidate else { continue };
        let Some(parts) = walk::object(c, "content").and_then(|content| walk::array(content, "parts")) else {
            continue;
        };
        let candidate_at = candidates_at.index(i);
        let content_at = candidate_at.key("content");
        let parts_at = content_at.key("parts");
        for (j, part) in parts.iter().enumerate() {
            let Value::Object(p) = part else { continue };
            let at = parts_at.index(j);
            let call_at = at.key("functionCall");
            match get(p, "functionCall") {
                None | Some(Value::Null) => {}
                Some(Value::Object(fc)) => {
                    let id = walk::id(ctx, fc, "id", &call_at)?;
                    found.calls.push(walk::call(ctx, fc, &call_at, id, "args")?);
                }
                Some(other) => return Err(ctx.unrecognized(&call_at, "an object with `name` and `args`", other)),
            }
            // Thought summaries (`"thought": true`) are not the answer.
            if !matches!(get(p, "thought"), Some(Value::Bool(true))) {
                found.text_value(get(p, "text"), &at.key("text"));
            }
        }
    }
    Ok(())
}

pub(super) fn interactions(ctx: &Ctx<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let (items, key) = match (walk::array(o, "steps"), walk::array(o, "outputs")) {
        (Some(steps), _) => (steps, "steps"),
        (None, Some(outputs)) => (outputs, "outputs"),
        (None, None) => return Ok(()),
    };
    let items_at = ROOT.key(key);
    for (i, item) in items.iter().enumerate() {
        let Value::Object(step) = item else { continue };
        let at = items_at.index(i);
        match walk::string(step, "type") {
            Some("function_call") => {
                let id = walk::id(ctx, step, "id", &at)?;
                found.calls.push(walk::call(ctx, step, &at, id, "arguments")?);
            }
            // Launch-era `outputs[]` hold content directly.
            Some("text") => found.text_value(get(step, "text"), &at.key("text")),
            Some("model_output") => {
                let Some(content) = walk::array(step, "content") else {
                    continue;
                };
                let content_at = at.key("content");
                for (j, c) in content.iter().enumerate() {
                    if let Value::Object(c) = c {
                        if walk::string(c, "type") == Some("text") {
                            let c_at = content_at.index(j);
                            found.text_value(get(c, "text"), &c_at.key("text"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}
