//! Where a call's name and arguments stand in the text, recorded by the format parsers so that
//! typing and validation can read an argument's raw text and point an error at the offending
//! value. Recording is cheap (a few offsets per call); the walk to a nested value happens only
//! when an error needs its position.
//!
//! A position inside the arguments is found by following the error's path from where the
//! arguments are written: through JSON (also inside a JSON string that holds the arguments, as
//! OpenAI's `arguments` string does), call syntax, Gemma's object literals, or the text of one
//! parameter. Where the path cannot be followed (an XML value with entities), the position is
//! that of the nearest value on the path that can be located.

use std::ops::Range;

use crate::call::{Args, Origin, Param, Text, ToolCall};
use crate::lex::skip_ws;
use crate::syntax::json;
use crate::syntax::path::{borrowed, Step};
use crate::value::Value;

/// The offset reached by `path` from the JSON value at `at`. When that value is a string, the
/// arguments are its content (JSON written inside a JSON string) and the path is followed there.
pub(crate) fn in_json(text: &str, at: usize, path: &[Step]) -> usize {
    let at = skip_ws(text.as_bytes(), at);
    if text.as_bytes().get(at) == Some(&b'"') {
        if let Ok((Value::String(inner), _)) = json::parse_value_at(text, at) {
            let inner_at = json::locate_path(&inner, 0, &borrowed(path));
            return json::raw_offset_in_string(text, at, inner_at);
        }
    }
    json::locate_path(text, at, &borrowed(path))
}

impl ToolCall {
    /// The offset of the call's name in `text`.
    pub(crate) fn name_at(&self, text: &str) -> usize {
        match &self.origin {
            Origin::Unknown => self.span.start,
            Origin::At { name, .. } => *name,
            Origin::Object { at, wrapped, name, .. } => {
                let mut path = Vec::new();
                if *wrapped {
                    path.push(Step::Key("function"));
                }
                path.push(Step::Key(name));
                json::locate_path(text, *at, &path)
            }
        }
    }

    /// The offset in `text` of the value at `path` inside the call's arguments (the arguments
    /// themselves for an empty path).
    pub(crate) fn value_at(&self, text: &str, path: &[Step]) -> usize {
        match &self.origin {
            Origin::Unknown => self.span.start,
            Origin::Object {
                at,
                wrapped,
                args: Some(key),
                ..
            } => {
                let mut base = Vec::new();
                if *wrapped {
                    base.push(Step::Key("function"));
                }
                base.push(Step::Key(key));
                in_json(text, json::locate_path(text, *at, &base), path)
            }
            Origin::Object { .. } => self.name_at(text),
            Origin::At { name, args } => match args {
                Args::None => *name,
                Args::Json(at) => in_json(text, *at, path),
                Args::Call(open) => crate::syntax::callsyntax::locate(text, *open, path),
                Args::Literal(at) => crate::syntax::callsyntax::locate_literal(text, *at, path),
                Args::Gemma { at, delimiter } => crate::syntax::object_literal::locate(text, *at, delimiter, path),
                Args::Params(params) => self.in_params(text, params, path),
            },
        }
    }

    /// A position inside text-valued parameters: the first step names the parameter; deeper
    /// steps are followed in its text as JSON or as a Python literal.
    fn in_params(&self, text: &str, params: &[Param], path: &[Step]) -> usize {
        let Some((Step::Key(key), rest)) = path.split_first() else {
            return self.span.start;
        };
        let index = self.arguments.iter().position(|(k, _)| k == key);
        let Some(param) = index.and_then(|i| params.get(i)) else {
            return self.span.start;
        };
        let raw = &text[param.value.clone()];
        if rest.is_empty() || (param.text == Text::Xml && raw.contains('&')) {
            return param.value.start;
        }
        if param.text == Text::Typed {
            return in_json(text, param.value.start, rest);
        }
        in_text(text, param.value.clone(), rest)
    }
}

/// The offset reached by `path` inside a value written as text, `text[written]` (a parameter's
/// text, a FunctionGemma string typed by its schema): its text is JSON or, when it is not, a
/// Python literal.
pub(crate) fn in_text(text: &str, written: Range<usize>, path: &[Step]) -> usize {
    if json::probe_complete(text[written.clone()].trim()).is_some() {
        return in_json(text, written.start, path);
    }
    crate::syntax::callsyntax::locate_literal(text, skip_ws(text.as_bytes(), written.start), path)
}

/// The offset of `part`, a slice of `text`, in `text`.
pub(crate) fn offset_of(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len())
}
