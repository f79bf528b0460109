"""``FormatSpec``: a tool-call format as data, inferred from a model's own chat template, and
``beacon template FILE``, which prints it."""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from collections import OrderedDict
from typing import Any, Dict, Iterable, Optional, Sequence, Union

from . import _core
from ._errors import ToolCallError

#: A chat template: its Jinja text, a ``tokenizer_config.json``'s text, or that config decoded.
Template = Union[str, Dict[str, Any]]


class FormatSpec:
    """The tool-call format a model writes, as data (docs/templates.md).

    :meth:`from_template` infers it from the model's own chat template by rendering probe
    conversations that differ in one thing and diffing the renders: every marker comes from
    those diffs, none from a list of known formats. :meth:`describe` gives it as a JSON-ready
    ``dict``.

    >>> template = (
    ...     "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}"
    ...     "<tool_call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}"
    ...     "</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}{% endfor %}"
    ... )
    >>> spec = FormatSpec.from_template(template)
    >>> spec.describe()["call_markers"]
    {'start': '<tool_call>', 'end': '</tool_call>'}
    """

    __slots__ = ("_described", "_spec")

    def __init__(self, described: Dict[str, Any]) -> None:
        self._described = described
        self._spec: Optional[Any] = None

    @classmethod
    def from_dict(cls, described: Dict[str, Any]) -> "FormatSpec":
        """The spec ``described`` (what :meth:`describe` gives, saved, edited or written by hand).

        Raises:
            ToolCallError: ``result.missing_field`` (a field is missing or not a string, the
                message names it), ``result.unsupported`` (an unknown ``call`` kind or value
                style, or a spec whose calls cannot be found in a text: its opening marker,
                ``section.start`` or else ``call_markers.start``, must hold a ``<``, ``[`` or
                ``>``).
            TypeError: ``described`` is not a ``dict``.
        """
        if not isinstance(described, dict):
            raise TypeError(f"FormatSpec.from_dict() takes a dict, not {type(described).__name__}")
        spec = cls(copy.deepcopy(described))
        spec._compiled()
        return spec

    def _compiled(self) -> Any:
        """The spec compiled by the core, once (what the parse functions take)."""
        if self._spec is None:
            self._spec = _core.Spec(self._described)
        return self._spec

    @classmethod
    def from_template(
        cls,
        template: Template,
        *,
        bos_token: Optional[str] = None,
        eos_token: Optional[str] = None,
        special_tokens: Optional[Iterable[str]] = None,
    ) -> "FormatSpec":
        """The format ``template`` writes.

        ``template`` is the Jinja text, or a ``tokenizer_config.json`` (its text, or decoded):
        then its ``chat_template`` (a string, or a list of named templates of which ``tool_use``
        is taken, else ``default``), its ``bos_token``/``eos_token`` (strings or added-token
        objects) and its added tokens are used. ``bos_token``/``eos_token`` replace the
        config's; ``special_tokens`` (text the tokenizer keeps as one token) add to its added
        tokens, so that no marker is cut inside a token.

        Raises:
            ToolCallError: ``template.render`` (the template fails to render; the message names
                its line), ``template.no_tool_calls`` (no render shows a call, or the calls are
                written in a form not inferred yet), ``template.ambiguous`` (two readings),
                ``template.limit`` (the render ran out of fuel, recursion or output room).
            TypeError: ``template`` is neither ``str`` nor ``dict``.
        """
        tokens = None if special_tokens is None else list(special_tokens)
        return cls(_core.infer_format(template, bos_token, eos_token, tokens))

    def describe(self) -> Dict[str, Any]:
        """The spec as a JSON-ready ``dict`` (a copy)."""
        return copy.deepcopy(self._described)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FormatSpec) and other._described == self._described

    def __hash__(self) -> int:
        return hash(json.dumps(self._described, sort_keys=True))

    def __repr__(self) -> str:
        return f"FormatSpec({self._described!r})"


#: Specs inferred from templates, by the template's hash (most recent last; at most
#: ``_CACHE_SIZE``), so that passing the same template to every parse infers it once.
_INFERRED: "OrderedDict[str, FormatSpec]" = OrderedDict()
_CACHE_SIZE = 64


def _inferred(template: Template) -> FormatSpec:
    text = template if isinstance(template, str) else json.dumps(template, sort_keys=True, default=str)
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    spec = _INFERRED.get(key)
    if spec is None:
        spec = FormatSpec.from_template(template)
        _INFERRED[key] = spec
        if len(_INFERRED) > _CACHE_SIZE:
            _INFERRED.popitem(last=False)
    else:
        _INFERRED.move_to_end(key)
    return spec


def spec_arg(func: str, template: Union[FormatSpec, Template]) -> Any:
    """The ``template=`` option of the parse functions, compiled: a :class:`FormatSpec`, or a
    template (text or ``tokenizer_config.json``) whose spec is inferred once and cached."""
    if isinstance(template, FormatSpec):
        return template._compiled()
    if isinstance(template, (str, dict)):
        return _inferred(template)._compiled()
    raise TypeError(
        f"{func}() argument 'template' must be a FormatSpec, a chat template (str) or a "
        f"tokenizer_config.json (str or dict), not {type(template).__name__}"
    )


def main(argv: Sequence[str]) -> int:
    """``beacon template FILE``: the inferred spec as JSON on stdout (exit 0), or the error on
    stderr (exit 2)."""
    parser = argparse.ArgumentParser(
        prog="beacon template",
        description="Print the tool-call format a model's chat template writes (a .jinja file or a "
        "tokenizer_config.json), inferred by rendering it.",
    )
    parser.add_argument("file", help="the chat template (.jinja) or tokenizer_config.json; - reads stdin")
    parser.add_argument("--bos-token", help="the bos_token the template renders with")
    parser.add_argument("--eos-token", help="the eos_token the template renders with")
    args = parser.parse_args(list(argv))
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        sys.stderr.write(f"input.unreadable: cannot read the template: {e}\n")
        return 2
    try:
        spec = FormatSpec.from_template(text, bos_token=args.bos_token, eos_token=args.eos_token)
    except ToolCallError as err:
        sys.stderr.write(f"{err}\n")
        return 2
    sys.stdout.write(json.dumps(spec.describe(), ensure_ascii=False, indent=2) + "\n")
    return 0
