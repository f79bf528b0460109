//! Runs the tool-parser test cases of vLLM and SGLang (`tests/conformance/vllm_sglang_cases.jsonl`,
//! described with the counting rules in `tests/conformance/README.md`) through `parse_tool_calls`,
//! with the tools the peer's test passed when it passed any (`parse_tool_calls_with`). The peers
//! use tools to name and type calls, not to validate them (several of their tests expect calls
//! that break the schema they pass), so the tools are passed with `validate: false`.
//!
//! Prints passed/total per peer format and every miss. Fails when the pass rate is below
//! [`MIN_PASS_RATE`], or when the known-misses table in `docs/conformance.md` (section
//! [`SECTION`]) and the actual misses differ: a miss not listed, a listed case that passes, a
//! listed case that does not exist, or a reason still to be written ([`TODO_REASON`] or one
//! starting with `PENDING`). With `BEACON_CONFORMANCE_WRITE=1` the table is rewritten from the
//! actual misses first (reasons already written are kept; new ones come from [`REASONS`]).

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use beacon_core::{
    parse_tool_calls, parse_tool_calls_with, Number, Object, ParseError, ParseOptions, ToolCall, Tools, Value,
};
use serde_json::Value as Json;

const MIN_PASS_RATE: f64 = 0.95;
const SECTION: &str = "## Known misses";
const TABLE_HEADER: &str = "| peer format | source | test | why beacon differs |";
const TODO_REASON: &str = "TODO reason";
const SCHEMA_REASON: &str = "needs tools= (schema typing)";

/// Cases whose input holds a malformed call that the peer drops silently, keeping its siblings:
/// (peer format, test, the malformed call as written). `tests/conformance/README.md`: the peers
/// "silently turn malformed calls into content, where beacon raises a coded error". Such a case
/// is met when beacon raises a coded error positioned inside that malformed call, and only then.
const DROPPED: &[(&str, &str, &str)] = &[
    (
        "llama3",
        "TestLlama32Detector::test_invalid_then_valid_json",
        "{\"name\": \"get_weather\", \"parameters\": {{",
    ),
    (
        "kimi_k2",
        "TestExtractToolCalls::test_invalid_funcall_id_skipped",
        "<|tool_call_begin|>functions.invalid.0 <|tool_call_argument_begin|>{\"city\": \"Beijing\"}<|tool_call_end|>",
    ),
    (
        "pythonic",
        "test_bad_sibling_call_does_not_drop_good_calls[False]",
        "bad(x=b'z')",
    ),
    ("pythonic", "test_non_finite_argument_rejected", "calc(x=1e999)"),
    (
        "pythonic",
        "test_good_call_survives_unparsable_sibling",
        "f(a='x 'y', b='z')",
    ),
    (
        "llama4_pythonic",
        "test_bad_sibling_call_does_not_drop_good_calls[False]",
        "bad(x=b'z')",
    ),
    ("llama4_pythonic", "test_non_finite_argument_rejected", "calc(x=1e999)"),
];

/// Whether `case` is one of [`DROPPED`] and `e` stands inside its malformed call.
fn raised_at_dropped_call(case: &Case, e: &ParseError) -> bool {
    DROPPED
        .iter()
        .filter(|(format, test, _)| *format == case.format && *test == case.test)
        .any(|(_, _, malformed)| {
            let at = case.input.find(malformed).expect("a DROPPED needle is in its input");
            (at..at + malformed.len()).contains(&e.offset)
        })
}

/// Reasons for misses that are not yet in the docs/conformance.md table, keyed by (peer format, test name):
/// used by `BEACON_CONFORMANCE_WRITE=1`. A miss explained by schema typing gets
/// [`SCHEMA_REASON`] without an entry here.
const REASONS: &[(&str, &str, &str)] = &[
    (
        "llama3",
        "TestLlama32Detector::test_multiple_json_with_separator_customized",
        "the peer's test makes `<|python_tag|>` its call separator; beacon separates llama calls with `;`, \
         and other text after a call is `tool_call.syntax`",
    ),
    (
        "llama3",
        "TestLlama32Detector::test_invalid_then_valid_json",
        "the first object claims a call (first key `name`) and is broken JSON: beacon raises \
         `json.unexpected_token` where the peer skips to the next object",
    ),
    (
        "hermes",
        "test_hermes_parser_non_streaming_bare_string_arguments",
        "an `arguments` string that is not JSON of an object is `tool_call.invalid_arguments`; the peer \
         passes the raw string through",
    ),
    (
        "mistral_pre_v11",
        "test_extract_tool_calls_pre_v11_regex_fallback",
        "text between `[TOOL_CALLS]` and the calls (`junk`) raises; the peer's regex fallback skips it",
    ),
    (
        "pythonic",
        "test_bad_sibling_call_does_not_drop_good_calls[False]",
        "a broken call in the list (`b'z'` is a bytes literal) raises; the peer drops it and keeps its sibling",
    ),
    (
        "llama4_pythonic",
        "test_bad_sibling_call_does_not_drop_good_calls[False]",
        "a broken call in the list (`b'z'` is a bytes literal) raises; the peer drops it and keeps its sibling",
    ),
    (
        "pythonic",
        "test_non_finite_argument_rejected",
        "`1e999` does not fit a 64-bit float: beacon raises where the peer drops that call and keeps its sibling",
    ),
    (
        "llama4_pythonic",
        "test_non_finite_argument_rejected",
        "`1e999` does not fit a 64-bit float: beacon raises where the peer drops that call and keeps its sibling",
    ),
    (
        "pythonic",
        "test_good_call_survives_unparsable_sibling",
        "a broken call in the list (`'x 'y'`, a stray quote) raises; the peer drops it and keeps its sibling",
    ),
    (
        "gigachat3",
        "TestGigaChat3Detector::test_detect_and_parse_missing_arguments",
        "after a marker the arguments key may be left out (no arguments, `{}`); the peer rejects the call",
    ),
    (
        "glm45",
        "TestGlm4MoeDetector::test_array_argument_with_escaped_json[escaped_json_2_raw]",
        r#"the text is escaped a second time (a literal `\n` after the tool name, `\"` in the value): beacon raises `tool_call.unrecognized` at the name instead of guessing what was meant"#,
    ),
    (
        "glm47",
        "TestGlm47MoeDetector::test_array_argument_with_escaped_json[escaped_json_2_raw]",
        r#"the value is JSON escaped a second time (`[{\"id\": …}]`): it reads as neither JSON nor a Python literal, so typing it by the schema's `array` is `tool_call.schema`; the peer un-escapes it"#,
    ),
    (
        "glm45",
        "TestGlm4MoeDetector::test_array_argument_with_escaped_json[literal_backslash_n_6_raw]",
        r#"the text is escaped a second time (a literal `\n` after the tool name, `\"` in the value): beacon raises `tool_call.unrecognized` at the name instead of guessing what was meant"#,
    ),
    (
        "glm47",
        "TestGlm47MoeDetector::test_array_argument_with_escaped_json[literal_backslash_n_6_raw]",
        r#"the value is JSON escaped a second time (`[{\"id\": …}]`): it reads as neither JSON nor a Python literal, so typing it by the schema's `array` is `tool_call.schema`; the peer un-escapes it"#,
    ),
    (
        "glm45",
        "TestGlm4MoeDetector::test_array_argument_with_escaped_json[windows_path_4_raw]",
        r#"the text is escaped a second time (a literal `\n` after the tool name, `\"` in the value): beacon raises `tool_call.unrecognized` at the name instead of guessing what was meant"#,
    ),
    (
        "glm47",
        "TestGlm47MoeDetector::test_array_argument_with_escaped_json[windows_path_4_raw]",
        r#"the value is JSON escaped a second time (`[{\"id\": …}]`): it reads as neither JSON nor a Python literal, so typing it by the schema's `array` is `tool_call.schema`; the peer un-escapes it"#,
    ),
    (
        "kimi_k2",
        "TestExtractToolCalls::test_invalid_funcall_id_skipped",
        "`functions.invalid.0` has no `:IDX`: beacon raises `tool_call.syntax` at the id instead of dropping that call and keeping the next one",
    ),
];

struct Case {
    line: usize,
    source: String,
    format: String,
    test: String,
    input: String,
    expected: Vec<(String, Value)>,
    /// The tools the peer's test passed.
    tools: Option<Tools>,
}

impl Case {
    fn key(&self) -> (String, String) {
        (self.format.clone(), self.test.clone())
    }

    /// A case expecting `[]` whose input has no markup at all: no `<`, `[`, `{` or `(` (see
    /// `tests/conformance/README.md`). Every other case expecting `[]` is a broken or rejected call.
    fn is_plain_text(&self) -> bool {
        self.expected.is_empty() && !self.input.contains(['<', '[', '{', '('])
    }
}

struct Miss {
    got: String,
    schema_typing: bool,
}

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn load_cases() -> Vec<Case> {
    let path = repo_root().join("tests/conformance/vllm_sglang_cases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let raw: Json = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
        let field = |k: &str| {
            raw[k]
                .as_str()
                .unwrap_or_else(|| panic!("line {}: `{k}` must be a string", i + 1))
                .to_owned()
        };
        let expected = raw["expected"]
            .as_array()
            .unwrap_or_else(|| panic!("line {}: `expected` must be an array", i + 1))
            .iter()
            .map(|c| {
                let name = c["name"].as_str().expect("expected[].name is a string").to_owned();
                // Usually an object; one hermes case expects the raw string a peer passes through.
                (name, common::from_serde(&c["arguments"]))
            })
            .collect();
        cases.push(Case {
            line: i + 1,
            source: field("source"),
            format: field("format"),
            test: field("test"),
            input: field("input"),
            expected,
            tools: raw.get("tools").filter(|t| !t.is_null()).map(|t| {
                Tools::from_value(&common::from_serde(t))
                    .unwrap_or_else(|e| panic!("line {}: the case's tools cannot be read: {e}", i + 1))
            }),
        });
    }
    cases
}

// ---- comparing values -------------------------------------------------------------------------

fn same_number(a: &Number, b: &Number) -> bool {
    match (a, b) {
        (Number::Int(x), Number::Int(y)) => x == y,
        (Number::BigInt(x), Number::BigInt(y)) => x == y,
        (Number::Int(_), Number::BigInt(_)) | (Number::BigInt(_), Number::Int(_)) => false,
        _ => as_f64(a) == as_f64(b),
    }
}

fn as_f64(n: &Number) -> f64 {
    match n {
        Number::Int(i) => *i as f64,
        Number::BigInt(s) => s.parse().unwrap_or(f64::NAN),
        Number::Float(f) => *f,
    }
}

/// Equal as JSON values: key order ignored, numbers by value. With `loose`, a string also equals
/// a non-string value it spells (`"5"` and `5`, `"True"` and `true`): what typing by a tool schema
/// changes.
fn same_value(a: &Value, b: &Value, loose: bool) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => same_number(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(p, q, loose))
        }
        (Value::Object(x), Value::Object(y)) => same_object(x, y, loose),
        (Value::String(s), other) | (other, Value::String(s)) if loose && !matches!(other, Value::String(_)) => {
            spells(s, other)
        }
        _ => a == b,
    }
}

fn same_object(x: &Object, y: &Object, loose: bool) -> bool {
    x.len() == y.len()
        && x.iter().all(|(k, v)| {
            y.iter()
                .find(|(j, _)| j == k)
                .is_some_and(|(_, w)| same_value(v, w, loose))
        })
}

/// Whether the text `s` writes `value` as JSON or as a Python literal.
fn spells(s: &str, value: &Value) -> bool {
    let s = s.trim();
    if let Ok(parsed) = beacon_core::parse_json(s) {
        if same_value(&parsed, value, false) {
            return true;
        }
    }
    matches!(
        (s, value),
        ("True", Value::Bool(true)) | ("False", Value::Bool(false)) | ("None", Value::Null)
    )
}

fn same_calls(expected: &[(String, Value)], got: &[ToolCall], loose: bool) -> bool {
    expected.len() == got.len()
        && expected.iter().zip(got).all(|((name, args), call)| {
            *name == call.name && same_value(args, &Value::Object(call.arguments.clone()), loose)
        })
}

// ---- running a case ---------------------------------------------------------------------------

fn describe_expected(case: &Case) -> String {
    if case.expected.is_empty() {
        let what = if case.is_plain_text() {
            "plain text: tool_call.not_found"
        } else {
            "broken call: a coded error"
        };
        return format!("[] ({what})");
    }
    let calls: Vec<String> = case
        .expected
        .iter()
        .map(|(name, args)| format!("{name}{}", args.to_json()))
        .collect();
    calls.join(", ")
}

fn describe_got(result: &Result<Vec<ToolCall>, ParseError>) -> String {
    match result {
        Ok(calls) => {
            let calls: Vec<String> = calls
                .iter()
                .map(|c| {
                    format!(
                        "{}{} ({})",
                        c.name,
                        Value::Object(c.arguments.clone()).to_json(),
                        c.format.as_str()
                    )
                })
                .collect();
            calls.join(", ")
        }
        Err(e) => format!("error {} at byte {}: {}", e.code.as_str(), e.offset, e.message),
    }
}

/// `None` when the case passes.
fn run(case: &Case) -> Option<Miss> {
    let input = case.input.as_str();
    let parse = || match &case.tools {
        Some(tools) => parse_tool_calls_with(
            input,
            &ParseOptions {
                validate: false,
                ..ParseOptions::with_tools(tools)
            },
        ),
        None => parse_tool_calls(input),
    };
    let result = match std::panic::catch_unwind(parse) {
        Ok(result) => result,
        Err(_) => {
            return Some(Miss {
                got: "panic".to_owned(),
                schema_typing: false,
            })
        }
    };
    let passed = match (&result, case.expected.is_empty()) {
        (Ok(got), false) => same_calls(&case.expected, got, false),
        (Err(e), true) => !case.is_plain_text() || e.code.as_str() == "tool_call.not_found",
        (Err(e), false) => raised_at_dropped_call(case, e),
        _ => false,
    };
    if passed {
        return None;
    }
    let schema_typing = case.tools.is_some() && matches!(&result, Ok(got) if same_calls(&case.expected, got, true));
    Some(Miss {
        got: describe_got(&result),
        schema_typing,
    })
}

// ---- the known-misses table (docs/conformance.md) ------------------------------------------------

struct Table {
    /// Line range of the table's rows (after the header and separator) in docs/conformance.md.
    rows: std::ops::Range<usize>,
    entries: BTreeMap<(String, String), (String, String)>,
}

fn readme_path() -> PathBuf {
    repo_root().join("docs/conformance.md")
}

/// Cells of one Markdown table row; `\|` is a literal bar inside a cell.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => out.last_mut().unwrap().push(chars.next().unwrap()),
            '|' => out.push(String::new()),
            _ => out.last_mut().unwrap().push(c),
        }
    }
    out.iter().map(|c| c.trim().to_owned()).collect()
}

fn read_table(readme: &str) -> Table {
    let lines: Vec<&str> = readme.lines().collect();
    let section = lines
        .iter()
        .position(|l| l.trim_end() == SECTION)
        .unwrap_or_else(|| panic!("docs/conformance.md has no section `{SECTION}`"));
    let end = lines[section + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |i| section + 1 + i);
    let header = lines[section..end]
        .iter()
        .position(|l| l.trim_end() == TABLE_HEADER)
        .map(|i| section + i)
        .unwrap_or_else(|| panic!("docs/conformance.md section `{SECTION}` has no table `{TABLE_HEADER}`"));
    let first = header + 2;
    let last = lines[first..]
        .iter()
        .position(|l| !l.starts_with('|'))
        .map_or(lines.len(), |i| first + i);
    let mut entries = BTreeMap::new();
    for row in &lines[first..last] {
        let c = cells(row);
        assert_eq!(c.len(), 4, "docs/conformance.md known-misses row needs 4 cells: {row}");
        let test = c[2].trim_matches('`').to_owned();
        let previous = entries.insert((c[0].trim_matches('`').to_owned(), test), (c[1].clone(), c[3].clone()));
        assert!(
            previous.is_none(),
            "docs/conformance.md known-misses table lists a case twice: {row}"
        );
    }
    Table {
        rows: first..last,
        entries,
    }
}

fn reason_is_unwritten(reason: &str) -> bool {
    reason.is_empty() || reason.starts_with("TODO") || reason.starts_with("PENDING")
}

/// The reason to write for a miss: the table's own unless unwritten, else [`REASONS`], else
/// [`SCHEMA_REASON`] when schema typing explains it, else [`TODO_REASON`].
fn reason_for(case: &Case, miss: &Miss, table: &Table) -> String {
    if let Some((_, reason)) = table.entries.get(&case.key()) {
        if !reason_is_unwritten(reason) && (reason != SCHEMA_REASON || miss.schema_typing) {
            return reason.clone();
        }
    }
    if let Some((_, _, reason)) = REASONS.iter().find(|(f, t, _)| *f == case.format && *t == case.test) {
        return (*reason).to_owned();
    }
    if miss.schema_typing {
        return SCHEMA_REASON.to_owned();
    }
    TODO_REASON.to_owned()
}

fn write_table(readme: &str, table: &Table, rows: &[String]) {
    let mut out: Vec<&str> = readme.lines().collect();
    out.splice(table.rows.clone(), rows.iter().map(String::as_str));
    let mut text = out.join("\n");
    text.push('\n');
    std::fs::write(readme_path(), text).expect("write docs/conformance.md");
}

fn table_row(case: &Case, reason: &str) -> String {
    format!(
        "| {} | {} | `{}` | {} |",
        case.format,
        case.source,
        case.test,
        reason.replace('|', "\\|")
    )
}

// ---- the test ---------------------------------------------------------------------------------

#[test]
fn vllm_and_sglang_cases() {
    let cases = load_cases();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let results: Vec<Option<Miss>> = cases.iter().map(run).collect();
    std::panic::set_hook(default_hook);

    let mut problems = Vec::new();
    // passed/total per peer format and source
    let mut per_format: BTreeMap<(&str, &str), (usize, usize)> = BTreeMap::new();
    for (case, miss) in cases.iter().zip(&results) {
        let entry = per_format.entry((&case.format, &case.source)).or_default();
        entry.1 += 1;
        if miss.is_none() {
            entry.0 += 1;
        }
    }
    let passed = results.iter().filter(|m| m.is_none()).count();
    let mut report = String::new();
    let _ = writeln!(report, "{:<18} {:<8} {:>6}", "peer format", "source", "passed");
    for ((format, source), (ok, total)) in &per_format {
        let _ = writeln!(report, "{format:<18} {source:<8} {:>6}", format!("{ok}/{total}"));
    }
    let rate = passed as f64 / cases.len() as f64;
    let _ = writeln!(
        report,
        "{:<27} {passed}/{} ({:.1}%)",
        "total",
        cases.len(),
        rate * 100.0
    );
    println!("{report}");

    let readme = std::fs::read_to_string(readme_path()).expect("read docs/conformance.md");
    let mut table = read_table(&readme);
    let mut rows = Vec::new();
    println!("misses:");
    for (case, miss) in cases.iter().zip(&results) {
        let Some(miss) = miss else { continue };
        let reason = reason_for(case, miss, &table);
        println!(
            "MISS {} / {} ({}, line {})",
            case.format, case.test, case.source, case.line
        );
        println!("  input:    {:?}", case.input);
        println!("  expected: {}", describe_expected(case));
        println!("  got:      {}", miss.got);
        println!("  reason:   {reason}");
        rows.push((case, reason));
    }
    rows.sort_by_key(|row| row.0.key());

    if std::env::var_os("BEACON_CONFORMANCE_WRITE").is_some_and(|v| v == "1") {
        let lines: Vec<String> = rows.iter().map(|(case, reason)| table_row(case, reason)).collect();
        write_table(&readme, &table, &lines);
        println!("rewrote the docs/conformance.md table: {} misses", lines.len());
        table = read_table(&std::fs::read_to_string(readme_path()).expect("read docs/conformance.md"));
    }

    check_table(&cases, &results, &table, &mut problems);
    for p in &problems {
        println!("PROBLEM: {p}");
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) with the known-misses table of docs/conformance.md",
        problems.len()
    );
    assert!(
        rate >= MIN_PASS_RATE,
        "{passed} of {} conformance cases pass ({:.1}%); at least {:.0}% required",
        cases.len(),
        rate * 100.0,
        MIN_PASS_RATE * 100.0
    );
}

/// The known-misses table must list exactly the misses, each with a written reason; a schema-typing
/// reason only where the case passes tools and typing explains the difference.
fn check_table(cases: &[Case], results: &[Option<Miss>], table: &Table, problems: &mut Vec<String>) {
    let by_key: BTreeMap<(String, String), (&Case, &Option<Miss>)> =
        cases.iter().zip(results).map(|(c, m)| (c.key(), (c, m))).collect();
    assert_eq!(by_key.len(), cases.len(), "(peer format, test) must identify a case");
    for (key, (source, reason)) in &table.entries {
        let Some((case, miss)) = by_key.get(key) else {
            problems.push(format!(
                "docs/conformance.md lists {} / {}, which is not a case",
                key.0, key.1
            ));
            continue;
        };
        let Some(miss) = miss else {
            problems.push(format!(
                "docs/conformance.md lists {} / {} as a miss, but it passes: remove it",
                key.0, key.1
            ));
            continue;
        };
        if *source != case.source {
            problems.push(format!(
                "docs/conformance.md gives {} / {} the source {source}, not {}",
                key.0, key.1, case.source
            ));
        }
        if reason.starts_with("PENDING") {
            problems.push(format!(
                "docs/conformance.md marks {} / {} {reason:?}: once that parser is merged, rerun with \
                 BEACON_CONFORMANCE_WRITE=1 and write the reason if it still misses",
                key.0, key.1
            ));
        } else if reason_is_unwritten(reason) {
            problems.push(format!(
                "docs/conformance.md reason for {} / {} is not written: {reason:?}",
                key.0, key.1
            ));
        }
        if reason == SCHEMA_REASON && !miss.schema_typing {
            problems.push(format!(
                "docs/conformance.md says {} / {} needs schema typing, but typing does not explain the difference",
                key.0, key.1
            ));
        }
    }
    for (key, (_, miss)) in &by_key {
        if miss.is_some() && !table.entries.contains_key(key) {
            problems.push(format!(
                "miss {} / {} is not in docs/conformance.md table (BEACON_CONFORMANCE_WRITE=1 adds it)",
                key.0, key.1
            ));
        }
    }
}
