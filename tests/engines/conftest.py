"""Shared pieces of the engine suite (tests/engines): the text fixtures as cases for the
plugins, the three splits, and the comparison with :func:`beacon.parse_message`.

Run by the engine venv's python (build/engines-venv, made by scripts/setup.sh) with
``PYTHONPATH=python``, after the Python suite has built ``python/beacon/_core.abi3.so``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

import beacon  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"

#: Every streamed case is fed in pieces of 1, 4 and 64 code points.
SPLITS = (1, 4, 64)


def pieces(text: str, size: int) -> List[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def openai_tools(tools: Any) -> bool:
    """Whether a fixture's tools are all OpenAI ``{"type": "function", "function": …}``
    definitions, the shape a chat request carries."""
    return isinstance(tools, list) and all(
        isinstance(t, dict) and set(t) == {"type", "function"} and t["type"] == "function" for t in tools
    )


def typed(value: Any) -> Any:
    """``value`` with every scalar tagged by its type and dicts as pairs (so 1 != 1.0 != True
    and key order counts)."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, value)


def _all_cases() -> Iterator[Dict[str, Any]]:
    for path in sorted(FIXTURES.glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            case = dict(case)
            case["file"] = path.stem
            yield case


def _options(case: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The plugin environment that gives ``case``'s options, or ``None`` when the plugins
    cannot express them (``repair``, ``validate=False``, ``formats=[]``, tools of another
    API's shape)."""
    if case.get("repair") or case.get("validate", True) is False or case.get("formats") == []:
        return None
    if "tools" in case and not openai_tools(case["tools"]):
        return None
    env = {"BEACON_START": "detect"}  # the stream then reads the text as parse_message does
    if case.get("formats"):
        env["BEACON_FORMATS"] = ",".join(case["formats"])
    if "unknown" in case:
        env["BEACON_UNKNOWN"] = case["unknown"]
    return env


def _reference(case: Dict[str, Any]) -> Any:
    """parse_message of the whole text with the case's options: the message, or the error."""
    try:
        return beacon.parse_message(
            case["input"],
            formats=case.get("formats"),
            tools=case.get("tools"),
            unknown=case.get("unknown", "error"),
        )
    except beacon.ToolCallError as err:
        return err


def _select() -> Dict[str, List[Any]]:
    good: List[Any] = []
    bad: List[Any] = []
    per_file: Dict[str, int] = {}
    for case in _all_cases():
        env = _options(case)
        if env is None:
            continue
        ref = _reference(case)
        item = pytest.param(case, env, id=case["id"])
        if isinstance(ref, beacon.ToolCallError):
            bad.append(item)
        elif ref["tool_calls"] or ref["content"] or ref["reasoning"]:
            good.append(item)
            per_file[case["file"]] = per_file.get(case["file"], 0) + 1
    return {"good": good, "bad": bad}


CASES = _select()


def expected(case: Dict[str, Any], tools: Any) -> Dict[str, Any]:
    return beacon.parse_message(
        case["input"], formats=case.get("formats"), tools=tools, unknown=case.get("unknown", "error")
    )


def derived_tools(case: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The case's tools, or (a chat request needs tools for vLLM to return calls) one
    permissive definition per tool its text calls."""
    if "tools" in case:
        return case["tools"]
    try:
        names = [c["name"] for c in beacon.parse_message(case["input"], formats=case.get("formats"))["tool_calls"]]
    except beacon.ToolCallError:
        names = []
    names = list(dict.fromkeys(names)) or ["noop"]
    return [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in names]


def assert_calls(got: List[Dict[str, Any]], want: List[Dict[str, Any]]) -> None:
    """``got``: ``{"id", "name", "arguments": <JSON text>}`` accumulated by an engine; ``want``:
    parse_message's calls. Names and arguments equal (types and key order included); an id the
    text wrote is kept, and every call has an id where ``got`` has ids."""
    assert [c["name"] for c in got] == [c["name"] for c in want]
    for g, w in zip(got, want):
        assert typed(json.loads(g["arguments"])) == typed(w["arguments"]), (g, w)
        if w["id"] is not None and "id" in g:
            assert g["id"] == w["id"]


#: A chat template whose format no built-in family has: ``<<call NAME: ARGS>>``.
TEMPLATE = (
    "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}"
    "<<call {{ c.function.name }}: {{ c.function.arguments | tojson }}>>{% endfor %}"
    "{% else %}{{ m.content }}{% endif %}{% endfor %}"
)
TEMPLATE_TEXT = 'Sure. <<call lookup: {"q": "rust"}>>'
LOOKUP = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


class TemplateTokenizer:
    """A stand-in tokenizer with a chat template, for ``BEACON_TEMPLATE=tokenizer``."""

    chat_template = TEMPLATE
    bos_token = "<s>"
    eos_token = "</s>"
    all_special_tokens = ["<s>", "</s>"]

    def get_vocab(self) -> Dict[str, int]:
        return {}
