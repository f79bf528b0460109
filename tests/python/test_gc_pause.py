"""An answer of many calls is built with Python's cyclic garbage collector paused (as parse_many
builds its chunks), so that building it does not traverse the growing answer again and again;
the collector is left as the caller had it."""

from __future__ import annotations

import gc
from typing import Callable, List

import beacon
import pytest

MANY = "".join(f'<tool_call>{{"name": "f", "arguments": {{"a": {i}, "b": [{i}]}}}}</tool_call>' for i in range(3000))
FEW = "".join(f'<tool_call>{{"name": "f", "arguments": {{"a": {i}, "b": [{i}]}}}}</tool_call>' for i in range(100))


def collections_during(fn: Callable[[], object]) -> int:
    """How many collections the collector ran while `fn` ran."""
    seen: List[str] = []

    def callback(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(phase)

    gc.collect()
    gc.callbacks.append(callback)
    try:
        fn()
    finally:
        gc.callbacks.remove(callback)
    return len(seen)


@pytest.mark.parametrize(
    "parse",
    [
        lambda text: beacon.parse_tool_calls(text),
        lambda text: beacon.parse_message(text),
        lambda text: beacon.parse_tool_calls(text, formats=["hermes"]),
    ],
)
def test_many_calls_are_built_without_a_collection(parse: Callable[[str], object]) -> None:
    assert gc.isenabled()
    # The parse builds 3000 calls of four containers each: without the pause, the collector
    # (a collection every 700 new containers) would run over a dozen times.
    assert collections_during(lambda: parse(MANY)) == 0
    assert gc.isenabled()
    # A few calls are built as they are: the pause is not worth its cost there, and the
    # collector may run.
    assert len(beacon.parse_tool_calls(FEW)) == 100


def test_the_collector_is_left_as_the_caller_had_it() -> None:
    gc.disable()
    try:
        assert len(beacon.parse_tool_calls(MANY)) == 3000
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(beacon.ToolCallError):
        beacon.parse_tool_calls(MANY + '<tool_call>{"name": "f", "arguments": {"a": }}</tool_call>')
    assert gc.isenabled()
