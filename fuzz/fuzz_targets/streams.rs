//! What the stream targets share: how they cut a text, and what a one-shot reading and a streamed
//! one must agree on.

use beacon_core::{ErrorCode, ParseError};

/// `text` in pieces of `step` bytes, each widened to a character boundary.
pub fn pieces(text: &str, step: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + step).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        from = to;
    }
    out
}

/// Neither reading of `text` is `internal` or has an offset outside it; both give the same
/// answer, or errors with the same code and offset.
pub fn agree<T: PartialEq + std::fmt::Debug>(text: &str, whole: &Result<T, ParseError>, streamed: &Result<T, ParseError>) {
    for r in [whole, streamed] {
        if let Err(e) = r {
            assert_ne!(e.code, ErrorCode::Internal, "{e:?}");
            assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{e:?}");
        }
    }
    match (whole, streamed) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "one shot and stream differ"),
        (Err(a), Err(b)) => assert_eq!((a.code, a.offset), (b.code, b.offset), "different errors: {a:?} {b:?}"),
        _ => panic!("one shot {whole:?}, stream {streamed:?}"),
    }
}
