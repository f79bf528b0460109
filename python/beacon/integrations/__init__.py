"""beacon inside serving engines: a vLLM tool-parser and reasoning-parser plugin
(:mod:`beacon.integrations.vllm`) and an SGLang detector (:mod:`beacon.integrations.sglang`).
docs/integrations.md has the launch lines.

Importing this package needs neither engine; importing one of its modules needs that engine.

Both plugins read their options from the environment when a parser is made (once per request):

- ``BEACON_ON_ERROR``: what a broken call becomes. ``raise`` (the default): the
  :class:`beacon.ToolCallError` propagates, and the engine answers with an error. ``content``:
  the error is logged with its code and position, and the message's raw text is returned as
  content, whole (a stream then holds its events until the text ends, so a broken call is never
  half sent).
- ``BEACON_FORMATS``: comma-separated format ids to recognise (default: every format).
- ``BEACON_UNKNOWN``: ``error`` (default), ``keep`` or ``drop``: a call to a tool the request did
  not declare (only when the request has tools).
- ``BEACON_START``: where a streamed text begins: ``content`` (default), ``detect`` or
  ``reasoning`` (:class:`beacon.ToolCallStream`'s ``start``). Whole messages are read with
  :func:`beacon.parse_message`, which detects.
- ``BEACON_TEMPLATE``: the model's chat template, whose format is then read besides the
  built-in ones (every parse's ``template=``, docs/templates.md): the path of a ``.jinja`` file
  or a ``tokenizer_config.json``, or ``tokenizer``: the chat template of the tokenizer the
  engine passes (with its ``bos_token``, ``eos_token`` and special tokens). Unset: none. A
  template whose format cannot be inferred (or a tokenizer without one) raises when the parser
  is made, which the engines do at startup.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import FormatSpec, Tools, ToolCallError, ToolCallStream, _core

__all__ = ["Options", "Stream", "beacon_tools"]

logger = logging.getLogger("beacon.integrations")

_ON_ERROR = ("raise", "content")
_UNKNOWN = ("error", "keep", "drop")
_START = ("content", "detect", "reasoning")


#: The list :func:`beacon_tools` read last, and what it made of it.
_read: Tuple[Any, Optional[Tools]] = (None, None)


def beacon_tools(tools: Any) -> Optional[Tools]:
    """A request's ``tools`` (the engine's pydantic tool objects, or dicts) as a
    :class:`beacon.Tools`; ``None`` when there are none. The list read last is kept (a reference
    held), and a list that is it or equal to it is not read again: the parsers an engine makes
    for one request read the request's list once (vLLM's tool parser, its stream and its
    reasoning parser; SGLang's detector on every piece of a stream), and a client that sends the
    same tools with every request has them compiled once. Comparing two lists of two vLLM tools
    takes 2.4 µs; compiling them, 9 µs."""
    global _read
    if not tools:
        return None
    last, compiled = _read
    if last is tools or last == tools:
        return compiled
    compiled = Tools([_definition(t) for t in tools])
    _read = (tools, compiled)
    return compiled


def _definition(tool: Any) -> Any:
    """An engine's tool as :class:`beacon.Tools` reads it. A function tool's pydantic object
    (``type`` and ``function`` with ``name`` and ``parameters``, or those beside ``type``) is read
    by its attributes, which is all beacon reads of it (``model_dump`` copies every member, and
    cost two thirds of compiling a request's tools); any other object is dumped, and a dict is
    taken as it is."""
    if isinstance(tool, dict) or not hasattr(tool, "model_dump"):
        return tool
    function = getattr(tool, "function", None)
    holder = tool if function is None else function
    name = getattr(holder, "name", None)
    parameters = getattr(holder, "parameters", None)
    kind = getattr(tool, "type", None)
    if not isinstance(name, str) or not isinstance(parameters, (dict, type(None))) or kind != "function":
        return tool.model_dump(exclude_none=True)
    read: Dict[str, Any] = {"name": name}
    if parameters is not None:
        read["parameters"] = parameters
    return {"type": kind, "function": read} if function is not None else {"type": kind, **read}


@dataclass(frozen=True)
class Options:
    """The plugins' options (module docstring), read from the environment by :meth:`from_env`."""

    on_error: str = "raise"
    formats: Optional[List[str]] = None
    unknown: str = "error"
    start: str = "content"
    template: Optional[FormatSpec] = None

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None, tokenizer: Any = None) -> "Options":
        """The options ``environ`` (default ``os.environ``) sets; ``tokenizer`` is the engine's,
        for ``BEACON_TEMPLATE=tokenizer``.

        Raises:
            ValueError: a variable holds a value it does not take, or ``BEACON_TEMPLATE=tokenizer``
                with a tokenizer that has no chat template.
            OSError: the template file cannot be read.
            ToolCallError: the template's format cannot be inferred (``template.*``).
        """
        values = _values(os.environ if environ is None else environ)
        if values[-1].strip() == "tokenizer":
            return _options(values, tokenizer)
        # The engines make a parser per request: the same variables give the same options.
        return _options_of(values)

    def parse(self, text: str, tools: Optional[Tools], *, calls: bool = True) -> Dict[str, Any]:
        """:func:`beacon.parse_message` of a whole message with these options (ids generated),
        each call's ``arguments`` the string of their JSON text, spaced as ``json.dumps`` spaces
        it, as the engines answer them: written by the core while it reads them, where
        ``json.dumps`` of the arguments' objects cost more than the whole parse (3.6 µs against
        2.8 µs for a typical call). ``calls=False`` (a request with ``tool_choice="none"``)
        recognises no call format: the calls stay in the content as the model wrote them, and
        only the reasoning is read."""
        unknown = self.unknown if tools is not None else "error"
        return _core.parse_message(
            text,
            (self.formats if calls else []),
            "generate",
            None if tools is None else tools._compiled,
            True,
            unknown,
            spec=self.template._compiled() if calls and self.template is not None else None,
            arguments_text=True,
        )


#: The variables :meth:`Options.from_env` reads, in this order.
_VARIABLES = ("BEACON_ON_ERROR", "BEACON_FORMATS", "BEACON_UNKNOWN", "BEACON_START", "BEACON_TEMPLATE")

#: :data:`_VARIABLES` as ``os.environ`` keys its own dict (CPython's ``os._Environ``).
_ENCODED = tuple(os.environ.encodekey(name) for name in _VARIABLES) if hasattr(os.environ, "encodekey") else ()


def _values(env: Mapping[str, str]) -> Tuple[str, ...]:
    """The values of :data:`_VARIABLES` in ``env``, ``""`` for one not set. ``os.environ`` is
    read through the dict it keeps of the encoded names and values, where CPython has one:
    ``os.environ.get`` raises and catches a ``KeyError`` for every variable not set, 4.4 µs for
    the five against 0.45 µs."""
    data = getattr(env, "_data", None)
    if env is os.environ and _ENCODED and isinstance(data, dict):
        decode = os.environ.decodevalue  # type: ignore[attr-defined]
        return tuple("" if (value := data.get(key)) is None else decode(value) for key in _ENCODED)
    return tuple(env.get(name, "") for name in _VARIABLES)


def _options(values: Tuple[str, ...], tokenizer: Any) -> Options:
    """The options the values of :data:`_VARIABLES` set (:meth:`Options.from_env`)."""
    on_error, formats, unknown, start, template = values

    def choice(name: str, value: str, allowed: tuple, default: str) -> str:
        value = value.strip() or default
        if value not in allowed:
            raise ValueError(f"{name}={value!r}: expected one of {', '.join(allowed)}")
        return value

    return Options(
        on_error=choice("BEACON_ON_ERROR", on_error, _ON_ERROR, "raise"),
        formats=[f.strip() for f in formats.split(",") if f.strip()] or None,
        unknown=choice("BEACON_UNKNOWN", unknown, _UNKNOWN, "error"),
        start=choice("BEACON_START", start, _START, "content"),
        template=_template(template.strip(), tokenizer),
    )


@functools.lru_cache(maxsize=16)
def _options_of(values: Tuple[str, ...]) -> Options:
    """:func:`_options` without a tokenizer, once for each set of values."""
    return _options(values, None)


def _template(value: str, tokenizer: Any) -> Optional[FormatSpec]:
    """``BEACON_TEMPLATE``'s spec (module docstring); each template is inferred once a process."""
    if not value:
        return None
    if value == "tokenizer":
        template = getattr(tokenizer, "chat_template", None)
        if not isinstance(template, str) or not template:
            raise ValueError("BEACON_TEMPLATE=tokenizer: the tokenizer has no chat template")
        config: Dict[str, Any] = {"chat_template": template}
        for key in ("bos_token", "eos_token"):
            token = getattr(tokenizer, key, None)
            if isinstance(token, str):
                config[key] = token
        special = getattr(tokenizer, "all_special_tokens", None)
        tokens = tuple(t for t in special if isinstance(t, str)) if isinstance(special, (list, tuple)) else ()
        return _infer(json.dumps(config, sort_keys=True), tokens)
    with open(value, encoding="utf-8") as f:
        text = f.read()
    if value.endswith(".json"):
        return _infer(json.dumps(json.loads(text), sort_keys=True), ())
    return _infer(json.dumps(text), ())


@functools.lru_cache(maxsize=16)
def _infer(template_json: str, special_tokens: tuple) -> FormatSpec:
    return FormatSpec.from_template(json.loads(template_json), special_tokens=list(special_tokens) or None)


def log_error(engine: str, err: ToolCallError) -> None:
    """The one log line of a broken call returned as content (``BEACON_ON_ERROR=content``)."""
    logger.error(
        "beacon (%s): broken tool call returned as content: %s (code %s, position %d)",
        engine,
        err,
        err.code,
        err.position,
    )


class Stream:
    """One request's :class:`beacon.ToolCallStream` and what the error mode needs: with
    ``on_error="content"`` every event waits for the end of the text, and a broken call gives
    one content event with the whole raw text instead."""

    def __init__(self, options: Options, tools: Optional[Tools], engine: str, *, calls: bool = True) -> None:
        unknown = options.unknown if tools is not None else "error"
        self._stream = ToolCallStream(
            formats=options.formats if calls else [],  # type: ignore[arg-type]
            ids="generate",
            tools=tools,
            unknown=unknown,  # type: ignore[arg-type]
            start=options.start,  # type: ignore[arg-type]
            template=options.template if calls else None,
        )
        # Bound once: the core's own feed (ToolCallStream inherits it), one lookup less a delta.
        self._feed = self._stream.feed
        self._hold = options.on_error == "content"
        self._engine = engine
        self._held: List[Dict[str, Any]] = []
        self._raw: List[str] = []
        self._failed = False

    @property
    def finished(self) -> bool:
        return self._stream.finished

    def feed(self, delta: str) -> List[Dict[str, Any]]:
        if not self._hold:
            return self._feed(delta)
        self._raw.append(delta)
        if self._failed:
            return []
        try:
            self._held += self._feed(delta)
        except ToolCallError as err:
            self._fail(err)
        return []

    def finish(self) -> List[Dict[str, Any]]:
        if not self._hold:
            return [] if self._stream.finished else self._stream.finish()
        if not self._failed and not self._stream.finished:
            try:
                self._held += self._stream.finish()
            except ToolCallError as err:
                self._fail(err)
        if self._failed:
            self._failed = False
            self._held = []
            text = "".join(self._raw)
            return [{"type": "content", "text": text}] if text else []
        out, self._held = self._held, []
        return out

    def _fail(self, err: ToolCallError) -> None:
        log_error(self._engine, err)
        self._failed = True
