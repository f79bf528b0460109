//! Every ```rust example of the top-level `README.md` and of `docs/*.md` compiles and runs against
//! this crate, through `rustdoc --test` on each page: the harness that runs the crate's own
//! doctests (`core/README.md` is the crate's front page, so `cargo test --doc` runs its examples).
//! Each page that has examples must keep at least as many as [`MIN_EXAMPLES`] says, and a page
//! not listed there must have none, so that an example lost to a broken fence fails here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fewest Rust examples each page must have (and run).
const MIN_EXAMPLES: &[(&str, usize)] = &[
    ("README.md", 1),
    ("docs/providers.md", 1),
    ("docs/streaming.md", 1),
    ("docs/tools.md", 1),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// The folder of the crates this test was linked with (`target/<profile>/deps`).
fn deps_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    exe.parent().expect("the deps folder").to_path_buf()
}

/// The newest `libbeacon_core-*.rlib` beside this test: the library it was linked with.
fn beacon_rlib(deps: &Path) -> PathBuf {
    std::fs::read_dir(deps)
        .expect("read the deps folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("libbeacon_core-") && name.ends_with(".rlib")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| panic!("no libbeacon_core-*.rlib in {}", deps.display()))
}

/// The ```rust fences of a Markdown page (rustdoc also tests unmarked fences; the pages mark
/// every fence with its language).
fn rust_examples(text: &str) -> usize {
    text.lines().filter(|l| l.trim_end() == "```rust").count()
}

fn pages() -> Vec<String> {
    let root = repo_root();
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("read docs/")
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    pages.insert(0, "README.md".to_owned());
    pages
}

#[test]
fn every_rust_example_in_the_docs_runs() {
    let root = repo_root();
    let deps = deps_dir();
    let rlib = beacon_rlib(&deps);
    let rustdoc = std::env::var("RUSTDOC").unwrap_or_else(|_| "rustdoc".to_owned());
    let mut failures = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).expect("read the page");
        let found = rust_examples(&text);
        let want = MIN_EXAMPLES.iter().find(|(p, _)| *p == page).map(|&(_, n)| n);
        match want {
            None => assert_eq!(found, 0, "{page} has Rust examples now: list it in MIN_EXAMPLES"),
            Some(n) => assert!(found >= n, "{page} lost its Rust examples ({found} < {n})"),
        }
        if found == 0 {
            continue;
        }
        let out = Command::new(&rustdoc)
            .arg("--test")
            .arg(root.join(&page))
            .args(["--edition", "2021", "--crate-name", "docs"])
            .arg("-L")
            .arg(format!("dependency={}", deps.display()))
            .arg("--extern")
            .arg(format!("beacon_core={}", rlib.display()))
            .output()
            .unwrap_or_else(|e| panic!("run {rustdoc}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let passed = stdout
            .lines()
            .filter(|l| l.starts_with("test ") && l.ends_with(" ... ok"))
            .count();
        if !out.status.success() || passed != found {
            failures.push(format!(
                "{page}: {passed} of {found} examples passed\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
