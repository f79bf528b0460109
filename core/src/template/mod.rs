//! Chat templates: a model's own Jinja template, rendered as its tokenizer renders it
//! ([`render()`]), is the definition of the text the model writes; rendering probe conversations
//! that differ in one thing and diffing the renders tells its tool-call format. Markers come only
//! from those diffs, never from a list of known markers.

mod probe;
mod py;
pub mod render;
mod turn;

pub use crate::formats::spec::{
    ArgumentsEncoding, CallKind, CallToWrite, FormatSpec, IdPosition, JsonLayout, ValueStyle,
};
pub use probe::infer;
pub use render::{render, ChatTemplate, Renderer};
