"""What format_calls and format_results write for OpenAI and Anthropic is what those APIs take:
every message is validated against the request types of the official SDKs (``openai`` and
``anthropic`` from PyPI, pinned in requirements-dev.txt; no network), strictly: no unknown key,
no wrong type, nothing coerced, and validating gives back exactly the message written.

A whole agent turn is checked as the SDKs see it: the assistant message that carries the calls,
then the tool results, for Chat Completions, the Responses API and Anthropic Messages."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionAssistantMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputItemParam
from pydantic import ConfigDict, TypeAdapter

import beacon

# Strict and closed: a key the SDK does not know is an error, and so is any coercion. (The
# config goes on a list because pydantic takes none on a TypedDict itself; nested TypedDicts
# without their own config use it.)
STRICT = ConfigDict(extra="forbid", strict=True)

OPENAI_ASSISTANT = TypeAdapter(List[ChatCompletionAssistantMessageParam], config=STRICT)
OPENAI_TOOL = TypeAdapter(List[ChatCompletionToolMessageParam], config=STRICT)
RESPONSES_ITEMS = TypeAdapter(List[ResponseInputItemParam], config=STRICT)
ANTHROPIC_MESSAGES = TypeAdapter(List[MessageParam], config=STRICT)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

CALLS: List[Dict[str, Any]] = [
    {"id": "call_a1", "name": "get_weather", "arguments": {"city": "Zürich", "unit": "celsius"}},
    {"id": "call_b2", "name": "search", "arguments": {"q": "日本 \"quoted\"\n", "limit": 5, "ratio": 0.25,
                                                       "filters": {"tags": ["a", None, True]}}},
    {"id": "call_c3", "name": "get_time", "arguments": {}},
]


def _materialised(value: Any) -> Any:
    """The validated value as plain lists and dicts: pydantic validates ``Iterable`` fields lazily,
    so walking them is what runs (and raises) their validation."""
    if isinstance(value, dict):
        return {k: _materialised(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, bytes, int, float, bool)):
        return value
    return [_materialised(v) for v in value]


def validate(adapter: TypeAdapter[Any], messages: List[Any]) -> None:
    """``messages`` are valid for ``adapter`` and come back unchanged."""
    assert _materialised(adapter.validate_python(messages)) == messages


# --------------------------------------------------------------------------- the checker itself


def test_the_checker_rejects_what_the_sdks_reject() -> None:
    """The strict validation catches the mistakes a writer could make, so a pass means something."""
    good = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    validate(OPENAI_ASSISTANT, [good])
    bad_messages = [
        # arguments as an object instead of a JSON string
        {**good, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}]},
        # no id
        {**good, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        # an unknown key
        {**good, "extra": 1},
    ]
    for bad in bad_messages:
        with pytest.raises(Exception):
            validate(OPENAI_ASSISTANT, [bad])
    with pytest.raises(Exception):
        validate(ANTHROPIC_MESSAGES, [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "fruit"}]}]}])


# --------------------------------------------------------------------------- OpenAI Chat Completions


@pytest.mark.parametrize("content", [None, "", "Let me check both."])
def test_openai_chat_assistant_message(content: Any) -> None:
    message = beacon.format_calls(CALLS, "openai_chat", content=content)
    validate(OPENAI_ASSISTANT, [message])
    # What the SDK sends is what parse_response reads back.
    assert beacon.parse_response(message, provider="openai_chat") == CALLS


def test_openai_chat_assistant_message_without_calls() -> None:
    validate(OPENAI_ASSISTANT, [beacon.format_calls([], "openai_chat", content="Paris is sunny.")])


def test_openai_chat_tool_messages() -> None:
    results = [
        {"id": "call_a1", "name": "get_weather", "content": "22°C"},
        {"id": "call_b2", "name": "search", "content": {"hits": [1, 2]}},
        {"id": "call_c3", "name": "get_time", "content": "no clock", "is_error": True},
        # text parts pass through as parts
        {"id": "call_d4", "content": [{"type": "text", "text": "22°C"}, {"type": "text", "text": "clear"}]},
    ]
    messages = beacon.format_results(results, "openai_chat")
    validate(OPENAI_TOOL, messages)
    assert messages[3]["content"] == results[3]["content"]


# --------------------------------------------------------------------------- OpenAI Responses


@pytest.mark.parametrize("content", [None, "Let me check both."])
def test_openai_responses_items(content: Any) -> None:
    items = beacon.format_calls(CALLS, "openai_responses", content=content)
    validate(RESPONSES_ITEMS, items)
    assert beacon.parse_response(items, provider="openai_responses") == CALLS


def test_openai_responses_function_call_outputs() -> None:
    results = [
        {"id": "call_a1", "content": "22°C"},
        {"id": "call_b2", "content": {"hits": [1, 2]}},
        {"id": "call_c3", "content": [
            {"type": "input_text", "text": "Chart:"},
            {"type": "input_image", "image_url": "data:image/png;base64," + PNG, "detail": "auto"},
        ]},
    ]
    items = beacon.format_results(results, "openai_responses")
    validate(RESPONSES_ITEMS, items)
    assert items[2]["output"] == results[2]["content"]


# --------------------------------------------------------------------------- Anthropic Messages


@pytest.mark.parametrize("content", [None, "", "Let me check both."])
def test_anthropic_assistant_message(content: Any) -> None:
    message = beacon.format_calls(CALLS, "anthropic", content=content)
    validate(ANTHROPIC_MESSAGES, [message])
    assert beacon.parse_response(message, provider="anthropic") == CALLS


def test_anthropic_tool_results_in_a_user_message() -> None:
    blocks = [
        {"type": "text", "text": "Chart for ACME:"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    ]
    results = [
        {"id": "call_a1", "name": "get_weather", "content": "22°C"},
        {"id": "call_b2", "name": "search", "content": {"hits": [1, 2]}},
        {"id": "call_c3", "name": "chart", "content": blocks},
        {"id": "call_d4", "name": "chart", "content": [{"type": "text", "text": "no data"}], "is_error": True},
    ]
    message = {"role": "user", "content": beacon.format_results(results, "anthropic")}
    validate(ANTHROPIC_MESSAGES, [message])
    assert message["content"][2]["content"] == blocks


# --------------------------------------------------------------------------- a whole turn


def test_a_local_model_turn_as_openai_and_anthropic_messages() -> None:
    """Text from a local model → parse_message(ids="generate") → format_calls → results →
    format_results, as the conversation each SDK would send."""
    text = (
        "<think>Two cities.</think>Checking both.\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>'
    )
    m = beacon.parse_message(text, ids="generate")
    calls = [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in m["tool_calls"]]
    results = [{"id": c["id"], "name": c["name"], "content": f"22°C in {c['arguments']['city']}"} for c in calls]

    chat = [beacon.format_calls(calls, "openai_chat", content=m["content"])]
    validate(OPENAI_ASSISTANT, chat)
    validate(OPENAI_TOOL, beacon.format_results(results, "openai_chat"))
    assert chat[0]["content"] == "Checking both."

    validate(ANTHROPIC_MESSAGES, [
        {"role": "user", "content": "Weather in Paris and Zürich?"},
        beacon.format_calls(calls, "anthropic", content=m["content"]),
        {"role": "user", "content": beacon.format_results(results, "anthropic")},
    ])
