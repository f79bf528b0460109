//! What a binding implements to build its own objects ([`Sink`]), and the names of the keys it
//! is asked to write ([`Field`], [`Key`]).

/// The key names of every answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    Id,
    Name,
    Arguments,
    Format,
    Span,
    Content,
    Reasoning,
    ToolCalls,
    State,
    Position,
    Code,
    Message,
    Line,
    Column,
    Path,
    Type,
    Text,
    Index,
    Delta,
    Repairs,
    CallIndex,
    Truncated,
}

impl Field {
    pub const ALL: [Field; 22] = [
        Field::Id,
        Field::Name,
        Field::Arguments,
        Field::Format,
        Field::Span,
        Field::Content,
        Field::Reasoning,
        Field::ToolCalls,
        Field::State,
        Field::Position,
        Field::Code,
        Field::Message,
        Field::Line,
        Field::Column,
        Field::Path,
        Field::Type,
        Field::Text,
        Field::Index,
        Field::Delta,
        Field::Repairs,
        Field::CallIndex,
        Field::Truncated,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Name => "name",
            Field::Arguments => "arguments",
            Field::Format => "format",
            Field::Span => "span",
            Field::Content => "content",
            Field::Reasoning => "reasoning",
            Field::ToolCalls => "tool_calls",
            Field::State => "state",
            Field::Position => "position",
            Field::Code => "code",
            Field::Message => "message",
            Field::Line => "line",
            Field::Column => "column",
            Field::Path => "path",
            Field::Type => "type",
            Field::Text => "text",
            Field::Index => "index",
            Field::Delta => "delta",
            Field::Repairs => "repairs",
            Field::CallIndex => "call_index",
            Field::Truncated => "truncated",
        }
    }
}

/// A key of a mapping: one of the answer's own fields, or a key from the data (an argument's
/// name, a key of a value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'a> {
    Field(Field),
    Data(&'a str),
}

impl Key<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Key::Field(f) => f.as_str(),
            Key::Data(s) => s,
        }
    }
}

/// Where a call's arguments are written in the text a parse read, for a sink that builds them
/// from there later ([`Sink::built`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub(super) at: usize,
    pub(super) grammar: crate::call::Grammar,
}

/// Builds host values. A list is built as `list`, then for each item `item`, the item's value,
/// `push`; a mapping as `map`, then for each entry `key`, the value, `set`. (The calls before an
/// item or value let a writer of text put its separators; a builder of objects ignores them.)
pub trait Sink {
    /// A finished host value.
    type Value;
    /// A list being built.
    type List;
    /// A mapping being built.
    type Map;
    type Error;

    fn null(&mut self) -> Result<Self::Value, Self::Error>;
    fn bool(&mut self, value: bool) -> Result<Self::Value, Self::Error>;
    fn int(&mut self, value: i64) -> Result<Self::Value, Self::Error>;
    /// An integer outside `i64`: its decimal digits, with a leading `-` when negative.
    fn big_int(&mut self, digits: &str) -> Result<Self::Value, Self::Error>;
    fn float(&mut self, value: f64) -> Result<Self::Value, Self::Error>;
    fn str(&mut self, value: &str) -> Result<Self::Value, Self::Error>;
    /// A string from a small fixed set (format ids, provider ids, stream states): a host may
    /// reuse one object per id.
    fn id(&mut self, value: &'static str) -> Result<Self::Value, Self::Error> {
        self.str(value)
    }

    fn list(&mut self, len: usize) -> Result<Self::List, Self::Error>;
    fn item(&mut self, list: &mut Self::List) -> Result<(), Self::Error>;
    fn push(&mut self, list: &mut Self::List, value: Self::Value) -> Result<(), Self::Error>;
    fn end_list(&mut self, list: Self::List) -> Result<Self::Value, Self::Error>;

    fn map(&mut self, len: usize) -> Result<Self::Map, Self::Error>;
    fn key(&mut self, map: &mut Self::Map, key: Key<'_>) -> Result<(), Self::Error>;
    fn set(&mut self, map: &mut Self::Map, value: Self::Value) -> Result<(), Self::Error>;
    fn end_map(&mut self, map: Self::Map) -> Result<Self::Value, Self::Error>;

    /// Called by [`run_into`](super::run_into) once the parse has ended, before the answer (or
    /// the error) is built: the values made before it are the arguments the parse built while
    /// it read, and each is handed to `push` or `set` where the answer places it. A sink of
    /// objects has nothing to do; a sink that writes text in order keeps those values apart
    /// and copies each into place.
    fn parsed(&mut self) {}

    /// Called by [`run_into`](super::run_into) with each call's arguments the parse built while
    /// it read, and where they are written: the value the answer takes in their place. A sink
    /// that can build them from the text later may answer a value that stands for `written`
    /// (a [`Tape`](super::Tape) does for large arguments, to hold less meanwhile); by default,
    /// `value` itself.
    fn built(&mut self, value: Self::Value, written: Written) -> Self::Value {
        let _ = written;
        value
    }
}
