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

/// Whether the ASCII byte `b` may continue an identifier: one lookup in a table of the 256 bytes
/// (typical `python` output through the Rust API: 16.6k → 16.1k instructions a parse, against
/// comparing with the letter, digit and `_` ranges).
#[inline]
pub(crate) fn is_ident_continue(b: u8) -> bool {
    IDENT_CONTINUE[usize::from(b)]
}

/// [`is_ident_continue`] for every byte.
static IDENT_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        #[allow(clippy::cast_possible_truncation, reason = "`b` is below 256")]
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

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

/// Eight bytes at a time: in `w - 0x0101…` a zero byte (of `w`, or of `w` XOR the byte looked
/// for) borrows into its high bit, and in `w - n·0x0101…` a byte below `n` does; `& !w` drops
/// the bytes whose high bit was set already (UTF-8's). A borrow can only flag a byte above one
/// that matched, so the lowest byte flagged is the first match.
mod words {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;

    /// The high bit of each byte of `w` below `n` (`n <= 0x80`); exact for the lowest one.
    #[inline]
    pub(super) fn below(w: u64, n: u64) -> u64 {
        w.wrapping_sub(n * ONES) & !w & HIGH
    }

    /// The high bit of each byte of `w` equal to `b`; exact for the lowest one.
    #[inline]
    pub(super) fn equal(w: u64, b: u8) -> u64 {
        below(w ^ (u64::from(b) * ONES), 1)
    }

    /// The first byte at or after `from` that `flags` marks in its word (or `stop` says, in the
    /// last bytes, fewer than eight), or `bytes.len()` (`from` itself when it is past the end).
    #[inline]
    pub(super) fn first(bytes: &[u8], from: usize, flags: impl Fn(u64) -> u64, stop: impl Fn(u8) -> bool) -> usize {
        let mut i = from;
        while let Some(chunk) = bytes.get(i..i + 8) {
            let mut eight = [0u8; 8];
            eight.copy_from_slice(chunk);
            let found = flags(u64::from_le_bytes(eight));
            if found != 0 {
                return i + (found.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while let Some(&b) = bytes.get(i) {
            if stop(b) {
                break;
            }
            i += 1;
        }
        i
    }
}

/// The first byte at or after `from` that a JSON string cannot hold as it is (`"`, `\` or a
/// control character), or `bytes.len()` (`from`, past the end): where a string's plain run ends,
/// and what a writer escapes. Eight bytes at a time (writing the JSON text of a typical call's
/// arguments, callgrind: 2,342 → 1,411 instructions, against comparing each byte in turn).
#[inline]
pub(crate) fn json_string_stop(bytes: &[u8], from: usize) -> usize {
    use words::{below, equal};
    words::first(
        bytes,
        from,
        |w| below(w, 0x20) | equal(w, b'"') | equal(w, b'\\'),
        |b| b < 0x20 || b == b'"' || b == b'\\',
    )
}

/// The first `b` at or after `from`, or `bytes.len()`, eight bytes at a time: for the short
/// fields between tags (an id, a name, a key) where `memchr`'s set-up costs more than the scan
/// (typical GLM 4.5 output, five keys, through the Rust API: 14.19k → 13.98k instructions a
/// parse).
#[inline]
pub(crate) fn find_short(bytes: &[u8], from: usize, b: u8) -> usize {
    words::first(bytes, from, |w| words::equal(w, b), |c| c == b)
}

/// The first `a` or `b` at or after `from`, or `bytes.len()`, eight bytes at a time: for the
/// short runs (an attribute's value) where `memchr2`'s set-up costs more than the scan.
#[inline]
pub(crate) fn find2_short(bytes: &[u8], from: usize, a: u8, b: u8) -> usize {
    use words::equal;
    words::first(bytes, from, |w| equal(w, a) | equal(w, b), |c| c == a || c == b)
}

/// The first `quote`, `\\`, `\n` or `\r` at or after `from`, or `bytes.len()`: where a one-line
/// string's plain run ends. Its first 32 bytes are read eight at a time and the rest with
/// `memchr`, whose set-up costs more than most strings' scan (typical `python` output through
/// the Rust API: 17.3k → 16.8k instructions a parse, against `memchr` from the start).
pub(crate) fn line_string_stop(bytes: &[u8], from: usize, quote: u8) -> usize {
    use words::equal;
    let short = from.saturating_add(32).min(bytes.len());
    let stop = |b: u8| b == quote || b == b'\\' || b == b'\n' || b == b'\r';
    let i = words::first(
        &bytes[..short],
        from,
        |w| equal(w, quote) | equal(w, b'\\') | equal(w, b'\n') | equal(w, b'\r'),
        stop,
    );
    if i < short || short == bytes.len() {
        return i;
    }
    let rest = &bytes[short..];
    let n = memchr::memchr3(quote, b'\\', b'\n', rest).unwrap_or(rest.len());
    short + memchr::memchr(b'\r', &rest[..n]).unwrap_or(n)
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
        for b in 0..=u8::MAX {
            assert_eq!(is_ident_continue(b), b.is_ascii_alphanumeric() || b == b'_', "{b}");
        }
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

    /// The word-at-a-time searches find what a byte-by-byte reading finds, for every stop byte at
    /// every offset of a word and in the last bytes, after ASCII and after multi-byte characters
    /// (whose bytes have their high bit set, as no stop byte has).
    #[test]
    fn word_searches_agree_with_a_naive_reading() {
        let json_stop = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
        for stop in [b'"', b'\\', 0x00, 0x1f, b'\n', b'\r', b'&', b'\'', b'<'] {
            for prefix in [
                "",
                "a",
                "abcdefg",
                "abcdefgh",
                "é€x",
                "0123456789abcdef",
                "\u{7f}\u{80}\u{ff}",
                "a run longer than the thirty-two bytes read eight at a time, é",
            ] {
                for tail in ["", "x", "tail after the stop byte"] {
                    let mut text = prefix.as_bytes().to_vec();
                    text.push(stop);
                    text.extend_from_slice(tail.as_bytes());
                    for from in 0..text.len() {
                        let naive = |f: &dyn Fn(u8) -> bool| {
                            from + text[from..].iter().position(|&b| f(b)).unwrap_or(text.len() - from)
                        };
                        assert_eq!(json_string_stop(&text, from), naive(&json_stop), "{text:?} from {from}");
                        assert_eq!(
                            find_short(&text, from, b'&'),
                            naive(&|b: u8| b == b'&'),
                            "{text:?} from {from}"
                        );
                        let pair = |b: u8| b == b'&' || b == b'\'';
                        assert_eq!(
                            find2_short(&text, from, b'&', b'\''),
                            naive(&pair),
                            "{text:?} from {from}"
                        );
                        let line = |b: u8| b == b'\'' || b == b'\\' || b == b'\n' || b == b'\r';
                        assert_eq!(
                            line_string_stop(&text, from, b'\''),
                            naive(&line),
                            "{text:?} from {from}"
                        );
                    }
                }
            }
        }
        assert_eq!(json_string_stop(b"no stop at all in this text", 0), 27);
        assert_eq!(find2_short(b"", 0, b'a', b'b'), 0);
        // A reading that starts past the end (a string cut short) stays there.
        assert_eq!(json_string_stop(b"ab", 3), 3);
        assert_eq!(line_string_stop(b"ab", 3, b'"'), 3);
    }
}
