//! The template-inference module of the npm package `beacon-toolcall`: `FormatSpec.fromTemplate`
//! (docs/templates.md). It links the core's template renderer (minijinja) and nothing of the
//! parsers' bindings, and `index.js` loads it only when a template is first inferred, so the
//! main module stays small for the callers who never infer one (docs/performance.md: the sizes).
//!
//! It answers in the main module's wire format (`bindings-wasm/src/lib.rs`): `o` + the described
//! spec as JSON, or `e` + a `ToolCallError`'s JSON (code `template.*`, positions in UTF-16
//! units), or `t` + a `TypeError`'s message. Its sink is the main module's own file.
#![cfg(target_family = "wasm")]

// The main module's sink: this module answers through its `answer` only (a parse that builds
// arguments as it reads, `run_answer`, would link every parser's builders here).
#[path = "../../src/sink.rs"]
#[allow(dead_code)]
mod sink;

use beacon_core::host::{self, ArgError, Failure, Host, Input, Op};
use wasm_bindgen::prelude::wasm_bindgen;

/// `FormatSpec.fromTemplate`: the tool-call format `template` writes, described. `template` is
/// the template's text or a `tokenizer_config.json`'s; `bos_token` and `eos_token` replace the
/// config's; `special_tokens` is the JSON array (of strings) `index.js` wrote, added to the
/// config's added tokens.
#[wasm_bindgen]
#[must_use]
pub fn infer_format(
    template: &str,
    bos_token: Option<String>,
    eos_token: Option<String>,
    special_tokens: Option<String>,
) -> String {
    let input = Input::Text(template);
    let output = special_tokens_arg(special_tokens.as_deref())
        .map_err(Failure::Arg)
        .and_then(|special_tokens| {
            let op = Op::InferFormat {
                bos_token,
                eos_token,
                special_tokens,
            };
            host::run(&input, op, Host::JavaScript).map_err(Failure::Parse)
        });
    sink::answer(256, output)
}

/// The `specialTokens` option: a JSON array of strings, or none.
fn special_tokens_arg(json: Option<&str>) -> Result<Vec<String>, ArgError> {
    let Some(json) = json else { return Ok(Vec::new()) };
    let wrong = || ArgError::Type("FormatSpec.fromTemplate(): specialTokens must be an array of strings".to_owned());
    match beacon_core::parse_json(json).map_err(|_| wrong())? {
        beacon_core::Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                beacon_core::Value::String(s) => Ok(s),
                _ => Err(wrong()),
            })
            .collect(),
        _ => Err(wrong()),
    }
}
