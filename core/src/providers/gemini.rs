//! Gemini: `generateContent` (`candidates[].content.parts[].functionCall` with `name`, `args` and,
//! when present, `id`; a `Content` as stored in a conversation, `{"role": "model", "parts"}`,
//! is read the same way) and the Interactions API (`steps[]`, or the launch-era `outputs[]`, of
//! type `function_call` with `id`, `name`, `arguments`; or the steps as a bare list, as given
//! back as input).

use crate::error::{ErrorCode, ParseError};
use crate::value::{get, Object, Value};

use super::walk::{self, At, Found, Source, ROOT};

pub(super) fn generate_content(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    generate_content_at(ctx, value, &ROOT, found)
}

/// [`generate_content`] for the response at `at` (a chunk of a stream).
#[allow(clippy::similar_names, reason = "the names follow the JSON they walk")]
pub(super) fn generate_content_at(
    ctx: &Source<'_>,
    value: &Value,
    at: &At<'_>,
    found: &mut Found,
) -> Result<(), ParseError> {
    let Value::Object(o) = value else { return Ok(()) };
    let Some(candidates) = walk::array_at(ctx, o, "candidates", at)? else {
        // A `Content` as stored in a conversation: `{"role": "model", "parts": [...]}`.
        return parts(ctx, o, at, found);
    };
    let candidates_at = at.key("candidates");
    for (i, candidate) in candidates.iter().enumerate() {
        let candidate_at = candidates_at.index(i);
        let c = walk::item(ctx, candidate, &candidate_at, "a candidate object")?;
        if let Some(content) = walk::object_at(ctx, c, "content", &candidate_at)? {
            parts(ctx, content, &candidate_at.key("content"), found)?;
        }
        broken_call(ctx, c, &candidate_at)?;
    }
    Ok(())
}

/// Gemini's own word that the model's call could not be read: `finishReason`
/// `MALFORMED_FUNCTION_CALL` is `tool_call.syntax` and `UNEXPECTED_TOOL_CALL` (a call where the
/// request enabled no tools) is `tool_call.unknown_tool`, at the reason, with `finishMessage`
/// (which quotes what the model wrote) in the message. Never `[]`: that is the answer for text.
fn broken_call(ctx: &Source<'_>, candidate: &Object, at: &At<'_>) -> Result<(), ParseError> {
    let (code, what) = match walk::string(candidate, "finishReason") {
        Some("MALFORMED_FUNCTION_CALL") => (ErrorCode::Syntax, "the model's function call was malformed"),
        Some("UNEXPECTED_TOOL_CALL") => (
            ErrorCode::UnknownTool,
            "the model called a tool the request did not enable",
        ),
        _ => return Ok(()),
    };
    let reason = walk::string(candidate, "finishReason").unwrap_or_default();
    let mut message = format!("{}.finishReason is {reason}: {what}", at.show());
    if let Some(detail) = walk::string(candidate, "finishMessage") {
        message.push_str(" (finishMessage: ");
        message.push_str(&crate::lex::quote(detail));
        message.push(')');
    }
    Err(ctx.error(code, &at.key("finishReason"), message))
}

/// The `parts` of the content `content` at `at`: `functionCall` parts are calls, `text` parts
/// (except thought summaries) are text.
fn parts(ctx: &Source<'_>, content: &Object, at: &At<'_>, found: &mut Found) -> Result<(), ParseError> {
    let Some(parts) = walk::array_at(ctx, content, "parts", at)? else {
        return Ok(());
    };
    let parts_at = at.key("parts");
    for (j, part) in parts.iter().enumerate() {
        let at = parts_at.index(j);
        let p = walk::item(ctx, part, &at, "a part object")?;
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
    Ok(())
}

pub(super) fn interactions(ctx: &Source<'_>, value: &Value, found: &mut Found) -> Result<(), ParseError> {
    let o = match value {
        Value::Array(steps) => return steps_of(ctx, steps, &ROOT, found),
        Value::Object(o) => o,
        _ => return Ok(()),
    };
    match walk::array_at(ctx, o, "steps", &ROOT)? {
        Some(steps) => steps_of(ctx, steps, &ROOT.key("steps"), found),
        None => match walk::array_at(ctx, o, "outputs", &ROOT)? {
            Some(outputs) => steps_of(ctx, outputs, &ROOT.key("outputs"), found),
            None => Ok(()),
        },
    }
}

/// The steps of the list at `items_at`: `function_call` steps are calls; `model_output` steps'
/// `text` content (and, in launch-era `outputs[]`, `text` items) is text.
fn steps_of(ctx: &Source<'_>, items: &[Value], items_at: &At<'_>, found: &mut Found) -> Result<(), ParseError> {
    for (i, item) in items.iter().enumerate() {
        let at = items_at.index(i);
        let step = walk::item(ctx, item, &at, "a step object")?;
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
