//! Property tests: random calls rendered into every format parse back equal, and the strict JSON
//! parser accepts exactly what serde_json accepts (except the documented strict differences) and
//! decodes to equal values.

mod common;

use beacon_core::{parse_json, parse_tool_calls, scan_stream, ErrorCode, Format, Number, Object, StreamState, Value};
use common::from_serde;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// Generators

fn string_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,8}",
        // quotes, backslashes, brackets, control characters, non-ASCII and astral characters
        "[a-z\"'\\\\\\[\\]{}()<>/=;,:&#\\n\\t\\r\\u{0}\\u{1f}é漢😀]{0,12}",
        // the formats' own markers and closing tags inside strings
        prop::sample::select(vec![
            "</tool_call>",
            "<tool_call>",
            "[/TOOL_CALL]",
            "[TOOL_CALLS]",
            "[ARGS]",
            "<|eom_id|>",
            "</parameter>",
            "</invoke>",
            "<invoke name=\"x\">",
            "f(x=1)",
            "{\"name\": \"f\"}",
            "&amp;",
            "&lt;",
        ])
        .prop_map(str::to_string),
    ]
}

fn float_value() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1000i32..1000).prop_map(|i| f64::from(i) / 8.0),
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| Value::Number(Number::Int(i))),
        "[1-9][0-9]{19,40}".prop_map(|d| Value::Number(Number::BigInt(d))),
        float_value().prop_map(|f| Value::Number(Number::Float(f))),
        string_value().prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    common::nested(leaf(), string_value, 4, 48, 5)
}

/// Python's keywords (lower-case ones; the generators below write lower case): not identifiers.
const PYTHON_KEYWORDS: [&str; 32] = [
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
    "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield",
];

/// An identifier (not a Python keyword), so call syntax can express it.
fn identifier(pattern: &'static str) -> impl Strategy<Value = String> {
    pattern.prop_filter("not a Python keyword", |k: &String| {
        !PYTHON_KEYWORDS.contains(&k.as_str())
    })
}

/// Call arguments: identifier keys (so call syntax can express them), any values.
fn arguments() -> impl Strategy<Value = Object> {
    prop::collection::vec((identifier("[a-z_][a-z0-9_]{0,6}"), value()), 0..5).prop_map(common::unique)
}

fn name() -> impl Strategy<Value = String> {
    identifier("[a-z_][a-z0-9_]{0,10}").prop_filter("not a keyword", |n| n != "call")
}

// ---------------------------------------------------------------------------------------------
// Renderers

fn json(v: &Value) -> String {
    v.to_json()
}

fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_json()
}

/// A Python literal for `v`.
fn python(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(_) => v.to_json(),
        Value::String(s) => {
            let mut out = String::from("'");
            for c in s.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('\'');
            out
        }
        Value::Array(items) => format!("[{}]", items.iter().map(python).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}: {}", python(&Value::String(k.clone())), python(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// As the Qwen3-Coder chat template writes a call: strings raw, other values as JSON. A string
/// whose trimmed text is itself JSON (`"5"`, `"true"`) cannot be told from that JSON value in this
/// markup, so such strings are not rendered here (see `qwen3_renderable`).
fn qwen3_coder(name: &str, args: &Object) -> String {
    let mut out = format!("<tool_call>\n<function={name}>\n");
    for (k, v) in args {
        let text = match v {
            Value::String(s) => s.clone(),
            v => json(v),
        };
        out.push_str(&format!("<parameter={k}>\n{text}\n</parameter>\n"));
    }
    out + "</function>\n</tool_call>"
}

/// Whether every argument survives the Qwen3-Coder markup: strings must not contain
/// `</parameter>`, must not read as JSON once trimmed, and must not begin or end with a line break
/// (the template's own line breaks are dropped, `\n` or `\r\n`, so a value ending in `\r` would
/// lose it too).
fn qwen3_renderable(args: &Object) -> bool {
    args.iter().all(|(_, v)| match v {
        Value::String(s) => {
            !s.contains("</parameter>")
                && parse_json(s.trim()).is_err()
                && !s.starts_with('\n')
                && !s.ends_with(['\n', '\r'])
        }
        v => !json(v).contains("</parameter>"),
    })
}

/// As MiniCPM 5's template writes a call: the tags back to back, strings in CDATA (the template
/// wraps only those with `<`, `&` or a line break; a CDATA section reads back as the same string
/// either way), other values as JSON.
fn minicpm(name: &str, args: &Object) -> String {
    let params: String = args
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => format!("<![CDATA[{s}]]>"),
                v => json(v),
            };
            format!("<param name=\"{k}\">{text}</param>")
        })
        .collect();
    format!("<function name=\"{name}\">{params}</function>")
}

/// Whether every argument survives MiniCPM 5's markup: a string must not hold `]]>` (the template
/// does not escape it), and another value's JSON no `<` (a tag in a nested string).
fn minicpm_renderable(args: &Object) -> bool {
    args.iter().all(|(_, v)| match v {
        Value::String(s) => !s.contains("]]>"),
        v => !json(v).contains('<'),
    })
}

/// As DeepSeek V3.2's template writes a call: strings verbatim with `string="true"`, other values
/// as JSON with `string="false"`.
fn dsml(name: &str, args: &Object) -> String {
    let mut out = format!("\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"{name}\">\n");
    for (k, v) in args {
        let (text, string) = match v {
            Value::String(s) => (s.clone(), "true"),
            v => (json(v), "false"),
        };
        out.push_str(&format!(
            "<｜DSML｜parameter name=\"{k}\" string=\"{string}\">{text}</｜DSML｜parameter>\n"
        ));
    }
    out + "</｜DSML｜invoke>\n</｜DSML｜function_calls><｜end▁of▁sentence｜>"
}

/// Step-3's markup: values raw, typed back as JSON when their trimmed text is JSON (so, as for
/// Qwen3-Coder, only strings that do not read as JSON survive: see `step3_renderable`).
fn step3(name: &str, args: &Object) -> String {
    let params: String = args
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                v => json(v),
            };
            format!("<steptml:parameter name=\"{k}\">{text}</steptml:parameter>")
        })
        .collect();
    format!(
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{name}\">{params}\
         </steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
    )
}

fn step3_renderable(args: &Object) -> bool {
    args.iter().all(|(_, v)| match v {
        Value::String(s) => parse_json(s.trim()).is_err(),
        _ => true,
    })
}

fn kwargs(args: &Object) -> String {
    args.iter()
        .map(|(k, v)| format!("{k}={}", python(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `(format, text)` for every way beacon reads a call.
fn renderings(name: &str, args: &Object) -> Vec<(Format, String)> {
    let a = json(&Value::Object(args.clone()));
    let mut xml = format!("<function_calls>\n<invoke name=\"{}\">\n", xml_escape(name));
    for (k, v) in args {
        xml.push_str(&format!(
            "<parameter name=\"{}\">{}</parameter>\n",
            xml_escape(k),
            xml_escape(&json(v))
        ));
    }
    xml.push_str("</invoke>\n</function_calls>");
    vec![
        (Format::Hermes, format!("<tool_call>\n{{\"name\": {}, \"arguments\": {a}}}\n</tool_call>", json_string(name))),
        (Format::Hermes, format!("Sure.\n<tool_call>{{\"name\": {}, \"arguments\": {}}}", json_string(name), json_string(&a))),
        (Format::Bracket, format!("[TOOL_CALL]name={name};args={a}[/TOOL_CALL]")),
        (Format::Bracket, format!("[TOOL_CALL]{{\"name\": {}, \"arguments\": {a}}}[/TOOL_CALL]", json_string(name))),
        (Format::Mistral, format!("[TOOL_CALLS] [{{\"name\": {}, \"arguments\": {a}}}]</s>", json_string(name))),
        (Format::Mistral, format!("[TOOL_CALLS]{name}[ARGS]{a}")),
        (Format::Llama, format!("<|python_tag|>{{\"name\": {}, \"parameters\": {a}}}<|eom_id|>", json_string(name))),
        (Format::Llama, format!("<|python_tag|>{name}.call({})<|eom_id|>", kwargs(args))),
        (Format::XmlInvoke, xml),
        (Format::Qwen3Coder, qwen3_coder(name, args)),
        (
            Format::CommandR7b,
            format!(
                "<|START_ACTION|>[\n    {{\"tool_call_id\": \"0\", \"tool_name\": {}, \"parameters\": {a}}}\n]<|END_ACTION|>",
                json_string(name)
            ),
        ),
        (Format::Granite, format!("<|tool_call|>[{{\"name\": {}, \"arguments\": {a}}}]<|end_of_text|>", json_string(name))),
        (Format::Granite, format!("<function_call> {{\"name\": {}, \"arguments\": {a}}}", json_string(name))),
        (
            Format::Nemotron,
            format!("<TOOLCALL>[{{\"name\": {}, \"arguments\": {}}}]</TOOLCALL>", json_string(name), json_string(&a)),
        ),
        (Format::Apertus, format!("<|tools_prefix|>[{{{}: {a}}}]<|tools_suffix|>", json_string(name))),
        (Format::ToolCalls, format!("<tool_calls>\n{{\"name\": {}, \"arguments\": {a}}}\n</tool_calls>", json_string(name))),
        (
            Format::Internlm,
            format!("<|action_start|><|plugin|>\n{{\"name\": {}, \"parameters\": {a}}}<|action_end|>", json_string(name)),
        ),
        (Format::FunctionaryV31, format!("<function={name}>{a}</function><|eom_id|>")),
        (
            Format::DeepseekV3,
            format!(
                "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{a}\n```\
                 <｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
            ),
        ),
        (
            Format::DeepseekV31,
            format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{a}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        ),
        (Format::DeepseekV32, dsml(name, args)),
        (Format::Step3, step3(name, args)),
        (Format::Minicpm, minicpm(name, args)),
        (Format::Json, format!("Calling it:\n{{\"name\": {}, \"arguments\": {a}}}", json_string(name))),
        (
            Format::Json,
            format!(
                "```json\n{{\"type\": \"function\", \"id\": \"call_1\", \"function\": {{\"name\": {}, \"arguments\": {}}}}}\n```",
                json_string(name),
                json_string(&a)
            ),
        ),
        (Format::Python, format!("I'll run {name}({}) now.", kwargs(args))),
    ]
}

// ---------------------------------------------------------------------------------------------
// Properties

/// The offset after the first tier-1 marker of a tagged rendering.
fn first_marker_end(text: &str) -> usize {
    [
        "<tool_call>",
        "[TOOL_CALL]",
        "[TOOL_CALLS]",
        "<|python_tag|>",
        "<invoke ",
        "<function=",
        "<|START_ACTION|>",
        "<|tool_call|>",
        "<function_call>",
        "<TOOLCALL>",
        "<|tools_prefix|>",
        "<tool_calls>",
        "<|action_start|>",
        "<｜tool▁calls▁begin｜>",
        "<｜DSML｜function_calls>",
        "<｜tool_calls_begin｜>",
        "<function name=",
    ]
    .iter()
    .filter_map(|m| text.find(m).map(|i| i + m.len()))
    .min()
    .expect("a tagged rendering has a marker")
}

const MARKERS: [&str; 5] = [
    "<tool_call>",
    "[TOOL_CALL]",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<invoke",
];

/// Bytes a mutation may insert: JSON's own punctuation and the starts of its tokens.
const MUTATIONS: &[&str] = &[
    "{", "}", "[", "]", "\"", ",", ":", "0", "-", ".", "e", "+", "t", "n", " ", "\\", "\\u", "\\ud800", "\u{1}", "01",
    "1e999",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_format_round_trips(name in name(), args in arguments()) {
        // Tier 1 looks for its markers anywhere (README: "Where markers are looked for"), so a
        // tier 2 or 3 call whose strings contain a tier-1 marker is read as tier 1 by design.
        let has_marker = MARKERS.iter().any(|m| json(&Value::Object(args.clone())).contains(m));
        for (format, text) in renderings(&name, &args) {
            if has_marker && matches!(format, Format::Json | Format::Python) {
                continue;
            }
            if format == Format::Qwen3Coder && !qwen3_renderable(&args) {
                continue;
            }
            if format == Format::Step3 && !step3_renderable(&args) {
                continue;
            }
            if format == Format::Minicpm && !minicpm_renderable(&args) {
                continue;
            }
            let calls = parse_tool_calls(&text).map_err(|e| TestCaseError::fail(format!("{format:?}: {e} in {text:?}")))?;
            prop_assert_eq!(calls.len(), 1, "{:?}: {:?}", format, text);
            prop_assert_eq!(calls[0].format, format, "{:?}", text);
            prop_assert_eq!(&calls[0].name, &name, "{:?}", text);
            prop_assert_eq!(&calls[0].arguments, &args, "{:?}: {:?}", format, text);
        }
    }

    #[test]
    fn streaming_a_tagged_call_moves_only_forward(name in name(), args in arguments()) {
        for (format, text) in renderings(&name, &args) {
            if matches!(format, Format::Json | Format::Python)
                || (format == Format::Qwen3Coder && !qwen3_renderable(&args))
                || (format == Format::Step3 && !step3_renderable(&args))
                || (format == Format::Minicpm && !minicpm_renderable(&args))
            {
                continue;
            }
            let marker_end = first_marker_end(&text);
            let mut last = StreamState::None;
            for end in (marker_end..=text.len()).filter(|&e| text.is_char_boundary(e)) {
                let scan = scan_stream(&text[..end]);
                let rank = |s: StreamState| s as u8;
                prop_assert!(rank(scan.state) >= rank(last), "{:?} after {:?} at {} in {:?}", scan.state, last, end, text);
                prop_assert!(scan.state != StreamState::None, "{:?}", &text[..end]);
                last = scan.state;
            }
            // A `<tool_call>` whose closing tag has not arrived is still partial (it parses only
            // because the text ends there); every other rendering ends complete.
            let unclosed = text.starts_with("Sure.\n<tool_call>") && !text.ends_with("</tool_call>");
            let want = if unclosed { StreamState::Partial } else { StreamState::Found };
            prop_assert_eq!(last, want, "{:?}", text);
        }
    }

    #[test]
    fn several_calls_come_back_in_text_order(calls in prop::collection::vec((name(), arguments()), 1..4)) {
        let text: String = calls
            .iter()
            .enumerate()
            .map(|(i, (n, a))| {
                let a = json(&Value::Object(a.clone()));
                // alternate formats: all tier 1, so text order must hold across them
                match i % 3 {
                    0 => format!("<tool_call>{{\"name\": {}, \"arguments\": {a}}}</tool_call>\n", json_string(n)),
                    1 => format!("[TOOL_CALLS]{n}[ARGS]{a}\n"),
                    _ => format!("[TOOL_CALL]name={n};args={a}[/TOOL_CALL]\n"),
                }
            })
            .collect();
        let parsed = parse_tool_calls(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(parsed.len(), calls.len());
        for (got, (n, a)) in parsed.iter().zip(&calls) {
            prop_assert_eq!(&got.name, n);
            prop_assert_eq!(&got.arguments, a);
        }
    }

    #[test]
    fn json_decodes_what_serde_json_decodes(v in value()) {
        let text = serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&json(&v)).expect("valid")).expect("serialises");
        let ours = parse_json(&text).map_err(|e| TestCaseError::fail(format!("{e} in {text:?}")))?;
        prop_assert_eq!(ours, v);
    }

    #[test]
    fn json_accepts_exactly_what_serde_json_accepts(
        v in value(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(MUTATIONS), any::<bool>()), 1..4),
    ) {
        let mut text = json(&v);
        for (at, insert, delete) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            if delete && i < text.len() {
                let c = text[i..].chars().next().expect("a char");
                text.replace_range(i..i + c.len_utf8(), "");
            } else {
                text.insert_str(i, insert);
            }
        }
        let theirs = serde_json::from_str::<serde_json::Value>(&text);
        match parse_json(&text) {
            Ok(ours) => {
                let theirs = theirs.map_err(|e| TestCaseError::fail(format!("beacon accepted, serde_json rejected ({e}): {text:?}")))?;
                prop_assert_eq!(ours, from_serde(&theirs), "{:?}", text);
            }
            // Documented strict differences: serde_json keeps the last of repeated keys and
            // (with arbitrary_precision) accepts numbers beyond f64.
            Err(e) if e.code == ErrorCode::JsonDuplicateKey => {}
            Err(e) if e.code == ErrorCode::JsonInvalidNumber && e.message.contains("too large") => {}
            Err(e) => prop_assert!(theirs.is_err(), "beacon rejected ({}), serde_json accepted: {:?}", e, text),
        }
    }

    #[test]
    fn error_offsets_are_char_boundaries_inside_the_input(text in "[a-z(){}\\[\\]\"'=,:<>|_/ 😀é\\\\]{0,40}") {
        for t in [text.clone(), format!("<tool_call>{text}"), format!("f(a={text}"), format!("{{\"name\": {text}")] {
            if let Err(e) = parse_tool_calls(&t) {
                prop_assert!(e.offset <= t.len() && t.is_char_boundary(e.offset), "{:?} at {} in {:?}", e.code, e.offset, t);
            }
        }
    }
}

proptest! {
    // Each case scans every prefix of nine two-call texts: fewer cases keep it quick.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn streaming_two_tagged_calls_moves_only_forward(first in (name(), arguments()), second in (name(), arguments())) {
        let pairs = renderings(&first.0, &first.1).into_iter().zip(renderings(&second.0, &second.1));
        for ((format, a), (_, b)) in pairs {
            let renderable = qwen3_renderable(&first.1) && qwen3_renderable(&second.1);
            let minicpm_ok = minicpm_renderable(&first.1) && minicpm_renderable(&second.1);
            if matches!(format, Format::Json | Format::Python)
                || (format == Format::Qwen3Coder && !renderable)
                || (format == Format::Minicpm && !minicpm_ok)
            {
                continue;
            }
            // Once the first call is complete, the second arriving leaves the state found.
            let text = format!("{a}\n{b}");
            let mut last = StreamState::None;
            for end in (first_marker_end(&text)..=text.len()).filter(|&e| text.is_char_boundary(e)) {
                let scan = scan_stream(&text[..end]);
                let rank = |s: StreamState| s as u8;
                prop_assert!(rank(scan.state) >= rank(last), "{:?} after {:?} at {} in {:?}", scan.state, last, end, text);
                last = scan.state;
            }
        }
    }
}
