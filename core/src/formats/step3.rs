//! StepFun Step-3: DeepSeek's section grammar (see [`super::deepseek`]) with underscores in its
//! tokens, around `steptml` invoke markup:
//! `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">
//! <steptml:parameter name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>
//! <｜tool_calls_end｜>`.
//!
//! Each call is the type word `function`, `<｜tool_sep｜>` and one `<steptml:invoke>`, whitespace
//! allowed between them. Values are raw text (no entity decoding) typed as in `xml_invoke`: strict
//! JSON if the trimmed text is JSON, else the text untrimmed. As in DeepSeek's sections, the
//! section may open at a bare `<｜tool_call_begin｜>`, the first call's `<｜tool_call_begin｜>` may
//! be left out, and a section with an opener ends at `<｜tool_calls_end｜>` or the end of the text;
//! a bare `<steptml:invoke` is a call too. A `<｜tool_calls_begin｜>` followed by DeepSeek's
//! `<｜tool▁call▁begin｜>` is a DeepSeek section that opened with the wrong token (llama.cpp
//! accepts it): it is parsed as DeepSeek's, its calls `deepseek_v3` or `deepseek_v31`. No end-of-turn token is consumed (Step-3's is
//! not confirmed); whatever follows the section is prose.
//!
//! Errors are DeepSeek's (see there): a cut call or token is `tool_call.unclosed` at the end, a
//! type word other than `function` or any other token out of place `tool_call.syntax`.
//!
//! A value whose `</steptml:parameter>` is missing, so that the next `<steptml:parameter` begins
//! inside it, is `tool_call.unclosed` at that value's `<steptml:parameter`. Step-3 writes its tags
//! back to back, so the next tag counts anywhere in the value, not only at the start of a line; a
//! value holds such a tag only when it closes itself and the value's own close follows
//! ([`super::tagged`]).

use super::deepseek::{self, Section};
use super::tagged::Place;
use super::xml_invoke::{self, Dialect};
use super::Calls;
use super::{cut_short, expect_token, unclosed_marker};
use crate::call::{Format, ToolCall};
use crate::error::ParseError;
use crate::lex::{at, skip_ws};
use crate::syntax::shape::Defer;

const SECTION: Section = Section {
    opens: &["<｜tool_calls_begin｜>"],
    close: "<｜tool_calls_end｜>",
    call: "<｜tool_call_begin｜>",
    call_close: "<｜tool_call_end｜>",
    sep: "<｜tool_sep｜>",
    eos: None,
};

const STEPTML: Dialect = Dialect {
    invoke: "<steptml:invoke",
    invoke_close: "</steptml:invoke>",
    parameter: "<steptml:parameter",
    parameter_close: "</steptml:parameter>",
    format: Format::Step3,
    entities: false,
    typed: false,
    json_body: false,
    // Step-3 writes its parameters back to back: a parameter tag anywhere in a value counts.
    place: Place::Anywhere,
};

const TYPE: &str = "function";

pub(crate) const FAMILY: super::Family = super::Family {
    formats: &[
        crate::call::Format::Step3,
        crate::call::Format::DeepseekV3,
        crate::call::Format::DeepseekV31,
    ],
    markers: &["<｜tool_calls_begin｜>", "<｜tool_call_begin｜>", "<steptml:invoke"],
    tokens: &[
        "<｜tool_calls_end｜>",
        "<｜tool_call_end｜>",
        "<｜tool_sep｜>",
        TYPE,
        "</steptml:invoke>",
        "<steptml:parameter",
        "</steptml:parameter>",
    ],
    closers: &[],
    json_bodies: &[],
    lead: None,
    parse: super::Parse::Fn(parse),
};

/// Parses the section or invoke whose marker is at `start`; returns the offset after it.
fn parse(text: &str, start: usize, out: &mut Calls<'_>) -> Result<usize, ParseError> {
    let bytes = text.as_bytes();
    if at(bytes, start, STEPTML.invoke) {
        let (call, end) = xml_invoke::invoke(text, start, &STEPTML, out.defer)?;
        out.push(call);
        return Ok(end);
    }
    if at(bytes, start, SECTION.call) {
        return deepseek::section(text, start, None, &SECTION, call_body, out);
    }
    let open = SECTION.opens[0];
    let next = skip_ws(bytes, start + open.len());
    if at(bytes, next, deepseek::SECTION.call) {
        return deepseek::section_opened_by(text, start, open, out);
    }
    if cut_short(bytes, next, deepseek::SECTION.call) {
        return Err(unclosed_marker(text, open));
    }
    deepseek::section(text, start, Some(open), &SECTION, call_body, out)
}

/// `function<｜tool_sep｜><steptml:invoke …>…</steptml:invoke>` at `pos`: the call, and the offset
/// after it.
fn call_body(text: &str, pos: usize, s: &Section, defer: Defer<'_>) -> Result<(ToolCall, usize), ParseError> {
    let bytes = text.as_bytes();
    let p = expect_token(
        text,
        skip_ws(bytes, pos),
        TYPE,
        "(the call's type) at the start of the call",
    )?;
    let p = expect_token(text, skip_ws(bytes, p), s.sep, "after the call's type")?;
    let invoke_at = skip_ws(bytes, p);
    expect_token(text, invoke_at, STEPTML.invoke, "after the separator")?;
    xml_invoke::invoke(text, invoke_at, &STEPTML, defer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_marker_starts_a_parse() {
        for marker in FAMILY.markers {
            let mut out = Vec::new();
            let result = parse(marker, 0, &mut Calls::new(&mut out, crate::syntax::shape::Defer::Never));
            assert!(result.is_err(), "{marker}: {result:?}");
        }
    }
}
