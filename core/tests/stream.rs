//! Runs the shared stream-scan fixtures (`tests/fixtures/stream/scan.json`, schema in its
//! `_author.py`): state and position (code points) of `scan_stream` for every case.

use beacon_core::{locate, scan_stream, Unit};

#[test]
fn stream_fixtures() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/stream/scan.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("scan.json")).expect("JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 25, "only {} stream cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let input = case["input"].as_str().expect("input");
        let want_state = case["scan"]["state"].as_str().expect("state");
        let want_position = case["scan"]["position"].as_u64().expect("position") as usize;
        let got = scan_stream(input);
        let position = locate(input, got.offset, Unit::CodePoints).offset;
        if got.state.as_str() != want_state || position != want_position {
            failures.push(format!(
                "{}: expected {want_state} at {want_position}, got {} at {position}",
                case["id"],
                got.state.as_str()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
