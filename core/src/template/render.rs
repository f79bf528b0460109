//! Rendering a chat template as the model's tokenizer does (HF transformers'
//! `apply_chat_template`, jinja2): minijinja with jinja2's settings (`trim_blocks`,
//! `lstrip_blocks`, no autoescape, loop controls), Python's methods on strings, lists and dicts,
//! Python's spelling of values (`True`, `None`, `['a']`), and HF's globals: `raise_exception`,
//! `strftime_now` (at a fixed date, so that renders are reproducible) and `tojson` as
//! `json.dumps(ensure_ascii=False)`.
//!
//! Rendering is bounded: fuel (instructions and memory), a recursion limit and an output limit
//! each stop a hostile template with `template.limit`; it never hangs.

use std::sync::{Arc, Mutex, PoisonError};

use minijinja::value::{Kwargs, Object, ObjectRepr, Rest, ValueKind, ValueOrKwargs};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State, UndefinedBehavior};

use super::py;
use crate::error::{ErrorCode, ParseError};
use crate::value::{Number, Value};

/// The fuel of one render: minijinja spends a unit per instruction and per 64 bytes it creates.
/// A probe conversation through the costliest template of `../shared/chat-templates` takes
/// about 1,300 units; a hostile loop stops after about a second in a debug build.
pub const FUEL: u64 = 5_000_000;

/// The deepest a render may nest (loops, conditionals and macro calls, weighted as minijinja
/// weighs them).
pub const RECURSION_LIMIT: usize = 200;

/// The most a render may write, in bytes.
pub const MAX_OUTPUT: usize = 1 << 20;

/// The name the template is stored under in its environment; it shows in no message.
const NAME: &str = "chat_template";

/// A chat template with the special tokens it is rendered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatTemplate {
    /// The Jinja source.
    pub source: String,
    /// `bos_token` in the context.
    pub bos_token: String,
    /// `eos_token` in the context.
    pub eos_token: String,
    /// The tokenizer's added tokens (special or not): text the model writes as one token, so
    /// that a diff of two renders never splits one.
    pub special_tokens: Vec<String>,
}

impl ChatTemplate {
    /// A template given as its Jinja text, with empty special tokens.
    pub fn new(source: impl Into<String>) -> Self {
        ChatTemplate {
            source: source.into(),
            bos_token: String::new(),
            eos_token: String::new(),
            special_tokens: Vec::new(),
        }
    }

    /// The template of a `tokenizer_config.json` object. `chat_template` is the template's text,
    /// or a list of `{"name", "template"}` of which the one named `tool_use` is taken, else the
    /// one named `default`. `bos_token` and `eos_token` are strings or added-token objects
    /// (`{"content": "<s>", …}`); a missing one is empty. The added tokens are the contents of
    /// `added_tokens_decoder` and `additional_special_tokens`, and the two tokens.
    pub fn from_config(config: &Value) -> Result<Self, ParseError> {
        let Value::Object(_) = config else {
            return Err(render_error(format!(
                "a tokenizer config is an object, not {}",
                config.kind()
            )));
        };
        let source = match config.get("chat_template") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(named)) => {
                let find = |wanted: &str| {
                    named.iter().find_map(|t| {
                        (t.get("name").and_then(Value::as_str) == Some(wanted))
                            .then(|| t.get("template").and_then(Value::as_str))
                            .flatten()
                    })
                };
                find("tool_use")
                    .or_else(|| find("default"))
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        render_error("the tokenizer config names no chat template `tool_use` or `default`")
                    })?
            }
            Some(other) => {
                return Err(render_error(format!(
                    "`chat_template` is a string or a list of named templates, not {}",
                    other.kind()
                )))
            }
            None => return Err(render_error("the tokenizer config has no `chat_template`")),
        };
        let token = |key: &str| -> Result<String, ParseError> {
            match config.get(key) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(added) => added
                    .get("content")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| render_error(format!("`{key}` is neither a string nor a token with `content`"))),
            }
        };
        let (bos_token, eos_token) = (token("bos_token")?, token("eos_token")?);
        let content = |t: &Value| match t {
            Value::String(s) => Some(s.clone()),
            other => other.get("content").and_then(Value::as_str).map(str::to_owned),
        };
        let mut special_tokens: Vec<String> = [&bos_token, &eos_token].into_iter().cloned().collect();
        if let Some(Value::Object(added)) = config.get("added_tokens_decoder") {
            special_tokens.extend(added.iter().filter_map(|(_, t)| content(t)));
        }
        if let Some(Value::Array(extra)) = config.get("additional_special_tokens") {
            special_tokens.extend(extra.iter().filter_map(content));
        }
        special_tokens.retain(|t| !t.is_empty());
        special_tokens.sort();
        special_tokens.dedup();
        Ok(ChatTemplate {
            source,
            bos_token,
            eos_token,
            special_tokens,
        })
    }

    /// `input` as a template: a JSON object is a `tokenizer_config.json`
    /// ([`ChatTemplate::from_config`]), any other text the template's own source.
    pub fn read(input: &str) -> Result<Self, ParseError> {
        if input.trim_start().starts_with('{') {
            if let Ok(config @ Value::Object(_)) = crate::syntax::json::parse_json(input) {
                return Self::from_config(&config);
            }
        }
        Ok(Self::new(input))
    }

    /// The template compiled, ready to render any number of conversations.
    pub fn compile(&self) -> Result<Renderer, ParseError> {
        let mut env = environment();
        env.add_template_owned(NAME, guard_namespace_stores(&without_generation_tags(&self.source)))
            .map_err(|e| error(&e, false))?;
        Ok(Renderer {
            env,
            bos_token: self.bos_token.clone(),
            eos_token: self.eos_token.clone(),
        })
    }
}

/// A compiled chat template.
#[derive(Debug)]
pub struct Renderer {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
}

impl Renderer {
    /// The template rendered with `context`, an object of the template's variables: `messages`,
    /// `tools`, `add_generation_prompt` and any other (`enable_thinking`, …). As HF does, `tools`
    /// is `None` and `add_generation_prompt` false unless given, and `bos_token` / `eos_token` are
    /// the template's unless given.
    pub fn render(&self, context: &Value) -> Result<String, ParseError> {
        let Value::Object(entries) = context else {
            return Err(render_error(format!(
                "the context is an object, not {}",
                context.kind()
            )));
        };
        let mut vars: Vec<(String, minijinja::Value)> = vec![
            ("bos_token".into(), self.bos_token.as_str().into()),
            ("eos_token".into(), self.eos_token.as_str().into()),
            ("tools".into(), minijinja::Value::from(())),
            ("add_generation_prompt".into(), false.into()),
        ];
        for (key, value) in entries {
            let value = to_jinja(value);
            match vars.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value,
                None => vars.push((key.clone(), value)),
            }
        }
        let template = self.env.get_template(NAME).map_err(|e| error(&e, false))?;
        let mut out = Limited::default();
        let result = template.render_captured_to(minijinja::Value::from_pairs(vars), &mut out);
        if out.exceeded {
            return Err(ParseError::new(
                ErrorCode::TemplateLimit,
                0,
                format!("the render writes more than {MAX_OUTPUT} bytes"),
            ));
        }
        result.map_err(|e| error(&e, true))?;
        String::from_utf8(out.bytes).map_err(|_| ParseError::new(ErrorCode::Internal, 0, "the render is not UTF-8"))
    }
}

/// `template` (its source, with empty special tokens) rendered with `context`, as
/// [`Renderer::render`] does.
pub fn render(template: &str, context: &Value) -> Result<String, ParseError> {
    ChatTemplate::new(template).compile()?.render(context)
}

/// A writer that keeps at most [`MAX_OUTPUT`] bytes and fails past them.
#[derive(Default)]
struct Limited {
    bytes: Vec<u8>,
    exceeded: bool,
}

impl std::io::Write for Limited {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_OUTPUT {
            self.exceeded = true;
            return Err(std::io::Error::other("output limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn render_error(message: impl Into<String>) -> ParseError {
    ParseError::new(ErrorCode::TemplateRender, 0, message)
}

/// The error minijinja reported, as `template.limit` (fuel, recursion) or `template.render`
/// with the template's line.
fn error(e: &Error, rendering: bool) -> ParseError {
    let detail = e.detail().map_or_else(|| e.kind().to_string(), str::to_owned);
    let line = e
        .line()
        .map_or_else(String::new, |l| format!(" (line {l} of the template)"));
    if e.kind() == ErrorKind::OutOfFuel {
        return ParseError::new(
            ErrorCode::TemplateLimit,
            0,
            format!("the render ran out of fuel ({FUEL} units){line}"),
        );
    }
    // jinja2's (and minijinja's) longest `range`: a loop too long to run is a limit too.
    if detail.contains("range has too many elements") {
        return ParseError::new(
            ErrorCode::TemplateLimit,
            0,
            format!("the render asks for a range longer than 100000{line}"),
        );
    }
    if detail.contains("recursion limit exceeded") {
        return ParseError::new(
            ErrorCode::TemplateLimit,
            0,
            format!("the render nests deeper than {RECURSION_LIMIT}{line}"),
        );
    }
    let what = match (e.kind(), rendering) {
        (ErrorKind::SyntaxError, _) => "a syntax error".to_owned(),
        (_, false) => format!("cannot compile: {}", e.kind()),
        (_, true) => e.kind().to_string(),
    };
    let text = if e.kind() == ErrorKind::InvalidOperation && detail.starts_with(RAISED) {
        format!("the template raised: {}{line}", &detail[RAISED.len()..])
    } else {
        format!("{what}: {detail}{line}")
    };
    ParseError::new(ErrorCode::TemplateRender, 0, text)
}

/// How `raise_exception` marks its message, so that [`error`] can tell it from minijinja's own.
const RAISED: &str = "raise_exception: ";

/// beacon's value as a minijinja value, objects keeping their key order.
pub(crate) fn to_jinja(value: &Value) -> minijinja::Value {
    match value {
        Value::Null => minijinja::Value::from(()),
        Value::Bool(b) => (*b).into(),
        Value::Number(Number::Int(i)) => (*i).into(),
        Value::Number(Number::BigInt(digits)) => digits
            .parse::<i128>()
            .map_or_else(|_| digits.parse::<f64>().unwrap_or(f64::NAN).into(), Into::into),
        Value::Number(Number::Float(f)) => (*f).into(),
        Value::String(s) => s.as_str().into(),
        Value::Array(items) => items.iter().map(to_jinja).collect::<Vec<_>>().into(),
        Value::Object(entries) => minijinja::Value::from_pairs(entries.iter().map(|(k, v)| (k.as_str(), to_jinja(v)))),
    }
}

/// `{% generation %}` … `{% endgeneration %}` (transformers marks the assistant's own tokens with
/// it) as `{% if true %}` … `{% endif %}`: its body renders unchanged, whitespace control kept.
fn without_generation_tags(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(i) = rest.find("{%") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find("%}") else { break };
        let tag = &rest[2..end];
        let inner = tag.trim_start_matches(['-', '+']).trim_end_matches(['-', '+']).trim();
        let replacement = match inner {
            "generation" => Some("if true"),
            "endgeneration" => Some("endif"),
            _ => None,
        };
        match replacement {
            Some(r) => {
                let open = &tag[..tag.len() - tag.trim_start_matches(['-', '+']).len()];
                let close = &tag[tag.trim_end_matches(['-', '+']).len()..];
                out.push_str("{%");
                out.push_str(open);
                out.push(' ');
                out.push_str(r);
                out.push(' ');
                out.push_str(close);
                out.push_str("%}");
            }
            None => out.push_str(&rest[..end + 2]),
        }
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The function every `{% set ns.attr = value %}` passes its value through
/// ([`guard_namespace_stores`]).
const STORE: &str = "__beacon_store";

/// `source` with the value of every assignment to a namespace's attribute
/// (`{% set ns.attr = value %}`) passed through [`store`]: a namespace can then never hold itself.
/// minijinja writes a namespace by writing what it holds, with no limit, so a namespace that
/// held itself would be written forever (`{% set ns.me = ns %}{{ ns ~ '' }}`); the assignment is
/// the one place such a cycle can be made, and no hook of minijinja sees it. Source that does not
/// lex is left as it is (compiling it reports the error).
fn guard_namespace_stores(source: &str) -> String {
    use minijinja::machinery::{tokenize, Token};
    let Ok(tokens) = tokenize(source, false, minijinja::syntax::SyntaxConfig::default()).collect::<Result<Vec<_>, _>>()
    else {
        return source.to_owned();
    };
    // Byte offsets of the opening and closing of each guarded value.
    let open_call = format!("{STORE}((");
    let mut inserts: Vec<(usize, &str)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let is = |k: usize, want: &dyn Fn(&Token) -> bool| tokens.get(i + k).is_some_and(|(t, _)| want(t));
        if is(0, &|t| matches!(t, Token::BlockStart))
            && is(1, &|t| matches!(t, Token::Ident("set")))
            && is(2, &|t| matches!(t, Token::Ident(_)))
            && is(3, &|t| matches!(t, Token::Dot))
            && is(4, &|t| matches!(t, Token::Ident(_)))
            && is(5, &|t| matches!(t, Token::Assign))
        {
            let open = tokens[i + 5].1.end_offset as usize;
            if let Some(end) = tokens[i + 6..].iter().position(|(t, _)| matches!(t, Token::BlockEnd)) {
                let close = tokens[i + 6 + end].1.start_offset as usize;
                inserts.push((open, &open_call));
                inserts.push((close, "))"));
                i += 6 + end;
                continue;
            }
        }
        i += 1;
    }
    let mut out = String::with_capacity(source.len() + inserts.len() * 16);
    let mut at = 0;
    for (offset, text) in inserts {
        let Some(piece) = source.get(at..offset) else {
            return source.to_owned();
        };
        out.push_str(piece);
        out.push_str(text);
        at = offset;
    }
    out.push_str(&source[at..]);
    out
}

/// The value stored into a namespace's attribute, unless it is or holds a namespace: a namespace
/// holding a namespace is how one comes to hold itself, and no chat template needs it.
fn store(state: &State, value: minijinja::Value) -> Result<minijinja::Value, Error> {
    if holds(state, &value, None)? {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "a namespace cannot hold a namespace (it could hold itself)",
        ));
    }
    Ok(value)
}

/// Whether `value` is or holds a namespace, or (`list`) that list; a unit of fuel per value
/// looked at, so that a value shared many times over stops at the fuel limit.
fn holds(state: &State, value: &minijinja::Value, list: Option<&Arc<PyList>>) -> Result<bool, Error> {
    let mut stack = vec![value.clone()];
    while let Some(value) = stack.pop() {
        state.consume_fuel(1)?;
        if let Some(object) = value.as_object() {
            if object.type_name() == namespace_type() {
                return Ok(true);
            }
            if let Some(inner) = object.downcast::<PyList>() {
                if list.is_some_and(|l| Arc::ptr_eq(l, &inner)) {
                    return Ok(true);
                }
                stack.extend(inner.items().iter().cloned());
                continue;
            }
        }
        match value.kind() {
            ValueKind::Map => {
                for key in value.try_iter()? {
                    stack.push(value.get_item(&key)?);
                    stack.push(key);
                }
            }
            // What minijinja writes item by item: a sequence, or an iterable of known length.
            ValueKind::Seq => stack.extend(value.try_iter()?),
            ValueKind::Iterable
                if value
                    .as_object()
                    .and_then(minijinja::value::DynObject::enumerator_len)
                    .is_some() =>
            {
                stack.extend(value.try_iter()?);
            }
            _ => {}
        }
    }
    Ok(false)
}

/// The type name minijinja gives its namespaces (the type itself is private to it).
fn namespace_type() -> &'static str {
    static NAME: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        minijinja::functions::namespace(None)
            .ok()
            .and_then(|ns| ns.as_object().map(minijinja::value::DynObject::type_name))
            .unwrap_or("")
    })
}

/// The environment of HF chat templates (see the module's documentation).
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    if let Ok(syntax) = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
    {
        env.set_syntax(syntax);
    }
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_unknown_method_callback(methods);
    env.set_formatter(|out, _state, value| {
        let mut text = String::new();
        py::str_of(value, &mut text)?;
        out.write_str(&text)
            .map_err(|_| Error::new(ErrorKind::WriteFailure, "output limit"))
    });
    env.add_function(
        "raise_exception",
        |message: String| -> Result<minijinja::Value, Error> {
            Err(Error::new(ErrorKind::InvalidOperation, format!("{RAISED}{message}")))
        },
    );
    env.add_function("strftime_now", |format: String| py::strftime(&format));
    env.add_function("namespace", namespace);
    env.add_function(STORE, store);
    env.add_filter("tojson", tojson);
    env.add_filter("string", |value: minijinja::Value| -> Result<String, Error> {
        let mut text = String::new();
        py::str_of(&value, &mut text)?;
        Ok(text)
    });
    env.add_filter("join", join);
    env.add_filter("indent", indent);
    // jinja2's tests: a string or a dict is a sequence (it has a length and items), and anything
    // `iter()` takes is iterable.
    env.add_test("sequence", |value: minijinja::Value| {
        matches!(
            value.kind(),
            ValueKind::Undefined | ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Bytes
        )
    });
    env.add_test("iterable", |value: minijinja::Value| {
        matches!(
            value.kind(),
            ValueKind::Undefined | ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable
        )
    });
    env
}

/// Python's methods: the list methods that change a list (on lists a namespace holds, see
/// [`namespace`]), else minijinja-contrib's (`dict.get`, `dict.items`, `str.startswith`, …).
fn methods(
    state: &mut State,
    value: &minijinja::Value,
    method: &str,
    args: &[minijinja::Value],
) -> Result<minijinja::Value, Error> {
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

/// `namespace(…)`, whose lists are [`PyList`]s, so that `ns.ids.append(x)` changes them as in
/// Python.
fn namespace(defaults: Option<ValueOrKwargs>) -> Result<minijinja::Value, Error> {
    let Some(defaults) = defaults else {
        return minijinja::functions::namespace(None);
    };
    let defaults = defaults.into_value();
    let Ok(keys) = defaults.try_iter() else {
        return minijinja::functions::namespace(Some(defaults.into()));
    };
    let mut pairs = Vec::new();
    for key in keys {
        let value = defaults.get_item(&key)?;
        let value = if value.kind() == ValueKind::Seq {
            minijinja::Value::from_object(PyList(Mutex::new(value.try_iter()?.collect())))
        } else {
            value
        };
        pairs.push((key, value));
    }
    minijinja::functions::namespace(Some(minijinja::Value::from_pairs(pairs).into()))
}

/// A Python list that a template can change: `append`, `extend`, `insert`, `pop`, `clear`.
struct PyList(Mutex<Vec<minijinja::Value>>);

/// Not its items: a list can hold itself.
impl std::fmt::Debug for PyList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PyList")
    }
}

impl PyList {
    fn items(&self) -> std::sync::MutexGuard<'_, Vec<minijinja::Value>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A Python index (negative from the end) into a list of `len` items.
    fn index(index: i64, len: usize) -> Option<usize> {
        let len_i = i64::try_from(len).ok()?;
        let i = if index < 0 { index + len_i } else { index };
        usize::try_from(i).ok().filter(|&i| i < len)
    }
}

impl Object for PyList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        let items = self.items();
        let i = Self::index(key.as_i64()?, items.len())?;
        items.get(i).cloned()
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        minijinja::value::Enumerator::Values(self.items().clone())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.items().len())
    }

    /// The list as minijinja writes a list (`~`, `format`), `[...]` past a few levels: a list
    /// can hold itself (`l.append(l)`), and minijinja would write it forever.
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        thread_local!(static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });
        let depth = DEPTH.with(|d| {
            d.set(d.get() + 1);
            d.get()
        });
        let result = if depth > 16 {
            f.write_str("[...]")
        } else {
            let items = self.items().clone();
            f.write_str("[")
                .and_then(|()| {
                    items.iter().enumerate().try_for_each(|(i, item)| {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{item:?}")
                    })
                })
                .and_then(|()| f.write_str("]"))
        };
        DEPTH.with(|d| d.set(d.get() - 1));
        result
    }

    fn call_method(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        method: &str,
        args: &[minijinja::Value],
    ) -> Result<minijinja::Value, Error> {
        let none = || minijinja::Value::from(());
        // What goes into the list never holds a namespace or the list itself: no cycle.
        let refuse = |state: &State, item: &minijinja::Value| -> Result<(), Error> {
            if holds(state, item, Some(self))? {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    "a list cannot hold a namespace or itself",
                ));
            }
            Ok(())
        };
        match (method, args) {
            ("append", [item]) => {
                refuse(state, item)?;
                self.items().push(item.clone());
                Ok(none())
            }
            ("extend", [more]) => {
                let more: Vec<minijinja::Value> = more.try_iter()?.collect();
                for item in &more {
                    refuse(state, item)?;
                }
                self.items().extend(more);
                Ok(none())
            }
            ("insert", [at, item]) => {
                refuse(state, item)?;
                let mut items = self.items();
                let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
                let at = at.as_i64().unwrap_or(0);
                let at = if at < 0 { (at + len).max(0) } else { at.min(len) };
                items.insert(usize::try_from(at).unwrap_or(0), item.clone());
                Ok(none())
            }
            ("pop", []) => self
                .items()
                .pop()
                .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "pop from empty list")),
            ("pop", [at]) => {
                let mut items = self.items();
                let len = items.len();
                match at.as_i64().and_then(|i| Self::index(i, len)) {
                    Some(i) => Ok(items.remove(i)),
                    None => Err(Error::new(ErrorKind::InvalidOperation, "pop index out of range")),
                }
            }
            ("clear", []) => {
                self.items().clear();
                Ok(none())
            }
            _ => {
                let snapshot = minijinja::Value::from(self.items().clone());
                methods(state, &snapshot, method, args)
            }
        }
    }
}

/// `|tojson` as HF defines it: `json.dumps(value, ensure_ascii=False, indent=None,
/// separators=None, sort_keys=False)`, every option a keyword (`indent` also the first
/// positional argument).
#[allow(clippy::needless_pass_by_value)] // minijinja hands a filter its arguments by value
fn tojson(
    state: &State,
    value: minijinja::Value,
    args: Rest<minijinja::Value>,
    kwargs: Kwargs,
) -> Result<String, Error> {
    let indent_value: Option<minijinja::Value> = match args.first() {
        Some(v) => Some(v.clone()),
        None => kwargs.get("indent")?,
    };
    let indent =
        match indent_value {
            None => None,
            Some(v) if v.is_none() => None,
            Some(v) => Some(match v.as_str() {
                Some(s) => s.to_owned(),
                None => " ".repeat(v.as_usize().ok_or_else(|| {
                    Error::new(ErrorKind::InvalidOperation, "tojson's indent is a number or a string")
                })?),
            }),
        };
    let ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let separators: Option<minijinja::Value> = kwargs.get("separators")?;
    kwargs.assert_all_used()?;
    let (item_separator, key_separator) = match separators.filter(|s| !s.is_none()) {
        Some(pair) => {
            let parts: Vec<String> = pair.try_iter()?.map(|p| p.to_string()).collect();
            match <[String; 2]>::try_from(parts) {
                Ok([item, key]) => (item, key),
                Err(_) => return Err(Error::new(ErrorKind::InvalidOperation, "separators are two strings")),
            }
        }
        None if indent.is_some() => (",".to_owned(), ": ".to_owned()),
        None => (", ".to_owned(), ": ".to_owned()),
    };
    let options = py::JsonOptions {
        indent,
        ensure_ascii: ensure_ascii.unwrap_or(false),
        sort_keys: sort_keys.unwrap_or(false),
        item_separator,
        key_separator,
    };
    let mut out = String::new();
    py::json_dumps(&value, &options, &mut out)?;
    state.consume_fuel(out.len() as u64 / 64)?;
    Ok(out)
}

/// jinja2's `|join(d='', attribute=None)`: each item as Python's `str()`.
#[allow(clippy::needless_pass_by_value)] // minijinja hands a filter its arguments by value
fn join(state: &State, value: minijinja::Value, separator: Option<String>, kwargs: Kwargs) -> Result<String, Error> {
    let attribute: Option<String> = kwargs.get("attribute")?;
    kwargs.assert_all_used()?;
    let separator = separator.unwrap_or_default();
    let mut out = String::new();
    if value.is_undefined() || value.is_none() {
        return Ok(out);
    }
    if let Some(s) = value.as_str() {
        let chars: Vec<String> = s.chars().map(String::from).collect();
        return Ok(chars.join(&separator));
    }
    for (i, item) in value.try_iter()?.enumerate() {
        if i > 0 {
            out.push_str(&separator);
        }
        let item = match &attribute {
            Some(name) => item.get_attr(name)?,
            None => item,
        };
        py::str_of(&item, &mut out)?;
    }
    state.consume_fuel(out.len() as u64 / 64)?;
    Ok(out)
}

/// jinja2's `|indent(width=4, first=False, blank=False)`: every line after the first (and the
/// first with `first`) indented by `width` spaces (or by `width` itself when it is a string),
/// blank lines only with `blank`; a trailing line break stays, as in jinja2.
#[allow(clippy::needless_pass_by_value)] // minijinja hands a filter its arguments by value
fn indent(
    state: &State,
    value: minijinja::Value,
    args: Rest<minijinja::Value>,
    kwargs: Kwargs,
) -> Result<String, Error> {
    let arg = |i: usize, name: &str| -> Result<Option<minijinja::Value>, Error> {
        match args.get(i) {
            Some(v) => Ok(Some(v.clone())),
            None => kwargs.get(name),
        }
    };
    let width = arg(0, "width")?;
    let first = arg(1, "first")?.is_some_and(|v| v.is_true());
    let blank = arg(2, "blank")?.is_some_and(|v| v.is_true());
    kwargs.assert_all_used()?;
    let indention = match &width {
        None => "    ".to_owned(),
        Some(w) => match w.as_str() {
            Some(s) => s.to_owned(),
            None => " "
                .repeat(w.as_usize().ok_or_else(|| {
                    Error::new(ErrorKind::InvalidOperation, "indent's width is a number or a string")
                })?),
        },
    };
    let mut text = String::new();
    py::str_of(&value, &mut text)?;
    text.push('\n');
    let lines = py::splitlines(&text);
    state.consume_fuel((text.len() + indention.len() * lines.len()) as u64 / 64)?;
    let mut out = String::new();
    if first {
        out.push_str(&indention);
    }
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if blank || !line.is_empty() {
                out.push_str(&indention);
            }
        }
        out.push_str(line);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::json::parse_json;

    fn ctx(json: &str) -> Value {
        parse_json(json).unwrap()
    }

    #[test]
    fn python_spelling_of_values() {
        let out = render(
            "{{ x }} {{ n }} {{ b }} {{ l }} {{ d }} {{ f }} {{ u }}|{{ d | tojson }}|{{ l | tojson(indent=2) }}",
            &ctx(r#"{"x": "é", "n": null, "b": true, "l": ["a", 1], "d": {"k": "v", "a": 1.5}, "f": 2.0}"#),
        )
        .unwrap();
        assert_eq!(
            out,
            "é None True ['a', 1] {'k': 'v', 'a': 1.5} 2.0 |{\"k\": \"v\", \"a\": 1.5}|[\n  \"a\",\n  1\n]"
        );
    }

    #[test]
    fn indent_keeps_a_trailing_line_break_as_jinja2() {
        let out = render(
            "{{ '{\\n' | indent(4, first=true) }}|{{ 'a\\n\\nb' | indent(2) }}|{{ 'a\\n\\nb' | indent(width='>', blank=true) }}",
            &ctx("{}"),
        )
        .unwrap();
        assert_eq!(out, "    {\n|a\n\n  b|a\n>\n>b");
    }

    #[test]
    fn trim_and_lstrip_blocks_as_hf_sets_them() {
        let out = render("  {% if true %}\nyes\n  {% endif %}\nend", &ctx("{}")).unwrap();
        assert_eq!(out, "yes\nend");
    }

    #[test]
    fn namespace_lists_change_in_place() {
        let out = render(
            "{% set ns = namespace(ids=[]) %}{% set _ = ns.ids.append('a') %}{% set _ = ns.ids.append('b') %}{{ ns.ids.pop(0) }}{{ ns.ids | length }}{{ ns.ids }}",
            &ctx("{}"),
        )
        .unwrap();
        assert_eq!(out, "a1['b']");
    }

    #[test]
    fn a_list_that_holds_itself_is_written_finitely() {
        for source in [
            "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l ~ '' }}",
            "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns.l) %}{{ ns.l }}{{ ns.l | tojson }}",
        ] {
            let e = render(source, &ctx("{}"));
            assert!(
                e.is_ok() || e.as_ref().is_err_and(|e| e.code == ErrorCode::TemplateRender),
                "{source}: {e:?}"
            );
        }
    }

    #[test]
    fn a_namespace_never_holds_itself() {
        for source in [
            "{% set ns = namespace() %}{% set ns.me = ns %}{{ ns ~ '' }}",
            "{% set ns = namespace() %}{% set ns.me = [1, {'a': ns}] %}{{ ns ~ '' }}",
            "{% set ns = namespace() %}{% set ns.me = [ns] | reverse %}{{ ns ~ '' }}",
            "{% set a = namespace() %}{% set b = namespace(x=1) %}{% set a.b = b %}{% set b.a = a %}{{ a ~ '' }}",
            "{% set ns = namespace(l=[]) %}{% set _ = ns.l.append(ns) %}{{ ns ~ '' }}",
            "{% set ns = namespace(l=[], m=[]) %}{% set _ = ns.l.append(ns.m) %}{% set _ = ns.m.insert(0, ns.l) %}{{ ns ~ '' }}",
            "{% set ns = namespace(l=[]) %}{%- set ns.l = ns.l + [ns] -%}{{ ns ~ '' }}",
        ] {
            let e = render(source, &ctx("{}")).unwrap_err();
            assert_eq!(e.code, ErrorCode::TemplateRender, "{source}: {e}");
            assert!(e.message.contains("cannot hold"), "{source}: {}", e.message);
        }
        // What templates do store still works, and a `set` inside a string is only text.
        let out = render(
            "{% set ns = namespace(n=0, l=[]) %}{% set ns.n = ns.n + 1 %}{% set ns.s = {'k': [1, 'x']} %}{% set _ = ns.l.append([2]) %}{{ ns.n }} {{ ns.s }} {{ ns.l }} {{ '{% set ns.n = 5 %}' }}",
            &ctx("{}"),
        )
        .unwrap();
        assert_eq!(out, "1 {'k': [1, 'x']} [[2]] {% set ns.n = 5 %}");
    }

    #[test]
    fn hostile_loops_recursion_and_output_stop_at_a_limit() {
        let started = std::time::Instant::now();
        for (source, what) in [
            ("{% for i in range(10**9) %}x{% endfor %}", "range"),
            (
                "{% for i in range(100000) %}{% for j in range(100000) %}{% if j < 0 %}x{% endif %}{% endfor %}{% endfor %}",
                "fuel",
            ),
            ("{% set ns = namespace(go=true) %}{% for i in range(100000) recursive %}{{ loop(range(100000)) }}{% endfor %}", "nests"),
            ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "nests"),
            (
                "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(100000) }}",
                "nests",
            ),
            ("{% for i in range(10) %}{{ 'x' * 1000000 }}{% endfor %}", "bytes"),
            ("{{ 'x' * 10000000 }}", "bytes"),
        ] {
            let e = render(source, &ctx("{}")).unwrap_err();
            assert_eq!(e.code, ErrorCode::TemplateLimit, "{source}: {e}");
            assert!(e.message.contains(what), "{source}: {}", e.message);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn raise_exception_is_a_render_error_with_its_line() {
        let e = render("a\n{{ raise_exception('no system role') }}", &ctx("{}")).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateRender);
        assert_eq!(e.offset, 0);
        assert!(
            e.message.contains("no system role") && e.message.contains("line 2"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let e = render("ok\n{% if %}", &ctx("{}")).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateRender);
        assert!(e.message.contains("line 2"), "{}", e.message);
    }

    #[test]
    fn hostile_templates_stop_at_a_limit() {
        for (source, what) in [
            (
                "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                "fuel",
            ),
            ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "nests"),
            ("{% for i in range(100000) %}{{ 'x' * 100 }}{% endfor %}", "bytes"),
            (
                "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                "fuel",
            ),
        ] {
            let e = render(source, &ctx("{}")).unwrap_err();
            assert_eq!(e.code, ErrorCode::TemplateLimit, "{source}: {e}");
            assert!(e.message.contains(what), "{source}: {}", e.message);
        }
    }

    #[test]
    fn a_tokenizer_config_names_its_template_and_tokens() {
        let config = ctx(
            r#"{"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": "</s>",
                "added_tokens_decoder": {"0": {"content": "<s>", "special": true}},
                "chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "{{ bos_token }}T{{ eos_token }}"}]}"#,
        );
        let t = ChatTemplate::from_config(&config).unwrap();
        assert_eq!(t.special_tokens, ["</s>", "<s>"]);
        assert_eq!(t.compile().unwrap().render(&ctx("{}")).unwrap(), "<s>T</s>");
        let t = ChatTemplate::read(r#"{"chat_template": [{"name": "default", "template": "D"}]}"#).unwrap();
        assert_eq!(t.source, "D");
        assert_eq!(ChatTemplate::read("{{ x }}").unwrap().source, "{{ x }}");
        let e = ChatTemplate::read(r#"{"eos_token": "</s>"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::TemplateRender);
    }

    #[test]
    fn generation_tags_render_their_body() {
        assert_eq!(
            without_generation_tags("a{%- generation -%} b {%- endgeneration %}c"),
            "a{%- if true -%} b {%- endif %}c"
        );
        assert_eq!(
            render("a {% generation %}b{% endgeneration %}", &ctx("{}")).unwrap(),
            "a b"
        );
    }
}
