//! Documented limits: very large inputs parse (or fail) cleanly, in memory near the input's size.
//! One test per binary, so that the process's peak memory is this test's.

/// Peak resident memory of this process so far, in bytes (Linux: VmHWM in /proc/self/status).
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("a VmHWM line");
    let kb: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kb * 1024
}

#[test]
fn a_100_mb_input_parses_in_memory_near_its_size() {
    const SIZE: usize = 100 << 20;
    let sentence = "The model thinks out loud for a long while (with parentheses, [brackets] and {braces}). ";
    let mut text = sentence.repeat(SIZE / sentence.len());
    text.push_str(r#"<tool_call>{"name": "search", "arguments": {"q": "rust"}}</tool_call>"#);
    let before = peak_rss();
    let calls = beacon_core::parse_tool_calls(&text).expect("one call at the end");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "search");
    assert_eq!(calls[0].span.end, text.len());
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < SIZE / 10, "parsing 100 MB grew peak memory by {grown} bytes");

    // The same text without the call: every tier scans it, and finds nothing.
    text.truncate(SIZE / sentence.len() * sentence.len());
    let err = beacon_core::parse_tool_calls(&text).expect_err("no call");
    assert_eq!(err.code, beacon_core::ErrorCode::NotFound);
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < SIZE / 10, "scanning 100 MB grew peak memory by {grown} bytes");
}
