"""The hand-kept copies of the core's lists equal the lists the native module takes from the core.

- The ``Literal`` types ``ErrorCode``, ``Format`` and ``Provider`` are ``_core.ERROR_CODES``,
  ``_core.FORMATS`` and ``_core.PROVIDERS`` (the core's ``ErrorCode::ALL``, ``Format::ALL``,
  ``Provider::ALL``), and the public tuples are those lists in the core's order.
- ``UnknownTools`` and ``Start`` (and the CLI choices made from them) are the values the core
  names when it rejects a value of the ``unknown`` and ``start`` options.
- ``StreamScan``'s ``state`` holds the states of the stream fixtures, and the ``type`` of the
  stream events those a stream reports.
- The playground's table of formats lists ``FORMATS``.
"""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any, List, Sequence

import pytest

import beacon
from beacon import _core

ROOT = Path(__file__).resolve().parents[2]


def assert_same_set(mirror: Sequence[str], core: Sequence[str], what: str) -> None:
    assert len(set(mirror)) == len(mirror), f"{what}: a value appears twice: {mirror}"
    assert len(set(core)) == len(core), f"the core's list for {what} has a value twice"
    missing = [v for v in core if v not in mirror]
    extra = [v for v in mirror if v not in core]
    assert (missing, extra) == ([], []), f"{what} differs from the core's list: missing {missing}, extra {extra}"


@pytest.mark.parametrize(
    ("literal", "core", "public"),
    [
        ("ErrorCode", "ERROR_CODES", "ERROR_CODES"),
        ("Format", "FORMATS", "FORMATS"),
        ("Provider", "PROVIDERS", "PROVIDERS"),
    ],
)
def test_literals_are_the_core_lists(literal: str, core: str, public: str) -> None:
    ids = getattr(_core, core)
    assert_same_set(typing.get_args(getattr(beacon, literal)), ids, f"beacon.{literal}")
    assert getattr(beacon, public) == tuple(ids)
    assert type(getattr(beacon, public)) is tuple
    assert literal in beacon.__all__ and public in beacon.__all__


def test_every_raised_code_is_an_error_code() -> None:
    assert "tool_call.unknown_tool" in beacon.ERROR_CODES
    with pytest.raises(beacon.ToolCallError) as e:
        beacon.parse_tool_call("nothing")
    assert e.value.code in beacon.ERROR_CODES


def listed(message: str) -> List[str]:
    """The quoted values the core lists when it rejects one (``x must be "a", "b" or "c", not …``)."""
    m = re.search(r"must be (.*), not ", message)
    assert m, f"no list of values in {message!r}"
    return [a or b for a, b in re.findall(r'"([^"]*)"|\'([^\']*)\'', m.group(1))]


def test_unknown_and_start_are_the_values_the_core_accepts() -> None:
    with pytest.raises(ValueError) as unknown:
        beacon.parse_tool_calls("f(x=1)", tools=["f"], unknown="bogus")  # type: ignore[arg-type]
    assert_same_set(typing.get_args(beacon.UnknownTools), listed(str(unknown.value)), "beacon.UnknownTools")
    with pytest.raises(ValueError) as start:
        beacon.ToolCallStream(start="bogus")  # type: ignore[arg-type]
    assert_same_set(typing.get_args(beacon.Start), listed(str(start.value)), "beacon.Start")


def cli_choices(parser: Any, option: str) -> Sequence[str]:
    action = next(a for a in parser._actions if option in a.option_strings)
    return tuple(action.choices)


def test_cli_choices_are_the_literals() -> None:
    from beacon import _batch_cli, _cli

    cli, batch = _cli._parser(), _batch_cli._parser()
    assert cli_choices(cli, "--start") == typing.get_args(beacon.Start)
    assert cli_choices(cli, "--provider") == ("auto",) + beacon.PROVIDERS
    assert cli_choices(batch, "--unknown") == typing.get_args(beacon.UnknownTools)


def test_stream_scan_states_are_the_fixtures_states() -> None:
    doc = json.loads((ROOT / "tests/fixtures/stream/scan.json").read_text(encoding="utf-8"))
    for case in doc["cases"]:
        assert beacon.scan_stream(case["input"])["state"] == case["scan"]["state"], case["id"]
    states = list(dict.fromkeys(c["scan"]["state"] for c in doc["cases"]))
    hints = typing.get_type_hints(beacon.StreamScan)
    assert_same_set(typing.get_args(hints["state"]), states, "StreamScan.state")


def test_stream_event_types_are_those_a_stream_reports() -> None:
    stream = beacon.ToolCallStream()
    text = '<think>hm</think>Sure. <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
    events = stream.feed(text) + stream.finish()
    reported = list(dict.fromkeys(e["type"] for e in events))
    declared = [typing.get_args(typing.get_type_hints(t)["type"])[0] for t in typing.get_args(beacon.StreamEvent)]
    assert_same_set(declared, reported, "the StreamEvent types")


def test_playground_format_table_lists_every_format() -> None:
    html = (ROOT / "playground/index.html").read_text(encoding="utf-8")
    ids = re.findall(r'<td class="fmt"><code>([^<]*)</code>', html)
    assert ids, 'playground/index.html has no format table (cells <td class="fmt"><code>ID</code>)'
    assert_same_set(ids, beacon.FORMATS, "the playground's format table")
