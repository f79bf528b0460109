"""``beacon proxy`` over real HTTP on 127.0.0.1: a real upstream (a Starlette app on uvicorn,
serving recorded raw model outputs from tests/fixtures, whole and as SSE in small pieces), the
proxy on uvicorn, and the real ``openai`` client. Every server is started and stopped by a
fixture; every wait is bounded."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import typing
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import httpx
import openai
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import beacon
from beacon.proxy import create_app

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def fixture(file: str, case_id: str) -> str:
    cases = json.loads((FIXTURES / f"{file}.json").read_text(encoding="utf-8"))["cases"]
    return next(c["input"] for c in cases if c["id"] == case_id)


# model name -> the raw text the upstream returns for it
TEXTS = {
    "hermes": fixture("hermes", "hermes/prose-before-between-after"),
    "qwen3_coder": fixture("qwen3_coder", "qwen3/template"),
    "kimi_k2": fixture("kimi_k2", "kimi_k2/template-Kimi-K2-Instruct"),
    "kimi_k2_thinking": fixture("kimi_k2", "kimi_k2/template-Kimi-K2-Thinking"),
    "reasoning": fixture("message", "message/reasoning-then-call"),
    "mistral": fixture("message", "message/mistral-think"),
    "plain": fixture("errors", "errors/not-found"),
    "plain_reasoning": fixture("message", "message/no-call-reasoning"),
    "broken": "Let me check.\n" + fixture("errors", "errors/json-unexpected-token-nan"),
}

def fixture_case(file: str, case_id: str) -> Dict[str, Any]:
    cases = json.loads((FIXTURES / f"{file}.json").read_text(encoding="utf-8"))["cases"]
    return next(c for c in cases if c["id"] == case_id)


# A text whose arguments the tools type ("True" is a boolean only for a boolean parameter).
TYPED = fixture_case("typing", "typing/qwen3-coder-template-json")
TEXTS["typed"] = TYPED["input"]
# A format no built-in family reads, written by a hand-made spec (the proxy's `template=`).
CUSTOM = beacon.FormatSpec.from_dict(
    {
        "call": "tag_json",
        "section": {"start": "", "end": ""},
        "call_markers": {"start": "<<call ", "end": ">>"},
        "separator": "",
        "name_suffix": ":",
    }
)
TEXTS["custom"] = 'Looking it up. <<call get_weather: {"city": "Paris"}>>'

TOOLS = TYPED["tools"]
STRUCTURED_CALL = {"id": "call_up", "type": "function", "function": {"name": "f", "arguments": "{}"}}
PIECE = 3  # code points per streamed delta
BIG_PIECE = "lorem ipsum dolor sit amet " * 150  # about 4 KB of prose per chunk
# About 256 MB in all, if anything read it all. What a stalled client leaves in flight is the
# socket buffers of two loopback connections (Linux grows a receive buffer up to tcp_rmem's
# 32 MB under load: 32 MB in flight was seen on the 2-core CI machine, 10 MB on a quiet one) and
# the proxy's bounded reads: well below half of this.
BIG_CHUNKS = 65536


def pieces(text: str, size: int = PIECE) -> List[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# ----------------------------------------------------------------------------- the upstream


class Upstream:
    """A fake OpenAI-compatible server that returns recorded raw text, as a real one would."""

    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        self.big_sent = 0  # chunks of the "big" stream produced so far

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/completions", self.chat, methods=["POST"]),
                Route("/v1/models", self.models, methods=["GET"]),
            ]
        )

    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": m, "object": "model"} for m in TEXTS]})

    async def chat(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append({"body": body, "headers": dict(request.headers)})
        model = body["model"]
        if model == "error-400":
            return JSONResponse({"error": {"message": "bad things", "type": "invalid_request_error", "code": "nope"}}, 400)
        if model == "error-503":
            return Response("overloaded", status_code=503, media_type="text/plain")
        if model == "hang":
            await asyncio.sleep(3)
        if body.get("stream"):
            return StreamingResponse(self.chunks(model, request), media_type="text/event-stream")
        text = TEXTS.get(model, "")
        message: Dict[str, Any] = {"role": "assistant", "content": text}
        if model == "structured":  # an upstream that parsed the call itself
            message = {"role": "assistant", "content": TEXTS["hermes"], "tool_calls": [STRUCTURED_CALL]}
        return JSONResponse(
            {
                "id": "chatcmpl-up",
                "object": "chat.completion",
                "created": 1700000000,
                "model": model,
                "system_fingerprint": "fp_up",
                "choices": [
                    {"index": 0, "message": message, "logprobs": None, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
            }
        )

    async def chunks(self, model: str, request: Request) -> Iterator[bytes]:  # type: ignore[misc]
        def chunk(delta: Dict[str, Any], finish: Optional[str] = None) -> bytes:
            c = {
                "id": "chatcmpl-up",
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(c)}\n\n".encode()

        yield chunk({"role": "assistant", "content": ""})
        if model == "structured":
            yield chunk({"content": "Sure. <tool_"})
            yield chunk({"tool_calls": [{"index": 0, **STRUCTURED_CALL}]})
        elif model == "big":
            for i in range(BIG_CHUNKS):
                if i % 64 == 0 and await request.is_disconnected():
                    return  # the proxy went away
                self.big_sent += 1
                yield chunk({"content": BIG_PIECE})
        else:
            text = TEXTS[model.split("-")[0]]
            parts = pieces(text)
            for i, part in enumerate(parts):
                if i == len(parts) // 2 and model.endswith("-close"):
                    raise RuntimeError("the upstream dies mid-stream")  # uvicorn drops the connection
                if i == len(parts) // 2 and model.endswith("-error"):
                    yield b'data: {"error": {"message": "out of memory", "type": "server_error", "code": 500}}\n\n'
                    return
                if i == len(parts) // 2 and model.endswith("-stall"):
                    await asyncio.sleep(3)
                yield chunk({"content": part})
                await asyncio.sleep(0)
        yield chunk({}, "stop")
        yield b"data: [DONE]\n\n"


class Server:
    """uvicorn serving ``app`` in a thread on a free port of 127.0.0.1, until :meth:`stop`."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level=os.environ.get("LOGLVL", "critical"), lifespan="on", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()
        assert not self.thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    server = Server(up.app())
    up.url = server.url  # type: ignore[attr-defined]
    yield up
    server.stop()


def _proxy(upstream: Upstream, **options: Any) -> Iterator[Server]:
    server = Server(create_app(f"{upstream.url}/v1", **options))  # type: ignore[attr-defined]
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(upstream: Upstream) -> Iterator[Server]:
    yield from _proxy(upstream)


@pytest.fixture(scope="module")
def proxy_content(upstream: Upstream) -> Iterator[Server]:
    yield from _proxy(upstream, on_error="content")


@pytest.fixture(scope="module")
def proxy_tight(upstream: Upstream) -> Iterator[Server]:
    yield from _proxy(upstream, timeout=0.5, max_body=2000)


def client(server: Server) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="x", max_retries=0, timeout=20)


MESSAGES = [{"role": "user", "content": "What is the weather?"}]


def expected(model: str, tools: Any = None) -> Dict[str, Any]:
    return beacon.parse_message(TEXTS[model], tools=tools)


def accumulate(stream: Any, pause: float = 0.0) -> Dict[str, Any]:
    """Add up streamed chunks as a client does."""
    content, reasoning = "", ""
    calls: Dict[int, Dict[str, Any]] = {}
    finish = None
    extras: List[Dict[str, Any]] = []
    for chunk in stream:
        assert chunk.id == "chatcmpl-up" and chunk.created == 1700000000
        for choice in chunk.choices:
            delta = choice.delta
            content += delta.content or ""
            reasoning += (delta.model_extra or {}).get("reasoning_content") or ""
            for tc in delta.tool_calls or []:
                slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function and tc.function.name:
                    slot["name"] += tc.function.name
                if tc.function and tc.function.arguments:
                    slot["arguments"] += tc.function.arguments
            if choice.finish_reason:
                finish = choice.finish_reason
            if choice.model_extra:
                extras.append(choice.model_extra)
        if pause:
            time.sleep(pause)
    return {"content": content, "reasoning": reasoning, "calls": [calls[i] for i in sorted(calls)], "finish": finish, "extras": extras}


# ----------------------------------------------------------------------------- whole responses

CASES = ["hermes", "qwen3_coder", "kimi_k2", "kimi_k2_thinking", "reasoning", "mistral", "plain", "plain_reasoning"]


@pytest.mark.parametrize("model", CASES)
def test_whole_response_is_parse_message(proxy: Server, model: str) -> None:
    want = expected(model)
    done = client(proxy).chat.completions.create(model=model, messages=MESSAGES)
    assert (done.id, done.model, done.system_fingerprint, done.usage.total_tokens) == ("chatcmpl-up", model, "fp_up", 12)
    choice = done.choices[0]
    message = choice.message
    calls = message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        (c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert all(c.id and c.type == "function" for c in calls)
    assert len({c.id for c in calls}) == len(calls)
    if want["tool_calls"]:
        assert choice.finish_reason == "tool_calls"
        assert message.content == (want["content"] or None)
    else:
        assert choice.finish_reason == "stop"
        assert message.content == want["content"]
    assert (message.model_extra or {}).get("reasoning_content") == want["reasoning"]


def test_tools_type_the_arguments(proxy: Server, upstream: Upstream) -> None:
    want = expected("typed", TOOLS)
    assert want["tool_calls"][0]["arguments"] != expected("typed")["tool_calls"][0]["arguments"]
    c = client(proxy)
    done = c.chat.completions.create(model="typed", messages=MESSAGES, tools=TOOLS)  # type: ignore[arg-type]
    calls = done.choices[0].message.tool_calls or []
    assert [json.loads(t.function.arguments) for t in calls] == [t["arguments"] for t in want["tool_calls"]]
    # The body went to the upstream as it came, tools and all, with the client's key.
    last = upstream.requests[-1]
    assert last["body"]["tools"] == TOOLS and last["headers"]["authorization"] == "Bearer x"
    got = accumulate(c.chat.completions.create(model="typed", messages=MESSAGES, tools=TOOLS, stream=True))  # type: ignore[arg-type]
    assert [json.loads(t["arguments"]) for t in got["calls"]] == [t["arguments"] for t in want["tool_calls"]]


def test_upstream_tool_calls_are_left_alone(proxy: Server) -> None:
    """A message that already has tool_calls (the upstream parsed them) is not parsed again."""
    c = client(proxy)
    message = c.chat.completions.create(model="structured", messages=MESSAGES).choices[0].message
    assert message.content == TEXTS["hermes"]
    assert [(t.id, t.function.name) for t in message.tool_calls or []] == [("call_up", "f")]
    got = accumulate(c.chat.completions.create(model="structured", messages=MESSAGES, stream=True))
    # what the stream held ("<tool_" might begin a marker) is let go, then the upstream's call
    assert got["content"] == "Sure. <tool_"
    assert got["calls"] == [{"id": "call_up", "name": "f", "arguments": "{}"}]
    assert got["finish"] == "tool_calls"


def test_no_content_is_left_alone(proxy: Server) -> None:
    done = client(proxy).chat.completions.create(model="unknown-model", messages=MESSAGES)
    assert done.choices[0].message.content == "" and done.choices[0].message.tool_calls is None


# ----------------------------------------------------------------------------- streams


@pytest.mark.parametrize("model", CASES)
def test_stream_adds_up_to_parse_message(proxy: Server, model: str) -> None:
    want = expected(model)
    got = accumulate(client(proxy).chat.completions.create(model=model, messages=MESSAGES, stream=True))
    assert got["content"] == want["content"]
    assert got["reasoning"] == (want["reasoning"] or "")
    assert [(c["name"], json.loads(c["arguments"])) for c in got["calls"]] == [
        (c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert all(c["id"] for c in got["calls"])
    assert got["finish"] == ("tool_calls" if want["tool_calls"] else "stop")


def test_stream_with_the_sdk_accumulation(proxy: Server) -> None:
    """The openai SDK's own stream helper adds the deltas up to the same message."""
    want = expected("hermes")
    with client(proxy).chat.completions.stream(model="hermes", messages=MESSAGES) as stream:  # type: ignore[arg-type]
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []] == [
        (c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert message.content == want["content"] and final.choices[0].finish_reason == "tool_calls"


def test_stream_deltas_are_openai_shaped(proxy: Server) -> None:
    with httpx.stream(
        "POST", f"{proxy.url}/v1/chat/completions", json={"model": "hermes", "messages": MESSAGES, "stream": True}, timeout=20
    ) as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        events = [line[6:] for line in resp.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant"}
    tool_deltas = [tc for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", [])]
    starts = [tc for tc in tool_deltas if "id" in tc]
    assert [s["function"] for s in starts] == [{"name": "get_weather", "arguments": ""}] * 2
    assert all(s["type"] == "function" and s["id"].startswith("call_") for s in starts)
    assert all(set(tc) == {"index", "function"} and set(tc["function"]) == {"arguments"} for tc in tool_deltas if "id" not in tc)
    assert chunks[-1]["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "tool_calls"}


def test_slow_client_gets_everything(proxy: Server) -> None:
    want = expected("kimi_k2")
    got = accumulate(client(proxy).chat.completions.create(model="kimi_k2", messages=MESSAGES, stream=True), pause=0.01)
    assert [(c["name"], json.loads(c["arguments"])) for c in got["calls"]] == [
        (c["name"], c["arguments"]) for c in want["tool_calls"]
    ]


def test_slow_client_holds_back_the_upstream(proxy: Server, upstream: Upstream) -> None:
    """Back-pressure: a client that stops reading stops the proxy reading the upstream, so the
    upstream produces only what the socket buffers hold, not the whole 64 MB stream."""
    upstream.big_sent = 0
    with httpx.Client(timeout=20) as c:
        with c.stream("POST", f"{proxy.url}/v1/chat/completions", json={"model": "big", "messages": MESSAGES, "stream": True}) as resp:
            assert resp.status_code == 200
            raw = resp.iter_raw(1024)  # kept: dropping the iterator would close the connection
            assert next(raw).startswith(b"data: ")
            seen, deadline = -1, time.monotonic() + 15
            while upstream.big_sent != seen and time.monotonic() < deadline:
                seen = upstream.big_sent
                time.sleep(0.5)
            assert upstream.big_sent == seen, "the upstream kept producing"
            assert 0 < seen < BIG_CHUNKS // 2, f"{seen} of {BIG_CHUNKS} chunks produced while the client read nothing"


# ----------------------------------------------------------------------------- errors


def test_upstream_4xx_passes_through(proxy: Server) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as info:
            client(proxy).chat.completions.create(model="error-400", messages=MESSAGES, stream=stream)
        assert info.value.status_code == 400 and info.value.body == {"message": "bad things", "type": "invalid_request_error", "code": "nope"}


def test_upstream_5xx_passes_through(proxy: Server) -> None:
    for stream in (False, True):
        resp = httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "error-503", "messages": MESSAGES, "stream": stream}, timeout=20)
        assert (resp.status_code, resp.text, resp.headers["content-type"].split(";")[0]) == (503, "overloaded", "text/plain")


def _broken() -> beacon.ToolCallError:
    with pytest.raises(beacon.ToolCallError) as info:
        beacon.parse_message(TEXTS["broken"])
    return info.value


def test_broken_call_is_a_coded_502(proxy: Server) -> None:
    err = _broken()
    with pytest.raises(openai.APIStatusError) as info:
        client(proxy).chat.completions.create(model="broken", messages=MESSAGES)
    assert info.value.status_code == 502
    assert info.value.body == {
        "message": str(err),
        "type": "tool_call_error",
        "code": "json.unexpected_token",
        "position": err.position,
        "line": err.line,
        "column": err.column,
    }


def test_broken_call_in_a_stream_is_an_error_event(proxy: Server) -> None:
    err = _broken()
    stream = client(proxy).chat.completions.create(model="broken", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError) as info:
        accumulate(stream)
    assert info.value.body["code"] == err.code and info.value.body["position"] == err.position  # type: ignore[index]


def test_broken_call_as_content(proxy_content: Server) -> None:
    err = _broken()
    raw = client(proxy_content).chat.completions.with_raw_response.create(model="broken", messages=MESSAGES)
    assert raw.headers["x-beacon-error"] == f"{err.code} at {err.position}"
    choice = raw.parse().choices[0]
    assert choice.message.content == TEXTS["broken"] and choice.message.tool_calls is None
    assert choice.model_extra["beacon_error"]["code"] == err.code  # type: ignore[index]


def test_broken_call_as_content_in_a_stream(proxy_content: Server) -> None:
    err = _broken()
    got = accumulate(client(proxy_content).chat.completions.create(model="broken", messages=MESSAGES, stream=True))
    assert got["calls"] == []  # the broken call was never half sent
    assert TEXTS["broken"].startswith(got["content"])
    error = got["extras"][-1]["beacon_error"]
    assert (error["code"], error["position"], error["text"]) == (err.code, err.position, TEXTS["broken"])
    assert got["finish"] == "stop"


def test_content_mode_streams_good_calls_whole(proxy_content: Server) -> None:
    want = expected("hermes")
    got = accumulate(client(proxy_content).chat.completions.create(model="hermes", messages=MESSAGES, stream=True))
    assert [(c["name"], json.loads(c["arguments"])) for c in got["calls"]] == [
        (c["name"], c["arguments"]) for c in want["tool_calls"]
    ]
    assert got["content"] == want["content"]


def test_upstream_closing_mid_stream_is_a_clear_error(proxy: Server) -> None:
    stream = client(proxy).chat.completions.create(model="hermes-close", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError) as info:
        accumulate(stream)
    assert info.value.body["code"] == "upstream.closed"  # type: ignore[index]


def test_upstream_error_event_passes_through(proxy: Server) -> None:
    stream = client(proxy).chat.completions.create(model="hermes-error", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError) as info:
        accumulate(stream)
    assert info.value.body == {"message": "out of memory", "type": "server_error", "code": 500}


def test_no_duplicate_headers(proxy: Server) -> None:
    resp = httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": "hermes", "messages": MESSAGES}, timeout=20)
    names = [k.lower() for k, _ in resp.headers.multi_items()]
    assert len(names) == len(set(names)), names


def test_upstream_timeout_is_504(proxy_tight: Server) -> None:
    with pytest.raises(openai.APIStatusError) as info:
        client(proxy_tight).chat.completions.create(model="hang", messages=MESSAGES)
    assert info.value.status_code == 504 and info.value.body["code"] == "upstream.timeout"  # type: ignore[index]


def test_upstream_stalling_mid_stream_is_a_timeout_event(proxy_tight: Server) -> None:
    stream = client(proxy_tight).chat.completions.create(model="hermes-stall", messages=MESSAGES, stream=True)
    with pytest.raises(openai.APIError) as info:
        accumulate(stream)
    assert info.value.body["code"] == "upstream.timeout"  # type: ignore[index]


def test_request_body_limit_is_413(proxy_tight: Server) -> None:
    body = {"model": "plain", "messages": [{"role": "user", "content": "x" * 5000}]}
    resp = httpx.post(f"{proxy_tight.url}/v1/chat/completions", json=body, timeout=20)
    assert resp.status_code == 413 and resp.json()["error"]["code"] == "request.too_large"
    # without a Content-Length (chunked), the limit holds too
    resp = httpx.post(f"{proxy_tight.url}/v1/chat/completions", content=iter([json.dumps(body).encode()]), timeout=20)
    assert resp.status_code == 413


def test_bad_requests(proxy: Server) -> None:
    resp = httpx.post(f"{proxy.url}/v1/chat/completions", content=b"not json", timeout=20)
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "request.invalid"
    body = {"model": "plain", "messages": MESSAGES, "tools": [{"type": "function", "function": {"name": 7}}]}
    resp = httpx.post(f"{proxy.url}/v1/chat/completions", json=body, timeout=20)
    assert resp.status_code == 400 and resp.json()["error"]["code"] == "request.invalid"


def test_models_and_other_paths(proxy: Server) -> None:
    assert [m.id for m in client(proxy).models.list()] == list(TEXTS)
    for method, path in (("GET", "/v1/embeddings"), ("POST", "/v1/completions"), ("GET", "/")):
        assert httpx.request(method, f"{proxy.url}{path}", timeout=20).status_code == 404


def test_upstream_unreachable_is_502() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    server = Server(create_app(f"http://127.0.0.1:{port}/v1"))
    try:
        resp = httpx.post(f"{server.url}/v1/chat/completions", json={"model": "m", "messages": MESSAGES}, timeout=20)
        assert resp.status_code == 502 and resp.json()["error"]["code"] == "upstream.unreachable"
    finally:
        server.stop()


def test_one_log_line_per_request(proxy: Server, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="beacon.proxy"):
        client(proxy).chat.completions.create(model="hermes", messages=MESSAGES)
        accumulate(client(proxy).chat.completions.create(model="kimi_k2", messages=MESSAGES, stream=True))
        deadline = time.monotonic() + 5
        while len(caplog.records) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    lines = [r.getMessage() for r in caplog.records if r.name == "beacon.proxy"]
    assert len(lines) == 2, lines
    assert "model=hermes stream=no status=200 calls=2 parse_ms=" in lines[0]
    assert "model=kimi_k2 stream=yes status=200 calls=2 parse_ms=" in lines[1]


def test_create_app_checks_its_options() -> None:
    for bad in ({"on_error": "drop"}, {"start": "middle"}, {"timeout": 0}, {"max_body": -1}):
        with pytest.raises(ValueError):
            create_app("http://127.0.0.1:1/v1", **bad)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- the command


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    return subprocess.run([sys.executable, "-m", "beacon", *args], capture_output=True, text=True, timeout=60, env=env)


def test_cli_choices_are_the_literals() -> None:
    from beacon import _proxy_cli
    from beacon.proxy import OnError

    parser = _proxy_cli._parser()
    choices = {a.option_strings[0]: tuple(a.choices) for a in parser._actions if a.choices}
    assert choices["--start"] == typing.get_args(beacon.Start)
    assert choices["--on-error"] == typing.get_args(OnError)


def test_cli_help_and_refusals() -> None:
    done = run_cli("proxy", "--help")
    assert done.returncode == 0 and "--upstream" in done.stdout and "--on-error" in done.stdout
    done = run_cli("proxy", "--upstream", "http://127.0.0.1:1/v1", "--template", "no-such-chat.jinja")
    assert done.returncode == 2 and "cannot read no-such-chat.jinja" in done.stderr
    done = run_cli("proxy", "--upstream", "http://127.0.0.1:1/v1", "--listen", "nowhere")
    assert done.returncode == 2 and "HOST:PORT" in done.stderr


def test_cli_serves(upstream: Upstream) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "beacon", "proxy", "--upstream", f"{upstream.url}/v1", "--listen", f"127.0.0.1:{port}"],  # type: ignore[attr-defined]
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, proc.communicate(timeout=10)
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "beacon proxy did not start"
            time.sleep(0.1)
        c = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="x", max_retries=0, timeout=20)
        done = c.chat.completions.create(model="hermes", messages=MESSAGES)  # type: ignore[arg-type]
        assert [t.function.name for t in done.choices[0].message.tool_calls or []] == ["get_weather", "get_weather"]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "beacon.proxy: chat.completions model=hermes stream=no status=200 calls=2" in err


def test_a_template_reads_the_models_own_format(upstream: Upstream) -> None:
    # Without it the text is content; with it, a call, whole and streamed.
    for server in _proxy(upstream):
        got = client(server).chat.completions.create(model="custom", messages=MESSAGES)  # type: ignore[arg-type]
        assert got.choices[0].message.tool_calls is None
    for server in _proxy(upstream, template=CUSTOM):
        got = client(server).chat.completions.create(model="custom", messages=MESSAGES)  # type: ignore[arg-type]
        message = got.choices[0].message
        assert message.content == "Looking it up."
        assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []] == [
            ("get_weather", {"city": "Paris"})
        ]
        assert got.choices[0].finish_reason == "tool_calls"
        streamed = accumulate(
            client(server).chat.completions.create(model="custom", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
        )
        assert [(c["name"], json.loads(c["arguments"])) for c in streamed["calls"]] == [("get_weather", {"city": "Paris"})]
        assert streamed["finish"] == "tool_calls"


class _Body:
    """An upstream body arriving in the given pieces (what `_lines` reads of aiohttp's response)."""

    def __init__(self, pieces: List[bytes]) -> None:
        self.content = self
        self.pieces = pieces

    async def iter_any(self) -> typing.AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_event_stream_lines_split_only_at_line_ends(size: int) -> None:
    from beacon.proxy import _lines

    text = 'data: {"a": "x\u2028y é"}\r\n\r\ndata: b\rdata: c\n\ndata: last'.encode()
    pieces = [text[i : i + size] for i in range(0, len(text), size)]

    async def read() -> List[str]:
        return [line async for line in _lines(_Body(pieces))]  # type: ignore[arg-type]

    assert asyncio.run(read()) == ['data: {"a": "x\u2028y é"}', "", "data: b", "data: c", "", "data: last"]
