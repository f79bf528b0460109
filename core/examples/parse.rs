//! Prints the tool calls in a text given as the first argument (or on stdin) as JSON lines.
use std::io::Read;

fn main() {
    let text = match std::env::args().nth(1) {
        Some(t) => t,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).expect("stdin is UTF-8");
            s
        }
    };
    match beacon_core::parse_tool_calls(&text) {
        Ok(calls) => {
            for c in calls {
                println!(
                    "{} {} {} {:?}",
                    c.format.as_str(),
                    c.name,
                    beacon_core::Value::Object(c.arguments).to_json(),
                    c.span
                );
            }
        }
        Err(e) => {
            println!("{}", e.describe(&text, beacon_core::Unit::CodePoints));
            std::process::exit(1);
        }
    }
}
