"""``beacon proxy``: serve :mod:`beacon.proxy` with uvicorn.

    beacon proxy --upstream URL [--listen 127.0.0.1:8000] [--on-error error|content]
                 [--timeout S] [--max-body BYTES] [--start content|detect|reasoning]
                 [--template FILE]

``--template FILE`` (a ``.jinja`` chat template or a ``tokenizer_config.json``) reads the model's
own tool-call format besides the built-in ones; it is inferred once, at start. Exit status: 0
after a clean shutdown (Ctrl-C), 2 when the proxy cannot start (bad arguments, a template whose
format cannot be inferred, the proxy extra missing).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import List, Optional, Sequence, Tuple, get_args

from . import Start

EXIT_OK = 0
EXIT_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    from .proxy import DEFAULT_MAX_BODY, DEFAULT_TIMEOUT, OnError

    p = argparse.ArgumentParser(
        prog="beacon proxy",
        description="An OpenAI-compatible proxy for servers that return the model's raw text: "
        "calls written in the content come back as tool_calls, reasoning as reasoning_content.",
        epilog="Forwards POST /v1/chat/completions (streaming and not) and GET /v1/models. "
        "Needs the proxy extra: pip install \"beacon-toolcall[proxy]\".",
    )
    p.add_argument("--upstream", required=True, metavar="URL", help="the upstream's base URL, as an OpenAI client takes it (e.g. http://127.0.0.1:8080/v1)")
    p.add_argument("--listen", default="127.0.0.1:8000", metavar="HOST:PORT", help="where to listen (default 127.0.0.1:8000)")
    p.add_argument(
        "--on-error",
        choices=get_args(OnError),
        default="error",
        help="a broken call: a 502 error carrying beacon's code and position (default), or the raw text "
        "as content with an x-beacon-error header (streams: beacon_error in the finish chunk)",
    )
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S", help=f"seconds to wait for the upstream's connection and each next piece of its answer (default {DEFAULT_TIMEOUT:g}; 504 past it)")
    p.add_argument("--max-body", type=int, default=DEFAULT_MAX_BODY, metavar="BYTES", help=f"the largest request body (default {DEFAULT_MAX_BODY}; 413 past it)")
    p.add_argument(
        "--start",
        choices=get_args(Start),
        default="content",
        help="where a streamed text begins (ToolCallStream's start): content (the default: the prompt opened "
        "no reasoning block), detect (as whole responses are read; holds text until a close tag or the end tells) "
        "or reasoning",
    )
    p.add_argument(
        "--template",
        metavar="FILE",
        help="the model's chat template (.jinja or tokenizer_config.json): its tool-call format is read "
        "besides the built-in ones",
    )
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"), help="default info: one line per request")
    return p


def parse_listen(value: str) -> Tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8000`` for IPv6) as (host, port).

    >>> parse_listen("127.0.0.1:8000"), parse_listen("[::1]:9000")
    (('127.0.0.1', 8000), ('::1', 9000))
    """
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--listen wants HOST:PORT, not {value!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args: List[str] = list(sys.argv[2:] if argv is None else argv)
    try:
        import uvicorn

        from .proxy import create_app
    except ImportError as e:
        print(f"beacon proxy: {e}", file=sys.stderr)
        return EXIT_ERROR
    parser = _parser()
    ns = parser.parse_args(args)
    template = None
    if ns.template is not None:
        from ._errors import ToolCallError
        from ._template import FormatSpec

        try:
            with open(ns.template, encoding="utf-8") as f:
                template = FormatSpec.from_template(f.read())
        except (OSError, UnicodeDecodeError) as e:
            parser.error(f"--template: cannot read {ns.template}: {e}")
        except ToolCallError as e:
            parser.error(f"--template: {e}")
    try:
        host, port = parse_listen(ns.listen)
        app = create_app(
            ns.upstream, on_error=ns.on_error, timeout=ns.timeout, max_body=ns.max_body, start=ns.start, template=template
        )
    except ValueError as e:
        parser.error(str(e))
    logging.basicConfig(level=ns.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("beacon.proxy").setLevel(ns.log_level.upper())
    uvicorn.run(app, host=host, port=port, log_level=ns.log_level, access_log=False)
    return EXIT_OK
