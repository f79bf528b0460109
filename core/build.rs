//! Generates one `#[test]` per case of every shared fixture area, so that `cargo test
//! hermes_parallel` (or `openai_chat_parallel`, `stream_prose`, …) runs one case and a failure
//! names it:
//!
//! | area             | read from                                   | run by                    | case id      |
//! | ---------------- | ------------------------------------------- | ------------------------- | ------------ |
//! | text formats     | `tests/fixtures/*.json`                     | `tests/fixtures.rs`       | `id`         |
//! | providers        | `tests/fixtures/providers/*.json`           | `tests/providers.rs`      | `FILE/id`    |
//! | response streams | the same, every response read as a stream    | `tests/response_stream.rs`| `FILE/id`    |
//! | stream scan      | `tests/fixtures/stream/*.json`              | `tests/stream.rs`         | `id`         |
//! | conformance      | `tests/conformance/*.jsonl` (a case a line) | `tests/conformance.rs`    | `format/test`|
//!
//! (`FILE` is the file's name without `.json`.) Each area becomes `OUT_DIR/<area>_cases.rs`,
//! which its test file includes: a `mod case` with one test per case, each calling the test
//! file's `run_case(id)`, and `GENERATED`, the ids, which the test file's
//! `every_case_has_its_test` compares with the cases it loads. Without the fixtures folders (the
//! crate built on its own) no test is generated.
//!
//! The files are read with the small JSON reader below rather than serde_json, so that building
//! the library (for Python, for wasm) compiles no extra build dependency.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let fixtures = root.join("tests/fixtures");
    let providers = fixtures.join("providers");
    let field = |case: &Json, key: &str| case.get(key).and_then(Json::as_str).map(str::to_owned);

    let text: Vec<String> = cases_of(&fixtures, "json")
        .filter_map(|(_, case)| field(&case, "id"))
        .collect();
    write("fixture", &text);

    let mut provider_ids = Vec::new();
    let mut stream_ids = Vec::new();
    for (file, case) in cases_of(&providers, "json") {
        let Some(id) = field(&case, "id") else { continue };
        let id = format!("{file}/{id}");
        // Every response (not a `format_*` case), except those read with the text fallback,
        // which a stream does not look for.
        let response = case.get("response").is_some() || case.get("response_text").is_some();
        if response && !matches!(case.get("text_fallback"), Some(Json::Bool(true))) {
            stream_ids.push(id.clone());
        }
        provider_ids.push(id);
    }
    write("provider", &provider_ids);
    write("response_stream", &stream_ids);

    let scan: Vec<String> = cases_of(&fixtures.join("stream"), "json")
        .filter_map(|(_, case)| field(&case, "id"))
        .collect();
    write("stream", &scan);

    let conformance: Vec<String> = cases_of(&root.join("tests/conformance"), "jsonl")
        .filter_map(|(_, case)| Some(format!("{}/{}", field(&case, "format")?, field(&case, "test")?)))
        .collect();
    write("conformance", &conformance);
}

/// The cases of the files `dir/*.EXT`, in file-name order, each with its file's name without the
/// extension: for `json`, the items of the file's `cases` list; for `jsonl`, each non-blank line.
/// A file that cannot be read or parsed gives no case (its test file reports it).
fn cases_of(dir: &Path, ext: &str) -> impl Iterator<Item = (String, Json)> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == ext));
    files.sort();
    let jsonl = ext == "jsonl";
    files.into_iter().flat_map(move |path| {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let cases: Vec<Json> = if jsonl {
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .filter_map(parse)
                .collect()
        } else {
            match parse(&text) {
                Some(Json::Object(root)) => match root.into_iter().find(|(k, _)| k == "cases") {
                    Some((_, Json::Array(cases))) => cases,
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            }
        };
        cases.into_iter().map(move |case| (stem.clone(), case))
    })
}

/// Writes `OUT_DIR/<area>_cases.rs`: a test per id, and `GENERATED`.
fn write(area: &str, ids: &[String]) {
    let mut tests = String::new();
    let mut list = String::new();
    let mut names = HashSet::new();
    for id in ids {
        let name = unique(test_name(id), &mut names);
        let _ = writeln!(
            tests,
            "    #[test]\n    fn {name}() {{\n        super::run_case({id:?});\n    }}"
        );
        let _ = writeln!(list, "    {id:?},");
    }
    let out = format!(
        "/// One test per case, named for its id (generated by `core/build.rs`).\n\
         mod case {{\n{tests}}}\n\n\
         /// The case ids a test was generated for.\n\
         const GENERATED: &[&str] = &[\n{list}];\n"
    );
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(format!("{area}_cases.rs"));
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// A case id as a function name: `hermes/parallel-calls` → `hermes_parallel_calls`,
/// `TestLlama32Detector::test_x[False]` → `test_llama32_detector_test_x_false`.
fn test_name(id: &str) -> String {
    let mut name = String::new();
    let mut previous = ' ';
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && (previous.is_ascii_lowercase() || previous.is_ascii_digit()) {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('_') {
            name.push('_');
        }
        previous = c;
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

// ---- a small JSON reader: enough to find the case ids ------------------------------------------

enum Json {
    /// `null`, a number: what the ids never are.
    Other,
    Bool(bool),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

/// `text` as one JSON value, or `None` when it is not one.
fn parse(text: &str) -> Option<Json> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = reader.value()?;
    reader.blank();
    (reader.at == reader.bytes.len()).then_some(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn blank(&mut self) {
        while self.bytes.get(self.at).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.blank();
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    fn value(&mut self) -> Option<Json> {
        self.blank();
        match *self.bytes.get(self.at)? {
            b'{' => {
                self.at += 1;
                let mut fields = Vec::new();
                if self.eat(b'}') {
                    return Some(Json::Object(fields));
                }
                loop {
                    self.blank();
                    let key = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    fields.push((key, self.value()?));
                    if self.eat(b'}') {
                        return Some(Json::Object(fields));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat(b']') {
                        return Some(Json::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => self.string().map(Json::String),
            _ => {
                // A number, `true`, `false` or `null`: its bytes up to the next delimiter.
                let start = self.at;
                while self.bytes.get(self.at).is_some_and(|b| !b",]} \t\r\n".contains(b)) {
                    self.at += 1;
                }
                match &self.bytes[start..self.at] {
                    b"true" => Some(Json::Bool(true)),
                    b"false" => Some(Json::Bool(false)),
                    b"" => None,
                    _ => Some(Json::Other),
                }
            }
        }
    }

    /// A string at `at` (which is its opening quote), its escapes decoded.
    fn string(&mut self) -> Option<String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.bytes.get(self.at)?;
                    self.at += 1;
                    let c = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let high = self.hex4()?;
                            if (0xD800..0xDC00).contains(&high) && self.bytes.get(self.at..self.at + 2) == Some(b"\\u")
                            {
                                self.at += 2;
                                let low = self.hex4()?;
                                char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?))?
                            } else {
                                char::from_u32(high).unwrap_or('\u{FFFD}')
                            }
                        }
                        other => char::from(other),
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                _ => out.push(b),
            }
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = std::str::from_utf8(self.bytes.get(self.at..self.at + 4)?).ok()?;
        self.at += 4;
        u32::from_str_radix(digits, 16).ok()
    }
}
