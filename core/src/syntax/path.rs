//! A path into a value: the keys and indexes from the arguments (or a response) down to one
//! value, and its spelling as a JSON pointer (RFC 6901).

/// One step of a path into a value: the value under a key, or the element at an index. `K` is
/// the key: owned where the path outlives the value it was taken from (an error's path),
/// borrowed where it does not (a walk to a value, a check in progress).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step<K = String> {
    Key(K),
    Index(usize),
}

impl<K: AsRef<str>> Step<K> {
    /// The step with its key borrowed.
    pub(crate) fn as_ref(&self) -> Step<&str> {
        match self {
            Step::Key(k) => Step::Key(k.as_ref()),
            Step::Index(i) => Step::Index(*i),
        }
    }

    /// The step with its key owned.
    pub(crate) fn to_owned(&self) -> Step {
        match self {
            Step::Key(k) => Step::Key(k.as_ref().to_string()),
            Step::Index(i) => Step::Index(*i),
        }
    }
}

/// `path` borrowed, for the walks that take borrowed steps.
pub(crate) fn borrowed<K: AsRef<str>>(path: &[Step<K>]) -> Vec<Step<&str>> {
    path.iter().map(Step::as_ref).collect()
}

/// `path` as a JSON pointer (RFC 6901): `""` for the whole value, `/todos/1/status` deeper.
pub(crate) fn pointer<K: AsRef<str>>(path: &[Step<K>]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) => push_token(&mut out, k.as_ref()),
            Step::Index(i) => {
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
    out
}

/// `pointer` with the token `key` after it (`pointer/key`, escaped).
pub(crate) fn child(pointer: &str, key: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + key.len() + 1);
    out.push_str(pointer);
    push_token(&mut out, key);
    out
}

/// Appends `/` and `key` as a JSON pointer token: `~` as `~0`, `/` as `~1`.
pub(crate) fn push_token(out: &mut String, key: &str) {
    out.push('/');
    if !key.contains(['~', '/']) {
        out.push_str(key);
        return;
    }
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}
