"""A template's reasoning tags (`describe()["reasoning"]`), inferred from renders with and without
the model's reasoning: for every template (the shared ones and those written here, unseen/) whose
spec has them, a turn of reasoning (holding a call of its own format, which must not count) and a
call, rendered with jinja2 as the model writes it (after the generation prompt, so a block the
prompt opens shows only its close tag), parses with the spec alone (`formats=[]`) into that
reasoning and that call."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import beacon
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import _render  # noqa: E402

SHARED = ROOT.parent / "shared" / "chat-templates"
UNSEEN = ROOT / "tests" / "fixtures" / "template" / "unseen"
REASONING = "The user wants the weather. I will ask the tool for Paris."
CALLS = [("get_weather", {"city": "Paris"})]
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "The weather.", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]

#: Templates whose inferred reasoning tags are not the model's reasoning block, and why.
NOT_READ = {
    # The turn's header and the phrase that ends the reasoning: the generation prompt writes
    # more than the header, so the spec does not take the block as prompt-opened.
    "Apriel-1.6-15b-Thinker-fixed": "the block opens with the turn's header",
}


#: Templates that write the reasoning of a turn without calls, but not of a turn with calls.
DROPS_WITH_CALLS = {"Reka-Edge", "deepseek-ai-DeepSeek-V3.2"}


def names() -> List[str]:
    return sorted(p.stem for p in SHARED.glob("*.jinja")) + sorted(p.stem for p in UNSEEN.glob("*.jinja"))


def spec_of(name: str):
    source = Path(_render.template_path(name)).read_text("utf-8")
    try:
        spec = beacon.FormatSpec.from_template(source, bos_token="<s>", eos_token="</s>")
        spec._compiled()  # gpt-oss's spec infers, but its calls cannot be found by it
    except beacon.ToolCallError:
        return None
    return spec


def turn(name: str, reasoning: str) -> Optional[str]:
    """The turn as the model writes it, the reasoning under whichever key the template reads;
    None when the template writes no reasoning beside a call."""
    for fields in (None, {"thinking": reasoning}, {"reasoning": reasoning}):
        try:
            text = _render.assistant_turn(name, calls=CALLS, reasoning=reasoning if fields is None else None,
                                          tools=TOOLS, ids=["call0Xyz9"], turn_fields=fields)
        except Exception:  # noqa: BLE001 - jinja2 cannot render this turn with this template
            continue
        if reasoning in text:
            return text
    return None


WITH_REASONING = [n for n in names() if (s := spec_of(n)) is not None and "reasoning" in s.describe()]


def test_templates_give_reasoning_tags() -> None:
    assert "novel-reasoning-style" in WITH_REASONING
    assert len(WITH_REASONING) >= 25, WITH_REASONING


def test_the_templates_that_drop_reasoning_beside_calls_still_do() -> None:
    for name in DROPS_WITH_CALLS:
        assert name in WITH_REASONING and turn(name, REASONING) is None, name


@pytest.mark.parametrize("name", [n for n in WITH_REASONING if n not in NOT_READ and n not in DROPS_WITH_CALLS])
def test_reasoning_reads_apart_from_the_call(name: str) -> None:
    spec = spec_of(name)
    # A call in the reasoning, in the model's own format, is reasoning text: the call after the
    # block is the one returned.
    inner = beacon.format_calls([{"id": "call9Xyz9", "name": "get_time", "arguments": {}}], template=spec)
    reasoning = f"{REASONING} {inner} No, the weather."
    text = turn(name, reasoning)
    assert text is not None, f"{name} writes no reasoning beside a call: list it in DROPS_WITH_CALLS"
    message = beacon.parse_message(text, formats=[], template=spec, tools=TOOLS)
    assert [(c["name"], c["arguments"]) for c in message["tool_calls"]] == CALLS, (text, message)
    assert (message["reasoning"] or "").strip() == reasoning, (text, message)
    # Streamed one and five code points at a time, the same.
    for size in (1, 5):
        stream = beacon.ToolCallStream(formats=[], template=spec, tools=TOOLS)
        events = [e for i in range(0, len(text), size) for e in stream.feed(text[i : i + size])] + stream.finish()
        assert "".join(e["text"] for e in events if e["type"] == "reasoning").strip() == reasoning, size
        assert [e["name"] for e in events if e["type"] == "call_start"] == ["get_weather"], size


def test_a_spec_written_by_hand_reads_its_reasoning() -> None:
    spec = beacon.FormatSpec.from_dict({
        "call": "json_object", "section": {"start": "", "end": ""},
        "call_markers": {"start": "<call>", "end": "</call>"}, "separator": "",
        "name_key": "name", "arguments_key": "arguments", "arguments": "json_object",
        "reasoning": {"start": "<muse>", "end": "</muse>", "prompt_opened": True},
    })
    text = 'I think <call>{"name": "no", "arguments": {}}</call></muse>Sure.<call>{"name": "f", "arguments": {"a": 1}}</call>'
    message = beacon.parse_message(text, formats=[], template=spec)
    assert message["reasoning"] == 'I think <call>{"name": "no", "arguments": {}}</call>'
    assert message["content"] == "Sure." and [c["name"] for c in message["tool_calls"]] == ["f"]
    opened = beacon.parse_message("<muse>hmm</muse>ok", formats=[], template=spec)
    assert (opened["reasoning"], opened["content"]) == ("hmm", "ok")
    with pytest.raises(beacon.ToolCallError) as err:
        beacon.FormatSpec.from_dict({**spec.describe(), "reasoning": {"start": "<muse>", "end": ""}})._compiled()
    assert err.value.code == "result.missing_field"


WITH_END = [n for n in names() if (s := spec_of(n)) is not None and "end_of_turn" in s.describe()]
WITH_WRAPPER = [n for n in names() if (s := spec_of(n)) is not None and "content" in s.describe()]


def test_templates_give_their_end_of_turn() -> None:
    assert "novel-reasoning-style" in WITH_END and len(WITH_END) >= 35, WITH_END


def test_templates_give_their_content_wrapper() -> None:
    assert {"Cohere2MoE", "CohereForAI-c4ai-command-r7b-12-2024-tool_use"} <= set(WITH_WRAPPER), WITH_WRAPPER


@pytest.mark.parametrize("name", sorted(set(WITH_END) | set(WITH_WRAPPER)))
def test_the_end_of_turn_is_not_content(name: str) -> None:
    """A turn of content only, as the model writes it, reads as that content: the template's
    end-of-turn token (`describe()["end_of_turn"]`) and content wrapper (`"content"`) are left
    out, as the built-in ones are."""
    spec = spec_of(name)
    user = [{"role": "user", "content": "What is the weather in Paris?"}]
    full = _render.render(name, user + [{"role": "assistant", "content": "All done here."}], tools=TOOLS)
    prompt = _render.render(name, user, tools=TOOLS, add_generation_prompt=True)
    # What the model writes: the turn after the generation prompt (or, where the prompt differs
    # from the turn's start, from the token where they part).
    same = next((i for i, (a, b) in enumerate(zip(full, prompt)) if a != b), min(len(full), len(prompt)))
    text = full[len(prompt):] if full.startswith(prompt) else full[_render._token_start(full, same):]
    described = spec.describe()
    for tag in [described.get("end_of_turn", ""), *described.get("content", {}).values()]:
        assert tag.strip() in text, (tag, text)
    # The model stops at its end-of-turn token (Command R7B's template writes the next turn's
    # header after it).
    end = described.get("end_of_turn", "").strip()
    if end:
        text = text[: text.index(end) + len(end)]
    message = beacon.parse_message(text, formats=[], template=spec)
    assert message["content"].strip() == "All done here.", (text, message)
    for size in (1, 3):
        stream = beacon.ToolCallStream(formats=[], template=spec)
        events = [e for i in range(0, len(text), size) for e in stream.feed(text[i : i + size])] + stream.finish()
        assert "".join(e["text"] for e in events if e["type"] == "content") == message["content"], size
