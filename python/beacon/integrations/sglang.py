"""beacon as an SGLang tool-call detector (SGLang 0.5.23).

SGLang's ``--tool-call-parser`` names are the keys of ``FunctionCallParser.ToolCallParserEnum``.
Importing this module adds ``beacon`` there (:func:`register`, the one line
``FunctionCallParser.ToolCallParserEnum["beacon"] = BeaconDetector``). An installed
``beacon-toolcall`` declares :func:`register` in SGLang's plugin entry-point group
(``sglang.srt.plugins``), which SGLang runs first in each of its processes, so that plain
``sglang serve --model-path MODEL --tool-call-parser beacon`` (or ``python -m
sglang.launch_server …``) works (docs/integrations.md). Without the installed metadata (beacon
on ``PYTHONPATH`` only), a launcher that imports this module first does the same::

    python -c 'import beacon.integrations.sglang, runpy; runpy.run_module("sglang.launch_server", run_name="__main__")' \
        --model-path MODEL --tool-call-parser beacon

The rules:

- ``detect_and_parse``: :func:`beacon.parse_message` of the text with the request's ``tools``;
  ``normal_text`` is the text around the calls (reasoning that reached the detector first, when
  the server has no ``--reasoning-parser``), each call a ``ToolCallItem`` whose
  ``parameters`` is the JSON text of its arguments and ``tool_index`` its tool's position in
  ``tools`` (-1 when undeclared), as SGLang's own detectors give it.
- ``parse_streaming_increment``: one :class:`beacon.ToolCallStream` per detector (SGLang
  makes one per request and choice), fed every chunk. A call's first item has its ``name`` and
  ``parameters=""``, the next its argument fragments; ``tool_index`` is the call's index in
  the message. Content (and reasoning, as above) is ``normal_text``. ``finish`` (called by
  SGLang at the end of the stream) reports what the stream held back.
- ``has_tool_call`` (SGLang parses a whole message only when it is true): whether
  :func:`beacon.scan_stream` sees a tagged call, or beacon's reading of the text differs from
  it (a call, a broken one, reasoning, or markup such as end-of-turn tokens, which beacon
  removes); text that only differs in surrounding whitespace stays as it is.
- Errors: ``BEACON_ON_ERROR`` (:mod:`beacon.integrations`). ``raise`` propagates
  :class:`beacon.ToolCallError`: SGLang's streaming path then ends the request with an error;
  its non-streaming path catches every detector exception itself and logs ``Tool call parsing
  error: <beacon's message>`` before answering with the raw text as content.
- No structural tags: beacon reads every format, so there is no one grammar to constrain the
  output with (``supports_structural_tag`` is ``False``); ``structure_info`` gives the Hermes
  shape for SGLang's legacy constrained ``tool_choice``.
- No tokenizer is needed; SGLang passes its own, which ``BEACON_TEMPLATE=tokenizer`` reads the
  chat template of (docs/integrations.md).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import StreamingParseResult, StructureInfo, ToolCallItem, _GetInfoFunc
from sglang.srt.function_call.function_call_parser import FunctionCallParser

from .. import ToolCallError, scan_stream
from . import Options, Stream, beacon_tools, log_error

__all__ = ["BeaconDetector", "beacon_tools", "register"]


def _tool_index(tools: Any) -> Dict[str, int]:
    out: Dict[str, int] = {}
    for i, tool in enumerate(tools or []):
        function = getattr(tool, "function", None)
        name = getattr(function, "name", None) if function is not None else None
        if name is None and isinstance(tool, dict):
            name = (tool.get("function") or {}).get("name")
        if name is not None:
            out.setdefault(name, i)
    return out


class BeaconDetector(BaseFormatDetector):
    """SGLang's ``--tool-call-parser beacon`` (module docstring)."""

    def __init__(self, tokenizer: Any = None) -> None:
        # SGLang passes its tokenizer to a detector that takes one (for BEACON_TEMPLATE=tokenizer).
        super().__init__()
        self.options = Options.from_env(tokenizer=tokenizer)
        self._stream: Optional[Stream] = None

    @classmethod
    def parses_without_tools(cls) -> bool:
        # Calls are read (and reported) also when the request declares no tools.
        return True

    def has_tool_call(self, text: str) -> bool:
        # SGLang's chat server parses a whole message only when this is true, and otherwise
        # returns the raw text: so it is true whenever beacon's reading differs from the text
        # (a call, a broken one, or markup beacon removes, such as end-of-turn tokens), or the
        # text ends inside a tagged call. The reading comes first: a text with a call needs no
        # scan (35 µs for a 10 KB hermes output, more than its parse).
        try:
            message = self.options.parse(text, None)
        except ToolCallError:
            return True
        if message["tool_calls"] or message["reasoning"] is not None or message["content"].strip() != text.strip():
            return True
        return scan_stream(text)["state"] != "none"

    def detect_and_parse(self, text: str, tools: List[Any]) -> StreamingParseResult:
        try:
            message = self.options.parse(text, beacon_tools(tools))
        except ToolCallError as err:
            if self.options.on_error == "raise":
                raise
            log_error("sglang", err)
            return StreamingParseResult(normal_text=text, calls=[])
        index = _tool_index(tools)
        calls = [
            ToolCallItem(
                tool_index=index.get(call["name"], -1),
                name=call["name"],
                parameters=call["arguments"],
            )
            for call in message["tool_calls"]
        ]
        return StreamingParseResult(normal_text=(message["reasoning"] or "") + message["content"], calls=calls)

    def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> StreamingParseResult:
        if self._stream is None:
            self._stream = Stream(self.options, beacon_tools(tools), "sglang")
        return self._result(self._stream.feed(new_text) if new_text else [])

    def finish(self, tools: List[Any]) -> StreamingParseResult:
        if self._stream is None:
            return StreamingParseResult(normal_text="", calls=[])
        return self._result(self._stream.finish())

    @staticmethod
    def _result(events: List[Dict[str, Any]]) -> StreamingParseResult:
        """One result for ``events``, a call's neighbouring argument fragments joined; the calls
        go to pydantic as plain dicts, validated into ``ToolCallItem`` in the same call."""
        if not events:
            # Both fields given: a default of pydantic's is deep-copied (1.19 µs against 2.11).
            return StreamingParseResult(normal_text="", calls=[])
        text: List[str] = []
        calls: List[Dict[str, Any]] = []
        for e in events:
            kind = e["type"]
            if kind in ("content", "reasoning"):
                text.append(e["text"])
            elif kind == "call_start":
                calls.append({"tool_index": e["index"], "name": e["name"], "parameters": ""})
            elif kind == "arguments":
                last = calls[-1] if calls else None
                if last is not None and last["tool_index"] == e["index"]:
                    last["parameters"] += e["delta"]
                else:
                    calls.append({"tool_index": e["index"], "name": None, "parameters": e["delta"]})
        return StreamingParseResult(normal_text="".join(text), calls=calls)

    def supports_structural_tag(self) -> bool:
        return False

    def structure_info(self) -> _GetInfoFunc:
        return lambda name: StructureInfo(
            begin='<tool_call>{"name": "' + name + '", "arguments": ',
            end="}</tool_call>",
            trigger="<tool_call>",
        )


def register() -> None:
    """Add ``beacon`` to SGLang's detectors (done on import; calling it again is harmless)."""
    FunctionCallParser.ToolCallParserEnum["beacon"] = BeaconDetector


register()
