"""The public parse functions called with their input alone are parsed by the core directly
(``_core.Direct``); called with any option, by the Python function. Both give the same answers
and the same errors, and the wrapped function keeps its name, docstring, signature and doctests."""

from __future__ import annotations

import concurrent.futures
import copy
import doctest
import inspect
import json
import multiprocessing
import pickle
import pydoc
from typing import Any, Callable, Dict, List, Tuple

import pytest

import beacon
from beacon import _core
from conftest import FIXTURES, error_fields, typed

FUNCTIONS = [beacon.parse_tool_call, beacon.parse_tool_calls, beacon.parse_message, beacon.parse_response]


def fixture_inputs(function: Any) -> List[Any]:
    """The inputs of the text fixtures, or for ``parse_response`` the provider fixtures'
    responses (decoded, as text and as bytes), and a few of the wrong type."""
    inputs: List[Any] = []
    if function is beacon.parse_response:
        for path in sorted((FIXTURES / "providers").glob("*.json")):
            with path.open(encoding="utf-8") as f:
                for case in json.load(f)["cases"]:
                    if isinstance(case.get("response_text"), str):
                        inputs.append(case["response_text"])
                    if "response" in case:
                        inputs += [case["response"], json.dumps(case["response"]).encode()]
    else:
        for path in sorted(FIXTURES.glob("*.json")):
            with path.open(encoding="utf-8") as f:
                inputs += [case["input"] for case in json.load(f)["cases"] if isinstance(case.get("input"), str)]
    return inputs + [5, None, b"<tool_call>", "a\ud800b", object()]


def outcome(call: Callable[[], Any]) -> Tuple[Any, ...]:
    try:
        return ("answer", typed(call()))
    except beacon.ToolCallError as e:
        return ("error", type(e).__name__, error_fields(e), e.truncated)
    except (TypeError, ValueError) as e:
        return ("error", type(e).__name__, str(e))


def defaults(function: Any) -> Dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_the_input_alone_answers_as_the_default_options_do(function: Any) -> None:
    options = defaults(function)
    assert len(options) >= 7
    texts = fixture_inputs(function)
    assert len(texts) > 300
    errors = 0
    for text in texts:
        direct = outcome(lambda: function(text))
        assert direct == outcome(lambda: function(text, **options)), text
        assert direct == outcome(lambda: function.__wrapped__(text)), text
        errors += direct[0] == "error"
    assert 0 < errors < len(texts)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_direct_function_is_the_function_it_wraps_to_its_readers(function: Any) -> None:
    wrapped = function.__wrapped__
    assert type(function) is _core.Direct and inspect.isfunction(wrapped)
    assert (function.__name__, function.__qualname__, function.__module__) == (wrapped.__name__,) * 2 + ("beacon",)
    assert function.__doc__ == wrapped.__doc__ and "Raises:" in function.__doc__
    assert inspect.signature(function) == inspect.signature(wrapped)
    assert inspect.isroutine(function)
    assert f"{function.__name__}({next(iter(inspect.signature(wrapped).parameters))}: '" in pydoc.render_doc(
        function, renderer=pydoc.plaintext
    )
    found = {t.name for t in doctest.DocTestFinder().find(beacon) if t.examples}
    assert f"beacon.{function.__name__}" in found
    with pytest.raises(TypeError, match=function.__name__):
        function()
    with pytest.raises(TypeError, match="positional"):
        function("text", None)
    with pytest.raises(TypeError, match="unexpected keyword"):
        function("text", colour=1)


@pytest.mark.parametrize("function", FUNCTIONS, ids=lambda f: f.__name__)
def test_a_direct_function_pickles_and_copies_as_itself(function: Any) -> None:
    assert pickle.loads(pickle.dumps(function)) is function
    assert copy.copy(function) is function and copy.deepcopy(function) is function


def test_a_direct_function_runs_in_another_process() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert list(pool.map(beacon.parse_tool_calls, [text])) == [[{"name": "f", "arguments": {"a": 1}}]]


def test_direct_takes_only_the_parse_functions() -> None:
    with pytest.raises(ValueError, match="has_tool_calls"):
        _core.Direct("has_tool_calls", beacon.has_tool_calls)
