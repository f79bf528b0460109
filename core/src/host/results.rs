//! The readers of the `results` argument of `format_results` and the `calls` argument of
//! `format_calls`.

use crate::lex::quote;
use crate::providers::{ProviderCall, ToolResult};
use crate::value::Value;

use super::{ArgError, Host};

const KEYS: &str = "'id', 'name', 'content' and 'is_error' (or 'isError')";

/// The tool results in `results` (the caller's list, decoded): each a mapping with `content`
/// (any value) and optionally `id` and `name` (a string or null) and `is_error` (a boolean; also
/// spelled `isError`). Any other key is an error, so a misspelt `is_error` never passes.
pub fn read_results(func: &str, results: Value, host: Host) -> Result<Vec<ToolResult>, ArgError> {
    read_list(func, "results", results, host, one)
}

/// The items of the caller's list `value` (the argument `arg`), each read by `item` with its path.
fn read_list<T>(
    func: &str,
    arg: &str,
    value: Value,
    host: Host,
    item: fn(&str, Value, &str, Host) -> Result<T, ArgError>,
) -> Result<Vec<T>, ArgError> {
    let Value::Array(items) = value else {
        return Err(ArgError::Type(format!(
            "{func}(): {arg} must be a list of {arg}, not {}",
            host.type_name(&value)
        )));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let mut path = String::from(arg);
            host.push_index(&mut path, i);
            item(func, value, &path, host)
        })
        .collect()
}

fn one(func: &str, item: Value, path: &str, host: Host) -> Result<ToolResult, ArgError> {
    let words = host.words();
    let Value::Object(fields) = item else {
        return Err(ArgError::Type(format!(
            "{func}(): {path} must be {} with {KEYS}, not {}",
            words.mapping,
            host.type_name(&item)
        )));
    };
    let mut result = ToolResult {
        id: None,
        name: None,
        content: Value::Null,
        is_error: false,
    };
    let (mut content, mut error_key) = (false, None);
    for (key, value) in fields {
        let mut at = path.to_owned();
        host.push_key(&mut at, &key);
        let wrong =
            |what: &str, v: &Value| ArgError::Type(format!("{func}(): {at} must be {what}, not {}", host.type_name(v)));
        match (key.as_str(), value) {
            ("id" | "name", Value::Null) => {}
            ("id", Value::String(s)) => result.id = Some(s),
            ("name", Value::String(s)) => result.name = Some(s),
            ("id" | "name", v) => return Err(wrong(words.optional_string, &v)),
            ("content", v) => {
                result.content = v;
                content = true;
            }
            (k @ ("is_error" | "isError"), v) => {
                if error_key.is_some() {
                    return Err(ArgError::Type(format!(
                        "{func}(): {path} has both isError and is_error; give one"
                    )));
                }
                error_key = Some(k == "is_error");
                match v {
                    Value::Bool(b) => result.is_error = b,
                    other => return Err(wrong(words.boolean, &other)),
                }
            }
            (other, _) => {
                return Err(ArgError::Type(format!(
                    "{func}(): {path} has an unknown key {}; a result has {KEYS}",
                    quote(other)
                )))
            }
        }
    }
    if !content {
        return Err(ArgError::Type(format!("{func}(): {path} has no 'content'")));
    }
    Ok(result)
}

const CALL_KEYS: &str = "'id', 'name' and 'arguments' (and, as parse_message writes them, 'format' and 'span')";

/// The calls in `calls` (the caller's list, decoded): each a mapping with `name` (a string),
/// `arguments` (a mapping) and optionally `id` (a string or null); `format` and `span`, which
/// `parse_message` adds, are allowed and ignored, so its calls can be passed as they are. Any
/// other key is an error.
pub fn read_calls(func: &str, calls: Value, host: Host) -> Result<Vec<ProviderCall>, ArgError> {
    read_list(func, "calls", calls, host, call)
}

#[allow(
    clippy::match_same_arms,
    reason = "the arms say different things that happen to be handled alike"
)]
fn call(func: &str, item: Value, path: &str, host: Host) -> Result<ProviderCall, ArgError> {
    let words = host.words();
    let Value::Object(fields) = item else {
        return Err(ArgError::Type(format!(
            "{func}(): {path} must be {} with {CALL_KEYS}, not {}",
            words.mapping,
            host.type_name(&item)
        )));
    };
    let (mut id, mut name, mut arguments) = (None, None, None);
    for (key, value) in fields {
        let mut at = path.to_owned();
        host.push_key(&mut at, &key);
        let wrong =
            |what: &str, v: &Value| ArgError::Type(format!("{func}(): {at} must be {what}, not {}", host.type_name(v)));
        match (key.as_str(), value) {
            ("id", Value::Null) => {}
            ("id", Value::String(s)) => id = Some(s),
            ("id", v) => return Err(wrong(words.optional_string, &v)),
            ("name", Value::String(s)) => name = Some(s),
            ("name", v) => return Err(wrong(words.string, &v)),
            ("arguments", Value::Object(o)) => arguments = Some(o),
            ("arguments", v) => return Err(wrong(words.mapping, &v)),
            ("format" | "span", _) => {}
            (other, _) => {
                return Err(ArgError::Type(format!(
                    "{func}(): {path} has an unknown key {}; a call has {CALL_KEYS}",
                    quote(other)
                )))
            }
        }
    }
    let missing = |key: &str| ArgError::Type(format!("{func}(): {path} has no '{key}'"));
    Ok(ProviderCall {
        id,
        name: name.ok_or_else(|| missing("name"))?,
        arguments: arguments.ok_or_else(|| missing("arguments"))?,
        repairs: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::json::parse_json;

    fn read(json: &str, host: Host) -> Result<Vec<ToolResult>, ArgError> {
        read_results("f", parse_json(json).unwrap(), host)
    }

    #[test]
    fn results() {
        let ok = read(
            r#"[{"id": "c", "name": null, "content": {"a": 1}, "isError": true}]"#,
            Host::Python,
        )
        .unwrap();
        assert_eq!(ok[0].id.as_deref(), Some("c"));
        assert!(ok[0].is_error && ok[0].name.is_none());
        let message = |json, host| read(json, host).unwrap_err().to_string();
        assert_eq!(
            message(r#"[{"id": 1, "content": ""}]"#, Host::Python),
            r#"f(): results[0]["id"] must be str or None, not int"#
        );
        assert_eq!(
            message(r#"[{"id": 1, "content": ""}]"#, Host::JavaScript),
            "f(): results[0].id must be a string or null, not a number"
        );
        assert!(message(r#"[{"content": "", "is_error": 1}]"#, Host::Python)
            .contains(r#"["is_error"] must be bool, not int"#));
        assert!(message(
            r#"[{"content": "", "is_error": true, "isError": true}]"#,
            Host::JavaScript
        )
        .contains("both"));
        assert!(message(r#"[{"id": "c"}]"#, Host::Python).ends_with("results[0] has no 'content'"));
        assert!(message(r#"[{"content": "", "is_eror": true}]"#, Host::Python).contains(r#"unknown key "is_eror""#));
        assert!(message(r#"["x"]"#, Host::JavaScript).contains("results[0] must be an object with"));
        assert!(message("{}", Host::Python).contains("results must be a list of results, not dict"));
        let calls = |json| read_calls("f", parse_json(json).unwrap(), Host::Python);
        let ok = calls(r#"[{"id": null, "name": "g", "arguments": {"a": 1}, "format": "hermes", "span": [0, 4]}]"#);
        assert_eq!(ok.unwrap()[0].name, "g");
        assert!(calls(r#"[{"name": "g"}]"#)
            .unwrap_err()
            .to_string()
            .ends_with("has no 'arguments'"));
        assert!(calls(r#"[{"name": "g", "arguments": "{}"}]"#)
            .unwrap_err()
            .to_string()
            .contains("must be a dict"));
    }
}
