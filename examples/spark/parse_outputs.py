"""Parse a Parquet column of model outputs on Apache Spark with beacon.

    spark-submit examples/spark/parse_outputs.py INPUT OUTPUT_DIR [--column output] [--keep id]
    python examples/spark/parse_outputs.py INPUT OUTPUT_DIR --master "local[2]"   # no cluster

Each Spark task hands its rows to ``beacon.parse_arrow`` one Arrow batch at a time
(``DataFrame.mapInArrow``): the text never becomes Python objects, and memory stays that of one
batch per task. Two Parquet datasets are written:

- ``OUTPUT_DIR/calls``: one row per call, with the kept columns, ``call_index`` (its place in the
  row), ``call_id`` (the id the model wrote, or null), ``name``, ``arguments`` (JSON text) and
  ``format``;
- ``OUTPUT_DIR/errors``: one row per broken output, with the kept columns, ``error_code``,
  ``error_message`` and ``error_position`` (code points into the output).

Then a summary is printed: per format the rows and calls, and the errors by code.

Spark runs one task per core, so each task parses on one thread (``threads=1``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Iterator, List, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType, StringType, StructField, StructType

#: What mapInArrow returns: the kept columns, then these (beacon.parse_arrow's, less content and
#: reasoning, which this job does not write).
PARSED_FIELDS = [
    StructField(
        "calls",
        ArrayType(
            StructType(
                [
                    StructField("id", StringType()),
                    StructField("name", StringType()),
                    StructField("arguments", StringType()),
                    StructField("format", StringType()),
                ]
            )
        ),
    ),
    StructField("format", StringType()),
    StructField("error_code", StringType()),
    StructField("error_message", StringType()),
    StructField("error_position", LongType()),
]


def parse_batches(column: str, keep: List[str], formats: Optional[List[str]]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function mapInArrow runs on each task: Arrow record batches in, record batches out."""

    def parse(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        import beacon

        names = [f.name for f in PARSED_FIELDS]
        for batch in batches:
            parsed = pa.RecordBatch.from_struct_array(
                pa.array(beacon.parse_arrow(batch.column(column), formats=formats, threads=1))
            )
            yield pa.RecordBatch.from_arrays(
                [batch.column(k) for k in keep] + [parsed.column(n) for n in names],
                names=keep + names,
            )

    return parse


def parse(df: DataFrame, column: str, keep: List[str], formats: Optional[List[str]] = None) -> DataFrame:
    """`df` with the kept columns and the parsed ones, one row per input row."""
    schema = StructType([df.schema[k] for k in keep] + PARSED_FIELDS)
    return df.mapInArrow(parse_batches(column, keep, formats), schema)


def calls_of(parsed: DataFrame, keep: List[str]) -> DataFrame:
    exploded = parsed.select(*keep, F.posexplode("calls").alias("call_index", "call"))
    return exploded.select(
        *keep,
        "call_index",
        F.col("call.id").alias("call_id"),
        F.col("call.name").alias("name"),
        F.col("call.arguments").alias("arguments"),
        F.col("call.format").alias("format"),
    )


def errors_of(parsed: DataFrame, keep: List[str]) -> DataFrame:
    return parsed.where(F.col("error_code").isNotNull()).select(*keep, "error_code", "error_message", "error_position")


def summary(parsed: DataFrame) -> str:
    """Rows and calls per format (the row's first call's), then errors by code."""
    per_format = (
        parsed.where(F.col("error_code").isNull() & F.col("calls").isNotNull())
        .groupBy(F.coalesce("format", F.lit("(no call)")).alias("format"))
        .agg(F.count("*").alias("rows"), F.sum(F.size("calls")).alias("calls"))
        .orderBy(F.desc("rows"), "format")
        .collect()
    )
    errors = parsed.groupBy("error_code").count().where(F.col("error_code").isNotNull()).orderBy(F.desc("count"), "error_code").collect()
    nulls = parsed.where(F.col("calls").isNull() & F.col("error_code").isNull()).count()
    lines = [f"{'format':<18}{'rows':>10}{'calls':>10}"]
    lines += [f"{r['format']:<18}{r['rows']:>10,}{r['calls']:>10,}" for r in per_format]
    lines += ["", f"{'error_code':<34}{'rows':>10}"]
    lines += [f"{r['error_code']:<34}{r['count']:>10,}" for r in errors] or ["(none)"]
    total_rows = sum(r["rows"] for r in per_format) + sum(r["count"] for r in errors) + nulls
    total_calls = sum(r["calls"] for r in per_format)
    lines += ["", f"{total_rows:,} rows: {total_calls:,} calls, {sum(r['count'] for r in errors):,} errors, {nulls:,} null outputs"]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description="Parse a Parquet column of model outputs with beacon on Spark.")
    ap.add_argument("input", help="Parquet file or directory")
    ap.add_argument("output", help="directory for the calls/ and errors/ datasets (overwritten)")
    ap.add_argument("--column", default="output", help="the column of model outputs (default: output)")
    ap.add_argument("--keep", default=None, help="comma-separated columns to carry into calls/ and errors/ (default: every other column)")
    ap.add_argument("--formats", default=None, help="comma-separated format ids to recognise (default: all)")
    ap.add_argument("--master", default=None, help="e.g. local[2]; spark-submit sets it otherwise")
    args = ap.parse_args(argv)

    builder = SparkSession.builder.appName("beacon-parse-outputs")
    if args.master:
        builder = builder.master(args.master)
        if args.master.startswith("local"):
            # Local workers run the interpreter that runs this script (which has beacon).
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")

    df = spark.read.parquet(args.input)
    keep = args.keep.split(",") if args.keep else [c for c in df.columns if c != args.column]
    formats = args.formats.split(",") if args.formats else None
    parsed = parse(df, args.column, keep, formats).persist()  # parsed once, read three times

    calls_of(parsed, keep).write.mode("overwrite").parquet(os.path.join(args.output, "calls"))
    errors_of(parsed, keep).write.mode("overwrite").parquet(os.path.join(args.output, "errors"))
    print(summary(parsed))
    parsed.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
