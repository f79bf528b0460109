"""The ``beacon`` command (also ``python -m beacon``): parse the tool calls in a file or stdin.

Two modes:

- text (the default): the input is model output; the call is printed as JSON (with ``--all``,
  the list of calls), as ``parse_tool_call`` / ``parse_tool_calls`` return them.
- ``--message``: the whole message is printed (``parse_message``: content, reasoning and the
  calls with ids, formats and spans); a text without calls is then a message like any other (0).
- ``--response``: the input is a model API's response (``parse_response``: a JSON response body,
  an assistant message as stored, a JSON array of streamed chunks, or a recorded stream: SSE
  ``data:`` lines or NDJSON); its calls are printed as a JSON list of ``{"id", "name",
  "arguments"}``. ``--provider`` and ``--text-fallback`` are ``parse_response``'s options.
- ``--stream``: the input is read as it arrives (pieces of whatever size the pipe gives, not all
  at once) and each event is printed as soon as it is decided, one JSON object per line: model
  output through ``ToolCallStream`` (with ``--generate-ids``, ``--id-seed`` and ``--start``), or
  with ``--response`` a response stream through ``ResponseStream`` (with ``--provider``). A text
  without calls is no error (0); the events printed before an error stay printed.

Exit status: 0 when calls were found (printed as JSON on stdout), 1 when there is none
(``tool_call.not_found``; a response without calls), 2 for any other error. Errors go to stderr
as ``code at line L, column C: message``, then (for an error inside the text) the offending line
with a caret under the column. Errors of the input itself use the same form: ``input.unreadable``
(a missing file, a directory, no permission), ``json.invalid_utf8`` (at the first byte that is not
UTF-8; its line and column count bytes).
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
import unicodedata
from typing import Any, BinaryIO, Callable, Iterator, List, Optional, Sequence, Tuple, get_args

from . import PROVIDERS, Start, __version__, detect_provider, parse_response, parse_tool_call, parse_tool_calls
from ._errors import NoToolCallFoundError, ToolCallError

EXIT_FOUND = 0
EXIT_NOT_FOUND = 1
EXIT_ERROR = 2

# Lines longer than this are shown as a window around the error column.
_SNIPPET_WIDTH = 100


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="beacon",
        description="Parse the tool calls in LLM output (or, with --response, in a model API's response) "
        "and print them as JSON.",
        epilog="Exit status: 0 found, 1 no tool call (tool_call.not_found), 2 any other error. "
        "Errors are printed as `code at line L, column C: message`. "
        "For a Parquet or JSON Lines file of outputs, see `beacon batch --help`; for an OpenAI-compatible "
        "proxy in front of a server that returns raw text, `beacon proxy --help`.",
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
        help='with --message or --stream: give calls without an id a generated one (ids="generate"), '
        "from a fresh random seed each run",
    )
    parser.add_argument(
        "--id-seed",
        metavar="SEED",
        help="with --message or --stream: generated ids from this seed (id_seed=SEED), the same for "
        "the same seed and text",
    )
    parser.add_argument(
        "--repair",
        action="store_true",
        help="mend the model mistakes on the repair list (repair=True; docs/repair.md): each repaired "
        'call gets "repairs", its receipts; a call cut off by the end of the text still fails',
    )
    parser.add_argument(
        "--template",
        metavar="FILE",
        help="the model's chat template (a .jinja file or its tokenizer_config.json): its tool-call format, "
        "inferred once, is read besides the built-in ones (template=; docs/templates.md)",
    )
    parser.add_argument(
        "--stream",
        action="store_true",
        help="read the input as it arrives and print each event as one JSON line (ToolCallStream; with "
        "--response, ResponseStream): content, reasoning, call_start, arguments, call_end",
    )
    parser.add_argument(
        "--start",
        choices=get_args(Start),
        help="with --stream: where the text begins: detect (the default: hold text until a reasoning close tag "
        "or the end tells), content (the prompt opened no reasoning block) or reasoning (it did)",
    )
    api = parser.add_argument_group("model API responses")
    api.add_argument(
        "--response",
        action="store_true",
        help="the input is a model API's response (JSON: OpenAI, Anthropic, Gemini, Cohere, Bedrock, Ollama, "
        "OpenAI-compatible servers; or a JSON array of streamed chunks): print its calls as a JSON array of "
        '{"id", "name", "arguments"} (parse_response)',
    )
    api.add_argument(
        "--provider",
        metavar="P",
        choices=("auto",) + PROVIDERS,
        help="with --response: read the paths of this API only: " + ", ".join(PROVIDERS) + " (default: auto, "
        "detected from the response's keys)",
    )
    api.add_argument(
        "--text-fallback",
        action="store_true",
        help="with --response: when the response has no structured calls, parse its assistant text as model output",
    )
    parser.add_argument("--version", action="version", version=f"beacon {__version__}")
    return parser


class _InputError(Exception):
    """An error of the input itself (not of the text in it), printed like a ``ToolCallError``."""

    def __init__(self, code: str, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(f"{code} at line {line}, column {column}: {message}")


def _read(path: str) -> Tuple[bytes, str]:
    """The input's bytes and its name for messages."""
    try:
        if path == "-":
            return sys.stdin.buffer.read(), "<stdin>"
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as e:
        detail = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else e.strerror or str(e)
        raise _InputError("input.unreadable", f"cannot read the input: {detail}") from None


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # The core's reading of bytes reports the first invalid sequence (detect_provider validates
    # UTF-8 before anything else): the same error parse_response(bytes) gives.
    try:
        detect_provider(data)
    except ToolCallError as err:
        if err.code == "json.invalid_utf8":
            raise _InputError(err.code, f"{source}: {err.message}", err.line, err.column) from None
    raise _InputError("json.invalid_utf8", f"{source} is not valid UTF-8")  # pragma: no cover


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
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["batch"]:  # `beacon batch …`: a whole file of outputs (beacon/_batch_cli.py)
        from ._batch_cli import main as batch_main

        return batch_main(argv[1:])
    if argv[:1] == ["template"]:  # `beacon template FILE`: the format a chat template writes
        from ._template import main as template_main

        return template_main(argv[1:])
    if argv[:1] == ["proxy"]:  # `beacon proxy …`: an OpenAI-compatible proxy (beacon/_proxy_cli.py)
        from ._proxy_cli import main as proxy_main

        return proxy_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.message and (args.all or args.include_format):
        parser.error("--message prints every call with its format; it takes neither --all nor --include-format")
    if args.stream and (args.all or args.include_format or args.message):
        parser.error("--stream prints events; it takes neither --all, --include-format nor --message")
    if args.generate_ids and not (args.message or args.stream) or args.generate_ids and args.response:
        parser.error("--generate-ids needs --message or --stream (without --response)")
    if args.id_seed is not None and (not (args.message or args.stream) or args.response):
        parser.error("--id-seed needs --message or --stream (without --response)")
    if args.stream and args.text_fallback:
        parser.error("--text-fallback reads a whole response; it does not apply to --stream")
    if args.start is not None and (not args.stream or args.response):
        parser.error("--start needs --stream (without --response)")
    if args.message and args.response:
        parser.error("--message reads model output; --response reads an API response: use one")
    if not args.response and (args.provider is not None or args.text_fallback):
        parser.error("--provider and --text-fallback read API responses: add --response")
    if args.response and args.include_format:
        parser.error("--include-format: calls read from an API response have no format (they come from its fields)")
    if args.response and args.template is not None:
        parser.error("--template reads model output; an API response's calls come from its fields")
    if args.template is not None:
        try:
            args.template = _template(args.template)
        except _InputError as e:
            _write(sys.stderr, f"{e}\n")
            return EXIT_ERROR
        except ToolCallError as err:
            _write(sys.stderr, f"{err}\n")
            return EXIT_ERROR
    if args.stream:
        return _with_big_ints(lambda: _run_stream(args))
    try:
        text = _decode(*_read(args.file))
    except _InputError as e:
        _write(sys.stderr, f"{e}\n")
        return EXIT_ERROR

    if args.message:
        return _with_big_ints(lambda: _run_message(text, args.generate_ids, args.id_seed, args.repair, args.template))
    if args.response:
        return _with_big_ints(lambda: _run_response(text, args.provider or "auto", args.text_fallback, args.repair))
    return _with_big_ints(lambda: _run(text, args.all, args.include_format, args.repair, args.template))


def _template(path: str) -> Any:
    """``--template FILE``: the format the chat template in FILE writes (a ``.jinja`` file, or a
    ``tokenizer_config.json``)."""
    from ._template import FormatSpec

    return FormatSpec.from_template(_decode(*_read(path)))


def _with_big_ints(run: Callable[[], int]) -> int:
    """Runs ``run`` with Python's limit on int <-> str conversion (3.11+) lifted: integers are
    exact at any size, so a huge integer argument is parsed and printed, not refused."""
    digits_limit = getattr(sys, "get_int_max_str_digits", lambda: None)()
    if digits_limit is not None:
        sys.set_int_max_str_digits(0)
    try:
        return run()
    finally:
        if digits_limit is not None:
            sys.set_int_max_str_digits(digits_limit)


def _report(text: str, err: ToolCallError, hint: Optional[str] = None) -> int:
    """Prints ``err`` (with the offending line and a caret, for an error in the text) and returns
    the exit status."""
    none = isinstance(err, NoToolCallFoundError)
    lines = [str(err)]
    if not none:
        lines += snippet(text, err.line, err.column)
    if hint:
        lines.append(f"hint: {hint}")
    _write(sys.stderr, "\n".join(lines) + "\n")
    return EXIT_NOT_FOUND if none else EXIT_ERROR


def _response_hint(text: str) -> Optional[str]:
    """For text mode's not-found: a suggestion of --response when ``text`` is an API response."""
    try:
        provider = detect_provider(text)
    except ToolCallError:
        return None
    if provider is None:
        return None
    return f"the input is a model API response ({provider}): read its calls with `beacon --response`"


def _run_message(text: str, generate_ids: bool, id_seed: Optional[str], repair: bool, template: Any) -> int:
    from . import parse_message

    try:
        result = parse_message(
            text, ids="generate" if generate_ids else None, id_seed=id_seed, repair=repair, template=template
        )
    except ToolCallError as err:
        return _report(text, err)
    return _print(result)


def _run(text: str, all_calls: bool, include_format: bool, repair: bool, template: Any) -> int:
    try:
        result: Any
        if all_calls:
            result = parse_tool_calls(text, include_format=include_format, repair=repair, template=template)
        elif include_format:
            # parse_tool_call has no include_format: take the format from the one call found.
            calls = parse_tool_calls(text, include_format=True, repair=repair, template=template)
            result = parse_tool_call(text, repair=repair, template=template) if len(calls) > 1 else calls[0]
        else:
            result = parse_tool_call(text, repair=repair, template=template)
    except NoToolCallFoundError as err:
        return _report(text, err, _response_hint(text))
    except ToolCallError as err:
        return _report(text, err)
    return _print(result)


def _run_response(text: str, provider: str, text_fallback: bool, repair: bool) -> int:
    try:
        calls = parse_response(text, provider=provider, text_fallback=text_fallback, repair=repair)
    except ToolCallError as err:
        return _report(text, err)
    if calls:
        return _print(calls)
    return _report(text, _no_calls(text, provider, text_fallback))


def _no_calls(text: str, provider: str, text_fallback: bool) -> NoToolCallFoundError:
    """The not-found error for a response without calls, saying what was read."""
    detected = detect_provider(text)
    if provider == "auto" and detected is None:
        message = "the input is not the response of a known API (plain text, or JSON of no known shape)"
        if not text.lstrip("\ufeff \t\r\n").startswith(("{", "[")):
            message += "; for model output, run `beacon` without --response"
        return NoToolCallFoundError("tool_call.not_found", message)
    if provider != "auto" and detected != provider:
        looks = f"it looks like {detected}'s" if detected else "it is no known API's response"
        message = f"no tool calls where {provider} puts them ({looks}; --provider auto detects the API)"
        return NoToolCallFoundError("tool_call.not_found", message)
    message = f"the {detected} response has no tool calls"
    if not text_fallback:
        try:
            n = len(parse_response(text, provider=provider, text_fallback=True))
        except ToolCallError:
            n = 0
        if n:
            calls = "1 tool call: add --text-fallback to read it" if n == 1 else f"{n} tool calls: add --text-fallback to read them"
            message += f"; its assistant text has {calls}"
    return NoToolCallFoundError("tool_call.not_found", message)


# The most bytes one read of the input returns (a read returns what has arrived, up to this).
_READ_SIZE = 1 << 16


def _pieces(path: str) -> Iterator[bytes]:
    """The input's bytes as they arrive: each read returns what the pipe (or file) has, without
    waiting to fill a buffer."""
    try:
        if path == "-":
            source: BinaryIO = sys.stdin.buffer
            piece = source.read1(_READ_SIZE)  # type: ignore[attr-defined]
            while piece:
                yield piece
                piece = source.read1(_READ_SIZE)  # type: ignore[attr-defined]
            return
        with open(path, "rb") as f:
            piece = f.read1(_READ_SIZE)
            while piece:
                yield piece
                piece = f.read1(_READ_SIZE)
    except OSError as e:
        detail = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else e.strerror or str(e)
        raise _InputError("input.unreadable", f"cannot read the input: {detail}") from None


def _run_stream(args: argparse.Namespace) -> int:
    """``--stream``: one JSON event per line, printed as soon as the stream reports it."""
    from . import ResponseStream, ToolCallStream

    source = "<stdin>" if args.file == "-" else args.file
    stream: Any
    if args.response:
        stream = ResponseStream(args.provider or "auto", repair=args.repair)
    else:
        stream = ToolCallStream(
            ids="generate" if args.generate_ids else None,
            id_seed=args.id_seed,
            start=args.start or "detect",
            repair=args.repair,
            template=args.template,
        )
    decoder = codecs.getincrementaldecoder("utf-8")()
    # What was read, for the line of an error (the core holds the text too; a command need not
    # save that memory).
    read: List[bytes] = []
    try:
        for piece in _pieces(args.file):
            read.append(piece)
            try:
                text = decoder.decode(piece)
            except UnicodeDecodeError:
                _decode(b"".join(read), source)  # raises the located input error
                raise  # pragma: no cover
            _emit(stream.feed(text))
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            _decode(b"".join(read), source)
        _emit(stream.finish())
    except _InputError as e:
        _write(sys.stderr, f"{e}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FOUND
    except ToolCallError as err:
        # Text was fed as str: the position is in code points, as for the other modes.
        return _report(b"".join(read).decode("utf-8", "replace"), err)
    return EXIT_FOUND


def _emit(events: List[Any]) -> None:
    if events:
        _write(sys.stdout, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))


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
