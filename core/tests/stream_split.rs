//! Split invariance: every text fixture (`tests/fixtures/*.json`) through `ToolCallStream`, split
//! at every single point, in 20 random ways and one code point at a time, gives what
//! `parse_message` gives on the whole text with the same options: the same content, reasoning
//! and calls (id, name, format, arguments) in order, each call's argument fragments adding up to
//! JSON of its arguments; or the same error (code and byte offset). Each fixture runs with the
//! three `Start` options, and once with seeded generated ids (the stream gives the ids
//! `parse_message` gives); a case with `tools` (and `validate`,
//! `unknown`) runs with them, as `parse_message` does. A `repair` case runs with `repair` (the
//! receipts of each call must match too), and every other case once more with `repair` on.

mod common;

use beacon_core::{
    parse_json, parse_message, Event, Format, FormatSet, IdSeed, Ids, Message, MessageOptions, ParseError, Start,
    ToolCallStream, Tools, UnknownTools, Value,
};

/// A fixture input and its `formats`, `tools`, `validate`, `unknown` and `repair` options.
#[derive(Clone)]
struct Input {
    id: String,
    text: String,
    formats: FormatSet,
    tools: Option<Tools>,
    validate: bool,
    unknown: UnknownTools,
    repair: bool,
}

impl Input {
    fn options(&self, ids: Ids, start: Start) -> MessageOptions<'_> {
        MessageOptions {
            formats: self.formats,
            ids,
            tools: self.tools.as_ref(),
            validate: self.validate,
            unknown: self.unknown,
            start,
            repair: self.repair,
        }
    }
}

fn inputs() -> Vec<Input> {
    common::fixture_cases()
        .into_iter()
        .map(|case| Input {
            id: case["id"].as_str().expect("id").to_owned(),
            text: case["input"].as_str().expect("input").to_owned(),
            formats: case
                .get("formats")
                .and_then(|f| f.as_array())
                .map(|ids| {
                    ids.iter()
                        .map(|id| Format::parse(id.as_str().expect("id")).expect("known format"))
                        .collect()
                })
                .unwrap_or_default(),
            tools: case
                .get("tools")
                .map(|t| Tools::from_value(&common::from_serde(t)).expect("the case's tools")),
            validate: case.get("validate").is_none_or(|v| v.as_bool() == Some(true)),
            unknown: match case.get("unknown").and_then(|u| u.as_str()) {
                Some("keep") => UnknownTools::Keep,
                Some("drop") => UnknownTools::Drop,
                _ => UnknownTools::Error,
            },
            repair: case.get("repair").is_some_and(|r| r.as_bool() == Some(true)),
        })
        .collect()
}

/// What a stream gave, assembled like a message.
#[derive(Debug, PartialEq)]
struct Streamed {
    content: String,
    reasoning: String,
    calls: Vec<(Option<String>, String, Format, String)>,
    /// Each call's receipts: code and offset.
    repairs: Vec<Vec<(&'static str, usize)>>,
}

fn receipts(repairs: &[beacon_core::Repair]) -> Vec<(&'static str, usize)> {
    repairs.iter().map(|r| (r.code.as_str(), r.offset)).collect()
}

impl Streamed {
    fn of(message: &Message) -> Streamed {
        Streamed {
            content: message.content.clone(),
            reasoning: message.reasoning.clone().unwrap_or_default(),
            calls: message
                .tool_calls
                .iter()
                .map(|c| {
                    (
                        c.id.clone(),
                        c.name.clone(),
                        c.format,
                        Value::Object(c.arguments.clone()).to_json(),
                    )
                })
                .collect(),
            repairs: message.tool_calls.iter().map(|c| receipts(&c.repairs)).collect(),
        }
    }
}

/// Assembles events, checking their order: a call starts, gets fragments, ends, and the next
/// one starts; the fragments parse to the arguments of its end.
struct Assembler {
    out: Streamed,
    open: Option<(usize, String)>,
}

impl Assembler {
    fn new() -> Self {
        Assembler {
            out: Streamed {
                content: String::new(),
                reasoning: String::new(),
                calls: Vec::new(),
                repairs: Vec::new(),
            },
            open: None,
        }
    }

    fn take(&mut self, events: Vec<Event>) -> Result<(), String> {
        for event in events {
            match event {
                Event::Content { text } if self.open.is_none() => self.out.content.push_str(&text),
                Event::Reasoning { text } if self.open.is_none() => self.out.reasoning.push_str(&text),
                Event::CallStart {
                    index,
                    id,
                    name,
                    format,
                } if self.open.is_none() && index == self.out.calls.len() => {
                    self.out.calls.push((id, name, format, String::new()));
                    self.out.repairs.push(Vec::new());
                    self.open = Some((index, String::new()));
                }
                Event::Arguments { index, delta } if self.open.as_ref().is_some_and(|o| o.0 == index) => {
                    self.open.as_mut().expect("open").1.push_str(&delta);
                }
                Event::CallEnd {
                    index,
                    arguments,
                    repairs,
                } if self.open.as_ref().is_some_and(|o| o.0 == index) => {
                    self.out.repairs[index] = receipts(&repairs);
                    let (_, text) = self.open.take().expect("open");
                    let end = Value::Object(arguments).to_json();
                    // beacon's own parser stops at 128 levels; arguments may nest 128 deep
                    // inside their object.
                    let same = match parse_json(&text) {
                        Ok(parsed) => parsed.to_json() == end,
                        Err(_) => deep(&text).is_some_and(|v| Some(v) == deep(&end)),
                    };
                    if !same {
                        return Err(format!("fragments {text:?} do not parse to {end}"));
                    }
                    self.out.calls[index].3 = end;
                }
                other => return Err(format!("event out of order: {other:?}")),
            }
        }
        Ok(())
    }
}

/// JSON parsed without a depth limit.
fn deep(text: &str) -> Option<serde_json::Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    de.into_iter::<serde_json::Value>().next()?.ok()
}

/// Streams `pieces`; the assembled result, or the error.
fn stream(pieces: &[&str], options: MessageOptions<'_>) -> Result<Result<Streamed, ParseError>, String> {
    let mut stream = ToolCallStream::new(options);
    let mut assembler = Assembler::new();
    for piece in pieces {
        match stream.feed(piece) {
            Ok(events) => assembler.take(events)?,
            Err(e) => return Ok(Err(e)),
        }
    }
    match stream.finish() {
        Ok(events) => assembler.take(events)?,
        Err(e) => return Ok(Err(e)),
    }
    if assembler.open.is_some() {
        return Err("a call never ended".to_owned());
    }
    Ok(Ok(assembler.out))
}

fn describe(result: &Result<Streamed, ParseError>) -> String {
    match result {
        Ok(s) => format!("{s:?}"),
        Err(e) => format!("error {} at {}", e.code.as_str(), e.offset),
    }
}

/// The char boundaries of `text`, ends included.
fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).chain([text.len()]).collect()
}

/// A small deterministic generator (xorshift) for the random splits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The ways to split `text`: every single split point, 20 random splits, one code point at a
/// time.
fn splits(text: &str, seed: u64) -> Vec<Vec<&str>> {
    let cuts = boundaries(text);
    let mut out: Vec<Vec<&str>> = cuts.iter().map(|&c| vec![&text[..c], &text[c..]]).collect();
    let mut rng = Rng(seed | 1);
    for _ in 0..20 {
        let mut pieces = Vec::new();
        let mut from = 0;
        while from < text.len() {
            let step = 1 + (rng.next() % 12) as usize;
            let to = cuts.iter().copied().find(|&c| c >= from + step).unwrap_or(text.len());
            pieces.push(&text[from..to]);
            from = to;
        }
        out.push(pieces);
    }
    out.push(cuts.windows(2).map(|w| &text[w[0]..w[1]]).collect());
    out
}

fn check(input: &Input, options: MessageOptions<'_>, all_splits: bool, problems: &mut Vec<String>) {
    let expected = parse_message(&input.text, options).map(|m| Streamed::of(&m));
    let seed = input.text.len() as u64 * 2654435761 + input.id.len() as u64;
    let mut ways = splits(&input.text, seed);
    if !all_splits {
        ways = ways.split_off(ways.len() - 1);
    }
    for pieces in ways {
        let got = match stream(&pieces, options) {
            Ok(got) => got,
            Err(why) => {
                problems.push(format!("{} {options:?} {pieces:?}: {why}", input.id));
                return;
            }
        };
        let same = match (&got, &expected) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => (a.code, a.offset) == (b.code, b.offset),
            _ => false,
        };
        if !same {
            problems.push(format!(
                "{} {options:?}\n  pieces:   {pieces:?}\n  expected: {}\n  streamed: {}",
                input.id,
                describe(&expected),
                describe(&got)
            ));
            return;
        }
    }
}

#[test]
fn every_split_of_every_fixture_gives_the_whole_text_answer() {
    let inputs = inputs();
    assert!(inputs.len() > 1000, "only {} fixture inputs", inputs.len());
    let mut problems = Vec::new();
    for input in &inputs {
        for start in [Start::Content, Start::Detect, Start::Reasoning] {
            check(input, input.options(Ids::Keep, start), true, &mut problems);
        }
        check(
            input,
            input.options(Ids::Seeded(IdSeed::new("split")), Start::Content),
            false,
            &mut problems,
        );
        if !input.repair {
            let repairing = Input {
                repair: true,
                ..input.clone()
            };
            check(
                &repairing,
                repairing.options(Ids::Keep, Start::Detect),
                false,
                &mut problems,
            );
        }
    }
    assert_none_differ(&problems);
}

/// The caller's tools through the stream: names, typing and validation as `parse_message`, under
/// every split (an unknown tagged call raises at its name, a text value is typed by its schema, a
/// violation raises with the one-shot position, unknown leading or prose calls are content).
#[test]
fn tools_give_the_whole_text_answer_under_every_split() {
    let tools = Tools::from_json(
        r#"[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 7}},
            "required": ["city"]}}},
            {"name": "lookup_zip", "input_schema": {"type": "object", "properties": {"zip": {"type": "string"}}}}]"#,
    )
    .expect("tools");
    let hermes =
        |name: &str, args: &str| format!("<tool_call>\n{{\"name\": \"{name}\", \"arguments\": {args}}}\n</tool_call>");
    let texts = [
        format!("Sure.{}", hermes("get_weather", r#"{"city": "Paris", "days": 3}"#)),
        format!(
            "Sure.{}{}",
            hermes("get_weather", r#"{"city": "Paris"}"#),
            hermes("send_mail", "{}")
        ),
        hermes("get_weather", r#"{"city": "Paris", "days": 9}"#),
        format!(
            "{}{}",
            hermes("get_weather", r#"{"days": 2}"#),
            "<tool_call>{\"name\": "
        ),
        "<invoke name=\"lookup_zip\">\n<parameter name=\"zip\">10001</parameter>\n</invoke>".to_string(),
        "{\"name\": \"send_mail\", \"arguments\": {\"to\": \"x\"}} and then get_weather(city='Rome')".to_string(),
        "First requests.get(url=\"x\"), then get_weather(city=\"Paris\", days=2).".to_string(),
        "<think>maybe <tool_call>{\"name\": \"send_mail\", \"arguments\": {}}</tool_call></think>Done.".to_string(),
    ];
    let mut problems = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        for unknown in [UnknownTools::Error, UnknownTools::Keep, UnknownTools::Drop] {
            for validate in [true, false] {
                let input = Input {
                    id: format!("tools/{i}"),
                    text: text.clone(),
                    formats: FormatSet::default(),
                    tools: Some(tools.clone()),
                    validate,
                    unknown,
                    repair: false,
                };
                check(
                    &input,
                    input.options(Ids::Seeded(IdSeed::new("split")), Start::Content),
                    true,
                    &mut problems,
                );
            }
        }
    }
    for p in problems.iter().take(20) {
        println!("{p}\n");
    }
    assert!(
        problems.is_empty(),
        "{} streams differ from parse_message",
        problems.len()
    );
}

/// With `repair`, content before the first mistake streams while the text arrives; the mended
/// call comes at `finish`, whole, with its receipt in its `CallEnd` and in `repairs()`.
#[test]
fn a_repairing_stream_mends_at_the_end() {
    let options = MessageOptions {
        start: Start::Content,
        repair: true,
        ..Default::default()
    };
    let text = "Sure.\n<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1,}}</tool_call> Done.";
    let mut stream = ToolCallStream::new(options);
    let fed = stream.feed(text).expect("feed");
    assert_eq!(fed, [Event::Content { text: "Sure.".into() }]);
    let rest = stream.finish().expect("finish");
    let kinds: Vec<_> = rest.iter().map(Event::kind).collect();
    assert_eq!(kinds, ["call_start", "arguments", "call_end", "content"]);
    let Event::CallEnd { repairs, .. } = &rest[2] else {
        panic!("{rest:?}")
    };
    let comma = text.find(",}").expect("the comma");
    assert_eq!(
        repairs.iter().map(|r| (r.code.as_str(), r.offset)).collect::<Vec<_>>(),
        [("repair.trailing_comma", comma)]
    );
    assert_eq!(stream.repairs(), repairs.as_slice());
    // Strictly, the same text is the error `parse_message` raises.
    let mut strict = ToolCallStream::new(MessageOptions {
        repair: false,
        ..options
    });
    strict.feed(text).expect("feed");
    let err = strict.finish().expect_err("a broken call");
    assert_eq!(err.code.as_str(), "json.unexpected_token");
}

/// A JSON call in the prose followed by a call-syntax candidate: the prose is held from the
/// first candidate of either tier (the later one once took the hold's place, and the JSON call
/// streamed as content).
#[test]
fn the_first_candidate_of_either_tier_holds_the_prose() {
    let text = "ok.{\"name\": \"f\", \"arguments\": {\"a\": 1}}f(a=1)";
    let mut problems = Vec::new();
    for start in [Start::Content, Start::Detect, Start::Reasoning] {
        let input = Input {
            id: "soup/json-then-call-syntax".into(),
            text: text.into(),
            formats: FormatSet::default(),
            tools: None,
            validate: true,
            unknown: UnknownTools::Error,
            repair: false,
        };
        check(&input, input.options(Ids::Keep, start), true, &mut problems);
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The renders of real chat templates (`tests/fixtures/template/spec_renders.json`), read with
/// the format inferred from each template and the built-in formats off: `parse_message` gives
/// the calls the template rendered, and every split of the text streams to the same answer.
#[test]
fn every_split_of_a_template_render_gives_the_whole_text_answer() {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/template/spec_renders.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("spec_renders.json"))
        .expect("spec_renders.json is JSON");
    let templates = doc["templates"].as_object().expect("templates");
    assert!(templates.len() >= 30, "only {} templates", templates.len());
    let mut problems = Vec::new();
    for (name, t) in templates {
        let spec = beacon_core::template::FormatSpec::from_value(&common::from_serde(&t["spec"])).expect("a spec");
        let formats = FormatSet::EMPTY.with_spec(&spec).expect("a spec that can be read");
        for render in t["renders"].as_array().expect("renders") {
            let input = Input {
                id: format!("{name}/{}", render["case"].as_str().unwrap_or_default()),
                text: render["text"].as_str().expect("text").to_owned(),
                formats,
                tools: Some(Tools::from_value(&common::from_serde(&render["tools"])).expect("tools")),
                validate: true,
                unknown: UnknownTools::Error,
                repair: false,
            };
            let message = parse_message(&input.text, input.options(Ids::Keep, Start::Detect))
                .unwrap_or_else(|e| panic!("{}: {e}", input.id));
            let got: Vec<serde_json::Value> = message
                .tool_calls
                .iter()
                .map(|c| {
                    assert_eq!(c.format, Format::Spec, "{}", input.id);
                    let arguments: serde_json::Value =
                        serde_json::from_str(&Value::Object(c.arguments.clone()).to_json()).expect("JSON");
                    serde_json::json!({"name": c.name, "arguments": arguments})
                })
                .collect();
            assert_eq!(&serde_json::Value::Array(got), &render["calls"], "{}", input.id);
            for start in [Start::Content, Start::Detect] {
                check(&input, input.options(Ids::Keep, start), true, &mut problems);
            }
        }
    }
    assert_none_differ(&problems);
}

/// Prints the first 40 streams that differ from `parse_message`, and fails if any does.
fn assert_none_differ(problems: &[String]) {
    for p in problems.iter().take(40) {
        println!("{p}\n");
    }
    assert!(
        problems.is_empty(),
        "{} streams differ from parse_message",
        problems.len()
    );
}
