"""`beacon batch`: JSON Lines and Parquet in and out, the rows equal parse_arrow's, the progress
bar on stderr, and the errors that stop a job (pyarrow missing for Parquet among them)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import beacon
from beacon import _batch_cli
from beacon._cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

OUTPUTS: List[Optional[str]] = [
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "n": 12345678901234567890}}</tool_call>',
    "No call here.",
    None,
    '[TOOL_CALL]name=f;args={"x": }[/TOOL_CALL]',
    "<think>hmm</think>search(query=\"東京\")",
]
RESULT = list(beacon.parse_arrow(OUTPUTS).to_pylist()[0])


def write_jsonl(path: Path, rows: List[Dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def input_rows(n: int = 2500) -> List[Dict[str, Any]]:
    return [{"id": i, "output": OUTPUTS[i % len(OUTPUTS)]} for i in range(n)]


def expected(rows: List[Dict[str, Any]], decode: bool) -> List[Dict[str, Any]]:
    out = []
    for row, parsed in zip(rows, beacon.parse_arrow([r["output"] for r in rows]).to_pylist()):
        if decode and parsed["calls"]:
            parsed["calls"] = [dict(c, arguments=json.loads(c["arguments"])) for c in parsed["calls"]]
        out.append({**row, **parsed})
    return out


def run(*args: Any, capsys: Any) -> tuple:
    code = main(["batch", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_jsonl_to_jsonl(tmp_path: Path, capsys: Any) -> None:
    rows = input_rows()
    write_jsonl(tmp_path / "in.jsonl", rows)
    code, out, err = run(tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.jsonl", "--batch-size", 1000, capsys=capsys)
    assert code == 0 and out == ""
    assert read_jsonl(tmp_path / "out.jsonl") == expected(rows, decode=True)
    assert "rows/s" in err
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("beacon batch: 2,500 rows in ")
    assert "1,000 with calls, 500 without, 500 errors, 500 null" in summary


def test_parquet_to_parquet(tmp_path: Path, capsys: Any) -> None:
    rows = input_rows()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "in.parquet")
    code, _, _ = run(tmp_path / "in.parquet", "--column", "output", "-o", tmp_path / "out.parquet", "--batch-size", 700, capsys=capsys)
    assert code == 0
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column_names == ["id", "output", *RESULT]
    assert table.to_pylist() == expected(rows, decode=False)


def test_jsonl_to_parquet_and_back(tmp_path: Path, capsys: Any) -> None:
    rows = input_rows(1200)
    write_jsonl(tmp_path / "in.jsonl", rows)
    assert run(tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "mid.parquet", "--batch-size", 5, "-q", capsys=capsys) == (0, "", "")
    assert pq.read_table(tmp_path / "mid.parquet").to_pylist() == expected(rows, decode=False)
    code, _, _ = run(tmp_path / "mid.parquet", "--column", "output", "-o", tmp_path / "out.jsonl", "--prefix", "again_", "-q", capsys=capsys)
    assert code == 0
    back = read_jsonl(tmp_path / "out.jsonl")
    again = expected(rows, decode=True)
    for got, first, want in zip(back, expected(rows, decode=False), again):
        assert {k: v for k, v in got.items() if not k.startswith("again_")} == first
        assert {k[len("again_"):]: v for k, v in got.items() if k.startswith("again_")} == {k: want[k] for k in RESULT}


def test_formats_and_threads_options(tmp_path: Path, capsys: Any) -> None:
    write_jsonl(tmp_path / "in.jsonl", input_rows(10))
    code, _, _ = run(tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.jsonl", "--formats", "bracket", "--threads", 1, "-q", capsys=capsys)
    assert code == 0
    got = read_jsonl(tmp_path / "out.jsonl")
    assert got[0]["calls"] == [] and got[3]["error_code"] == "json.unexpected_token"


def test_tools_option(tmp_path: Path, capsys: Any) -> None:
    tools = [{"name": "get_weather", "input_schema": {"properties": {"city": {"type": "string"}}}}]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    rows = [
        {"output": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'},
        {"output": '<tool_call>{"name": "get_weather", "arguments": {"city": 5}}</tool_call>'},
        {"output": '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    args = [tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.jsonl", "--tools", tmp_path / "tools.json", "-q"]
    assert run(*args, capsys=capsys)[0] == 0
    got = read_jsonl(tmp_path / "out.jsonl")
    want = beacon.parse_arrow([r["output"] for r in rows], tools=tools).to_pylist()
    assert [r["error_code"] for r in got] == [None, "tool_call.schema", "tool_call.unknown_tool"]
    assert [r["error_message"] for r in got] == [r["error_message"] for r in want]
    assert run(*args, "--unknown", "drop", capsys=capsys)[0] == 0
    assert read_jsonl(tmp_path / "out.jsonl")[2]["calls"] == []
    (tmp_path / "tools.json").write_text("[{]", encoding="utf-8")
    code, _, err = run(*args, capsys=capsys)
    assert code == 2 and "tools.json: not JSON" in err


def test_empty_input(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "in.jsonl").write_text("\n", encoding="utf-8")
    assert run(tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.parquet", "-q", capsys=capsys)[0] == 0
    assert pq.read_table(tmp_path / "out.parquet").column_names == RESULT


@pytest.mark.parametrize(
    "lines, message",
    [
        (['{"text": "a"}'], "line 1: no 'output' key (keys: 'text')"),
        (['{"output": 5}'], "line 1: 'output' is int, not a string"),
        (['{"output": "a"}', "not json"], "line 2: not JSON"),
        (["[1]"], "line 1: a JSON object was expected, not list"),
        (['{"output": "a", "format": "x"}'], "already has a column named 'format'; pass --prefix"),
    ],
)
def test_jsonl_errors(tmp_path: Path, capsys: Any, lines: List[str], message: str) -> None:
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.jsonl", capsys=capsys)
    assert code == 2
    assert message in err and err.startswith("beacon batch: ")
    assert not (tmp_path / "out.jsonl").exists()


def test_other_errors(tmp_path: Path, capsys: Any) -> None:
    pq.write_table(pa.table({"id": [1], "output": [5]}), tmp_path / "ints.parquet")
    write_jsonl(tmp_path / "in.jsonl", input_rows(3))
    cases = [
        ([tmp_path / "in.csv", "--column", "output", "-o", tmp_path / "o.jsonl"], "unknown file type '.csv'"),
        ([tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "o.txt"], "unknown file type '.txt'"),
        ([tmp_path / "missing.jsonl", "--column", "output", "-o", tmp_path / "o.jsonl"], "No such file"),
        ([tmp_path / "ints.parquet", "--column", "text", "-o", tmp_path / "o.jsonl"], "no column 'text' (columns: 'id', 'output')"),
        ([tmp_path / "ints.parquet", "--column", "output", "-o", tmp_path / "o.jsonl"], "array of strings"),
        ([tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "in.jsonl"], "overwrite the input"),
        ([tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "o.jsonl", "--threads", 0], "threads must be at least 1"),
        ([tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "o.jsonl", "--formats", "nope"], "unknown format id"),
    ]
    for args, message in cases:
        code, _, err = run(*args, capsys=capsys)
        assert (code, message in err) == (2, True), (args, err)
        output = Path(args[args.index("-o") + 1])
        assert output == tmp_path / "in.jsonl" or not output.exists(), "a failed job leaves no output file"


def test_progress_bar_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = _batch_cli.Progress(stream, enabled=True)
    progress.update(5000, 0.25)
    progress.last = 0.0  # redraw at once
    progress.update(5000, 0.5)
    progress.finish("done")
    text = stream.getvalue()
    assert text.count("\r\x1b[2K") == 3
    assert " 50% [############............]" in text and "rows/s" in text and "ETA 0:0" in text
    assert re.search(r"\r\x1b\[2K10,000 rows  100% \[#{24}\]  [\d,]+ rows/s  ETA 0:00\ndone\n$", text)


def test_progress_when_quiet() -> None:
    stream = io.StringIO()
    progress = _batch_cli.Progress(stream, enabled=False)
    progress.update(10, 0.5)
    progress.finish("done")
    assert stream.getvalue() == ""


NO_PYARROW = (
    "import sys\n"
    "sys.modules['pyarrow'] = None  # as if it were not installed\n"
    "from beacon._cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def test_jsonl_needs_no_pyarrow_and_parquet_says_how_to_get_it(tmp_path: Path) -> None:
    rows = input_rows(50)
    write_jsonl(tmp_path / "in.jsonl", rows)
    base = [sys.executable, "-c", NO_PYARROW, "batch"]
    done = subprocess.run([*base, tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.jsonl"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert read_jsonl(tmp_path / "out.jsonl") == expected(rows, decode=True)
    for args, what in (
        ([tmp_path / "in.jsonl", "--column", "output", "-o", tmp_path / "out.parquet"], "Writing"),
        ([tmp_path / "in.parquet", "--column", "output", "-o", tmp_path / "out.jsonl"], "Reading"),
    ):
        failed = subprocess.run([*base, *args], capture_output=True, text=True)
        assert failed.returncode == 2
        assert f"beacon batch: {what} Parquet needs pyarrow, which is not installed" in failed.stderr
        assert "pip install pyarrow" in failed.stderr


def test_help_mentions_batch(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "beacon batch --help" in capsys.readouterr().out
