//! MiniCPM 5's wrapper parameter: the model sometimes writes all of a call's arguments as one
//! parameter, `properties` or `arguments`, whose value is an object
//! (`<param name="properties">{'phone_number': '555'}</param>`). With a tool list, a `minicpm`
//! call whose only parameter is named so, where the tool's schema does not name it under
//! `properties`, and whose text reads as an object (JSON, or a Python dict), has that object as
//! its arguments. When the schema names the parameter, it is a parameter like any other (and
//! without a tool list nothing says it is a wrapper).

use crate::call::{Args, Origin, ToolCall};
use crate::lex::skip_ws;
use crate::value::Value;

/// MiniCPM 5's wrapper parameter, with a tool list (see the module's doc): when `call` has one
/// parameter, named `properties` or `arguments`, that the tool's schema does not name
/// (`declared` says which names it does), and its text reads as an object (JSON, or a Python
/// dict), the call's arguments become that object.
pub(crate) fn unwrap(text: &str, call: &mut ToolCall, declared: impl Fn(&str) -> bool) {
    let Origin::At {
        args: Args::Params(params),
        ..
    } = &call.origin
    else {
        return;
    };
    let ([param], [(key, _)]) = (params.as_slice(), call.arguments.as_slice()) else {
        return;
    };
    if !matches!(key.as_str(), "properties" | "arguments") || declared(key) {
        return;
    }
    let raw = &text[param.value.clone()];
    let at = skip_ws(text.as_bytes(), param.value.start);
    let (value, args) = match crate::syntax::json::probe_complete(raw.trim()) {
        Some(v) => (v, Args::Json(at)),
        None => match crate::syntax::callsyntax::literal_complete(raw) {
            Some(v) => (v, Args::Literal(at)),
            None => return,
        },
    };
    let Value::Object(arguments) = value else {
        return;
    };
    call.arguments = arguments;
    if let Origin::At { args: a, .. } = &mut call.origin {
        *a = args;
    }
}
