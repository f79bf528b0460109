"""beacon.ResponseStream and parse_response on the recorded provider streams (the cases of
tests/fixtures/providers/*.json marked ``"stream": true``): read in one shot and read as they
arrive (whole, in seeded random pieces, one code point at a time, as bytes cut anywhere, one
decoded event at a time), they give the same calls or the same error. A case with tools is read
with its tools, ``validate`` and ``unknown`` both ways, and again with unknown tools kept or
dropped and without validation."""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

import beacon
import pytest
from beacon import ResponseStream, ToolCallError

from conftest import FIXTURES, error_fields, typed

RANDOM_SPLITS = 20


def stream_cases() -> List[Any]:
    params = []
    for path in sorted((FIXTURES / "providers").glob("*.json")):
        for case in json.loads(path.read_text("utf-8"))["cases"]:
            if case.get("stream"):
                params.append(pytest.param(case, id=f"{path.stem}:{case['id']}"))
    return params


CASES = stream_cases()

Outcome = Tuple[str, Any]


def calls_of(calls: List[Dict[str, Any]]) -> List[Any]:
    """Each call's id, name, arguments and receipts (code and position)."""
    return [(c["id"], c["name"], typed(c["arguments"]), [(r["code"], r["position"]) for r in c.get("repairs", [])]) for c in calls]


def options_of(case: Dict[str, Any]) -> Dict[str, Any]:
    """The case's provider (when given), tools options (none without tools) and repair."""
    return {k: case[k] for k in ("provider", "tools", "validate", "unknown", "repair") if k in case}


def one_shot(response: Any, options: Optional[Dict[str, Any]] = None) -> Outcome:
    try:
        return ("ok", calls_of(beacon.parse_response(response, **(options or {}))))
    except ToolCallError as err:
        return ("err", error_fields(err))


def assemble(events: List[Dict[str, Any]], calls: List[Dict[str, Any]], open_: List[Dict[str, Any]]) -> None:
    for e in events:
        if e["type"] in ("content", "reasoning"):
            assert not open_ and isinstance(e["text"], str), e
        elif e["type"] == "call_start":
            assert not open_ and e["index"] == len(calls) and e["format"] == "json", e
            open_.append(dict(e, deltas=[]))
        elif e["type"] == "arguments":
            assert open_ and open_[0]["index"] == e["index"], e
            open_[0]["deltas"].append(e["delta"])
        elif e["type"] == "call_end":
            assert open_ and open_[0]["index"] == e["index"], e
            o = open_.pop()
            assert typed(json.loads("".join(o["deltas"]) or "{}")) == typed(e["arguments"]), (o, e)
            assert e.get("repairs") != [] and set(e) - {"repairs"} == {"type", "index", "arguments"}, e
            calls.append({"id": o["id"], "name": o["name"], "arguments": e["arguments"], **({"repairs": e["repairs"]} if "repairs" in e else {})})
        else:
            raise AssertionError(e)


def streamed(pieces: Sequence[Any], provider: str = "auto", options: Optional[Dict[str, Any]] = None) -> Outcome:
    options = dict(options or {})
    provider = options.pop("provider", provider)
    stream = ResponseStream(provider, **options)  # type: ignore[arg-type]
    calls: List[Dict[str, Any]] = []
    open_: List[Dict[str, Any]] = []
    try:
        for piece in pieces:
            assemble(stream.feed(piece), calls, open_)
        assemble(stream.finish(), calls, open_)
    except ToolCallError as err:
        return ("err", error_fields(err))
    assert not open_
    return ("ok", calls_of(calls))


def cut(seq: Any, rng: random.Random) -> List[Any]:
    points = sorted(rng.sample(range(1, len(seq)), min(len(seq) - 1, rng.randint(1, 30))))
    bounds = [0, *points, len(seq)]
    return [seq[a:b] for a, b in zip(bounds, bounds[1:])]


def test_there_are_stream_cases() -> None:
    assert len(CASES) >= 14
    # Every API that streams has a case with parallel calls and one with an error event.
    ids = [p.id for p in CASES]
    for api in ("anthropic", "bedrock", "cohere", "gemini", "ollama", "openai_responses", "openai_stream"):
        assert any(i.startswith(f"{api}:") and "parallel" in i for i in ids), api
        assert any(i.startswith(f"{api}:") and "error" in i for i in ids), api


@pytest.mark.parametrize("case", CASES)
def test_stream_fixture(case: Dict[str, Any]) -> None:
    rng = random.Random(case["id"])
    o = options_of(case)
    if "response_text" in case:
        text = case["response_text"]
        want = one_shot(text, o)
        if "expected" in case:
            assert want == ("ok", calls_of(case["expected"]["calls"]))
        else:
            assert want[0] == "err" and want[1]["code"] == case["error"]["code"]
        assert streamed([text], options=o) == want
        for _ in range(RANDOM_SPLITS):
            assert streamed(cut(text, rng), options=o) == want
        assert streamed(list(text), options=o) == want
        data = text.encode("utf-8")
        want_bytes = one_shot(data, o)
        assert streamed([data], options=o) == want_bytes
        for _ in range(RANDOM_SPLITS // 4):
            assert streamed(cut(data, rng), options=o) == want_bytes
        assert streamed([bytearray(data)], options=o) == want_bytes
    else:
        events = case["response"]
        want = one_shot(events, o)
        assert want == ("ok", calls_of(case["expected"]["calls"]))
        assert one_shot(json.dumps(events), o) == want
        assert streamed(events, options=o) == want  # one decoded event at a time
        assert streamed([events], options=o) == want  # a list of events at once
        text = json.dumps(events)  # a JSON list of events, as text, cut anywhere
        for _ in range(RANDOM_SPLITS):
            assert streamed(cut(text, rng), options=o) == want


@pytest.mark.parametrize("case", [p for p in CASES if "tools" in p.values[0]])
@pytest.mark.parametrize("variant", [{"unknown": "keep"}, {"unknown": "drop"}, {"validate": False}])
def test_stream_fixture_tools_variants(case: Dict[str, Any], variant: Dict[str, Any]) -> None:
    """Unknown tools kept or dropped, or no validation: the stream still gives parse_response's
    reading of the whole recording (a dropped call shows no event at all)."""
    rng = random.Random(case["id"])
    o = {**options_of(case), **variant}
    response = case.get("response_text", case.get("response"))
    text = response if isinstance(response, str) else json.dumps(response)
    want = one_shot(text, o)
    assert streamed([text], options=o) == want
    for _ in range(RANDOM_SPLITS // 2):
        assert streamed(cut(text, rng), options=o) == want
    if not isinstance(response, str):
        assert streamed(response, options=o) == one_shot(response, o)


def test_tools_options_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown"):
        ResponseStream(unknown="ignore")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ResponseStream(tools=3)  # type: ignore[arg-type]


class _Chunk:
    """An SDK stream-event object (what the OpenAI and Anthropic SDKs yield)."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def model_dump(self, mode: str = "python", by_alias: bool = False, exclude_none: bool = False) -> Dict[str, Any]:
        return self._data


def test_sdk_objects_and_recorded_lists() -> None:
    case = next(p.values[0] for p in CASES if p.id == "gemini:stream_list_parallel_calls")
    objects = [_Chunk(e) for e in case["response"]]
    want = calls_of(case["expected"]["calls"])
    assert calls_of(beacon.parse_response(objects)) == want
    assert streamed(objects) == ("ok", want)


def test_bytes_cut_inside_a_character() -> None:
    body = '{"model": "q", "message": {"role": "assistant", "content": "Zürich"}, "done": false}\n'
    data = body.encode("utf-8")
    at = data.index("ü".encode("utf-8")) + 1
    stream = ResponseStream()
    events = stream.feed(data[:at]) + stream.feed(data[at:]) + stream.finish()
    assert events == [{"type": "content", "text": "Zürich"}]


def test_invalid_utf8_raises_at_its_byte() -> None:
    data = b'{"model": "q", "message": {"role": "assistant", "content": "Z\xfcrich"}, "done": false}\n'
    with pytest.raises(ToolCallError) as whole:
        beacon.parse_response(data)
    stream = ResponseStream()
    with pytest.raises(ToolCallError) as err:
        for i in range(0, len(data), 7):
            stream.feed(data[i : i + 7])
        stream.finish()
    assert err.value.code == "json.invalid_utf8"
    assert error_fields(err.value) == error_fields(whole.value)
    cut_char = ResponseStream()
    cut_char.feed('{"model": "q", "message": {"content": "'.encode() + "ü".encode()[:1])
    with pytest.raises(ToolCallError, match="ends inside a character"):
        cut_char.finish()


def test_feed_errors() -> None:
    stream = ResponseStream()
    with pytest.raises(TypeError, match="ResponseStream.feed"):
        stream.feed(3)  # type: ignore[arg-type]
    stream.feed("data: ")
    with pytest.raises(TypeError, match="one kind throughout"):
        stream.feed({"type": "ping"})
    with pytest.raises(ValueError, match="provider"):
        ResponseStream("openai")  # type: ignore[arg-type]
    done = ResponseStream()
    assert done.finish() == []
    with pytest.raises(ValueError, match="finished"):
        done.feed("data: {}\n\n")
