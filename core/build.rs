//! Generates one `#[test]` per shared fixture case (`tests/fixtures/*.json`, read by
//! `tests/fixtures.rs`), so that `cargo test hermes_parallel` runs one case and a failure names
//! it. Each case of those files is written on one line that starts with `{"id": "`; the test
//! `every_case_has_its_test` checks that no case was missed. Without the fixtures folder (the
//! crate built on its own) no test is generated.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    let mut out = String::new();
    let mut ids = String::new();
    let mut names = HashSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("{\"id\": \"") else {
                continue;
            };
            let Some(id) = rest.split('"').next() else { continue };
            let name = unique(test_name(id), &mut names);
            let _ = writeln!(out, "#[test]\nfn {name}() {{\n    run_case({id:?});\n}}");
            let _ = writeln!(ids, "    {id:?},");
        }
    }
    let _ = writeln!(
        out,
        "/// The case ids a test was generated for.\nconst GENERATED: &[&str] = &[\n{ids}];"
    );
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("fixture_cases.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// A case id as a function name: `hermes/parallel-calls` → `hermes_parallel_calls`.
fn test_name(id: &str) -> String {
    let mut name = String::new();
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_matches('_').to_string();
    if name.starts_with(|c: char| c.is_ascii_digit()) || name.is_empty() {
        format!("case_{name}")
    } else {
        name
    }
}

fn unique(name: String, names: &mut HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !names.insert(candidate.clone()) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    candidate
}
