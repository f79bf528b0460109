//! Small lexical helpers shared by the format parsers: whitespace, identifiers, markers.

/// JSON whitespace: space, tab, line feed, carriage return.
#[inline]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The offset of the first non-whitespace byte at or after `pos` (or the end).
#[inline]
pub(crate) fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while pos < bytes.len() && is_ws(bytes[pos]) {
        pos += 1;
    }
    pos
}

#[inline]
pub(crate) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

#[inline]
pub(crate) fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The end of the identifier starting at `pos`, or `pos` when there is none.
pub(crate) fn ident_end(bytes: &[u8], pos: usize) -> usize {
    if pos >= bytes.len() || !is_ident_start(bytes[pos]) {
        return pos;
    }
    let mut i = pos + 1;
    while i < bytes.len() && is_ident_continue(bytes[i]) {
        i += 1;
    }
    i
}

/// The end of a dotted name (`a`, `a.b.c`) starting at `pos`, or `pos` when there is none.
pub(crate) fn dotted_name_end(bytes: &[u8], pos: usize) -> usize {
    let mut end = ident_end(bytes, pos);
    if end == pos {
        return pos;
    }
    while bytes.get(end) == Some(&b'.') {
        let next = ident_end(bytes, end + 1);
        if next == end + 1 {
            break;
        }
        end = next;
    }
    end
}

/// Whether `bytes[pos..]` starts with `s`.
#[inline]
pub(crate) fn at(bytes: &[u8], pos: usize, s: &str) -> bool {
    bytes.get(pos..).is_some_and(|rest| rest.starts_with(s.as_bytes()))
}
