"""`format_calls(calls, template=spec)` writes calls back as the model's template renders them:
for every render of tests/fixtures/template/spec_renders.json, the calls parsed with the spec
inferred from the template, written with that spec, are the exact text of the render's calls
(a substring of the render; what stands around it is the turn's own: reasoning, end of turn),
and read back as the same calls. The templates the fixture lists under `write_gaps` must still
differ somewhere, so that a fix shows."""

import json
import os

import pytest

import beacon

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "template", "spec_renders.json")
TEMPLATES = os.path.join(HERE, "..", "..", "..", "shared", "chat-templates")

with open(FIXTURE, encoding="utf-8") as f:
    DOC = json.load(f)


def written_back(name, template):
    """Each render's case, text and calls, with what the spec writes for the calls parsed."""
    path = os.path.join(TEMPLATES, f"{name}.jinja")
    if not os.path.exists(path):
        path = os.path.join(HERE, "..", "fixtures", "template", "unseen", f"{name}.jinja")
    with open(path, encoding="utf-8") as f:
        spec = beacon.FormatSpec.from_template(f.read(), bos_token="<s>", eos_token="</s>")
    assert spec.describe() == template["spec"], name
    out = []
    for render in template["renders"]:
        calls = beacon.parse_tool_calls(render["text"], formats=[], template=spec, tools=render["tools"])
        out.append((render, calls, beacon.format_calls(calls, template=spec), spec))
    return out


@pytest.mark.parametrize("name", sorted(set(DOC["templates"]) - set(DOC["write_gaps"])))
def test_the_spec_writes_what_the_template_renders(name):
    for render, calls, written, spec in written_back(name, DOC["templates"][name]):
        assert written in render["text"], (render["case"], written, render["text"])
        again = beacon.parse_tool_calls(written, formats=[], template=spec, tools=render["tools"])
        assert [(c["name"], c["arguments"], c.get("id")) for c in again] == [
            (c["name"], c["arguments"], c.get("id")) for c in calls
        ], render["case"]


@pytest.mark.parametrize("name", sorted(DOC["write_gaps"]))
def test_each_write_gap_still_differs(name):
    differ = [r["case"] for r, _, written, _ in written_back(name, DOC["templates"][name]) if written not in r["text"]]
    assert differ, f"{name} now writes every render back: drop it from WRITE_GAPS ({DOC['write_gaps'][name]})"


def test_content_comes_first_and_ids_are_never_invented():
    spec = beacon.FormatSpec.from_dict({
        "call": "tag_json", "section": {"start": "", "end": ""},
        "call_markers": {"start": "[TOOL_CALLS]", "end": ""}, "separator": "", "name_suffix": "[CALL_ID]",
        "id": {"position": "after_name", "suffix": "[ARGS]"}, "write": {"json": "compact", "sorted_keys": True},
    })
    calls = [{"id": "a1b2c3d4e", "name": "f", "arguments": {"z": 1, "a": [True, None]}}]
    assert beacon.format_calls(calls, template=spec, content="Sure. ") == (
        'Sure. [TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{"a":[true,null],"z":1}'
    )
    with pytest.raises(beacon.ToolCallError) as e:
        beacon.format_calls([{"name": "f", "arguments": {}}], template=spec)
    assert e.value.code == "result.missing_field" and "no id" in str(e.value)
    with pytest.raises(TypeError):
        beacon.format_calls(calls)
    with pytest.raises(TypeError):
        beacon.format_calls(calls, "openai_chat", template=spec)


def test_a_chat_template_is_taken_as_it_is():
    template = (
        "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}"
        "<tool_call>\n{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}\n"
        "</tool_call>{% endfor %}{% else %}{{ m.content }}{% endif %}{% endfor %}"
    )
    calls = [{"name": "f", "arguments": {"x": "é"}}]
    assert beacon.format_calls(calls, template=template) == '<tool_call>\n{"name": "f", "arguments": {"x": "é"}}\n</tool_call>'
