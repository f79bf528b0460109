//! Tokens the scanner and the content rule take out of a message's text: end-of-turn tokens,
//! the headers of content messages, and the wrapper tags around some families' calls.

/// Tokens that end a turn or a message. They are taken out of the content wherever they stand.
pub(crate) const END_TOKENS: &[&str] = &[
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|eot|>",
    "<|eom|>",
    "</s>",
    "<｜end▁of▁sentence｜>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|assistant_end|>",
    "<end_of_turn>",
    "<turn|>",
    "<|tool_response>",
    "<seed:eos>",
    "</longcat_s>",
    "<|observation|>",
    "<|user|>",
    "<|message_sep|>",
];

/// Headers of messages whose text is content (gpt-oss Harmony's final channel and its
/// commentary preambles, GigaChat's assistant messages): taken out of the content wherever they
/// stand, their text kept.
pub(crate) const CONTENT_HEADERS: &[&str] = &[
    "<|start|>assistant<|channel|>final<|message|>",
    "<|start|>assistant<|channel|>commentary<|message|>",
    "<|channel|>final<|message|>",
    "<|channel|>commentary<|message|>",
    "<|start|>assistant",
    // Command R7B's response and Command A's text wrappers, and DeepSeek V3's tool outputs: the
    // text between them is what the user sees.
    "<|START_RESPONSE|>",
    "<|END_RESPONSE|>",
    "<|START_TEXT|>",
    "<|END_TEXT|>",
    "<｜tool▁outputs▁begin｜>",
    "<｜tool▁outputs▁end｜>",
    "<｜tool▁output▁begin｜>",
    "<｜tool▁output▁end｜>",
    // Solar-Open's assistant headers: `<|begin|>assistant` opens each message of the turn (the
    // think message, the calls, the content message), `<|content|>` the content message.
    "<|begin|>assistant<|content|>",
    "<|begin|>assistant",
    "<|content|>",
    // Functionary v3.2's content header (the recipient `all`): the text after it is content.
    ">>>all\n",
    // GigaChat 3's assistant message after another (the template's `<|message_sep|>\n\n`, then
    // the role): taken out whole, which the longest match gives over `<|message_sep|>` alone.
    "<|message_sep|>\n\nassistant<|role_sep|>",
];

/// Wrapper tags that some families put around their calls without the call parser consuming
/// them (it starts at the inner marker). They are taken out of the content when the text has calls
/// (also when `unknown = drop` then drops them all).
pub(crate) const WRAPPERS: &[&str] = &[
    "<function_calls>",
    "</function_calls>",
    "<minimax:tool_call>",
    "</minimax:tool_call>",
    "<seed:tool_call>",
    "</seed:tool_call>",
    "<tool_calls>",
    "</tool_calls>",
    // DeepSeek DSML's block close, when the model wrote the invokes without the block's opener.
    "</｜DSML｜function_calls>",
    "</｜DSML｜tool_calls>",
    "</|DSML|function_calls>",
    "</|DSML|tool_calls>",
];

/// Hunyuan-A13B's answer wrapper (`<think>…</think>\n<answer>\n…\n</answer>`). The open tag is
/// taken out of the content only where the content starts (nothing but whitespace and removed
/// pieces before it), and the close tag only as the first one after that open tag; anywhere else
/// both are text.
pub(crate) const ANSWER_OPEN: &str = "<answer>";
pub(crate) const ANSWER_CLOSE: &str = "</answer>";
