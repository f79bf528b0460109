"""`beacon proxy` under load, on loopback: what the proxy adds to a non-streaming request over
calling the upstream directly (target: ≤ 1 ms at the median), and whether it holds 200
concurrent streaming requests with no error.

    .venv/bin/python bench/proxy.py [--quick]

The upstream is a small Starlette app on uvicorn in this process (its own thread) that answers
with a hermes tool call, whole or as a stream of 3-code-point deltas; the proxy
(`beacon.proxy.create_app`) runs in another thread. Both are stopped at the end. Bounded: a fixed
number of requests, each with a timeout.
"""

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import sys
import threading
import time

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
from beacon.proxy import create_app  # noqa: E402

TEXT = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>'
BODY = {"model": "m", "messages": [{"role": "user", "content": "weather?"}]}


def completion(stream_delta=None):
    choice = {"index": 0, "finish_reason": None if stream_delta is not None else "stop"}
    if stream_delta is None:
        choice["message"] = {"role": "assistant", "content": TEXT}
    else:
        choice["delta"] = stream_delta
    kind = "chat.completion.chunk" if stream_delta is not None else "chat.completion"
    return {"id": "c", "object": kind, "created": 1, "model": "m", "choices": [choice]}


async def chat(request: Request):
    body = await request.json()
    if not body.get("stream"):
        return JSONResponse(completion())

    async def chunks():
        for i in range(0, len(TEXT), 3):
            yield f"data: {json.dumps(completion({'content': TEXT[i:i + 3]}))}\n\n".encode()
            await asyncio.sleep(0)
        yield b"data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream")


class Server:
    """uvicorn serving `app` on a free loopback port in a thread, until `stop()`."""

    def __init__(self, app):
        # IPPROTO_TCP, as uvicorn's own listening socket has: asyncio sets TCP_NODELAY only on
        # connections accepted from such a socket (without it, replies wait out delayed ACKs).
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(app, log_level="critical", lifespan="on", backlog=1024)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.01)

    def stop(self):
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


def latencies(url, n):
    """Seconds per non-streaming request, on one keep-alive connection."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    body = json.dumps(BODY).encode()
    out = []
    try:
        for _ in range(n):
            start = time.perf_counter()
            conn.request("POST", "/v1/chat/completions", body=body, headers={"content-type": "application/json"})
            r = conn.getresponse()
            r.read()
            out.append(time.perf_counter() - start)
            if r.status != 200:
                raise RuntimeError(f"status {r.status}")
    finally:
        conn.close()
    return out


async def streams(url, n):
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:

        async def one():
            calls = 0
            async with client.stream("POST", f"{url}/v1/chat/completions", json={**BODY, "stream": True}) as r:
                r.raise_for_status()
                async for line in r.aiter_lines():
                    if line.startswith("data: {") and '"tool_calls"' in line and '"name"' in line:
                        calls += 1
            return calls

        start = time.perf_counter()
        results = await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)
        return results, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    n = 100 if args.quick else 400
    upstream = Server(Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])]))
    proxy = Server(create_app(f"{upstream.url}/v1"))
    try:
        latencies(proxy.url, 20)  # warm both
        direct, through = [], []
        for _ in range(4):  # alternating rounds: a busy machine slows both alike
            direct += latencies(upstream.url, n // 4)
            through += latencies(proxy.url, n // 4)
        d, p = statistics.median(direct), statistics.median(through)
        print("\n## beacon proxy on loopback (target: ≤ 1 ms added at p50; 200 concurrent streams, no error)\n")
        print("| measure | direct to the upstream | through the proxy | added |")
        print("|---|---|---|---|")
        print(f"| non-streaming p50 ({n} requests) | {d * 1e3:.2f} ms | {p * 1e3:.2f} ms | {(p - d) * 1e3:.2f} ms |")
        q = lambda xs: sorted(xs)[int(len(xs) * 0.9)]  # noqa: E731
        print(f"| non-streaming p90 | {q(direct) * 1e3:.2f} ms | {q(through) * 1e3:.2f} ms | {(q(through) - q(direct)) * 1e3:.2f} ms |")
        results, seconds = asyncio.run(streams(proxy.url, 200))
        errors = [r for r in results if isinstance(r, BaseException)]
        whole = sum(1 for r in results if r == 1)
        print(f"| 200 concurrent streams | | {seconds:.2f} s | {len(errors)} errors, {whole} of 200 with the call |")
        if errors:
            print(f"first error: {errors[0]!r}")
    finally:
        proxy.stop()
        upstream.stop()


if __name__ == "__main__":
    main()
