"""parse_message through the Python API (the fixture runner checks every case's message
counterpart; these check the binding: keys, code-point spans, ids, options and their errors),
and SDK objects given to parse_response (the real openai and anthropic packages, objects built
locally: no network)."""

from __future__ import annotations

import pytest

import beacon
from beacon import ToolCallError, ToolCallStream, parse_message, parse_response

HERMES = '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>'


def test_message_shape_and_code_point_spans() -> None:
    text = "<think>Plan 😀.</think>Checking 😀.\n" + HERMES + "<|im_end|>"
    message = parse_message(text)
    assert message == {
        "content": "Checking 😀.",
        "reasoning": "Plan 😀.",
        "tool_calls": [
            {
                "id": None,
                "name": "get_weather",
                "arguments": {"city": "Zürich"},
                "format": "hermes",
                "span": [text.index("<tool_call>"), text.index("<|im_end|>")],
            }
        ],
    }
    start, end = message["tool_calls"][0]["span"]
    assert text[start:end] == HERMES


def test_no_call_is_no_error() -> None:
    assert parse_message("Just prose.") == {"content": "Just prose.", "reasoning": None, "tool_calls": []}
    assert parse_message("") == {"content": "", "reasoning": None, "tool_calls": []}


def test_native_ids_are_kept_and_seeded_ids_are_deterministic() -> None:
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    assert parse_message(kimi)["tool_calls"][0]["id"] == "functions.get_weather:0"
    assert parse_message(kimi, ids="generate")["tool_calls"][0]["id"] == "functions.get_weather:0"
    assert parse_message(kimi, id_seed="s")["tool_calls"][0]["id"] == "functions.get_weather:0"
    two = HERMES + "\n" + HERMES.replace("Zürich", "Paris")
    assert [c["id"] for c in parse_message(two)["tool_calls"]] == [None, None]
    for opts in ({"ids": "generate"}, {"id_seed": "request-42"}):
        ids = [c["id"] for c in parse_message(two, **opts)["tool_calls"]]
        assert len(set(ids)) == 2, opts
        for call_id in ids:
            assert call_id.startswith("call_") and len(call_id) == 29 and call_id[5:].isalnum()
    ids = [c["id"] for c in parse_message(two, id_seed="request-42")["tool_calls"]]
    assert ids == [c["id"] for c in parse_message(two, ids="generate", id_seed="request-42")["tool_calls"]]
    assert ids != [c["id"] for c in parse_message(two, id_seed="request-43")["tool_calls"]]
    # A seeded id hashes the text before the call's marker (a stream gives it when the call starts).
    assert parse_message(two + " ", id_seed="request-42")["tool_calls"][0]["id"] == ids[0]
    other = parse_message("Sure. " + two, id_seed="request-42")["tool_calls"][0]["id"]
    assert other != ids[0]


# The same ids as core/tests/message.rs and tests/js/api.test.mjs pin (from an independent
# implementation of the derivation): equal on every target.
TWO = '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {}}</tool_call>'
SEEDED = ["call_DRWNE4fNQq0wjbTbFjsPK57j", "call_q0xFUBWyv7BeWy9kSjPAcFwJ"]


def test_seeded_ids_are_the_same_on_every_target() -> None:
    assert [c["id"] for c in parse_message(TWO, id_seed="request-42")["tool_calls"]] == SEEDED
    stream = ToolCallStream(id_seed="request-42", start="content")
    events = [e for piece in (TWO[:30], TWO[30:70], TWO[70:]) for e in stream.feed(piece)] + stream.finish()
    assert [e["id"] for e in events if e["type"] == "call_start"] == SEEDED


def test_generated_ids_are_unique_across_outputs() -> None:
    """#26 item 13: three outputs that open with a call to the same tool got one id."""
    outputs = [
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Berlin"}}]',
    ]
    ids = [parse_message(text, ids="generate")["tool_calls"][0]["id"] for text in outputs * 20]
    assert len(set(ids)) == len(ids), ids

    def streamed_id(text: str) -> str:
        stream = ToolCallStream(ids="generate")
        events = stream.feed(text) + stream.finish()
        return next(e["id"] for e in events if e["type"] == "call_start")

    assert streamed_id(outputs[0]) != streamed_id(outputs[0])


def test_options_and_their_errors() -> None:
    text = HERMES + ' f(x=1)'
    assert [c["format"] for c in parse_message(text, formats=["python"])["tool_calls"]] == ["python"]
    # A call found in the prose (tier 3) is no content: the Hermes tag, not a format here, is.
    assert parse_message(text, formats=["python"])["content"] == HERMES
    with pytest.raises(ValueError, match="hermes, bracket"):
        parse_message(text, formats=["nope"])
    with pytest.raises(TypeError):
        parse_message(text, formats="hermes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match='ids must be None .* or "generate", not "uuid"'):
        parse_message(text, ids="uuid")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'ids' must be str or None, not bool"):
        parse_message(text, ids=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'id_seed' must be str or None, not int"):
        parse_message(text, id_seed=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'text' must be str, not bytes"):
        parse_message(HERMES.encode())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse_message(text, "generate")  # type: ignore[misc]


def test_broken_calls_raise_with_code_point_positions() -> None:
    text = "😀 <tool_call>{\"name\": \"f\", \"arguments\": {\"x\": }}</tool_call>"
    with pytest.raises(ToolCallError) as info:
        parse_message(text)
    assert (info.value.code, info.value.position) == ("json.unexpected_token", text.index("}}"))
    with pytest.raises(ToolCallError) as info:
        parse_message("ok \ud800")
    assert (info.value.code, info.value.position) == ("json.invalid_unicode", 3)


def test_error_text_is_the_core_s() -> None:
    err = ToolCallError("tool_call.syntax", "bad", 4, 2, 3)
    assert str(err) == "tool_call.syntax at line 2, column 3: bad"
    assert beacon._core.describe_error("x", 1, 1, "y") == "x at line 1, column 1: y"


# --------------------------------------------------------------------------- SDK objects

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")


def chat_completion():  # type: ignore[no-untyped-def]
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-test",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                            }
                        ],
                    },
                }
            ],
        }
    )


def test_openai_chat_completion_object() -> None:
    completion = chat_completion()
    want = [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    assert parse_response(completion) == want
    assert parse_response(completion, provider="openai_chat") == want
    assert parse_response(completion.choices[0].message) == want
    assert beacon.detect_provider(completion) == "openai_chat"
    assert beacon.has_tool_calls(completion)


def test_openai_stream_chunks_as_a_list() -> None:
    from openai.types.chat import ChatCompletionChunk

    def chunk(delta: dict) -> ChatCompletionChunk:
        return ChatCompletionChunk.model_validate(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "gpt-test",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
        )

    chunks = [
        chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_9", "type": "function", "function": {"name": "f", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
    ]
    assert parse_response(chunks) == [{"id": "call_9", "name": "f", "arguments": {"a": 1}}]


def test_openai_broken_arguments_name_the_path() -> None:
    completion = chat_completion()
    completion.choices[0].message.tool_calls[0].function.arguments = '{"city": }'
    with pytest.raises(ToolCallError) as info:
        parse_response(completion)
    assert info.value.code == "tool_call.invalid_arguments"
    assert "choices[0].message.tool_calls[0].function.arguments" in info.value.message


def test_anthropic_message_object() -> None:
    from anthropic.types import Message

    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris", "days": 3}},
            ],
        }
    )
    want = [{"id": "toolu_1", "name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]
    assert parse_response(message) == want
    assert parse_response(message, provider="anthropic") == want
    assert beacon.detect_provider(message) == "anthropic"
    # A list of content blocks inside a plain dict: SDK objects anywhere in a decoded value.
    assert parse_response({"role": "assistant", "content": message.content}) == want


def test_objects_without_model_dump_are_type_errors() -> None:
    class NotAnSdkObject:
        model_dump = "not callable"

    with pytest.raises(TypeError, match="model_dump"):
        parse_response(NotAnSdkObject())  # type: ignore[arg-type]

    class ToDict:
        def to_dict(self) -> dict:
            return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}}]}

    assert parse_response(ToDict()) == [{"id": None, "name": "f", "arguments": {}}]  # type: ignore[arg-type]
