"""The Python API beyond the shared fixtures: types, big ints, errors, positions, threads."""

from __future__ import annotations

import json
import pickle
import sys
import typing
from concurrent.futures import ThreadPoolExecutor

import pytest

import beacon
from beacon import NoToolCallFoundError, ToolCallError, parse_tool_call, parse_tool_calls

from conftest import assert_same, error_fields, expected_location

SEED = 'Call: search(query="rust async", limit=5)'


def hermes(arguments: str, name: str = "f") -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>'


# --------------------------------------------------------------------------- the seed examples


def test_seed_python_call() -> None:
    assert_same(parse_tool_call(SEED), {"name": "search", "arguments": {"query": "rust async", "limit": 5}})


def test_seed_bracket() -> None:
    text = '[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]'
    assert_same(parse_tool_call(text), {"name": "search", "arguments": {"q": "rust"}})


def test_include_format() -> None:
    assert_same(
        parse_tool_calls(SEED, include_format=True),
        [{"name": "search", "arguments": {"query": "rust async", "limit": 5}, "format": "python"}],
    )
    assert_same(parse_tool_calls(SEED), [{"name": "search", "arguments": {"query": "rust async", "limit": 5}}])
    assert_same(parse_tool_calls(SEED, include_format=False), parse_tool_calls(SEED))


def test_include_format_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        parse_tool_calls(SEED, True)  # type: ignore[call-overload]


def test_formats() -> None:
    assert beacon.FORMATS == typing.get_args(beacon.Format)
    assert beacon.FORMATS[:6] == ("hermes", "bracket", "mistral", "llama", "xml_invoke", "qwen3_coder")
    assert beacon.FORMATS[-2:] == ("json", "python")
    assert len(set(beacon.FORMATS)) == len(beacon.FORMATS) == 32


# --------------------------------------------------------------------------- value types


def test_exact_scalar_types() -> None:
    call = parse_tool_call(hermes('{"i": 1, "f": 1.0, "e": 1e2, "t": true, "n": null, "s": "x", "neg": -0.5}'))
    assert_same(
        call["arguments"],
        {"i": 1, "f": 1.0, "e": 100.0, "t": True, "n": None, "s": "x", "neg": -0.5},
    )


def test_call_syntax_literals() -> None:
    call = parse_tool_call("f(a=True, b=None, c=(1, 2), d={'k': [1.5]}, e=false)")
    assert_same(call["arguments"], {"a": True, "b": None, "c": [1, 2], "d": {"k": [1.5]}, "e": False})


def test_plain_builtins_only() -> None:
    call = parse_tool_call(hermes('{"o": {"l": [1, "s", {}]}}'))
    assert type(call) is dict
    assert type(call["arguments"]) is dict
    assert type(call["arguments"]["o"]) is dict
    assert type(call["arguments"]["o"]["l"]) is list
    assert type(call["name"]) is str


def test_key_order_kept() -> None:
    call = parse_tool_call(hermes('{"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}}'))
    assert list(call["arguments"]) == ["zeta", "alpha", "mid"]
    assert list(call["arguments"]["mid"]) == ["b", "a"]
    assert list(call) == ["name", "arguments"]
    assert list(parse_tool_calls(SEED, include_format=True)[0]) == ["name", "arguments", "format"]


@pytest.mark.parametrize(
    "literal",
    [
        "9223372036854775807",  # i64::MAX: Number::Int
        "9223372036854775808",  # i64::MAX + 1: Number::BigInt
        "-9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901234567890123456789012345678901234567890",
        "-98765432109876543210987654321",
    ],
)
def test_big_ints_exact(literal: str) -> None:
    for text in (hermes(f'{{"n": {literal}}}'), f"f(n={literal})"):
        n = parse_tool_call(text)["arguments"]["n"]
        assert type(n) is int
        assert n == int(literal)


def test_non_ascii_strings() -> None:
    call = parse_tool_call(hermes('{"s": "é😀", "u": "\\u00e9\\ud83d\\ude00"}', name="büscar"))
    assert call == {"name": "büscar", "arguments": {"s": "é😀", "u": "é😀"}}


# --------------------------------------------------------------------------- errors


def test_exception_hierarchy() -> None:
    assert issubclass(ToolCallError, ValueError)
    assert issubclass(NoToolCallFoundError, ToolCallError)
    assert ToolCallError.__module__ == "beacon"
    assert NoToolCallFoundError.__module__ == "beacon"


def test_not_found() -> None:
    for func in (parse_tool_call, parse_tool_calls):
        with pytest.raises(NoToolCallFoundError) as info:
            func("I like {braces} and f(x).")
        err = info.value
        assert error_fields(err) == {"code": "tool_call.not_found", "position": 0, "line": 1, "column": 1}
        assert isinstance(err, ValueError)
        assert str(err) == f"tool_call.not_found at line 1, column 1: {err.message}"


def test_multiple() -> None:
    text = hermes("{}", name="a") + "\n" + hermes("{}", name="b")
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(text)
    err = info.value
    assert type(err) is ToolCallError
    assert err.code == "tool_call.multiple"
    # At the second call.
    assert err.position == text.index("<tool_call>", 1)
    assert (err.line, err.column) == (2, 1)
    assert [c["name"] for c in parse_tool_calls(text)] == ["a", "b"]


def test_error_fields_and_str() -> None:
    text = hermes('{"x": }')
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(text)
    err = info.value
    assert type(err) is ToolCallError
    assert err.code == "json.unexpected_token"
    assert err.position == text.index(": }") + 2
    assert (err.line, err.column) == (1, err.position + 1)
    assert str(err) == f"json.unexpected_token at line 1, column {err.column}: {err.message}"
    assert err.message and "\n" not in err.message
    assert err.args == (err.code, err.message, err.position, err.line, err.column, None, False)
    assert err.truncated is False


@pytest.mark.parametrize(
    "text, code",
    [
        ("f(q=1, 2)", "tool_call.positional_argument"),
        ("f(q=1, q=2)", "tool_call.duplicate_argument"),
        ("f(q=x)", "tool_call.invalid_literal"),
        ('f(q="abc', "tool_call.unclosed"),
        ('<tool_call>{"name": "f", "arguments": {"a": 1, "a": 2}}</tool_call>', "json.duplicate_key"),
        ('<tool_call>{"name": "", "arguments": {}}</tool_call>', "tool_call.invalid_name"),
        ('<tool_call>{"name": "f", "arguments": [1]}</tool_call>', "tool_call.invalid_arguments"),
        ('<tool_call>{"name": "f", "arguments": {}, "args": {}}</tool_call>', "tool_call.ambiguous_arguments"),
        ("<tool_call>[1, 2]</tool_call>", "tool_call.unrecognized"),
    ],
)
def test_error_codes(text: str, code: str) -> None:
    with pytest.raises(ToolCallError) as info:
        parse_tool_calls(text)
    err = info.value
    assert type(err) is ToolCallError
    assert err.code == code
    assert 0 <= err.position <= len(text)
    assert (err.line, err.column) == expected_location(text, err.position)


def test_positions_are_code_points_on_astral_input() -> None:
    # Each 😀 is 1 code point, 2 UTF-16 units and 4 UTF-8 bytes: only code points are right here.
    prefix = "😀é\n😀😀 says: "
    text = prefix + hermes('{"note": "😀😀", "x": }')
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(text)
    err = info.value
    assert err.code == "json.unexpected_token"
    assert err.position == text.index(": }") + 2
    assert text[err.position] == "}"
    assert (err.line, err.column) == expected_location(text, err.position)
    assert err.line == 2


def test_position_inside_arguments_string_counts_caller_text() -> None:
    # OpenAI sends arguments as a JSON string; an error inside it is located in the caller's text.
    text = '😀 {"type": "function", "function": {"name": "f", "arguments": "{\\"a😀\\": tru}"}}'
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(text)
    err = info.value
    assert err.code == "tool_call.invalid_arguments"
    bad = text.index("tru}")
    assert bad <= err.position <= bad + len("tru")
    assert (err.line, err.column) == expected_location(text, err.position)


def test_pickle_round_trip() -> None:
    for text in (hermes('{"x": }'), "no call"):
        with pytest.raises(ToolCallError) as info:
            parse_tool_call(text)
        err = info.value
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is type(err)
        assert error_fields(copy) == error_fields(err)
        assert copy.message == err.message
        assert str(copy) == str(err)


def test_constructible_by_users() -> None:
    err = NoToolCallFoundError("tool_call.not_found", "nothing here")
    assert (err.position, err.line, err.column) == (0, 1, 1)
    assert str(err) == "tool_call.not_found at line 1, column 1: nothing here"


@pytest.mark.parametrize("bad", [b"f(x=1)", None, 42, ["f(x=1)"], bytearray(b"x")])
def test_type_error_names_the_type(bad: object) -> None:
    for func in (parse_tool_call, parse_tool_calls):
        with pytest.raises(TypeError, match=f"must be str, not {type(bad).__name__}"):
            func(bad)  # type: ignore


def test_str_subclass_accepted() -> None:
    class S(str):
        pass

    assert parse_tool_call(S(SEED))["name"] == "search"


@pytest.mark.parametrize(
    "text",
    [
        'f(x="\ud800")',
        'ü😀\n<tool_call>{"name": "f\udc00", "arguments": {}}</tool_call>',
        "\udbff",
        # A surrogate pair written as two code points is two lone surrogates in a Python str.
        'search(q="\ud83d\ude00")',
    ],
)
def test_lone_surrogate_is_invalid_unicode_at_its_index(text: str) -> None:
    # A lone surrogate is not Unicode text (it has no UTF-8 form): json.invalid_unicode at its
    # code-point index, never a UnicodeEncodeError, from every function that takes text.
    index = next(i for i, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF)
    for func in (parse_tool_call, parse_tool_calls, beacon.scan_stream):
        with pytest.raises(ToolCallError) as info:
            func(text)
        err = info.value
        assert type(err) is ToolCallError
        assert (err.code, err.position) == ("json.invalid_unicode", index), str(err)
        assert (err.line, err.column) == expected_location(text, index)
        assert f"U+{ord(text[index]):04X}" in err.message


def test_empty_text() -> None:
    with pytest.raises(NoToolCallFoundError):
        parse_tool_calls("")


# --------------------------------------------------------------------------- threads


THREAD_INPUTS = [
    SEED,
    '[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]',
    hermes('{"a": [1, 2, {"b": "😀"}], "big": 123456789012345678901234567890}'),
    hermes("{}", name="a") + hermes("{}", name="b"),
    hermes('{"x": }'),
    "no call at all",
    "x" * 70000 + SEED,  # parsed with the GIL released (64 KB and more)
]


def _outcome(text: str) -> object:
    try:
        return ("ok", parse_tool_calls(text, include_format=True))
    except ToolCallError as err:
        return ("err", type(err).__name__, error_fields(err), err.message)


def test_threads_give_same_results() -> None:
    expected = [_outcome(t) for t in THREAD_INPUTS]
    work = THREAD_INPUTS * 50
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(_outcome, work))
    assert results == expected * 50


def test_module_declares_free_threading_support() -> None:
    # On a free-threaded build, importing a module with gil_used=true would re-enable the GIL.
    if hasattr(sys, "_is_gil_enabled") and "free-threading" in sys.version:
        assert not sys._is_gil_enabled()


# --------------------------------------------------------------------------- panics


def test_panic_in_core_is_internal_error() -> None:
    from beacon import _core

    for _ in range(2):  # and the interpreter is still fine afterwards
        with pytest.raises(ToolCallError) as info:
            _core._panic_for_testing()
        err = info.value
        assert type(err) is ToolCallError
        assert (err.code, err.position, err.line, err.column) == ("internal", 0, 1, 1)
        assert "deliberate panic for testing" in err.message
    assert parse_tool_call(SEED)["name"] == "search"


def test_formats_option() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call> b(x=1)'
    assert parse_tool_calls(text, formats=["python"]) == [{"name": "b", "arguments": {"x": 1}}]
    assert parse_tool_calls(text, formats={"hermes"}) == [{"name": "a", "arguments": {}}]
    assert parse_tool_call(text, formats=("hermes",)) == {"name": "a", "arguments": {}}
    with pytest.raises(ValueError, match="hermes, bracket"):
        parse_tool_calls(text, formats=["nope"])
    with pytest.raises(TypeError):
        parse_tool_calls(text, formats="hermes")
    with pytest.raises(TypeError):
        parse_tool_calls(text, formats=[1])
    with pytest.raises(beacon.NoToolCallFoundError):
        parse_tool_calls(text, formats=[])


def test_an_integer_past_pythons_digit_limit_raises_as_json_loads_does():
    """Python's limit on an int's decimal digits applies to arguments as to json.loads, whether
    they are built while the core reads them (short JSON and call-syntax calls) or after (a long
    text); the error is Python's ValueError, and the next parse is unaffected."""
    digits = "7" * 700
    small = f'<tool_call>{{"name": "f", "arguments": {{"n": {digits}}}}}</tool_call>'
    call_syntax = f"[f(n={digits})]"
    large = small.replace('"n"', '"pad": "' + "x" * 70000 + '", "n"')  # over 64 KB
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        with pytest.raises(ValueError):
            json.loads(digits)
        for text in (small, call_syntax, large):
            with pytest.raises(ValueError, match="limit"):
                beacon.parse_tool_calls(text)
    finally:
        sys.set_int_max_str_digits(old)
    for text in (small, call_syntax, large):
        assert beacon.parse_tool_calls(text)[0]["arguments"]["n"] == int(digits)
