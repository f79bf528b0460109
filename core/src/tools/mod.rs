//! Tools and schemas: the caller's tool list, read once into [`Tools`], tells which calls are
//! real, types the values that formats write as text, and validates the arguments.
//!
//! With a tool list (see [`crate::ParseOptions`] and [`crate::MessageOptions`]):
//!
//! - **Names.** A tagged call (tier 1) to a tool that is not in the list is
//!   `tool_call.unknown_tool`, at its name. A JSON (tier 2) or call-syntax (tier 3) candidate with
//!   an unknown name is not a call: it is content. A tagged call inside reasoning to an unknown
//!   tool is reasoning text. [`UnknownTools`] can keep or drop unknown calls instead.
//! - **Typing.** A value a format writes as text (`xml_invoke`, `qwen3_coder`, `glm45`,
//!   `longcat`'s and `ifm`'s pairs, `step3`, `deepseek_v32` without `string=`, `minicpm`, and
//!   `function_gemma`'s `<escape>` strings among the arguments) is read by its parameter's schema
//!   ([`typing`]). A parameter the schema does not describe keeps the format's own reading. A `minicpm` call's wrapper parameter (`properties` or
//!   `arguments` holding all the arguments) is unwrapped first ([`wrapper`]).
//! - **Validation** ([`validate`]): the first violation is `tool_call.schema` with the JSON
//!   pointer of the offending value ([`crate::ParseError::path`]), the keyword in the message,
//!   and the value's position in the text ([`crate::syntax::origin`]).
//!
//! Parse errors come first: a broken call raises as it does without tools. Then each call, in
//! text order, is named, typed and validated, and the first failure is raised.

mod define;
mod formats;
mod pattern;
mod schema;
mod typing;
mod validate;
mod wrapper;

use std::borrow::Cow;
use std::collections::HashMap;

pub use define::ToolsError;
pub(crate) use validate::Violation;

use crate::call::{Args, Origin, Text, ToolCall};
use crate::error::{ErrorCode, ParseError};
use crate::lex::quote;
use crate::syntax::path::{pointer, Step};
use crate::value::Value;
use schema::{NodeId, Schema};

/// What to do with a call to a tool that is not in the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownTools {
    /// A tagged call is `tool_call.unknown_tool`; a JSON or call-syntax candidate is content.
    #[default]
    Error,
    /// Every call is returned, known or not; unknown ones are neither typed nor validated.
    Keep,
    /// Tagged calls to unknown tools are left out of the result (their text is not content
    /// either); JSON and call-syntax candidates are content, as with `Error`.
    Drop,
}

/// A tool list, read once from definitions in any common shape (see [`Tools::from_value`]) and
/// reused for every parse.
#[derive(Debug, Clone)]
pub struct Tools {
    tools: Vec<Tool>,
    by_name: HashMap<String, usize>,
}

/// One tool: its name and, when the definition has one, its compiled parameters schema.
#[derive(Debug, Clone)]
pub struct Tool {
    name: String,
    /// The schema as written, for equality.
    source: Option<Value>,
    schema: Option<Schema>,
}

/// How arguments break a tool's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaViolation {
    /// The JSON pointer of the offending value in the arguments (`""` for the arguments).
    pub path: String,
    /// The schema keyword that failed (`required`, `enum`, `type`, …).
    pub keyword: &'static str,
    pub message: String,
}

impl Tool {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Checks `arguments` against the tool's schema (always valid without one): the first
    /// violation, in the order the `docs/tools.md` gives.
    pub fn validate(&self, arguments: &crate::value::Object) -> Result<(), SchemaViolation> {
        let Some(schema) = &self.schema else {
            return Ok(());
        };
        match validate::first_violation(schema, 0, &Value::Object(arguments.clone())) {
            None => Ok(()),
            Some(v) => Err(SchemaViolation {
                path: pointer(&v.path),
                keyword: v.keyword,
                message: v.message,
            }),
        }
    }

    /// The parameters schema as the definition wrote it (`None`: any arguments).
    pub fn parameters(&self) -> Option<&Value> {
        self.source.as_ref()
    }
}

impl PartialEq for Tools {
    fn eq(&self, other: &Self) -> bool {
        self.tools.len() == other.tools.len()
            && self
                .tools
                .iter()
                .zip(&other.tools)
                .all(|(a, b)| a.name == b.name && a.source == b.source)
    }
}

// Parsed JSON holds no NaN, so equality of the schemas is reflexive.
impl Eq for Tools {}

impl Tools {
    /// Reads a list of tool definitions (a JSON array value). Each entry is a name, or a
    /// definition in the OpenAI Chat, OpenAI Responses, Anthropic, Gemini or MCP shape (see the
    /// `docs/tools.md`). A definition that cannot be read, two tools with one name,
    /// or a schema beacon cannot use is an error naming the entry.
    pub fn from_value(list: &Value) -> Result<Tools, ToolsError> {
        match list {
            Value::Array(items) => Tools::from_definitions(items),
            other => Err(ToolsError::kind(
                "tools",
                format!("the tools must be a list of definitions, found {}", other.kind()),
            )),
        }
    }

    /// [`Tools::from_value`] of the JSON text `json`.
    pub fn from_json(json: &str) -> Result<Tools, ToolsError> {
        let value = crate::syntax::json::parse_complete(json)
            .map_err(|e| ToolsError::value("tools", format!("not valid JSON: {e}")))?;
        Tools::from_value(&value)
    }

    /// [`Tools::from_value`] of the definitions in `list`.
    pub fn from_definitions(list: &[Value]) -> Result<Tools, ToolsError> {
        let mut tools = Vec::new();
        let mut by_name = HashMap::new();
        for d in define::definitions(list)? {
            if by_name.contains_key(&d.name) {
                return Err(ToolsError::value(
                    d.entry,
                    format!("two tools are named {}", quote(&d.name)),
                ));
            }
            let schema = match d.schema {
                Some((key, value)) => Some(Schema::compile(value, &format!("{} {key}", d.entry))?),
                None => None,
            };
            by_name.insert(d.name.clone(), tools.len());
            tools.push(Tool {
                name: d.name,
                source: d.schema.map(|(_, v)| v.clone()),
                schema,
            });
        }
        Ok(Tools { tools, by_name })
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// The tools, in the order given.
    pub fn iter(&self) -> impl Iterator<Item = &Tool> {
        self.tools.iter()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The schema keywords in these definitions that beacon does not check, as `(tool, JSON
    /// pointer of the schema, keyword)`: a caller that must rely on them checks them itself.
    pub fn unchecked(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for tool in &self.tools {
            for (keyword, at) in tool.schema.iter().flat_map(|s| &s.unchecked) {
                out.push((tool.name.clone(), at.clone(), keyword.clone()));
            }
        }
        out
    }
}

/// Names, types and validates `calls` (found in `text`) against `tools`; with `repair`, a call
/// that breaks its schema only because one parameter wraps its arguments is unwrapped, with a
/// receipt ([`check_repairing`]).
pub(crate) fn apply(
    text: &str,
    calls: Vec<ToolCall>,
    tools: &Tools,
    validate: bool,
    unknown: UnknownTools,
    repair: bool,
) -> Result<Vec<ToolCall>, ParseError> {
    Ok(apply_each(text, calls, tools, validate, unknown, repair)?
        .into_iter()
        .map(|(_, call)| call)
        .collect())
}

/// [`apply`], each kept call with its index in `calls`.
pub(crate) fn apply_each(
    text: &str,
    calls: Vec<ToolCall>,
    tools: &Tools,
    validate: bool,
    unknown: UnknownTools,
    repair: bool,
) -> Result<Vec<(usize, ToolCall)>, ParseError> {
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.into_iter().enumerate() {
        let checked = if repair {
            check_repairing(text, call, tools, validate, unknown)
        } else {
            check(text, call, tools, validate, unknown)
        };
        if let Some(call) = checked? {
            out.push((i, call));
        }
    }
    Ok(out)
}

impl Tool {
    /// The first violation of `arguments` against the tool's schema (none without a schema).
    /// The arguments are borrowed back as a value for the check, not copied.
    pub(crate) fn violation(&self, arguments: &mut crate::value::Object) -> Option<validate::Violation> {
        let schema = self.schema.as_ref()?;
        let value = Value::Object(std::mem::take(arguments));
        let violation = validate::first_violation(schema, 0, &value);
        if let Value::Object(o) = value {
            *arguments = o;
        }
        violation
    }
}

impl validate::Violation {
    /// `tool_call.schema` at `offset` for this violation of the arguments of `name` (written
    /// `where_` in the input: empty, or ` at <path>`), with the JSON pointer as its path.
    pub(crate) fn error(&self, name: &str, where_: &str, offset: usize) -> ParseError {
        let path = pointer(&self.path);
        let message = format!(
            "the arguments of {}{where_} break its schema at {}: {} ({})",
            quote(name),
            show(&path),
            self.message,
            self.keyword
        );
        ParseError::new(ErrorCode::Schema, offset, message).with_path(path)
    }
}

/// Names, types and validates one call (found in `text`): the call to return, or `None` when
/// `unknown` drops it.
pub(crate) fn check(
    text: &str,
    mut call: ToolCall,
    tools: &Tools,
    validate: bool,
    unknown: UnknownTools,
) -> Result<Option<ToolCall>, ParseError> {
    let Some(tool) = tools.get(&call.name) else {
        return match unknown {
            UnknownTools::Error => Err(unknown_tool(text, &call, tools)),
            UnknownTools::Keep => Ok(Some(call)),
            UnknownTools::Drop => Ok(None),
        };
    };
    if let Some(schema) = &tool.schema {
        if call.format == crate::call::Format::Minicpm {
            wrapper::unwrap(text, &mut call, &wrapper::MINICPM, |key| declares(schema, 0, key, 0));
        }
        type_arguments(text, &mut call, schema, validate)?;
        if validate {
            if let Some(v) = tool.violation(&mut call.arguments) {
                let at = call.value_at(text, &v.path);
                return Err(v.error(&call.name, "", at));
            }
        }
    }
    Ok(Some(call))
}

/// [`check`], with the repair `repair.wrapped_arguments`: when the call breaks its tool's schema
/// (`tool_call.schema`) and its only parameter, `arguments` or `input`, which the schema does not
/// name, holds an object that, as the call's arguments, passes, the call has that object as its
/// arguments and a receipt at the object ([`wrapper`]). Otherwise the error stands.
pub(crate) fn check_repairing(
    text: &str,
    call: ToolCall,
    tools: &Tools,
    validate: bool,
    unknown: UnknownTools,
) -> Result<Option<ToolCall>, ParseError> {
    let wrapped = matches!(call.arguments.as_slice(), [(key, _)] if wrapper::REPAIRED.contains(&key.as_str()));
    if !wrapped {
        return check(text, call, tools, validate, unknown);
    }
    let err = match check(text, call.clone(), tools, validate, unknown) {
        Err(err) if err.code == ErrorCode::Schema && err.fix.is_none() => err,
        other => return other,
    };
    let Some(schema) = tools.get(&call.name).and_then(|t| t.schema.as_ref()) else {
        return Err(err);
    };
    let key = call.arguments.first().map(|(k, _)| k.clone()).unwrap_or_default();
    let mut unwrapped = call;
    let Some(at) = wrapper::unwrap(text, &mut unwrapped, &wrapper::REPAIRED, |key| {
        declares(schema, 0, key, 0)
    }) else {
        return Err(err);
    };
    match check(text, unwrapped, tools, validate, unknown) {
        Ok(Some(mut call)) => {
            call.repairs.push(crate::repair::Repair {
                code: crate::repair::RepairCode::WrappedArguments,
                message: format!("the object in the only parameter, `{key}`, was read as the call's arguments"),
                offset: at,
                call_index: None,
            });
            Ok(Some(call))
        }
        _ => Err(err),
    }
}

fn show(path: &str) -> String {
    if path.is_empty() {
        "the top level".to_string()
    } else {
        format!("`{path}`")
    }
}

fn unknown_tool(text: &str, call: &ToolCall, tools: &Tools) -> ParseError {
    ParseError::new(
        ErrorCode::UnknownTool,
        call.name_at(text),
        tools.unknown_message(&call.name),
    )
}

impl Tools {
    /// Why `name` is not a call: it is not in the list, which holds these tools.
    pub(crate) fn unknown_message(&self, name: &str) -> String {
        let mut names: Vec<String> = self.tools.iter().take(8).map(|t| quote(&t.name)).collect();
        if self.len() > 8 {
            names.push(format!("and {} more", self.len() - 8));
        }
        let known = if names.is_empty() {
            "the tool list is empty".to_string()
        } else {
            format!("the tools are {}", names.join(", "))
        };
        format!("{} is not in the tool list; {known}", quote(name))
    }
}

/// Retypes the arguments a format wrote as text by their parameters' schemas: each parameter's
/// text (but those whose format typed them), and FunctionGemma's `<escape>` strings among the
/// arguments.
fn type_arguments(text: &str, call: &mut ToolCall, schema: &Schema, validate: bool) -> Result<(), ParseError> {
    match &call.origin {
        Origin::At {
            args: Args::Params(params),
            ..
        } => {
            for (param, (key, value)) in params.iter().zip(call.arguments.iter_mut()) {
                if param.text == Text::Typed {
                    continue;
                }
                let written = &text[param.value.clone()];
                let raw = match param.text {
                    Text::Xml => crate::lex::decode_entities(written),
                    _ => Cow::Borrowed(written),
                };
                let Some(node) = property(schema, 0, key, 0) else {
                    continue;
                };
                match typing::type_text(schema, node, &raw, validate) {
                    Ok(Some(typed)) => *value = typed,
                    Ok(None) => {}
                    Err(why) => {
                        let err = type_error(&call.name, key, &why, param.value.start);
                        return Err(
                            match escaped_value(text, param.value.clone(), &raw, schema, node, validate) {
                                Some(fix) => err.fix(fix),
                                None => err,
                            },
                        );
                    }
                }
            }
        }
        Origin::At {
            args: Args::Gemma { at, delimiter },
            ..
        } if call.format == crate::call::Format::FunctionGemma => {
            for (key, value) in &mut call.arguments {
                let Value::String(raw) = &*value else { continue };
                match retype(schema, key, raw, validate) {
                    Ok(Some(typed)) => *value = typed,
                    Ok(None) => {}
                    Err(why) => {
                        let path = [Step::Key(key.clone())];
                        let at = crate::syntax::object_literal::locate(text, *at, delimiter, &path);
                        return Err(type_error(&call.name, key, &why, at));
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The reading of `raw` by the schema of the property `key`: `Ok(None)` when the schema does not
/// describe it or allows any type (the format's reading stands), `Err` with the reason when no
/// allowed type fits.
fn retype(schema: &Schema, key: &str, raw: &str, validate: bool) -> Result<Option<Value>, String> {
    match property(schema, 0, key, 0) {
        Some(node) => typing::type_text(schema, node, raw, validate),
        None => Ok(None),
    }
}

/// `tool_call.schema` at `at` for the argument `key` of `name`, whose text fits no type its
/// schema allows.
fn type_error(name: &str, key: &str, why: &str, at: usize) -> ParseError {
    let path = pointer(&[Step::Key(key)]);
    let message = format!("the argument {} of {}: {why}", quote(key), quote(name));
    ParseError::new(ErrorCode::Schema, at, message).with_path(path)
}

/// The repair of a value written as text (at `range`, reading `raw`) that fits no type its
/// schema allows because it is JSON escaped a second time (`[{\"id\": 1}]`): decoded once as the
/// content of a JSON string, it is an object or an array its schema takes. The decoded text takes
/// the value's place (`repair.double_encoded`); text that decoding would give a `<` it did not
/// have (which could close the value's tag) is left as it is.
fn escaped_value(
    text: &str,
    range: std::ops::Range<usize>,
    raw: &str,
    schema: &Schema,
    node: NodeId,
    validate: bool,
) -> Option<crate::repair::Fix> {
    let written = &text[range.clone()];
    if raw != written || !written.contains('\\') {
        return None;
    }
    let trimmed = written.trim();
    let Ok(Value::String(decoded)) = crate::syntax::json::parse_complete(&format!("\"{trimmed}\"")) else {
        return None;
    };
    if decoded.matches('<').count() != trimmed.matches('<').count() {
        return None;
    }
    match typing::type_text(schema, node, &decoded, validate) {
        Ok(Some(Value::Object(_) | Value::Array(_))) => {}
        _ => return None,
    }
    let start = range.start + (written.len() - written.trim_start().len());
    Some(crate::repair::Fix {
        code: crate::repair::RepairCode::DoubleEncoded,
        at: start,
        range: start..start + trimmed.len(),
        insert: decoded,
        message: "a value JSON-escaped a second time was decoded once".to_owned(),
    })
}

/// The schema of the property `key` of an object schema: under `properties` (here, behind its
/// `$ref` or in its `allOf`), else its `additionalProperties`.
fn property(schema: &Schema, id: NodeId, key: &str, depth: usize) -> Option<NodeId> {
    if depth > 16 {
        return None;
    }
    let n = schema.node(id);
    if let Some((_, sub)) = n.properties.iter().find(|(k, _)| k == key) {
        return Some(*sub);
    }
    let nested = n.reference.into_iter().chain(n.all_of.iter().copied());
    for sub in nested {
        if let Some(found) = property(schema, sub, key, depth + 1) {
            return Some(found);
        }
    }
    if let Some((_, sub)) = n.pattern_properties.iter().find(|(p, _)| p.is_match(key)) {
        return Some(*sub);
    }
    n.additional_properties
}

/// Whether an object schema names the property `key` under `properties` (here, behind its `$ref`
/// or in its `allOf`).
fn declares(schema: &Schema, id: NodeId, key: &str, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let n = schema.node(id);
    n.properties.iter().any(|(k, _)| k == key)
        || n.reference
            .into_iter()
            .chain(n.all_of.iter().copied())
            .any(|sub| declares(schema, sub, key, depth + 1))
}
