"""The ``tools`` option: :class:`Tools`, a tool list compiled once, from definitions in any common
shape, pydantic models and plain functions."""

from __future__ import annotations

import inspect
from typing import Any, Dict, Iterable, List, Optional, Tuple

from . import _core

__all__ = ["Tools"]


def _is_model(d: Any) -> bool:
    """Whether ``d`` is a pydantic model class (duck-typed: pydantic is not a dependency)."""
    return isinstance(d, type) and callable(getattr(d, "model_json_schema", None))


def _function_schema(entry: str, fn: Any) -> Dict[str, Any]:
    """The parameters schema of ``fn``'s signature, as pydantic writes it."""
    try:
        from pydantic import TypeAdapter
    except ImportError:  # pragma: no cover - pydantic comes with every LLM SDK
        raise TypeError(f"Tools(): {entry} is a function; reading its signature needs pydantic") from None
    try:
        return TypeAdapter(fn).json_schema()
    except Exception as e:  # pydantic's errors for annotations it cannot describe
        raise TypeError(f"Tools(): {entry}: no schema for the signature of {fn.__name__!r}: {e}") from e


def _definition(entry: str, d: Any, models: Dict[str, Any]) -> Any:
    """Definition ``d`` as plain data: a pydantic model (name: the class name, parameters: its
    ``model_json_schema()``, as the OpenAI SDK's ``pydantic_function_tool`` does) or a function
    (name: ``__name__``, parameters: its signature's schema) in the OpenAI Chat shape; any other
    entry as it is (the core reads it, or raises naming it)."""
    if _is_model(d):
        name = d.__name__
        models[name] = d
        return {"type": "function", "function": {"name": name, "parameters": d.model_json_schema()}}
    if inspect.isfunction(d) or inspect.ismethod(d) or inspect.isbuiltin(d):
        name = d.__name__
        return {"type": "function", "function": {"name": name, "parameters": _function_schema(entry, d)}}
    return d


class Tools:
    """A tool list, read once and reused: pass it as ``tools=`` to :func:`parse_tool_call`,
    :func:`parse_tool_calls` and :func:`parse_message` (a plain list works too, but is read on
    every call).

    Each definition is, in any mix: a bare name; an OpenAI Chat, OpenAI Responses, Anthropic,
    Gemini or MCP tool definition (a ``dict``, or an SDK object with ``model_dump()``); a pydantic
    model class (its name and ``model_json_schema()``; ``as_models=True`` then returns instances
    of it); or a function (its name and the schema of its signature, made by pydantic).

    >>> from pydantic import BaseModel
    >>> class lookup_zip(BaseModel):
    ...     zip: str
    >>> tools = Tools([lookup_zip, "get_time"])
    >>> tools.names
    ['lookup_zip', 'get_time']

    Raises:
        TypeError: ``definitions`` is not a list or tuple, or an entry (or a value in it) has the
            wrong type; the message names the entry (``tools[1].function.name``).
        ValueError: an entry has no name, two tools have one name, or a schema is one beacon
            cannot use; the message names the entry.
    """

    __slots__ = ("_compiled", "_models")

    def __init__(self, definitions: Iterable[Any]) -> None:
        if isinstance(definitions, Tools):
            self._compiled, self._models = definitions._compiled, dict(definitions._models)
            return
        if not isinstance(definitions, (list, tuple)):
            raise TypeError(
                f"Tools() argument 'definitions' must be a list or tuple of tool definitions, "
                f"not {type(definitions).__name__}"
            )
        models: Dict[str, Any] = {}
        plain = [_definition(f"tools[{i}]", d, models) for i, d in enumerate(definitions)]
        self._compiled = _core.Tools(plain)
        self._models = models

    @property
    def names(self) -> List[str]:
        """The tool names, in the order given."""
        return self._compiled.names

    def unchecked(self) -> List[Tuple[str, str, str]]:
        """The schema keywords beacon does not check, as ``(tool, schema pointer, keyword)``."""
        return self._compiled.unchecked()

    def __len__(self) -> int:
        return len(self._compiled)

    def __repr__(self) -> str:
        return f"beacon.Tools({self.names!r})"


def tools_arg(tools: Any) -> Optional[Tools]:
    """The ``tools`` option as a :class:`Tools` (``None``: no tools)."""
    if tools is None or isinstance(tools, Tools):
        return tools
    return Tools(tools)


def compiled(tools: Optional[Tools]) -> Any:
    return None if tools is None else tools._compiled


def check_as_models(func: str, as_models: bool, tools: Optional[Tools]) -> None:
    if as_models and tools is None:
        raise ValueError(f"{func}(): as_models=True needs tools= (the pydantic models to build)")


def to_model(call: Dict[str, Any], tools: Tools) -> Dict[str, Any]:
    """``call`` with its arguments as an instance of its tool's pydantic model, when it has one."""
    model = tools._models.get(call["name"])
    if model is not None:
        call["arguments"] = model.model_validate(call["arguments"])
    return call


def to_models(calls: List[Any], tools: Optional[Tools], as_models: bool) -> List[Any]:
    """``calls`` (modified in place) with their arguments as model instances, when ``as_models``."""
    if as_models and tools is not None:
        for call in calls:
            to_model(call, tools)
    return calls
