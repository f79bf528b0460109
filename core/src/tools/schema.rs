//! A tool's parameters schema, compiled once into nodes: the JSON Schema keywords beacon checks,
//! read into fields, `$ref`s resolved to nodes.
//!
//! Read as written, with two spellings of other dialects accepted: OpenAPI's (Gemini's) upper-case
//! type names (`"STRING"`) and `nullable: true`, and the type names `float`, `int`, `bool`, `str`,
//! `dict` and `list` that some tool definitions use for `number`, `integer`, `boolean`, `string`,
//! `object` and `array`. A keyword beacon does not check is recorded (see
//! [`Schema::unchecked`]), never taken as passed. A schema that cannot mean anything (a type name
//! that is none of these, `required` that is not a list of strings, a `$ref` that points outside the
//! definition or nowhere) is an error when the tools are read.

use std::collections::HashMap;

use super::define::ToolsError;
use super::pattern::Pattern;
use crate::syntax::path::child;
use crate::value::{Number, Object, Value};

pub(crate) type NodeId = usize;

/// JSON types as bits.
pub(crate) const NULL: u8 = 1;
pub(crate) const BOOLEAN: u8 = 2;
pub(crate) const INTEGER: u8 = 4;
pub(crate) const NUMBER: u8 = 8;
pub(crate) const STRING: u8 = 16;
pub(crate) const ARRAY: u8 = 32;
pub(crate) const OBJECT: u8 = 64;
pub(crate) const ANY: u8 = 127;

/// The type names, in the order [`type_names`] lists them.
const TYPE_NAMES: [(&str, u8); 7] = [
    ("null", NULL),
    ("boolean", BOOLEAN),
    ("integer", INTEGER),
    ("number", NUMBER),
    ("string", STRING),
    ("array", ARRAY),
    ("object", OBJECT),
];

/// Other spellings of the type names.
const TYPE_ALIASES: [(&str, u8); 6] = [
    ("float", NUMBER),
    ("int", INTEGER),
    ("bool", BOOLEAN),
    ("str", STRING),
    ("dict", OBJECT),
    ("list", ARRAY),
];

/// The names of the types in `types`, for messages: `"integer or null"`.
pub(crate) fn type_names(types: u8) -> String {
    let names: Vec<&str> = TYPE_NAMES
        .iter()
        .filter(|(_, bit)| types & bit != 0 && !(*bit == INTEGER && types & NUMBER != 0))
        .map(|(n, _)| *n)
        .collect();
    names.join(" or ")
}

/// Keywords that only annotate: nothing to check.
const ANNOTATIONS: [&str; 17] = [
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "title",
    "description",
    "default",
    "examples",
    "example",
    "readOnly",
    "writeOnly",
    "deprecated",
    "nullable",
    "propertyOrdering",
    "$defs",
    "definitions",
    "strict",
];

/// `format` values beacon checks.
pub(crate) const FORMATS: [&str; 7] = ["date-time", "date", "time", "email", "uuid", "ipv4", "ipv6"];

/// One schema (a subschema of the parameters, or the parameters themselves).
#[derive(Debug, Clone, Default)]
pub(crate) struct Node {
    /// `false`: nothing is valid.
    pub never: bool,
    /// The allowed types; `ANY` when `type` is not given.
    pub types: u8,
    pub reference: Option<NodeId>,
    pub enumeration: Option<Vec<Value>>,
    pub constant: Option<Value>,
    pub properties: Vec<(String, NodeId)>,
    pub pattern_properties: Vec<(Pattern, NodeId)>,
    pub additional_properties: Option<NodeId>,
    /// A `patternProperties` pattern could not be compiled: which properties are additional is
    /// unknown, so `additionalProperties` is not checked.
    pub skip_additional: bool,
    pub required: Vec<String>,
    pub property_names: Option<NodeId>,
    pub dependent_required: Vec<(String, Vec<String>)>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub items: Option<NodeId>,
    pub prefix_items: Vec<NodeId>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    pub format: Option<&'static str>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub multiple_of: Option<Number>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    pub all_of: Vec<NodeId>,
    pub not: Option<NodeId>,
}

/// A compiled schema; node 0 is the root.
#[derive(Debug, Clone)]
pub(crate) struct Schema {
    pub nodes: Vec<Node>,
    /// The keywords found and not checked, each with the JSON pointer of its schema.
    pub unchecked: Vec<(String, String)>,
}

impl Schema {
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// Compiles `root` (the parameters schema); `entry` names it in errors.
    pub(crate) fn compile(root: &Value, entry: &str) -> Result<Schema, ToolsError> {
        let mut c = Compiler {
            root,
            entry,
            nodes: Vec::new(),
            by_pointer: HashMap::new(),
            unchecked: Vec::new(),
        };
        c.compile(root, String::new())?;
        Ok(Schema {
            nodes: c.nodes,
            unchecked: c.unchecked,
        })
    }
}

struct Compiler<'a> {
    root: &'a Value,
    entry: &'a str,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, NodeId>,
    unchecked: Vec<(String, String)>,
}

impl Compiler<'_> {
    fn error(&self, pointer: &str, message: impl Into<String>) -> ToolsError {
        ToolsError::value(format!("{} schema {}", self.entry, show_pointer(pointer)), message)
    }

    fn type_error(&self, pointer: &str, message: impl Into<String>) -> ToolsError {
        ToolsError::kind(format!("{} schema {}", self.entry, show_pointer(pointer)), message)
    }

    #[allow(clippy::needless_pass_by_value, reason = "the signature every caller passes in")]
    fn compile(&mut self, schema: &Value, pointer: String) -> Result<NodeId, ToolsError> {
        if let Some(&id) = self.by_pointer.get(&pointer) {
            return Ok(id);
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            types: ANY,
            ..Node::default()
        });
        self.by_pointer.insert(pointer.clone(), id);
        let node = match schema {
            Value::Bool(true) => Node {
                types: ANY,
                ..Node::default()
            },
            Value::Bool(false) => Node {
                never: true,
                types: ANY,
                ..Node::default()
            },
            Value::Object(o) => self.object(o, &pointer)?,
            other => {
                return Err(self.type_error(&pointer, format!("a schema must be an object, found {}", other.kind())))
            }
        };
        self.nodes[id] = node;
        Ok(id)
    }

    fn sub(&mut self, value: &Value, pointer: &str, key: &str) -> Result<NodeId, ToolsError> {
        self.compile(value, child(pointer, key))
    }

    #[allow(
        clippy::too_many_lines,
        reason = "one keyword per arm; splitting it scatters the schema grammar"
    )]
    fn object(&mut self, o: &Object, pointer: &str) -> Result<Node, ToolsError> {
        let mut node = Node {
            types: ANY,
            ..Node::default()
        };
        let nullable = matches!(crate::value::get(o, "nullable"), Some(Value::Bool(true)));
        for (key, value) in o {
            let here = child(pointer, key);
            match key.as_str() {
                "type" => node.types = self.types(value, &here)?,
                "$ref" => node.reference = Some(self.reference(value, &here)?),
                "enum" => match value {
                    Value::Array(items) => node.enumeration = Some(items.clone()),
                    other => {
                        return Err(self.type_error(&here, format!("`enum` must be a list, found {}", other.kind())))
                    }
                },
                "const" => node.constant = Some(value.clone()),
                "properties" => node.properties = self.members(value, &here)?,
                "patternProperties" => {
                    for (pattern, id) in self.members(value, &here)? {
                        match Pattern::new(&pattern) {
                            Ok(compiled) => node.pattern_properties.push((compiled, id)),
                            Err(why) => {
                                self.unchecked
                                    .push((format!("patternProperties ({why})"), pointer.to_string()));
                                node.skip_additional = true;
                            }
                        }
                    }
                }
                "additionalProperties" => node.additional_properties = Some(self.sub(value, pointer, key)?),
                "propertyNames" => node.property_names = Some(self.sub(value, pointer, key)?),
                "required" => node.required = self.strings(value, &here)?,
                "dependentRequired" => {
                    let Value::Object(members) = value else {
                        return Err(self.type_error(&here, "`dependentRequired` must be an object"));
                    };
                    for (k, v) in members {
                        let names = self.strings(v, &child(&here, k))?;
                        node.dependent_required.push((k.clone(), names));
                    }
                }
                "minProperties" => node.min_properties = Some(self.count(value, &here)?),
                "maxProperties" => node.max_properties = Some(self.count(value, &here)?),
                "items" => match value {
                    Value::Array(items) => node.prefix_items = self.list(items, &here)?,
                    _ => node.items = Some(self.sub(value, pointer, key)?),
                },
                "prefixItems" => match value {
                    Value::Array(items) => node.prefix_items = self.list(items, &here)?,
                    other => {
                        return Err(
                            self.type_error(&here, format!("`prefixItems` must be a list, found {}", other.kind()))
                        )
                    }
                },
                "minItems" => node.min_items = Some(self.count(value, &here)?),
                "maxItems" => node.max_items = Some(self.count(value, &here)?),
                "uniqueItems" => node.unique_items = self.boolean(value, &here)?,
                "minLength" => node.min_length = Some(self.count(value, &here)?),
                "maxLength" => node.max_length = Some(self.count(value, &here)?),
                "pattern" => {
                    let Value::String(p) = value else {
                        return Err(self.type_error(&here, "`pattern` must be a string"));
                    };
                    match Pattern::new(p) {
                        Ok(compiled) => node.pattern = Some(compiled),
                        Err(why) => self.unchecked.push((format!("pattern ({why})"), pointer.to_string())),
                    }
                }
                "format" => match value {
                    Value::String(f) => match FORMATS.iter().find(|k| **k == f.as_str()) {
                        Some(known) => node.format = Some(known),
                        None => self.unchecked.push((format!("format: {f}"), pointer.to_string())),
                    },
                    other => {
                        return Err(self.type_error(&here, format!("`format` must be a string, found {}", other.kind())))
                    }
                },
                "minimum" => node.minimum = Some(self.number(value, &here)?),
                "maximum" => node.maximum = Some(self.number(value, &here)?),
                "exclusiveMinimum" | "exclusiveMaximum" => {}
                "multipleOf" => {
                    let n = self.number(value, &here)?;
                    if as_f64(&n) <= 0.0 {
                        return Err(self.error(&here, "`multipleOf` must be greater than 0"));
                    }
                    node.multiple_of = Some(n);
                }
                "anyOf" => node.any_of = self.alternatives(value, &here)?,
                "oneOf" => node.one_of = self.alternatives(value, &here)?,
                "allOf" => node.all_of = self.alternatives(value, &here)?,
                "not" => node.not = Some(self.sub(value, pointer, key)?),
                k if ANNOTATIONS.contains(&k) || k.starts_with("x-") => {}
                k => self.unchecked.push((k.to_string(), pointer.to_string())),
            }
        }
        self.exclusive_bounds(o, pointer, &mut node)?;
        if node.skip_additional && node.additional_properties.is_some() {
            self.unchecked
                .push(("additionalProperties".to_string(), pointer.to_string()));
        }
        if nullable && node.types != ANY {
            node.types |= NULL;
        }
        Ok(node)
    }

    /// `exclusiveMinimum` / `exclusiveMaximum`: a number (draft 6 on), or a boolean that makes
    /// `minimum` / `maximum` exclusive (draft 4).
    fn exclusive_bounds(&self, o: &Object, pointer: &str, node: &mut Node) -> Result<(), ToolsError> {
        for (key, low) in [("exclusiveMinimum", true), ("exclusiveMaximum", false)] {
            let bound = match crate::value::get(o, key) {
                None | Some(Value::Bool(false)) => continue,
                Some(Value::Bool(true)) if low => node.minimum.take(),
                Some(Value::Bool(true)) => node.maximum.take(),
                Some(v) => Some(self.number(v, &child(pointer, key))?),
            };
            if low {
                node.exclusive_minimum = bound;
            } else {
                node.exclusive_maximum = bound;
            }
        }
        Ok(())
    }

    fn types(&self, value: &Value, pointer: &str) -> Result<u8, ToolsError> {
        let one = |v: &Value| -> Result<u8, ToolsError> {
            let Value::String(name) = v else {
                return Err(self.type_error(pointer, format!("a type name must be a string, found {}", v.kind())));
            };
            let lower = if name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
                name.to_ascii_lowercase()
            } else {
                name.clone()
            };
            if lower == "type_unspecified" {
                return Ok(ANY);
            }
            TYPE_NAMES
                .iter()
                .chain(TYPE_ALIASES.iter())
                .find(|(n, _)| *n == lower)
                .map(|(_, bit)| *bit)
                .ok_or_else(|| self.error(pointer, format!("{name:?} is not a JSON Schema type")))
        };
        match value {
            Value::Array(names) => names.iter().try_fold(0, |acc, v| Ok(acc | one(v)?)),
            v => one(v),
        }
    }

    fn reference(&mut self, value: &Value, pointer: &str) -> Result<NodeId, ToolsError> {
        let Value::String(target) = value else {
            return Err(self.type_error(pointer, "`$ref` must be a string"));
        };
        let Some(fragment) = target.strip_prefix('#') else {
            return Err(self.error(
                pointer,
                format!("the $ref {target:?} points outside the tool definition; only local references (#/$defs/…) are resolved"),
            ));
        };
        let decoded = percent_decode(fragment);
        let mut at = self.root;
        for token in decoded.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            let next = match at {
                Value::Object(o) => crate::value::get(o, &token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            };
            at = next.ok_or_else(|| self.error(pointer, format!("the $ref {target:?} points to nothing")))?;
        }
        self.compile(at, decoded)
    }

    fn members(&mut self, value: &Value, pointer: &str) -> Result<Vec<(String, NodeId)>, ToolsError> {
        let Value::Object(members) = value else {
            return Err(self.type_error(
                pointer,
                format!("expected an object of schemas, found {}", value.kind()),
            ));
        };
        members
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.sub(v, pointer, k)?)))
            .collect()
    }

    fn list(&mut self, items: &[Value], pointer: &str) -> Result<Vec<NodeId>, ToolsError> {
        items
            .iter()
            .enumerate()
            .map(|(i, v)| self.sub(v, pointer, &i.to_string()))
            .collect()
    }

    fn alternatives(&mut self, value: &Value, pointer: &str) -> Result<Vec<NodeId>, ToolsError> {
        match value {
            Value::Array(items) if !items.is_empty() => self.list(items, pointer),
            _ => Err(self.type_error(pointer, "expected a non-empty list of schemas")),
        }
    }

    fn strings(&self, value: &Value, pointer: &str) -> Result<Vec<String>, ToolsError> {
        let Value::Array(items) = value else {
            return Err(self.type_error(
                pointer,
                format!("expected a list of property names, found {}", value.kind()),
            ));
        };
        items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(self.type_error(
                    pointer,
                    format!("a property name must be a string, found {}", other.kind()),
                )),
            })
            .collect()
    }

    fn count(&self, value: &Value, pointer: &str) -> Result<u64, ToolsError> {
        match value {
            Value::Number(Number::Int(n)) if *n >= 0 => Ok(n.unsigned_abs()),
            // A whole non-negative float: the cast is exact up to 2^53 and saturates above.
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "whole and non-negative"
            )]
            Value::Number(Number::Float(f)) if *f >= 0.0 && f.fract() == 0.0 => Ok(*f as u64),
            _ => Err(self.type_error(pointer, "expected a non-negative integer")),
        }
    }

    fn number(&self, value: &Value, pointer: &str) -> Result<Number, ToolsError> {
        match value {
            Value::Number(n) => Ok(n.clone()),
            other => Err(self.type_error(pointer, format!("expected a number, found {}", other.kind()))),
        }
    }

    fn boolean(&self, value: &Value, pointer: &str) -> Result<bool, ToolsError> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => Err(self.type_error(pointer, format!("expected true or false, found {}", other.kind()))),
        }
    }
}

fn show_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "(root)".to_string()
    } else {
        pointer.to_string()
    }
}

/// `%XX` escapes of a URI fragment decoded (invalid ones kept as written).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// A number as a float, for comparisons that are not exact.
#[allow(clippy::cast_precision_loss, reason = "a comparison that is not exact")]
pub(crate) fn as_f64(n: &Number) -> f64 {
    match n {
        Number::Int(i) => *i as f64,
        Number::BigInt(s) => s.parse().unwrap_or(f64::NAN),
        Number::Float(f) => *f,
    }
}
