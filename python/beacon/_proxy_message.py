"""What ``beacon proxy`` does to a whole (non-streamed) chat completion, with no HTTP in it.

The rules, per choice of the upstream's ``chat.completion``:

- A message that already has ``tool_calls`` (the upstream parsed them itself), or whose
  ``content`` is not a non-empty string, is left as it is.
- Otherwise its ``content`` is parsed with ``parse_message(content, tools=..., ids="generate")``:
  ``content`` becomes the parsed content (``None`` when it is empty and calls exist, as OpenAI
  writes it), ``reasoning_content`` the reasoning (when there is any), ``tool_calls`` the calls as
  ``{"id", "type": "function", "function": {"name", "arguments": <JSON text>}}``, and the choice's
  ``finish_reason`` is ``"tool_calls"`` when there are calls.
- Every other field of the completion, the choice and the message is passed through.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

from . import Tools, parse_message
from ._errors import ToolCallError


def openai_tool_call(call_id: Optional[str], name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
    """One call as OpenAI's ``message.tool_calls`` holds it (``arguments`` as JSON text)."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
    }


def error_fields(err: ToolCallError) -> Dict[str, Any]:
    """The ``error`` object of a broken call: beacon's code and where in the text it stands."""
    return {
        "message": str(err),
        "type": "tool_call_error",
        "code": err.code,
        "position": err.position,
        "line": err.line,
        "column": err.column,
    }


def rewrite_choice(choice: Dict[str, Any], tools: Optional[Tools], template: Any = None) -> int:
    """Rewrite one choice in place (the rules above); returns how many calls it now has.

    Raises:
        ToolCallError: the text holds a broken call; the choice is then unchanged.
    """
    message = choice.get("message")
    if not isinstance(message, dict):
        return 0
    if message.get("tool_calls"):
        return len(message["tool_calls"])
    text = message.get("content")
    if not isinstance(text, str) or not text:
        return 0
    parsed = parse_message(text, tools=tools, ids="generate", template=template)
    calls = parsed["tool_calls"]
    content = parsed["content"]
    message["content"] = None if calls and not content else content
    if parsed["reasoning"] is not None:
        message["reasoning_content"] = parsed["reasoning"]
    if calls:
        message["tool_calls"] = [openai_tool_call(c["id"], c["name"], c["arguments"]) for c in calls]
        choice["finish_reason"] = "tool_calls"
    return len(calls)


def rewrite_completion(
    completion: Dict[str, Any], tools: Optional[Tools], on_error: str, template: Any = None
) -> "tuple[int, Optional[ToolCallError]]":
    """Rewrite every choice of ``completion`` in place; returns (calls found, first error).

    With ``on_error="error"`` the first broken call is raised. With ``"content"`` a broken
    choice keeps the upstream's raw text as its content and gets a ``beacon_error`` field (the
    ``error`` object of :func:`error_fields`), and the first such error is returned.
    """
    calls = 0
    first: Optional[ToolCallError] = None
    choices: List[Any] = completion.get("choices") or []
    for choice in choices:
        if not isinstance(choice, dict):
            continue
        try:
            calls += rewrite_choice(choice, tools, template)
        except ToolCallError as err:
            if on_error == "error":
                raise
            choice["beacon_error"] = error_fields(err)
            first = first or err
    return calls, first
