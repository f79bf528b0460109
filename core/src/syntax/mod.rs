//! The value grammars and where a value stands: strict JSON, call syntax, and the shapes of a
//! JSON tool call.

pub(crate) mod callsyntax;
pub(crate) mod json;
pub(crate) mod object_literal;
pub(crate) mod origin;
pub(crate) mod path;
pub(crate) mod plain_shapes;
pub(crate) mod pyliteral;
pub(crate) mod shape;
