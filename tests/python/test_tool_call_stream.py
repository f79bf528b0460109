"""beacon.ToolCallStream: split invariance over every text fixture (tests/fixtures/*.json), with
the case's formats and tools, plus the API's options, errors and event shapes.

Each fixture's text is streamed
- split at every single point (for texts of at most EVERY_SPLIT_MAX code points, which today is
  every fixture: the whole file runs in seconds);
- in RANDOM_SPLITS random ways (seeded by the case id, so a failure reproduces);
- one code point at a time (also with ``ids="generate"``);
and the events must add up to ``beacon.parse_message`` of the whole text with the same options:
the content and reasoning joined, the calls (id, name, format, arguments) in order, each call's
argument deltas parsing (``json.loads``) to exactly its ``call_end`` arguments; or the same
``ToolCallError`` (code, position, line, column, path) raised from ``feed`` or ``finish``.
A ``repair`` case streams with ``repair=True``: each call's receipts (``call_end``'s ``repairs``)
must be those of its call in the whole text's message.
"""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

import beacon
import pytest
from beacon import ToolCallError, ToolCallStream, Tools

from conftest import error_fields, fixture_cases, options, typed

#: Texts up to this many code points are split at every point (1 stream per point).
EVERY_SPLIT_MAX = 4000
RANDOM_SPLITS = 20

CASES = fixture_cases()


Outcome = Tuple[str, Any]


def one_shot(text: str, opts: Dict[str, Any]) -> Outcome:
    try:
        m = beacon.parse_message(text, **opts)
    except ToolCallError as err:
        return ("err", error_fields(err) | {"path": err.path})
    calls = [(c["id"], c["name"], c["format"], typed(c["arguments"]), c.get("repairs")) for c in m["tool_calls"]]
    return ("ok", (m["content"], m["reasoning"] or "", calls))


class Assembler:
    """Joins events into a message, checking their order and each call's fragments."""

    def __init__(self) -> None:
        self.content: List[str] = []
        self.reasoning: List[str] = []
        self.calls: List[Tuple[Optional[str], str, str, Any, Any]] = []
        self.open: Optional[Dict[str, Any]] = None

    def take(self, events: List[Dict[str, Any]]) -> None:
        for e in events:
            kind = e["type"]
            if kind in ("content", "reasoning"):
                assert self.open is None and set(e) == {"type", "text"} and e["text"], e
                (self.content if kind == "content" else self.reasoning).append(e["text"])
            elif kind == "call_start":
                assert self.open is None and e["index"] == len(self.calls), e
                assert set(e) == {"type", "index", "id", "name", "format"}, e
                self.open = dict(e, deltas=[])
            elif kind == "arguments":
                assert self.open is not None and e["index"] == self.open["index"], e
                assert set(e) == {"type", "index", "delta"}, e
                self.open["deltas"].append(e["delta"])
            elif kind == "call_end":
                assert self.open is not None and e["index"] == self.open["index"], e
                assert set(e) - {"repairs"} == {"type", "index", "arguments"} and e.get("repairs") != [], e
                joined = "".join(self.open["deltas"]) or "{}"
                assert typed(json.loads(joined)) == typed(e["arguments"]), (joined, e)
                o = self.open
                self.calls.append((o["id"], o["name"], o["format"], typed(e["arguments"]), e.get("repairs")))
                self.open = None
            else:
                raise AssertionError(f"unknown event {e}")

    def result(self) -> Outcome:
        assert self.open is None, "a call never ended"
        return ("ok", ("".join(self.content), "".join(self.reasoning), self.calls))


def streamed(pieces: Sequence[str], opts: Dict[str, Any]) -> Outcome:
    stream = ToolCallStream(**opts)
    assembler = Assembler()
    try:
        for piece in pieces:
            assembler.take(stream.feed(piece))
        assembler.take(stream.finish())
    except ToolCallError as err:
        return ("err", error_fields(err) | {"path": err.path})
    assert stream.finished
    return assembler.result()


def streamed_many(pieces: Sequence[str], opts: Dict[str, Any], rng: random.Random) -> Outcome:
    """`streamed`, the pieces given to `feed_many` in groups of one to eight."""
    stream = ToolCallStream(**opts)
    assembler = Assembler()
    try:
        at = 0
        while at < len(pieces):
            n = rng.randint(1, 8)
            assembler.take(stream.feed_many(pieces[at : at + n]))
            at += n
        assembler.take(stream.finish())
    except ToolCallError as err:
        return ("err", error_fields(err) | {"path": err.path})
    return assembler.result()


def splits(text: str, points: Sequence[int]) -> List[str]:
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def test_there_are_text_fixtures() -> None:
    assert len(CASES) > 1000


@pytest.mark.parametrize("case", CASES)
def test_split_invariance(case: Dict[str, Any]) -> None:
    text = case["input"]
    opts = options(case)
    want = one_shot(text, opts)
    label = case["id"]
    if len(text) <= EVERY_SPLIT_MAX:
        for at in range(len(text) + 1):
            assert streamed(splits(text, [at]), opts) == want, f"{label}: split at {at}"
    rng = random.Random(label)
    for _ in range(RANDOM_SPLITS):
        points = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 12)))) if len(text) > 1 else []
        assert streamed(splits(text, points), opts) == want, f"{label}: split at {points}"
    assert streamed(list(text), opts) == want, f"{label}: one code point at a time"
    assert streamed_many(list(text), opts, rng) == want, f"{label}: feed_many of code points"
    seeded = dict(opts, id_seed=label)
    assert streamed(list(text), seeded) == one_shot(text, seeded), f"{label}: id_seed"


def test_events_of_a_call() -> None:
    stream = ToolCallStream(start="content")
    events = stream.feed('Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Pa')
    events += stream.feed('ris"}}</tool_call><|im_end|>')
    events += stream.finish()
    assert events[0] == {"type": "content", "text": "Checking."}
    assert events[1] == {"type": "call_start", "index": 0, "id": None, "name": "get_weather", "format": "hermes"}
    assert "".join(e["delta"] for e in events if e["type"] == "arguments") == '{"city": "Paris"}'
    assert events[-1] == {"type": "call_end", "index": 0, "arguments": {"city": "Paris"}}


def test_empty_arguments_give_braces() -> None:
    stream = ToolCallStream(start="content")
    events = stream.feed("[TOOL_CALL]name=ping[/TOOL_CALL]") + stream.finish()
    assert [e["delta"] for e in events if e["type"] == "arguments"] == ["{}"]


def test_no_marker_leaks_into_content() -> None:
    text = 'Hi <tool_call>{"name": "f", "arguments": {}}</tool_call> bye<|im_end|>'
    stream = ToolCallStream(start="content")
    content = []
    for ch in text:
        content += [e["text"] for e in stream.feed(ch) if e["type"] == "content"]
    content += [e["text"] for e in stream.finish() if e["type"] == "content"]
    assert "".join(content) == beacon.parse_message(text)["content"]
    assert not any("<" in c for c in content)


@pytest.mark.parametrize("start", ["detect", "content", "reasoning"])
def test_start(start: str) -> None:
    text = "plan!</think>Done."
    stream = ToolCallStream(start=start)  # type: ignore[arg-type]
    first = stream.feed(text[:6])
    events = first + stream.feed(text[6:]) + stream.finish()
    content = "".join(e["text"] for e in events if e["type"] == "content")
    reasoning = "".join(e["text"] for e in events if e["type"] == "reasoning")
    if start == "content":
        assert first == [{"type": "content", "text": "plan!"}]
        assert (content, reasoning) == ("plan!</think>Done.", "")
    else:
        # "detect" holds the text until the close tag tells; "reasoning" knows from the start.
        assert first == ([] if start == "detect" else [{"type": "reasoning", "text": "plan!"}])
        assert (content, reasoning) == ("Done.", "plan!")


def test_error_position_counts_code_points_of_everything_fed() -> None:
    text = 'é😀 <tool_call>{"name": "f", "arguments": {"x": }}</tool_call>'
    with pytest.raises(ToolCallError) as whole:
        beacon.parse_message(text)
    stream = ToolCallStream()
    with pytest.raises(ToolCallError) as err:
        for ch in text:
            stream.feed(ch)
        stream.finish()
    assert error_fields(err.value) == error_fields(whole.value)
    assert err.value.position == text.index("}}")
    assert stream.finished


@pytest.mark.parametrize("make", [lambda: ToolCallStream(start="content"), lambda: beacon.ResponseStream()])
def test_a_lone_surrogate_is_positioned_in_everything_fed_and_ends_the_stream(make: Any) -> None:
    stream = make()
    stream.feed("Hello there. ")
    with pytest.raises(ToolCallError) as err:
        stream.feed("bad \ud800 x")
    assert (err.value.code, err.value.position, err.value.line, err.value.column) == ("json.invalid_unicode", 17, 1, 18)
    assert "index 17" in str(err.value)
    assert stream.finished
    with pytest.raises(ValueError, match="finished"):
        stream.feed(" world")
    with pytest.raises(ValueError, match="finished"):
        stream.finish()


def test_feed_many_is_the_pieces_fed_one_by_one() -> None:
    text = 'Sure. <tool_call>{"name": "f", "arguments": {"x": "é😀"}}</tool_call> done'
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    one = ToolCallStream(start="content")
    events = [e for p in pieces for e in one.feed(p)] + one.finish()
    many = ToolCallStream(start="content")
    batched = many.feed_many(pieces[:5]) + many.feed_many(tuple(pieces[5:])) + many.feed_many([]) + many.finish()
    assert assembled(batched) == assembled(events)
    # One event per kind and call in a batch: the argument fragments of one call are joined.
    assert [e["type"] for e in ToolCallStream(start="content").feed_many(pieces)].count("arguments") == 1
    stream = ToolCallStream(start="content")
    with pytest.raises(ToolCallError) as err:
        stream.feed_many(["Hi ", "<tool_call>", '{"name": "f", "arguments": {"x": }}'])
        stream.finish()
    assert (err.value.code, err.value.position) == ("json.unexpected_token", len('Hi <tool_call>{"name": "f", "arguments": {"x": '))
    stream = ToolCallStream(start="content")
    with pytest.raises(ToolCallError) as err:
        stream.feed_many(["ab", "c\ud800"])
    assert (err.value.code, err.value.position) == ("json.invalid_unicode", 3)
    with pytest.raises(TypeError, match=r"deltas\[1\] must be str, not int"):
        ToolCallStream().feed_many(["a", 1])
    with pytest.raises(TypeError, match="list or tuple of str, not str"):
        ToolCallStream().feed_many("abc")  # type: ignore[arg-type]


def assembled(events: List[Dict[str, Any]]) -> Outcome:
    assembler = Assembler()
    assembler.take(events)
    return assembler.result()


def test_tools_option_accepts_definitions_and_raises_unknown_tool() -> None:
    tools = [{"name": "get_weather", "input_schema": {"properties": {"city": {"type": "string"}}}}]
    text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>'
    stream = ToolCallStream(tools=tools)
    with pytest.raises(ToolCallError) as err:
        stream.feed(text)
        stream.finish()
    assert err.value.code == "tool_call.unknown_tool"
    dropped = ToolCallStream(tools=Tools(tools), unknown="drop")
    assert [e["type"] for e in dropped.feed(text) + dropped.finish()] == []


def test_feed_after_finish_and_wrong_types() -> None:
    stream = ToolCallStream()
    with pytest.raises(TypeError, match=r"feed\(\) argument 'delta' must be str, not bytes"):
        stream.feed(b"x")  # type: ignore[arg-type]
    assert stream.feed("Hello") == []
    assert stream.finish() == [{"type": "content", "text": "Hello"}]
    with pytest.raises(ValueError, match="finished"):
        stream.feed("more")
    with pytest.raises(ValueError, match="finished"):
        stream.finish()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"start": "think"}, ValueError),
        ({"start": 1}, TypeError),
        ({"ids": "uuid"}, ValueError),
        ({"unknown": "ignore"}, ValueError),
        ({"formats": ["nope"]}, ValueError),
        ({"formats": "hermes"}, TypeError),
    ],
)
def test_bad_options(kwargs: Dict[str, Any], error: type) -> None:
    with pytest.raises(error, match="ToolCallStream|formats"):
        ToolCallStream(**kwargs)


def test_scan_stream_still_works() -> None:
    assert beacon.scan_stream("Let me check <tool_") == {"state": "partial", "position": 13}


@pytest.mark.parametrize("piece", [1 << 30, 4096, 7])
def test_large_arguments_are_built_from_the_kept_text(piece: int) -> None:
    """Arguments past the size the stream leaves in its text (2 KB) come back whole at `call_end`,
    equal to `parse_message`'s and to what their deltas add up to, however the text is split: a
    list of them, some escaped strings, nested objects, a second call after the first."""
    items = [{"k": i, "s": "é\"\\n\u00e9😀", "n": None, "f": 1.5, "big": 10**30} for i in range(300)]
    first = json.dumps({"name": "f", "arguments": {"a": items, "b": {"c": [True, False]}}}, ensure_ascii=False)
    second = json.dumps({"name": "g", "arguments": {"x": "y" * 5000}})
    text = f"Sure.\n<tool_call>\n{first}\n</tool_call>\n<tool_call>\n{second}\n</tool_call>"
    stream = ToolCallStream(start="content")
    events: List[Dict[str, Any]] = []
    for i in range(0, len(text), piece):
        events += stream.feed(text[i : i + piece])
    events += stream.finish()
    expected = [c["arguments"] for c in beacon.parse_message(text)["tool_calls"]]
    assert [e["arguments"] for e in events if e["type"] == "call_end"] == expected
    for index, arguments in enumerate(expected):
        deltas = "".join(e["delta"] for e in events if e["type"] == "arguments" and e["index"] == index)
        assert json.loads(deltas) == arguments
    assert expected[0]["a"][299]["big"] == 10**30
