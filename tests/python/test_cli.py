"""The `beacon` command, run as `python -m beacon` in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional

import pytest

SEED = 'Call: search(query="rust async", limit=5)'
SEED_CALL = {"name": "search", "arguments": {"query": "rust async", "limit": 5}}


def run(args: List[str], stdin: Optional[str] = None, exe: Optional[List[str]] = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    # An ASCII locale must not break non-ASCII output.
    env.update(LC_ALL="C", LANG="C", PYTHONIOENCODING="ascii")
    env.pop("PYTHONUTF8", None)
    return subprocess.run(
        (exe or [sys.executable, "-m", "beacon"]) + args,
        input=None if stdin is None else stdin.encode("utf-8"),
        capture_output=True,
        env=env,
        timeout=60,
    )


def out(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stdout.decode("utf-8")


def err(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stderr.decode("utf-8")


def test_stdin_found() -> None:
    proc = run([], stdin=SEED)
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == SEED_CALL
    assert err(proc) == ""


def test_file_argument(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    path.write_text("I will look that up.\n" + SEED + "\n", encoding="utf-8")
    proc = run([str(path)])
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == SEED_CALL


def test_dash_is_stdin() -> None:
    proc = run(["-"], stdin=SEED)
    assert proc.returncode == 0
    assert json.loads(out(proc)) == SEED_CALL


def test_all_and_include_format() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>[TOOL_CALL]name=b[/TOOL_CALL]'
    proc = run(["--all"], stdin=text)
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]

    proc = run(["--all", "--include-format"], stdin=text)
    assert json.loads(out(proc)) == [
        {"name": "a", "arguments": {}, "format": "hermes"},
        {"name": "b", "arguments": {}, "format": "bracket"},
    ]

    proc = run(["--include-format"], stdin=SEED)
    assert proc.returncode == 0
    assert json.loads(out(proc)) == {**SEED_CALL, "format": "python"}


def test_all_single_call_is_an_array() -> None:
    proc = run(["--all"], stdin=SEED)
    assert json.loads(out(proc)) == [SEED_CALL]


def test_multiple_without_all_is_an_error() -> None:
    text = '<tool_call>{"name": "a", "arguments": {}}</tool_call>[TOOL_CALL]name=b[/TOOL_CALL]'
    for args in ([], ["--include-format"]):
        proc = run(args, stdin=text)
        assert proc.returncode == 2
        assert err(proc).startswith("tool_call.multiple at line 1, column ")
        assert out(proc) == ""


def test_not_found_exit_1() -> None:
    proc = run([], stdin="Nothing to call here.")
    assert proc.returncode == 1
    assert out(proc) == ""
    assert err(proc).startswith("tool_call.not_found at line 1, column 1: ")
    proc = run(["--all"], stdin="")
    assert proc.returncode == 1


def test_error_exit_2_with_caret() -> None:
    text = 'Let me search.\n<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>\n'
    proc = run([], stdin=text)
    assert proc.returncode == 2
    assert out(proc) == ""
    lines = err(proc).splitlines()
    assert lines[0].startswith("json.unexpected_token at line 2, column 45: ")
    assert lines[1] == text.splitlines()[1]
    assert lines[2] == " " * 44 + "^"
    assert len(lines) == 3


def test_caret_under_wide_and_tab_characters() -> None:
    text = '\t日本 <tool_call>{"name": "f", "arguments": {"x": }}</tool_call>'
    proc = run([], stdin=text)
    assert proc.returncode == 2
    lines = err(proc).splitlines()
    column = text.index(": }") + 3
    assert lines[0].startswith(f"json.unexpected_token at line 1, column {column}: ")
    # The tab stays a tab and each of the two wide characters takes two columns.
    narrow = column - 1 - 3  # characters before the column other than the tab and 日本
    assert lines[2] == "\t" + " " * (2 * 2 + narrow) + "^"


def test_long_line_is_windowed() -> None:
    text = "x" * 5000 + ' <tool_call>{"name": "f", "arguments": {"x": }}</tool_call>' + "y" * 5000
    proc = run([], stdin=text)
    assert proc.returncode == 2
    lines = err(proc).splitlines()
    assert len(lines[1]) < 200
    caret = lines[2].index("^")
    assert lines[1][caret] == "}"


def test_non_ascii_output_readable_and_big_ints_exact() -> None:
    big = "1" * 5000  # beyond Python's default int <-> str digit limit
    text = f'<tool_call>{{"name": "café", "arguments": {{"q": "日本😀", "n": {big}}}}}</tool_call>'
    proc = run([], stdin=text)
    assert proc.returncode == 0, err(proc)
    assert "café" in out(proc) and "日本😀" in out(proc)
    assert "\\u" not in out(proc)
    assert big in out(proc)
    # Parse back without building the int, whatever this interpreter's digit limit.
    assert json.loads(out(proc), parse_int=str)["arguments"]["n"] == big


def test_missing_file_exit_2(tmp_path: Path) -> None:
    proc = run([str(tmp_path / "missing.txt")])
    assert proc.returncode == 2
    assert "missing.txt" in err(proc)


def test_invalid_utf8_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"f(x=1) \xff")
    proc = run([str(path)])
    assert proc.returncode == 2
    assert "UTF-8" in err(proc)


def test_usage_error_exit_2() -> None:
    proc = run(["--no-such-option"], stdin=SEED)
    assert proc.returncode == 2


def test_help() -> None:
    proc = run(["--help"])
    assert proc.returncode == 0
    assert "--all" in out(proc) and "--include-format" in out(proc)


def test_console_script() -> None:
    script = shutil.which("beacon", path=str(Path(sys.executable).parent))
    assert script is not None, "the `beacon` console script is not installed next to this interpreter"
    proc = run([], stdin=SEED, exe=[script])
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == SEED_CALL


def test_main_in_process(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from beacon._cli import main

    path = tmp_path / "in.txt"
    path.write_text(SEED, encoding="utf-8")
    assert main([str(path), "--include-format"]) == 0
    assert json.loads(capsys.readouterr().out) == {**SEED_CALL, "format": "python"}


# --------------------------------------------------------------------------- --message

MESSAGE = (
    "<think>The user wants the weather.</think>Let me check.\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call><|im_end|>'
)


def test_message_prints_content_reasoning_and_calls() -> None:
    proc = run(["--message"], stdin=MESSAGE)
    assert proc.returncode == 0, err(proc)
    start = MESSAGE.index("<tool_call>")
    end = MESSAGE.index("<|im_end|>")
    assert json.loads(out(proc)) == {
        "content": "Let me check.",
        "reasoning": "The user wants the weather.",
        "tool_calls": [
            {
                "id": None,
                "name": "get_weather",
                "arguments": {"city": "Zürich"},
                "format": "hermes",
                "span": [start, end],
            }
        ],
    }
    assert "Zürich" in out(proc), "non-ASCII is printed as is"


def test_message_without_calls_is_not_an_error() -> None:
    proc = run(["--message"], stdin="Paris is sunny today.")
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == {"content": "Paris is sunny today.", "reasoning": None, "tool_calls": []}


def test_message_generate_ids() -> None:
    first = json.loads(out(run(["--message", "--generate-ids"], stdin=MESSAGE)))
    again = json.loads(out(run(["--message", "--generate-ids"], stdin=MESSAGE)))
    [call] = first["tool_calls"]
    assert call["id"].startswith("call_") and len(call["id"]) == 29 and call["id"][5:].isalnum(), call["id"]
    assert first == again, "the same text gives the same ids"
    other = json.loads(out(run(["--message", "--generate-ids"], stdin=MESSAGE.replace("Zürich", "Bern"))))
    assert other["tool_calls"][0]["id"] != call["id"]


def test_message_broken_call_exit_2_with_caret() -> None:
    text = 'Sure.\n<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'
    proc = run(["--message"], stdin=text)
    assert proc.returncode == 2
    assert out(proc) == ""
    lines = err(proc).splitlines()
    assert lines[0].startswith("json."), lines
    assert lines[-1].endswith("^")


@pytest.mark.parametrize("extra", [["--all"], ["--include-format"]])
def test_message_takes_no_all_or_include_format(extra: List[str]) -> None:
    proc = run(["--message", *extra], stdin=MESSAGE)
    assert proc.returncode == 2
    assert "--message" in err(proc)


def test_generate_ids_needs_message() -> None:
    proc = run(["--generate-ids"], stdin=MESSAGE)
    assert proc.returncode == 2
    assert "--generate-ids needs --message" in err(proc)
