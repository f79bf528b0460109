"""Write a Parquet file of model outputs to try the Spark example on.

    python examples/spark/make_sample.py OUT.parquet [--rows 100000]

Columns: ``id`` (int64) and ``output`` (string). The outputs cycle through every format beacon
reads, with different arguments, and mix in the rows a real dataset has: calls cut off by a token
limit, broken JSON, prose answers, reasoning before calls, empty strings and nulls.
Deterministic: the same arguments give the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import corpus  # noqa: E402  (bench/corpus.py renders one call in any format)

CITIES = ["Paris", "Zürich", "東京", "São Paulo", "New York", "Reykjavík", "Cairo"]
PROSE = [
    "The capital of France is Paris.",
    "I can't help with that, but here is what I know about the topic.",
    "Sure! Here are three ideas: (1) a walk, (2) a book, [3] a film.",
    "",
]


def arguments(i: int) -> dict:
    return {
        "city": CITIES[i % len(CITIES)],
        "days": i % 7,
        "units": ["metric", "imperial"][i % 2],
        "detail": {"hourly": i % 3 == 0, "threshold": (i % 10) / 4},
    }


def output(i: int) -> Optional[str]:
    kind = i % 20
    fmt = corpus.FORMATS[(i // 20) % len(corpus.FORMATS)]
    text, payload = corpus.render(fmt, ["get_weather", "search", "book_table"][i % 3], arguments(i))
    if kind == 0:
        return None
    if kind in (1, 2):
        return PROSE[i % len(PROSE)]
    if kind == 3:  # cut off by the token limit
        return text[: len(text) * 2 // 3]
    if kind == 4:  # a value the model left out
        broken = text.replace(json.dumps(CITIES[i % len(CITIES)], ensure_ascii=False), "", 1)
        return broken if broken != text else text[:-3]
    if kind == 5:
        return "<think>The user asked about the weather; I should call the tool.</think>\n" + text
    return text


def rows(n: int) -> List[Optional[str]]:
    return [output(i) for i in range(n)]


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args(argv)
    table = pa.table({"id": pa.array(range(args.rows), pa.int64()), "output": pa.array(rows(args.rows), pa.string())})
    pq.write_table(table, args.out, row_group_size=20_000)
    print(f"wrote {args.rows:,} rows to {args.out}")


if __name__ == "__main__":
    main()
