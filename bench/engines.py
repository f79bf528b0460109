"""beacon against vLLM's and SGLang's own parsers, in one process: one-shot, each format's typical
and 10 KB outputs parsed whole; and the plugin overhead per streamed delta, beacon's vLLM and
SGLang plugins against the engines' own parsers on the same outputs cut into 4-code-point deltas.

    PYTHONPATH=python build/engines-venv/bin/python bench/engines.py [--quick]

Run by the engine venv's python (bench/run.py spawns it when build/engines-venv exists). Each
side gets a fresh parser per message (as the engines make one per request) and is fed every
delta through the engine's streaming entry point: vLLM's ``extract_tool_calls_streaming`` (the
text and token ids accumulated as vLLM's serving layer passes them; beacon's plugin also gets
``finish_streaming``), SGLang's ``FunctionCallParser.parse_stream_chunk`` then
``parse_stream_end``. A peer whose accumulated calls differ from beacon's (which equal
``parse_message``, tests/engines) is marked; its time is still shown. "ToolCallStream alone" is
beacon's own share: the rest of a plugin's time is building the engine's result objects
(vLLM's ``DeltaMessage``/``DeltaToolCall``, pydantic models with a validator, cost about 5 µs
a delta that says something; SGLang's ``StreamingParseResult``), which every parser pays.

One-shot, each side parses the whole output with the same tools: beacon's ``parse_message``
(content and calls, as the engines' parsers give both; the tools compiled once, as
``beacon.Tools``); and per request, as the engines serve one, vLLM's ``extract_tool_calls`` on a
parser made with the request's tools and SGLang's ``FunctionCallParser.parse_non_stream``, for
beacon's plugins (which compile the request's tools and build the engines' result objects
besides the parse) and the engines' own parsers. The lead is the peer's time over
``parse_message``'s (target: ≥ 10×, issue #30).

Only vLLM's text-streaming parsers are timed streaming: its engine-based ones (``qwen3_coder``,
``glm45``, ``kimi_k2``) stream on the model's token ids, which a benchmark without the model's
tokenizer cannot give them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

import corpus  # noqa: E402
from report import table  # noqa: E402

import beacon  # noqa: E402

DELTA = 4  # code points per delta

# beacon format -> (vLLM tool parser name or None, SGLang detector name or None), streaming
PEERS = {
    "hermes": ("hermes", "hermes"),
    "llama": ("llama3_json", "llama3"),
    "mistral": (None, "mistral"),
    "qwen3_coder": (None, "qwen3_coder"),
    "glm45": (None, "glm45"),
    "kimi_k2": (None, "kimi_k2"),
    "deepseek_v3": (None, "deepseekv3"),
    "pythonic": ("pythonic", "pythonic"),
}
# beacon format -> vLLM tool parser name, one-shot (``extract_tool_calls`` reads text for all)
VLLM_ONE_SHOT = {
    "hermes": "hermes",
    "llama": "llama3_json",
    "mistral": "mistral",
    "qwen3_coder": "qwen3_coder",
    "glm45": "glm45",
    "kimi_k2": "kimi_k2",
    "deepseek_v3": "deepseek_v3",
    "pythonic": "pythonic",
}
TOOL_NAMES = ("get_weather", "write_file")


class Tokenizer:
    """The stand-in tokenizer (docs/integrations.md): beacon never calls it; vLLM's text parsers
    look their special tokens up in ``get_vocab()``."""

    VOCAB = {t: i for i, t in enumerate([
        "<tool_call>", "</tool_call>", "<|python_tag|>", "<|eom_id|>", "[TOOL_CALLS]",
        "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
        "<|tool_call_end|>", "<|tool_call_argument_begin|>",
        "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>",
        "<｜tool▁sep｜>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
    ], 1)}

    def get_vocab(self):
        return dict(self.VOCAB)

    def __bool__(self):
        return True


def best_seconds(fn, budget):
    """Best seconds per fn() over repeats filling about `budget` seconds."""
    fn()
    best = float("inf")
    deadline = time.perf_counter() + budget
    runs = 0
    while runs < 3 or time.perf_counter() < deadline:
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
        runs += 1
    return best


def vllm_stream(parser_cls, tools, request, deltas, finish):
    parser = parser_cls(Tokenizer(), request.tools)
    calls = {}
    previous, prev_ids = "", []
    for i, d in enumerate(deltas):
        current = previous + d
        ids = prev_ids + [i]
        out = parser.extract_tool_calls_streaming(previous, current, d, prev_ids, ids, [i], request)
        previous, prev_ids = current, ids
        _vllm_take(calls, out)
    if finish:
        _vllm_take(calls, parser.finish_streaming())
    return [(c.get("name"), c["arguments"]) for _, c in sorted(calls.items())]


def _vllm_take(calls, out):
    if out is None:
        return
    for tc in out.tool_calls:
        call = calls.setdefault(tc.index, {"arguments": ""})
        fn = tc.function
        if fn is None:
            continue
        if isinstance(fn, dict):
            name, args = fn.get("name"), fn.get("arguments")
        else:
            name, args = fn.name, fn.arguments
        if name:
            call["name"] = name
        call["arguments"] += args or ""


def sglang_stream(fcp, tools, name, deltas):
    parser = fcp(tools, name)
    calls = {}
    for d in deltas:
        _sglang_take(calls, parser.parse_stream_chunk(d)[1])
    _sglang_take(calls, parser.parse_stream_end()[1])
    return [(c.get("name"), c["arguments"]) for _, c in sorted(calls.items())]


def _sglang_take(calls, items):
    for item in items:
        call = calls.setdefault(item.tool_index, {"arguments": ""})
        if item.name:
            call["name"] = item.name
        call["arguments"] += item.parameters


def same(got, want):
    try:
        return [(n, json.loads(a)) for n, a in got] == want
    except (TypeError, ValueError):
        return False


def fmt(s):
    for unit, scale in (("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.2f} {unit}"
    return f"{s / 1e-9:.0f} ns"


def one_shot(budget, tool_defs, request, sg_tools):
    """The one-shot table: each format's typical and 10 KB outputs parsed whole by beacon, and
    per request by its plugins and the engines' own parsers."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from vllm.tool_parsers import ToolParserManager

    from beacon.integrations.vllm import BeaconToolParser

    compiled = beacon.Tools(tool_defs)

    def vllm_request(parser_cls):
        # As vLLM serves a request: a request object of its own, with a list of its own of the
        # same tools (a client that sends the same tools each time), a parser made with them,
        # then the whole output. The copy costs both sides alike.
        def run(text):
            req = request.model_copy(update={"tools": list(request.tools)})
            return parser_cls(Tokenizer(), req.tools).extract_tool_calls(text, req)
        return run

    def vllm_calls(info):
        return [(c.function.name, c.function.arguments) for c in info.tool_calls] if info.tools_called else []

    def sglang_request(name):
        return lambda text: FunctionCallParser(list(sg_tools), name).parse_non_stream(text)

    def sglang_calls(result):
        return [(c.name, c.parameters) for c in result[1]]

    rows = []
    for fmt_id, label, text, _ in corpus.typical_and_large():
        if fmt_id not in PEERS:
            continue
        want = [(c["name"], c["arguments"]) for c in beacon.parse_message(text, tools=compiled)["tool_calls"]]
        t_beacon = best_seconds(lambda: beacon.parse_message(text, tools=compiled), budget)
        row = [fmt_id, label, fmt(t_beacon)]
        for ours, theirs, calls in (
            (vllm_request(BeaconToolParser), VLLM_ONE_SHOT[fmt_id], vllm_calls),
            (sglang_request("beacon"), PEERS[fmt_id][1], sglang_calls),
        ):
            assert same(calls(ours(text)), want), fmt_id
            row.append(fmt(best_seconds(lambda: ours(text), budget)))
            try:
                peer = (vllm_request(ToolParserManager.get_tool_parser(theirs)) if calls is vllm_calls
                        else sglang_request(theirs))
                got = calls(peer(text))
                t = best_seconds(lambda: peer(text), budget)
                row += [fmt(t) + ("" if same(got, want) else " (calls differ)"), f"{t / t_beacon:.1f}×"]
            except Exception as e:  # noqa: BLE001 - reported in the table
                row += [f"error: {type(e).__name__}", ""]
        rows.append(row)
    header = ["format", "size", "beacon parse_message", "beacon (vLLM plugin)", "vLLM's parser", "vLLM ÷ beacon",
              "beacon (SGLang detector)", "SGLang's detector", "SGLang ÷ beacon"]
    table("One-shot: the whole output, with the tools (target: the engines' parsers ≥ 10× slower)",
                header, rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    budget = 0.1 if args.quick else 0.6

    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers import ToolParserManager

    import beacon.integrations.sglang  # noqa: F401
    from beacon.integrations.vllm import BeaconToolParser

    # The schema of corpus.TYPICAL_ARGS, so that formats that write values as text are typed alike.
    weather = {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "unit": {"type": "string"},
            "days": {"type": "integer"},
            "include": {"type": "array", "items": {"type": "string"}},
            "options": {"type": "object"},
        },
    }
    tool_defs = [
        {"type": "function", "function": {"name": n, "parameters": weather if n == "get_weather" else {"type": "object"}}}
        for n in TOOL_NAMES
    ]
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}], tools=tool_defs)
    sg_tools = [Tool(**t) for t in tool_defs]

    one_shot(budget, tool_defs, request, sg_tools)

    rows = []
    for fmt_id, label, text, _ in corpus.typical_and_large():
        if fmt_id not in PEERS or label != "typical":
            continue
        vllm_name, sglang_name = PEERS[fmt_id]
        deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]
        want = [(c["name"], c["arguments"]) for c in beacon.parse_message(text, tools=tool_defs)["tool_calls"]]
        n = len(deltas)
        row = [fmt_id, str(n)]

        def alone():
            stream = beacon.ToolCallStream(tools=tool_defs, ids="generate", start="content")
            for d in deltas:
                stream.feed(d)
            stream.finish()

        row.append(fmt(best_seconds(alone, budget) / n))

        t = best_seconds(lambda: vllm_stream(BeaconToolParser, tool_defs, request, deltas, True), budget)
        assert same(vllm_stream(BeaconToolParser, tool_defs, request, deltas, True), want), fmt_id
        row.append(fmt(t / n))
        if vllm_name:
            try:
                peer = ToolParserManager.get_tool_parser(vllm_name)
                got = vllm_stream(peer, tool_defs, request, deltas, False)
                tp = best_seconds(lambda: vllm_stream(peer, tool_defs, request, deltas, False), budget)
                row += [fmt(tp / n) + ("" if same(got, want) else " (calls differ)"), f"{tp / t:.0f}×"]
            except Exception as e:  # noqa: BLE001 - reported in the table
                row += [f"error: {type(e).__name__}", ""]
        else:
            row += ["token-id based", ""]

        tb = best_seconds(lambda: sglang_stream(FunctionCallParser, sg_tools, "beacon", deltas), budget)
        assert same(sglang_stream(FunctionCallParser, sg_tools, "beacon", deltas), want), fmt_id
        row.append(fmt(tb / n))
        try:
            got = sglang_stream(FunctionCallParser, sg_tools, sglang_name, deltas)
            ts = best_seconds(lambda: sglang_stream(FunctionCallParser, sg_tools, sglang_name, deltas), budget)
            row += [fmt(ts / n) + ("" if same(got, want) else " (calls differ)"), f"{ts / tb:.0f}×"]
        except Exception as e:  # noqa: BLE001
            row += [f"error: {type(e).__name__}", ""]
        rows.append(row)

    header = ["format", "deltas", "ToolCallStream alone", "beacon (vLLM plugin)", "vLLM's parser", "vLLM ÷ beacon",
              "beacon (SGLang detector)", "SGLang's detector", "SGLang ÷ beacon"]
    table(f"Plugin overhead per streamed delta ({DELTA} code points; target: ≥ 10× less than the engines' own parsers)",
                header, rows)


if __name__ == "__main__":
    main()
