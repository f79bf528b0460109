"""The ``beacon`` command (also ``python -m beacon``): parse the tool call in a file or stdin.

Exit status: 0 when a call was found (printed as JSON on stdout), 1 when there is none
(``tool_call.not_found``), 2 for any other error. Errors go to stderr as
``code at line L, column C: message``, then the offending line with a caret under the column.
With ``--message`` the whole message is printed (``parse_message``: content, reasoning and the
calls with ids, formats and spans); a text without calls is then a message like any other (0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from typing import Any, List, Optional, Sequence

from . import __version__, parse_tool_call, parse_tool_calls
from ._errors import NoToolCallFoundError, ToolCallError

EXIT_FOUND = 0
EXIT_NOT_FOUND = 1
EXIT_ERROR = 2

# Lines longer than this are shown as a window around the error column.
_SNIPPET_WIDTH = 100


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="beacon",
        description="Parse the tool call in LLM output and print it as JSON.",
        epilog="Exit status: 0 found, 1 no tool call (tool_call.not_found), 2 any other error.",
    )
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        help="file to read (UTF-8); '-' or nothing for stdin",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="print every call as a JSON array (parse_tool_calls) instead of exactly one",
    )
    parser.add_argument(
        "--include-format",
        action="store_true",
        help='add "format" (the id of the format each call was written in)',
    )
    parser.add_argument(
        "--message",
        action="store_true",
        help="print the whole message as JSON (parse_message): content, reasoning, and the calls "
        "with id, format and span; no call is not an error",
    )
    parser.add_argument(
        "--generate-ids",
        action="store_true",
        help='with --message: give calls without an id a generated one (ids="generate")',
    )
    parser.add_argument("--version", action="version", version=f"beacon {__version__}")
    return parser


def _read(path: str) -> str:
    if path == "-":
        data = sys.stdin.buffer.read()
        source = "<stdin>"
    else:
        with open(path, "rb") as f:
            data = f.read()
        source = path
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _InputError(f"{source} is not valid UTF-8 (byte {e.start})") from e


class _InputError(Exception):
    pass


def _display_width(s: str) -> int:
    """Terminal columns taken by ``s`` (wide East Asian characters take two)."""
    width = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


def snippet(text: str, line: int, column: int) -> List[str]:
    """The ``line``-th line of ``text`` and a caret under ``column`` (both 1-based, code points).

    Tabs before the column are kept in the caret line so the caret lines up; a long line is cut
    to a window around the column.

    >>> print("\\n".join(snippet('f(x=1, 2)', 1, 8)))
    f(x=1, 2)
           ^
    """
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    src = src.rstrip("\r")
    col = max(column - 1, 0)
    prefix, suffix = "", ""
    if len(src) > _SNIPPET_WIDTH:
        start = max(0, min(col - _SNIPPET_WIDTH // 2, len(src) - _SNIPPET_WIDTH))
        end = start + _SNIPPET_WIDTH
        prefix = "…" if start > 0 else ""
        suffix = "…" if end < len(src) else ""
        src, col = src[start:end], col - start
    # Tabs stay tabs in the padding, and wide characters take two columns, so the caret lines up.
    before = prefix + src[:col]
    pad = "".join("\t" if ch == "\t" else " " * _display_width(ch) for ch in before)
    return [prefix + src + suffix, pad + "^"]


def _write(stream: Any, text: str) -> None:
    # Write UTF-8 whatever the locale says, so non-ASCII output is never an encoding error.
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        stream.flush()
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:
        stream.write(text)
        stream.flush()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.message and (args.all or args.include_format):
        parser.error("--message prints every call with its format; it takes neither --all nor --include-format")
    if args.generate_ids and not args.message:
        parser.error("--generate-ids needs --message")
    try:
        text = _read(args.file)
    except (OSError, _InputError) as e:
        detail = f"{e.strerror}: {e.filename}" if isinstance(e, OSError) and e.strerror else str(e)
        _write(sys.stderr, f"beacon: cannot read input: {detail}\n")
        return EXIT_ERROR

    # Integers are exact at any size: lift Python's limit on int <-> str conversion (3.11+)
    # while parsing and printing, so a huge integer argument is not refused.
    digits_limit = getattr(sys, "get_int_max_str_digits", lambda: None)()
    if digits_limit is not None:
        sys.set_int_max_str_digits(0)
    try:
        if args.message:
            return _run_message(text, args.generate_ids)
        return _run(text, args.all, args.include_format)
    finally:
        if digits_limit is not None:
            sys.set_int_max_str_digits(digits_limit)


def _run_message(text: str, generate_ids: bool) -> int:
    from . import parse_message

    try:
        result = parse_message(text, ids="generate" if generate_ids else None)
    except ToolCallError as err:
        _report(text, err)
        return EXIT_ERROR
    return _print(result)


def _report(text: str, err: ToolCallError) -> None:
    lines = [str(err)]
    if not isinstance(err, NoToolCallFoundError):
        lines += snippet(text, err.line, err.column)
    _write(sys.stderr, "\n".join(lines) + "\n")


def _run(text: str, all_calls: bool, include_format: bool) -> int:
    try:
        result: Any
        if all_calls:
            result = parse_tool_calls(text, include_format=include_format)
        elif include_format:
            # parse_tool_call has no include_format: take the format from the one call found.
            calls = parse_tool_calls(text, include_format=True)
            result = parse_tool_call(text) if len(calls) > 1 else calls[0]
        else:
            result = parse_tool_call(text)
    except ToolCallError as err:
        _report(text, err)
        return EXIT_NOT_FOUND if isinstance(err, NoToolCallFoundError) else EXIT_ERROR
    return _print(result)


def _print(result: Any) -> int:
    try:
        _write(sys.stdout, json.dumps(result, ensure_ascii=False, indent=2) + "\n")
    except BrokenPipeError:
        # `beacon file | head`: the reader went away, which is not an error. Point stdout at
        # devnull so the interpreter's final flush does not complain (as the Python docs advise).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_FOUND


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
