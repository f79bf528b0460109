//! What streaming costs: 1 MB of model output fed to `ToolCallStream` one code point at a time
//! (and in 4-byte and 64-byte deltas), against one `parse_message` of the whole text.
//!
//! `cargo run --release -p beacon-core --example stream_bench`
//!
//! `stream_bench once N STEP` runs text N once, streamed in STEP-byte deltas (0: one
//! `parse_message`), for an instruction count that a busy machine does not disturb:
//! `valgrind --tool=cachegrind --cache-sim=no target/release/examples/stream_bench once 0 1`.
//!
//! Texts: prose with a few tagged calls, calls with long arguments (hermes, mistral, xml_invoke),
//! Llama-style leading JSON calls, and reasoning before calls. The target is a ratio of at most
//! 3 for the one-code-point feed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use beacon_core::{parse_message, Event, MessageOptions, Start, ToolCallStream};

const SIZE: usize = 1 << 20;

fn repeat_to(unit: &str, size: usize) -> String {
    let mut s = String::with_capacity(size + unit.len());
    while s.len() < size {
        s.push_str(unit);
    }
    s
}

/// A long JSON object of arguments (about `size` bytes): strings, numbers, nested lists.
fn arguments(size: usize) -> String {
    let mut s = String::from("{");
    let mut i = 0;
    while s.len() < size {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!(
            "\"k{i}\": {{\"text\": \"line {i} of the document, with some words é😀\", \"n\": {i}, \"xs\": [1, 2.5, true, null]}}"
        ));
        i += 1;
    }
    s.push('}');
    s
}

fn texts(size: usize) -> Vec<(&'static str, String)> {
    let prose_unit =
        "The weather in Paris is mild today; tomorrow it may rain [1]. Let me know <b>if</b> you need more.\n";
    let call = r#"<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}</tool_call>"#;
    let mixed_unit = format!("{}{call}\n", repeat_to(prose_unit, 2000));
    let xml_params: String = (0..2000)
        .map(|i| format!("<parameter name=\"p{i}\">value number {i} with text</parameter>\n"))
        .collect();
    vec![
        ("prose with calls", repeat_to(&mixed_unit, size)),
        (
            "hermes, one call, 1 MB of arguments",
            format!(
                "Checking.\n<tool_call>{{\"name\": \"f\", \"arguments\": {}}}</tool_call>",
                arguments(size)
            ),
        ),
        ("hermes, small calls", repeat_to(&format!("{call}\n"), size)),
        ("mistral, one call", format!("[TOOL_CALLS]f[ARGS]{}", arguments(size))),
        (
            "xml_invoke, 2000-parameter calls",
            repeat_to(&format!("<invoke name=\"f\">\n{xml_params}</invoke>\n"), size),
        ),
        (
            "leading JSON (Llama 3)",
            format!("{{\"name\": \"f\", \"parameters\": {}}}<|eot_id|>", arguments(size)),
        ),
        (
            "reasoning then a call",
            format!("<think>{}</think>\n{call}", repeat_to(prose_unit, size)),
        ),
    ]
}

/// The fastest of a few runs of `f`.
fn best(mut f: impl FnMut()) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Feeds `text` in deltas of `step` bytes (at least one code point each).
fn stream(text: &str, step: usize, options: MessageOptions) -> usize {
    let mut s = ToolCallStream::new(options);
    let mut events: Vec<Event> = Vec::new();
    let mut count = 0;
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + step).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        s.feed_into(&text[from..to], &mut events)
            .expect("no error while feeding");
        count += events.len();
        events.clear();
        from = to;
    }
    count + s.finish().expect("the texts are well-formed").len()
}

/// Time per byte of a one-code-point feed at 128 KB and at 1 MB of the same kind of text: equal
/// when the total work is linear.
fn linearity(name: &str, small: &str, text: &str, options: MessageOptions) {
    let per_byte = |t: &str| {
        let d = best(|| {
            black_box(stream(black_box(t), 1, options));
        });
        d.as_secs_f64() * 1e9 / t.len() as f64
    };
    let (a, b) = (per_byte(small), per_byte(text));
    println!(
        "{name:<38} {a:>8.1} ns/B at 128 KB {b:>8.1} ns/B at 1 MB  (×{:.2})",
        b / a
    );
}

fn main() {
    let options = MessageOptions {
        start: Start::Content,
        ..Default::default()
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [once, n, step] = &args[..] {
        assert_eq!(once, "once", "usage: stream_bench [once N STEP]");
        let texts = texts(SIZE);
        let (name, text) = &texts[n.parse::<usize>().expect("a text number")];
        if step == "-" {
            // The texts alone, to subtract.
            return;
        }
        match step.parse::<usize>().expect("a step") {
            0 => drop(black_box(parse_message(text, options).expect("well-formed"))),
            step => drop(black_box(stream(text, step, options))),
        }
        eprintln!("{name}: {} bytes", text.len());
        return;
    }
    println!(
        "{:<38} {:>8} {:>12} {:>10} {:>7} {:>7} {:>7}",
        "text", "bytes", "parse_message", "1 cp", "ratio", "4 B", "64 B"
    );
    for (name, text) in texts(SIZE) {
        let one = best(|| {
            black_box(parse_message(black_box(&text), options).expect("well-formed"));
        });
        let per_cp = best(|| {
            black_box(stream(black_box(&text), 1, options));
        });
        let four = best(|| {
            black_box(stream(black_box(&text), 4, options));
        });
        let wide = best(|| {
            black_box(stream(black_box(&text), 64, options));
        });
        let ratio = |d: Duration| d.as_secs_f64() / one.as_secs_f64();
        println!(
            "{name:<38} {:>8} {:>12.2?} {:>10.2?} {:>6.1}× {:>6.1}× {:>6.1}×",
            text.len(),
            one,
            per_cp,
            ratio(per_cp),
            ratio(four),
            ratio(wide)
        );
    }
    println!();
    println!("linear total work: time per byte of the one-code-point feed");
    for ((name, small), (_, text)) in texts(SIZE / 8).into_iter().zip(texts(SIZE)) {
        linearity(name, &small, &text, options);
    }
}
