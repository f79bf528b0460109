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


@pytest.mark.parametrize("name", ["Qwen-Qwen2.5-7B-Instruct", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "Qwen-Qwen3-0.6B"])
def test_hermes_style_templates(name: str) -> None:
    spec = FormatSpec.from_template(template(name)).describe()
    assert spec["call_markers"] == {"start": "<tool_call>", "end": "</tool_call>"}
    assert (spec["name_key"], spec["arguments_key"]) == ("name", "arguments")


def test_a_tag_per_argument() -> None:
    spec = FormatSpec.from_template(template("Qwen3-Coder")).describe()
    assert spec["call"] == "tag_per_argument"
    assert spec["key"]["start"] == "<parameter=" and spec["value_close"] == "</parameter>"


def test_a_section_with_a_separator() -> None:
    spec = FormatSpec.from_template(template("mistralai-Mistral-Nemo-Instruct-2407")).describe()
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


def test_errors_are_coded() -> None:
    with pytest.raises(ToolCallError) as err:
        FormatSpec.from_template("line one\n{% if %}")
    assert err.value.code == "template.render" and "line 2" in err.value.message
    with pytest.raises(ToolCallError) as err:
        FormatSpec.from_template("{% for m in messages %}{{ m.content }}{% endfor %}")
    assert err.value.code == "template.no_tool_calls"
    with pytest.raises(ToolCallError) as err:
        FormatSpec.from_template("{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}")
    assert err.value.code == "template.limit"
    with pytest.raises(TypeError):
        FormatSpec.from_template(3)  # type: ignore[arg-type]
    assert {"template.render", "template.no_tool_calls", "template.ambiguous", "template.limit"} <= set(beacon.ERROR_CODES)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "beacon", *args], capture_output=True, text=True, timeout=60)


def test_cli_prints_the_spec() -> None:
    proc = run("template", str(TEMPLATES / "Qwen-Qwen2.5-7B-Instruct.jinja"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == FormatSpec.from_template(template("Qwen-Qwen2.5-7B-Instruct")).describe()
    proc = run("template", str(TEMPLATES / "LFM2.5-8B-A1B.jinja"))
    assert proc.returncode == 2 and proc.stderr.startswith("template.no_tool_calls")
    proc = run("template", "/nonexistent.jinja")
    assert proc.returncode == 2 and "input.unreadable" in proc.stderr
