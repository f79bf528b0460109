//! Times the parser on adversarial inputs at growing sizes, to show time grows linearly:
//! `cargo run --release -p beacon-core --example adversarial [FILTER]` (only the inputs whose
//! label contains FILTER). Each pattern repeats one unit: the seed formats' tokens, then every
//! open-model format's markers, alone, as broken calls, and inside a `<think>` left open; then
//! reasoning and content wrappers through `parse_message`.
use std::time::Instant;

fn main() {
    let patterns = [
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
        // The open-model formats' markers.
        ("<｜tool▁call▁begin｜>", "repeated DeepSeek call begin"),
        ("<｜tool▁calls▁begin｜>", "repeated DeepSeek section"),
        ("<｜DSML｜invoke name=\"", "repeated DSML invoke"),
        ("<steptml:invoke name=\"", "repeated steptml invoke"),
        ("<|tool_call_begin|>", "repeated Kimi call begin"),
        ("<|tool_calls_section_begin|>", "repeated Kimi section"),
        ("<tool_call>f\n<arg_key>", "repeated GLM call"),
        ("<arg_key>", "repeated `<arg_key>`"),
        ("<|channel|>", "repeated Harmony channel"),
        (
            "<|start|>assistant<|channel|>commentary to=functions.f",
            "repeated Harmony headers",
        ),
        ("<|tool_call>call:", "repeated Gemma call"),
        ("<|tool_call>call:f{a:", "repeated Gemma nesting"),
        (
            "<start_function_call>call:f{a:<escape>",
            "repeated FunctionGemma string",
        ),
        ("<|tool_call_start|>[f(", "repeated LFM2 list"),
        ("<function_calls>f(", "repeated Olmo call"),
        ("[TOOL_CALLS]f", "repeated `[TOOL_CALLS]f`"),
        (">>>", "repeated `>>>`"),
        (">>>f\n{", "repeated Functionary v3.2 call"),
        ("f\n{\"a\": [", "leading Functionary v3.2 call, open"),
        (">>>all\n", "repeated `>>>all` header"),
        ("<function=f>", "repeated `<function=f>`"),
        ("functools[", "repeated `functools[`"),
        ("<|START_ACTION|>", "repeated `<|START_ACTION|>`"),
        ("<|START_ACTION|>[{\"tool_name\": ", "repeated Command R7B call"),
        ("Action:\n```json\n[", "repeated Command R+ action"),
        ("Action:\n```json\n[{\"tool_name\": ", "repeated Command R+ call"),
        ("<|tools_prefix|>[{", "repeated Apertus list"),
        ("<tool_calls>", "repeated `<tool_calls>`"),
        ("<|action_start|>", "repeated InternLM action"),
        ("<|function_call|>", "repeated GigaChat call"),
        ("<longcat_tool_call>", "repeated LongCat call"),
        ("<|tool_calls|>", "repeated Solar-Open section"),
        ("<|tool_call:begin|>a<|tool_call:name|>", "repeated Solar-Open call"),
        (
            "<|think|><|tool_call:begin|>a<|tool_call:name|>f<|tool_call:args|>{\"a\": ",
            "unclosed Solar think, calls",
        ),
        (
            "<think><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
            "unclosed think, Kimi calls",
        ),
        (
            "<think><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"a\": ",
            "unclosed think, DeepSeek calls",
        ),
        ("<think><arg_key>a</arg_key>", "unclosed think, GLM pairs"),
        (
            "<think><|channel|>commentary to=functions.f<|message|>{",
            "unclosed think, Harmony calls",
        ),
        ("<think>>>>f\n", "unclosed think, `>>>`"),
        (
            "<think><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"a\" string=\"true\">",
            "unclosed think, DSML parameters",
        ),
        ("<think><|tool_call>call:f{a:<|\"|>", "unclosed think, Gemma strings"),
        // Values whose close is missing (core/src/formats/tagged.rs): the next parameter's opener
        // inside a value, at a line's start or (GLM, steptml) anywhere.
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n",
            "repeated unclosed Qwen3 values",
        ),
        ("<parameter=a>\nx\n", "repeated Qwen3 parameters"),
        (
            "<think><function=f>\n<parameter=a>\nx\n",
            "unclosed think, Qwen3 values",
        ),
        (
            "<invoke name=\"f\">\n<parameter name=\"a\">x\n",
            "repeated unclosed XML values",
        ),
        (
            "<steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x",
            "repeated unclosed steptml values",
        ),
        (
            "<tool_call>f<arg_key>a</arg_key><arg_value>x",
            "repeated unclosed GLM values",
        ),
        (
            "<think><tool_call>f<arg_key>a</arg_key><arg_value>x",
            "unclosed think, GLM values",
        ),
        (
            "<think><tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"",
            "unclosed think, JSON strings",
        ),
        // MiniCPM 5: its markers, CDATA sections left open or ended where no close follows, and
        // values left open.
        ("<function name=\"", "repeated MiniCPM call"),
        ("<function x", "repeated `<function `"),
        ("<functionname=\"f\"><paramname=\"", "repeated collapsed MiniCPM tags"),
        (
            "<function name=\"f\"><param name=\"a\">x",
            "repeated unclosed MiniCPM values",
        ),
        ("<param name=\"a\">x", "repeated MiniCPM parameters"),
        (
            "<function name=\"f\"><param name=\"a\"><![CDATA[",
            "repeated MiniCPM CDATA",
        ),
        ("]]>x", "repeated `]]>`"),
        (
            "<think><function name=\"f\"><param name=\"a\"><![CDATA[x]]>",
            "unclosed think, MiniCPM CDATA ends",
        ),
        (
            "<think><function name=\"f\"><param name=\"a\"><![CDATA[x]]><param name=\"b\">",
            "unclosed think, MiniCPM CDATA values",
        ),
        (
            "<think><function name=\"f\"><param name=\"a\">x",
            "unclosed think, MiniCPM values",
        ),
        // The #27 variants: Gemma 4 without `call`, K2-Horizon, Laguna's name line.
        ("<|tool_call>:", "repeated Gemma `:NAME` call"),
        ("<|tool_call>:f{a:", "repeated Gemma `:NAME` nesting"),
        ("<ifm|tool_calls><ifm|tool_call>", "repeated K2-Horizon call"),
        (
            "<ifm|arg_key>a</ifm|arg_key><ifm|arg_value>x",
            "repeated K2-Horizon values",
        ),
        ("<tool_call>f\n{\"a\": ", "repeated Laguna call"),
    ];
    // Reasoning and content wrappers, read by `parse_message` (content and reasoning rules).
    let message_patterns = [
        ("<|channel>", "repeated Gemma 4 channel"),
        ("<channel|>", "repeated Gemma 4 channel close"),
        ("<|channel>x<channel|>", "repeated Gemma 4 blocks"),
        ("<answer>", "repeated Hunyuan `<answer>`"),
        ("</answer>", "repeated Hunyuan `</answer>`"),
        ("Here is my thought process: ", "repeated Granite thought phrase"),
        ("Here is my response: ", "repeated Granite response phrase"),
        ("<|END_THINKING|>", "repeated Command A close"),
        ("<|START_TEXT|>", "repeated Command A text"),
        ("<|START_RESPONSE|>", "repeated Command R7B response"),
        ("<|think|>", "repeated Solar-Open think"),
        ("<|begin|>assistant<|content|>", "repeated Solar-Open headers"),
        ("</｜DSML｜tool_calls>", "repeated DSML close"),
        ("<｜tool▁output▁begin｜>", "repeated DeepSeek output"),
    ];
    let filter = std::env::args().nth(1).unwrap_or_default();
    println!("{:<34} {:>10} {:>12} {:>12}", "input", "size", "time", "ns/byte");
    let calls = patterns.into_iter().map(|(unit, label)| (unit, label, false));
    let messages = message_patterns.into_iter().map(|(unit, label)| (unit, label, true));
    for (unit, label, message) in calls.chain(messages).filter(|(_, label, _)| label.contains(&filter)) {
        for size in [1usize << 20, 4 << 20, 16 << 20] {
            let text = unit.repeat(size / unit.len());
            let t = Instant::now();
            let outcome = if message {
                match beacon_core::parse_message(&text, beacon_core::MessageOptions::default()) {
                    Ok(m) => format!("{} calls, {} bytes of content", m.tool_calls.len(), m.content.len()),
                    Err(e) => e.code.as_str().to_string(),
                }
            } else {
                match beacon_core::parse_tool_calls(&text) {
                    Ok(calls) => format!("{} calls", calls.len()),
                    Err(e) => e.code.as_str().to_string(),
                }
            };
            let dt = t.elapsed();
            println!(
                "{:<34} {:>9}K {:>10.2}ms {:>12.3}  {}",
                label,
                text.len() >> 10,
                dt.as_secs_f64() * 1e3,
                dt.as_nanos() as f64 / text.len() as f64,
                outcome
            );
        }
    }
}
