"""beacon: the tool-call parser for LLM output.

Every model family writes tool calls differently; beacon turns any of the common formats into one
``{"name": ..., "arguments": {...}}`` shape, with one documented detection order and strict
argument parsing. A broken call raises :class:`ToolCallError` with a code and a position; it is
never silently dropped.

>>> import beacon
>>> beacon.parse_tool_call('Call: search(query="rust async", limit=5)')
{'name': 'search', 'arguments': {'query': 'rust async', 'limit': 5}}
>>> beacon.parse_tool_call('[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]')
{'name': 'search', 'arguments': {'q': 'rust'}}

:func:`parse_response` reads the tool calls out of a model API's response instead (OpenAI Chat
Completions and Responses, Anthropic, Gemini, Cohere, Bedrock, Ollama and every OpenAI-compatible
server), in one ``{"id", "name", "arguments"}`` shape; :func:`format_results` writes the tool
results back in the shape that API expects next.

The parsing runs in Rust (``beacon._core``, the same core as the WebAssembly package); a text of
64 KB or more is parsed without holding the GIL, so threads can parse large texts in parallel.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Iterable, List, Literal, Optional, Sequence, Tuple, TypedDict, TypeVar, Union, overload

from . import _core
from ._errors import NoToolCallFoundError, ToolCallError
from ._tools import Tools, check_as_models, compiled, to_model, to_models, tools_arg
from ._batch import ArrowArray, parse_arrow, parse_many
from ._template import FormatSpec, Template, spec_arg

__all__ = [
    "ArrowArray",
    "ERROR_CODES",
    "ErrorCode",
    "FORMATS",
    "Format",
    "FormatSpec",
    "NoToolCallFoundError",
    "PROVIDERS",
    "Provider",
    "ProviderCall",
    "Response",
    "ToolCall",
    "ToolCallError",
    "ToolCallWithFormat",
    "ToolResult",
    "Tools",
    "ToolDefinitions",
    "UnknownTools",
    "Message",
    "MessageToolCall",
    "__version__",
    "detect_provider",
    "format_calls",
    "format_results",
    "has_tool_calls",
    "parse_arrow",
    "parse_many",
    "parse_message",
    "parse_response",
    "parse_tool_call",
    "parse_tool_calls",
    "scan_stream",
    "ArgumentsEvent",
    "CallEndEvent",
    "CallStartEvent",
    "ContentEvent",
    "ReasoningEvent",
    "ResponseStream",
    "Start",
    "StreamEvent",
    "StreamScan",
    "ToolCallStream",
]

__version__: str = _core.__version__

# Shown (and pickled) as beacon.ToolCallError rather than beacon._errors.ToolCallError.
ToolCallError.__module__ = __name__
NoToolCallFoundError.__module__ = __name__
Tools.__module__ = __name__

#: The ``tools`` option: a :class:`Tools`, or a list of definitions (read on every call).
ToolDefinitions = Union[Tools, List[Any], Tuple[Any, ...]]

#: The ``unknown`` option: what a call to a tool not in the list is. ``"error"`` (the default):
#: a tagged call raises ``tool_call.unknown_tool``; ``"keep"``: every call is returned (unknown
#: ones untyped and unchecked); ``"drop"``: tagged calls to unknown tools are left out. Either
#: way a JSON or call-syntax candidate with an unknown name is content, not a call (except with
#: ``"keep"``).
UnknownTools = Literal["error", "keep", "drop"]

#: A format id: which format a call was written in (see ``include_format``).
Format = Literal[
    "hermes",
    "bracket",
    "mistral",
    "llama",
    "xml_invoke",
    "qwen3_coder",
    "deepseek_v3",
    "deepseek_v31",
    "deepseek_v32",
    "step3",
    "kimi_k2",
    "glm45",
    "longcat",
    "ifm",
    "minicpm",
    "harmony",
    "gemma4",
    "function_gemma",
    "pythonic",
    "command_r7b",
    "granite",
    "functionary_v31",
    "functionary_v32",
    "functools",
    "nemotron",
    "apertus",
    "tool_calls",
    "internlm",
    "gigachat",
    "solar_open",
    "json",
    "python",
]

#: Every format id: the tagged (tier 1) formats, then ``json`` (tier 2), then ``python`` (tier 3).
FORMATS: Tuple[Format, ...] = tuple(_core.FORMATS)

#: An error code: the ``code`` of a :class:`ToolCallError` (codes never change meaning between
#: releases).
ErrorCode = Literal[
    "tool_call.not_found",
    "tool_call.multiple",
    "tool_call.unrecognized",
    "tool_call.invalid_name",
    "tool_call.invalid_arguments",
    "tool_call.ambiguous_arguments",
    "tool_call.positional_argument",
    "tool_call.duplicate_argument",
    "tool_call.unclosed",
    "tool_call.syntax",
    "tool_call.invalid_literal",
    "tool_call.too_deep",
    "tool_call.unknown_tool",
    "tool_call.schema",
    "json.unexpected_token",
    "json.unexpected_end",
    "json.invalid_string",
    "json.invalid_escape",
    "json.invalid_unicode",
    "json.invalid_number",
    "json.duplicate_key",
    "json.too_deep",
    "json.invalid_utf8",
    "result.missing_field",
    "result.unsupported",
    "response.error",
    "template.render",
    "template.no_tool_calls",
    "template.ambiguous",
    "template.limit",
    "input.too_large",
    "internal",
]

#: Every error code, in the core's order (``tool_call.*``, ``json.*``, then the rest).
ERROR_CODES: Tuple[ErrorCode, ...] = tuple(_core.ERROR_CODES)


class _CallId(TypedDict, total=False):
    id: str


class ToolCall(_CallId):
    """One tool call: its name and its arguments, keys in the order written, plus ``"id"`` (first)
    when the format writes one (Kimi K2's ``functions.NAME:IDX``, Mistral's ``[CALL_ID]``,
    Command R7B's ``tool_call_id``).

    Argument values are plain builtins: ``dict``, ``list``, ``str``, ``int`` (exact at any size),
    ``float``, ``bool`` and ``None``.
    """

    name: str
    arguments: Dict[str, Any]


class ToolCallWithFormat(ToolCall):
    """A :class:`ToolCall` plus the id of the format it was written in."""

    format: Format


_Parse = TypeVar("_Parse", bound=Callable[..., Any])


def _direct(function: _Parse) -> _Parse:
    """``function``, one of the parse functions, called with its input alone by the core directly
    (``_core.Direct``: the options it would pass are the defaults), with any option by itself.
    It keeps the function's name, docstring, module and signature (``__wrapped__``)."""
    return functools.update_wrapper(_core.Direct(function.__name__, function), function)  # type: ignore[return-value]


def _format_ids(formats: Optional[Iterable[str]]) -> Optional[List[str]]:
    """The ``formats`` option as a list of ids (``None``: every format)."""
    if formats is None:
        return None
    if isinstance(formats, (str, bytes)):
        raise TypeError("formats must be a collection of format ids (e.g. ['hermes']), not a single string")
    ids = list(formats)
    for f in ids:
        if not isinstance(f, str):
            raise TypeError(f"formats must hold format ids (str), not {type(f).__name__}")
    return ids


@_direct
def parse_tool_call(
    text: str,
    *,
    formats: Optional[Iterable[Format]] = None,
    tools: Optional[ToolDefinitions] = None,
    validate: bool = True,
    unknown: UnknownTools = "error",
    as_models: bool = False,
    repair: bool = False,
    template: Optional[Union[FormatSpec, Template]] = None,
) -> ToolCall:
    """Parse the one tool call in ``text``.

    Returns ``{"name": str, "arguments": dict}``. Formats are tried in three tiers (tagged, then
    JSON call shapes, then Python call syntax) and the first tier that finds anything wins.

    >>> parse_tool_call('Call: search(query="rust async", limit=5)')
    {'name': 'search', 'arguments': {'query': 'rust async', 'limit': 5}}
    >>> parse_tool_call('[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]')
    {'name': 'search', 'arguments': {'q': 'rust'}}

    Raises:
        NoToolCallFoundError: there is no tool call in ``text`` (code ``tool_call.not_found``).
        ToolCallError: there is more than one call (``tool_call.multiple``, at the second call;
            use :func:`parse_tool_calls` when parallel calls are expected), or a call is broken;
            ``err.position`` is the code-point offset of the offending character in ``text``.
            A lone surrogate in ``text`` (not Unicode text) is ``json.invalid_unicode`` at its
            index.
        TypeError: ``text`` is not a ``str``, or ``formats`` is not a collection of ids.
        ValueError: ``formats`` holds an id that is not one of :data:`FORMATS`.

    ``formats`` (a collection of ids from :data:`FORMATS`) recognises only those formats;
    everything else is prose.

    ``tools`` (a :class:`Tools`, or a list of definitions), ``validate``, ``unknown``,
    ``as_models``, ``repair`` and ``template``: see :func:`parse_tool_calls`.
    """
    # Positional, and the tools steps only with tools: the common call has no Python-level work.
    t = None if tools is None else tools_arg(tools)
    if as_models:
        check_as_models("parse_tool_call", as_models, t)
    ids = None if formats is None else _format_ids(formats)
    spec = None if template is None else spec_arg("parse_tool_call", template)
    call = _core.parse_tool_call(text, ids, None if t is None else t._compiled, validate, unknown, repair, spec)
    return to_model(call, t) if as_models and t is not None else call


class MessageToolCall(TypedDict):
    """One call of a :class:`Message`: its ``id`` (the one the text wrote, one generated with
    ``ids="generate"``, or ``None``), ``name``, ``arguments``, the ``format`` it was written in, and
    its ``span``: ``[start, end]``, code-point offsets in the text (``text[start:end]`` is the call)."""

    id: Optional[str]
    name: str
    arguments: Dict[str, Any]
    format: Format
    span: List[int]


class Message(TypedDict):
    """A whole model message: the ``content`` (the text without the calls, the reasoning blocks
    and the end-of-turn tokens), the ``reasoning`` (the text inside the reasoning blocks, or
    ``None`` when there is none) and the ``tool_calls``, in text order."""

    content: str
    reasoning: Optional[str]
    tool_calls: List[MessageToolCall]


@_direct
def parse_message(
    text: str,
    *,
    formats: Optional[Iterable[Format]] = None,
    ids: Optional[Literal["generate"]] = None,
    id_seed: Optional[str] = None,
    tools: Optional[ToolDefinitions] = None,
    validate: bool = True,
    unknown: UnknownTools = "error",
    as_models: bool = False,
    repair: bool = False,
    template: Optional[Union[FormatSpec, Template]] = None,
) -> Message:
    """Parse a whole model message: the text around the calls, the reasoning, and every call with
    its id, format and span.

    >>> text = '<think>Weather first.</think>Let me check.\\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    >>> message = parse_message(text)
    >>> message["content"], message["reasoning"]
    ('Let me check.', 'Weather first.')
    >>> message["tool_calls"]
    [{'id': None, 'name': 'get_weather', 'arguments': {'city': 'Paris'}, 'format': 'hermes', 'span': [43, 121]}]
    >>> parse_message(text, ids="generate")["tool_calls"][0]["id"][:5]
    'call_'

    No call is no error: ``tool_calls`` is then ``[]`` and ``content`` the text less any
    reasoning. ``ids="generate"`` gives every call without an id one (``call_`` and 24 letters
    and digits) from a fresh random seed, so ids are unique across outputs, as a server's are;
    ``id_seed="request-42"`` gives deterministic ones instead: the same seed and text give the same
    ids every time, on every target (JavaScript's ``idSeed``) and in a :class:`ToolCallStream`.
    By default (``ids=None``, no ``id_seed``) nothing is invented. ``formats`` recognises only those formats, and ``tools``, ``validate``,
    ``unknown`` and ``as_models`` check the calls against the caller's tools, as for
    :func:`parse_tool_calls` (a JSON or call-syntax candidate with an unknown name stays in
    ``content``). ``repair=True`` mends the model mistakes :func:`parse_tool_calls` lists; the
    message then also has ``repairs``, every receipt in text order (each also in its call's
    ``repairs``).

    Raises:
        ToolCallError: a call is broken (as :func:`parse_tool_calls` raises it), or ``text``
            holds a lone surrogate (``json.invalid_unicode``).
        TypeError: ``text`` is not a ``str``, ``formats`` is not a collection of ids, or ``ids``
            or ``id_seed`` is not a ``str`` or ``None``.
        ValueError: ``formats`` holds an unknown id, or ``ids`` is a ``str`` other than
            ``"generate"``.
    """
    t = None if tools is None else tools_arg(tools)
    if as_models:
        check_as_models("parse_message", as_models, t)
    format_ids = None if formats is None else _format_ids(formats)
    spec = None if template is None else spec_arg("parse_message", template)
    message = _core.parse_message(
        text,
        format_ids,
        ids,
        None if t is None else t._compiled,
        validate,
        unknown,
        id_seed=id_seed,
        repair=repair,
        spec=spec,
    )
    if as_models:
        to_models(message["tool_calls"], t, as_models)
    return message


class StreamScan(TypedDict):
    """What :func:`scan_stream` found: ``state`` and the code-point ``position`` up to which the
    text is prose that may be shown."""

    state: Literal["none", "partial", "found"]
    position: int


def scan_stream(text: str) -> StreamScan:
    """Tell a reader of streamed model output whether to hold it back.

    Call it with the text received so far. ``state`` is ``"none"`` when no tagged call has
    started (show everything; ``position`` is ``len(text)``), ``"partial"`` when a tagged call has
    started but is incomplete, or the text ends with what may begin a marker (show
    ``text[:position]``, hold the rest), and ``"found"`` when a complete tagged call is there, or a
    broken one (show ``text[:position]``; parse the whole message when it ends). Only tagged
    calls are announced by a marker: bare JSON and call syntax are read once the message is
    complete.

    >>> scan_stream("The weather is fine.")
    {'state': 'none', 'position': 20}
    >>> scan_stream("Let me check <tool_")
    {'state': 'partial', 'position': 13}
    >>> scan_stream('Checking.\\n<tool_call>{"name": "get_weather", "argu')
    {'state': 'partial', 'position': 10}
    >>> scan_stream('Checking.\\n<tool_call>{"name": "f", "arguments": {}}</tool_call>')
    {'state': 'found', 'position': 10}

    Raises:
        ToolCallError: ``text`` holds a lone surrogate, which is not Unicode text
            (``json.invalid_unicode`` at its index).
        TypeError: ``text`` is not a ``str``.
    """
    return _core.scan_stream(text)


# --------------------------------------------------------------------------------- streaming


class ContentEvent(TypedDict):
    """Text of the content, as soon as it is certain no marker or tag is in it."""

    type: Literal["content"]
    text: str


class ReasoningEvent(TypedDict):
    """Text of the reasoning."""

    type: Literal["reasoning"]
    text: str


class CallStartEvent(TypedDict):
    """A call begins: the ``index``-th call of the message (from 0), its ``id`` (the one the text
    wrote, one generated with ``ids="generate"`` or ``id_seed``, or ``None``), ``name`` and ``format``."""

    type: Literal["call_start"]
    index: int
    id: Optional[str]
    name: str
    format: Format


class ArgumentsEvent(TypedDict):
    """A fragment of the JSON text of call ``index``'s arguments."""

    type: Literal["arguments"]
    index: int
    delta: str


class _Repairs(TypedDict, total=False):
    repairs: List[Dict[str, Any]]


class CallEndEvent(_Repairs):
    """Call ``index`` is complete: its ``arguments``, which its fragments add up to, and, with
    ``repair=True``, ``repairs`` when the call was mended."""

    type: Literal["call_end"]
    index: int
    arguments: Dict[str, Any]


#: What :class:`ToolCallStream` and :class:`ResponseStream` report, in order.
StreamEvent = Union[ContentEvent, ReasoningEvent, CallStartEvent, ArgumentsEvent, CallEndEvent]

#: The ``start`` option of :class:`ToolCallStream`: whether the text begins inside a reasoning
#: block the prompt opened.
Start = Literal["detect", "content", "reasoning"]


class ToolCallStream(_core.ToolCallStream):
    """Parse a model's output while it arrives: :meth:`feed` each delta, then :meth:`finish`.

    The events add up to :func:`parse_message` of the whole text with the same options, however
    the text is split: the ``content`` texts joined are its ``content``, the ``reasoning`` texts
    its ``reasoning``, the calls (``call_start`` … ``call_end``) its ``tool_calls`` in order, and
    each call's ``arguments`` deltas joined are JSON text of its ``call_end`` arguments (``"{}"``
    for none). Prose is reported at once, except text that may begin a marker, held until it is
    decided; no event ever shows part of a marker, a wrapper tag or an end-of-turn token.

    >>> stream = ToolCallStream(start="content")
    >>> stream.feed("Let me check.\\n<tool_")
    [{'type': 'content', 'text': 'Let me check.'}]
    >>> stream.feed('call>{"name": "get_weather", "arguments": {"city": "Pa')
    [{'type': 'call_start', 'index': 0, 'id': None, 'name': 'get_weather', 'format': 'hermes'}, {'type': 'arguments', 'index': 0, 'delta': '{"city": "Pa'}]
    >>> stream.feed('ris"}}</tool_call>')
    [{'type': 'arguments', 'index': 0, 'delta': 'ris"}'}, {'type': 'call_end', 'index': 0, 'arguments': {'city': 'Paris'}}]
    >>> stream.finish()
    []

    ``start`` says where the text begins:

    - ``"detect"`` (the default) tells from the text, as :func:`parse_message` does: a
      ``</think>`` (or ``[/THINK]``, ``</seed:think>``, ``</longcat_think>``,
      ``<|END_THINKING|>``, Gemma 4's ``<channel|>``) with no open tag
      before it closes a reasoning block the prompt opened. Only a later close tag can tell, so
      the stream holds its text (and its calls) until such a close tag arrives, an open tag of
      its kind comes first, or the text ends.
    - ``"content"``: the prompt opened no reasoning block; text streams at once, and a close tag
      without its open tag is content.
    - ``"reasoning"``: the prompt ended with an open tag (as the templates of many reasoning
      models do): the text is reasoning up to the first close tag.

    Give ``"content"`` or ``"reasoning"`` when the prompt's template is known. ``formats``,
    ``ids``, ``id_seed``, ``tools``, ``validate``, ``unknown`` and ``template`` are
    :func:`parse_message`'s options
    (a stream draws its random seed once: with ``id_seed`` it gives the ids :func:`parse_message`
    gives, each at its ``call_start``).

    Tagged calls stream (name first, then argument fragments while the arguments are written out
    as a JSON object), and so does a message that *begins* with a JSON or call-syntax call; a JSON
    or call-syntax call inside prose, and a call inside reasoning (returned only when no call
    stands outside it), is reported by :meth:`finish`.

    With ``repair=True`` the events add up to ``parse_message(text, repair=True)``: each call
    comes whole (its ``call_start``, one ``arguments`` delta and its ``call_end`` together, once
    the call is complete), and a mended call's ``call_end`` has ``repairs``, its receipts
    (docs/repair.md). A mistake is mended once the text has ended: the events stop at the call
    that holds it, and :meth:`finish` reports the rest.

    Raises:
        ToolCallError: from :meth:`feed` or :meth:`finish`, the error :func:`parse_message`
            raises on the whole text (the same code, and the position in code points of
            everything fed); the stream is then over.
        TypeError, ValueError: a bad option, as for :func:`parse_message`, or ``feed`` of
            something other than a ``str``; ``ValueError`` for :meth:`feed` or :meth:`finish`
            once the stream has finished.
    """

    # `feed`, `finish` and `finished` are the core's own: a feed is one call into the core.
    __slots__ = ("_tools",)

    def __new__(
        cls,
        *,
        formats: Optional[Iterable[Format]] = None,
        ids: Optional[Literal["generate"]] = None,
        id_seed: Optional[str] = None,
        tools: Optional[ToolDefinitions] = None,
        validate: bool = True,
        unknown: UnknownTools = "error",
        start: Start = "detect",
        repair: bool = False,
        template: Optional[Union[FormatSpec, Template]] = None,
    ) -> "ToolCallStream":
        definitions = tools_arg(tools)
        self = super().__new__(
            cls,
            spec=None if template is None else spec_arg("ToolCallStream", template),
            formats=_format_ids(formats),
            ids=ids,
            tools=compiled(definitions),
            validate=validate,
            unknown=unknown,
            start=start,
            id_seed=id_seed,
            repair=repair,
        )
        self._tools = definitions
        return self

    def feed_many(self, deltas: Sequence[str]) -> List[StreamEvent]:
        """Add several pieces at once, in one call into the core: the events :meth:`feed` would
        give for them one by one, with neighbouring texts of one kind joined.

        >>> stream = ToolCallStream(start="content")
        >>> stream.feed_many(["Sure. ", "<tool_call>", '{"name": "f", "arguments": {}}', "</tool_call>"])[1:]
        [{'type': 'call_start', 'index': 0, 'id': None, 'name': 'f', 'format': 'hermes'}, {'type': 'arguments', 'index': 0, 'delta': '{}'}, {'type': 'call_end', 'index': 0, 'arguments': {}}]

        Raises:
            TypeError: ``deltas`` is not a list or tuple of ``str``.
            ToolCallError: as :meth:`feed`, positioned in all the text fed.
        """
        if not isinstance(deltas, (list, tuple)):
            raise TypeError(
                f"ToolCallStream.feed_many() argument 'deltas' must be a list or tuple of str, not {type(deltas).__name__}"
            )
        try:
            text = "".join(deltas)
        except TypeError:
            i, delta = next((i, d) for i, d in enumerate(deltas) if not isinstance(d, str))
            raise TypeError(f"ToolCallStream.feed_many(): deltas[{i}] must be str, not {type(delta).__name__}") from None
        return self.feed(text)


class ResponseStream(_core.ResponseStream):
    """Read a model API's response stream while it arrives: :meth:`feed` each piece, then
    :meth:`finish`. The events are :class:`ToolCallStream`'s: ``content`` for the assistant's
    text, ``reasoning`` where the API marks it (Anthropic thinking, Gemini thoughts, Cohere's tool
    plan, ``reasoning_content`` deltas), and each call as ``call_start`` (``format`` is
    ``"json"``), ``arguments`` fragments and ``call_end``. The calls add up to
    :func:`parse_response` of the whole recording.

    >>> stream = ResponseStream()
    >>> stream.feed('data: {"type":"content_block_start","index":0,"content_block":'
    ...             '{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}\\n\\n')
    [{'type': 'call_start', 'index': 0, 'id': 'toolu_1', 'name': 'get_weather', 'format': 'json'}]
    >>> stream.feed('data: {"type":"content_block_delta","index":0,"delta":'
    ...             '{"type":"input_json_delta","partial_json":"{\\\\"city\\\\": \\\\"Paris\\\\"}"}}\\n\\n')
    [{'type': 'arguments', 'index': 0, 'delta': '{"city": "Paris"}'}]
    >>> stream.feed('data: {"type":"content_block_stop","index":0}\\n\\n')
    [{'type': 'call_end', 'index': 0, 'arguments': {'city': 'Paris'}}]
    >>> stream.finish()
    []

    A piece is text of the stream (``str``: SSE ``data:`` lines, NDJSON, or a JSON list of
    events, cut anywhere), UTF-8 ``bytes`` / ``bytearray`` (a character may be cut between two
    pieces; positions then count bytes), or events already decoded: one ``dict`` or SDK
    stream-event object (with ``model_dump()`` or ``to_dict()``, as the OpenAI, Anthropic and
    Google SDKs yield them), or a list of them. A stream is fed one of these kinds throughout.
    ``provider="auto"`` detects the API from the first event; a provider id reads that API's
    events only.

    ``tools``, ``validate`` and ``unknown`` are :func:`parse_response`'s options, applied to each
    call as it ends, so that the calls (and the error) are those of :func:`parse_response` on the
    whole recording with them: a ``call_end`` carries the checked arguments; a call that fails
    stops the events, and :meth:`finish` raises what :func:`parse_response` raises (an error in a
    later event comes first, as there); with ``unknown="drop"`` a call's events wait for its end,
    so that a dropped call shows nothing. With ``repair=True`` (as for :func:`parse_response`)
    each call's events also wait for its end (one ``arguments`` delta), and a mended call's
    ``call_end`` has ``repairs``.

    Raises:
        ToolCallError: as :func:`parse_response` raises on the whole recording: malformed
            JSON (``json.*``, at its position in everything fed), ``response.error`` for an error
            event (with the API's message), a stream that ends inside a call, and with ``tools``
            ``tool_call.unknown_tool`` / ``tool_call.schema`` (from :meth:`finish`); the stream is
            then over.
        TypeError: a piece of another type, or of another kind than the pieces before it; a bad
            ``tools`` option, as for :func:`parse_response`.
        ValueError: ``provider`` is not ``"auto"`` or one of :data:`PROVIDERS`; a bad ``tools``
            or ``unknown`` option; :meth:`feed` or :meth:`finish` once the stream has finished.
    """

    # `feed`, `finish` and `finished` are the core's own, as :class:`ToolCallStream`'s are.
    __slots__ = ("_tools",)

    def __new__(
        cls,
        provider: Union[Provider, Literal["auto"]] = "auto",
        *,
        tools: Optional[ToolDefinitions] = None,
        validate: bool = True,
        unknown: UnknownTools = "error",
        repair: bool = False,
    ) -> "ResponseStream":
        definitions = tools_arg(tools)
        self = super().__new__(cls, provider, tools=compiled(definitions), validate=validate, unknown=unknown, repair=repair)
        self._tools = definitions
        return self


@overload
def parse_tool_calls(
    text: str,
    *,
    include_format: Literal[False] = ...,
    formats: Optional[Iterable[Format]] = ...,
    tools: Optional[ToolDefinitions] = ...,
    validate: bool = ...,
    unknown: UnknownTools = ...,
    as_models: bool = ...,
    repair: bool = ...,
) -> List[ToolCall]: ...
@overload
def parse_tool_calls(
    text: str,
    *,
    include_format: Literal[True],
    formats: Optional[Iterable[Format]] = ...,
    tools: Optional[ToolDefinitions] = ...,
    validate: bool = ...,
    unknown: UnknownTools = ...,
    as_models: bool = ...,
    repair: bool = ...,
) -> List[ToolCallWithFormat]: ...
@overload
def parse_tool_calls(
    text: str,
    *,
    include_format: bool = ...,
    formats: Optional[Iterable[Format]] = ...,
    tools: Optional[ToolDefinitions] = ...,
    validate: bool = ...,
    unknown: UnknownTools = ...,
    as_models: bool = ...,
    repair: bool = ...,
) -> Union[List[ToolCall], List[ToolCallWithFormat]]: ...


@_direct
def parse_tool_calls(
    text: str,
    *,
    include_format: bool = False,
    formats: Optional[Iterable[Format]] = None,
    tools: Optional[ToolDefinitions] = None,
    validate: bool = True,
    unknown: UnknownTools = "error",
    as_models: bool = False,
    repair: bool = False,
    template: Optional[Union[FormatSpec, Template]] = None,
) -> Union[List[ToolCall], List[ToolCallWithFormat]]:
    """Parse every tool call in ``text``, in text order.

    Each call is ``{"name": str, "arguments": dict}``; with ``include_format=True`` it also has
    ``"format"``, the id of the format it was written in (one of :data:`FORMATS`).

    >>> parse_tool_calls('[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]')
    [{'name': 'search', 'arguments': {'q': 'rust'}}]
    >>> text = '<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call> [TOOL_CALL]name=b[/TOOL_CALL]'
    >>> parse_tool_calls(text, include_format=True)
    [{'name': 'a', 'arguments': {'x': 1}, 'format': 'hermes'}, {'name': 'b', 'arguments': {}, 'format': 'bracket'}]

    Raises:
        NoToolCallFoundError: there is no tool call in ``text`` (an empty list is never returned).
        ToolCallError: a call is broken; ``err.position`` is the code-point offset of the
            offending character in ``text``. A lone surrogate in ``text`` (not Unicode text) is
            ``json.invalid_unicode`` at its index.
        TypeError: ``text`` is not a ``str``, or ``formats`` is not a collection of ids.
        ValueError: ``formats`` holds an id that is not one of :data:`FORMATS`.

    ``formats`` (a collection of ids from :data:`FORMATS`) recognises only those formats;
    everything else is prose (so a marker of another format claims nothing).

    ``tools`` (a :class:`Tools`, or a list of definitions, read on every call) names, types and
    validates the calls (README: "Tools and schemas"): a tagged call to a tool not in the list
    raises ``tool_call.unknown_tool`` (``unknown="keep"`` returns it, ``unknown="drop"`` leaves
    it out), a JSON or call-syntax candidate with an unknown name is prose; values a format writes
    as text are typed by the schema; arguments that break the schema raise ``tool_call.schema``
    with ``err.path``, the JSON pointer of the offending value (``validate=False``: naming and
    typing only). ``as_models=True`` returns the arguments of a call to a pydantic-model tool as a
    validated instance of the model (other calls keep a ``dict``); a model's own validators that
    reject them raise pydantic's ``ValidationError``.

    ``repair=True`` mends a fixed list of model mistakes (docs/repair.md: a missing
    ``</parameter>``-style close, a trailing comma, Python literals, raw control characters in
    strings, leading zeros, a Python set, an unescaped inner quote with one reading, arguments
    wrapped in one ``arguments``/``input`` parameter, arguments encoded twice) and reports each: a repaired call has ``"repairs"``, a list of
    ``{"code", "message", "position", "line", "column", "call_index"}``. A call cut off by the end
    of the text still raises (``err.truncated``).

    >>> parse_tool_calls('<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>', repair=True)[0]["repairs"][0]["code"]
    'repair.trailing_comma'

    >>> parse_tool_calls('<function=lookup_zip><parameter=zip>10001</parameter></function>',
    ...                  tools=[{"name": "lookup_zip", "input_schema": {"properties": {"zip": {"type": "string"}}}}])
    [{'name': 'lookup_zip', 'arguments': {'zip': '10001'}}]

    ``template`` (a :class:`FormatSpec`, or a model's chat template: its Jinja text or a
    ``tokenizer_config.json``, inferred once per template and cached) adds the format that
    template writes (docs/templates.md); its calls have the format id ``"spec"``. With
    ``formats=[]`` it is the only format recognised. Where its opening marker is also a
    built-in format's, the template's format reads the call.
    """
    t = None if tools is None else tools_arg(tools)
    if as_models:
        check_as_models("parse_tool_calls", as_models, t)
    ids = None if formats is None else _format_ids(formats)
    spec = None if template is None else spec_arg("parse_tool_calls", template)
    calls = _core.parse_tool_calls(
        text, include_format, ids, None if t is None else t._compiled, validate, unknown, repair, spec
    )
    return to_models(calls, t, as_models) if as_models else calls


# --------------------------------------------------------------------------- provider responses

#: A provider id: which model API a response came from (and the one :func:`format_results`
#: writes for).
Provider = Literal[
    "openai_chat",
    "openai_responses",
    "anthropic",
    "gemini",
    "gemini_interactions",
    "cohere_v1",
    "cohere_v2",
    "bedrock",
    "ollama",
]

#: Every provider id.
PROVIDERS: Tuple[Provider, ...] = tuple(_core.PROVIDERS)

#: What the provider functions accept as a response: its JSON as ``str``, as UTF-8 ``bytes`` /
#: ``bytearray`` (an HTTP body), or already decoded (what ``json.loads`` returns).
Response = Union[str, bytes, bytearray, Dict[str, Any], List[Any], Tuple[Any, ...], int, float, None]


class ProviderCall(_Repairs):
    """One tool call read from a provider response (``repairs`` only with ``repair=True``, when
    its arguments were mended).

    ``id`` is the one to send back with the result (Responses API: ``call_id``; Bedrock:
    ``toolUseId``), or ``None`` when the provider gave none: never invented. ``arguments`` keeps
    the keys in the order written; its values are plain builtins as in :class:`ToolCall`.
    """

    id: Optional[str]
    name: str
    arguments: Dict[str, Any]


class _ToolResultContent(TypedDict):
    content: Any


class ToolResult(_ToolResultContent, total=False):
    """The result of running one tool call, for :func:`format_results`.

    ``content`` (required) is a ``str`` or any JSON value. ``id`` and ``name`` are the call's
    (``None`` or missing when unknown; each provider requires one of them); ``is_error`` (default
    ``False``) says the tool failed. No other key is accepted.
    """

    id: Optional[str]
    name: Optional[str]
    is_error: bool


@_direct
def parse_response(
    response: Response,
    *,
    provider: Union[Provider, Literal["auto"]] = "auto",
    text_fallback: bool = False,
    tools: Optional[ToolDefinitions] = None,
    validate: bool = True,
    unknown: UnknownTools = "error",
    as_models: bool = False,
    repair: bool = False,
) -> List[ProviderCall]:
    """The tool calls in a model API's response, in response order.

    Each call is ``{"id": str | None, "name": str, "arguments": dict}``. ``provider="auto"``
    detects the API (:func:`detect_provider`); a provider id reads that API's paths only. A
    response with no calls (or plain text, or JSON of no known API) gives ``[]``, not an error.
    With ``text_fallback=True``, a response without structured calls has its assistant text read
    by :func:`parse_tool_calls` (those calls have ``id`` ``None``).

    >>> response = {"type": "message", "role": "assistant", "stop_reason": "tool_use",
    ...             "content": [{"type": "tool_use", "id": "toolu_01", "name": "get_weather",
    ...                          "input": {"city": "Paris"}}]}
    >>> parse_response(response)
    [{'id': 'toolu_01', 'name': 'get_weather', 'arguments': {'city': 'Paris'}}]

    ``response`` is the response body: JSON text as ``str`` (error positions in code points),
    UTF-8 JSON as ``bytes`` or ``bytearray`` (error positions, lines and columns counted in
    **bytes** of the caller's buffer; bytes that are not UTF-8 raise ``json.invalid_utf8`` where
    the first invalid sequence starts), or the value already decoded, as ``json.loads`` returns it
    (``dict``, ``list``, ``tuple``, ``int``, ``float``, ``bool``, ``None``; dict keys must be
    ``str``). A ``str`` is always text: one whose first non-whitespace character (after a leading
    byte-order mark, which is skipped) is not ``{`` or ``[`` is a plain-text answer, with no
    provider and no calls.

    >>> body = ('{"model": "qwen3", "done": true, "message": {"role": "assistant", "tool_calls": '
    ...         '[{"function": {"name": "get_weather", "arguments": {"city": "Zürich"}}}]}}').encode()
    >>> parse_response(body)
    [{'id': None, 'name': 'get_weather', 'arguments': {'city': 'Zürich'}}]
    >>> try:
    ...     parse_response('{"city": "Zürich", "x": }'.encode())
    ... except ToolCallError as err:
    ...     print(err.code, err.position)  # in bytes: "ü" is two
    json.unexpected_token 25
    >>> try:
    ...     parse_response(b'{"city": "Z\\xfcrich"}')  # Latin-1, not UTF-8
    ... except ToolCallError as err:
    ...     print(err.code, err.position)
    json.invalid_utf8 11

    ``tools`` (a :class:`Tools`, or a list of definitions), ``validate``, ``unknown`` and
    ``as_models`` work as for :func:`parse_tool_calls`: a call to a tool not in the list raises
    ``tool_call.unknown_tool`` at its name (``unknown="keep"`` returns it, ``"drop"`` leaves it
    out); arguments that break the tool's schema raise ``tool_call.schema`` with ``err.path`` and
    the position of the offending value, also inside an ``arguments`` string holding JSON. API
    arguments are JSON, so nothing is retyped: ``{"zip": 10001}`` for a ``string`` parameter is a
    violation. The text fallback reads the assistant text with the tools (typing included).

    >>> tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    ...     "type": "object", "properties": {"unit": {"enum": ["celsius", "fahrenheit"]}}}}}]
    >>> text = ('{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": '
    ...         '{"name": "get_weather", "arguments": "{\\\\"unit\\\\": \\\\"kelvin\\\\"}"}}]}')
    >>> try:
    ...     parse_response(text, tools=tools)
    ... except ToolCallError as err:
    ...     print(err.code, err.path, text[err.position:err.position + 8])
    tool_call.schema /unit \\"kelvin

    ``repair=True`` mends the model mistakes of docs/repair.md in an ``arguments`` string (or
    its streamed fragments, and in the text the fallback reads): a mended call has
    ``"repairs"``, its receipts, positioned in the response text (0 for a decoded value).

    >>> text = ('{"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": '
    ...         '{"name": "f", "arguments": "{\\\\"a\\\\": 1,}"}}]}')
    >>> [call] = parse_response(text, repair=True)
    >>> call["arguments"], call["repairs"][0]["code"], text[call["repairs"][0]["position"]:][:2]
    ({'a': 1}, 'repair.trailing_comma', ',}')

    Raises:
        ToolCallError: malformed JSON (``json.*``, with its position), or a broken call:
            ``tool_call.invalid_arguments`` (arguments not an object, or an arguments string that
            is not valid JSON), ``tool_call.ambiguous_arguments`` (two arguments keys),
            ``tool_call.invalid_name``, ``tool_call.unrecognized`` (also a container of the wrong
            type on the way to calls); the message names the tool and its path in the response
            (e.g. ``choices[0].message.tool_calls[1].function.arguments``). ``response.error``:
            the response is an error the API returned (an object with an ``error`` member, alone
            or among streamed chunks); the message carries the API's message. A lone surrogate
            in a ``str`` (which has no UTF-8 form) is ``json.invalid_unicode``. For a decoded
            value the position is 0 (line 1, column 1) and the message's path is the position; a
            NaN or infinite float in it is ``json.invalid_number``, nesting deeper than 128 (or
            a cycle) ``json.too_deep``, a ``str`` subclass key repeated ``json.duplicate_key``.
        TypeError: ``response`` (or a value inside it, named by its path) has a type JSON does not
            have, or a dict key is not a ``str``.
        ValueError: ``provider`` is neither ``"auto"`` nor one of :data:`PROVIDERS`.
    """
    t = None if tools is None else tools_arg(tools)
    if as_models:
        check_as_models("parse_response", as_models, t)
    calls = _core.parse_response(
        response, provider, text_fallback, None if t is None else t._compiled, validate, unknown, repair
    )
    return to_models(calls, t, as_models) if as_models else calls


def detect_provider(response: Response) -> Optional[Provider]:
    """Which API ``response`` came from, one of :data:`PROVIDERS`, or ``None`` (plain text, or
    JSON of no known API). Judged from the response's keys alone (README: "Detection").

    >>> detect_provider({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}]})
    'gemini'
    >>> detect_provider("Paris is the capital of France.") is None
    True

    ``response`` is a ``str``, ``bytes``/``bytearray`` or decoded value, as for
    :func:`parse_response`.

    Raises:
        ToolCallError: the response is text that starts with ``{`` or ``[`` but is not strict JSON
            (the same error as :func:`parse_response`), or not UTF-8 (``json.invalid_utf8``).
        TypeError: as for :func:`parse_response`.
    """
    return _core.detect_provider(response)


def has_tool_calls(
    response: Response, *, provider: Union[Provider, Literal["auto"]] = "auto", text_fallback: bool = False
) -> bool:
    """Whether ``response`` has tool calls: exactly ``len(parse_response(...)) > 0``, with the
    same arguments and the same errors.

    >>> has_tool_calls('{"model": "qwen3", "message": {"role": "assistant", "content": "Hi."}, "done": true}')
    False

    ``response`` is a ``str``, ``bytes``/``bytearray`` or decoded value, as for
    :func:`parse_response`.

    Raises:
        ToolCallError, TypeError, ValueError: as for :func:`parse_response`.
    """
    return _core.has_tool_calls(response, provider=provider, text_fallback=text_fallback)


def format_results(
    results: Union[List[ToolResult], Tuple[ToolResult, ...]], provider: Provider
) -> List[Any]:
    """The messages (or content blocks, or parts) that carry ``results`` back to ``provider``,
    as plain builtins, in the order given, ready to append to the conversation.

    Each result is ``{"id", "name", "content", "is_error"}`` (:class:`ToolResult`): ``content`` a
    ``str`` or any JSON value (where the API wants text, other content becomes its compact JSON).

    >>> format_results([{"id": "toolu_01", "name": "get_weather", "content": "22°C"}], "anthropic")
    [{'type': 'tool_result', 'tool_use_id': 'toolu_01', 'content': '22°C'}]
    >>> format_results([{"name": "get_weather", "content": {"temp": 22}}], "gemini")
    [{'functionResponse': {'name': 'get_weather', 'response': {'temp': 22}}}]

    Raises:
        ToolCallError: ``result.missing_field`` when a result lacks (or has an empty) id or name
            its provider requires; ``result.unsupported`` for ``cohere_v1`` (answer with
            ``cohere_v2``); ``json.invalid_number`` for a NaN or infinite float in ``content``
            (``json.too_deep`` for nesting deeper than 128). Position 0; the message names the
            result's index.
        TypeError: ``results`` is not a list or tuple of dicts, a result has an unknown key or no
            ``content``, ``id``/``name`` is not ``str`` or ``None``, ``is_error`` is not a
            ``bool``, or ``content`` holds a type JSON does not have.
        ValueError: ``provider`` is not one of :data:`PROVIDERS` (``"auto"`` is not accepted).
    """
    return _core.format_results(results, provider)


def format_calls(
    calls: Union[List[Any], Tuple[Any, ...]],
    provider: Optional[Provider] = None,
    *,
    content: Optional[str] = None,
    template: Optional[Union[FormatSpec, Template]] = None,
) -> Any:
    """The assistant message that carries ``calls`` (and ``content`` as its text) in
    ``provider``'s wire shape: one message object, or for ``openai_responses`` and
    ``gemini_interactions`` the list of input items. Together with :func:`format_results`, a
    whole agent turn can be written back.

    Each call is ``{"id", "name", "arguments"}`` (as :func:`parse_response` returns them);
    the calls of :func:`parse_message` may be passed as they are (their ``format`` and ``span`` are
    ignored). ``parse_response(format_calls(calls, p), provider=p)`` gives ``calls`` back.

    >>> format_calls([{"id": "call_1", "name": "f", "arguments": {"x": 1}}], "openai_chat")
    {'role': 'assistant', 'content': None, 'tool_calls': [{'id': 'call_1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"x":1}'}}]}

    With ``template`` instead of a provider (a :class:`FormatSpec`, or a model's chat template,
    inferred as the parse functions' ``template=`` is), the calls are written as that model
    writes them: a ``str``, ``content`` first. A spec inferred from a template writes what the
    template renders, its white space included (docs/templates.md, "Writing calls back"), so
    ``parse_tool_calls(format_calls(calls, template=t), template=t, formats=[])`` gives the calls
    back.

    >>> spec = FormatSpec.from_dict({"call": "tag_json", "section": {"start": "", "end": ""},
    ...     "call_markers": {"start": "<function=", "end": "</function>"}, "separator": "",
    ...     "name_suffix": ">"})
    >>> format_calls([{"name": "f", "arguments": {"x": 1}}], template=spec)
    '<function=f>{"x": 1}</function>'

    Raises:
        ToolCallError: ``result.missing_field`` when a call lacks an id the provider (or the
            template's format) requires (``parse_message(text, ids="generate")`` gives every
            call one): never invented.
        TypeError: ``calls`` is not a list or tuple of dicts with ``name`` (str), ``arguments``
            (dict) and optionally ``id`` (str or None), ``content`` is not a ``str``, or
            neither (or both of) ``provider`` and ``template`` is given.
        ValueError: ``provider`` is not one of :data:`PROVIDERS`.
    """
    if (provider is None) == (template is None):
        raise TypeError("format_calls() takes a provider or a template (one of them)")
    if template is not None:
        spec = spec_arg("format_calls", template)
        return _core.format_calls(calls, "", content=content, spec=spec)
    return _core.format_calls(calls, provider, content=content)
