"""Every shared stream-scan fixture (tests/fixtures/stream/scan.json) through beacon.scan_stream."""

import json
from pathlib import Path

import beacon
import pytest

CASES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "stream" / "scan.json").read_text("utf-8"))["cases"]


def test_there_are_cases() -> None:
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_scan_fixture(case: dict) -> None:
    assert beacon.scan_stream(case["input"]) == case["scan"]


def test_position_is_in_code_points() -> None:
    text = "😀😀 <tool"
    assert beacon.scan_stream(text) == {"state": "partial", "position": 3}


def test_streaming_a_call_token_by_token() -> None:
    """Fed a growing prefix, the state never goes back and the prose before the call is stable."""
    message = 'Sure, checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    order = {"none": 0, "partial": 1, "found": 2}
    seen = []
    for end in range(len(message) + 1):
        scan = beacon.scan_stream(message[:end])
        seen.append(order[scan["state"]])
        if scan["state"] != "none":
            assert message[: scan["position"]] == "Sure, checking.\n"
    assert seen == sorted(seen) and seen[-1] == 2


def test_type_error() -> None:
    with pytest.raises(TypeError, match="scan_stream"):
        beacon.scan_stream(b"<tool_call>")  # type: ignore[arg-type]
