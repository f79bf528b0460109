"""`beacon proxy` under load, on loopback: what the proxy adds to a non-streaming request over
calling the upstream directly (target: ≤ 1 ms at the median), and whether it holds 200
concurrent streaming requests with no error.

    .venv/bin/python bench/proxy.py [--quick]

Three processes, as deployed: the upstream, a small Starlette app on uvicorn that answers with a
hermes tool call, whole or as a stream of 3-code-point deltas (this script with
`--serve-upstream PORT`); the proxy, started as users start it (`python -m beacon proxy
--upstream … --listen …`, uvicorn with uvloop and httptools, which the `proxy` extra pins); and
this process, the client. Both servers are stopped at the end. Bounded: a fixed number of
requests, each with a timeout.
"""

import argparse
import asyncio
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")

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


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A server process listening on `port`, until `stop()`."""

    def __init__(self, argv, port):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [PYTHON, os.environ.get("PYTHONPATH")])))
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"{argv[1:4]} did not start") from None
                time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def serve_upstream(port):
    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="critical", access_log=False, backlog=1024)


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
    ap.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_upstream:
        return serve_upstream(args.serve_upstream)
    n = 100 if args.quick else 400
    up = free_port()
    upstream = Server([sys.executable, os.path.abspath(__file__), "--serve-upstream", str(up)], up)
    listen = free_port()
    try:
        proxy = Server(
            [sys.executable, "-m", "beacon", "proxy", "--upstream", f"{upstream.url}/v1", "--listen", f"127.0.0.1:{listen}"],
            listen,
        )
    except BaseException:
        upstream.stop()
        raise
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
