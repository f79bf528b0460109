//! Runs every case of the shared fixtures (`tests/fixtures/*.json`, schema in
//! `tests/fixtures/README.md`) through the Rust API. All cases run; every failing case is printed
//! with expected vs actual, and the test fails once at the end with the count.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use beacon_core::{
    locate, parse_message, parse_tool_call_with, parse_tool_calls_with, ErrorCode, Format, FormatSet, MessageOptions,
    Number, ParseError, ParseOptions, ToolCall, Tools, Unit, UnknownTools, Value,
};
use serde_json::Value as Json;

const MIN_CASES: usize = 150;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("tests")
        .join("fixtures")
}

struct Case {
    file: String,
    id: String,
    input: String,
    function: String,
    expect: Expect,
    /// The message's expected content and reasoning (`parse_message`), when the case states them.
    content: Option<String>,
    reasoning: Option<Option<String>>,
    /// The `formats` option, when the case gives one.
    formats: Option<FormatSet>,
    /// The `tools`, `validate` and `unknown` options.
    tools: Option<Tools>,
    validate: bool,
    unknown: UnknownTools,
}

impl Case {
    fn options(&self) -> ParseOptions<'_> {
        ParseOptions {
            formats: self.formats.unwrap_or_default(),
            tools: self.tools.as_ref(),
            validate: self.validate,
            unknown: self.unknown,
        }
    }
}

enum Expect {
    Calls(Vec<Json>),
    Error {
        code: String,
        position: usize,
        line: usize,
        column: usize,
        /// The JSON pointer of a `tool_call.schema` error.
        path: Option<String>,
    },
}

fn load_cases() -> Vec<Case> {
    let dir = fixtures_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixture files in {}", dir.display());

    let mut cases = Vec::new();
    for path in paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        // Not serde_json::from_str: its recursion limit (128) is below the nesting of the
        // depth-boundary cases (128 levels of arguments inside the case structure).
        let root: Json = read_json(&text).unwrap_or_else(|e| panic!("{file}: invalid JSON: {e}"));
        let list = root
            .get("cases")
            .and_then(Json::as_array)
            .unwrap_or_else(|| panic!("{file}: expected {{\"cases\": [...]}}"));
        for raw in list {
            let id = raw["id"]
                .as_str()
                .unwrap_or_else(|| panic!("{file}: case without a string id"))
                .to_owned();
            let input = raw["input"]
                .as_str()
                .unwrap_or_else(|| panic!("{file}/{id}: input must be a string"))
                .to_owned();
            let function = raw
                .get("function")
                .and_then(Json::as_str)
                .unwrap_or("parse_tool_calls")
                .to_owned();
            assert!(
                function == "parse_tool_calls" || function == "parse_tool_call",
                "{file}/{id}: unknown function {function}"
            );
            let expect = match (raw.get("calls"), raw.get("error")) {
                (Some(calls), None) => {
                    let calls = calls
                        .as_array()
                        .unwrap_or_else(|| panic!("{file}/{id}: calls must be an array"));
                    assert!(
                        !calls.is_empty(),
                        "{file}/{id}: calls must not be empty (use tool_call.not_found)"
                    );
                    Expect::Calls(calls.clone())
                }
                (None, Some(e)) => {
                    let n = |k: &str| {
                        e.get(k)
                            .and_then(Json::as_u64)
                            .unwrap_or_else(|| panic!("{file}/{id}: error.{k} must be an integer"))
                            as usize
                    };
                    Expect::Error {
                        code: e["code"]
                            .as_str()
                            .unwrap_or_else(|| panic!("{file}/{id}: error.code"))
                            .to_owned(),
                        position: n("position"),
                        line: n("line"),
                        column: n("column"),
                        path: e
                            .get("path")
                            .map(|p| p.as_str().expect("error.path is a string").to_owned()),
                    }
                }
                _ => panic!("{file}/{id}: a case has exactly one of `calls` and `error`"),
            };
            let content = raw
                .get("content")
                .map(|c| c.as_str().expect("content is a string").to_owned());
            let reasoning = raw.get("reasoning").map(|r| r.as_str().map(str::to_owned));
            let formats = raw.get("formats").map(|f| {
                f.as_array()
                    .expect("formats is a list")
                    .iter()
                    .map(|id| Format::parse(id.as_str().expect("a format id")).expect("a known format id"))
                    .collect()
            });
            let tools = raw.get("tools").map(|t| {
                Tools::from_value(&common::from_serde(t))
                    .unwrap_or_else(|e| panic!("{file}/{id}: the case's tools cannot be read: {e}"))
            });
            let validate = raw
                .get("validate")
                .is_none_or(|v| v.as_bool().expect("validate is a boolean"));
            let unknown = match raw.get("unknown").map(|u| u.as_str().expect("unknown is a string")) {
                None => UnknownTools::Error,
                Some("keep") => UnknownTools::Keep,
                Some("drop") => UnknownTools::Drop,
                Some(other) => panic!("{file}/{id}: unknown must be \"keep\" or \"drop\", found {other:?}"),
            };
            cases.push(Case {
                file: file.clone(),
                id,
                input,
                function,
                expect,
                content,
                reasoning,
                formats,
                tools,
                validate,
                unknown,
            });
        }
    }
    cases
}

/// A small strict JSON reader without a depth limit, for the (trusted) fixture files. Objects keep
/// their key order and numbers keep their exact text (serde_json features preserve_order and
/// arbitrary_precision).
fn read_json(text: &str) -> Result<Json, String> {
    struct R<'a> {
        s: &'a [u8],
        i: usize,
    }
    impl R<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }
        fn err<T>(&self, what: &str) -> Result<T, String> {
            Err(format!("{what} at byte {}", self.i))
        }
        fn eat(&mut self, b: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&b) {
                self.i += 1;
                Ok(())
            } else {
                self.err(&format!("expected `{}`", b as char))
            }
        }
        fn hex4(&mut self) -> Result<u32, String> {
            let h = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
            let v = u32::from_str_radix(std::str::from_utf8(h).map_err(|e| e.to_string())?, 16)
                .map_err(|e| e.to_string())?;
            self.i += 4;
            Ok(v)
        }
        fn string(&mut self) -> Result<String, String> {
            self.eat(b'"')?;
            let mut out = String::new();
            loop {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != b'"' && self.s[self.i] != b'\\' {
                    self.i += 1;
                }
                out.push_str(std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?);
                match self.s.get(self.i) {
                    Some(b'"') => {
                        self.i += 1;
                        return Ok(out);
                    }
                    Some(b'\\') => {
                        self.i += 1;
                        let c = *self.s.get(self.i).ok_or("end in escape")?;
                        self.i += 1;
                        match c {
                            b'"' => out.push('"'),
                            b'\\' => out.push('\\'),
                            b'/' => out.push('/'),
                            b'b' => out.push('\u{8}'),
                            b'f' => out.push('\u{c}'),
                            b'n' => out.push('\n'),
                            b'r' => out.push('\r'),
                            b't' => out.push('\t'),
                            b'u' => {
                                let mut cp = self.hex4()?;
                                if (0xD800..0xDC00).contains(&cp) && self.s.get(self.i..self.i + 2) == Some(b"\\u") {
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                }
                                out.push(char::from_u32(cp).ok_or("bad \\u escape in fixture")?);
                            }
                            _ => return self.err("bad escape"),
                        }
                    }
                    _ => return self.err("unterminated string"),
                }
            }
        }
        fn value(&mut self) -> Result<Json, String> {
            self.ws();
            match self.s.get(self.i) {
                Some(b'{') => {
                    self.i += 1;
                    let mut map = serde_json::Map::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Ok(Json::Object(map));
                    }
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.eat(b':')?;
                        let v = self.value()?;
                        if map.insert(k, v).is_some() {
                            return self.err("duplicate key in fixture");
                        }
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Json::Object(map));
                            }
                            _ => return self.err("expected , or }"),
                        }
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut items = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Ok(Json::Array(items));
                    }
                    loop {
                        items.push(self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Ok(Json::Array(items));
                            }
                            _ => return self.err("expected , or ]"),
                        }
                    }
                }
                Some(b'"') => Ok(Json::String(self.string()?)),
                Some(b't') if self.s[self.i..].starts_with(b"true") => {
                    self.i += 4;
                    Ok(Json::Bool(true))
                }
                Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                    self.i += 5;
                    Ok(Json::Bool(false))
                }
                Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                    self.i += 4;
                    Ok(Json::Null)
                }
                Some(b'-' | b'0'..=b'9') => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        self.i += 1;
                    }
                    let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                    // A lone number is shallow, so serde_json keeps its exact text here.
                    serde_json::from_str::<serde_json::Number>(t)
                        .map(Json::Number)
                        .map_err(|e| format!("{t}: {e}"))
                }
                _ => self.err("unexpected character"),
            }
        }
    }
    let mut r = R {
        s: text.as_bytes(),
        i: 0,
    };
    let v = r.value()?;
    r.ws();
    if r.i != r.s.len() {
        return r.err("trailing characters");
    }
    Ok(v)
}

/// Byte offset of the `cp`-th code point (`input.len()` for one past the end).
fn cp_to_byte(input: &str, cp: usize) -> Option<usize> {
    if cp == input.chars().count() {
        return Some(input.len());
    }
    input.char_indices().nth(cp).map(|(b, _)| b)
}

/// Line and column (1-based, code points) of a code-point offset, computed independently of beacon.
fn line_col(input: &str, cp: usize) -> (usize, usize) {
    let before: Vec<char> = input.chars().take(cp).collect();
    let line = 1 + before.iter().filter(|&&c| c == '\n').count();
    let line_start = before.iter().rposition(|&c| c == '\n').map_or(0, |i| i + 1);
    (line, cp - line_start + 1)
}

fn compare_value(expected: &Json, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (expected, actual) {
        (Json::Null, Value::Null) => {}
        (Json::Bool(a), Value::Bool(b)) if a == b => {}
        (Json::String(a), Value::String(b)) if a == b => {}
        (Json::Number(n), Value::Number(actual_n)) => {
            let text = n.as_str();
            let is_float = text.contains(['.', 'e', 'E']);
            let ok = if is_float {
                let want: f64 = text.parse().unwrap();
                matches!(actual_n, Number::Float(f) if f.to_bits() == want.to_bits())
            } else {
                match text.parse::<i64>() {
                    Ok(want) => matches!(actual_n, Number::Int(i) if *i == want),
                    Err(_) => matches!(actual_n, Number::BigInt(s) if s == text),
                }
            };
            if !ok {
                let kind = if is_float {
                    "Float"
                } else if text.parse::<i64>().is_ok() {
                    "Int"
                } else {
                    "BigInt"
                };
                out.push(format!("{path}: expected {kind}({text}), got {actual_n:?}"));
            }
        }
        (Json::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: expected {} elements, got {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare_value(x, y, &format!("{path}[{i}]"), out);
            }
        }
        (Json::Object(a), Value::Object(b)) => compare_object(a, b, path, out),
        _ => out.push(format!("{path}: expected {expected}, got {}", actual.to_json())),
    }
}

fn compare_object(
    expected: &serde_json::Map<String, Json>,
    actual: &beacon_core::Object,
    path: &str,
    out: &mut Vec<String>,
) {
    let want: Vec<&String> = expected.keys().collect();
    let got: Vec<&String> = actual.iter().map(|(k, _)| k).collect();
    if want != got {
        out.push(format!("{path}: keys (in order) expected {want:?}, got {got:?}"));
    }
    for (key, value) in expected {
        if let Some((_, actual_value)) = actual.iter().find(|(k, _)| k == key) {
            compare_value(value, actual_value, &format!("{path}.{key}"), out);
        }
    }
}

fn describe_calls(calls: &[ToolCall]) -> String {
    let items: Vec<String> = calls
        .iter()
        .map(|c| {
            let id =
                c.id.as_ref()
                    .map(|id| format!("\"id\":{},", Value::String(id.clone()).to_json()));
            format!(
                "{{{}\"name\":{},\"arguments\":{},\"format\":\"{}\"}}",
                id.unwrap_or_default(),
                Value::String(c.name.clone()).to_json(),
                Value::Object(c.arguments.clone()).to_json(),
                c.format.as_str()
            )
        })
        .collect();
    format!("calls [{}]", items.join(", "))
}

fn describe_error(input: &str, e: &ParseError) -> String {
    let loc = locate(input, e.offset, Unit::CodePoints);
    let path = e.path.as_ref().map(|p| format!(", path {p:?}")).unwrap_or_default();
    format!(
        "error {} at position {} (line {}, column {}; byte {}{path}): {}",
        e.code.as_str(),
        loc.offset,
        loc.line,
        loc.column,
        e.offset,
        e.message
    )
}

fn describe_expected(expect: &Expect) -> String {
    match expect {
        Expect::Calls(calls) => {
            format!("calls {}", serde_json::to_string(&Json::Array(calls.clone())).unwrap())
        }
        Expect::Error {
            code,
            position,
            line,
            column,
            path,
        } => {
            let path = path.as_ref().map(|p| format!(", path {p:?}")).unwrap_or_default();
            format!("error {code} at position {position} (line {line}, column {column}{path})")
        }
    }
}

/// The problems with one case (empty when it passes) and a description of what beacon returned.
fn check(case: &Case) -> (Vec<String>, String) {
    let mut problems = Vec::new();
    let input = case.input.as_str();
    let outcome = std::panic::catch_unwind(|| {
        let options = case.options();
        if case.function == "parse_tool_call" {
            parse_tool_call_with(input, &options).map(|c| vec![c])
        } else {
            parse_tool_calls_with(input, &options)
        }
    });
    let result = match outcome {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            problems.push(format!("panicked: {msg}"));
            return (problems, "panic".to_owned());
        }
    };

    match (&case.expect, &result) {
        (Expect::Calls(want), Ok(got)) => {
            if want.len() != got.len() {
                problems.push(format!("expected {} call(s), got {}", want.len(), got.len()));
            }
            for (i, (w, g)) in want.iter().zip(got).enumerate() {
                let name = w["name"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{}: calls[{i}].name", case.id));
                if g.name != name {
                    problems.push(format!("calls[{i}].name: expected {name:?}, got {:?}", g.name));
                }
                let id = w.get("id").map(|id| id.as_str().expect("calls[].id is a string"));
                if g.id.as_deref() != id {
                    problems.push(format!("calls[{i}].id: expected {id:?}, got {:?}", g.id));
                }
                if let Some(format) = w.get("format").and_then(Json::as_str) {
                    if g.format.as_str() != format {
                        problems.push(format!(
                            "calls[{i}].format: expected {format}, got {}",
                            g.format.as_str()
                        ));
                    }
                }
                let args = w["arguments"]
                    .as_object()
                    .unwrap_or_else(|| panic!("{}: calls[{i}].arguments must be an object", case.id));
                compare_object(args, &g.arguments, &format!("calls[{i}].arguments"), &mut problems);
            }
        }
        (
            Expect::Error {
                code,
                position,
                line,
                column,
                path,
            },
            Err(e),
        ) => {
            if e.code.as_str() != code {
                problems.push(format!("code: expected {code}, got {}", e.code.as_str()));
            }
            if e.path != *path {
                problems.push(format!("path: expected {path:?}, got {:?}", e.path));
            }
            match cp_to_byte(input, *position) {
                Some(byte) if byte == e.offset => {}
                Some(byte) => {
                    let got = locate(input, e.offset, Unit::CodePoints);
                    problems.push(format!(
                        "position: expected {position} (byte {byte}), got {} (byte {})",
                        got.offset, e.offset
                    ));
                }
                None => problems.push(format!("fixture position {position} is past the end of the input")),
            }
            let loc = locate(input, e.offset, Unit::CodePoints);
            if (loc.line, loc.column) != (*line, *column) {
                problems.push(format!(
                    "line/column: expected {line}:{column}, got {}:{} (locate, code points)",
                    loc.line, loc.column
                ));
            }
        }
        (Expect::Calls(_), Err(_)) | (Expect::Error { .. }, Ok(_)) => {
            problems.push("outcome differs".to_owned());
        }
    }
    check_message(case, &result, &mut problems);
    let actual = match &result {
        Ok(calls) => describe_calls(calls),
        Err(e) => describe_error(input, e),
    };
    (problems, actual)
}

/// The message counterpart of a case: `parse_message` finds the same calls (in order, with
/// spans that slice the input) or fails the same way, except that no call is no error; and it
/// has the content and reasoning the case states.
fn check_message(case: &Case, calls: &Result<Vec<ToolCall>, ParseError>, problems: &mut Vec<String>) {
    let input = case.input.as_str();
    let message = match std::panic::catch_unwind(|| {
        parse_message(
            input,
            MessageOptions {
                formats: case.formats.unwrap_or_default(),
                tools: case.tools.as_ref(),
                validate: case.validate,
                unknown: case.unknown,
                ..Default::default()
            },
        )
    }) {
        Ok(m) => m,
        Err(_) => return problems.push("parse_message panicked".to_owned()),
    };
    match (calls, &message) {
        (Ok(calls), Ok(m))
            if case.function == "parse_tool_calls" && describe_calls(calls) != describe_calls(&m.tool_calls) =>
        {
            problems.push(format!("parse_message: {}", describe_calls(&m.tool_calls)));
        }
        (Ok(_), Ok(_)) => {}
        (Err(e), Ok(m)) if e.code == ErrorCode::NotFound && !m.tool_calls.is_empty() => {
            problems.push(format!("parse_message found {}", describe_calls(&m.tool_calls)));
        }
        (Err(e), Ok(_)) if e.code == ErrorCode::NotFound => {}
        (Err(e), Ok(_)) if e.code == ErrorCode::Multiple => {}
        (Err(e), Err(m)) if case.function == "parse_tool_calls" && (e.code, e.offset) != (m.code, m.offset) => {
            problems.push(format!("parse_message: {}", describe_error(input, m)));
        }
        (Err(_), Err(_)) => {}
        (_, Err(m)) if case.function == "parse_tool_calls" => {
            problems.push(format!("parse_message: {}", describe_error(input, m)))
        }
        (Err(_), Ok(m)) if case.function == "parse_tool_calls" => {
            problems.push(format!("parse_message did not fail: {}", describe_calls(&m.tool_calls)))
        }
        _ => {}
    }
    let Ok(m) = message else { return };
    let mut last = 0;
    for call in &m.tool_calls {
        let ok = last <= call.span.start
            && call.span.start < call.span.end
            && call.span.end <= input.len()
            && input.is_char_boundary(call.span.start)
            && input.is_char_boundary(call.span.end);
        if !ok {
            problems.push(format!(
                "parse_message: span {:?} of {} out of order or bounds",
                call.span, call.name
            ));
        }
        last = call.span.end;
    }
    if let Some(content) = &case.content {
        if &m.content != content {
            problems.push(format!("content: expected {content:?}, got {:?}", m.content));
        }
    }
    if let Some(reasoning) = &case.reasoning {
        if &m.reasoning != reasoning {
            problems.push(format!("reasoning: expected {reasoning:?}, got {:?}", m.reasoning));
        }
    }
}

#[test]
fn fixtures() {
    let cases = load_cases();

    // Keep panics inside beacon from spamming the output with backtraces; they are reported.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut ids = BTreeSet::new();
    let mut per_file: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut codes_seen = BTreeSet::new();
    let mut fixture_problems = Vec::new();

    for case in &cases {
        if !ids.insert(case.id.as_str()) {
            fixture_problems.push(format!("duplicate case id {}", case.id));
        }
        if let Expect::Error {
            code,
            position,
            line,
            column,
            ..
        } = &case.expect
        {
            codes_seen.insert(code.clone());
            if *position > case.input.chars().count() {
                fixture_problems.push(format!("{}: position {position} past the end of the input", case.id));
            } else if line_col(&case.input, *position) != (*line, *column) {
                let (l, c) = line_col(&case.input, *position);
                fixture_problems.push(format!(
                    "{}: line/column {line}:{column} do not match position {position} (should be {l}:{c})",
                    case.id
                ));
            }
        }
        let entry = per_file.entry(case.file.as_str()).or_default();
        entry.0 += 1;
        let (problems, actual) = check(case);
        if !problems.is_empty() {
            entry.1 += 1;
            let mut report = String::new();
            let _ = writeln!(report, "FAIL {} ({}, {})", case.id, case.file, case.function);
            let _ = writeln!(report, "  input:    {:?}", case.input);
            let _ = writeln!(report, "  expected: {}", describe_expected(&case.expect));
            let _ = writeln!(report, "  actual:   {actual}");
            for p in &problems {
                let _ = writeln!(report, "  - {p}");
            }
            failures.push(report);
        }
    }
    std::panic::set_hook(default_hook);

    for f in &failures {
        println!("{f}");
    }
    println!("fixture files:");
    for (file, (total, failed)) in &per_file {
        println!("  {file}: {total} cases, {failed} failing");
    }
    println!("total: {} cases, {} failing", cases.len(), failures.len());

    // Every code the parsing functions can return must have a fixture. Not required:
    // - `internal` (a bug, never expected);
    // - `json.invalid_utf8` (the parsers take `&str`; only bytes passed to `utf8_text` fail so);
    // - codes outside `tool_call.*` / `json.*`, which belong to other APIs (e.g. `result.*`).
    const NOT_REACHABLE_FROM_PARSE: [ErrorCode; 2] = [ErrorCode::Internal, ErrorCode::JsonInvalidUtf8];
    let missing: Vec<&str> = ErrorCode::ALL
        .iter()
        .filter(|c| !NOT_REACHABLE_FROM_PARSE.contains(c))
        .map(|c| c.as_str())
        .filter(|c| c.starts_with("tool_call.") || c.starts_with("json."))
        .filter(|c| !codes_seen.contains(*c))
        .collect();
    for code in &codes_seen {
        if !ErrorCode::ALL.iter().any(|c| c.as_str() == code) {
            fixture_problems.push(format!("unknown error code {code} in fixtures"));
        }
    }
    if !missing.is_empty() {
        fixture_problems.push(format!("error codes without a fixture: {missing:?}"));
    }
    if cases.len() < MIN_CASES {
        fixture_problems.push(format!("only {} cases; at least {MIN_CASES} expected", cases.len()));
    }
    for p in &fixture_problems {
        println!("FIXTURE PROBLEM: {p}");
    }
    assert!(
        fixture_problems.is_empty(),
        "{} problem(s) with the fixtures themselves",
        fixture_problems.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases failed",
        failures.len(),
        cases.len()
    );
}
