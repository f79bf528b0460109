"""Property tests: any text either parses to plain calls or raises ToolCallError at a valid
code-point position; never another exception, a crash, or code `internal`."""

from __future__ import annotations

from typing import Any, Mapping

import pytest

from beacon import ToolCallError, parse_tool_call, parse_tool_calls

from conftest import expected_location

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Pieces of every format, so random concatenations reach deep into each parser.
PIECES = [
    "<tool_call>", "</tool_call>", "[TOOL_CALL]", "[/TOOL_CALL]", "[TOOL_CALLS]", "[ARGS]",
    "[CALL_ID]", "<|python_tag|>", "<|eom_id|>", "<invoke name=\"f\">", "</invoke>",
    "<parameter name=\"k\">", "</parameter>", "<function_calls>", "```json\n", "```",
    '{"name": "f", "arguments": {"x": 1}}', '{"name": ', '"arguments": ', '"parameters": ',
    '{"type": "function", "function": ', '"tool_calls": [', '{', '}', '[', ']', ',', ':', '"',
    "'", "\\", "\\u00e9", "\\ud83d", "name=f;args=", "search(", "query=", "=", ")", "(", ".call(",
    "True", "None", "null", "1", "-0", "1e400", "9" * 30, "1.5", '"""', " ", "\n", "\t", "é",
    "😀", "&amp;", "&#x1F600;",
]

texts = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
)


def check_call(call: Mapping[str, Any], include_format: bool) -> None:
    assert list(call) == (["name", "arguments", "format"] if include_format else ["name", "arguments"])
    assert type(call["name"]) is str and call["name"]
    assert type(call["arguments"]) is dict


@settings(max_examples=400, deadline=None)
@given(texts)
def test_any_text(text: str) -> None:
    try:
        calls = parse_tool_calls(text, include_format=True)
    except ToolCallError as err:
        assert err.code != "internal", err
        assert 0 <= err.position <= len(text)
        assert (err.line, err.column) == expected_location(text, err.position)
        with pytest.raises(ToolCallError) as again:
            parse_tool_call(text)
        assert again.value.code == err.code and again.value.position == err.position
        return
    assert calls
    for call in calls:
        check_call(call, include_format=True)
    assert parse_tool_calls(text) == [{"name": c["name"], "arguments": c["arguments"]} for c in calls]
    if len(calls) == 1:
        assert parse_tool_call(text) == {"name": calls[0]["name"], "arguments": calls[0]["arguments"]}
    else:
        with pytest.raises(ToolCallError) as info:
            parse_tool_call(text)
        assert info.value.code == "tool_call.multiple"
