"""The provider-response API (parse_response, detect_provider, has_tool_calls, format_results):
every shared fixture in tests/fixtures/providers/ (schema in its README; the Rust runner is
core/tests/providers.rs) through every input type the Python API takes, then what only Python
has: bytes positions and invalid UTF-8, decoded-value conversion, argument errors, threads."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from enum import IntEnum
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import beacon
from beacon import (
    PROVIDERS,
    NoToolCallFoundError,
    ToolCallError,
    detect_provider,
    format_results,
    has_tool_calls,
    parse_response,
)

from conftest import FIXTURES, assert_same, error_fields, expected_location, typed

PROVIDER_FIXTURES = FIXTURES / "providers"

ALL_PROVIDERS = (
    "openai_chat",
    "openai_responses",
    "anthropic",
    "gemini",
    "gemini_interactions",
    "cohere_v1",
    "cohere_v2",
    "bedrock",
    "ollama",
)


def _load(name: str) -> List[Dict[str, Any]]:
    with (PROVIDER_FIXTURES / name).open(encoding="utf-8") as f:
        cases: List[Dict[str, Any]] = json.load(f)["cases"]
    return cases


# format_calls.json is run by the Rust runner until format_calls reaches the bindings.
NOT_RESPONSES = ("format_results.json", "format_calls.json")
RESPONSE_FILES = sorted(p.name for p in PROVIDER_FIXTURES.glob("*.json") if p.name not in NOT_RESPONSES)
RESPONSE_CASES: List[Tuple[str, Dict[str, Any]]] = [(f, c) for f in RESPONSE_FILES for c in _load(f)]
RESULTS_CASES: List[Dict[str, Any]] = _load("format_results.json")


def _case_id(file: str, case: Dict[str, Any]) -> str:
    return f"{file[: -len('.json')]}:{case['id']}"


# --------------------------------------------------------------------------- fixture helpers


def _provider_arg(case: Dict[str, Any]) -> Any:
    """The case's `provider` argument (a provider id or "auto")."""
    return case.get("provider", "auto")


def _is_json_error(case: Dict[str, Any]) -> bool:
    """An error case without `error.provider`: the response itself is malformed JSON."""
    return "error" in case and "provider" not in case["error"]


def _want_provider(case: Dict[str, Any]) -> Tuple[bool, Optional[str]]:
    """(known, provider): what detect_provider must return, when the case says."""
    if "expected" in case:
        return True, case["expected"]["provider"]
    if "provider" in case["error"]:
        return True, case["error"]["provider"]
    return False, None


def _texts(case: Dict[str, Any]) -> List[Tuple[str, str]]:
    """(label, text) variants of the response as JSON text. Fixture positions refer to
    `response_text` only; a `response` is serialised compactly (as the Rust runner does) and
    also indented, so errors land on later lines."""
    if "response_text" in case:
        return [("text", case["response_text"])]
    return [
        ("text", json.dumps(case["response"], ensure_ascii=False)),
        ("indented", json.dumps(case["response"], ensure_ascii=False, indent=2)),
    ]


_NOT_JSON = object()


def _decoded(case: Dict[str, Any]) -> Any:
    """The response as a decoded value for the value variant, or _NOT_JSON where the schema has
    none: malformed JSON, text that is not JSON, or a top-level JSON string (a Python `str` is
    always JSON *text*, so a decoded string cannot be passed)."""
    if "response" in case:
        return case["response"]
    if _is_json_error(case):
        return _NOT_JSON
    try:
        value = json.loads(case["response_text"])
    except ValueError:
        return _NOT_JSON
    return _NOT_JSON if isinstance(value, str) else value


def _expected_calls(case: Dict[str, Any]) -> List[Dict[str, Any]]:
    calls = case["expected"]["calls"]
    return [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in calls]


def _receipts(calls: List[Dict[str, Any]]) -> List[List[Tuple[str, int]]]:
    """Each call's receipts as (code, position); none for a call without ``repairs``."""
    return [[(r["code"], r["position"]) for r in c.get("repairs", [])] for c in calls]


def _outcome(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return ("ok", func(*args, **kwargs))
    except ToolCallError as err:
        return ("err", type(err), error_fields(err), err.message)


def _byte_location(data: bytes, position: int) -> Tuple[int, int]:
    line = data.count(b"\n", 0, position) + 1
    column = position - (data.rfind(b"\n", 0, position) + 1) + 1
    return line, column


def _parse_kwargs(case: Dict[str, Any]) -> Dict[str, Any]:
    """The options of parse_response the case gives: provider, text_fallback, and its tools
    (compiled into a beacon.Tools) with validate and unknown, and repair."""
    kwargs: Dict[str, Any] = {"provider": _provider_arg(case), "text_fallback": case.get("text_fallback", False)}
    if case.get("repair"):
        kwargs["repair"] = True
    if "tools" in case:
        kwargs["tools"] = beacon.Tools(case["tools"])
        kwargs["validate"] = case.get("validate", True)
        kwargs["unknown"] = case.get("unknown", "error")
    return kwargs


def _check_error(err: ToolCallError, case: Dict[str, Any], label: str) -> None:
    want = case["error"]
    assert type(err) is ToolCallError, label
    assert err.code == want["code"], f"{label}: {err}"
    if "message_contains" in want:
        assert want["message_contains"] in err.message, f"{label}: {err}"
    assert err.path == want.get("path"), f"{label}: path {err.path!r} ({err})"
    assert err.code != "internal"


def _check_calls(calls: Any, case: Dict[str, Any]) -> None:
    """The calls (and the codes of their receipts; positions are the variant's, checked by it)."""
    assert type(calls) is list
    for call in calls:
        keys = ["id", "name", "arguments"] + (["repairs"] if "repairs" in call else [])
        assert type(call) is dict and list(call) == keys and call.get("repairs") != []
        assert type(call["arguments"]) is dict
    # Exact types (1 vs 1.0 vs True, None ids) and key order.
    assert_same([{k: c[k] for k in ("id", "name", "arguments")} for c in calls], _expected_calls(case))
    codes = [[code for code, _ in rs] for rs in _receipts(calls)]
    assert codes == [[code for code, _ in rs] for rs in _receipts(case["expected"]["calls"])]


def _check_parse(response: Any, case: Dict[str, Any], label: str) -> Tuple[Any, Optional[ToolCallError]]:
    """parse_response(response) as `case` says: its calls, or its error. Returns the outcome and,
    for an error case, the exception, for the caller's position checks."""
    kwargs = _parse_kwargs(case)
    got = _outcome(parse_response, response, **kwargs)
    if "expected" in case:
        assert got[0] == "ok", f"{label}: unexpected error {got}"
        _check_calls(got[1], case)
        return got, None
    assert got[0] == "err", f"{label}: expected {case['error']['code']}, got {got}"
    with pytest.raises(ToolCallError) as info:
        parse_response(response, **kwargs)
    _check_error(info.value, case, label)
    return got, info.value


def _check_agreement(response: Any, case: Dict[str, Any], got: Any, label: str) -> None:
    """has_tool_calls and detect_provider agree with parse_response's outcome `got`
    (has_tool_calls takes no tools: for a case with tools, it is not compared)."""
    provider = _provider_arg(case)
    fallback = case.get("text_fallback", False)
    has = _outcome(has_tool_calls, response, provider=provider, text_fallback=fallback)
    if "tools" not in case and not case.get("repair"):
        assert has == (("ok", bool(got[1])) if got[0] == "ok" else got), f"{label}: has_tool_calls {has}"

    detected = _outcome(detect_provider, response)
    known, want = _want_provider(case)
    if _is_json_error(case):
        # Malformed JSON: detection raises exactly parse_response's error.
        assert detected == got, f"{label}: detect_provider {detected}"
        return
    assert detected[0] == "ok", f"{label}: detect_provider failed: {detected}"
    if known:
        assert detected[1] == want, label
    assert detected[1] is None or detected[1] in PROVIDERS
    if detected[1] is None and provider == "auto" and got[0] == "ok":
        assert got[1] == [], f"{label}: calls found although no provider was detected"


def _params() -> List[Any]:
    return [pytest.param(f, c, id=_case_id(f, c)) for f, c in RESPONSE_CASES]


# --------------------------------------------------------------------------- response fixtures


def test_fixtures_exist() -> None:
    assert len(RESPONSE_FILES) >= 12
    assert "tools.json" in RESPONSE_FILES
    assert len(RESPONSE_CASES) >= 100
    assert RESULTS_CASES
    ids = [_case_id(f, c) for f, c in RESPONSE_CASES]
    assert len(ids) == len(set(ids))
    for _, case in RESPONSE_CASES:
        assert ("response" in case) != ("response_text" in case), case["id"]
        assert ("expected" in case) != ("error" in case), case["id"]


@pytest.mark.parametrize("file, case", _params())
def test_fixture_text(file: str, case: Dict[str, Any]) -> None:
    """`str` input: fixture positions in code points, lines and columns consistent."""
    for label, text in _texts(case):
        label = f"{_case_id(file, case)} [{label}]"
        got, err = _check_parse(text, case, label)
        if err is not None:
            assert 0 <= err.position <= len(text), label
            assert (err.line, err.column) == expected_location(text, err.position), label
            assert str(err) == f"{err.code} at line {err.line}, column {err.column}: {err.message}"
            if "response_text" in case and "position" in case["error"]:
                assert err.position == case["error"]["position"], f"{label}: {err}"
        elif "response_text" in case:
            assert _receipts(got[1]) == _receipts(case["expected"]["calls"]), label
        _check_agreement(text, case, got, label)


@pytest.mark.parametrize("kind", [bytes, bytearray])
@pytest.mark.parametrize("file, case", _params())
def test_fixture_bytes(file: str, case: Dict[str, Any], kind: Callable[[bytes], Any]) -> None:
    """UTF-8 `bytes`/`bytearray` input: the same outcome as the text, positions in bytes."""
    for label, text in _texts(case):
        label = f"{_case_id(file, case)} [{label}, {kind.__name__}]"
        data = text.encode("utf-8")
        from_text = _outcome(parse_response, text, **_parse_kwargs(case))
        got, err = _check_parse(kind(data), case, label)
        if err is not None:
            # The text variant's code-point position, as a byte offset.
            text_position = from_text[2]["position"]
            assert err.position == len(text[:text_position].encode("utf-8")), f"{label}: {err}"
            if "response_text" in case and "position" in case["error"]:
                want = len(text[: case["error"]["position"]].encode("utf-8"))
                assert err.position == want, f"{label}: {err}"
            assert (err.line, err.column) == _byte_location(data, err.position), label
            assert err.message == from_text[3], label
        _check_agreement(kind(data), case, got, label)


@pytest.mark.parametrize("file, case", [p for p in _params() if _decoded(p.values[1]) is not _NOT_JSON])
def test_fixture_value(file: str, case: Dict[str, Any]) -> None:
    """Decoded `dict`/`list` input (for every case that has a decoded form): the same calls,
    errors with the same code and message text at position 0 (line 1, column 1)."""
    value = _decoded(case)
    label = f"{_case_id(file, case)} [value]"
    snapshot = json.dumps(value)
    got, err = _check_parse(value, case, label)
    if err is not None:
        assert (err.position, err.line, err.column) == (0, 1, 1), label
    _check_agreement(value, case, got, label)
    assert json.dumps(value) == snapshot, "the input was modified"


def test_every_fixture_file_runs_a_value_variant() -> None:
    by_file: Dict[str, int] = {}
    for file, case in RESPONSE_CASES:
        by_file[file] = by_file.get(file, 0) + (_decoded(case) is not _NOT_JSON)
    assert all(by_file.values()), by_file


def test_fixtures_cover_every_provider() -> None:
    detected = {_want_provider(c) for _, c in RESPONSE_CASES}
    assert {p for known, p in detected if known and p is not None} == set(ALL_PROVIDERS)


# --------------------------------------------------------------------------- format_results fixtures


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in RESULTS_CASES])
def test_fixture_format_results(case: Dict[str, Any]) -> None:
    provider = case["provider"]
    results = case["results"]
    snapshot = json.dumps(results)
    if "expected" in case:
        out = format_results(results, provider)
        assert type(out) is list
        # Exact JSON values: int vs float vs bool, key order.
        assert_same(out, case["expected"])
        # A tuple of results is the same.
        assert_same(format_results(tuple(results), provider), case["expected"])
    else:
        with pytest.raises(ToolCallError) as info:
            format_results(results, provider)
        err = info.value
        assert type(err) is ToolCallError
        assert err.code == case["error"]["code"], str(err)
        if "message_contains" in case["error"]:
            assert case["error"]["message_contains"] in err.message, str(err)
        assert (err.position, err.line, err.column) == (0, 1, 1)
    assert json.dumps(results) == snapshot, "the input was modified"


def test_round_trip_parse_then_format() -> None:
    response = {
        "type": "message",
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}},
        ],
    }
    calls = parse_response(response)
    results: List[beacon.ToolResult] = [{"id": c["id"], "name": c["name"], "content": "22°C"} for c in calls]
    assert format_results(results, "anthropic") == [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": "22°C"}
    ]


# --------------------------------------------------------------------------- bytes and UTF-8

PREFIX = '{"choices": [{"message": {"content": "ü😀\n'


@pytest.mark.parametrize(
    "data, offset",
    [
        (b"\xff", 0),
        (b'{"a": "\xff"}', 7),
        (PREFIX.encode() + b'\xff"}}]}', len(PREFIX.encode())),  # after multi-byte characters
        (PREFIX.encode() + b'\xe2\x82x"}}]}', len(PREFIX.encode())),  # a truncated sequence
        (b'{"a": "\xed\xa0\x80"}', 7),  # a surrogate encoded in UTF-8 (CESU-8)
        (b'{"a": "\xc0\xaf"}', 7),  # an overlong encoding
        (b'{"a": "\xf0\x9f\x98', 7),  # the input ends inside a character
        (b"The capital is Z\xfcrich.", 16),  # plain text is still checked
        (b'{"a": 1}\x80', 8),  # after the JSON value
        ("😀".encode() + b"\x80", 4),
    ],
)
def test_invalid_utf8(data: bytes, offset: int) -> None:
    for kind in (bytes, bytearray):
        errors = []
        for func in (parse_response, has_tool_calls, detect_provider):
            with pytest.raises(ToolCallError) as info:
                func(kind(data))
            errors.append(info.value)
        for err in errors:
            assert type(err) is ToolCallError
            assert err.code == "json.invalid_utf8"
            assert err.position == offset
            assert (err.line, err.column) == _byte_location(data, offset)
            assert "UTF-8" in err.message
        assert len({(e.code, e.position, e.line, e.column, e.message) for e in errors}) == 1
    # The same as Python's own decoder says.
    with pytest.raises(UnicodeDecodeError) as decode_error:
        data.decode("utf-8")
    assert decode_error.value.start == offset


def test_invalid_utf8_message_names_the_byte() -> None:
    with pytest.raises(ToolCallError) as info:
        parse_response(b'{"a": "\xfe"}')
    assert "0xFE" in info.value.message
    # A byte that can begin a character followed by one that cannot continue it: the message
    # names the second byte and its offset; the position is where the sequence starts (as
    # Python's decoder says).
    with pytest.raises(ToolCallError) as info:
        parse_response(b'{"a": "\xed\xa0\x80"}')
    assert info.value.position == 7
    assert "byte 0xA0 at offset 8 cannot continue the character that byte 0xED at offset 7" in info.value.message
    assert "0xED at offset 7 does not begin" not in info.value.message
    with pytest.raises(ToolCallError) as info:
        parse_response(b'{"a": "\xe2\x82')
    assert "ends inside a character" in info.value.message


def test_invalid_utf8_is_checked_before_provider_or_fallback() -> None:
    providers: Tuple[Any, ...] = ("auto",) + ALL_PROVIDERS
    for provider in providers:
        for fallback in (False, True):
            with pytest.raises(ToolCallError) as info:
                parse_response(b"[\xff]", provider=provider, text_fallback=fallback)
            assert (info.value.code, info.value.position) == ("json.invalid_utf8", 1)


def test_bytes_positions_count_bytes() -> None:
    text = '{"ü": "😀",\n "x": }'
    with pytest.raises(ToolCallError) as as_text:
        parse_response(text)
    with pytest.raises(ToolCallError) as as_bytes:
        parse_response(text.encode())
    assert error_fields(as_text.value) == {
        "code": "json.unexpected_token",
        "position": text.index("}"),
        "line": 2,
        "column": 7,
    }
    assert error_fields(as_bytes.value) == {
        "code": "json.unexpected_token",
        "position": text.encode().index(b"}"),
        "line": 2,
        "column": 7,  # the second line is ASCII
    }
    with pytest.raises(ToolCallError) as one_line:
        parse_response(text.replace("\n", "").encode())
    assert one_line.value.column == len('{"ü": "😀", "x": '.encode()) + 1


def test_byte_order_mark_is_skipped() -> None:
    # A UTF-8 byte-order mark before the JSON (some servers and files write one) is skipped, in
    # bytes and in str; error positions still count it (3 bytes, 1 code point).
    body = '\ufeff{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}'
    for response in (body, body.encode(), bytearray(body.encode())):
        assert parse_response(response) == [{"id": "c1", "name": "f", "arguments": {}}]
        assert detect_provider(response) == "openai_chat"
    broken = '\ufeff{"role": "assistant", "tool_calls": [}'
    with pytest.raises(ToolCallError) as as_text:
        parse_response(broken)
    with pytest.raises(ToolCallError) as as_bytes:
        parse_response(broken.encode())
    assert (as_text.value.code, as_text.value.position) == ("json.unexpected_token", broken.index("}"))
    assert as_bytes.value.position == broken.encode().index(b"}")
    # Only a leading mark is skipped (after whitespace it is a character, so the text is plain
    # text), and plain text after one is still plain text.
    assert parse_response(b"\xef\xbb\xbfHello") == []
    assert detect_provider(' \ufeff{"role": "assistant", "tool_calls": []}') is None


def test_empty_bytes() -> None:
    for data in (b"", bytearray()):
        assert parse_response(data) == []
        assert detect_provider(data) is None
        assert has_tool_calls(data) is False


# --------------------------------------------------------------------------- decoded values

OPENAI = {
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
                ],
            },
        }
    ]
}


def _ollama(arguments: Any) -> Dict[str, Any]:
    return {
        "model": "qwen3",
        "done": True,
        "message": {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": arguments}}]},
    }


@pytest.mark.parametrize(
    "n",
    [
        0,
        -1,
        2**63 - 1,
        2**63,
        -(2**63),
        -(2**63) - 1,
        2**64,
        10**40,
        -(10**60) + 7,
        123456789012345678901234567890123456789012345678901234567890,
    ],
)
def test_big_ints_in_decoded_input_round_trip_exactly(n: int) -> None:
    arguments = {"n": n, "nested": [n, {"m": n}], "f": float(1), "t": True}
    [call] = parse_response(_ollama(arguments))
    assert_same(call["arguments"], arguments)
    # The same through text and bytes.
    text = json.dumps(_ollama(arguments))
    assert_same(parse_response(text)[0]["arguments"], arguments)
    assert_same(parse_response(text.encode())[0]["arguments"], arguments)
    # And back out through format_results (content kept as a JSON value, or as its JSON text).
    [part] = format_results([{"name": "f", "content": arguments}], "gemini")
    assert_same(part, {"functionResponse": {"name": "f", "response": arguments}})
    [message] = format_results([{"id": "c", "content": n}], "openai_chat")
    assert message["content"] == str(n)


def test_int_and_float_subclasses_become_plain_values() -> None:
    class Color(IntEnum):
        RED = 1

    class Str(str):
        pass

    class Float(float):
        def __repr__(self) -> str:
            return "not a number"

    class Int(int):
        def __str__(self) -> str:
            return "not a number"

    [call] = parse_response(_ollama({"c": Color.RED, "s": Str("x"), "f": Float(1.5), "i": Int(2**70)}))
    assert_same(call["arguments"], {"c": 1, "s": "x", "f": 1.5, "i": 2**70})


def test_bool_stays_bool() -> None:
    [call] = parse_response(_ollama({"t": True, "f": False, "one": 1, "zero": 0}))
    assert_same(call["arguments"], {"t": True, "f": False, "one": 1, "zero": 0})


def test_tuples_are_arrays() -> None:
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Hi"}}]}
    assert detect_provider((chunk, chunk)) == detect_provider([chunk, chunk]) == "openai_chat"
    [call] = parse_response(_ollama({"t": (1, (2, "x"))}))
    assert_same(call["arguments"], {"t": [1, [2, "x"]]})


def test_decoded_dict_keeps_key_order() -> None:
    arguments = {"zeta": 1, "alpha": {"b": 1, "a": 2}, "mid": 3}
    [call] = parse_response(_ollama(arguments))
    assert list(call["arguments"]) == ["zeta", "alpha", "mid"]
    assert list(call["arguments"]["alpha"]) == ["b", "a"]


def test_decoded_scalars_have_no_calls() -> None:
    values: List[Any] = [None, True, 0, 1.5, 10**30, [], {}, (), [1, "x"]]
    for value in values:
        assert parse_response(value) == []
        assert detect_provider(value) is None
        assert has_tool_calls(value) is False


def test_decoded_value_errors_name_the_path() -> None:
    bad = json.loads(json.dumps(OPENAI))
    bad["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"a": }'
    with pytest.raises(ToolCallError) as info:
        parse_response(bad)
    err = info.value
    assert err.code == "tool_call.invalid_arguments"
    assert "choices[0].message.tool_calls[0].function.arguments" in err.message
    assert (err.position, err.line, err.column) == (0, 1, 1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_are_invalid_numbers(bad: float) -> None:
    for func in (parse_response, has_tool_calls, detect_provider):
        with pytest.raises(ToolCallError) as info:
            func({"choices": [{"message": {"x": [bad]}}]})
        err = info.value
        assert (err.code, err.position) == ("json.invalid_number", 0)
        assert 'response["choices"][0]["message"]["x"][0]' in err.message
    with pytest.raises(ToolCallError) as info:
        format_results([{"name": "f", "content": {"v": bad}}], "gemini")
    assert info.value.code == "json.invalid_number"
    assert 'results[0]["content"]["v"]' in info.value.message


def test_depth_limit_matches_text() -> None:
    def nest(levels: int) -> Any:
        value: Any = 0
        for _ in range(levels):
            value = [value]
        return value

    for levels in (128, 129):
        text = _outcome(parse_response, json.dumps(nest(levels)))
        value = _outcome(parse_response, nest(levels))
        assert text[0] == value[0], levels
        if levels == 129:
            assert text[2]["code"] == value[2]["code"] == "json.too_deep"


def test_cycles_are_too_deep_not_a_crash() -> None:
    cycle: List[Any] = []
    cycle.append(cycle)
    loop: Dict[str, Any] = {}
    loop["self"] = loop
    for value in (cycle, loop, {"choices": [{"message": loop}]}):
        for func in (parse_response, has_tool_calls, detect_provider):
            with pytest.raises(ToolCallError) as info:
                func(value)
            assert (info.value.code, info.value.position) == ("json.too_deep", 0)


def test_str_subclass_keys_that_repeat_are_duplicate_keys() -> None:
    class Key(str):
        def __hash__(self) -> int:
            return 0

        def __eq__(self, other: object) -> bool:
            return self is other

    with pytest.raises(ToolCallError) as info:
        parse_response({Key("role"): "assistant", Key("role"): "user"})
    assert (info.value.code, info.value.position) == ("json.duplicate_key", 0)
    assert '"role"' in info.value.message


# --------------------------------------------------------------------------- type and value errors


@pytest.mark.parametrize(
    "bad",
    [set(), frozenset(), object(), memoryview(b"{}"), 1j, len, range(3), iter([])],
    ids=lambda v: type(v).__name__,
)
def test_unsupported_response_types_are_type_errors(bad: object) -> None:
    for func in (parse_response, has_tool_calls, detect_provider):
        match = f"argument 'response' must be str, bytes, bytearray, .*not {type(bad).__name__}$"
        with pytest.raises(TypeError, match=match):
            func(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value, path, type_name",
    [
        ({"a": {1, 2}}, 'response["a"]', "set"),
        ({"choices": [{"message": object()}]}, 'response["choices"][0]["message"]', "object"),
        ([1, 2, b"x"], "response[2]", "bytes"),
        ({"a": (1, bytearray(b"x"))}, 'response["a"][1]', "bytearray"),
        ({"k\n\"\x01é": [1j]}, 'response["k\\n\\"\\x01é"][0]', "complex"),
    ],
)
def test_unsupported_nested_types_name_the_path(value: Any, path: str, type_name: str) -> None:
    for func in (parse_response, has_tool_calls, detect_provider):
        with pytest.raises(TypeError) as info:
            func(value)
        message = str(info.value)
        assert f"{path} is of type {type_name}" in message, message
        assert message.startswith(f"{func.__name__}(): ")


@pytest.mark.parametrize(
    "value, path, type_name",
    [
        ({1: "x"}, "response", "int"),
        ({"choices": [{(1, 2): 3}]}, 'response["choices"][0]', "tuple"),
        ({"a": {b"k": 1}}, 'response["a"]', "bytes"),
        ({None: 1}, "response", "NoneType"),
        ({"ok": 1, 2.5: 1}, "response", "float"),
    ],
)
def test_non_str_dict_keys_are_type_errors(value: Any, path: str, type_name: str) -> None:
    for func in (parse_response, has_tool_calls, detect_provider):
        with pytest.raises(TypeError, match="keys must be str") as info:
            func(value)
        assert f"{path} has a key of type {type_name}" in str(info.value)


def test_lone_surrogate_in_str_response() -> None:
    # A str with a lone surrogate has no UTF-8 form: json.invalid_unicode at its code-point
    # index (text), or at position 0 naming the path (a decoded value), as for parse_tool_calls.
    text = '{"role": "assistant",\n "content": "ü\ud800"}'
    for func in (parse_response, has_tool_calls, detect_provider):
        with pytest.raises(ToolCallError) as info:
            func(text)
        err = info.value
        assert (err.code, err.position) == ("json.invalid_unicode", text.index("\ud800"))
        assert (err.line, err.column) == (2, len(' "content": "ü') + 1)
        assert "U+D800" in err.message
    for value, path in [
        ({"role": "assistant", "content": "\ud800"}, 'response["content"]'),
        ({"role": "assistant", "x\udfff": 1}, "response"),
        ([{"choices": [{"message": {"tool_calls": [{"id": "\udc00"}]}}]}], 'response[0]["choices"][0]["message"]["tool_calls"][0]["id"]'),
    ]:
        for func in (parse_response, has_tool_calls, detect_provider):
            with pytest.raises(ToolCallError) as info:
                func(value)
            err = info.value
            assert (err.code, err.position, err.line, err.column) == ("json.invalid_unicode", 0, 1, 1)
            assert path in err.message and "lone surrogate" in err.message
    with pytest.raises(ToolCallError) as info:
        format_results([{"id": "c\ud800", "content": "x"}], "openai_chat")
    assert (info.value.code, info.value.position) == ("json.invalid_unicode", 0)
    assert 'results[0]["id"]' in info.value.message


@pytest.mark.parametrize("provider", ["openai", "OpenAI_Chat", "", "auto ", "claude"])
def test_unknown_provider_is_a_value_error_listing_the_ids(provider: str) -> None:
    for func in (parse_response, has_tool_calls):
        with pytest.raises(ValueError) as info:
            func(OPENAI, provider=provider)  # type: ignore[arg-type]
        err = info.value
        assert not isinstance(err, ToolCallError)
        message = str(err)
        assert "'auto'" in message
        for known in ALL_PROVIDERS:
            assert f"'{known}'" in message
        assert json.dumps(provider) in message
    with pytest.raises(ValueError) as info:
        format_results([], provider)  # type: ignore[arg-type]
    assert not isinstance(info.value, ToolCallError)
    for known in ALL_PROVIDERS:
        assert f"'{known}'" in str(info.value)


def test_format_results_does_not_take_auto() -> None:
    with pytest.raises(ValueError, match="must be one of 'openai_chat'"):
        format_results([], "auto")  # type: ignore[arg-type]


def test_provider_must_be_a_str() -> None:
    with pytest.raises(TypeError, match="argument 'provider' must be str, not int"):
        parse_response(OPENAI, provider=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'provider' must be str, not NoneType"):
        format_results([], None)  # type: ignore[arg-type]


def test_provider_and_text_fallback_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        parse_response(OPENAI, "openai_chat")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        has_tool_calls(OPENAI, "openai_chat")  # type: ignore[call-arg]


def test_every_provider_id_is_accepted() -> None:
    assert PROVIDERS == ALL_PROVIDERS
    assert type(PROVIDERS) is tuple
    for provider in PROVIDERS:
        assert isinstance(parse_response(OPENAI, provider=provider), list)
        assert isinstance(has_tool_calls(OPENAI, provider=provider), bool)
    assert parse_response(OPENAI, provider="openai_chat") == parse_response(OPENAI)


@pytest.mark.parametrize(
    "results, match",
    [
        ("abc", "argument 'results' must be a list or tuple of dicts, not str"),
        ({"content": "x"}, "argument 'results' must be a list or tuple of dicts, not dict"),
        (iter([]), "argument 'results' must be a list or tuple of dicts"),
        (["x"], r"results\[0\] must be a dict"),
        ([{"id": "c"}], r"results\[0\] has no 'content'"),
        ([{"id": "c", "content": "x", "is_eror": True}], r"results\[0\] has an unknown key \"is_eror\""),
        ([{"id": "c", "content": "x", 1: 2}], r"results\[0\] has a key of type int"),
        ([{"id": 1, "content": "x"}], r"results\[0\]\[\"id\"\] must be str or None, not int"),
        ([{"name": b"f", "content": "x"}], r"results\[0\]\[\"name\"\] is of type bytes"),
        ([{"name": 1.5, "content": "x"}], r"results\[0\]\[\"name\"\] must be str or None, not float"),
        ([{"id": "c", "content": "x", "is_error": 1}], r"results\[0\]\[\"is_error\"\] must be bool, not int"),
        (
            [{"id": "c", "content": "x"}, {"id": "d", "content": {1, 2}}],
            r"results\[1\]\[\"content\"\] is of type set",
        ),
        ([{"id": "c", "content": {1: 2}}], r"results\[0\]\[\"content\"\] has a key of type int"),
    ],
)
def test_format_results_type_errors(results: Any, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        format_results(results, "openai_chat")


def test_format_results_optional_fields() -> None:
    # id / name may be None or missing; is_error defaults to False.
    assert format_results([{"id": "c", "name": None, "content": "x"}], "anthropic") == [
        {"type": "tool_result", "tool_use_id": "c", "content": "x"}
    ]
    assert format_results([{"id": "c", "content": "x", "is_error": True}], "anthropic") == [
        {"type": "tool_result", "tool_use_id": "c", "content": "x", "is_error": True}
    ]
    with pytest.raises(ToolCallError) as info:
        format_results([{"id": None, "content": "x"}], "anthropic")
    assert info.value.code == "result.missing_field"


# --------------------------------------------------------------------------- plain text


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital of France.",
        "",
        "   ",
        "42",
        '"a JSON string"',
        'Sure.\n<tool_call>{"name": "f", "arguments": {}}</tool_call>',
        "search(q=1)",
        "😀 ü",
    ],
)
def test_plain_text_has_no_calls(text: str) -> None:
    for response in (text, text.encode(), bytearray(text.encode())):
        assert parse_response(response) == []
        assert detect_provider(response) is None
        assert has_tool_calls(response) is False
        # Even with the text fallback (use parse_tool_calls for raw model output), and for an
        # explicit provider.
        assert parse_response(response, text_fallback=True) == []
        assert has_tool_calls(response, text_fallback=True) is False
        for provider in PROVIDERS:
            assert parse_response(response, provider=provider, text_fallback=True) == []


def test_text_that_looks_like_json_must_be_json() -> None:
    for text in ("[TOOL_CALLS] [...]", "{not json}"):
        for func in (parse_response, has_tool_calls, detect_provider):
            with pytest.raises(ToolCallError) as info:
                func(text)
            assert info.value.code.startswith("json.")


def test_errors_are_not_no_tool_call_found() -> None:
    # parse_response never raises NoToolCallFoundError: no calls is [].
    assert parse_response({"choices": []}) == []
    with pytest.raises(ToolCallError) as info:
        parse_response("{")
    assert not isinstance(info.value, NoToolCallFoundError)


# --------------------------------------------------------------------------- threads


def _thread_inputs() -> List[Tuple[Any, str, bool]]:
    inputs: List[Tuple[Any, str, bool]] = []
    for _, case in RESPONSE_CASES:
        provider = _provider_arg(case)
        fallback = case.get("text_fallback", False)
        text = case.get("response_text")
        if text is None:
            text = json.dumps(case["response"], ensure_ascii=False)
        inputs.append((text, provider, fallback))
        inputs.append((text.encode(), provider, fallback))
        value = _decoded(case)
        if value is not _NOT_JSON:
            inputs.append((value, provider, fallback))
    inputs.append((b"{\xff}", "auto", False))
    inputs.append(("x" * 50000, "auto", True))
    return inputs


def _provider_outcome(item: Tuple[Any, str, bool]) -> Any:
    response, provider, fallback = item
    return typed(
        [
            _outcome(parse_response, response, provider=provider, text_fallback=fallback),
            _outcome(has_tool_calls, response, provider=provider, text_fallback=fallback),
            _outcome(detect_provider, response),
        ]
    )


def _results_outcome(case: Dict[str, Any]) -> Any:
    return typed(_outcome(format_results, case["results"], case["provider"]))


def test_threads_give_same_results() -> None:
    inputs = _thread_inputs()
    expected = [_provider_outcome(i) for i in inputs]
    expected_results = [_results_outcome(c) for c in RESULTS_CASES]
    rounds = 8
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(_provider_outcome, inputs * rounds))
        got_results = list(pool.map(_results_outcome, RESULTS_CASES * rounds))
    assert got == expected * rounds
    assert got_results == expected_results * rounds
