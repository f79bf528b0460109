//! Any text: parsing and stream scanning never panic, offsets are character boundaries inside the
//! input, and the exactly-one API agrees with the all-calls API.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let all = beacon_core::parse_tool_calls(text);
    let one = beacon_core::parse_tool_call(text);
    match (&all, &one) {
        (Ok(calls), Ok(call)) => assert!(calls.len() == 1 && calls[0] == *call),
        (Ok(calls), Err(e)) => assert!(calls.len() > 1 && e.code == beacon_core::ErrorCode::Multiple),
        (Err(a), Err(b)) => assert_eq!(a, b),
        (Err(_), Ok(_)) => panic!("parse_tool_call found a call parse_tool_calls did not"),
    }
    if let Err(e) = all {
        assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{e:?}");
    }
    let scan = beacon_core::scan_stream(text);
    assert!(scan.offset <= text.len() && text.is_char_boundary(scan.offset), "{scan:?}");
    if let Ok(calls) = beacon_core::parse_tool_calls(text) {
        for c in calls {
            assert!(!c.name.is_empty());
            assert!(c.span.start <= c.span.end && c.span.end <= text.len());
        }
    }
});
