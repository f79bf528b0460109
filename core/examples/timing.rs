//! Times the core alone on each file given: `cargo run --release -p beacon-core --example timing -- FILE...`.
use std::time::Instant;

fn main() {
    let mut args = std::env::args();
    args.next(); // the program's name
    for path in args {
        let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
        let mut n = 1u32;
        let per_call = loop {
            let t = Instant::now();
            for _ in 0..n {
                if path.ends_with(".json") {
                    std::hint::black_box(beacon_core::parse_json(std::hint::black_box(&text))).ok();
                } else {
                    std::hint::black_box(beacon_core::parse_tool_calls(std::hint::black_box(&text))).ok();
                }
            }
            let dt = t.elapsed();
            if dt.as_millis() > 200 {
                break dt / n;
            }
            n *= 2;
        };
        println!("{path:<40} {:>8} bytes {:>10.2?}/call", text.len(), per_call);
    }
}
