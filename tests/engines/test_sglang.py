"""The SGLang detector against the real sglang package (pinned in
requirements-engines-nodeps.txt), on CPU with no model: registered by importing
``beacon.integrations.sglang`` (its one line, ``FunctionCallParser.ToolCallParserEnum["beacon"]
= BeaconDetector``), then made by SGLang's own ``FunctionCallParser(tools, "beacon")`` as its
chat server does, and run through ``parse_non_stream``, ``parse_stream_chunk`` and
``parse_stream_end``.

Every text fixture whose options the detector can express and whose message has no reasoning
(SGLang's ``--reasoning-parser`` takes that out before the detector) is streamed in 1-, 4- and
64-code-point pieces; the items, accumulated by ``tool_index`` as SGLang's chat server sends
them (name first, then ``parameters`` fragments), must equal ``beacon.parse_message``.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, List, Optional

import pytest

import beacon
from conftest import CASES, SPLITS, assert_calls, expected, pieces

import beacon.integrations.sglang  # noqa: F401  (the registration)
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.server_args import _tool_call_parser_choices


def sglang_tools(tools: Optional[List[Dict[str, Any]]]) -> List[Tool]:
    return [Tool(**t) for t in tools or []]


def stream(tools: List[Tool], text: str, size: int) -> Dict[str, Any]:
    parser = FunctionCallParser(tools, "beacon")
    normal: List[str] = []
    calls: Dict[int, Dict[str, Any]] = {}

    def take(text_part: str, items: List[Any]) -> None:
        normal.append(text_part)
        for item in items:
            call = calls.setdefault(item.tool_index, {"arguments": ""})
            if item.name:
                assert "name" not in call, "a call's name comes once"
                call["name"] = item.name
            call["arguments"] += item.parameters

    for part in pieces(text, size):
        take(*parser.parse_stream_chunk(part))
    take(*parser.parse_stream_end())
    assert sorted(calls) == list(range(len(calls)))
    return {"normal_text": "".join(normal), "calls": [calls[i] for i in range(len(calls))]}


def test_registered_through_sglang() -> None:
    from beacon.integrations.sglang import BeaconDetector

    assert FunctionCallParser.ToolCallParserEnum["beacon"] is BeaconDetector
    assert isinstance(FunctionCallParser([], "beacon").detector, BeaconDetector)
    # --tool-call-parser's choices are read from the map once the module is imported.
    assert "beacon" in _tool_call_parser_choices()


GOOD = [p for p in CASES["good"] if expected(p.values[0], p.values[0].get("tools"))["reasoning"] is None]


@pytest.mark.parametrize("case,env", GOOD)
def test_fixture(monkeypatch: Any, case: Dict[str, Any], env: Dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    want = expected(case, case.get("tools"))
    tools = sglang_tools(case.get("tools"))
    text = case["input"]

    parser = FunctionCallParser(tools, "beacon")
    if parser.has_tool_call(text):  # as SGLang's chat server asks before parsing
        normal, items = parser.parse_non_stream(text)
        assert normal == want["content"]
    else:
        normal, items = text, []
        assert not want["tool_calls"] and text.strip() == want["content"].strip()
    assert_calls([{"name": i.name, "arguments": i.parameters} for i in items], want["tool_calls"])
    index = {t.function.name: n for n, t in enumerate(tools)}
    assert [i.tool_index for i in items] == [index.get(c["name"], -1) for c in want["tool_calls"]]

    for size in SPLITS:
        out = stream(tools, text, size)
        assert out["normal_text"] == want["content"], size
        assert_calls(out["calls"], want["tool_calls"])


@pytest.mark.parametrize("case,env", CASES["bad"])
def test_broken_call_raises(monkeypatch: Any, case: Dict[str, Any], env: Dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tools = sglang_tools(case.get("tools"))
    want = expected.__globals__["_reference"](case).code
    parser = FunctionCallParser(tools, "beacon")
    assert parser.has_tool_call(case["input"]) or want == "json.invalid_unicode"
    with pytest.raises(beacon.ToolCallError) as info:
        parser.parse_non_stream(case["input"])
    assert info.value.code == want
    with pytest.raises(beacon.ToolCallError) as info:
        stream(tools, case["input"], 4)
    assert info.value.code == want


BROKEN = 'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call>'
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def test_broken_call_as_content(monkeypatch: Any, caplog: Any) -> None:
    monkeypatch.setenv("BEACON_ON_ERROR", "content")
    tools = sglang_tools(WEATHER)
    with caplog.at_level(logging.ERROR, logger="beacon.integrations"):
        assert FunctionCallParser(tools, "beacon").parse_non_stream(BROKEN) == (BROKEN, [])
    assert "json.unexpected_token" in caplog.text
    for size in SPLITS:
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="beacon.integrations"):
            out = stream(tools, BROKEN, size)
        assert out == {"normal_text": BROKEN, "calls": []}
        assert "json.unexpected_token" in caplog.text


def test_no_tool_call() -> None:
    parser = FunctionCallParser(sglang_tools(WEATHER), "beacon")
    assert not parser.has_tool_call("The weather is fine.")
    assert parser.has_tool_call("Checking.\n<tool_call>")


def test_unknown_tool() -> None:
    text = '<tool_call>{"name": "send_mail", "arguments": {}}</tool_call>'
    with pytest.raises(beacon.ToolCallError) as info:
        FunctionCallParser(sglang_tools(WEATHER), "beacon").parse_non_stream(text)
    assert info.value.code == "tool_call.unknown_tool"


def test_serving_layer_finds_no_unstreamed_arguments() -> None:
    # SGLang's chat server tops a stream up from prev_tool_call_arr at its end; beacon has
    # streamed everything, and leaves it empty.
    parser = FunctionCallParser(sglang_tools(WEATHER), "beacon")
    out = stream(sglang_tools(WEATHER), '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>', 4)
    assert json.loads(out["calls"][0]["arguments"]) == {"city": "Paris"}
    assert parser.detector.prev_tool_call_arr == []


LAUNCH = """
import sys
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import prepare_server_args
ARGS = ["--model-path", "/nonexistent", "--tool-call-parser", "beacon"]
try:
    prepare_server_args(ARGS)
except SystemExit:
    pass
else:
    raise AssertionError("--tool-call-parser beacon accepted before the plugins loaded")
assert "beacon.integrations.sglang" not in sys.modules
load_plugins()  # what sglang.launch_server runs first
assert prepare_server_args(ARGS).tool_call_parser == "beacon"
print("ok")
"""


def test_entry_point_registers_for_sglang_serve(tmp_path: Any) -> None:
    # pyproject.toml declares beacon in SGLang's plugin group, so an installed beacon-toolcall
    # adds `--tool-call-parser beacon` to `sglang serve` / `python -m sglang.launch_server`.
    # Here the declaration is written into a distribution's metadata on the path of a fresh
    # interpreter, which then runs SGLang's own plugin loading and argument parsing.
    import os
    import subprocess
    import sys
    import tomllib

    from conftest import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    group = project["entry-points"]["sglang.srt.plugins"]
    assert group == {"beacon": "beacon.integrations.sglang:register"}
    dist = tmp_path / "beacon_toolcall-0.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: beacon-toolcall\nVersion: 0.0.0\n")
    (dist / "entry_points.txt").write_text(
        "[sglang.srt.plugins]\n" + "".join(f"{k} = {v}\n" for k, v in group.items())
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(tmp_path)]))
    env.pop("SGLANG_PLUGINS", None)
    proc = subprocess.run([sys.executable, "-c", LAUNCH], env=env, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:]


@pytest.mark.parametrize("source", ["file", "tokenizer"])
def test_template(monkeypatch: Any, tmp_path: Any, source: str) -> None:
    # BEACON_TEMPLATE: a file, or the chat template of the tokenizer SGLang passes the detector.
    from conftest import LOOKUP, TEMPLATE, TEMPLATE_TEXT, TemplateTokenizer

    tools = sglang_tools(LOOKUP)
    assert FunctionCallParser(tools, "beacon").parse_non_stream(TEMPLATE_TEXT) == (TEMPLATE_TEXT, [])  # unknown without it
    tokenizer = None
    if source == "file":
        path = tmp_path / "tokenizer_config.json"
        path.write_text(json.dumps({"chat_template": TEMPLATE}))
        monkeypatch.setenv("BEACON_TEMPLATE", str(path))
    else:
        monkeypatch.setenv("BEACON_TEMPLATE", "tokenizer")
        tokenizer = TemplateTokenizer()
    parser = FunctionCallParser(tools, "beacon", tokenizer=tokenizer)
    assert parser.has_tool_call(TEMPLATE_TEXT)
    normal, items = parser.parse_non_stream(TEMPLATE_TEXT)
    assert (normal, [(i.name, json.loads(i.parameters)) for i in items]) == ("Sure.", [("lookup", {"q": "rust"})])
    parser = FunctionCallParser(tools, "beacon", tokenizer=tokenizer)
    normal_parts, args = [], []
    for part in pieces(TEMPLATE_TEXT, 4):
        text, calls = parser.parse_stream_chunk(part)
        normal_parts.append(text)
        args += [c.parameters for c in calls]
    text, calls = parser.parse_stream_end()
    normal_parts.append(text)
    args += [c.parameters for c in calls]
    assert "".join(normal_parts) == "Sure." and json.loads("".join(args)) == {"q": "rust"}
