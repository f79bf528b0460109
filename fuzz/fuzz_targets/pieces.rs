//! How the stream targets cut a text: pieces of `step` bytes, each widened to a character boundary.

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
