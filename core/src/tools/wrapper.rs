//! MiniCPM 5's wrapper parameter: the model sometimes writes all of a call's arguments as one
//! parameter, `properties` or `arguments`, whose value is an object
//! (`<param name="properties">{'phone_number': '555'}</param>`). With a tool list, a `minicpm`
//! call whose only parameter is named so, where the tool's schema does not name it under
//! `properties`, and whose text reads as an object (JSON, or a Python dict), has that object as
//! its arguments. When the schema names the parameter, it is a parameter like any other (and
//! without a tool list nothing says it is a wrapper).
//!
//! The same reading, for a call of any format whose only parameter is `arguments` or `input`, is
//! the repair `repair.wrapped_arguments` (DeepSeek's DSML calls that put everything in one
//! `arguments` parameter): with a tool list, only when the call as written breaks its tool's
//! schema and the unwrapped one does not ([`crate::tools`]).

use crate::call::{Args, Origin, ToolCall};
use crate::lex::skip_ws;
use crate::value::Value;

/// MiniCPM 5's wrapper parameters.
pub(crate) const MINICPM: [&str; 2] = ["properties", "arguments"];
/// The wrapper parameters that `repair.wrapped_arguments` unwraps.
pub(crate) const REPAIRED: [&str; 2] = ["arguments", "input"];

/// A wrapper parameter, with a tool list (see the module's doc): when `call` has one parameter,
/// named one of `names`, that the tool's schema does not name (`declared` says which names it
/// does), and its text reads as an object (JSON, or a Python dict), the call's arguments become
/// that object. Returns where the object stands when it did.
pub(crate) fn unwrap(
    text: &str,
    call: &mut ToolCall,
    names: &[&str],
    declared: impl Fn(&str) -> bool,
) -> Option<usize> {
    let Origin::At {
        args: Args::Params(params),
        ..
    } = &call.origin
    else {
        return None;
    };
    let ([param], [(key, _)]) = (params.as_slice(), call.arguments.as_slice()) else {
        return None;
    };
    if !names.contains(&key.as_str()) || declared(key) {
        return None;
    }
    let raw = &text[param.value.clone()];
    let at = skip_ws(text.as_bytes(), param.value.start);
    let (value, args) = match crate::syntax::json::probe_complete(raw.trim()) {
        Some(v) => (v, Args::Json(at)),
        None => match crate::syntax::callsyntax::literal_complete(raw) {
            Some(v) => (v, Args::Literal(at)),
            None => return None,
        },
    };
    let Value::Object(arguments) = value else {
        return None;
    };
    call.arguments = arguments;
    if let Origin::At { args: a, .. } = &mut call.origin {
        *a = args;
    }
    Some(at)
}
