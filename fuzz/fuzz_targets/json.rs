//! Any text as strict JSON: never panics; what parses re-serialises to JSON that parses to the
//! same value.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match beacon_core::parse_json(text) {
        Ok(v) => assert_eq!(beacon_core::parse_json(&v.to_json()).as_ref(), Ok(&v)),
        Err(e) => assert!(e.offset <= text.len() && text.is_char_boundary(e.offset), "{e:?}"),
    }
});
