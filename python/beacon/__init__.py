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

The parsing runs in Rust (``beacon._core``, the same core as the WebAssembly package) without
holding the GIL, so threads can parse in parallel.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Tuple, TypedDict, Union, overload

from . import _core
from ._errors import NoToolCallFoundError, ToolCallError

__all__ = [
    "FORMATS",
    "Format",
    "NoToolCallFoundError",
    "ToolCall",
    "ToolCallError",
    "ToolCallWithFormat",
    "__version__",
    "parse_tool_call",
    "parse_tool_calls",
]

__version__: str = _core.__version__

# Shown (and pickled) as beacon.ToolCallError rather than beacon._errors.ToolCallError.
ToolCallError.__module__ = __name__
NoToolCallFoundError.__module__ = __name__

#: A format id: which format a call was written in (see ``include_format``).
Format = Literal["hermes", "bracket", "mistral", "llama", "xml_invoke", "json", "python"]

#: Every format id, in detection order: the five tagged formats, then ``json``, then ``python``.
FORMATS: Tuple[Format, ...] = tuple(_core.FORMATS)


class ToolCall(TypedDict):
    """One tool call: its name and its arguments, keys in the order written.

    Argument values are plain builtins: ``dict``, ``list``, ``str``, ``int`` (exact at any size),
    ``float``, ``bool`` and ``None``.
    """

    name: str
    arguments: Dict[str, Any]


class ToolCallWithFormat(ToolCall):
    """A :class:`ToolCall` plus the id of the format it was written in."""

    format: Format


def parse_tool_call(text: str) -> ToolCall:
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
        TypeError: ``text`` is not a ``str``.
    """
    return _core.parse_tool_call(text)


@overload
def parse_tool_calls(text: str, *, include_format: Literal[False] = ...) -> List[ToolCall]: ...
@overload
def parse_tool_calls(text: str, *, include_format: Literal[True]) -> List[ToolCallWithFormat]: ...
@overload
def parse_tool_calls(
    text: str, *, include_format: bool = ...
) -> Union[List[ToolCall], List[ToolCallWithFormat]]: ...


def parse_tool_calls(
    text: str, *, include_format: bool = False
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
            offending character in ``text``.
        TypeError: ``text`` is not a ``str``.
    """
    return _core.parse_tool_calls(text, include_format=include_format)
