//! Any text as a provider response: never panics, error offsets are character boundaries inside
//! the input, and detection, has_tool_calls and parse_response agree.
#![no_main]
use beacon_core::{detect_provider, has_tool_calls, parse_response, Provider};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let provider = Provider::ALL
        .get(selector as usize % (Provider::ALL.len() + 1))
        .copied();
    let fallback = selector & 0x80 != 0;
    let parsed = parse_response(text, provider, fallback);
    let has = has_tool_calls(text, provider, fallback);
    match (&parsed, &has) {
        (Ok(calls), Ok(has)) => assert_eq!(!calls.is_empty(), *has),
        (Err(a), Err(b)) => assert_eq!(a, b),
        _ => panic!("parse_response and has_tool_calls disagree"),
    }
    if provider.is_none() {
        if let (Ok(calls), Ok(None)) = (&parsed, detect_provider(text)) {
            assert!(calls.is_empty(), "calls without a detected provider");
        }
    }
    if let Err(e) = parsed {
        assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{e:?}");
    }
});
