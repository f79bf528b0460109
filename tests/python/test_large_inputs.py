"""Inputs of 64 KB and more are parsed with the GIL released, their answer recorded on a tape
and built from it after (1 MB and more also give the parse's memory back first); `parse_many`
builds each row from the core's own values. Both must give the same answer for the same text:
every text fixture, padded past either size, through both."""

from __future__ import annotations

from typing import Any

import pytest
from beacon import NoToolCallFoundError, ToolCallError, parse_many, parse_tool_calls

from conftest import error_fields, fixture_cases, options

# Past the GIL-free limit (64 KB), and past the size that gives memory back (1 MB).
PADDINGS = {"64k": 70_000, "1m": 1_100_000}


def _one_shot(text: str, opts: dict) -> object:
    try:
        return parse_tool_calls(text, include_format=True, **opts)
    except NoToolCallFoundError:
        return []
    except ToolCallError as err:
        return ("err", error_fields(err), err.message)


def _batch(text: str, opts: dict) -> object:
    (row,) = parse_many([text], include_format=True, threads=1, **opts)
    if isinstance(row, ToolCallError):
        return ("err", error_fields(row), row.message)
    return row


TEXT_CASES = [p for p in fixture_cases() if isinstance(p.values[0].get("input"), str)]


@pytest.mark.parametrize("case", TEXT_CASES)
def test_a_large_input_is_answered_as_parse_many_answers_it(case: Any) -> None:
    text = case["input"]
    opts = options(case)
    padding = PADDINGS["1m"] if case["id"].endswith("0") else PADDINGS["64k"]
    padded = text + " " * padding
    assert _one_shot(padded, opts) == _batch(padded, opts)


def test_large_arguments_and_many_calls() -> None:
    # Arguments over 64 KB are left in the text and built from it; many calls, each recorded.
    items = ", ".join(f'{{"n": {i}, "s": "é\\n{i}", "f": {i}.5, "big": 1{i:030d}}}' for i in range(3000))
    large = f'<tool_call>{{"name": "f", "arguments": {{"items": [{items}], "t": true, "z": null}}}}</tool_call>'
    many = "".join(f'<tool_call>{{"name": "g{i}", "arguments": {{"a": {i}}}}}</tool_call>\n' for i in range(20000))
    for text in (large, many, large + many):
        assert len(text) > 64 * 1024
        assert parse_tool_calls(text, include_format=True) == _batch(text, {})
    calls = parse_tool_calls(large)
    assert calls[0]["arguments"]["items"][2999] == {"n": 2999, "s": "é\n2999", "f": 2999.5, "big": 10**30 + 2999}
