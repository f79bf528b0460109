//! Anthropic Messages streams: `message_start`, `content_block_start` / `_delta` / `_stop`,
//! `message_delta`, `message_stop`, `ping`. A `tool_use` block is a call: it starts with its id
//! and name, its input streams as `input_json_delta` fragments (joined, they are the input's
//! JSON; none is the block's own `input`, usually `{}`), and it ends at its `content_block_stop`.
//! `text_delta` is text, `thinking_delta` reasoning; blocks the server runs itself
//! (`server_tool_use`, …) are skipped. A delta or stop for a block that never started, a delta of
//! the wrong kind for its block, or a `tool_use` block still open at the end raises.

use std::collections::HashMap;

use crate::error::{ErrorCode, ParseError};
use crate::value::{get, Object, Value};

use super::super::walk::{self, At, Source};
use super::{Emit, Head, Queue};

#[derive(Default)]
pub(super) struct Anthropic {
    /// Open blocks by `index`.
    blocks: HashMap<u64, Block>,
    /// The `tool_use` blocks in order of their start.
    calls: Queue<()>,
}

enum Block {
    Text,
    Thinking,
    Call(usize),
    Other,
}

impl Anthropic {
    pub(super) fn event(
        &mut self,
        ctx: &Source<'_>,
        value: &Value,
        at: &At<'_>,
        out: &mut Emit,
    ) -> Result<(), ParseError> {
        let o = walk::item(ctx, value, at, "a stream event object")?;
        match walk::string(o, "type") {
            Some("content_block_start") => self.start(ctx, o, at)?,
            Some("content_block_delta") => self.delta(ctx, o, at, out)?,
            Some("content_block_stop") => {
                let index = index(ctx, o, at)?;
                match self.blocks.remove(&index) {
                    Some(Block::Call(i)) => self.calls.list[i].1.stopped = true,
                    Some(_) => {}
                    None => return Err(unknown_block(ctx, at, index)),
                }
            }
            _ => {}
        }
        self.calls.report(ctx, out, "input")
    }

    fn start(&mut self, ctx: &Source<'_>, o: &Object, at: &At<'_>) -> Result<(), ParseError> {
        let index = index(ctx, o, at)?;
        let block_at = at.key("content_block");
        let Some(b) = walk::object_at(ctx, o, "content_block", at)? else {
            return Err(ctx.required(at, "content_block", "a content block object", None));
        };
        let block = match walk::string(b, "type") {
            Some("tool_use") => {
                let id = walk::id(ctx, b, "id", &block_at)?;
                let name = walk::name(ctx, b, &block_at)?;
                let input = match get(b, "input") {
                    None | Some(Value::Null) => None,
                    Some(Value::Object(i)) => Some((i.clone(), block_at.key("input").path())),
                    Some(other) => {
                        return Err(ctx.error(
                            ErrorCode::InvalidArguments,
                            &block_at.key("input"),
                            format!(
                                "the input of {} must be an object, found {}",
                                crate::lex::quote(&name),
                                other.kind()
                            ),
                        ))
                    }
                };
                let head = Head {
                    at: block_at.path(),
                    name_at: block_at.key("name").path(),
                    id,
                    name,
                };
                Block::Call(self.calls.start((), head, input))
            }
            Some("text") => Block::Text,
            Some("thinking") => Block::Thinking,
            _ => Block::Other,
        };
        self.blocks.insert(index, block);
        Ok(())
    }

    fn delta(&mut self, ctx: &Source<'_>, o: &Object, at: &At<'_>, out: &mut Emit) -> Result<(), ParseError> {
        let index = index(ctx, o, at)?;
        let delta_at = at.key("delta");
        let Some(d) = walk::object_at(ctx, o, "delta", at)? else {
            return Ok(());
        };
        let block = self.blocks.get(&index).ok_or_else(|| unknown_block(ctx, at, index))?;
        match (walk::string(d, "type"), block) {
            (Some("text_delta"), _) => {
                if let Some(Value::String(s)) = get(d, "text") {
                    out.content(s, &delta_at.key("text"));
                }
            }
            (Some("thinking_delta"), _) => {
                if let Some(Value::String(s)) = get(d, "thinking") {
                    out.reasoning(s);
                }
            }
            (Some("input_json_delta"), Block::Call(i)) => match get(d, "partial_json") {
                Some(Value::String(s)) => self.calls.list[*i]
                    .1
                    .json
                    .push("", s, delta_at.key("partial_json").path()),
                other => return Err(ctx.required(&delta_at, "partial_json", "a string", other)),
            },
            (Some("input_json_delta"), Block::Other) => {}
            (Some("input_json_delta"), _) => {
                return Err(ctx.error(
                    ErrorCode::Unrecognized,
                    &delta_at,
                    format!(
                        "{} streams JSON into content block {index}, which is not a tool_use block",
                        delta_at.show()
                    ),
                ))
            }
            _ => {}
        }
        Ok(())
    }

    pub(super) fn finish(&mut self, ctx: &Source<'_>, out: &mut Emit) -> Result<(), ParseError> {
        self.calls.report(ctx, out, "input")?;
        self.calls.ended(ctx, |name| {
            format!("the stream ends inside the tool_use block of {name} (no content_block_stop)")
        })
    }
}

/// The event's block `index`: a non-negative integer.
fn index(ctx: &Source<'_>, o: &Object, at: &At<'_>) -> Result<u64, ParseError> {
    match get(o, "index") {
        Some(Value::Number(crate::value::Number::Int(i))) if *i >= 0 => Ok(i.unsigned_abs()),
        other => Err(ctx.required(at, "index", "a non-negative integer", other)),
    }
}

fn unknown_block(ctx: &Source<'_>, at: &At<'_>, index: u64) -> ParseError {
    ctx.error(
        ErrorCode::Unrecognized,
        at,
        format!("{} refers to content block {index}, which has not started", at.show()),
    )
}
