"""An OpenAI-compatible proxy that turns a model's raw text into ``tool_calls``.

For servers that return the model's text as it is (llama.cpp without ``--jinja``,
``mlx_lm.server``, TGI, a vLLM without a tool parser): point an OpenAI client at the proxy, and
the calls written in ``content`` come back as ``message.tool_calls`` (with ids),
``reasoning_content`` is split off, and ``finish_reason`` is ``"tool_calls"``. Run it with
``beacon proxy --upstream URL`` or serve :func:`create_app` with any ASGI server. Needs the
``proxy`` extra (``pip install "beacon-toolcall[proxy]"``: Starlette and uvicorn with uvloop and
httptools to serve, aiohttp to call the upstream).

The rules (docs/proxy.md has the examples):

- ``POST /v1/chat/completions`` and ``GET /v1/models`` go to ``{upstream}/chat/completions`` and
  ``{upstream}/models``, where ``upstream`` is the base URL an OpenAI client would be given (for
  example ``http://127.0.0.1:8080/v1``). The request body is sent as it came; its ``tools`` are
  given to the parse. Every other path is 404.
- Whole responses are rewritten by :mod:`beacon._proxy_message`'s rules, streams
  (``"stream": true``) by :mod:`beacon._proxy_stream`'s, chunk by chunk as they arrive: the
  response is an async generator, so a slow client slows the upstream read instead of filling
  memory.
- An upstream answer that is not 2xx passes through with its status and body.
- A broken call: with ``on_error="error"`` a 502 ``{"error": {"message", "type":
  "tool_call_error", "code", "position", "line", "column"}}`` (in a stream, an event ``data:
  {"error": …}`` and then the end, no ``[DONE]``); with ``"content"``, the raw text as content,
  the choice's ``beacon_error`` field, and the header ``x-beacon-error: <code> at <position>``
  (a stream's headers are gone by then: its choice's finish chunk has ``beacon_error``).
- The proxy's own errors have the same shape, type ``proxy_error``: ``request.too_large``
  (413, a body over ``max_body`` bytes), ``request.invalid`` (400: not a JSON object, or a
  ``tools`` list beacon cannot read), ``upstream.timeout`` (504: no answer, or no next bytes,
  within ``timeout`` seconds), ``upstream.unreachable`` and ``upstream.invalid_response`` (502),
  and in a stream ``upstream.closed`` (the upstream's stream ended before it finished).
- One log line per request on the ``beacon.proxy`` logger (INFO): model, stream or not, status,
  calls found, time spent parsing, and the error code if any.
"""

from __future__ import annotations

import asyncio
import codecs
import json
import logging
import re
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Dict, List, Literal, Optional, get_args

try:
    import aiohttp
    import anyio
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route
except ImportError as e:  # pragma: no cover - the extra is installed in the test setup
    raise ImportError(
        f"beacon.proxy needs the proxy extra ({e.name} is missing): pip install \"beacon-toolcall[proxy]\""
    ) from e

from . import Start, Tools
from ._errors import ToolCallError
from ._proxy_message import error_fields, rewrite_completion
from ._proxy_stream import ChunkTranslator, UpstreamClosed, error_event, sse

__all__ = ["create_app", "DEFAULT_TIMEOUT", "DEFAULT_MAX_BODY", "OnError"]

#: Seconds to wait for the upstream to connect, and for each next piece of its answer.
DEFAULT_TIMEOUT = 600.0
#: The largest request body accepted, in bytes (32 MiB).
DEFAULT_MAX_BODY = 32 << 20

#: What a broken call becomes: an error response, or the raw text as content.
OnError = Literal["error", "content"]

log = logging.getLogger("beacon.proxy")

# Not forwarded either way: per-connection headers, and those aiohttp or Starlette set anew.
_HOP = frozenset(
    "host connection keep-alive proxy-connection proxy-authorization te trailer transfer-encoding "
    "upgrade content-length content-encoding accept-encoding".split()
)


class _ProxyError(Exception):
    """A request the proxy answers itself with ``status`` and an error object."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.fields()}, status_code=self.status)

    def fields(self) -> Dict[str, Any]:
        return {"message": str(self), "type": "proxy_error", "code": self.code}


def _json_object(data: bytes, status: int, code: str, what: str) -> Dict[str, Any]:
    """``data`` read as a JSON object, else a ``_ProxyError`` with ``status`` and ``code`` that
    says ``what`` is not one."""
    try:
        value = json.loads(data)
    except ValueError:
        raise _ProxyError(status, code, f"{what} is not JSON") from None
    if not isinstance(value, dict):
        raise _ProxyError(status, code, f"{what} is not a JSON object")
    return value


def _forward_headers(headers: Any) -> Dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _HOP}


# Not passed back either: uvicorn writes its own.
_OWN = frozenset(("date", "server"))


def _response_headers(headers: Any) -> Dict[str, str]:
    return {k: v for k, v in _forward_headers(headers).items() if k.lower() not in _OWN}


def _passthrough(resp: "aiohttp.ClientResponse", body: bytes) -> Response:
    """The upstream's answer as it came (status, body, headers less the hop-by-hop ones)."""
    return Response(body, status_code=resp.status, headers=_response_headers(resp.headers))


#: A line's end in an event stream: ``\r\n``, ``\n`` or ``\r`` (never U+2028 and the other
#: separators ``str.splitlines`` knows, which JSON holds as text).
_LINE_END = re.compile(r"\r\n|\r|\n")


async def _lines(resp: "aiohttp.ClientResponse") -> AsyncIterator[str]:
    """The upstream's body as text lines (without their ends) as its bytes arrive, of any
    length; a last line without an end too. Each piece is searched for line ends once."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending: List[str] = []
    async for data in resp.content.iter_any():
        text = decoder.decode(data)
        pending.append(text)
        if "\n" not in text and "\r" not in text:
            continue
        joined = "".join(pending)
        # A `\r` at the end may be the first half of `\r\n`: it waits for the next piece.
        cr = joined.endswith("\r")
        parts = _LINE_END.split(joined[:-1] if cr else joined)
        last = parts.pop()
        for line in parts:
            yield line
        pending = [last + "\r" if cr else last]
    pending.append(decoder.decode(b"", final=True))
    parts = _LINE_END.split("".join(pending))
    for line in parts[:-1]:
        yield line
    if parts[-1]:
        yield parts[-1]


def create_app(
    upstream: str,
    *,
    on_error: OnError = "error",
    timeout: float = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    start: Start = "content",
    template: Any = None,
) -> Starlette:
    """The proxy as a Starlette app, forwarding to ``upstream`` (a base URL such as
    ``http://127.0.0.1:8080/v1``; the rules are the module's).

    ``on_error`` is what a broken call becomes (``"error"``: a coded 502, ``"content"``: the raw
    text), ``timeout`` the seconds to wait for the upstream's connection and each next piece of
    its answer (504 past it), ``max_body`` the largest request body in bytes (413 past it), and
    ``start`` the streams' ``ToolCallStream(start=…)``: ``"content"`` (text streams at once;
    a ``</think>`` without its open tag is content), or ``"detect"``, which separates the
    reasoning of a prompt-opened block as whole responses do, at the cost of holding a stream's
    text until a close tag or the end tells. ``template`` (a :class:`beacon.FormatSpec`, or a
    chat template that is inferred once) is every parse's ``template=``: the model's own format
    is read besides the built-in ones.

    Raises:
        ValueError: a bad ``on_error``, ``start``, ``timeout`` or ``max_body``.
    """
    if on_error not in get_args(OnError):
        raise ValueError(f"on_error must be one of {get_args(OnError)}, not {on_error!r}")
    if start not in get_args(Start):
        raise ValueError(f"start must be one of {get_args(Start)}, not {start!r}")
    if not timeout > 0 or not max_body > 0:
        raise ValueError("timeout and max_body must be positive")
    base = upstream.rstrip("/")

    # aiohttp's client, not httpx's: on loopback a request through it took 0.43 ms at the median
    # against httpx's 0.97 ms (300 requests to bench/proxy.py's upstream, one connection), the
    # larger part of what the proxy adds to a request.
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        limits = aiohttp.ClientTimeout(total=None, connect=timeout, sock_read=timeout)
        async with aiohttp.ClientSession(timeout=limits, auto_decompress=True) as client:
            app.state.client = client
            yield

    async def models(request: Request) -> Response:
        client: aiohttp.ClientSession = request.app.state.client
        try:
            async with client.get(f"{base}/models", headers=_forward_headers(request.headers)) as resp:
                return _passthrough(resp, await resp.read())
        except asyncio.TimeoutError:
            return _ProxyError(504, "upstream.timeout", f"the upstream did not answer within {timeout:g} s").response()
        except aiohttp.ClientError as e:
            return _ProxyError(502, "upstream.unreachable", f"cannot reach the upstream: {e}").response()

    async def chat(request: Request) -> Response:
        t0 = time.perf_counter()
        record: Dict[str, Any] = {"model": None, "stream": False, "calls": 0, "parse": 0.0, "error": None}
        try:
            response = await _chat(request, record)
        except _ProxyError as e:
            record["error"] = e.code
            response = e.response()
        if not isinstance(response, StreamingResponse):
            _log(record, response.status_code, t0)
        return response

    async def _chat(request: Request, record: Dict[str, Any]) -> Response:
        body = await _read_body(request, max_body)
        payload = _json_object(body, 400, "request.invalid", "the request body")
        record["model"] = payload.get("model")
        record["stream"] = bool(payload.get("stream"))
        tools = _tools(payload.get("tools"))
        client: aiohttp.ClientSession = request.app.state.client
        try:
            resp = await client.post(f"{base}/chat/completions", data=body, headers=_forward_headers(request.headers))
        except asyncio.TimeoutError:
            raise _ProxyError(504, "upstream.timeout", f"the upstream did not answer within {timeout:g} s") from None
        except aiohttp.ClientError as e:
            raise _ProxyError(502, "upstream.unreachable", f"cannot reach the upstream: {e}") from None
        if not 200 <= resp.status < 300 or not record["stream"]:
            try:
                data = await resp.read()
            except asyncio.TimeoutError:
                raise _ProxyError(504, "upstream.timeout", f"the upstream did not answer within {timeout:g} s") from None
            except aiohttp.ClientError as e:
                raise _ProxyError(502, "upstream.invalid_response", f"the upstream's answer broke off: {e}") from None
            finally:
                resp.release()
            if not 200 <= resp.status < 300:
                return _passthrough(resp, data)
            return _whole(resp, data, tools, record)
        if "text/event-stream" not in resp.headers.get("content-type", ""):
            resp.release()
            raise _ProxyError(
                502, "upstream.invalid_response", "a stream was asked for, but the upstream did not answer with one"
            )
        headers = _response_headers(resp.headers)
        headers.pop("content-type", None)
        t0 = time.perf_counter()
        return StreamingResponse(
            _stream(resp, tools, record, t0),
            status_code=resp.status,
            headers=headers,
            media_type="text/event-stream",
            background=BackgroundTask(_release, resp),
        )

    def _whole(resp: "aiohttp.ClientResponse", data: bytes, tools: Optional[Tools], record: Dict[str, Any]) -> Response:
        completion = _json_object(data, 502, "upstream.invalid_response", "the upstream's answer")
        t = time.perf_counter()
        try:
            record["calls"], err = rewrite_completion(completion, tools, on_error, template)
        except ToolCallError as e:
            record["parse"] += time.perf_counter() - t
            record["error"] = e.code
            return JSONResponse({"error": error_fields(e)}, status_code=502)
        record["parse"] += time.perf_counter() - t
        headers = _response_headers(resp.headers)
        headers.pop("content-type", None)
        if err is not None:
            record["error"] = err.code
            headers["x-beacon-error"] = f"{err.code} at {err.position}"
        return JSONResponse(completion, status_code=resp.status, headers=headers)

    async def _stream(
        resp: "aiohttp.ClientResponse", tools: Optional[Tools], record: Dict[str, Any], t0: float
    ) -> AsyncIterator[bytes]:
        translator = ChunkTranslator(tools, on_error=on_error, start=start, template=template)
        status = resp.status
        try:
            try:
                async for line in _lines(resp):
                    for piece in sse(translator.line(line)):
                        yield piece
                    if translator.done:
                        break
                for piece in sse(translator.end()):
                    yield piece
            except ToolCallError as e:
                record["error"] = e.code
                yield next(sse([error_event(error_fields(e))]))
            except asyncio.TimeoutError:
                record["error"] = "upstream.timeout"
                yield next(sse([error_event(_ProxyError(504, "upstream.timeout", f"the upstream sent nothing for {timeout:g} s").fields())]))
            except (aiohttp.ClientError, UpstreamClosed) as e:
                record["error"] = "upstream.closed"
                message = f"the upstream's stream broke off before it finished: {e}"
                yield next(sse([error_event(_ProxyError(502, "upstream.closed", message).fields())]))
        finally:
            record["calls"] = translator.calls
            record["parse"] = translator.parse_seconds
            if record["error"] is None and translator.errors:
                record["error"] = translator.errors[0].code
            _log(record, status, t0)
            with anyio.CancelScope(shield=True):  # also when the client went away (cancelled)
                await _release(resp)

    async def not_found(request: Request) -> Response:
        return JSONResponse(
            {"error": {"message": f"no route {request.method} {request.url.path}", "type": "proxy_error", "code": "not_found"}},
            status_code=404,
        )

    app = Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models, methods=["GET"]),
            Route("/{path:path}", not_found, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
        ],
        lifespan=lifespan,
    )
    return app


async def _release(resp: "aiohttp.ClientResponse") -> None:
    """Gives the upstream connection back (closed when the answer was not read to its end)."""
    resp.release()


async def _read_body(request: Request, max_body: int) -> bytes:
    """The request body, refused (413) once it is over ``max_body`` bytes, before reading on."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > max_body:
        raise _ProxyError(413, "request.too_large", f"the request body is over {max_body} bytes")
    parts = []
    size = 0
    async for part in request.stream():
        size += len(part)
        if size > max_body:
            raise _ProxyError(413, "request.too_large", f"the request body is over {max_body} bytes")
        parts.append(part)
    return b"".join(parts)


def _tools(definitions: Any) -> Optional[Tools]:
    """The request's ``tools``, read once for every choice (400 when beacon cannot read them)."""
    if definitions is None or definitions == []:
        return None
    try:
        return Tools(definitions)
    except (TypeError, ValueError) as e:
        raise _ProxyError(400, "request.invalid", f"cannot read the request's tools: {e}") from None


def _log(record: Dict[str, Any], status: int, t0: float) -> None:
    log.info(
        "chat.completions model=%s stream=%s status=%d calls=%d parse_ms=%.3f total_ms=%.1f%s",
        record["model"],
        "yes" if record["stream"] else "no",
        status,
        record["calls"],
        record["parse"] * 1000,
        (time.perf_counter() - t0) * 1000,
        f" error={record['error']}" if record["error"] else "",
    )
