//! Arguments that stream while they arrive. A region whose marker is followed by a JSON call shape
//! ([`crate::formats::Family::json_bodies`]: Hermes, Mistral's JSON list, Granite, Nemotron, …)
//! is read by a walk over its body as the text grows, before the region's parser can settle it:
//!
//! - the body is one object or a list of objects; each object's head is read from its start:
//!   `"name"` (a string), then the arguments key (`arguments`, `parameters`, `input`, `args`)
//!   whose value opens an object; `id`, `type`, `call_id` and `index` may stand before them, and
//!   `"function": {…}` holds the two (the OpenAI shape). Then the call starts;
//! - the arguments object's text streams as it arrives, up to its closing brace; then it is parsed
//!   (or, for a host that builds its own values, checked and left in the text when large), and
//!   the call ends with it;
//! - the rest of the object is skipped to its end, and a list goes on with the next object.
//!
//! Anything else (a key before the name, arguments that are a string, a message with
//! `tool_calls`) stops the walk: the region's calls then come whole, from the region's parser.
//! Inside a tag every object must be a call, so a call started here is one (or the region raises).
//! The walk reads every byte once; an object's head is read again from its start while it
//! arrives, up to [`HEAD_LIMIT`] bytes.

use std::ops::Range;

use crate::call::Format;
use crate::formats::JsonBody;
use crate::lex::skip_ws;
use crate::syntax::json::{check_nested_at, parse_value_at, raw_string_end, raw_value_end, Nesting};
use crate::value::{Object, Value};

/// How far an object's head (the keys before the arguments) is looked for.
const HEAD_LIMIT: usize = 4096;

/// What the walk found, for the stream to report.
#[derive(Debug)]
pub(super) enum Piece {
    /// The next call of the region starts.
    Start { name: String },
    /// More of the arguments' text.
    Arguments(Range<usize>),
    /// The call ends, with its arguments built, or (`deferred`: their offset) checked and left in
    /// the text for a host that builds its own values.
    End { arguments: Object, deferred: Option<usize> },
}

/// The walk over one region's JSON body.
#[derive(Debug)]
pub(super) struct Walk {
    /// Where the region starts.
    pub region: usize,
    pub format: Format,
    phase: Phase,
    array: bool,
    /// How many of the region's calls the walk has ended, and whether it has one open.
    pub ended: usize,
    pub open: bool,
    /// How deep the open call's arguments stand in its object.
    depth: usize,
    /// The stream's index of the region's first call.
    pub first: usize,
}

#[derive(Debug)]
enum Phase {
    /// The body, or (in a list) the next object, is looked for from `pos`.
    Between {
        pos: usize,
        first: bool,
    },
    /// The head of the object at `obj` is read.
    Head {
        obj: usize,
    },
    /// The arguments object from `args` streams; the text before `pos` has been reported.
    Args {
        args: usize,
        pos: usize,
        nesting: Nesting,
    },
    /// The rest of the object, from `pos`.
    Rest {
        pos: usize,
        nesting: Nesting,
    },
    Done,
}

impl Walk {
    pub(super) fn new(region: usize, first: usize, body: &JsonBody) -> Self {
        Walk {
            region,
            format: body.format,
            phase: Phase::Between {
                pos: region + body.marker.len() - body.back,
                first: true,
            },
            array: false,
            ended: 0,
            open: false,
            depth: 1,
            first,
        }
    }

    /// Whether the walk stopped with a call open: its arguments did not parse, so the region
    /// raises.
    pub(super) fn broken(&self) -> bool {
        self.open && matches!(self.phase, Phase::Done)
    }

    /// Whether the walk has stopped.
    pub(super) fn done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// Takes the text `delta`, fed at `at`, as more of the open call's arguments when the walk
    /// has read everything before it and `delta` cannot close them (nor open or end a string):
    /// then it is reported as it is, and no scan can settle anything with it. False otherwise,
    /// and the walk is as it was.
    pub(super) fn take_plain(&mut self, at: usize, delta: &[u8]) -> bool {
        let Phase::Args { pos, nesting, .. } = &mut self.phase else {
            return false;
        };
        if *pos != at || delta.is_empty() || !nesting.unchanged_by(delta) {
            return false;
        }
        *pos += delta.len();
        true
    }

    /// Reads the text that came since the last call; `may_start`: whether a new call may start
    /// now (every call before it has ended); `defer`: the arguments are checked and left in the
    /// text for the host, not built.
    pub(super) fn advance(&mut self, text: &str, mut may_start: bool, defer: bool, out: &mut Vec<Piece>) {
        let bytes = text.as_bytes();
        loop {
            match self.phase {
                Phase::Between { pos, first } => {
                    let p = skip_ws(bytes, pos);
                    let next = match (bytes.get(p), first, self.array) {
                        (None, ..) => return,
                        (Some(b'['), true, _) => {
                            self.array = true;
                            Phase::Between {
                                pos: p + 1,
                                first: false,
                            }
                        }
                        (Some(b'{'), true, _) | (Some(b'{'), false, true) => Phase::Head { obj: p },
                        (Some(b','), false, true) if self.ended > 0 => Phase::Between {
                            pos: p + 1,
                            first: false,
                        },
                        _ => Phase::Done,
                    };
                    self.phase = next;
                }
                Phase::Head { obj } => match read_head(text, obj, 1) {
                    Head::More if text.len() - obj < HEAD_LIMIT => return,
                    Head::Call { .. } if !may_start => return,
                    Head::Call { name, args, depth } => {
                        out.push(Piece::Start { name });
                        self.open = true;
                        may_start = false;
                        self.depth = depth;
                        self.phase = Phase::Args {
                            args,
                            pos: args,
                            nesting: Nesting::default(),
                        };
                    }
                    _ => self.phase = Phase::Done,
                },
                Phase::Args { args, pos, mut nesting } => {
                    let close = (pos..bytes.len()).find(|&i| nesting.byte(bytes[i]));
                    let to = close.map_or(bytes.len(), |i| i + 1);
                    if to > pos {
                        out.push(Piece::Arguments(pos..to));
                    }
                    let Some(close) = close else {
                        self.phase = Phase::Args { args, pos: to, nesting };
                        return;
                    };
                    let ended = if defer {
                        check_nested_at(text, args, 0)
                            .filter(|&end| end == close + 1)
                            .map(|_| (Object::new(), Some(args)))
                    } else {
                        match parse_value_at(text, args) {
                            Ok((Value::Object(arguments), end)) if end == close + 1 => Some((arguments, None)),
                            _ => None,
                        }
                    };
                    match ended {
                        Some((arguments, deferred)) => {
                            out.push(Piece::End { arguments, deferred });
                            self.open = false;
                            self.ended += 1;
                            self.phase = Phase::Rest {
                                pos: close + 1,
                                nesting: Nesting::at_depth(self.depth),
                            };
                        }
                        None => self.phase = Phase::Done,
                    }
                }
                Phase::Rest { pos, mut nesting } => match (pos..bytes.len()).find(|&i| nesting.byte(bytes[i])) {
                    Some(end) if self.array => {
                        self.phase = Phase::Between {
                            pos: end + 1,
                            first: false,
                        }
                    }
                    Some(_) => self.phase = Phase::Done,
                    None => {
                        self.phase = Phase::Rest {
                            pos: bytes.len(),
                            nesting,
                        };
                        return;
                    }
                },
                Phase::Done => return,
            }
        }
    }
}

/// What the start of an object says.
enum Head {
    /// The text ends before it is known.
    More,
    /// Not a call the walk can stream.
    No,
    /// A call: its name, where its arguments object starts, and how deep that object stands
    /// (1 in the call object, 2 in its `function` object).
    Call { name: String, args: usize, depth: usize },
}

/// Reads the head of the object whose `{` is at `obj`, `depth` objects deep in the call.
fn read_head(text: &str, obj: usize, depth: usize) -> Head {
    let bytes = text.as_bytes();
    let mut name: Option<String> = None;
    let mut p = skip_ws(bytes, obj + 1);
    loop {
        let Some(key_end) = raw_string_end(bytes, p) else {
            return if p >= bytes.len() || bytes[p] == b'"' {
                Head::More
            } else {
                Head::No
            };
        };
        let key = &bytes[p..key_end];
        let colon = skip_ws(bytes, key_end);
        match bytes.get(colon) {
            None => return Head::More,
            Some(b':') => {}
            Some(_) => return Head::No,
        }
        let value = skip_ws(bytes, colon + 1);
        if value >= bytes.len() {
            return Head::More;
        }
        match key {
            b"\"name\"" => {
                let Some(end) = raw_string_end(bytes, value) else {
                    return if bytes[value] == b'"' { Head::More } else { Head::No };
                };
                match parse_value_at(text, value) {
                    Ok((Value::String(s), e)) if e == end && name.is_none() => name = Some(s),
                    _ => return Head::No,
                }
                p = end;
            }
            b"\"arguments\"" | b"\"parameters\"" | b"\"input\"" | b"\"args\"" => {
                return match (name, bytes[value]) {
                    (Some(name), b'{') => Head::Call {
                        name,
                        args: value,
                        depth,
                    },
                    _ => Head::No,
                };
            }
            b"\"function\"" if name.is_none() && depth == 1 && bytes[value] == b'{' => {
                return read_head(text, value, 2)
            }
            b"\"id\"" | b"\"type\"" | b"\"call_id\"" | b"\"index\"" => match raw_value_end(bytes, value) {
                Some(end) => p = end,
                None => return Head::More,
            },
            _ => return Head::No,
        }
        let q = skip_ws(bytes, p);
        match bytes.get(q) {
            None => return Head::More,
            Some(b',') => p = skip_ws(bytes, q + 1),
            Some(_) => return Head::No,
        }
    }
}
