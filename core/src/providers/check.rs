//! The caller's tools applied to the calls a reader found, after reading
//! (`docs/tools.md` and `docs/providers.md`):
//!
//! - a call to a tool not in the list is `tool_call.unknown_tool` at its name's value (the opening
//!   quote of the JSON string); `UnknownTools::Keep` returns it unchecked, `Drop` leaves it out;
//! - with `validate`, the arguments are checked against the tool's schema, in response order; the
//!   first violation is `tool_call.schema` at the offending value: in an arguments object, inside
//!   an arguments string holding JSON (the first character of the value's escaped text), or in
//!   the streamed fragment that holds it; a violation of the arguments as a whole (a missing
//!   required property) is at the arguments value, and where no arguments were written at the
//!   name.
//!
//! Provider APIs send arguments as JSON, typed as written: nothing is retyped by the schema (the
//! JSON number `10001` for a `string` parameter is a violation). A response passed as a value has
//! no text: errors are at offset 0, and their messages name the path in the response (and the
//! byte inside an arguments string).

use crate::error::{ErrorCode, ParseError};
use crate::syntax::json;
use crate::tools::{Tools, UnknownTools, Violation};
use crate::value::Value;

use super::walk::{self, ArgsAt, FoundCall, Source};
use super::{ProviderCall, ResponseOptions};
use crate::syntax::path::{borrowed, Step};

/// The calls that stand with `tools`, in order, or the first failure.
pub(super) fn calls(
    ctx: &Source<'_>,
    response: &Value,
    found: Vec<FoundCall>,
    tools: &Tools,
    options: &ResponseOptions<'_>,
) -> Result<Vec<ProviderCall>, ParseError> {
    let mut out = Vec::with_capacity(found.len());
    for mut f in found {
        if call(
            ctx,
            Root::Whole(response),
            &mut f,
            tools,
            options.validate,
            options.unknown,
        )? {
            out.push(f.call);
        }
    }
    Ok(out)
}

/// Where the value at a path is found when there is no text (for the byte inside an arguments
/// string): in the whole response, or, in a stream fed decoded events, in the event at hand.
#[derive(Debug, Clone, Copy)]
pub(super) enum Root<'a> {
    Whole(&'a Value),
    Event(Option<(usize, &'a Value)>),
}

impl<'a> Root<'a> {
    fn get(self, path: &[Step<&'static str>]) -> Option<&'a Value> {
        let (mut value, path) = match self {
            Root::Whole(v) => (Some(v), path),
            Root::Event(Some((i, v))) if path.first() == Some(&Step::Index(i)) => (Some(v), &path[1..]),
            Root::Event(_) => return None,
        };
        for seg in path {
            value = match (value, seg) {
                (Some(Value::Object(o)), Step::Key(k)) => crate::value::get(o, k),
                (Some(Value::Array(items)), Step::Index(i)) => items.get(*i),
                _ => None,
            };
        }
        value
    }
}

/// One call with `tools`: whether it stands (`false`: a call to a tool not in the list, dropped),
/// its arguments checked in place, or its failure. [`calls`] runs it over a response's calls, and
/// a [`super::ResponseStream`] with tools over each call as it ends.
pub(super) fn call(
    ctx: &Source<'_>,
    root: Root<'_>,
    f: &mut FoundCall,
    tools: &Tools,
    validate: bool,
    unknown_tools: UnknownTools,
) -> Result<bool, ParseError> {
    let Some(tool) = tools.get(&f.call.name) else {
        return match unknown_tools {
            UnknownTools::Error => Err(unknown(ctx, f, tools)),
            UnknownTools::Keep => Ok(true),
            UnknownTools::Drop => Ok(false),
        };
    };
    if validate {
        if let Some(v) = tool.violation(&mut f.call.arguments) {
            return Err(schema_error(ctx, root, f, &v));
        }
    }
    Ok(true)
}

fn unknown(ctx: &Source<'_>, f: &FoundCall, tools: &Tools) -> ParseError {
    ParseError::new(
        ErrorCode::UnknownTool,
        ctx.offset(&f.name_at),
        format!(
            "{} (at {})",
            tools.unknown_message(&f.call.name),
            walk::show(&f.name_at)
        ),
    )
}

/// `tool_call.schema` for `v`, positioned at the offending value (`root` finds the arguments
/// string, for the byte inside it when there is no text).
fn schema_error(ctx: &Source<'_>, root: Root<'_>, f: &FoundCall, v: &Violation) -> ParseError {
    let (offset, at, inner) = match &f.args {
        ArgsAt::None => {
            let call = f.name_at.split_last().map_or(&[][..], |(_, call)| call);
            let at = format!(" (none written, in the call at {})", walk::show(call));
            (ctx.offset(&f.name_at), at, None)
        }
        ArgsAt::Value(path) => {
            let at = format!(" at {}", walk::show(path));
            match ctx.src() {
                Some(src) => (crate::syntax::origin::in_json(src, ctx.offset(path), &v.path), at, None),
                None => (
                    0,
                    at,
                    byte_in_string(root, path, v).map(|b| format!("byte {b} of the string")),
                ),
            }
        }
        ArgsAt::Joined(joined) => {
            let inner = json::locate_path(&joined.text, 0, &borrowed(&v.path));
            let (offset, piece) = joined.locate(ctx, inner);
            let at = format!(" (streamed, in the fragment at {piece})");
            let bytes = (!ctx.has_text()).then(|| format!("byte {inner} of the joined arguments"));
            (offset, at, bytes)
        }
    };
    let mut error = v.error(&f.call.name, &at, offset);
    if let Some(inner) = inner {
        error.message = format!("{} (at {inner})", error.message);
    }
    error
}

/// The byte of the offending value inside the arguments string at `path` (none when the
/// arguments are an object), for a response without text.
fn byte_in_string(root: Root<'_>, path: &[Step<&'static str>], v: &Violation) -> Option<usize> {
    match root.get(path) {
        Some(Value::String(s)) => Some(json::locate_path(s, 0, &borrowed(&v.path))),
        _ => None,
    }
}
