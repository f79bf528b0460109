"""The vLLM plugins against the real vllm package (pinned in requirements-engines-nodeps.txt),
on CPU with no model: loaded through vLLM's own plugin path (``import_tool_parser`` /
``import_reasoning_parser`` with the module path ``vllm serve`` is given, then
``ParserManager.get_parser``, which composes the parser class the chat server uses), and run
through the chat server's own code: ``Parser.parse`` for whole messages and
``ChatStreamProcessor.step`` for streams (the per-choice step of vLLM's streaming chat
completions, with ``finish_reason`` on the last piece, so vLLM calls ``finish_streaming``).

Every text fixture whose options the plugins can express is streamed in 1-, 4- and
64-code-point pieces; the deltas, accumulated by index as an OpenAI client (and vLLM's own
tests) do, must equal ``beacon.parse_message`` of the whole text. All of them run (about 2,000
parses a split, a few seconds each), so no sampling is needed.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, List

import pytest

import beacon
from conftest import CASES, SPLITS, assert_calls, derived_tools, expected, pieces

from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.entrypoints.openai.chat_completion.stream_processor import ChatStreamProcessor
from vllm.parser.parser_manager import ParserManager
from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager

PLUGIN = "beacon.integrations.vllm"  # what --tool-parser-plugin / --reasoning-parser-plugin get


class Tokenizer:
    """What the parsers are given in place of a model's tokenizer: beacon never calls it; vLLM's
    startup check only constructs the parser with it, and ``get_vocab`` is there for the
    base class's ``vocab`` property."""

    def get_vocab(self) -> Dict[str, int]:
        return {}


TOKENIZER = Tokenizer()


@pytest.fixture(scope="module")
def parser_cls() -> Any:
    ToolParserManager.import_tool_parser(PLUGIN)
    ReasoningParserManager.import_reasoning_parser(PLUGIN)
    return ParserManager.get_parser(
        tool_parser_name="beacon",
        reasoning_parser_name="beacon",
        enable_auto_tools=True,
        model_name="test-model",
        tokenizer=TOKENIZER,  # vLLM's startup check constructs the parser with it
    )


def request_for(tools: List[Dict[str, Any]]) -> ChatCompletionRequest:
    return ChatCompletionRequest(model="test-model", messages=[{"role": "user", "content": "hi"}], tools=tools)


def make_parser(parser_cls: Any, request: ChatCompletionRequest) -> Any:
    # As OpenAIServingChat._make_parser does, once per request (and choice).
    return parser_cls(TOKENIZER, request.tools, chat_template_kwargs={}, model_config=None)


def stream(parser_cls: Any, request: ChatCompletionRequest, text: str, size: int) -> Dict[str, Any]:
    """The deltas of ``text`` in ``size``-code-point pieces, accumulated by index."""
    proc = ChatStreamProcessor(request, make_parser(parser_cls, request), enable_auto_tools=True, parser_cls=parser_cls)
    parts = pieces(text, size)
    content, reasoning = [], []
    calls: Dict[int, Dict[str, Any]] = {}
    finish = None
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        step = proc.step(part, [0] * max(1, len(part)), "stop" if last else None, [1, 2, 3])
        finish = step.finish_reason
        delta = step.delta
        if delta is None:
            continue
        content.append(delta.content or "")
        reasoning.append(delta.reasoning or "")
        for tc in delta.tool_calls:
            call = calls.setdefault(tc.index, {"arguments": ""})
            if tc.id is not None:
                assert "id" not in call, "a call's id comes once"
                call["id"] = tc.id
                assert tc.type == "function"
            if tc.function is not None:
                if tc.function.name is not None:
                    assert "name" not in call, "a call's name comes once"
                    call["name"] = tc.function.name
                call["arguments"] += tc.function.arguments or ""
    assert sorted(calls) == list(range(len(calls)))
    return {
        "content": "".join(content),
        "reasoning": "".join(reasoning) or None,
        "calls": [calls[i] for i in range(len(calls))],
        "finish_reason": finish,
    }


def test_registered_through_vllm(parser_cls: Any) -> None:
    from beacon.integrations.vllm import BeaconReasoningParser, BeaconToolParser

    assert ToolParserManager.get_tool_parser("beacon") is BeaconToolParser
    assert ReasoningParserManager.get_reasoning_parser("beacon") is BeaconReasoningParser
    assert "beacon" in ToolParserManager.list_registered()
    assert parser_cls.tool_parser_cls is BeaconToolParser
    assert parser_cls.reasoning_parser_cls is BeaconReasoningParser


def test_plugin_flag_by_file_path(tmp_path: Any) -> None:
    # --tool-parser-plugin also takes a file path (vLLM imports it as a module of its own).
    from vllm.utils.import_utils import import_plugin

    path = tmp_path / "beacon_plugin.py"
    path.write_text("from beacon.integrations.vllm import *  # noqa\n")
    assert import_plugin(str(path)) is not None
    assert ToolParserManager.get_tool_parser("beacon").__name__ == "BeaconToolParser"


@pytest.mark.parametrize("case,env", CASES["good"])
def test_fixture(parser_cls: Any, monkeypatch: Any, case: Dict[str, Any], env: Dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tools = derived_tools(case)
    want = expected(case, tools)
    request = request_for(tools)
    text = case["input"]

    reasoning, content, tool_calls = make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
    assert reasoning == want["reasoning"]
    assert (content or "") == want["content"]
    got = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in tool_calls or []]
    assert_calls(got, want["tool_calls"])
    assert all(c["id"] for c in got)

    for size in SPLITS:
        out = stream(parser_cls, request, text, size)
        assert out["content"] == want["content"], size
        assert out["reasoning"] == (want["reasoning"] or None), size  # an empty block streams nothing
        assert_calls(out["calls"], want["tool_calls"])
        assert all(c.get("id") for c in out["calls"]), size
        assert out["finish_reason"] == ("tool_calls" if want["tool_calls"] else "stop")

    if want["reasoning"] is None:
        # The default BEACON_START=content reads a text without reasoning the same way.
        monkeypatch.setenv("BEACON_START", "content")
        out = stream(parser_cls, request, text, 4)
        assert out["content"] == want["content"]
        assert out["reasoning"] is None
        assert_calls(out["calls"], want["tool_calls"])


@pytest.mark.parametrize("case,env", CASES["bad"])
def test_broken_call_raises(parser_cls: Any, monkeypatch: Any, case: Dict[str, Any], env: Dict[str, str]) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tools = derived_tools(case)
    request = request_for(tools)
    text = case["input"]
    try:
        beacon.parse_message(text, formats=case.get("formats"), tools=tools, unknown=case.get("unknown", "error"))
    except beacon.ToolCallError as err:
        want = err.code
    else:  # the derived tools made it parse: nothing to check here
        return
    with pytest.raises(beacon.ToolCallError) as info:
        make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
    assert info.value.code == want
    for size in (4,):
        with pytest.raises(beacon.ToolCallError) as info:
            stream(parser_cls, request, text, size)
        assert info.value.code == want


BROKEN = 'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call>'
WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def test_broken_call_as_content(parser_cls: Any, monkeypatch: Any, caplog: Any) -> None:
    monkeypatch.setenv("BEACON_ON_ERROR", "content")
    request = request_for(WEATHER)
    with caplog.at_level(logging.ERROR, logger="beacon.integrations"):
        reasoning, content, tool_calls = make_parser(parser_cls, request).parse(BROKEN, request, enable_auto_tools=True)
    assert (reasoning, content, tool_calls) == (None, BROKEN, None)
    assert "json.unexpected_token" in caplog.text
    caplog.clear()
    for size in SPLITS:
        with caplog.at_level(logging.ERROR, logger="beacon.integrations"):
            out = stream(parser_cls, request, BROKEN, size)
        assert (out["content"], out["calls"], out["finish_reason"]) == (BROKEN, [], "stop")
        assert "json.unexpected_token" in caplog.text


def test_content_mode_still_parses(parser_cls: Any, monkeypatch: Any) -> None:
    # With BEACON_ON_ERROR=content a good message gives the same calls (in one delta at the end).
    monkeypatch.setenv("BEACON_ON_ERROR", "content")
    request = request_for(WEATHER)
    text = 'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    for size in SPLITS:
        out = stream(parser_cls, request, text, size)
        assert out["content"] == "Checking."
        assert [(c["name"], c["arguments"]) for c in out["calls"]] == [("get_weather", '{"city": "Paris"}')]


def test_unknown_tool(parser_cls: Any) -> None:
    request = request_for(WEATHER)
    text = '<tool_call>{"name": "send_mail", "arguments": {}}</tool_call>'
    with pytest.raises(beacon.ToolCallError) as info:
        make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
    assert info.value.code == "tool_call.unknown_tool"


def test_schema_typing(parser_cls: Any) -> None:
    # The request's tools type the values a format writes as text.
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup_zip",
                "parameters": {"type": "object", "properties": {"zip": {"type": "string"}, "n": {"type": "integer"}}},
            },
        }
    ]
    request = request_for(tools)
    text = "<tool_call>\n<function=lookup_zip>\n<parameter=zip>\n10001\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>"
    _, _, calls = make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
    assert [(c.name, c.arguments) for c in calls] == [("lookup_zip", '{"zip": "10001", "n": 3}')]
    out = stream(parser_cls, request, text, 4)
    assert [(c["name"], json.loads(c["arguments"])) for c in out["calls"]] == [("lookup_zip", {"zip": "10001", "n": 3})]


def test_a_request_is_read_once(parser_cls: Any, monkeypatch: Any) -> None:
    # vLLM makes the parser with the request's tools, then hands the reasoning parser and the
    # tool parser the request and its text: the message is parsed once a request, whole or
    # streamed, and the tools compiled once for requests that send the same ones.
    import beacon.integrations as plugins
    from beacon.integrations import Options

    compiled: List[Any] = []
    parsed: List[str] = []
    real_tools, real_parse = plugins.Tools, Options.parse

    def counting_tools(definitions: Any) -> Any:
        compiled.append(definitions)
        return real_tools(definitions)

    def counting_parse(self: Any, text: str, tools: Any, **kwargs: Any) -> Any:
        parsed.append(text)
        return real_parse(self, text, tools, **kwargs)

    monkeypatch.setattr(plugins, "Tools", counting_tools)
    monkeypatch.setattr(plugins, "_read", (None, None))
    monkeypatch.setattr(Options, "parse", counting_parse)
    text = '<think>Paris.</think><tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    for i in range(2):
        request = request_for(WEATHER)
        reasoning, content, calls = make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
        assert (reasoning, [c.name for c in calls]) == ("Paris.", ["get_weather"])
        assert (len(compiled), len(parsed)) == (1, i + 1)
        # A streamed request with the same tools reads them from there (and parses nothing whole).
        streamed = request_for(WEATHER)
        out = stream(parser_cls, streamed, text, 4)
        assert [c["name"] for c in out["calls"]] == ["get_weather"]
        assert (len(compiled), len(parsed)) == (1, i + 1)
    # Other tools are compiled, once.
    lookup = WEATHER + [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]
    for _ in range(2):
        request = request_for(lookup)
        calls = make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)[2]
        assert [c.name for c in calls] == ["get_weather"]
    assert (len(compiled), len(parsed)) == (2, 4)
    # The same text in another request is parsed again: each request has its own call ids.
    other = request_for(WEATHER)
    parser = make_parser(parser_cls, other)
    first = parser.parse(text, other, enable_auto_tools=True)[2][0].id
    again = request_for(WEATHER)
    second = make_parser(parser_cls, again).parse(text, again, enable_auto_tools=True)[2][0].id
    assert first != second
    assert len(parsed) == 6


def test_engine_tool_objects_read_as_their_dump() -> None:
    # A function tool's pydantic object is read by its attributes: the same tools as its dump.
    from beacon.integrations import _definition, beacon_tools
    from openai.types.responses import FunctionTool, WebSearchTool
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionToolsParam

    schema = {"type": "object", "properties": {"zip": {"type": "string"}, "n": {"type": "integer"}}}
    tools = [
        ChatCompletionToolsParam(type="function", function={"name": "lookup_zip", "description": "d", "parameters": schema}),
        ChatCompletionToolsParam(type="function", function={"name": "no_parameters"}),
        FunctionTool(type="function", name="set_n", parameters=schema, strict=True),
        WebSearchTool(type="web_search"),
        {"type": "function", "function": {"name": "as_dict"}},
    ]
    assert [_definition(t) for t in tools[:3]] == [
        {"type": "function", "function": {"name": "lookup_zip", "parameters": schema}},
        {"type": "function", "function": {"name": "no_parameters"}},
        {"type": "function", "name": "set_n", "parameters": schema},
    ]
    assert _definition(tools[3]) == {"type": "web_search"}
    assert _definition(tools[4]) is tools[4]
    read = beacon_tools(tools)
    dumped = beacon.Tools([t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else t for t in tools])
    assert read.names == dumped.names == ["lookup_zip", "no_parameters", "set_n", "as_dict"]
    text = "<tool_call>\n<function=set_n>\n<parameter=zip>\n10001\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>"
    assert beacon.parse_message(text, tools=read) == beacon.parse_message(text, tools=dumped)
    assert beacon.parse_message(text, tools=read)["tool_calls"][0]["arguments"] == {"zip": "10001", "n": 3}
    assert beacon_tools(tools) is read  # the list read last is kept


def test_content_start_streams_prose_at_once(parser_cls: Any, monkeypatch: Any) -> None:
    # BEACON_START=content (the default): prose goes out as it comes, before the text ends.
    monkeypatch.delenv("BEACON_START", raising=False)
    request = request_for(WEATHER)
    proc = ChatStreamProcessor(request, make_parser(parser_cls, request), enable_auto_tools=True, parser_cls=parser_cls)
    step = proc.step("The weather is fine. Tomorrow", [0], None, [1])
    assert step.delta is not None and step.delta.content == "The weather is fine."
    # BEACON_START=detect holds it until a close tag or the end tells whether it was reasoning.
    monkeypatch.setenv("BEACON_START", "detect")
    proc = ChatStreamProcessor(request, make_parser(parser_cls, request), enable_auto_tools=True, parser_cls=parser_cls)
    assert proc.step("The weather is fine. Tomorrow", [0], None, [1]).delta is None
    step = proc.step(" it rains.", [0], "stop", [1])
    assert step.delta is not None and step.delta.content == "The weather is fine. Tomorrow it rains."


@pytest.mark.parametrize("text", ['<think>First the weather.</think>Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>', BROKEN])
def test_tool_choice_none_keeps_calls_as_text(parser_cls: Any, text: str) -> None:
    # A request without tools has tool_choice "none" in vLLM: no call is extracted (vLLM would
    # drop any it is handed), so a call the model wrote anyway stays in the content, and a
    # broken one is no error; the reasoning is still read.
    request = ChatCompletionRequest(model="test-model", messages=[{"role": "user", "content": "hi"}])
    assert request.tool_choice == "none"
    want = beacon.parse_message(text, formats=[])
    assert want["tool_calls"] == [] and "<tool_call>" in want["content"]
    reasoning, content, tool_calls = make_parser(parser_cls, request).parse(text, request, enable_auto_tools=True)
    assert (reasoning, content, tool_calls or []) == (want["reasoning"], want["content"], [])
    for size in SPLITS:
        proc = ChatStreamProcessor(request, make_parser(parser_cls, request), enable_auto_tools=True, parser_cls=parser_cls)
        parts = pieces(text, size)
        got_content, got_reasoning = [], []
        for i, part in enumerate(parts):
            step = proc.step(part, [0], "stop" if i == len(parts) - 1 else None, [1])
            if step.delta is not None:
                got_content.append(step.delta.content or "")
                got_reasoning.append(step.delta.reasoning or "")
                assert not step.delta.tool_calls
        assert "".join(got_content) == want["content"]
        assert ("".join(got_reasoning) or None) == want["reasoning"]


def _template_result(parser_cls: Any, tokenizer: Any) -> Any:
    from conftest import LOOKUP, TEMPLATE_TEXT

    request = request_for(LOOKUP)
    parser = parser_cls(tokenizer, request.tools, chat_template_kwargs={}, model_config=None)
    whole = parser.parse(TEMPLATE_TEXT, request, enable_auto_tools=True)
    proc = ChatStreamProcessor(request, parser_cls(tokenizer, request.tools), enable_auto_tools=True, parser_cls=parser_cls)
    parts = pieces(TEMPLATE_TEXT, 4)
    content, args = [], []
    for i, part in enumerate(parts):
        step = proc.step(part, [0], "stop" if i == len(parts) - 1 else None, [1])
        if step.delta is not None:
            content.append(step.delta.content or "")
            args += [(tc.function.name, tc.function.arguments) for tc in step.delta.tool_calls]
    return whole, "".join(content), args


@pytest.mark.parametrize("source", ["file", "tokenizer"])
def test_template(parser_cls: Any, monkeypatch: Any, tmp_path: Any, source: str) -> None:
    # BEACON_TEMPLATE adds the model's own format, inferred from its chat template: a file, or
    # the chat template of the tokenizer vLLM passes.
    from conftest import TEMPLATE, TemplateTokenizer

    (reasoning, content, calls), _, _ = _template_result(parser_cls, TOKENIZER)
    assert (content, calls) == ('Sure. <<call lookup: {"q": "rust"}>>', None)  # unknown without it
    if source == "file":
        path = tmp_path / "chat_template.jinja"
        path.write_text(TEMPLATE)
        monkeypatch.setenv("BEACON_TEMPLATE", str(path))
        tokenizer: Any = TOKENIZER
    else:
        monkeypatch.setenv("BEACON_TEMPLATE", "tokenizer")
        tokenizer = TemplateTokenizer()
    (reasoning, content, calls), streamed, deltas = _template_result(parser_cls, tokenizer)
    assert (content, [(c.name, c.arguments) for c in calls]) == ("Sure.", [("lookup", '{"q": "rust"}')])
    assert streamed == "Sure."
    assert deltas[0][0] == "lookup" and json.loads("".join(a or "" for _, a in deltas)) == {"q": "rust"}


def test_template_from_a_tokenizer_without_one(parser_cls: Any, monkeypatch: Any) -> None:
    # vLLM's startup check constructs the parser with the served model's tokenizer: it fails there.
    monkeypatch.setenv("BEACON_TEMPLATE", "tokenizer")
    with pytest.raises(TypeError, match="has no chat template"):
        ParserManager.validate_parser_tokenizer(parser_cls, TOKENIZER, tool_parser_name="beacon")
