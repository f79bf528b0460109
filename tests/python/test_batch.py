"""parse_many and parse_arrow: every fixture gives per row what parse_tool_calls gives for it;
order, threads, None rows, unreadable text, the inputs Arrow libraries hand over, and the
results they read back (pyarrow and Polars round trips)."""

from __future__ import annotations

import doctest
import gc
import json
import multiprocessing
import sys
from collections import defaultdict
from typing import Any, Dict, List, Optional, Tuple

import pytest

import beacon
from beacon import NoToolCallFoundError, ToolCallError

from conftest import FIXTURES, assert_same

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")


def all_cases() -> List[Dict[str, Any]]:
    cases = []
    for path in sorted(FIXTURES.glob("*.json")):
        cases.extend(json.loads(path.read_text(encoding="utf-8"))["cases"])
    return cases


CASES = all_cases()


def by_options() -> List[Tuple[Dict[str, Any], List[Dict[str, Any]]]]:
    """The fixture cases grouped by their options (a batch has one set): ``formats``, and
    ``tools`` (compiled once) with ``validate`` and ``unknown``, as test_fixtures.py passes them."""
    groups: Dict[str, Tuple[Dict[str, Any], List[Dict[str, Any]]]] = {}
    for case in CASES:
        key = json.dumps([case.get(k) for k in ("formats", "tools", "validate", "unknown", "repair")], sort_keys=True)
        if key not in groups:
            options: Dict[str, Any] = {"formats": case.get("formats")}
            if case.get("repair"):
                options["repair"] = True
            if "tools" in case:
                options.update(
                    tools=beacon.Tools(case["tools"]),
                    validate=case.get("validate", True),
                    unknown=case.get("unknown", "error"),
                )
            groups[key] = (options, [])
        groups[key][1].append(case)
    return list(groups.values())


def one_by_one(text: Optional[str], options: Dict[str, Any], include_format: bool) -> Any:
    """What parse_many promises for one row, from parse_tool_calls."""
    if text is None:
        return None
    try:
        return beacon.parse_tool_calls(text, include_format=include_format, **options)
    except NoToolCallFoundError:
        return []
    except ToolCallError as err:
        return err


def error_tuple(err: ToolCallError) -> Tuple[Any, ...]:
    return (type(err), err.code, err.message, err.position, err.line, err.column, err.path, err.truncated)


def assert_entry(actual: Any, expected: Any) -> None:
    if isinstance(expected, ToolCallError):
        assert isinstance(actual, ToolCallError), actual
        assert error_tuple(actual) == error_tuple(expected)
    else:
        assert_same(actual, expected)


def message_row(text: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """The parse_arrow row for `text`, from parse_message (arguments decoded)."""
    row: Dict[str, Any] = dict.fromkeys(
        [
            "calls",
            "format",
            "content",
            "reasoning",
            "repairs",
            "error_code",
            "error_message",
            "error_position",
            "error_truncated",
        ]
    )
    try:
        message = beacon.parse_message(text, **options)
    except ToolCallError as err:
        row.update(
            error_code=err.code, error_message=err.message, error_position=err.position, error_truncated=err.truncated
        )
        return row
    calls = [{k: c[k] for k in ("id", "name", "arguments", "format")} for c in message["tool_calls"]]
    receipts = [{k: r[k] for k in ("code", "message", "position", "call_index")} for r in message.get("repairs", [])]
    row.update(calls=calls, content=message["content"], reasoning=message["reasoning"], repairs=receipts)
    row["format"] = calls[0]["format"] if calls else None
    return row


def decoded(row: Dict[str, Any]) -> Dict[str, Any]:
    """`row` with each call's arguments JSON text decoded."""
    out = dict(row)
    if out["calls"] is not None:
        out["calls"] = [dict(c, arguments=json.loads(c["arguments"])) for c in out["calls"]]
    if out["repairs"] is not None:
        out["repairs"] = json.loads(out["repairs"])
    return out


# --------------------------------------------------------------------------- parse_many


@pytest.mark.parametrize("include_format", [False, True])
def test_parse_many_equals_parse_tool_calls_on_every_fixture(include_format: bool) -> None:
    assert len(CASES) > 1000
    groups = by_options()
    assert any("tools" in options for options, _ in groups)
    for options, cases in groups:
        texts = [case["input"] for case in cases]
        results = beacon.parse_many(texts, include_format=include_format, **options)
        assert len(results) == len(texts)
        for case, text, result in zip(cases, texts, results):
            try:
                assert_entry(result, one_by_one(text, options, include_format))
            except AssertionError as e:
                raise AssertionError(f"{case['id']}: {e}") from e


def test_parse_many_matches_the_fixture_expectations() -> None:
    """Independently of parse_tool_calls: the calls a case expects, [] for not_found, its code."""
    for options, cases in by_options():
        results = beacon.parse_many([case["input"] for case in cases], include_format=True, **options)
        for case, result in zip(cases, results):
            if "calls" in case:
                assert [(c["name"], c["arguments"]) for c in result] == [
                    (c["name"], c["arguments"]) for c in case["calls"]
                ], case["id"]
            elif case["error"]["code"] == "tool_call.not_found":
                assert result == [], case["id"]
            elif case.get("function") != "parse_tool_call":
                assert isinstance(result, ToolCallError) and result.code == case["error"]["code"], case["id"]
                if "position" in case["error"]:
                    assert result.position == case["error"]["position"], case["id"]


def mixed_texts(n: int) -> List[Optional[str]]:
    """n rows cycling through every fixture input, prose, None and a lone surrogate."""
    pool: List[Optional[str]] = [case["input"] for case in CASES if "formats" not in case and "tools" not in case]
    pool += ["Just prose.", None, "bad \ud800 text", ""]
    return [pool[(i * 7919) % len(pool)] for i in range(n)]


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_parse_many_keeps_input_order_whatever_the_threads(threads: int) -> None:
    texts = mixed_texts(6000)
    results = beacon.parse_many(texts, threads=threads, include_format=True)
    assert len(results) == len(texts)
    for text, result in zip(texts, results):
        if text is not None and "\ud800" in text:
            assert isinstance(result, ToolCallError) and result.code == "json.invalid_unicode"
            assert result.position == text.index("\ud800")
        else:
            assert_entry(result, one_by_one(text, {}, True))


def test_parse_many_rows() -> None:
    ok = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
    broken = '<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>'
    results = beacon.parse_many([ok, "No call here.", broken, None, "a\ud800"])
    assert results[0] == [{"name": "f", "arguments": {"x": 1}}]
    assert results[1] == []
    assert type(results[2]) is ToolCallError
    assert (results[2].code, results[2].position) == ("json.unexpected_token", broken.index("}}"))
    assert str(results[2]).startswith("json.unexpected_token at line 1, column ")
    assert results[3] is None
    assert (results[4].code, results[4].position) == ("json.invalid_unicode", 1)


def test_parse_many_takes_any_iterable() -> None:
    text = "[TOOL_CALL]name=f[/TOOL_CALL]"
    expected = [[{"name": "f", "arguments": {}}]] * 3
    assert beacon.parse_many(t for t in [text] * 3) == expected
    assert beacon.parse_many((text,) * 3) == expected
    assert beacon.parse_many([]) == []
    assert beacon.parse_many(iter([])) == []


def test_parse_many_argument_errors() -> None:
    with pytest.raises(TypeError, match="not a single str"):
        beacon.parse_many("some text")
    with pytest.raises(TypeError, match=r"texts\[2\] must be str or None, not int"):
        beacon.parse_many(["a", "b", 3])
    with pytest.raises(TypeError):
        beacon.parse_many(5)
    with pytest.raises(ValueError, match="threads"):
        beacon.parse_many(["a"], threads=0)
    with pytest.raises(ValueError, match="unknown format id"):
        beacon.parse_many(["a"], formats=["nope"])
    with pytest.raises(TypeError, match="collection of format ids"):
        beacon.parse_many(["a"], formats="hermes")


def test_an_error_in_the_iterable_propagates() -> None:
    def texts():
        yield "a"
        raise RuntimeError("source failed")

    with pytest.raises(RuntimeError, match="source failed"):
        beacon.parse_many(texts(), threads=2)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_garbage_collector_is_left_as_it_was(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        beacon.parse_many(mixed_texts(3000), threads=2)
        beacon.parse_arrow(mixed_texts(100)).to_pylist()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def _parse_in_child(queue: Any) -> None:
    queue.put(beacon.parse_many(["[TOOL_CALL]name=f[/TOOL_CALL]"] * 5000, threads=2)[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_a_forked_child_gets_its_own_pool() -> None:
    """The parent's pool threads do not exist in a forked child (Spark and multiprocessing
    fork); the child must build its own instead of waiting on them forever."""
    beacon.parse_many(["[TOOL_CALL]name=f[/TOOL_CALL]"] * 5000, threads=2)  # the parent's pool
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_parse_in_child, args=(queue,))
    child.start()
    child.join(60)
    assert child.exitcode == 0, "the forked child hung or failed"
    assert queue.get(timeout=5) == [{"name": "f", "arguments": {}}]


def test_doctests() -> None:
    result = doctest.testmod(beacon._batch, optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------- parse_arrow


def test_parse_arrow_equals_parse_message_on_every_fixture() -> None:
    for options, cases in by_options():
        texts = [case["input"] for case in cases]
        rows = pa.array(beacon.parse_arrow(pa.array(texts, pa.string()), **options)).to_pylist()
        assert len(rows) == len(texts)
        for case, text, row in zip(cases, texts, rows):
            try:
                assert_same(decoded(row), message_row(text, options))
            except AssertionError as e:
                raise AssertionError(f"{case['id']}: {e}") from e
            if "content" in case:
                assert row["content"] == case["content"], case["id"]
            if "reasoning" in case:
                assert row["reasoning"] == case["reasoning"], case["id"]


def test_parse_arrow_agrees_with_parse_many() -> None:
    """The calls and errors of the two batch functions are the same on every fixture."""
    for options, cases in by_options():
        texts = [case["input"] for case in cases]
        many = beacon.parse_many(texts, include_format=True, **options)
        rows = beacon.parse_arrow(texts, **options).to_pylist()
        for case, calls, row in zip(cases, many, rows):
            if isinstance(calls, ToolCallError):
                got = (row["error_code"], row["error_message"], row["error_position"])
                assert got == (calls.code, calls.message, calls.position), case["id"]
            else:
                want = [(c.get("id"), c["name"], c["arguments"], c["format"]) for c in calls]
                got_calls = [(c["id"], c["name"], json.loads(c["arguments"]), c["format"]) for c in row["calls"]]
                assert_same(got_calls, want)


def test_tools_pass_through() -> None:
    tools = [{"name": "get_weather", "input_schema": {"properties": {"days": {"type": "integer"}}}}]
    texts = [
        "<function=get_weather><parameter=days>3</parameter></function>",
        '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"days": "x"}}</tool_call>',
    ]
    many = beacon.parse_many(texts, tools=tools)
    assert many[0] == [{"name": "get_weather", "arguments": {"days": 3}}]
    assert (many[1].code, many[2].code, many[2].path) == ("tool_call.unknown_tool", "tool_call.schema", "/days")
    assert beacon.parse_many(texts[1:2], tools=tools, unknown="drop") == [[]]
    rows = beacon.parse_arrow(texts, tools=beacon.Tools(tools)).to_pylist()
    assert rows[0]["calls"][0]["arguments"] == '{"days":3}'
    assert [r["error_code"] for r in rows] == [None, "tool_call.unknown_tool", "tool_call.schema"]
    assert beacon.parse_arrow(texts, tools=tools, validate=False).to_pylist()[2]["error_code"] is None


def test_arguments_are_compact_json_with_keys_in_order() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"b": 1, "a": [1.5, "é\\n", null, 12345678901234567890123]}}</tool_call>'
    (call,) = beacon.parse_arrow([text]).to_pylist()[0]["calls"]
    assert call["arguments"] == '{"b":1,"a":[1.5,"é\\n",null,12345678901234567890123]}'
    assert json.loads(call["arguments"]) == beacon.parse_tool_call(text)["arguments"]


def test_native_ids_and_mixed_formats_in_one_row() -> None:
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        '{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    mixed = '<tool_call>{"name": "a", "arguments": {}}</tool_call> [TOOL_CALL]name=b[/TOOL_CALL]'
    rows = beacon.parse_arrow([kimi, mixed]).to_pylist()
    assert rows[0]["calls"][0]["id"] == "functions.get_weather:0"
    assert [c["format"] for c in rows[1]["calls"]] == ["hermes", "bracket"]
    assert rows[1]["format"] == "hermes"


SAMPLE = [
    '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>',
    "<think>Weather?</think>Checking.\n[TOOL_CALL]name=get_weather;args={\"city\":\"Zürich\"}[/TOOL_CALL]",
    "Plain prose, no call.",
    None,
    '<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>',
    "日本語 search(query=\"東京\")",
]


def expected_sample() -> List[Dict[str, Any]]:
    return beacon.parse_arrow(list(SAMPLE)).to_pylist()


def test_repair_and_truncation_in_batches() -> None:
    texts = [
        '<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>',
        '<tool_call>{"name": "f", "arguments": {"a": 1,',
    ]
    strict = beacon.parse_arrow(texts).to_pylist()
    assert [r["error_code"] for r in strict] == ["json.unexpected_token", "json.unexpected_end"]
    assert [r["error_truncated"] for r in strict] == [False, True]
    rows = beacon.parse_arrow(texts, repair=True).to_pylist()
    assert json.loads(rows[0]["repairs"]) == [
        {
            "code": "repair.trailing_comma",
            "message": "a trailing comma before the close was removed",
            "position": texts[0].index(",}"),
            "call_index": 0,
        }
    ]
    assert (rows[1]["error_code"], rows[1]["error_truncated"]) == ("json.unexpected_end", True)
    many = beacon.parse_many(texts, repair=True)
    assert many[0][0]["repairs"][0]["position"] == texts[0].index(",}")
    assert isinstance(many[1], ToolCallError) and many[1].truncated


def test_list_input_rows() -> None:
    rows = expected_sample()
    assert rows[0]["calls"] == [{"id": None, "name": "f", "arguments": '{"x":1}', "format": "hermes"}]
    assert (rows[1]["content"], rows[1]["reasoning"]) == ("Checking.", "Weather?")
    assert rows[2] == dict.fromkeys(rows[2], None) | {"calls": [], "content": "Plain prose, no call.", "repairs": "[]"}
    assert rows[3] == dict.fromkeys(rows[3], None)
    assert (rows[4]["error_code"], rows[4]["error_position"], rows[4]["calls"]) == (
        "json.unexpected_token",
        SAMPLE[4].index("}}"),
        None,
    )
    assert rows[5]["calls"][0]["format"] == "python"


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda t: pa.array(t, pa.string()), id="string"),
        pytest.param(lambda t: pa.array(t, pa.large_string()), id="large_string"),
        pytest.param(lambda t: pa.array(t, pa.string_view()), id="string_view"),
        pytest.param(lambda t: pa.chunked_array([t[:2], t[2:3], [], t[3:]], pa.string()), id="chunked"),
        pytest.param(lambda t: pa.array(["pad"] + t, pa.string()).slice(1), id="sliced"),
        pytest.param(lambda t: pl.Series("output", t, dtype=pl.String), id="polars"),
        pytest.param(lambda t: pl.Series("output", ["pad"] + t, dtype=pl.String)[1:], id="polars-sliced"),
        pytest.param(lambda t: pl.concat([pl.Series(t[:3]), pl.Series(t[3:])], rechunk=False), id="polars-chunked"),
    ],
)
def test_arrow_inputs(make: Any) -> None:
    assert beacon.parse_arrow(make(list(SAMPLE))).to_pylist() == expected_sample()


def test_null_typed_and_empty_inputs() -> None:
    null_row = beacon.parse_arrow([None]).to_pylist()[0]
    assert null_row == dict.fromkeys(null_row, None)
    assert beacon.parse_arrow(pa.nulls(3)).to_pylist() == [null_row] * 3
    empty = beacon.parse_arrow(pa.array([], pa.string()))
    assert len(empty) == 0 and pa.array(empty).to_pylist() == []
    assert pa.array(empty).type == pa.array(beacon.parse_arrow(["x"])).type


def test_parse_arrow_argument_errors() -> None:
    with pytest.raises(TypeError, match="array of strings"):
        beacon.parse_arrow(pa.array([1, 2]))
    with pytest.raises(TypeError, match="pass one column"):
        beacon.parse_arrow(pa.table({"output": ["a"]}))
    with pytest.raises(TypeError, match="must be an Arrow string array"):
        beacon.parse_arrow(5)
    with pytest.raises(TypeError, match="not a single str"):
        beacon.parse_arrow("text")
    with pytest.raises(ValueError, match="threads"):
        beacon.parse_arrow(["a"], threads=0)
    with pytest.raises(ValueError, match="unknown format id"):
        beacon.parse_arrow(["a"], formats=["nope"])


def test_malformed_arrow_data_is_refused() -> None:
    """Foreign data is validated before its text is read: bytes that are not UTF-8 in a utf8
    array are a ValueError, not undefined behaviour."""
    offsets = pa.py_buffer(memoryview(bytes([0, 0, 0, 0, 2, 0, 0, 0])))
    bad = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(b"\xff\xfe")])
    with pytest.raises(ValueError, match="not valid Arrow data"):
        beacon.parse_arrow(bad)


def test_formats_option() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
    (row,) = beacon.parse_arrow([text], formats=["bracket"]).to_pylist()
    assert row["calls"] == [] and row["content"] == text


# --------------------------------------------------------------------------- round trips


def test_pyarrow_round_trip(tmp_path: Any) -> None:
    import pyarrow.parquet as pq

    result = beacon.parse_arrow(pa.array(SAMPLE))
    array = pa.array(result)
    assert isinstance(array, pa.StructArray) and len(array) == len(SAMPLE)
    assert array.to_pylist() == result.to_pylist() == expected_sample()
    assert array.type.field("calls").type.value_type.names == ["id", "name", "arguments", "format"]
    table = pa.table(result)
    assert table.column_names == list(beacon.parse_arrow(["x"]).to_pylist()[0])
    assert table.to_pylist() == expected_sample()
    assert pa.chunked_array(result).combine_chunks().to_pylist() == expected_sample()
    pq.write_table(table, tmp_path / "parsed.parquet")
    assert pq.read_table(tmp_path / "parsed.parquet").to_pylist() == expected_sample()
    # the export can be taken more than once, and outlives the result object
    again = pa.array(result)
    del result
    assert again.to_pylist() == array.to_pylist()


def test_polars_one_liner() -> None:
    df = pl.DataFrame({"id": range(len(SAMPLE)), "output": SAMPLE})
    out = df.with_columns(parsed=pl.Series(beacon.parse_arrow(df["output"])))
    assert out.columns == ["id", "output", "parsed"]
    assert out["parsed"].to_list() == expected_sample()
    flat = out.unnest("parsed")
    assert flat.filter(pl.col("error_code").is_not_null())["id"].to_list() == [4]
    assert flat.explode("calls")["calls"].struct.field("name").drop_nulls().to_list() == ["f", "get_weather", "search"]
    from_arrow = pl.from_arrow(beacon.parse_arrow(df["output"]))
    assert from_arrow.to_list() == expected_sample()
    assert from_arrow.struct.unnest().columns == list(expected_sample()[0])


def test_repr_and_len() -> None:
    result = beacon.parse_arrow(SAMPLE)
    assert len(result) == len(SAMPLE)
    assert repr(result).startswith(f"<beacon.ArrowArray: {len(SAMPLE)} rows of struct<calls: ")
    assert isinstance(result, beacon.ArrowArray)
