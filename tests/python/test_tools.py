"""The tools option in Python: beacon.Tools from every definition shape, pydantic models and
functions, as_models, the unknown and validate options, malformed definitions, ToolCallError.path."""

from __future__ import annotations

import pickle
from typing import List, Literal, Optional

import pytest
from pydantic import BaseModel

import beacon
from beacon import ToolCallError, Tools, parse_message, parse_tool_call, parse_tool_calls


class lookup_zip(BaseModel):
    zip: str


class Todo(BaseModel):
    title: str
    status: Literal["open", "done"]


class write_todos(BaseModel):
    todos: List[Todo]


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: Optional[int] = None) -> str:
    """The weather in a city."""
    return city


QWEN = "<tool_call>\n<function=lookup_zip>\n<parameter=zip>\n10001\n</parameter>\n</function>\n</tool_call>"


def hermes(name: str, arguments: str) -> str:
    return f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>'


def test_a_pydantic_model_types_and_validates() -> None:
    tools = Tools([lookup_zip])
    assert tools.names == ["lookup_zip"] and len(tools) == 1
    # The ZIP code stays a string, as the model says (without tools it would be an int).
    assert parse_tool_call(QWEN)["arguments"] == {"zip": 10001}
    assert parse_tool_call(QWEN, tools=tools) == {"name": "lookup_zip", "arguments": {"zip": "10001"}}


def test_as_models_returns_validated_instances() -> None:
    tools = Tools([lookup_zip, write_todos, get_weather])
    call = parse_tool_call(QWEN, tools=tools, as_models=True)
    assert call["arguments"] == lookup_zip(zip="10001")
    text = hermes("write_todos", '{"todos": [{"title": "a", "status": "open"}]}') + hermes("get_weather", '{"city": "Paris"}')
    calls = parse_tool_calls(text, tools=tools, as_models=True)
    assert calls[0]["arguments"] == write_todos(todos=[Todo(title="a", status="open")])
    assert calls[1]["arguments"] == {"city": "Paris"}  # a function's call keeps a dict
    message = parse_message(text, tools=tools, as_models=True)
    assert isinstance(message["tool_calls"][0]["arguments"], write_todos)
    assert parse_tool_calls(text, tools=tools)[0]["arguments"] == {"todos": [{"title": "a", "status": "open"}]}
    with pytest.raises(ValueError, match="as_models=True needs tools="):
        parse_tool_call(QWEN, as_models=True)


def test_a_function_gives_its_signature() -> None:
    tools = Tools([get_weather])
    assert tools.names == ["get_weather"]
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(hermes("get_weather", '{"city": "Paris", "unit": "k"}'), tools=tools)
    assert (info.value.code, info.value.path) == ("tool_call.schema", "/unit")
    assert "(enum)" in info.value.message
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(hermes("get_weather", '{"unit": "c"}'), tools=tools)
    assert (info.value.code, info.value.path) == ("tool_call.schema", "")
    assert "(required)" in info.value.message
    # additionalProperties: false, as pydantic writes a signature
    with pytest.raises(ToolCallError, match="additionalProperties"):
        parse_tool_call(hermes("get_weather", '{"city": "P", "x": 1}'), tools=tools)


def test_path_and_position_of_a_nested_violation() -> None:
    text = hermes("write_todos", '{"todos": [{"title": "a", "status": "open"}, {"title": "b", "status": "later"}]}')
    with pytest.raises(ToolCallError) as info:
        parse_tool_calls(text, tools=[write_todos])
    err = info.value
    assert err.path == "/todos/1/status"
    assert text[err.position :].startswith('"later"')
    assert pickle.loads(pickle.dumps(err)).path == "/todos/1/status"
    # validate=False: naming and typing only
    assert parse_tool_calls(text, tools=[write_todos], validate=False)[0]["name"] == "write_todos"
    # every other error has no path
    with pytest.raises(ToolCallError) as info:
        parse_tool_call(hermes("f", '{"x": }'))
    assert info.value.path is None


def test_unknown_tools() -> None:
    tools = Tools(["lookup_zip"])
    text = hermes("delete_all", "{}")
    with pytest.raises(ToolCallError) as info:
        parse_tool_calls(text, tools=tools)
    assert info.value.code == "tool_call.unknown_tool"
    assert text[info.value.position :].startswith('"delete_all"')
    assert parse_tool_calls(text, tools=tools, unknown="keep") == [{"name": "delete_all", "arguments": {}}]
    with pytest.raises(beacon.NoToolCallFoundError):
        parse_tool_calls(text, tools=tools, unknown="drop")
    # Code in prose is not a call when its name is not a tool.
    prose = 'Use requests.get(url="https://example.com") to fetch it.'
    assert parse_message(prose, tools=tools)["tool_calls"] == []
    assert parse_message(prose)["tool_calls"][0]["name"] == "requests.get"
    with pytest.raises(ValueError, match="unknown must be"):
        parse_tool_calls(text, tools=tools, unknown="ignore")
    with pytest.raises(TypeError, match="'unknown' must be str"):
        parse_tool_calls(text, tools=tools, unknown=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "definition",
    [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}},
        {"type": "function", "name": "f", "parameters": {"type": "object"}},
        {"name": "f", "input_schema": {"type": "object"}},
        {"name": "f", "inputSchema": {"type": "object"}},
        {"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT"}}]},
        "f",
    ],
)
def test_every_definition_shape(definition: object) -> None:
    assert Tools([definition]).names == ["f"]
    assert parse_tool_call(hermes("f", "{}"), tools=[definition]) == {"name": "f", "arguments": {}}


@pytest.mark.parametrize(
    "definitions, error, needle",
    [
        ("get_weather", TypeError, "must be a list or tuple"),
        ([1], TypeError, "tools[0]: a tool definition must be an object or a name"),
        ([{"name": 1}], TypeError, "tools[0].name"),
        (["a", {"type": "function", "function": {"parameters": {}}}], ValueError, "tools[1].function: a tool definition needs a `name`"),
        (["a", "a"], ValueError, 'tools[1]: two tools are named "a"'),
        ([{"name": "f", "parameters": {"type": "strnig"}}], ValueError, "tools[0]"),
        ([{"name": "f", "parameters": "object"}], TypeError, "tools[0].parameters"),
        ([{"name": "f", "parameters": {"type": "object", "x": object()}}], TypeError, "object"),
    ],
)
def test_malformed_definitions_name_the_entry(definitions: object, error: type, needle: str) -> None:
    with pytest.raises(error) as info:
        Tools(definitions)  # type: ignore[arg-type]
    assert type(info.value) is error
    assert needle in str(info.value)
    # A plain list passed as tools= is read the same way.
    if isinstance(definitions, list):
        with pytest.raises(error):
            parse_tool_call("f()", tools=definitions)


def test_two_models_with_one_name() -> None:
    class A(BaseModel):
        x: int

    B = type("A", (BaseModel,), {"__annotations__": {"y": int}})
    with pytest.raises(ValueError, match='two tools are named "A"'):
        Tools([A, B])


def test_tools_is_reused_and_copied() -> None:
    tools = Tools([lookup_zip])
    assert Tools(tools).names == tools.names
    for _ in range(3):
        assert parse_tool_call(QWEN, tools=tools)["arguments"] == {"zip": "10001"}
    assert repr(tools) == "beacon.Tools(['lookup_zip'])"
    assert tools.unchecked() == []
    assert Tools([{"name": "f", "parameters": {"type": "object", "if": {}}}]).unchecked() == [("f", "", "if")]


# --------------------------------------------------------------------------- parse_response


def _chat(name: str, arguments: str) -> dict:
    return {"role": "assistant", "content": "☀️ Zürich",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}]}


def test_parse_response_with_tools_positions_inside_the_arguments_string() -> None:
    import json

    tools = Tools([write_todos])
    response = _chat("write_todos", json.dumps({"todos": [{"title": "a", "status": "open"}, {"title": "b", "status": "x"}]}))
    text = json.dumps(response, ensure_ascii=False)
    needle = text.index('\\"x\\"')
    with pytest.raises(ToolCallError) as info:
        beacon.parse_response(text, tools=tools)
    assert (info.value.code, info.value.path, info.value.position) == ("tool_call.schema", "/todos/1/status", needle)
    # bytes: the same place, in bytes
    with pytest.raises(ToolCallError) as info:
        beacon.parse_response(text.encode(), tools=tools)
    assert info.value.position == len(text[:needle].encode())
    # decoded: position 0, the message names the path in the response and the byte in the string
    with pytest.raises(ToolCallError) as info:
        beacon.parse_response(response, tools=tools)
    err = info.value
    assert (err.position, err.line, err.column, err.path) == (0, 1, 1, "/todos/1/status")
    assert "tool_calls[0].function.arguments" in err.message and "of the string" in err.message
    # validate=False: names only
    calls = beacon.parse_response(response, tools=tools, validate=False)
    assert calls[0]["arguments"]["todos"][1]["status"] == "x"


def test_parse_response_with_tools_names_and_models() -> None:
    tools = Tools([lookup_zip, get_weather])
    response = _chat("lookup_zip", '{"zip": "10001"}')
    [call] = beacon.parse_response(response, tools=tools, as_models=True)
    assert call == {"id": "call_1", "name": "lookup_zip", "arguments": lookup_zip(zip="10001")}
    # JSON APIs are not retyped: a number for a string parameter is a violation.
    with pytest.raises(ToolCallError, match=r"\(type\)"):
        beacon.parse_response(_chat("lookup_zip", '{"zip": 10001}'), tools=tools)
    unknown = _chat("lookup_zipcode", "{}")
    with pytest.raises(ToolCallError) as info:
        beacon.parse_response(unknown, tools=tools)
    assert info.value.code == "tool_call.unknown_tool" and info.value.path is None
    assert beacon.parse_response(unknown, tools=tools, unknown="drop") == []
    assert beacon.parse_response(unknown, tools=[{"name": "x"}], unknown="keep")[0]["name"] == "lookup_zipcode"
    with pytest.raises(ValueError, match="as_models=True needs tools="):
        beacon.parse_response(response, as_models=True)
    with pytest.raises(ValueError, match="unknown must be"):
        beacon.parse_response(response, tools=tools, unknown="ignore")
    # The text fallback types values written as text by the schema.
    fallback = {"role": "assistant", "content": QWEN}
    assert beacon.parse_response(fallback, text_fallback=True, tools=tools)[0]["arguments"] == {"zip": "10001"}
    assert beacon.parse_response(fallback, text_fallback=True)[0]["arguments"] == {"zip": 10001}
