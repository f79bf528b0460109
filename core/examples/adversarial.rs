//! Times the parser on adversarial inputs at growing sizes, to show time grows linearly:
//! `cargo run --release -p beacon-core --example adversarial`.
use std::time::Instant;

fn main() {
    let patterns: [(&str, &str); 16] = [
        ("{\"name\": ", "repeated `{\"name\": `"),
        ("f(a=", "repeated `f(a=`"),
        ("<tool_call>", "repeated `<tool_call>`"),
        ("[[[[", "deep `[[[[`"),
        ("{\"a\":1 ", "repeated unclosed objects"),
        ("(((x=", "repeated `(((x=`"),
        ("a(", "repeated `a(`"),
        ("lorem ipsum dolor sit amet ", "prose, no call"),
        ("{{{{", "repeated `{{{{`"),
        ("<think><tool_call>{\"name\": \"x", "unclosed think, broken calls"),
        ("</think><tool_call>{\"name\": \"x", "repeated </think> + call"),
        ("{\"s\": \"<tool_call>", "markers in open strings"),
        ("f(s='<tool_call>', ", "markers in call strings"),
        ("é(", "repeated `é(`"),
        ("日本語", "one identifier run"),
        ("{\"id\": 0, \"n\": [1, ", "broken objects, claim keys"),
    ];
    println!("{:<28} {:>10} {:>12} {:>12}", "input", "size", "time", "ns/byte");
    for (unit, label) in patterns {
        for size in [1usize << 20, 4 << 20, 16 << 20] {
            let text = unit.repeat(size / unit.len());
            let t = Instant::now();
            let result = beacon_core::parse_tool_calls(&text);
            let dt = t.elapsed();
            let outcome = match result {
                Ok(calls) => format!("{} calls", calls.len()),
                Err(e) => e.code.as_str().to_string(),
            };
            println!(
                "{:<28} {:>9}K {:>10.2}ms {:>12.3}  {}",
                label,
                text.len() >> 10,
                dt.as_secs_f64() * 1e3,
                dt.as_nanos() as f64 / text.len() as f64,
                outcome
            );
        }
    }
}
