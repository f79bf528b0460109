"""The examples in the docstrings (including the seed's two) run as tests. beacon._errors
classes are re-exported with __module__ = "beacon", so their examples run with `beacon`."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module_name", ["beacon", "beacon._cli", "beacon._proxy_cli"])
def test_doctests(module_name: str) -> None:
    module = importlib.import_module(module_name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted > 0, f"no doctests found in {module_name}"
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {module_name} (see output above)"


def test_seed_examples_are_doctests() -> None:
    import beacon

    examples = [
        ex.source.strip()
        for test in doctest.DocTestFinder().find(beacon)
        for ex in test.examples
    ]
    assert "parse_tool_call('Call: search(query=\"rust async\", limit=5)')" in examples
    assert "parse_tool_call('[TOOL_CALL]name=search;args={\"q\":\"rust\"}[/TOOL_CALL]')" in examples
