//! What a chat template writes around the calls of an assistant turn besides them: the tags of
//! the model's reasoning, and the token that ends the turn.
//!
//! - Reasoning: the turn rendered with the probe's reasoning and without it; what the first adds
//!   around the reasoning text is the block's open and close tag. Where the template writes the
//!   tags in both renders (an empty block when there is no reasoning), the tags are the
//!   bracketed words that stand right around the reasoning. The generation prompt, rendered with
//!   thinking on, tells whether the prompt opens the block.
//! - End of turn: the bracketed word that follows a turn's calls and ends a turn of content.
//! - Content wrapper: the bracketed words the model writes before a turn's content (after the
//!   generation prompt, and after an empty reasoning block of the spec's tags) but not before its
//!   calls, and those between the content and the end of the turn.

use super::probe::{common_prefix, common_suffix, obj, probe_id, s, tools, Renders};
use super::render::Renderer;
use crate::formats::spec::FormatSpec;
use crate::value::Value;

/// The probe's reasoning: text no template writes of its own.
const REASONING: &str = "Probe reasoning: the user asks about the weather in Paris.";

/// The probe's content after the reasoning.
const CONTENT: &str = "Okay.";

/// The message keys templates read the reasoning from, in the order tried.
const FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

/// A conversation whose assistant turn holds `CONTENT` (and, with `call`, a call to the probe's
/// `get_weather`, its arguments an object or, with `Some(true)`, JSON text) and, under `field`,
/// the probe's reasoning; thinking on (`enable_thinking`), and with the generation prompt when
/// `prompt` (the assistant turn left out).
fn conversation(field: Option<&str>, prompt: bool, call: Option<bool>) -> Value {
    let user = obj(vec![
        ("role", s("user")),
        ("content", s("What is the weather in Paris?")),
    ]);
    let mut messages = vec![user];
    if !prompt {
        let mut turn = vec![("role", s("assistant")), ("content", s(CONTENT))];
        if let Some(as_text) = call {
            let arguments = obj(vec![("city", s("Paris"))]);
            let arguments = if as_text { s(&arguments.to_json()) } else { arguments };
            let function = obj(vec![("name", s("get_weather")), ("arguments", arguments)]);
            let id = s(&probe_id(0));
            turn.push((
                "tool_calls",
                Value::Array(vec![obj(vec![
                    ("id", id),
                    ("type", s("function")),
                    ("function", function),
                ])]),
            ));
        }
        if let Some(field) = field {
            turn.push((field, s(REASONING)));
        }
        messages.push(obj(turn));
    }
    obj(vec![
        ("messages", Value::Array(messages)),
        ("tools", tools()),
        ("add_generation_prompt", Value::Bool(prompt)),
        ("enable_thinking", Value::Bool(true)),
    ])
}

/// Sets `spec`'s reasoning tags and end-of-turn token from the template's renders; leaves each
/// empty where the template writes none.
pub(super) fn infer(renderer: &Renderer, renders: &Renders, spec: &mut FormatSpec) {
    let Ok(without) = renderer.render(&conversation(None, false, None)) else {
        return;
    };
    spec.end_of_turn = end_of_turn(renders, &without).unwrap_or_default();
    let wrapper = content_wrapper(renderer, renders, &without);
    // A turn of content first; then a turn with a call, for templates that keep the reasoning
    // only of turns that call tools (Kimi K2 Thinking's).
    for call in [None, Some(false), Some(true)] {
        let Ok(without) = renderer.render(&conversation(None, false, call)) else {
            continue;
        };
        let found = FIELDS.iter().find_map(|&field| {
            let with = renderer.render(&conversation(Some(field), false, call)).ok()?;
            tags(renders, &with, &without)
        });
        let Some((start, end)) = found else {
            continue;
        };
        spec.reasoning_prompt_opened = renderer
            .render(&conversation(None, true, None))
            .ok()
            .is_some_and(|prompt| {
                let added = &prompt[common_prefix(&prompt, &without).min(prompt.len())..];
                added.trim_end().ends_with(start.trim())
            });
        spec.reasoning_start = start;
        spec.reasoning_end = end;
        break;
    }
    if let Some((start, end)) = wrapper.and_then(|(pre, post)| wrapper_tags(spec, &pre, &post)) {
        spec.content_start = start;
        spec.content_end = end;
    }
}

/// What the model writes before and after `CONTENT` in the turn rendered as `content_turn` (the
/// generation prompt taken off), when the turn with one call does not begin as it does.
fn content_wrapper(renderer: &Renderer, renders: &Renders, content_turn: &str) -> Option<(String, String)> {
    let prompt = renderer.render(&conversation(None, true, None)).ok()?;
    let written = |full: &str| {
        let at = common_prefix(full, &prompt).min(full.len());
        renders.outside_tokens(full, at, false)
    };
    let turn = &content_turn[written(content_turn)..];
    let at = turn.find(CONTENT)?;
    let (pre, post) = (&turn[..at], &turn[at + CONTENT.len()..]);
    let call_turn = &renders.one[written(&renders.one)..];
    let pre_tags = pre.trim();
    (!pre_tags.is_empty() && !call_turn.trim_start().starts_with(pre_tags)).then(|| (pre.to_owned(), post.to_owned()))
}

/// The content wrapper's tags from the text before and after the content: before it, less an
/// empty reasoning block of the spec's tags; after it, up to the end of the turn. Both bracketed
/// words (the close tag may be empty).
fn wrapper_tags(spec: &FormatSpec, pre: &str, post: &str) -> Option<(String, String)> {
    let mut open = pre.trim();
    let (r_open, r_close) = (spec.reasoning_start.trim(), spec.reasoning_end.trim());
    if !r_close.is_empty() {
        if let Some(rest) = open.strip_prefix(r_open).filter(|_| !r_open.is_empty()) {
            open = rest.trim_start().strip_prefix(r_close).unwrap_or(open).trim_start();
        } else if let Some(rest) = open.strip_prefix(r_close) {
            open = rest.trim_start();
        }
    }
    let post = post.trim_start();
    let end = spec.end_of_turn.trim();
    let close = if end.is_empty() { post } else { &post[..post.find(end)?] }.trim();
    (bracketed(open) && (close.is_empty() || bracketed(close))).then(|| (open.to_owned(), close.to_owned()))
}

/// A bracketed word (or words) without white space: `<|end|>`, `[/REPLY]`,
/// `<|channel|>final<|message|>`.
fn bracketed(t: &str) -> bool {
    t.len() <= 64
        && !t.contains(char::is_whitespace)
        && (t.starts_with('<') || t.starts_with('['))
        && (t.ends_with('>') || t.ends_with(']'))
}

/// The bracketed word that follows the call of the probe turn with one call (white space before
/// it kept), when it also ends the turn rendered as `content_turn`: after the content, past at
/// most bracketed words of the content's own (its wrapper's close).
fn end_of_turn(renders: &Renders, content_turn: &str) -> Option<String> {
    let one = renders.one.as_str();
    let call = renders.call_text(one);
    let after_call = call.as_ptr() as usize - one.as_ptr() as usize + call.len();
    let token = &one[after_call..tag_after(one, after_call)?];
    let post = &content_turn[content_turn.rfind(CONTENT)? + CONTENT.len()..];
    let between = post[..post.find(token.trim())?].trim();
    (between.is_empty() || bracketed(between)).then(|| token.to_owned())
}

/// The open and close tag around the probe's reasoning in `with`, as the template writes them
/// (white space kept), from what `with` adds to `without`.
fn tags(renders: &Renders, with: &str, without: &str) -> Option<(String, String)> {
    let at = with.find(REASONING)?;
    let after = at + REASONING.len();
    let from = renders.outside_tokens(with, common_prefix(with, without).min(at), false);
    let to = with.len() - common_suffix(&with[after..], without);
    let to = renders.outside_tokens(with, to, true).max(after);
    let (mut start, mut end) = (&with[from..at], &with[after..to]);
    // The template writes the tags without reasoning too (an empty block): they are the
    // bracketed words right around the reasoning.
    if start.trim().is_empty() {
        start = &with[tag_before(with, at)?..at];
    }
    if end.trim().is_empty() {
        end = &with[after..tag_after(with, after)?];
    }
    let (open, close) = (start.trim(), end.trim());
    let tag_like = |t: &str| !t.is_empty() && !t.contains(CONTENT) && t.len() <= 64;
    (tag_like(open) && tag_like(close) && open != close).then(|| (start.to_owned(), end.to_owned()))
}

/// Where the bracketed word that ends `text[..at]` (after white space) starts.
fn tag_before(text: &str, at: usize) -> Option<usize> {
    let head = text[..at].trim_end();
    let close = head.chars().next_back()?;
    let open = match close {
        '>' => '<',
        ']' => '[',
        _ => return None,
    };
    let start = head.rfind(open)?;
    (!head[start..].contains(char::is_whitespace)).then_some(start)
}

/// Where the bracketed word that starts `text[at..]` (after white space) ends.
fn tag_after(text: &str, at: usize) -> Option<usize> {
    let tail = &text[at..];
    let lead = tail.len() - tail.trim_start().len();
    let rest = &tail[lead..];
    let close = match rest.chars().next()? {
        '<' => '>',
        '[' => ']',
        _ => return None,
    };
    let end = rest.find(close)? + 1;
    (!rest[..end].contains(char::is_whitespace)).then_some(at + lead + end)
}

#[cfg(test)]
mod tests {
    use super::super::probe::infer;
    use super::super::render::ChatTemplate;

    /// A template with reasoning tags of its own, written only where the turn has reasoning,
    /// and a generation prompt that opens the block.
    const TAGGED: &str = "{% for m in messages %}<|{{ m.role }}|>{% if m.reasoning_content %}<|reason|>{{ m.reasoning_content }}<|/reason|>{% endif %}{% if m.tool_calls %}{% for c in m.tool_calls %}<call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|><|reason|>{% endif %}";

    /// The same, but the template writes an empty block when the turn has no reasoning, and the
    /// prompt does not open it.
    const ALWAYS: &str = "{% for m in messages %}<|{{ m.role }}|>{% if m.role == 'assistant' %}[THOUGHT]\n{{ m.thinking or '' }}\n[/THOUGHT]\n{% endif %}{% if m.tool_calls %}{% for c in m.tool_calls %}<call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";

    #[test]
    fn reasoning_tags_come_from_the_renders() {
        let spec = infer(&ChatTemplate::new(TAGGED)).unwrap();
        assert_eq!(
            (
                spec.reasoning_start.as_str(),
                spec.reasoning_end.as_str(),
                spec.reasoning_prompt_opened
            ),
            ("<|reason|>", "<|/reason|>", true)
        );
        let spec = infer(&ChatTemplate::new(ALWAYS)).unwrap();
        assert_eq!(
            (
                spec.reasoning_start.trim(),
                spec.reasoning_end.trim(),
                spec.reasoning_prompt_opened
            ),
            ("[THOUGHT]", "[/THOUGHT]", false)
        );
    }

    #[test]
    fn the_end_of_turn_follows_content_and_calls() {
        let spec = infer(&ChatTemplate::new(TAGGED)).unwrap();
        assert_eq!(spec.end_of_turn, "<|end|>");
        assert_eq!((spec.content_start.as_str(), spec.content_end.as_str()), ("", ""));
    }

    #[test]
    fn a_content_wrapper_is_written_around_content_only() {
        let t = "{% for m in messages %}<|{{ m.role }}|>{% if m.tool_calls %}{% for c in m.tool_calls %}<call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</call>{% endfor %}{% elif m.role == 'assistant' %}<reply>{{ m.content }}</reply>{% else %}{{ m.content }}{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
        let spec = infer(&ChatTemplate::new(t)).unwrap();
        assert_eq!(
            (spec.content_start.as_str(), spec.content_end.as_str()),
            ("<reply>", "</reply>")
        );
        assert_eq!(spec.end_of_turn, "<|end|>");
    }

    #[test]
    fn reasoning_kept_only_in_turns_that_call_tools_is_found_there() {
        let t = "{% for m in messages %}<|{{ m.role }}|>{% if m.tool_calls %}<seek>{{ m.reasoning_content or '' }}</seek>{% for c in m.tool_calls %}<call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</call>{% endfor %}{% else %}{{ m.content }}{% endif %}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";
        let spec = infer(&ChatTemplate::new(t)).unwrap();
        assert_eq!(
            (
                spec.reasoning_start.as_str(),
                spec.reasoning_end.as_str(),
                spec.reasoning_prompt_opened
            ),
            ("<seek>", "</seek>", false)
        );
    }

    #[test]
    fn a_template_without_reasoning_gives_no_tags() {
        let t = "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}<call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</call>{% endfor %}{% else %}{{ m.content }}{% endif %}{% endfor %}";
        let spec = infer(&ChatTemplate::new(t)).unwrap();
        assert_eq!((spec.reasoning_start.as_str(), spec.reasoning_end.as_str()), ("", ""));
        assert_eq!(spec.end_of_turn, "");
    }
}
