//! Values written in order into one text buffer, and moved into place when the value around them
//! takes them: what the sinks that write a buffer ([`JsonText`](super::JsonText),
//! [`Tape`](super::Tape)) share.
//!
//! A parse that builds arguments while it reads ([`run_into`](super::run_into)) makes values
//! before the answer around them exists, and a few grammars make a value before they know where
//! it goes. So every value is a [`Piece`] (where its bytes are) and is moved into place when it
//! is pushed or set ([`place`]).

/// A value written: where its bytes are, and whether among the values made while a parse read
/// (a buffer of their own until the parse has ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) aside: bool,
}

/// A list or mapping being written: where it starts, whether no item was written yet, and where
/// the current item's value belongs (after its separator or key).
#[derive(Debug)]
pub struct Open {
    pub(super) start: usize,
    pub(super) first: bool,
    pub(super) next: usize,
}

/// Places `value` where `open`'s current item belongs, `out` being the buffer written now and
/// `aside` that of the values made while the parse read (`reading`: it has not ended):
/// - a value made while the parse read is copied there once it has ended;
/// - a value written after that place (after the bytes of a reading that failed midway: a
///   parameter's text tried as JSON first) is moved there, dropping what lay between;
/// - a value written before its list was opened (call syntax's `(a, b)`: `a` is read before the
///   comma makes it a tuple) is moved after the list's opening.
pub(super) fn place(out: &mut String, aside: &mut String, reading: bool, open: &mut Open, value: Piece) {
    if value.aside && !reading {
        out.push_str(&aside[value.start..value.end]);
        return;
    }
    let buf = if reading { aside } else { out };
    if value.end <= open.start {
        let moved = buf.split_off(value.start);
        let len = value.end - value.start;
        buf.push_str(&moved[len..]);
        open.start -= len;
        open.next = buf.len();
        buf.push_str(&moved[..len]);
    } else if value.start != open.next {
        buf.replace_range(open.next..value.start, "");
    }
}
