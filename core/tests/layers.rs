//! The core's floor plan, checked: every module of `core/src` belongs to one layer, and code only
//! names modules of its own layer or of a lower one. From the top: `host` → `providers` → `template` → `text`
//! → `formats` → `tools` → `syntax` → the ground floor (`call`, `value`, `error`, `lex`). Each
//! layer above the ground floor is one folder, so this also rules out import cycles between files
//! of different folders. Only code is read: comments (doc links among them) are skipped.

use std::path::{Path, PathBuf};

/// The layers from the bottom up; a module is in the layer of its first path segment.
const LAYERS: &[&[&str]] = &[
    &["call", "value", "error", "lex", "repair"],
    &["syntax"],
    &["tools"],
    &["formats"],
    &["text"],
    &["template"],
    &["providers"],
    &["host"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|names| names.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("core/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The first segment after each `crate::` in the code of `text` (comments left out), with the
/// line it stands on.
fn crate_references(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let segment: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if segment.is_empty() && rest.starts_with('{') {
                // `use crate::{a, b}`: every name in the group.
                let group = rest[1..].split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let name: String = item
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.push((n + 1, name));
                    }
                }
            } else if !segment.is_empty() {
                out.push((n + 1, segment));
            }
        }
    }
    out
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under core/src");
        let first = rel.components().next().expect("a path").as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs");
        if module == "lib" {
            continue;
        }
        let own = layer(module).unwrap_or_else(|| panic!("{} is in no layer: add it to LAYERS", rel.display()));
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (line, name) in crate_references(&text) {
            checked += 1;
            match layer(&name) {
                Some(l) if l <= own => {}
                Some(_) => wrong.push(format!("{}:{line} names crate::{name}, a higher layer", rel.display())),
                None => wrong.push(format!(
                    "{}:{line} names crate::{name}, not a module: name the module it is defined in",
                    rel.display()
                )),
            }
        }
    }
    assert!(checked > 300, "only {checked} references read: is the reader broken?");
    assert!(
        wrong.is_empty(),
        "{} wrong reference(s):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_reader_sees_groups_and_skips_comments() {
    let refs = crate_references("use crate::{text, call::Format};\n// crate::host\nlet x = crate::lex::at(b, 0);");
    let names: Vec<&str> = refs.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["text", "call", "lex"]);
}
