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
    path = tmp_path / "missing.txt"
    proc = run([str(path)])
    assert proc.returncode == 2
    assert out(proc) == ""
    assert err(proc) == f"input.unreadable at line 1, column 1: cannot read the input: No such file or directory: {path}\n"


def test_directory_exit_2(tmp_path: Path) -> None:
    for args in ([str(tmp_path)], ["--response", str(tmp_path)]):
        proc = run(args)
        assert proc.returncode == 2
        assert err(proc) == f"input.unreadable at line 1, column 1: cannot read the input: Is a directory: {tmp_path}\n"


def test_unreadable_file_in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """No permission to read (the tests may run as root, who may read anything: simulated)."""
    from beacon import _cli

    def denied(path: str, mode: str = "r") -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(_cli, "open", denied, raising=False)
    assert _cli.main(["secret.txt"]) == 2
    assert capsys.readouterr().err == "input.unreadable at line 1, column 1: cannot read the input: Permission denied: secret.txt\n"


def test_invalid_utf8_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"f(x=1)\nab \xff")
    proc = run([str(path)])
    assert proc.returncode == 2
    assert out(proc) == ""
    # The first invalid byte, its line and its column (in bytes), as parse_response(bytes) says.
    assert err(proc) == (
        f"json.invalid_utf8 at line 2, column 4: {path}: not valid UTF-8: byte 0xFF at offset 10 "
        "does not begin a valid character\n"
    )
    # A character cut short, read as a response from stdin.
    proc = subprocess.run([sys.executable, "-m", "beacon", "--response"], input=b'{"city": "Z\xc3', capture_output=True)
    assert proc.returncode == 2
    assert proc.stderr.decode() == (
        "json.invalid_utf8 at line 1, column 12: <stdin>: not valid UTF-8: the input ends inside a character "
        "(the one byte 0xC3 at offset 11 begins)\n"
    )


# --------------------------------------------------------------------------- --response

OPENAI = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-4.1",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                    {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "東京"}'}},
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
}
OPENAI_CALLS = [
    {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}},
    {"id": "call_2", "name": "get_weather", "arguments": {"city": "東京"}},
]
OLLAMA_TEXT = {"model": "qwen3", "message": {"role": "assistant", "content": 'Sure. search(query="rust")'}, "done": True}


def test_response_prints_its_calls(tmp_path: Path) -> None:
    text = json.dumps(OPENAI, ensure_ascii=False, indent=2)
    proc = run(["--response"], stdin=text)
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == OPENAI_CALLS
    assert err(proc) == ""
    path = tmp_path / "response.json"
    path.write_text(text, encoding="utf-8")
    for args in (["--response", str(path)], ["--response", "--provider", "openai_chat", str(path)], ["--response", "--all", str(path)]):
        proc = run(args)
        assert proc.returncode == 0, err(proc)
        assert json.loads(out(proc)) == OPENAI_CALLS
    # One call is a list too, so the output's shape does not depend on how many there are.
    one = {**OPENAI, "choices": [{**OPENAI["choices"][0], "message": {**OPENAI["choices"][0]["message"],
           "tool_calls": OPENAI["choices"][0]["message"]["tool_calls"][:1]}}]}
    proc = run(["--response"], stdin=json.dumps(one))
    assert json.loads(out(proc)) == OPENAI_CALLS[:1]


def test_response_streamed_chunks_array() -> None:
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a"'}}]}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": ": 1}"}}]}, "finish_reason": "tool_calls"}]},
    ]
    proc = run(["--response"], stdin=json.dumps(chunks))
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == [{"id": "call_1", "name": "f", "arguments": {"a": 1}}]


def test_response_text_fallback() -> None:
    text = json.dumps(OLLAMA_TEXT)
    proc = run(["--response", "--text-fallback"], stdin=text)
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == [{"id": None, "name": "search", "arguments": {"query": "rust"}}]
    # Without the flag: no calls, and the message says where they are.
    proc = run(["--response"], stdin=text)
    assert proc.returncode == 1
    assert out(proc) == ""
    assert err(proc) == (
        "tool_call.not_found at line 1, column 1: the ollama response has no tool calls; its assistant text has "
        "1 tool call: add --text-fallback to read it\n"
    )


def test_response_without_calls_exit_1() -> None:
    answer = {"model": "qwen3", "message": {"role": "assistant", "content": "Paris is sunny."}, "done": True}
    proc = run(["--response"], stdin=json.dumps(answer))
    assert proc.returncode == 1
    assert err(proc) == "tool_call.not_found at line 1, column 1: the ollama response has no tool calls\n"
    # Plain text is no response: said so, with the way to read model output.
    proc = run(["--response"], stdin=SEED)
    assert proc.returncode == 1
    assert "not the response of a known API" in err(proc) and "without --response" in err(proc)
    proc = run(["--response"], stdin='{"name": "f"}')
    assert proc.returncode == 1
    assert "not the response of a known API" in err(proc) and "without --response" not in err(proc)
    # Another API's paths: nothing there, and which API it looks like.
    proc = run(["--response", "--provider", "anthropic"], stdin=json.dumps(OPENAI))
    assert proc.returncode == 1
    assert err(proc) == (
        "tool_call.not_found at line 1, column 1: no tool calls where anthropic puts them "
        "(it looks like openai_chat's; --provider auto detects the API)\n"
    )


def test_response_errors_in_the_documented_form() -> None:
    text = '{\n  "model": "qwen3 é",\n  "done": true,,\n  "message": {}\n}'
    proc = run(["--response"], stdin=text)
    assert proc.returncode == 2
    lines = err(proc).splitlines()
    assert lines[0].startswith("json.unexpected_token at line 3, column 16: ")
    assert lines[1:] == ['  "done": true,,', " " * 15 + "^"]
    # A broken call: its code, the path in the message, the caret inside the arguments string.
    broken = json.loads(json.dumps(OPENAI))
    broken["choices"][0]["message"]["tool_calls"][1]["function"]["arguments"] = '{"city": }'
    text = json.dumps(broken, ensure_ascii=False)
    proc = run(["--response"], stdin=text)
    assert proc.returncode == 2
    lines = err(proc).splitlines()
    column = text.index('{\\"city\\": }') + len('{\\"city\\": ') + 1
    assert lines[0].startswith(f"tool_call.invalid_arguments at line 1, column {column}: ")
    assert "choices[0].message.tool_calls[1].function.arguments" in lines[0]
    # An error the API returned.
    proc = run(["--response"], stdin='{"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}}')
    assert proc.returncode == 2
    assert err(proc).startswith("response.error at line 1, column 11: ")
    assert "Incorrect API key provided." in err(proc)


def test_response_reads_recorded_streams() -> None:
    # Server-sent events: the calls of the joined chunks.
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]}, "finish_reason": "tool_calls"}]},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n"
    proc = run(["--response"], stdin=sse)
    assert proc.returncode == 0, err(proc)
    assert json.loads(out(proc)) == [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    # NDJSON (Ollama): a stream without calls, whose text holds some.
    ndjson = json.dumps(OLLAMA_TEXT) + "\n" + json.dumps(OLLAMA_TEXT) + "\n"
    proc = run(["--response"], stdin=ndjson)
    assert proc.returncode == 1
    assert "no tool calls" in err(proc)
    # Text after a JSON value on its own line is NDJSON only when it starts a line.
    proc = run(["--response"], stdin=json.dumps(OLLAMA_TEXT) + " x")
    assert err(proc).startswith("json.")


def test_text_mode_suggests_response_for_a_response() -> None:
    proc = run([], stdin=json.dumps(OPENAI))
    assert proc.returncode == 1
    assert err(proc).splitlines() == [
        "tool_call.not_found at line 1, column 1: no tool call found in any format",
        "hint: the input is a model API response (openai_chat): read its calls with `beacon --response`",
    ]
    # Plain text gets no hint.
    proc = run([], stdin="Nothing to call here.")
    assert "hint" not in err(proc)


def test_response_options_need_response() -> None:
    for args in (["--provider", "gemini"], ["--text-fallback"]):
        proc = run(args, stdin=SEED)
        assert proc.returncode == 2
        assert "add --response" in err(proc)
    proc = run(["--response", "--include-format"], stdin=json.dumps(OPENAI))
    assert proc.returncode == 2 and "--include-format" in err(proc)
    proc = run(["--response", "--provider", "openai"], stdin=json.dumps(OPENAI))
    assert proc.returncode == 2 and "invalid choice" in err(proc)


def test_usage_error_exit_2() -> None:
    proc = run(["--no-such-option"], stdin=SEED)
    assert proc.returncode == 2


def test_help() -> None:
    proc = run(["--help"])
    assert proc.returncode == 0
    assert "--all" in out(proc) and "--include-format" in out(proc)
    assert "--response" in out(proc) and "--provider" in out(proc) and "--text-fallback" in out(proc)


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
    assert first["tool_calls"][0]["id"] != again["tool_calls"][0]["id"], "every run draws a seed"
    seeded = json.loads(out(run(["--message", "--id-seed", "request-42"], stdin=MESSAGE)))
    assert seeded == json.loads(out(run(["--message", "--id-seed", "request-42"], stdin=MESSAGE)))
    assert seeded["tool_calls"][0]["id"].startswith("call_")
    # A seeded id hashes the text before the call (a stream gives it when the call starts).
    other = json.loads(out(run(["--message", "--id-seed", "request-42"], stdin=MESSAGE.replace("check", "look"))))
    assert other["tool_calls"][0]["id"] != seeded["tool_calls"][0]["id"]


def test_message_broken_call_exit_2_with_caret() -> None:
    text = 'Sure.\n<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'
    proc = run(["--message"], stdin=text)
    assert proc.returncode == 2
    assert out(proc) == ""
    lines = err(proc).splitlines()
    assert lines[0].startswith("json."), lines
    assert lines[-1].endswith("^")


def test_repair_mends_and_reports_and_strict_still_fails() -> None:
    text = 'Sure.\n<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'
    assert run(["--all"], stdin=text).returncode == 2
    [call] = json.loads(out(run(["--all", "--repair"], stdin=text)))
    assert call["arguments"] == {"a": 1}
    [receipt] = call["repairs"]
    assert (receipt["code"], receipt["position"], receipt["call_index"]) == ("repair.trailing_comma", text.index(",}"), 0)
    message = json.loads(out(run(["--message", "--repair"], stdin=text)))
    assert message["content"] == "Sure." and message["repairs"] == [receipt]
    # Truncation is never repaired.
    cut = run(["--repair"], stdin='<tool_call>{"name": "f", "arguments": {"a": 1,')
    assert cut.returncode == 2 and err(cut).startswith("json.unexpected_end")
    # A stream: the call comes whole at the end, its receipt in its call_end.
    events = [json.loads(line) for line in out(run(["--repair", "--stream", "--start", "content"], stdin=text)).splitlines()]
    assert [e["type"] for e in events] == ["content", "call_start", "arguments", "call_end"]
    assert events[-1]["repairs"] == [receipt]
    # An API response: the arguments string is mended, the receipt in the response text.
    response = json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1,}'}}]}}]})
    assert run(["--response"], stdin=response).returncode == 2
    [call] = json.loads(out(run(["--response", "--repair"], stdin=response)))
    assert call["arguments"] == {"a": 1} and response[call["repairs"][0]["position"]:].startswith(",}")


@pytest.mark.parametrize("extra", [["--all"], ["--include-format"]])
def test_message_takes_no_all_or_include_format(extra: List[str]) -> None:
    proc = run(["--message", *extra], stdin=MESSAGE)
    assert proc.returncode == 2
    assert "--message" in err(proc)


def test_generate_ids_needs_message() -> None:
    proc = run(["--generate-ids"], stdin=MESSAGE)
    assert proc.returncode == 2
    assert "--generate-ids needs --message" in err(proc)


def test_message_and_response_exclude_each_other() -> None:
    proc = run(["--message", "--response"], stdin=MESSAGE)
    assert proc.returncode == 2
    assert "use one" in err(proc)


def test_readme_console_examples() -> None:
    """The ```console blocks of README.md and docs/*.md: `$ COMMAND` (run by bash, with this
    venv's `beacon` first on PATH), then exactly what it prints."""
    root = Path(__file__).resolve().parents[2]
    blocks = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        blocks += [b.split("\n```", 1)[0] for b in text.split("```console\n")[1:]]
    assert len(blocks) >= 4, "the README and docs/ lost their command-line examples"
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for block in blocks:
        command, _, expected = block.partition("\n")
        assert command.startswith("$ "), block
        proc = subprocess.run(["bash", "-c", command[2:]], capture_output=True, env=env, timeout=60)
        assert proc.returncode == 0, (command, proc.stderr.decode())
        assert proc.stdout.decode("utf-8") == expected + "\n", command


# --------------------------------------------------------------------------- --stream


def _stream_proc(args: List[str]) -> "subprocess.Popen[bytes]":
    return subprocess.Popen(
        [sys.executable, "-m", "beacon", "--stream", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


class _Lines:
    """The lines the command prints, each waited for while its input is still open (read from the
    pipe's descriptor directly, so that no line waits in a buffer)."""

    def __init__(self, proc: "subprocess.Popen[bytes]") -> None:
        assert proc.stdout is not None
        self.fd = proc.stdout.fileno()
        self.buffer = b""

    def next(self, timeout: float = 30) -> dict:
        import select

        while b"\n" not in self.buffer:
            ready, _, _ = select.select([self.fd], [], [], timeout)
            assert ready, "no event printed before the input ended: --stream must print as it reads"
            piece = os.read(self.fd, 1 << 16)
            assert piece, "the command ended"
            self.buffer += piece
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def rest(self, proc: "subprocess.Popen[bytes]", data: bytes) -> List[dict]:
        """Ends the input with ``data``; the remaining events."""
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(data)
        proc.stdin.close()
        while True:
            piece = os.read(self.fd, 1 << 16)
            if not piece:
                break
            self.buffer += piece
        assert proc.wait(timeout=60) == 0, proc.stderr.read() if proc.stderr else ""
        return [json.loads(line) for line in self.buffer.decode("utf-8").splitlines()]


def test_stream_prints_events_as_the_input_arrives() -> None:
    proc = _stream_proc(["--start", "content"])
    lines = _Lines(proc)
    assert proc.stdin is not None
    proc.stdin.write("Let me check Zür".encode())
    proc.stdin.flush()
    # The last word waits for the next piece, which might have made it a call `Zür…(…)`.
    assert lines.next() == {"type": "content", "text": "Let me check"}
    proc.stdin.write('ich.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Pa'.encode())
    proc.stdin.flush()
    assert lines.next() == {"type": "content", "text": " Zürich."}
    assert lines.next() == {"type": "call_start", "index": 0, "id": None, "name": "get_weather", "format": "hermes"}
    assert lines.next() == {"type": "arguments", "index": 0, "delta": '{"city": "Pa'}
    assert lines.rest(proc, 'ris"}}</tool_call><|im_end|>'.encode()) == [
        {"type": "arguments", "index": 0, "delta": 'ris"}'},
        {"type": "call_end", "index": 0, "arguments": {"city": "Paris"}},
    ]


def test_stream_cut_inside_a_character_and_generated_ids() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"city": "Zürich"}}</tool_call>'
    data = text.encode()
    at = data.index("ü".encode()) + 1
    proc = _stream_proc(["--id-seed", "s"])
    assert proc.stdin is not None
    proc.stdin.write(data[:at])
    proc.stdin.flush()
    stdout, stderr = proc.communicate(data[at:], timeout=60)
    assert proc.returncode == 0, stderr
    events = [json.loads(line) for line in stdout.decode("utf-8").splitlines()]
    assert events[0]["id"] == json.loads(out(run(["--message", "--id-seed", "s"], stdin=text)))["tool_calls"][0]["id"]
    assert events[-1] == {"type": "call_end", "index": 0, "arguments": {"city": "Zürich"}}


def test_stream_error_after_the_events_before_it() -> None:
    text = 'Hi.\n<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>'
    proc = run(["--stream", "--start", "content"], stdin=text)
    assert proc.returncode == 2
    assert json.loads(out(proc).splitlines()[0]) == {"type": "content", "text": "Hi."}
    at = text.index("}}") - text.index("\n")
    assert err(proc).startswith(f"json.unexpected_token at line 2, column {at}: ")
    proc = run(["--stream"], stdin="plain text")
    assert proc.returncode == 0 and json.loads(out(proc)) == {"type": "content", "text": "plain text"}


def test_stream_response_sse_in_pieces() -> None:
    events = [
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"x": 1}'}},
        {"type": "content_block_stop", "index": 0},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    proc = _stream_proc(["--response"])
    lines = _Lines(proc)
    assert proc.stdin is not None
    first = sse.index(b"event: content_block_delta")
    proc.stdin.write(sse[:first])
    proc.stdin.flush()
    assert lines.next() == {"type": "call_start", "index": 0, "id": "toolu_1", "name": "f", "format": "json"}
    assert lines.rest(proc, sse[first:]) == [
        {"type": "arguments", "index": 0, "delta": '{"x": 1}'},
        {"type": "call_end", "index": 0, "arguments": {"x": 1}},
    ]
    proc = run(["--stream", "--response"], stdin='data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n')
    assert proc.returncode == 2 and err(proc).startswith("response.error at line 1"), err(proc)


def test_stream_option_checks() -> None:
    for args in (["--stream", "--all"], ["--stream", "--message"], ["--start", "content"], ["--stream", "--response", "--start", "content"],
                 ["--stream", "--response", "--text-fallback"], ["--stream", "--response", "--generate-ids"]):
        proc = run(args, stdin="x")
        assert proc.returncode == 2 and "usage:" in err(proc), args
    proc = subprocess.run([sys.executable, "-m", "beacon", "--stream"], input=b"ok \xff", capture_output=True, timeout=60)
    assert proc.returncode == 2 and err(proc).startswith("json.invalid_utf8 at line 1, column 4: "), err(proc)
