//! What a parse returns: one [`ToolCall`] per call, tagged with the [`Format`] it was written in.

use std::ops::Range;

/// Which format a call was written in. The ids ([`Format::as_str`]) are stable; docs/formats.md
/// describes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// `<tool_call>{json}</tool_call>` (Hermes, Qwen, Granite 4, ERNIE, MiMo and many fine-tunes).
    Hermes,
    /// `[TOOL_CALL]name=f;args={...}[/TOOL_CALL]` or `[TOOL_CALL]{json}[/TOOL_CALL]`.
    Bracket,
    /// `[TOOL_CALLS] [{json}, ...]`, `[TOOL_CALLS]f[ARGS]{...}` or `[TOOL_CALLS]f{...}`.
    Mistral,
    /// `<|python_tag|>{"name": ..., "parameters": ...}` or `<|python_tag|>tool.call(k=v)`.
    Llama,
    /// `<invoke name="f"><parameter name="k">v</parameter></invoke>` (also MiniMax-M2).
    XmlInvoke,
    /// `<function=f><parameter=k>v</parameter></function>` (Qwen3-Coder, Qwen3.5, Seed-OSS).
    Qwen3Coder,
    /// DeepSeek V3 / R1: `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a fenced JSON block.
    DeepseekV3,
    /// DeepSeek V3.1: `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}`.
    DeepseekV31,
    /// DeepSeek V3.2 / V4 DSML: `<｜DSML｜invoke name="f">` with typed parameters.
    DeepseekV32,
    /// Step-3: DeepSeek-shaped section tokens around `<steptml:invoke>`.
    Step3,
    /// Kimi K2: `<|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}`.
    KimiK2,
    /// GLM 4.5 / 4.6 / 4.7 / 5: `<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>`.
    Glm45,
    /// LongCat: `<longcat_tool_call>` around JSON or `<longcat_arg_key>` pairs.
    Longcat,
    /// K2-Horizon (IFM): `<ifm|tool_calls><ifm|tool_call>NAME<ifm|arg_key>k</ifm|arg_key>…`.
    Ifm,
    /// MiniCPM 5: `<function name="f"><param name="k">v</param></function>`.
    Minicpm,
    /// gpt-oss Harmony: `<|channel|>commentary to=functions.NAME … <|message|>{json}<|call|>`.
    Harmony,
    /// Gemma 4: `<|tool_call>call:NAME{key:<|"|>text<|"|>}<tool_call|>`.
    Gemma4,
    /// FunctionGemma: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`.
    FunctionGemma,
    /// Python call lists `[f(a=1), g()]`: bare, Llama 4 `<|python_start|>`, LFM2
    /// `<|tool_call_start|>`, Olmo 3 `<function_calls>`.
    Pythonic,
    /// Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}]`.
    CommandR7b,
    /// IBM Granite 3: `<|tool_call|>[{json}]`.
    Granite,
    /// Functionary v3.1: `<function=NAME>{json}</function>`.
    FunctionaryV31,
    /// Functionary v3.2: `>>>NAME\n{json}`.
    FunctionaryV32,
    /// Firefunction v2 and Phi-4-mini: `functools[{json}, ...]`.
    Functools,
    /// NVIDIA Nemotron: `<TOOLCALL>[{json}]</TOOLCALL>`.
    Nemotron,
    /// Apertus: `<|tools_prefix|>[{"NAME": {args}}]<|tools_suffix|>`.
    Apertus,
    /// Jamba, MiniMax-M1, Hunyuan-A13B, Apriel: `<tool_calls>` around a JSON list or one object a line.
    ToolCalls,
    /// InternLM: `<|action_start|><|plugin|>{json}<|action_end|>`.
    Internlm,
    /// GigaChat 3 / 3.1: `function call<|role_sep|>{json}` or `<|function_call|>{json}`.
    Gigachat,
    /// Solar-Open: `<|tool_calls|><|tool_call:begin|>ID<|tool_call:name|>NAME<|tool_call:args|>{json}`.
    SolarOpen,
    /// An OpenAI or Anthropic call shape in JSON, bare, in prose or fenced. Tier 2.
    Json,
    /// Python call syntax, `search(query="rust", limit=5)`. Tier 3.
    Python,
    /// A call in the format a `FormatSpec` describes (one inferred from a chat template, or
    /// written by hand). Not in [`Format::ALL`]: a spec's format is recognised when the caller
    /// gives the spec (`FormatSet::with_spec`).
    Spec,
}

impl Format {
    /// Every format, tier 1 first, then `json` (tier 2) and `python` (tier 3).
    pub const ALL: [Format; 32] = [
        Format::Hermes,
        Format::Bracket,
        Format::Mistral,
        Format::Llama,
        Format::XmlInvoke,
        Format::Qwen3Coder,
        Format::DeepseekV3,
        Format::DeepseekV31,
        Format::DeepseekV32,
        Format::Step3,
        Format::KimiK2,
        Format::Glm45,
        Format::Longcat,
        Format::Ifm,
        Format::Minicpm,
        Format::Harmony,
        Format::Gemma4,
        Format::FunctionGemma,
        Format::Pythonic,
        Format::CommandR7b,
        Format::Granite,
        Format::FunctionaryV31,
        Format::FunctionaryV32,
        Format::Functools,
        Format::Nemotron,
        Format::Apertus,
        Format::ToolCalls,
        Format::Internlm,
        Format::Gigachat,
        Format::SolarOpen,
        Format::Json,
        Format::Python,
    ];

    /// The format's id, a snake_case family name (`hermes`, `deepseek_v31`, `python`, …).
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::Hermes => "hermes",
            Format::Bracket => "bracket",
            Format::Mistral => "mistral",
            Format::Llama => "llama",
            Format::XmlInvoke => "xml_invoke",
            Format::Qwen3Coder => "qwen3_coder",
            Format::DeepseekV3 => "deepseek_v3",
            Format::DeepseekV31 => "deepseek_v31",
            Format::DeepseekV32 => "deepseek_v32",
            Format::Step3 => "step3",
            Format::KimiK2 => "kimi_k2",
            Format::Glm45 => "glm45",
            Format::Longcat => "longcat",
            Format::Ifm => "ifm",
            Format::Minicpm => "minicpm",
            Format::Harmony => "harmony",
            Format::Gemma4 => "gemma4",
            Format::FunctionGemma => "function_gemma",
            Format::Pythonic => "pythonic",
            Format::CommandR7b => "command_r7b",
            Format::Granite => "granite",
            Format::FunctionaryV31 => "functionary_v31",
            Format::FunctionaryV32 => "functionary_v32",
            Format::Functools => "functools",
            Format::Nemotron => "nemotron",
            Format::Apertus => "apertus",
            Format::ToolCalls => "tool_calls",
            Format::Internlm => "internlm",
            Format::Gigachat => "gigachat",
            Format::SolarOpen => "solar_open",
            Format::Json => "json",
            Format::Python => "python",
            Format::Spec => "spec",
        }
    }
}

impl Format {
    /// The format with this id ([`Format::as_str`]), exactly as written.
    pub fn parse(id: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == id)
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// A set of formats: the `formats` option, which formats to recognise. Everything else is
/// content (a marker of a family none of whose formats is in the set is no marker). Besides the
/// built-in formats, a set may hold one format spec (`FormatSet::with_spec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FormatSet {
    bits: u32,
    spec: Option<SpecId>,
}

/// A compiled format spec: its number in the process's table of them (`formats::spec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SpecId(pub(crate) u32);

impl FormatSet {
    /// Every built-in format.
    pub const ALL: FormatSet = FormatSet {
        bits: u32::MAX >> (32 - Format::ALL.len()),
        spec: None,
    };
    /// No format.
    pub const EMPTY: FormatSet = FormatSet { bits: 0, spec: None };

    pub const fn contains(self, format: Format) -> bool {
        match format {
            Format::Spec => self.spec.is_some(),
            _ => self.bits & format.bit() != 0,
        }
    }

    /// Adds a built-in format (a spec's format comes with `FormatSet::with_spec`).
    pub fn insert(&mut self, format: Format) {
        if format != Format::Spec {
            self.bits |= format.bit();
        }
    }

    /// The formats of both sets; `other`'s spec, if it has one, else this set's.
    #[must_use]
    pub const fn union(self, other: FormatSet) -> FormatSet {
        FormatSet {
            bits: self.bits | other.bits,
            spec: match other.spec {
                Some(spec) => Some(spec),
                None => self.spec,
            },
        }
    }

    /// The compiled spec whose format the set holds, if any.
    pub(crate) const fn spec_id(self) -> Option<SpecId> {
        self.spec
    }

    /// The set with the format of the compiled spec `id` (instead of its spec, if it had one).
    pub(crate) const fn with_spec_id(self, id: SpecId) -> FormatSet {
        FormatSet { spec: Some(id), ..self }
    }

    /// The set of the formats with these ids; an unknown id is an error message naming the valid
    /// ones (for bindings: Python `ValueError`, JavaScript `TypeError`).
    pub fn from_ids<'a>(ids: impl IntoIterator<Item = &'a str>) -> Result<FormatSet, String> {
        ids.into_iter()
            .map(|id| {
                Format::parse(id).ok_or_else(|| {
                    let valid: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
                    format!("unknown format id {id:?}; the format ids are: {}", valid.join(", "))
                })
            })
            .collect()
    }

    /// Whether any of `formats` is in the set.
    pub(crate) fn any(self, formats: &[Format]) -> bool {
        formats.iter().any(|&f| self.contains(f))
    }
}

impl Default for FormatSet {
    fn default() -> Self {
        FormatSet::ALL
    }
}

impl FromIterator<Format> for FormatSet {
    fn from_iter<I: IntoIterator<Item = Format>>(iter: I) -> Self {
        let mut set = FormatSet::EMPTY;
        for f in iter {
            set.insert(f);
        }
        set
    }
}

/// One tool call.
#[derive(Clone)]
pub struct ToolCall {
    /// The call's id as the model wrote it (Kimi K2's `functions.NAME:IDX`, Mistral's
    /// `[CALL_ID]`, Command R7B's `tool_call_id`, Solar-Open's id), or `None` where the format
    /// has none.
    pub id: Option<String>,
    pub name: String,
    /// The arguments, keys in the order written.
    pub arguments: crate::value::Object,
    pub format: Format,
    /// The byte range of the call in the input.
    pub span: Range<usize>,
    /// Where the name and arguments are written, for typing by a tool schema and for error
    /// positions. Not part of the call's value: equality and `Debug` leave it out.
    pub(crate) origin: crate::call::Origin,
    /// Where its arguments object is written, when the parse checked it without building it
    /// (`arguments` is then empty; see `shape::Defer::Large`): a host builds them from the text.
    pub(crate) deferred: Option<Deferred>,
    /// What a parse with `repair` mended in this call (see [`Repair`](crate::Repair)); empty otherwise.
    pub repairs: Vec<crate::repair::Repair>,
}

/// Where the arguments of a call are when its `arguments` are empty because they were not built
/// in the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deferred {
    /// Checked and left in the text where they are written, in `grammar`, for the host to build
    /// from there (`shape::Defer::Large`, or a builder that only checks: `shape::CHECK`).
    Text { at: usize, grammar: Grammar },
    /// Built by the host (`shape::Defer::Build`): their handle, and where they are written in the
    /// text (the object's `{`, the argument list's `(`) in which grammar.
    Built { handle: u32, at: usize, grammar: Grammar },
}

/// The grammar a call's arguments are written in, where a host reads them from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    Json,
    /// A JSON string whose whole content is a JSON object (an arguments string).
    JsonString,
    CallSyntax,
    /// Gemma's object literal, as the format writes it (its string delimiter).
    ObjectLiteral(Format),
    /// One text per argument between a format's tags ([`Args::Params`]): built from what the
    /// parse read, never read again from the text.
    Params,
}

impl Deferred {
    /// The same arguments, read from a text that starts `by` bytes later in the caller's.
    pub(crate) fn shifted(self, by: usize) -> Self {
        match self {
            Deferred::Text { at, grammar } => Deferred::Text { at: at + by, grammar },
            Deferred::Built { handle, at, grammar } => Deferred::Built {
                handle,
                at: at + by,
                grammar,
            },
        }
    }
}

impl ToolCall {
    /// A call without an id.
    pub(crate) fn new(name: String, arguments: crate::value::Object, format: Format, span: Range<usize>) -> Self {
        ToolCall {
            id: None,
            name,
            arguments,
            format,
            span,
            origin: crate::call::Origin::default(),
            deferred: None,
            repairs: Vec::new(),
        }
    }

    /// The call with where its name and arguments are written.
    pub(crate) fn with_origin(mut self, origin: crate::call::Origin) -> Self {
        self.origin = origin;
        self
    }

    /// Moves the call's offsets `by` bytes later: it was parsed from a text that starts at `by`
    /// in the caller's.
    pub(crate) fn shift(&mut self, by: usize) {
        self.span = self.span.start + by..self.span.end + by;
        self.origin.shift(by);
        self.deferred = self.deferred.map(|d| d.shifted(by));
    }
}

impl PartialEq for ToolCall {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
            && self.name == other.name
            && self.arguments == other.arguments
            && self.format == other.format
            && self.span == other.span
            && self.repairs == other.repairs
    }
}

#[allow(
    clippy::missing_fields_in_debug,
    reason = "where a call is written is not part of its value"
)]
impl std::fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolCall")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("arguments", &self.arguments)
            .field("format", &self.format)
            .field("span", &self.span)
            .field("repairs", &self.repairs)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_arguments_went_costs_a_call_no_more_than_an_offset() {
        // A text of a million small calls holds a million `ToolCall`s at once.
        assert_eq!(
            std::mem::size_of::<Option<Deferred>>(),
            std::mem::size_of::<Option<usize>>()
        );
    }

    #[test]
    fn all_lists_every_format_in_declaration_order() {
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i, "{f:?}");
            assert_eq!(Format::parse(f.as_str()), Some(f));
        }
        assert!(Format::ALL.len() <= 32, "FormatSet is a u32");
    }

    #[test]
    fn format_sets() {
        let set: FormatSet = [Format::Hermes, Format::Python].into_iter().collect();
        assert!(set.contains(Format::Python) && !set.contains(Format::Json));
        assert!(Format::ALL.into_iter().all(|f| FormatSet::ALL.contains(f)));
        assert_eq!(FormatSet::default(), FormatSet::ALL);
    }
}

/// Where a call's name and arguments are written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Origin {
    /// Not recorded: every position is the start of the call.
    #[default]
    Unknown,
    /// The name starts at `name`; the arguments are written as `args`.
    At { name: usize, args: Args },
    /// A JSON call object that starts at `at` (its `"function"` member when `wrapped`): the name
    /// under the key `name`, the arguments under `args` (`None`: none written).
    Object {
        at: usize,
        wrapped: bool,
        name: &'static str,
        args: Option<&'static str>,
    },
}

/// How a call's arguments are written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Args {
    /// No arguments are written.
    None,
    /// A JSON object at this offset, or a JSON string there whose content is one.
    Json(usize),
    /// Call syntax: the `(` of the argument list at this offset.
    Call(usize),
    /// A Python literal (a dict) at this offset: MiniCPM 5's wrapper parameter.
    Literal(usize),
    /// Gemma's object literal: its `{` at `at`, strings between `delimiter`s.
    Gemma { at: usize, delimiter: &'static str },
    /// One text per argument, in the order of the arguments.
    Params(Vec<Param>),
}

/// The text of one argument's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    /// The value's text in the input (template line breaks already left out).
    pub value: Range<usize>,
    pub text: Text,
}

/// What the text of a parameter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text {
    /// The value as written; its type comes from the schema (or from JSON-first inference).
    Raw,
    /// Like `Raw`, with XML entities to decode first.
    Xml,
    /// The format itself says how to read it (DeepSeek's `string="true|false"`): not retyped.
    Typed,
}

impl Param {
    pub(crate) fn new(value: Range<usize>, text: Text) -> Param {
        Param { value, text }
    }
}

impl Origin {
    /// The origin with every offset moved `by` bytes later (the text it was recorded in starts
    /// at `by` in the caller's text).
    pub(crate) fn shift(&mut self, by: usize) {
        match self {
            Origin::Unknown => {}
            Origin::Object { at, .. } => *at += by,
            Origin::At { name, args } => {
                *name += by;
                match args {
                    Args::None => {}
                    Args::Json(at) | Args::Call(at) | Args::Literal(at) | Args::Gemma { at, .. } => *at += by,
                    Args::Params(params) => {
                        for p in params {
                            p.value = p.value.start + by..p.value.end + by;
                        }
                    }
                }
            }
        }
    }
}
