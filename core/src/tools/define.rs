//! Tool definitions in the shapes APIs and SDKs write them, read into a name and a parameters
//! schema.
//!
//! | shape | name | schema |
//! | --- | --- | --- |
//! | a string | the string | none: any arguments |
//! | OpenAI Chat `{"type": "function", "function": {...}}` | `function.name` | `function.parameters` |
//! | OpenAI Responses, legacy `functions`, Gemini `FunctionDeclaration` `{"name", "parameters"}` | `name` | `parameters` (or Gemini's `parametersJsonSchema`) |
//! | Anthropic `{"name", "input_schema"}` | `name` | `input_schema` |
//! | MCP `{"name", "inputSchema"}` | `name` | `inputSchema` |
//! | Gemini `Tool` `{"functionDeclarations": [...]}` (or `function_declarations`) | each declaration | each declaration's |
//!
//! A definition without a schema accepts any arguments. An object with a `type` other than
//! `"function"` or `"custom"` and no `name` is a provider's built-in tool (OpenAI's
//! `{"type": "web_search"}`): it has no function calls, and is skipped. Other keys
//! (`description`, `strict`, …) are ignored.

use std::fmt;

use crate::value::{get, Object, Value};

/// A tool list that cannot be read: which entry, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolsError {
    /// Where in the list: `tools[2]`, `tools[0].functionDeclarations[1]`, and for a schema
    /// problem the JSON pointer into the schema (`tools[1] parameters/properties/city`).
    pub entry: String,
    pub message: String,
    /// The problem is a value of the wrong JSON type (Python and JavaScript `TypeError`);
    /// otherwise a wrong value (Python `ValueError`, JavaScript `RangeError`).
    pub wrong_type: bool,
}

impl ToolsError {
    pub(crate) fn value(entry: impl Into<String>, message: impl Into<String>) -> Self {
        ToolsError {
            entry: entry.into(),
            message: message.into(),
            wrong_type: false,
        }
    }

    pub(crate) fn kind(entry: impl Into<String>, message: impl Into<String>) -> Self {
        ToolsError {
            entry: entry.into(),
            message: message.into(),
            wrong_type: true,
        }
    }
}

impl fmt::Display for ToolsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.entry, self.message)
    }
}

impl std::error::Error for ToolsError {}

/// One definition: where it is in the list, its name and its parameters schema.
pub(crate) struct Definition<'v> {
    pub entry: String,
    pub name: String,
    /// The schema's key (`parameters`, `input_schema`, …) and value.
    pub schema: Option<(&'static str, &'v Value)>,
}

/// The definitions in a list of tools.
pub(crate) fn definitions(list: &[Value]) -> Result<Vec<Definition<'_>>, ToolsError> {
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let entry = format!("tools[{i}]");
        match item {
            Value::String(name) => out.push(Definition {
                name: checked_name(&entry, name)?,
                entry,
                schema: None,
            }),
            Value::Object(o) => read_object(entry, o, &mut out)?,
            other => {
                return Err(ToolsError::kind(
                    entry,
                    format!("a tool definition must be an object or a name, found {}", other.kind()),
                ))
            }
        }
    }
    Ok(out)
}

/// Keys of a Gemini `Tool` that hold function declarations.
const DECLARATIONS: [&str; 2] = ["functionDeclarations", "function_declarations"];
/// Keys that hold a parameters schema, in the order they are looked for.
const SCHEMA_KEYS: [&str; 5] = [
    "parameters",
    "input_schema",
    "inputSchema",
    "parametersJsonSchema",
    "parameters_json_schema",
];

fn read_object<'v>(entry: String, o: &'v Object, out: &mut Vec<Definition<'v>>) -> Result<(), ToolsError> {
    if let Some((key, list)) = DECLARATIONS.iter().find_map(|k| get(o, k).map(|v| (*k, v))) {
        let Value::Array(items) = list else {
            return Err(ToolsError::kind(
                format!("{entry}.{key}"),
                format!("`{key}` must be a list of function declarations, found {}", list.kind()),
            ));
        };
        for (j, item) in items.iter().enumerate() {
            let inner = format!("{entry}.{key}[{j}]");
            let Value::Object(d) = item else {
                return Err(ToolsError::kind(
                    inner,
                    format!("a function declaration must be an object, found {}", item.kind()),
                ));
            };
            out.push(function(inner, d)?);
        }
        return Ok(());
    }
    let kind = get(o, "type").and_then(Value::as_str);
    if let Some(f) = get(o, "function") {
        if kind.is_some_and(|k| k != "function") {
            return Err(ToolsError::value(
                entry,
                format!("a tool with a `function` member has the type \"function\", found {kind:?}"),
            ));
        }
        let Value::Object(f) = f else {
            return Err(ToolsError::kind(
                format!("{entry}.function"),
                format!("`function` must be an object, found {}", f.kind()),
            ));
        };
        out.push(function(format!("{entry}.function"), f)?);
        return Ok(());
    }
    if get(o, "name").is_none() && kind.is_some_and(|k| k != "function" && k != "custom") {
        return Ok(()); // a provider's built-in tool: no function calls
    }
    out.push(function(entry, o)?);
    Ok(())
}

/// `{"name", "parameters" | "input_schema" | "inputSchema" | …}`.
fn function(entry: String, o: &Object) -> Result<Definition<'_>, ToolsError> {
    let name = match get(o, "name") {
        Some(Value::String(s)) => checked_name(&entry, s)?,
        Some(other) => {
            return Err(ToolsError::kind(
                format!("{entry}.name"),
                format!("the tool name must be a string, found {}", other.kind()),
            ))
        }
        None => return Err(ToolsError::value(entry, "a tool definition needs a `name`")),
    };
    let mut schemas = SCHEMA_KEYS.iter().filter_map(|k| get(o, k).map(|v| (*k, v)));
    let schema = schemas.next();
    if let Some((second, _)) = schemas.next() {
        let first = schema.map_or("", |(k, _)| k);
        return Err(ToolsError::value(
            entry,
            format!("the tool {name:?} has two schemas, `{first}` and `{second}`"),
        ));
    }
    let schema = match schema {
        Some((_, Value::Null)) | None => None,
        Some((key, v @ (Value::Object(_) | Value::Bool(_)))) => Some((key, v)),
        Some((key, other)) => {
            return Err(ToolsError::kind(
                format!("{entry}.{key}"),
                format!("the schema of {name:?} must be an object, found {}", other.kind()),
            ))
        }
    };
    Ok(Definition { entry, name, schema })
}

fn checked_name(entry: &str, name: &str) -> Result<String, ToolsError> {
    if name.trim().is_empty() {
        return Err(ToolsError::value(entry, "the tool name is empty"));
    }
    Ok(name.to_string())
}
