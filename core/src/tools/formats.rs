//! The `format` values beacon checks (see [`super::schema::FORMATS`]); every other value is an
//! annotation beacon does not check, and is listed as such.
//!
//! - `date`: RFC 3339 `full-date`, `YYYY-MM-DD` with a day that exists in that month.
//! - `time`: RFC 3339 `full-time`, `HH:MM:SS`, an optional fraction, and `Z` or `±HH:MM`.
//! - `date-time`: a `date`, `T` (or `t`), a `time`.
//! - `email`: one `@` between a non-empty local part and a domain of dot-separated labels, no
//!   whitespace.
//! - `uuid`: 8-4-4-4-12 hexadecimal digits.
//! - `ipv4`, `ipv6`: the address forms Rust's `std::net` reads (no leading zeros in IPv4).

pub(crate) fn valid(format: &str, s: &str) -> bool {
    match format {
        "date" => date(s),
        "time" => time(s),
        "date-time" => s
            .char_indices()
            .find(|(_, c)| matches!(c, 'T' | 't'))
            .is_some_and(|(i, _)| date(&s[..i]) && time(&s[i + 1..])),
        "email" => email(s),
        "uuid" => uuid(s),
        "ipv4" => s.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => s.parse::<std::net::Ipv6Addr>().is_ok(),
        _ => true,
    }
}

/// `digits` ASCII digits at the start of `s`, as a number.
fn digits(s: &str, n: usize) -> Option<u32> {
    let d = s.get(..n)?;
    d.bytes().all(|b| b.is_ascii_digit()).then(|| d.parse().ok())?
}

#[allow(
    clippy::many_single_char_names,
    reason = "y, m, d, h, s as the date and time they read"
)]
fn date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(s, 4), digits(&s[5..], 2), digits(&s[8..], 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

#[allow(
    clippy::many_single_char_names,
    reason = "y, m, d, h, s as the date and time they read"
)]
fn time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (digits(s, 2), digits(&s[3..], 2), digits(&s[6..], 2)) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &s[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest.as_bytes().first() {
        Some(b'Z' | b'z') => rest.len() == 1,
        Some(b'+' | b'-') => {
            let o = &rest[1..];
            o.len() == 5
                && o.as_bytes()[2] == b':'
                && digits(o, 2).is_some_and(|h| h <= 23)
                && digits(&o[3..], 2).is_some_and(|m| m <= 59)
        }
        _ => false,
    }
}

fn email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && !s.contains(char::is_whitespace)
        && !domain.is_empty()
        && domain
            .split('.')
            .all(|label| !label.is_empty() && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

fn uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}
