"""Every shared fixture (tests/fixtures/*.json, the same cases the Rust and JS suites run),
checked through the Python API: exact types and key order of the calls, the include_format
variant, and for errors the code, the exception class and the code-point position; and the
message counterpart of every case through parse_message (the same calls with ids, formats and
code-point spans, or the same error; no call is no error; the content and reasoning the case
states). A case's ``formats``, ``tools``, ``validate`` and ``unknown`` go with every call (its
tools compiled once into a ``beacon.Tools``), and an error's ``path`` is compared (absent: none)."""

from __future__ import annotations

from typing import Any, Callable, Dict

import pytest

from beacon import NoToolCallFoundError, ToolCallError, parse_message, parse_tool_call, parse_tool_calls

from conftest import (
    assert_same,
    error_fields,
    expected_location,
    fixture_cases,
    iter_calls,
    options,
    receipts_as_fixtures,
)

CASES = fixture_cases()

FUNCTIONS: Dict[str, Callable[..., Any]] = {
    "parse_tool_call": parse_tool_call,
    "parse_tool_calls": parse_tool_calls,
}


def test_fixtures_exist() -> None:
    assert CASES, "no cases found in tests/fixtures/*.json"


@pytest.mark.parametrize("case", CASES)
def test_fixture(case: Dict[str, Any]) -> None:
    text = case["input"]
    opts = options(case)
    function = case.get("function", "parse_tool_calls")
    assert function in FUNCTIONS, f"unknown function {function!r}"
    assert ("calls" in case) != ("error" in case), "a case has exactly one of calls and error"

    check_message(case, opts)
    if "error" in case:
        expected = case["error"]
        with pytest.raises(ToolCallError) as info:
            FUNCTIONS[function](text, **opts)
        err = info.value
        assert {k: v for k, v in error_fields(err).items() if k in expected} == {
            k: expected[k] for k in ("code", "position", "line", "column") if k in expected
        }
        if err.code == "tool_call.not_found":
            assert type(err) is NoToolCallFoundError
        else:
            assert type(err) is ToolCallError
        assert 0 <= err.position <= len(text)
        assert (err.line, err.column) == expected_location(text, err.position)
        assert str(err) == f"{err.code} at line {err.line}, column {err.column}: {err.message}"
        if function == "parse_tool_calls":
            # parse_tool_call finds the calls the same way, so it fails the same way.
            with pytest.raises(ToolCallError) as again:
                parse_tool_call(text, **opts)
            assert error_fields(again.value) == error_fields(err)
            assert again.value.path == err.path
        return

    calls = case["calls"]
    with_format = all("format" in c for c in calls)
    if function == "parse_tool_call":
        assert len(calls) == 1, "a parse_tool_call case expects exactly one call"
    if with_format:
        got = receipts_as_fixtures(parse_tool_calls(text, include_format=True, **opts))
        assert_same(got, list(iter_calls(calls, True)))
    assert_same(receipts_as_fixtures(parse_tool_calls(text, **opts)), list(iter_calls(calls, False)))
    got = receipts_as_fixtures(parse_tool_calls(text, include_format=False, **opts))
    assert_same(got, list(iter_calls(calls, False)))
    if len(calls) == 1:
        assert_same(receipts_as_fixtures(parse_tool_call(text, **opts)), next(iter_calls(calls, False)))
    else:
        with pytest.raises(ToolCallError) as info:
            parse_tool_call(text, **opts)
        assert info.value.code == "tool_call.multiple"


def check_message(case: Dict[str, Any], opts: Dict[str, Any]) -> None:
    """The message counterpart of a case (the rule of core/tests/fixtures.rs `check_message`)."""
    text = case["input"]
    error = case.get("error")
    if error is not None and error["code"] not in ("tool_call.not_found", "tool_call.multiple"):
        with pytest.raises(ToolCallError) as info:
            parse_message(text, **opts)
        assert error_fields(info.value) == error_fields_of(error)
        assert info.value.path == error.get("path")
        return
    message = parse_message(text, **opts)
    repair = opts.get("repair", False)
    assert list(message) == ["content", "reasoning", "tool_calls"] + (["repairs"] if repair else [])
    calls = message["tool_calls"]
    if repair:
        assert message["repairs"] == [r for call in calls for r in call.get("repairs", [])]
    if error is not None and error["code"] == "tool_call.not_found":
        assert calls == []
    elif error is None:
        want = case["calls"]
        assert len(calls) == len(want)
        for got, exp in zip(calls, want):
            keys = ["id", "name", "arguments", "format", "span"] + (["repairs"] if "repairs" in exp else [])
            assert list(got) == keys
            assert (got["id"], got["name"]) == (exp.get("id"), exp["name"])
            assert_same(got["arguments"], exp["arguments"])
            if "format" in exp:
                assert got["format"] == exp["format"]
    last = 0
    for call in calls:
        start, end = call["span"]
        assert last <= start < end <= len(text), (call["name"], call["span"])
        last = end
    if "content" in case:
        assert message["content"] == case["content"]
    if "reasoning" in case:
        assert message["reasoning"] == case["reasoning"]


def error_fields_of(expected: Dict[str, Any]) -> Dict[str, Any]:
    return {k: expected[k] for k in ("code", "position", "line", "column")}
