"""Dataset-scale benchmark: parse_many and parse_arrow against a Python loop over
parse_tool_calls, on the same 100,000 outputs in one process; and the peak memory of
`beacon batch` on files of 1× and 4× the rows.

    .venv/bin/python bench/batch.py [--quick]

Every timing includes a gc.collect(1) after the call: parse_many pauses the cyclic garbage
collector while it builds a chunk's objects, so its result is still in the young generations when
it returns, and the collection of those generations that the pause defers is counted here rather
than left to whatever runs next. Times are the best of several interleaved runs (a shared machine
slows some runs, never speeds one up).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402
from report import table  # noqa: E402

import beacon  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = 100_000


def typical_outputs(n: int) -> List[str]:
    """Every format's typical output (bench/corpus.py), in turn."""
    texts = [corpus.render(fmt, "get_weather", corpus.TYPICAL_ARGS)[0] for fmt in corpus.FORMATS]
    return [texts[i % len(texts)] for i in range(n)]


def mixed_outputs(n: int) -> List[Optional[str]]:
    """The Spark example's sample: every format, plus cut-off and broken calls, prose and nulls."""
    sys.path.insert(0, os.path.join(ROOT, "examples", "spark"))
    import make_sample

    return make_sample.rows(n)


def python_loop(texts: List[Optional[str]]) -> List[Any]:
    """What a user writes today: one parse_tool_calls per row, errors caught."""
    out: List[Any] = []
    for text in texts:
        if text is None:
            out.append(None)
            continue
        try:
            out.append(beacon.parse_tool_calls(text))
        except beacon.NoToolCallFoundError:
            out.append([])
        except beacon.ToolCallError as err:
            out.append(err)
    return out


def best(fns: Dict[str, Callable[[], Any]], repeats: int) -> Dict[str, float]:
    """Best wall time of each fn plus the young-generation collection that follows it, the fns
    interleaved so that a busy moment of the machine hits them all alike."""
    times = {name: float("inf") for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            gc.collect()
            start = time.perf_counter()
            result = fn()
            gc.collect(1)
            times[name] = min(times[name], time.perf_counter() - start)
            del result
    return times


def throughput(texts: List[Optional[str]], repeats: int) -> List[List[Any]]:
    import pyarrow as pa

    array = pa.array(texts, pa.string())
    assert beacon.parse_many(texts[:2000], threads=2) is not None
    fns = {
        "Python loop over parse_tool_calls": lambda: python_loop(texts),
        "parse_many, threads=1": lambda: beacon.parse_many(texts, threads=1),
        "parse_many, threads=2": lambda: beacon.parse_many(texts, threads=2),
        "parse_arrow, threads=1": lambda: beacon.parse_arrow(array, threads=1),
        "parse_arrow, threads=2": lambda: beacon.parse_arrow(array, threads=2),
    }
    times = best(fns, repeats)
    base = times["Python loop over parse_tool_calls"]
    return [[name, f"{len(texts) / t:,.0f}", f"{t * 1e6 / len(texts):.2f}", f"{base / t:.2f}×"] for name, t in times.items()]


# The child's peak RSS: VmHWM belongs to the process image, so unlike getrusage's ru_maxrss it
# does not include the pages the child shared with this (large) process before its exec.
PEAK = (
    "import sys\n"
    "from beacon._cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
    "sys.exit(code)\n"
)


def memory(rows: int) -> List[List[Any]]:
    """Peak RSS of `beacon batch` (Parquet to Parquet, 10,000-row batches) on files of rows and
    4×rows outputs: flat when memory follows one batch, not the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = []
    texts = mixed_outputs(rows)
    with tempfile.TemporaryDirectory() as tmp:
        for factor in (1, 4):
            src = os.path.join(tmp, f"in{factor}.parquet")
            column = pa.array(texts * factor, pa.string())
            pq.write_table(pa.table({"id": pa.array(range(len(column)), pa.int64()), "output": column}), src, row_group_size=10_000)
            del column
            cmd = [sys.executable, "-c", PEAK, "batch", src, "--column", "output", "-o", os.path.join(tmp, "out.parquet"), "-q"]
            start = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            seconds = time.perf_counter() - start
            peak_mb = int(done.stdout.split()[-1]) / 1024
            size_mb = os.path.getsize(src) / 1e6
            out.append([f"{rows * factor:,} rows ({size_mb:.0f} MB Parquet)", f"{peak_mb:,.0f} MB", f"{rows * factor / seconds:,.0f}"])
    return out


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer rows and repeats, for a smoke run")
    ap.add_argument("--repeats", type=int, default=5, help="runs of each variant; the best counts (default: 5)")
    args, _ = ap.parse_known_args(argv)  # bench/run.sh passes run.py's options too
    rows, repeats = (10_000, 2) if args.quick else (ROWS, args.repeats)
    print(f"\nbeacon dataset-scale benchmark · {rows:,} rows · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs")
    header = ["", "rows/s", "µs/row", "vs the loop"]
    table(f"{rows:,} typical outputs (each format's typical row in turn)", header, throughput(typical_outputs(rows), repeats))
    table(
        f"{rows:,} mixed outputs (examples/spark sample: 25% prose, cut-off, broken or null)",
        header,
        throughput(mixed_outputs(rows), repeats),
    )
    table("Peak memory of `beacon batch` (Parquet → Parquet, 10,000-row batches)", ["input", "peak RSS", "rows/s"], memory(rows))


if __name__ == "__main__":
    main()
