"""The exceptions beacon raises. The native module (``beacon._core``) imports and raises these."""

from __future__ import annotations

from typing import Optional

__all__ = ["ToolCallError", "NoToolCallFoundError"]


class ToolCallError(ValueError):
    """A tool call could not be parsed.

    Attributes:
        code: the stable error code, e.g. ``"json.unexpected_token"`` or ``"tool_call.multiple"``
            (the full table is in the README).
        message: what went wrong, for people.
        position: 0-based offset of the offending character in the text passed in, counted in
            code points (``text[err.position]`` is that character, when it is not the end). For a
            provider response passed as ``bytes``/``bytearray`` it counts bytes instead, and for
            one passed already decoded (a ``dict``/``list``), or for ``format_results``, it is 0
            and the message names the path.
        line: 1-based line of ``position`` (lines end at ``"\\n"``).
        column: 1-based column of ``position`` on its line, in the same unit as ``position``.
        path: for ``tool_call.schema`` (with ``tools=``), the JSON pointer of the offending value
            in the call's arguments (``""`` for the arguments themselves, ``"/todos/1/status"``
            deeper); ``None`` for every other error.
        truncated: whether the text ended inside the call (the error stands at the end of the
            text): a cut-off output. ``repair=True`` never mends it.

    ``str(err)`` is ``"<code> at line <line>, column <column>: <message>"``.

    >>> import beacon
    >>> try:
    ...     beacon.parse_tool_call('<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>')
    ... except beacon.ToolCallError as err:
    ...     print(err.code, err.position, err.line, err.column)
    json.unexpected_token 44 1 45
    """

    code: str
    message: str
    position: int
    line: int
    column: int
    path: Optional[str]
    truncated: bool

    def __init__(
        self,
        code: str,
        message: str,
        position: int = 0,
        line: int = 1,
        column: int = 1,
        path: Optional[str] = None,
        truncated: bool = False,
    ) -> None:
        # Every field is in ``args``, so the default pickling (``cls(*args)``) round-trips.
        super().__init__(code, message, position, line, column, path, truncated)
        self.code = code
        self.message = message
        self.position = position
        self.line = line
        self.column = column
        self.path = path
        self.truncated = truncated

    def __str__(self) -> str:
        # The core writes the one text of a beacon error (the JavaScript package shows the same).
        from ._core import describe_error

        return describe_error(self.code, self.line, self.column, self.message)


class NoToolCallFoundError(ToolCallError):
    """The text contains no tool call in any format (code ``tool_call.not_found``).

    Raised by both ``parse_tool_call`` and ``parse_tool_calls``; a subclass of
    :class:`ToolCallError`, so ``except ToolCallError`` catches it too.
    """
