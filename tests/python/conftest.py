"""Shared helpers for the Python test suite of beacon (run: pytest tests/python)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def fixture_cases() -> List[Any]:
    """Every case of tests/fixtures/*.json (the text-parser fixtures; the provider-response
    cases in providers/ are run by test_providers.py), as pytest params identified by the case id
    (unique across files)."""
    params = []
    for path in sorted(FIXTURES.glob("*.json")):
        with path.open(encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc["cases"]:
            params.append(pytest.param(case, id=case["id"]))
    return params


def options(case: Dict[str, Any]) -> Dict[str, Any]:
    """The options a text fixture gives: ``formats``, ``tools`` (compiled once) with
    ``validate`` and ``unknown``, and ``repair``."""
    from beacon import Tools

    out: Dict[str, Any] = {"formats": case.get("formats")}
    if case.get("repair"):
        out["repair"] = True
    if "tools" in case:
        out["tools"] = Tools(case["tools"])
        out["validate"] = case.get("validate", True)
        out["unknown"] = case.get("unknown", "error")
    return out


def typed(value: Any) -> Any:
    """`value` with every scalar tagged by its exact type and every dict as a list of pairs, so
    that `typed(a) == typed(b)` checks types (1 vs 1.0 vs True) and key order, not just `==`."""
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, value)


def assert_same(actual: Any, expected: Any) -> None:
    assert typed(actual) == typed(expected)


def error_fields(err: Any) -> Dict[str, Any]:
    return {"code": err.code, "position": err.position, "line": err.line, "column": err.column}


def expected_location(text: str, position: int) -> Tuple[int, int]:
    """The 1-based (line, column) of code-point offset `position` in `text`."""
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return line, column


def iter_calls(calls: List[Dict[str, Any]], include_format: bool) -> Iterator[Dict[str, Any]]:
    for call in calls:
        out = {"id": call["id"]} if "id" in call else {}
        out.update(name=call["name"], arguments=call["arguments"])
        if include_format:
            out["format"] = call["format"]
        if "repairs" in call:
            out["repairs"] = call["repairs"]
        yield out


def receipts_as_fixtures(calls: Any) -> Any:
    """The calls with each receipt as a fixture states it (code and location), after checking
    that each names its own call and has a message."""
    if not isinstance(calls, list):
        return receipts_as_fixtures([calls])[0]
    out = []
    for index, call in enumerate(calls):
        if "repairs" in call:
            call = dict(call)
            for r in call["repairs"]:
                assert list(r) == ["code", "message", "position", "line", "column", "call_index"], r
                assert r["call_index"] == index and r["message"], r
            call["repairs"] = [{k: r[k] for k in ("code", "position", "line", "column")} for r in call["repairs"]]
        out.append(call)
    return out
