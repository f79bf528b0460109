"""What ``beacon proxy`` does to a streamed chat completion, with no HTTP in it: upstream SSE
lines in, OpenAI-style chunks out.

The rules:

- Each choice index gets its own ``ToolCallStream(tools=..., ids="generate", start=...)``, fed
  every ``delta.content`` of that choice as it arrives.
- Its events become chunks that keep the upstream chunk's ``id``, ``object``, ``created``,
  ``model`` (every top-level field but ``choices`` and ``usage``): ``content`` events become
  ``delta.content``, ``reasoning`` events ``delta.reasoning_content``, a ``call_start``
  ``delta.tool_calls=[{"index", "id", "type": "function", "function": {"name", "arguments": ""}}]``
  and ``arguments`` events ``[{"index", "function": {"arguments": <fragment>}}]``. Neighbouring
  text (or argument fragments of one call) decided together go out as one chunk.
- The delta's other fields (``role``, an upstream ``reasoning_content``) go out as they came.
  A choice whose upstream delta already has ``tool_calls`` (the upstream parses calls itself) is
  passed through from then on, after what its stream held.
- At the choice's ``finish_reason``, ``finish()`` reports the rest, then a chunk with an empty
  delta carries the finish reason: ``"tool_calls"`` when the choice had calls, the upstream's
  otherwise. ``usage`` rides on the last chunk made from the upstream chunk that carried it.
- An upstream event with an ``error`` is passed on as it came and ends the stream.
- ``data: [DONE]`` finishes every open choice. A body that ends without it, with a choice still
  open, is :class:`UpstreamClosed`: the caller reports it, never a truncated call.
- A broken call: with ``on_error="error"`` :class:`ToolCallError` propagates (the caller ends
  the stream with an error event). With ``"content"`` calls are held until they end (so a broken
  call is never half sent); at the error the choice stops being parsed and sends nothing more
  until its finish chunk, which has ``beacon_error``: the error object plus ``text``, the
  choice's whole raw text as the upstream sent it.
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, Iterator, List, Optional

from . import Tools, ToolCallStream
from ._errors import ToolCallError
from ._proxy_message import error_fields


class UpstreamClosed(Exception):
    """The upstream's stream ended before every choice finished (no ``[DONE]``)."""


class SSELines:
    """Split SSE lines into events: :meth:`line` returns the event's ``data`` (its ``data:``
    lines joined with newlines) at the blank line that ends it, else ``None``. Comments
    (``:``…) and other fields are ignored; ``event: error`` is remembered in :attr:`event`."""

    def __init__(self) -> None:
        self._data: List[str] = []
        self.event: Optional[str] = None

    def line(self, line: str) -> Optional[str]:
        if line == "":
            if not self._data:
                self.event = None
                return None
            data = "\n".join(self._data)
            self._data = []
            return data
        if line.startswith(":"):
            return None
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self.event = value
        return None

    def end(self) -> Optional[str]:
        """The body ended: the last event's data, if it had no blank line after it."""
        data = "\n".join(self._data) if self._data else None
        self._data = []
        return data


def _deltas(events: List[Dict[str, Any]], hold_calls: bool, held: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The OpenAI deltas of ``events``, neighbours merged. With ``hold_calls``, a call's deltas
    wait in ``held`` until its ``call_end``."""
    out: List[Dict[str, Any]] = []

    def put(delta: Dict[str, Any]) -> None:
        target = held if hold_calls and "tool_calls" in delta else out
        last = target[-1] if target else None
        if last is not None and "tool_calls" not in delta and set(last) == set(delta):
            key = next(iter(delta))
            last[key] += delta[key]
            return
        if last is not None and "tool_calls" in delta and "tool_calls" in last:
            prev, new = last["tool_calls"][-1], delta["tool_calls"][0]
            if "id" not in new and "id" not in prev and prev["index"] == new["index"]:
                prev["function"]["arguments"] += new["function"]["arguments"]
                return
        target.append(delta)

    for e in events:
        kind = e["type"]
        if kind == "content":
            put({"content": e["text"]})
        elif kind == "reasoning":
            put({"reasoning_content": e["text"]})
        elif kind == "call_start":
            put(
                {
                    "tool_calls": [
                        {
                            "index": e["index"],
                            "id": e["id"],
                            "type": "function",
                            "function": {"name": e["name"], "arguments": ""},
                        }
                    ]
                }
            )
        elif kind == "arguments":
            put({"tool_calls": [{"index": e["index"], "function": {"arguments": e["delta"]}}]})
        elif kind == "call_end" and hold_calls:
            out.extend(held)
            held.clear()
    return out


class _Choice:
    """One choice of the streamed completion: its stream and what it has sent."""

    def __init__(self, index: int, tools: Optional[Tools], start: str, hold_calls: bool, template: Any = None) -> None:
        self.index = index
        self.stream = ToolCallStream(tools=tools, ids="generate", start=start, template=template)  # type: ignore[arg-type]
        self.hold_calls = hold_calls
        self.held: List[Dict[str, Any]] = []
        self.calls = 0
        self.text: List[str] = []
        self.error: Optional[ToolCallError] = None
        self.passthrough = False
        self.done = False


class ChunkTranslator:
    """Turn the upstream's SSE lines into the proxy's SSE events (the rules above).

    :meth:`line` and :meth:`end` return the ``data:`` payloads to send (JSON text, or
    ``"[DONE]"``). :attr:`calls` counts the calls sent and :attr:`parse_seconds` the time spent
    in beacon.
    """

    def __init__(
        self, tools: Optional[Tools], *, on_error: str = "error", start: str = "content", template: Any = None
    ) -> None:
        self._tools = tools
        self._template = template
        self._on_error = on_error
        self._start = start
        self._choices: Dict[int, _Choice] = {}
        self._sse = SSELines()
        self.calls = 0
        self.parse_seconds = 0.0
        self.errors: List[ToolCallError] = []
        self.done = False
        self._last_base: Dict[str, Any] = {}

    # ------------------------------------------------------------------ input
    def line(self, line: str) -> List[str]:
        """One line of the upstream body (without its line break)."""
        data = self._sse.line(line)
        return [] if data is None else self._event(data)

    def end(self) -> List[str]:
        """The upstream body ended.

        Raises:
            UpstreamClosed: it ended before ``[DONE]`` with a choice still open (or before any).
        """
        out: List[str] = []
        data = self._sse.end()
        if data is not None:
            out += self._event(data)
        if not self.done:
            open_choices = [c for c in self._choices.values() if not c.done]
            if open_choices or not self._choices:
                raise UpstreamClosed("the upstream closed the stream before it finished")
            out.append("[DONE]")
            self.done = True
        return out

    def _event(self, data: str) -> List[str]:
        if self.done:
            return []
        if data.strip() == "[DONE]":
            out: List[str] = []
            for choice in self._choices.values():
                if not choice.done:
                    out += self._finish(choice, None, {})
            self.done = True
            return out + ["[DONE]"]
        try:
            chunk = json.loads(data)
        except ValueError:
            return [data]  # not ours to judge: passed on as it came
        if isinstance(chunk, dict) and "error" in chunk:
            self.done = True  # the upstream's own error event ends the stream, passed on as it came
            return [data]
        if not isinstance(chunk, dict) or not isinstance(chunk.get("choices"), list):
            return [data]
        return self._chunk(chunk)

    # ------------------------------------------------------------------ output
    def _chunk(self, chunk: Dict[str, Any]) -> List[str]:
        base = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
        self._last_base = base
        made: List[Dict[str, Any]] = []
        for up in chunk["choices"]:
            if not isinstance(up, dict):
                continue
            index = up.get("index", 0)
            choice = self._choices.get(index)
            if choice is None:
                choice = _Choice(index, self._tools, self._start, self._on_error == "content", self._template)
                self._choices[index] = choice
            if choice.done:
                continue
            made += self._choice_chunks(base, choice, up)
        if "usage" in chunk:
            if made:
                made[-1]["usage"] = chunk["usage"]
            else:
                made.append({**base, "choices": [], "usage": chunk["usage"]})
        return [json.dumps(c, ensure_ascii=False) for c in made]

    def _choice_chunks(self, base: Dict[str, Any], choice: _Choice, up: Dict[str, Any]) -> List[Dict[str, Any]]:
        delta = up.get("delta") if isinstance(up.get("delta"), dict) else {}
        extra = {k: v for k, v in delta.items() if k not in ("content", "tool_calls")}
        deltas: List[Dict[str, Any]] = [extra] if extra else []
        if delta.get("tool_calls") and not choice.passthrough:
            deltas += self._parse(choice, None)  # what the stream held, then the upstream's own
            choice.passthrough = True
        text = delta.get("content")
        if choice.passthrough:
            passed = {k: delta[k] for k in ("content", "tool_calls") if delta.get(k)}
            if passed:
                deltas.append(passed)
                started = sum(1 for c in delta.get("tool_calls") or [] if isinstance(c, dict) and c.get("id"))
                choice.calls += started
                self.calls += started
        elif isinstance(text, str) and text:
            deltas += self._parse(choice, text)
        out = [{**base, "choices": [{"index": choice.index, "delta": d, "finish_reason": None}]} for d in deltas]
        if up.get("finish_reason") is not None:
            out += self._finish(choice, up["finish_reason"], base, chunks=True)
        return out

    def _parse(self, choice: _Choice, text: Optional[str]) -> List[Dict[str, Any]]:
        """Feed ``text`` (``None``: finish) to the choice's stream; its deltas."""
        if text is not None:
            choice.text.append(text)
        if choice.error is not None or choice.stream.finished:
            return []
        t0 = time.perf_counter()
        try:
            events = choice.stream.feed(text) if text is not None else choice.stream.finish()
        except ToolCallError as err:
            if self._on_error == "error":
                raise
            choice.error = err
            self.errors.append(err)
            choice.held.clear()
            return []
        finally:
            self.parse_seconds += time.perf_counter() - t0
        deltas = _deltas(events, choice.hold_calls, choice.held)
        # Calls sent (in content mode a held call counts once it is released at its end).
        started = sum(1 for d in deltas for tc in d.get("tool_calls", ()) if "id" in tc)
        choice.calls += started
        self.calls += started
        return deltas

    def _finish(self, choice: _Choice, reason: Optional[str], base: Dict[str, Any], chunks: bool = False) -> Any:
        """The choice's last deltas and its finish chunk (as chunk dicts when ``chunks``, else
        as JSON payloads)."""
        if not choice.passthrough:
            deltas = self._parse(choice, None)
        else:
            deltas = []
        choice.done = True
        final: Dict[str, Any] = {
            "index": choice.index,
            "delta": {},
            "finish_reason": "tool_calls" if choice.calls else (reason or "stop"),
        }
        if choice.error is not None:
            final["beacon_error"] = {**error_fields(choice.error), "text": "".join(choice.text)}
        base = base or self._last_base
        out = [{**base, "choices": [{"index": choice.index, "delta": d, "finish_reason": None}]} for d in deltas]
        out.append({**base, "choices": [final]})
        if chunks:
            return out
        return [json.dumps(c, ensure_ascii=False) for c in out]


def error_event(error: Dict[str, Any]) -> str:
    """The payload of the event that ends a stream with an error."""
    return json.dumps({"error": error}, ensure_ascii=False)


def sse(payloads: List[str]) -> Iterator[bytes]:
    """The SSE bytes of ``payloads``, one ``data:`` event each."""
    for p in payloads:
        yield ("data: " + p.replace("\n", "\ndata: ") + "\n\n").encode("utf-8")
