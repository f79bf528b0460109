//! The option readers: provider ids, format ids, the `ids` option and the tools options, with the
//! errors every host raises for them. `func` is the host's name of the function called, for the message.

use crate::call::FormatSet;
use crate::lex::quote;
use crate::providers::Provider;
use crate::text::message::{IdSeed, Ids};
use crate::text::reasoning::Start;
use crate::tools::{Tools, UnknownTools};
use crate::value::Value;

use super::{ArgError, Host, Located};
use crate::error::Unit;

/// The `provider` option of the reading functions: `"auto"` (detect: `None`) or a provider id.
pub fn provider(func: &str, id: &str) -> Result<Option<Provider>, ArgError> {
    if id == "auto" {
        return Ok(None);
    }
    parse_provider(func, id, true).map(Some)
}

/// The `provider` argument of `format_results`: a provider id (`"auto"` is none).
pub fn provider_id(func: &str, id: &str) -> Result<Provider, ArgError> {
    parse_provider(func, id, false)
}

fn parse_provider(func: &str, id: &str, auto_ok: bool) -> Result<Provider, ArgError> {
    Provider::parse(id).ok_or_else(|| {
        let ids: Vec<String> = Provider::ALL.iter().map(|p| format!("'{p}'")).collect();
        let auto = if auto_ok { "'auto' or " } else { "" };
        ArgError::Value(format!(
            "{func}(): provider must be {auto}one of {}, not {}",
            ids.join(", "),
            quote(id)
        ))
    })
}

/// The `formats` option: every format when `None`, else the formats with these ids. An unknown
/// id is an error naming every valid one.
pub fn formats<'a>(func: &str, ids: Option<impl IntoIterator<Item = &'a str>>) -> Result<FormatSet, ArgError> {
    match ids {
        None => Ok(FormatSet::ALL),
        Some(ids) => FormatSet::from_ids(ids).map_err(|message| ArgError::Value(format!("{func}(): {message}"))),
    }
}

/// The `template=` option, from a format spec as
/// [`FormatSpec::describe`](crate::template::FormatSpec::describe) gives it: the spec (what
/// `format_calls` writes with) and the set of its format alone (join it to the `formats` set
/// of a parse with [`FormatSet::union`]). A spec that is not one is `result.missing_field` or
/// `result.unsupported`, as is one that cannot be read from a text.
pub fn spec(described: &Value) -> Result<(crate::template::FormatSpec, FormatSet), Located> {
    crate::template::FormatSpec::from_value(described)
        .and_then(|spec| {
            let set = FormatSet::EMPTY.with_spec(&spec)?;
            Ok((spec, set))
        })
        .map_err(|e| Located::new(&e, "", Unit::Bytes))
}

/// The `ids` and `id_seed` (`idSeed`) options of `parse_message` and the text stream: nothing
/// (keep the ids the text wrote), `"generate"` (ids from a fresh random seed), or a seed string
/// (deterministic ids, [`Ids::Seeded`]; `ids` may then be nothing or `"generate"`).
pub fn ids(func: &str, value: Option<&str>, seed: Option<&str>, host: Host) -> Result<Ids, ArgError> {
    match (value, seed) {
        (None | Some("generate"), Some(seed)) => Ok(Ids::Seeded(IdSeed::new(seed))),
        (None, None) => Ok(Ids::Keep),
        (Some("generate"), None) => Ok(Ids::Generate),
        (Some(other), _) => {
            let nothing = match host {
                Host::Python => "None",
                Host::JavaScript => "undefined",
            };
            Err(ArgError::Value(format!(
                "{func}(): ids must be {nothing} (keep the ids the text has) or \"generate\", not {}",
                quote(other)
            )))
        }
    }
}

/// The tool definitions (the caller's list, decoded), compiled once into [`Tools`]. A malformed
/// definition is an error naming the entry (`tools[1].function.name: …`): of the wrong JSON type
/// an [`ArgError::Type`], otherwise (no name, two tools with one name, a schema beacon cannot
/// use) an [`ArgError::Value`].
pub fn tools(func: &str, definitions: &Value) -> Result<Tools, ArgError> {
    Tools::from_value(definitions).map_err(|e| {
        let message = format!("{func}(): {e}");
        if e.wrong_type {
            ArgError::Type(message)
        } else {
            ArgError::Value(message)
        }
    })
}

/// The `unknown` option: what a call to a tool not in the list is. Nothing or `"error"` (the
/// default: `tool_call.unknown_tool`), `"keep"` or `"drop"`.
pub fn unknown(func: &str, value: Option<&str>) -> Result<UnknownTools, ArgError> {
    match value {
        None | Some("error") => Ok(UnknownTools::Error),
        Some("keep") => Ok(UnknownTools::Keep),
        Some("drop") => Ok(UnknownTools::Drop),
        Some(other) => Err(ArgError::Value(format!(
            "{func}(): unknown must be \"error\", \"keep\" or \"drop\", not {}",
            quote(other)
        ))),
    }
}

/// The `start` option of a stream: where the text begins. Nothing or `"detect"` (the default:
/// tell from the text, [`Start::Detect`]), `"content"` or `"reasoning"` (the prompt opened a
/// reasoning block).
pub fn start(func: &str, value: Option<&str>) -> Result<Start, ArgError> {
    match value {
        None | Some("detect") => Ok(Start::Detect),
        Some("content") => Ok(Start::Content),
        Some("reasoning") => Ok(Start::Reasoning),
        Some(other) => Err(ArgError::Value(format!(
            "{func}(): start must be \"detect\", \"content\" or \"reasoning\", not {}",
            quote(other)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        assert_eq!(provider("f", "auto"), Ok(None));
        assert_eq!(provider("f", "ollama"), Ok(Some(Provider::Ollama)));
        assert_eq!(provider_id("f", "ollama"), Ok(Provider::Ollama));
        let Err(ArgError::Value(message)) = provider("f", "x") else {
            panic!()
        };
        assert!(
            message.starts_with("f(): provider must be 'auto' or one of 'openai_chat', "),
            "{message}"
        );
        let Err(ArgError::Value(message)) = provider_id("f", "auto") else {
            panic!()
        };
        assert!(
            message.starts_with("f(): provider must be one of 'openai_chat', "),
            "{message}"
        );
        assert!(message.ends_with(", not \"auto\""), "{message}");
        assert_eq!(formats("f", None::<[&str; 0]>), Ok(FormatSet::ALL));
        let Err(ArgError::Value(message)) = formats("f", Some(["hermes", "nope"])) else {
            panic!()
        };
        assert!(
            message.contains("\"nope\"") && message.contains("hermes, bracket"),
            "{message}"
        );
        assert_eq!(ids("f", Some("generate"), None, Host::Python), Ok(Ids::Generate));
        assert_eq!(ids("f", None, None, Host::Python), Ok(Ids::Keep));
        let seeded = Ok(Ids::Seeded(IdSeed::new("request-42")));
        assert_eq!(ids("f", None, Some("request-42"), Host::Python), seeded);
        assert_eq!(ids("f", Some("generate"), Some("request-42"), Host::JavaScript), seeded);
        assert!(ids("f", Some("uuid"), None, Host::JavaScript).is_err());
        assert_eq!(unknown("f", Some("keep")), Ok(UnknownTools::Keep));
        assert_eq!(unknown("f", None), Ok(UnknownTools::Error));
        assert_eq!(start("f", Some("reasoning")), Ok(Start::Reasoning));
        assert_eq!(start("f", None), Ok(Start::Detect));
        assert!(matches!(start("f", Some("think")), Err(ArgError::Value(_))));
        assert!(matches!(unknown("f", Some("ignore")), Err(ArgError::Value(_))));
        let list = crate::syntax::json::parse_json(r#"["a", {"name": 1}]"#).unwrap();
        let Err(ArgError::Type(message)) = tools("Tools", &list) else {
            panic!()
        };
        assert!(message.starts_with("Tools(): tools[1].name: "), "{message}");
        let list = crate::syntax::json::parse_json(r#"["a", "a"]"#).unwrap();
        assert!(matches!(tools("Tools", &list), Err(ArgError::Value(_))));
        assert_eq!(
            tools("Tools", &crate::syntax::json::parse_json(r#"["a"]"#).unwrap())
                .unwrap()
                .len(),
            1
        );
    }
}
