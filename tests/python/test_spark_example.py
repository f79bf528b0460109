"""The Spark example (examples/spark/) run as a user runs it: PySpark in local mode with two
cores over a generated Parquet of 100,000 outputs mixing every format, broken calls, prose and
nulls. Its calls/ and errors/ datasets must equal parse_many on the same rows, and its summary
must count them."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import beacon

from conftest import ROOT, typed

pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("pyspark")

EXAMPLE = ROOT / "examples" / "spark"
ROWS = 100_000


def load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, EXAMPLE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def spark_run(tmp_path_factory: Any) -> Tuple[Path, Path, str]:
    tmp = tmp_path_factory.mktemp("spark")
    sample = tmp / "outputs.parquet"
    load("make_sample").main([str(sample), "--rows", str(ROWS)])
    out = tmp / "parsed"
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "parse_outputs.py"), str(sample), str(out), "--master", "local[2]"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-5000:]
    return sample, out, done.stdout


def expected(sample: Path) -> Tuple[List[Tuple[Any, ...]], List[Tuple[Any, ...]], List[Any]]:
    table = pq.read_table(sample)
    ids, texts = table.column("id").to_pylist(), table.column("output").to_pylist()
    results = beacon.parse_many(texts, include_format=True)
    calls, errors = [], []
    for row_id, result in zip(ids, results):
        if isinstance(result, beacon.ToolCallError):
            errors.append((row_id, result.code, result.message, result.position))
        elif result:
            for index, call in enumerate(result):
                calls.append((row_id, index, call.get("id"), call["name"], typed(call["arguments"]), call["format"]))
    return calls, errors, results


def test_the_example_equals_parse_many(spark_run: Tuple[Path, Path, str]) -> None:
    sample, out, _ = spark_run
    want_calls, want_errors, results = expected(sample)
    got_calls = sorted(
        (r["id"], r["call_index"], r["call_id"], r["name"], typed(json.loads(r["arguments"])), r["format"])
        for r in pq.read_table(out / "calls").to_pylist()
    )
    got_errors = sorted(
        (r["id"], r["error_code"], r["error_message"], r["error_position"]) for r in pq.read_table(out / "errors").to_pylist()
    )
    assert len(got_calls) == len(want_calls) and got_calls == want_calls
    assert got_errors == want_errors
    # the sample is the mix it claims to be
    assert len({c[5] for c in want_calls}) == len(beacon.FORMATS)
    assert {e[1] for e in want_errors} >= {"tool_call.unclosed", "json.unexpected_token"}
    assert sum(r is None for r in results) and sum(r == [] for r in results)


def test_the_summary(spark_run: Tuple[Path, Path, str]) -> None:
    sample, _, stdout = spark_run
    want_calls, want_errors, results = expected(sample)
    nulls = sum(r is None for r in results)
    assert stdout.rstrip().splitlines()[-1] == (
        f"{ROWS:,} rows: {len(want_calls):,} calls, {len(want_errors):,} errors, {nulls:,} null outputs"
    )
    per_code: Dict[str, int] = {}
    for e in want_errors:
        per_code[e[1]] = per_code.get(e[1], 0) + 1
    for code, count in per_code.items():
        assert re.search(rf"^{re.escape(code)} +{count:,}$", stdout, re.M), code
    hermes_rows = sum(1 for r in results if isinstance(r, list) and r and r[0]["format"] == "hermes")
    assert re.search(rf"^hermes +{hermes_rows:,} +[\d,]+$", stdout, re.M)
