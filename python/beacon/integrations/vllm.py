"""beacon as vLLM's tool-call parser and reasoning parser (vLLM 0.33).

Load it with vLLM's plugin flags (docs/integrations.md)::

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin beacon.integrations.vllm --tool-call-parser beacon \\
        --reasoning-parser-plugin beacon.integrations.vllm --reasoning-parser beacon

Importing this module registers :class:`BeaconToolParser` with ``ToolParserManager`` and
:class:`BeaconReasoningParser` with ``ReasoningParserManager``, both as ``beacon``.

The rules:

- **Whole messages** (``extract_tool_calls``): :func:`beacon.parse_message` of the text with
  the request's ``tools`` (typing and unknown-tool handling, docs/tools.md), ids generated
  (a text's own ids kept). ``content`` is the text around the calls (``None`` when empty).
- **Streams** (``extract_tool_calls_streaming``): one :class:`beacon.ToolCallStream` per
  parser, which vLLM makes once per request (and choice), fed every ``delta_text``. Its events
  become one ``DeltaMessage``: ``content`` and ``reasoning`` texts, a call's
  ``DeltaToolCall(index, id, type="function", function={"name"})`` first, then its argument
  fragments ``DeltaToolCall(index, function={"arguments"})``. Joined by index they are the
  calls, their arguments JSON text of :func:`beacon.parse_message`'s. The parser declares
  ``engine_based_streaming`` so that vLLM calls :meth:`BeaconToolParser.finish_streaming`
  when the generation ends: what the stream held back (a JSON call in prose, the last text)
  comes then, never lost.
- **``tool_choice="none"``** (vLLM's default for a request without tools): no call format
  is recognised, so a call the model wrote anyway stays in the content as written (vLLM would
  otherwise drop the calls it is handed); the reasoning is still read.
- **Reasoning**: the stream reads the reasoning too (``DeltaMessage.reasoning``). The
  reasoning parser ``beacon`` gives ``reasoning_content`` to whole messages from the same
  :func:`beacon.parse_message`, and leaves the text to the tool parser: it says reasoning is
  over from the start (so vLLM hands every delta to the tool parser), and its
  ``extract_reasoning`` returns the text whole as the content, which the tool parser then
  reads (the reasoning removed). Use the two together.
- **Errors**: ``BEACON_ON_ERROR`` (:mod:`beacon.integrations`): ``raise`` (default), the
  :class:`beacon.ToolCallError` (a ``ValueError``) propagates and vLLM answers HTTP 400 with
  its text (``tool_call.… at line L, column C: …``), or ends the stream with an error; with
  ``content`` the error is logged and the raw text is the content.
- **Template**: ``BEACON_TEMPLATE`` (a file, or ``tokenizer``: the served model's chat template)
  adds the model's own format, inferred from its template (docs/templates.md).
- **Tokenizer**: beacon reads text only; the tokenizer vLLM passes is stored and never called
  (``BEACON_TEMPLATE=tokenizer`` reads its ``chat_template``, ``bos_token``, ``eos_token`` and
  ``all_special_tokens``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from vllm.entrypoints.generate.base.protocol import (
    DeltaMessage,
    ExtractedToolCallInformation,
)
from vllm.reasoning import ReasoningParser, ReasoningParserManager
from vllm.tool_parsers import ToolParser, ToolParserManager

from .. import Tools, ToolCallError
from . import Options, Stream, beacon_tools, log_error

__all__ = ["BeaconReasoningParser", "BeaconToolParser", "beacon_tools"]


#: The request, text, options and tools :func:`_parse` read last, and the message.
_parsed: Tuple[Any, ...] = (None, None, None, None, None)


def _parse(options: Options, text: str, request: Any, tools: Optional[Tools]) -> Dict[str, Any]:
    """``options.parse`` of a request's whole message. vLLM hands the reasoning parser, then
    the tool parser, the same request and text: the second reads the first's message (the same
    request object, text, options and tools), so the message is parsed once a request."""
    global _parsed
    calls = _calls_wanted(request)
    last_request, last_text, last_options, last_tools, message = _parsed
    if (
        request is not None
        and last_request is request
        and last_tools is tools
        and last_options == (options, calls)
        and last_text == text
    ):
        return message
    message = options.parse(text, tools, calls=calls)
    _parsed = (request, text, (options, calls), tools, message)
    return message


def _calls_wanted(request: Any) -> bool:
    """Whether the request lets the model call tools: not with ``tool_choice="none"`` (also
    what vLLM sets for a request without tools), when calls stay in the content as written."""
    return getattr(request, "tool_choice", None) != "none"


def _delta(events: List[Dict[str, Any]]) -> Optional[DeltaMessage]:
    """One ``DeltaMessage`` for ``events`` (neighbouring argument fragments of a call joined);
    ``None`` when they say nothing. Only the fields that say something are set, as vLLM's own
    parsers set them; the calls go to pydantic as plain dicts, which it validates into
    ``DeltaToolCall`` and ``DeltaFunctionCall`` in one call (4.96 µs a message with one argument
    fragment, against 6.82 µs for the three models built one by one)."""
    content: Optional[str] = None
    reasoning: Optional[str] = None
    calls: List[Dict[str, Any]] = []
    for e in events:
        kind = e["type"]
        if kind == "content":
            content = e["text"] if content is None else content + e["text"]
        elif kind == "reasoning":
            reasoning = e["text"] if reasoning is None else reasoning + e["text"]
        elif kind == "call_start":
            calls.append({"index": e["index"], "id": e["id"], "type": "function", "function": {"name": e["name"]}})
        elif kind == "arguments":
            last = calls[-1] if calls else None
            if last is not None and last["index"] == e["index"]:
                function = last["function"]
                function["arguments"] = function.get("arguments", "") + e["delta"]
            else:
                calls.append({"index": e["index"], "function": {"arguments": e["delta"]}})
    fields: Dict[str, Any] = {}
    if content is not None:
        fields["content"] = content
    if reasoning is not None:
        fields["reasoning"] = reasoning
    if calls:
        fields["tool_calls"] = calls
    return DeltaMessage(**fields) if fields else None


@ToolParserManager.register_module("beacon")
class BeaconToolParser(ToolParser):
    """vLLM's ``--tool-call-parser beacon`` (module docstring)."""

    # vLLM calls finish_streaming() at the end of a generation only for these.
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: Optional[list] = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, tools)
        self.options = Options.from_env(tokenizer=tokenizer)
        # The list vLLM makes the parser with is the request's own (its base class keeps a
        # filtered copy as ``self.tools``; beacon skips tools that are not functions itself).
        self._tools = beacon_tools(tools)
        self._stream: Optional[Stream] = None

    # ------------------------------------------------------------------ whole messages
    def _request_tools(self, request: Any) -> Optional[Tools]:
        """The request's tools compiled (those the parser was made with when the request has
        none)."""
        given = getattr(request, "tools", None) if request is not None else None
        return beacon_tools(given) or self._tools

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        tools = self._request_tools(request)
        try:
            message = _parse(self.options, model_output, request, tools)
        except ToolCallError as err:
            if self.options.on_error == "raise":
                raise
            log_error("vllm", err)
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        # Plain dicts, validated into vLLM's ToolCall and FunctionCall by the one model around
        # them: the same objects, 1.4 µs a call less than making each model on its own.
        calls = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for call in message["tool_calls"]
        ]
        return ExtractedToolCallInformation(  # type: ignore[arg-type]
            tools_called=bool(calls), tool_calls=calls, content=message["content"] or None
        )

    # ------------------------------------------------------------------ streams
    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[DeltaMessage]:
        if self._stream is None:
            self._stream = Stream(self.options, self._request_tools(request), "vllm", calls=_calls_wanted(request))
        if not delta_text:
            return None
        return _delta(self._stream.feed(delta_text))

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The generation ended: what the stream still held (vLLM calls this once, at the end)."""
        if self._stream is None:
            return None
        return _delta(self._stream.finish())

    def get_remaining_unstreamed_args(self) -> str:
        # Every argument fragment has been streamed by the time the stream finishes.
        return ""


@ReasoningParserManager.register_module("beacon")
class BeaconReasoningParser(ReasoningParser):
    """vLLM's ``--reasoning-parser beacon``: ``reasoning_content`` of whole messages from
    :func:`beacon.parse_message`; in streams the tool parser ``beacon`` reports the reasoning
    (module docstring)."""

    # So that vLLM treats the pair as one engine: the tool parser's content (the reasoning
    # removed) is the message's content also when it finds no call.
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self.options = Options.from_env(tokenizer=tokenizer)

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return True

    def finish_streaming(self) -> Optional[DeltaMessage]:
        return None

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        # The text goes to the tool parser whole, which reads the reasoning blocks itself.
        return True

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
        return True

    def extract_content_ids(self, input_ids: List[int]) -> List[int]:
        return list(input_ids)

    def extract_reasoning(self, model_output: str, request: Any) -> Tuple[Optional[str], Optional[str]]:
        tools = beacon_tools(getattr(request, "tools", None)) if request is not None else None
        try:
            reasoning = _parse(self.options, model_output, request, tools)["reasoning"]
        except ToolCallError:
            reasoning = None  # the tool parser reads the same text and reports the error
        return reasoning, model_output

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Optional[DeltaMessage]:
        # Not reached through vLLM's parser (is_reasoning_end is True): the text is content.
        return DeltaMessage(content=delta_text) if delta_text else None
