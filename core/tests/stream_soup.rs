//! Split invariance beyond the fixtures: texts put together from pieces of every grammar
//! (markers, closing tags, reasoning tags, end tokens, JSON and call-syntax fragments, prose,
//! whitespace), well-formed or not, fed to `ToolCallStream` in random pieces, give what
//! `parse_message` gives on the whole text: content, reasoning and calls, or the same error.

use beacon_core::{
    parse_message, Event, Format, FormatSet, IdSeed, Ids, MessageOptions, ParseError, Start, ToolCallStream, Value,
};
use proptest::prelude::*;

/// Pieces of text: whole calls, parts of calls, tags and prose.
const PIECES: &[&str] = &[
    "Hello",
    " ",
    "\n",
    "Sure, ",
    "ok.",
    "<tool_call>",
    "</tool_call>",
    "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
    "{\"name\": \"g\", \"arguments\": {}}",
    "{\"a\": \"<tool_call>\"}",
    "[{\"name\": \"h\", \"arguments\": {\"x\": [1, 2]}}]",
    "<think>",
    "</think>",
    "[THINK]",
    "[/THINK]",
    "<|im_end|>",
    "<|eot_id|>",
    "[TOOL_CALLS]",
    "get_weather[ARGS]{\"city\": \"Paris\"}",
    "g{\"b\": 2}",
    "</s>",
    "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>",
    "<invoke name=\"f\"><parameter name=\"q\">x</parameter></invoke>",
    "<function_calls>",
    "</function_calls>",
    "<|python_tag|>",
    "search(q=\"x\")",
    "f(a=1)",
    "[get_time(tz='CET')]",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.k:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
    "<|channel|>analysis<|message|>hmm<|end|>",
    "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\":1}<|call|>",
    "<|tool_call>call:f{a:1}<tool_call|>",
    "{",
    "}",
    "\"",
    "(",
    "<",
    "[",
    "é😀",
    "<tool_c",
    "<|",
    "[TOOL",
    "<|channel",
    "functools",
    "functools[{\"name\": \"t\", \"arguments\": {}}]",
    ">>>",
    ">>>f\n{\"a\": 1}",
    "<|im_",
    "</thi",
    "<tool_calls>",
    "[TOOL_CALL]name=x;args={\"y\": 2}[/TOOL_CALL]",
];

/// A message as content, reasoning and calls (id, name, format, arguments as JSON).
type Assembled = (String, String, Vec<(Option<String>, String, Format, String)>);

/// Assembles the events as a message, checking their order.
fn assemble(events: Vec<Event>, out: &mut Assembled, open: &mut Option<String>) -> Result<(), String> {
    for event in events {
        match event {
            Event::Content { text } if open.is_none() => out.0.push_str(&text),
            Event::Reasoning { text } if open.is_none() => out.1.push_str(&text),
            Event::CallStart {
                index,
                id,
                name,
                format,
            } if open.is_none() && index == out.2.len() => {
                out.2.push((id, name, format, String::new()));
                *open = Some(String::new());
            }
            Event::Arguments { index, delta } if open.is_some() && index + 1 == out.2.len() => {
                open.as_mut().expect("open").push_str(&delta);
            }
            Event::CallEnd { index, arguments, .. } if open.is_some() && index + 1 == out.2.len() => {
                let text = open.take().expect("open");
                let end = Value::Object(arguments).to_json();
                match beacon_core::parse_json(&text) {
                    Ok(v) if v.to_json() == end => {}
                    _ => return Err(format!("fragments {text:?} are not {end}")),
                }
                out.2[index].3 = end;
            }
            other => return Err(format!("out of order: {other:?}")),
        }
    }
    Ok(())
}

type Outcome = Result<Assembled, (String, usize)>;

fn streamed(pieces: &[&str], options: MessageOptions) -> Result<Outcome, String> {
    let mut stream = ToolCallStream::new(options);
    let mut out = (String::new(), String::new(), Vec::new());
    let mut open = None;
    let err = |e: ParseError| Ok(Err((e.code.as_str().to_string(), e.offset)));
    for piece in pieces {
        match stream.feed(piece) {
            Ok(events) => assemble(events, &mut out, &mut open)?,
            Err(e) => return err(e),
        }
    }
    match stream.finish() {
        Ok(events) => assemble(events, &mut out, &mut open)?,
        Err(e) => return err(e),
    }
    Ok(Ok(out))
}

fn whole(text: &str, options: MessageOptions) -> Outcome {
    match parse_message(text, options) {
        Ok(m) => Ok((
            m.content,
            m.reasoning.unwrap_or_default(),
            m.tool_calls
                .into_iter()
                .map(|c| (c.id, c.name, c.format, Value::Object(c.arguments).to_json()))
                .collect(),
        )),
        Err(e) => Err((e.code.as_str().to_string(), e.offset)),
    }
}

fn soup() -> impl Strategy<Value = (String, Vec<usize>)> {
    (
        prop::collection::vec(0..PIECES.len(), 1..10),
        prop::collection::vec(1usize..9, 0..40),
    )
        .prop_map(|(picks, cuts)| (picks.into_iter().map(|i| PIECES[i]).collect(), cuts))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_texts_in_random_pieces_give_the_whole_text_answer(
        (text, steps) in soup(),
        start in 0..3usize,
        generate in any::<bool>(),
        formats in prop::option::of(prop::collection::vec(0..Format::ALL.len(), 1..6)),
    ) {
        let start = [Start::Content, Start::Detect, Start::Reasoning][start];
        let formats = formats.map_or(FormatSet::ALL, |picks| picks.into_iter().map(|i| Format::ALL[i]).collect());
        let options = MessageOptions { ids: if generate { Ids::Seeded(IdSeed::new(&text)) } else { Ids::Keep }, start, formats, ..Default::default() };
        // Pieces of the given lengths (at char boundaries), then the rest one code point at a time.
        let mut pieces = Vec::new();
        let mut from = 0;
        for step in steps {
            if from >= text.len() {
                break;
            }
            let mut to = (from + step).min(text.len());
            while !text.is_char_boundary(to) {
                to += 1;
            }
            pieces.push(&text[from..to]);
            from = to;
        }
        let rest = &text[from..];
        pieces.extend(rest.char_indices().map(|(i, c)| &rest[i..i + c.len_utf8()]));
        let want = whole(&text, options);
        let got = streamed(&pieces, options);
        prop_assert_eq!(got, Ok(want), "text {:?} pieces {:?}", text, pieces);
    }
}
