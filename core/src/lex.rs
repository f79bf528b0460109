//! Byte-level helpers every grammar uses: whitespace, identifiers, markers, XML entities, and
//! how a character or a string is shown in a message.

use std::borrow::Cow;

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

/// `s.trim()`, without decoding characters when neither end can be whitespace (the common case:
/// a name or a value between tags; typical `qwen3_coder` output, 24.5k → 24.3k instructions a
/// parse, for its six tag names).
#[inline]
pub(crate) fn trim(s: &str) -> &str {
    let may_be_space = |b: u8| b >= 0x80 || is_ascii_space(b);
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&a), Some(&z)) if !may_be_space(a) && !may_be_space(z) => s,
        _ => s.trim(),
    }
}

/// Whether `s` holds white space (`char::is_whitespace`), reading its ASCII bytes as they are and
/// decoding only from its first other byte on.
#[inline]
pub(crate) fn has_whitespace(s: &str) -> bool {
    for (i, b) in s.bytes().enumerate() {
        if b >= 0x80 {
            return s[i..].contains(char::is_whitespace);
        }
        if is_ascii_space(b) {
            return true;
        }
    }
    false
}

/// The ASCII members of `char::is_whitespace`: space, tab, line feed, vertical tab, form feed,
/// carriage return.
#[inline]
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (0x09..=0x0d).contains(&b)
}

/// Whether the ASCII byte `b` may start an identifier.
#[inline]
pub(crate) fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether the ASCII byte `b` may continue an identifier.
#[inline]
pub(crate) fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `c` may start a (Python, Unicode) identifier: `_` or XID_Start.
#[inline]
pub(crate) fn is_ident_start_char(c: char) -> bool {
    if c.is_ascii() {
        return is_ident_start(c as u8);
    }
    unicode_ident::is_xid_start(c)
}

/// Whether `c` may continue a (Python, Unicode) identifier: XID_Continue.
#[inline]
pub(crate) fn is_ident_continue_char(c: char) -> bool {
    if c.is_ascii() {
        return is_ident_continue(c as u8);
    }
    unicode_ident::is_xid_continue(c)
}

/// The character that starts at byte `pos` of UTF-8 text, if `pos` is a character's start.
#[inline]
pub(crate) fn char_at(bytes: &[u8], pos: usize) -> Option<char> {
    let b = *bytes.get(pos)?;
    let len = match b {
        0..=0x7f => return Some(b as char),
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return None,
    };
    std::str::from_utf8(bytes.get(pos..pos + len)?).ok()?.chars().next()
}

/// The character that ends at byte `end` of UTF-8 text (a character boundary), and where it
/// starts.
#[inline]
pub(crate) fn char_before(bytes: &[u8], end: usize) -> Option<(usize, char)> {
    let mut start = end.checked_sub(1)?;
    if let Some(&b) = bytes.get(start).filter(|b| b.is_ascii()) {
        return Some((start, char::from(b)));
    }
    while start > 0 && end - start < 4 && bytes[start] & 0xc0 == 0x80 {
        start -= 1;
    }
    let c = char_at(bytes, start)?;
    (start + c.len_utf8() == end).then_some((start, c))
}

/// The end of the identifier starting at `pos`, or `pos` when there is none. Identifiers are
/// Python's: `_` or an XID_Start character, then XID_Continue characters (so `café` and `日本`
/// are identifiers); keywords are not told apart here.
pub(crate) fn ident_end(bytes: &[u8], pos: usize) -> usize {
    let mut i = match bytes.get(pos) {
        Some(&b) if b.is_ascii() => {
            if !is_ident_start(b) {
                return pos;
            }
            pos + 1
        }
        Some(_) => match char_at(bytes, pos) {
            Some(c) if is_ident_start_char(c) => pos + c.len_utf8(),
            _ => return pos,
        },
        None => return pos,
    };
    // Runs of ASCII, each followed by one other character or the end: the ASCII run, the common
    // case, is a tight loop (typical `python` output: 1,298 → 1,148 instructions a parse here).
    loop {
        while bytes.get(i).is_some_and(|&b| is_ident_continue(b)) {
            i += 1;
        }
        match bytes.get(i) {
            Some(&b) if !b.is_ascii() => match char_at(bytes, i) {
                Some(c) if is_ident_continue_char(c) => i += c.len_utf8(),
                _ => return i,
            },
            _ => return i,
        }
    }
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

/// The offset of the first `needle` in `hay`. For the short searches of the parsers (a closing
/// tag after a value): it looks for the needle's first byte with `memchr` and compares there,
/// which costs nothing to set up, where `memchr::memmem::find` builds a searcher on every call.
/// Linear: each candidate costs at most the needle's length.
#[inline]
pub(crate) fn find(hay: &[u8], needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &hay[from..]) {
        let at = from + i;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Decodes the five predefined XML entities and numeric character references.
pub(crate) fn decode_entities(s: &str) -> Cow<'_, str> {
    // memchr: `str::contains(char)` sets up a searcher per call, which costs more than the scan
    // of a short value (typical xml_invoke output: 892 instructions for five values).
    if memchr::memchr(b'&', s.as_bytes()).is_none() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let entity = rest
            .get(1..)
            .and_then(|r| r.find(';').filter(|&n| n <= 10).map(|n| &r[..n]));
        let decoded = entity.and_then(|e| match e {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                let n = e.strip_prefix("#x").or_else(|| e.strip_prefix("#X"));
                let code = match n {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => e.strip_prefix('#').and_then(|d| d.parse().ok()),
                };
                code.and_then(char::from_u32)
            }
        });
        if let (Some(e), Some(c)) = (entity, decoded) {
            out.push(c);
            rest = &rest[e.len() + 2..];
        } else {
            out.push('&');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// `c` for a message: printable characters quoted, others as their `U+` code point.
pub(crate) fn show_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

/// `s` quoted for a message.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::new();
    crate::value::write_json_string(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts with white space of every kind at every place: ASCII, the vertical tab, and the
    /// Unicode spaces (`U+0085`, `U+00A0`, `U+2028`, `U+3000`), beside ASCII and other characters.
    const TEXTS: &[&str] = &[
        "",
        "a",
        "name",
        " name",
        "name ",
        "na me",
        "na\u{0b}me",
        "\u{0c}x",
        "x\r",
        "café",
        "é",
        "日本 語",
        "日本\u{3000}語",
        "\u{a0}x",
        "x\u{85}",
        "a\u{2028}b",
        "x\u{200b}y",
        " \t\n ",
        "\u{3000}",
    ];

    #[test]
    fn the_shortcuts_answer_as_the_standard_library() {
        for text in TEXTS {
            assert_eq!(has_whitespace(text), text.contains(char::is_whitespace), "{text:?}");
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    /// Identifiers of ASCII and other characters, each ended by every kind of character.
    #[test]
    fn an_identifier_ends_at_its_first_character_that_cannot_continue_it() {
        let naive = |text: &str| {
            let mut chars = text.char_indices();
            match chars.next() {
                Some((_, c)) if is_ident_start_char(c) => chars
                    .find(|&(_, c)| !is_ident_continue_char(c))
                    .map_or(text.len(), |(i, _)| i),
                _ => 0,
            }
        };
        for name in [
            "",
            "a",
            "_x1",
            "get_weather",
            "café",
            "日本",
            "x日本y",
            "1a",
            "é1",
            "a\u{300}b",
        ] {
            for end in ["", " ", "=", "(", "é", "\u{3000}", "·", "-", "9"] {
                let text = format!("{name}{end}");
                assert_eq!(ident_end(text.as_bytes(), 0), naive(&text), "{text:?}");
                let shifted = format!("({text}");
                assert_eq!(ident_end(shifted.as_bytes(), 1), 1 + naive(&text), "{shifted:?}");
            }
        }
    }
}
