"""beacon.FormatSpec.from_template and `beacon template`: a chat template's tool-call format,
inferred from renders of the real templates in ../shared/chat-templates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import beacon
import pytest
from beacon import FormatSpec, ToolCallError

TEMPLATES = Path(__file__).resolve().parents[2].parent / "shared" / "chat-templates"


def template(name: str) -> str:
    return (TEMPLATES / f"{name}.jinja").read_text("utf-8")


def test_the_templates_are_there() -> None:
    assert len(list(TEMPLATES.glob("*.jinja"))) >= 40


def reading(described):
    """A described spec as it reads: every marker without the white space around it."""
    if isinstance(described, dict):
        return {k: reading(v) for k, v in described.items()}
    return described.strip() if isinstance(described, str) else described


@pytest.mark.parametrize("name", ["Qwen-Qwen2.5-7B-Instruct", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "Qwen-Qwen3-0.6B"])
def test_hermes_style_templates(name: str) -> None:
    spec = reading(FormatSpec.from_template(template(name)).describe())
    assert spec["call_markers"] == {"start": "<tool_call>", "end": "</tool_call>"}
    assert (spec["name_key"], spec["arguments_key"]) == ("name", "arguments")


def test_a_tag_per_argument() -> None:
    described = FormatSpec.from_template(template("Qwen3-Coder")).describe()
    spec = reading(described)
    assert spec["call"] == "tag_per_argument"
    assert spec["key"]["start"] == "<parameter=" and spec["value_close"] == "</parameter>"
    # The markers as written keep the template's line breaks (format_calls writes them).
    assert described["key"] == {"start": "\n<parameter=", "end": ">\n", "end_non_string": ""}
    assert described["write"] == {"json": "spaced", "sorted_keys": False, "ascii": False}


def test_a_section_with_a_separator() -> None:
    spec = reading(FormatSpec.from_template(template("mistralai-Mistral-Nemo-Instruct-2407")).describe())
    assert spec["section"]["start"].startswith("[TOOL_CALLS]") and spec["separator"] == ","


def test_a_tokenizer_config_text_or_dict() -> None:
    source = template("Qwen-Qwen2.5-7B-Instruct")
    config = {
        "chat_template": [{"name": "default", "template": "{{ messages }}"}, {"name": "tool_use", "template": source}],
        "bos_token": {"content": "<s>", "lstrip": False},
        "eos_token": "<|im_end|>",
    }
    want = FormatSpec.from_template(source)
    assert FormatSpec.from_template(config) == want
    assert FormatSpec.from_template(json.dumps(config)) == want
    assert FormatSpec.from_template(source, bos_token="<s>", special_tokens=["<tool_call>"]) == want


def test_describe_is_a_copy() -> None:
    spec = FormatSpec.from_template(template("Qwen-Qwen2.5-7B-Instruct"))
    spec.describe()["name_key"] = "x"
    assert spec.describe()["name_key"] == "name"
    assert "FormatSpec(" in repr(spec) and hash(spec) == hash(FormatSpec.from_template(template("Qwen-Qwen2.5-7B-Instruct")))


ERROR_CASES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "template" / "errors.json").read_text("utf-8")
)["cases"]


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c["id"] for c in ERROR_CASES])
def test_error_fixtures(case) -> None:
    """tests/fixtures/template/errors.json: the coded error of each template no format is
    inferred from, given as its text, a tokenizer config, or the config's JSON text."""
    template = case["template"]
    if case.get("config_text"):
        template = json.dumps(template)
    with pytest.raises(ToolCallError) as err:
        FormatSpec.from_template(template)
    want = case["error"]
    assert (err.value.code, err.value.position, err.value.line, err.value.column) == (
        want["code"], want["position"], want["line"], want["column"],
    )
    assert want["message"] in err.value.message


def test_every_template_code_has_a_fixture() -> None:
    codes = {c for c in beacon.ERROR_CODES if c.startswith("template.")}
    assert codes == {"template.render", "template.no_tool_calls", "template.ambiguous", "template.limit"}
    assert {c["error"]["code"] for c in ERROR_CASES} == codes
    with pytest.raises(TypeError):
        FormatSpec.from_template(3)  # type: ignore[arg-type]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "beacon", *args], capture_output=True, text=True, timeout=60)


def test_cli_prints_the_spec() -> None:
    proc = run("template", str(TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == FormatSpec.from_template(template("Qwen-Qwen2.5-7B-Instruct")).describe()
    proc = run("template", str(TEMPLATES / "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja"))
    assert proc.returncode == 2 and proc.stderr.startswith("template.no_tool_calls")
    proc = run("template", "/nonexistent.jinja")
    assert proc.returncode == 2 and "input.unreadable" in proc.stderr


# --------------------------------------------------------------------------- parsing with a spec

QWEN_CODER_CALL = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>"


def test_template_text_is_inferred_once_and_reads_its_calls() -> None:
    source = template("Qwen3-Coder")
    text = "Let me check." + QWEN_CODER_CALL
    calls = beacon.parse_tool_calls(text, formats=[], template=source, include_format=True)
    assert calls == [{"name": "get_weather", "arguments": {"city": "Paris"}, "format": "spec"}]
    # A tokenizer_config as a dict, and the spec itself, read the same.
    config = {"chat_template": source, "bos_token": "<s>", "eos_token": "</s>"}
    spec = FormatSpec.from_template(source)
    assert beacon.parse_tool_calls(text, formats=[], template=config) == beacon.parse_tool_calls(
        text, formats=[], template=spec
    )
    message = beacon.parse_message(text, formats=[], template=spec)
    assert message["content"] == "Let me check."
    assert message["tool_calls"][0]["span"] == [len("Let me check."), len(text)]


def test_without_the_template_the_built_in_format_reads_the_same_text() -> None:
    assert beacon.parse_tool_calls(QWEN_CODER_CALL, include_format=True)[0]["format"] == "qwen3_coder"
    with pytest.raises(beacon.NoToolCallFoundError):
        beacon.parse_tool_calls(QWEN_CODER_CALL, formats=[])


def test_the_spec_comes_before_a_built_in_format_with_the_same_marker() -> None:
    # Qwen2.5's spec claims `<tool_call>`: a GLM-style body inside it is broken for this model.
    spec = FormatSpec.from_template(template("Qwen-Qwen2.5-7B-Instruct"))
    glm = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>"
    assert beacon.parse_tool_calls(glm, include_format=True)[0]["format"] == "glm45"
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls(glm, template=spec)
    assert (e.value.code, e.value.position) == ("tool_call.syntax", len("<tool_call>"))


def test_a_schema_types_text_values() -> None:
    text = QWEN_CODER_CALL.replace("city>\nParis", "days>\n3")
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"days": {"type": "integer"}}}}]
    spec = FormatSpec.from_template(template("Qwen3-Coder"))
    assert beacon.parse_tool_calls(text, formats=[], template=spec, tools=tools)[0]["arguments"] == {"days": 3}


@pytest.mark.parametrize(
    "text, code, at",
    [
        # The text ends inside the call: unclosed at the end.
        (QWEN_CODER_CALL[:-30], "tool_call.unclosed", len(QWEN_CODER_CALL) - 30),
        # A value whose close is missing, before the next parameter: unclosed at its opener.
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n<parameter=b>\n2\n</parameter>\n</function>\n</tool_call>",
            "tool_call.unclosed",
            len("<tool_call>\n<function=f>\n"),
        ),
        # A name with a space in it.
        ("<tool_call>\n<function=get weather>\n</function>\n</tool_call>", "tool_call.invalid_name", 22),
        # The same parameter twice.
        (
            "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n<parameter=a>\n2\n</parameter>\n</function>\n</tool_call>",
            "tool_call.duplicate_argument",
            len("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"),
        ),
    ],
)
def test_a_broken_call_raises_at_its_position(text: str, code: str, at: int) -> None:
    spec = FormatSpec.from_template(template("Qwen3-Coder"))
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls(text, formats=[], template=spec)
    assert (e.value.code, e.value.position) == (code, at)


def test_json_spec_errors_are_positioned() -> None:
    spec = FormatSpec.from_template(template("mistralai-Mistral-Nemo-Instruct-2407"))
    ok = '[TOOL_CALLS][{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]'
    assert [c["name"] for c in beacon.parse_tool_calls(ok, formats=[], template=spec)] == ["a", "b"]
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls('[TOOL_CALLS][{"name": "a", "arguments": {}} {"name": "b"}]', formats=[], template=spec)
    assert (e.value.code, e.value.position) == ("tool_call.syntax", 44)
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls('[TOOL_CALLS][{"name": 7, "arguments": {}}]', formats=[], template=spec)
    assert (e.value.code, e.value.position) == ("tool_call.invalid_name", 22)
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls("[TOOL_CALLS][]", formats=[], template=spec)
    assert (e.value.code, e.value.position) == ("tool_call.unrecognized", 0)


@pytest.mark.parametrize("name", ["Qwen3-Coder", "mistralai-Mistral-Nemo-Instruct-2407", "deepseek-ai-DeepSeek-V3.1", "GLM-4.7-Flash"])
def test_a_stream_with_the_template_gives_the_message(name: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "template"))
    import _spec_cases

    spec = FormatSpec.from_template(template(name))
    for calls in _spec_cases.CASES.values():
        text, _ = _spec_cases.render(name, calls)
        want = beacon.parse_message(text, formats=[], template=spec)
        for size in (1, 4):
            stream = beacon.ToolCallStream(formats=[], template=spec, start="content")
            events = []
            for i in range(0, len(text), size):
                events += stream.feed(text[i : i + size])
            events += stream.finish()
            ends = [e for e in events if e["type"] == "call_end"]
            starts = [e for e in events if e["type"] == "call_start"]
            assert [(s["name"], e["arguments"]) for s, e in zip(starts, ends)] == [
                (c["name"], c["arguments"]) for c in want["tool_calls"]
            ], (name, size, text)
            assert all(s["format"] == "spec" for s in starts)


def test_parse_many_and_parse_arrow_take_a_template() -> None:
    spec = FormatSpec.from_template(template("Qwen3-Coder"))
    rows = beacon.parse_many([QWEN_CODER_CALL, "plain", None], formats=[], template=spec)
    assert rows == [[{"name": "get_weather", "arguments": {"city": "Paris"}}], [], None]
    arrow = beacon.parse_arrow([QWEN_CODER_CALL], formats=[], template=spec).to_pylist()
    assert arrow[0]["calls"][0]["format"] == "spec"


def test_from_dict_reads_describe_back_and_checks_it() -> None:
    spec = FormatSpec.from_template(template("Qwen3-Coder"))
    again = FormatSpec.from_dict(spec.describe())
    assert again == spec
    assert beacon.parse_tool_calls(QWEN_CODER_CALL, template=again)
    with pytest.raises(ToolCallError) as e:
        FormatSpec.from_dict({"call": "tag_json"})
    assert e.value.code == "result.missing_field"
    bad = spec.describe()
    bad["call_markers"]["start"] = "CALL:"
    bad["section"]["start"] = ""
    with pytest.raises(ToolCallError) as e:
        FormatSpec.from_dict(bad)
    assert e.value.code == "result.unsupported" and "`<`, `[` or `>`" in e.value.message
    with pytest.raises(TypeError):
        FormatSpec.from_dict("{}")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        beacon.parse_tool_calls(QWEN_CODER_CALL, template=42)  # type: ignore[arg-type]


def test_a_template_that_cannot_be_inferred_raises_from_the_parse() -> None:
    with pytest.raises(ToolCallError) as e:
        beacon.parse_tool_calls(QWEN_CODER_CALL, template="{{ messages[0].content }}")
    assert e.value.code == "template.no_tool_calls"


def test_a_hand_written_spec() -> None:
    spec = FormatSpec.from_dict(
        {
            "call": "tag_json",
            "section": {"start": "", "end": ""},
            "call_markers": {"start": "<<call ", "end": ">>"},
            "separator": "",
            "name_suffix": ":",
        }
    )
    text = 'ok <<call lookup: {"q": "rust"}>> and <<call time: {}>>'
    assert beacon.parse_tool_calls(text, formats=[], template=spec) == [
        {"name": "lookup", "arguments": {"q": "rust"}},
        {"name": "time", "arguments": {}},
    ]


def test_cli_template_option(tmp_path: Path) -> None:
    custom = tmp_path / "custom.json"
    text = tmp_path / "out.txt"
    text.write_text("Checking. " + QWEN_CODER_CALL, "utf-8")
    done = run("--message", "--template", str(TEMPLATES / "Qwen3-Coder.jinja"), str(text))
    assert done.returncode == 0, done.stderr
    message = json.loads(done.stdout)
    assert message["content"] == "Checking." and message["tool_calls"][0]["format"] == "spec"
    done = run("--stream", "--template", str(TEMPLATES / "Qwen3-Coder.jinja"), str(text))
    assert done.returncode == 0, done.stderr
    starts = [json.loads(line) for line in done.stdout.splitlines() if '"call_start"' in line]
    assert [(e["name"], e["format"]) for e in starts] == [("get_weather", "spec")]
    # A template whose format cannot be inferred: its coded error, exit 2.
    custom.write_text("{{ messages[0].content }}", "utf-8")
    done = run("--template", str(custom), str(text))
    assert done.returncode == 2 and done.stderr.startswith("template.no_tool_calls")
    done = run("--template", str(tmp_path / "missing.jinja"), str(text))
    assert done.returncode == 2 and done.stderr.startswith("input.unreadable")


def test_an_empty_reasoning_block_before_the_calls_is_left_to_reasoning() -> None:
    # Command R7B's template writes `<|START_THINKING|><|END_THINKING|>` before its action: the
    # model fills it, so it is reasoning, not part of the call's marker.
    spec = FormatSpec.from_template(template("CohereForAI-c4ai-command-r7b-12-2024-tool_use"))
    assert reading(spec.describe())["section"] == {"start": "<|START_ACTION|>[", "end": "]<|END_ACTION|>"}
    text = (
        "<|START_THINKING|>I will look it up.<|END_THINKING|><|START_ACTION|>[\n"
        '    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}\n]<|END_ACTION|>'
    )
    message = beacon.parse_message(text, formats=[], template=spec)
    assert message["reasoning"] == "I will look it up."
    assert [(c["name"], c["arguments"]) for c in message["tool_calls"]] == [("get_weather", {"city": "Paris"})]


def test_markers_are_whole_tokens_and_a_dropped_stop_token_is_no_error() -> None:
    # Renders share `<` or `<|` with the content turns; the markers still start at the token.
    spec = FormatSpec.from_template(template("NVIDIA-Nemotron-Nano-v2"))
    assert reading(spec.describe())["section"] == {"start": "<TOOLCALL>[", "end": "]</TOOLCALL><SPECIAL_12>"}
    call = '<TOOLCALL>[{"name": "f", "arguments": {}}]</TOOLCALL>'
    for text in (call, call + "\n", call + "<SPECIAL_12>"):
        message = beacon.parse_message("Sure. " + text, formats=[], template=spec)
        assert message["content"] == "Sure." and [c["name"] for c in message["tool_calls"]] == ["f"]
    # Only the last token may be missing, and only at the end of the text.
    with pytest.raises(ToolCallError) as e:
        beacon.parse_message('<TOOLCALL>[{"name": "f", "arguments": {}}]', formats=[], template=spec)
    assert e.value.code == "tool_call.unclosed"
    with pytest.raises(ToolCallError) as e:
        beacon.parse_message(call + " then more", formats=[], template=spec)
    assert e.value.code == "tool_call.syntax"
