//! A path into a value: the keys and indexes from the arguments down to one value, and its
//! spelling as a JSON pointer (RFC 6901).

/// One step of a path into the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// `path` as a JSON pointer (RFC 6901): `""` for the arguments, `/todos/1/status` deeper.
pub(crate) fn pointer(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        out.push('/');
        match seg {
            Seg::Key(k) => out.push_str(&escape(k)),
            Seg::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// A JSON pointer token: `~` as `~0`, `/` as `~1`.
pub(crate) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
