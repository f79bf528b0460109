"""``beacon batch``: parse a column of model outputs in a Parquet or JSON Lines file.

    beacon batch INPUT.parquet|INPUT.jsonl --column output -o OUT.parquet|OUT.jsonl

Each output row is the input row (every column kept) followed by the columns of
:func:`beacon.parse_arrow`: ``calls``, ``format``, ``content``, ``reasoning``, ``error_code``,
``error_message``, ``error_position``. A broken row is data (its error columns are set), not a
failure. In JSON Lines output each call's ``arguments`` is the decoded object; in Parquet it is
JSON text. The file is read and written one batch at a time, so memory stays that of one batch.

A progress bar (rows, rows/s, ETA) goes to stderr; ``--quiet`` silences it and the summary.
pyarrow is needed only when a Parquet file is read or written.

Exit status: 0 when every row was parsed (whatever the rows' errors), 2 when the job could not
run (unreadable input, missing column, pyarrow missing for Parquet, bad arguments).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence, Tuple, get_args

from . import UnknownTools, _core
from ._batch import parse_arrow

EXIT_OK = 0
EXIT_ERROR = 2

#: The columns of a result row: parse_arrow's, in order.
RESULT_COLUMNS = tuple(_core.ARROW_COLUMNS)

_KINDS = {".parquet": "parquet", ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}

PYARROW_HINT = (
    "{what} Parquet needs pyarrow, which is not installed. Install it with:\n"
    "    pip install pyarrow\n"
    "or use JSON Lines (.jsonl), which needs nothing more."
)


class BatchError(Exception):
    """A reason the job cannot run, shown as ``beacon batch: <message>``."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="beacon batch",
        description="Parse the tool calls in one column of a Parquet or JSON Lines file, "
        "writing every row with its calls, content and error columns.",
        epilog="Exit status: 0 done (broken rows are data, in error_code), 2 the job could not run.",
    )
    p.add_argument("input", help="INPUT.parquet or INPUT.jsonl (also .pq, .ndjson)")
    p.add_argument("--column", required=True, help="the column (JSON Lines: the key) holding the model output")
    p.add_argument("-o", "--output", required=True, help="OUT.parquet or OUT.jsonl")
    p.add_argument("--formats", help="comma-separated format ids to recognise (default: every format)")
    p.add_argument(
        "--tools",
        metavar="TOOLS.json",
        help="a JSON list of tool definitions: calls are named, typed and validated against them "
        "(README: Tools and schemas); a call that breaks one is an error row",
    )
    p.add_argument(
        "--unknown",
        choices=get_args(UnknownTools),
        default="error",
        help="with --tools, what a call to a tool not in the list is (default: error)",
    )
    p.add_argument("--threads", type=int, help="parser threads (default: every core)")
    p.add_argument("--batch-size", type=int, default=10_000, help="rows per batch (default: 10000)")
    p.add_argument("--prefix", default="", help="prefix for the added column names (when the input has a 'format' or 'content' column, say)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    return p


def _kind(path: str) -> str:
    ext = os.path.splitext(path)[1].lower()
    if ext not in _KINDS:
        raise BatchError(f"{path}: unknown file type {ext or '(none)'!r}; use .parquet or .jsonl")
    return _KINDS[ext]


def _pyarrow(what: str) -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise BatchError(PYARROW_HINT.format(what=what)) from None
    return pyarrow


# --------------------------------------------------------------------------- progress


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """A one-line progress bar on ``stream``: rows done, percent, rows/s and ETA.

    ``done_fraction`` is the share of the input read (rows of a Parquet file, bytes of a JSON
    Lines file). On a terminal the line is redrawn at most 10 times a second; elsewhere (a log)
    a line is printed every 10 seconds.
    """

    WIDTH = 24

    def __init__(self, stream: IO[str], enabled: bool) -> None:
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and stream.isatty()
        self.start = time.perf_counter()
        self.last = 0.0
        self.rows = 0

    def line(self, fraction: Optional[float]) -> str:
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        rate = self.rows / elapsed
        parts = [f"{self.rows:,} rows"]
        if fraction is not None:
            fraction = min(max(fraction, 0.0), 1.0)
            filled = int(fraction * self.WIDTH)
            parts.append(f"{fraction * 100:3.0f}% [{'#' * filled}{'.' * (self.WIDTH - filled)}]")
        parts.append(f"{rate:,.0f} rows/s")
        if fraction:
            parts.append(f"ETA {_clock(elapsed * (1 - fraction) / fraction)}")
        return "  ".join(parts)

    def update(self, rows: int, fraction: Optional[float]) -> None:
        self.rows += rows
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < (0.1 if self.tty else 10.0):
            return
        self.last = now
        self._show(self.line(fraction), final=False)

    def _show(self, text: str, final: bool) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + text + ("\n" if final else ""))
        elif final or text:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self, summary: str) -> None:
        if self.enabled:
            if self.tty:
                self._show(self.line(1.0), final=True)
            self.stream.write(summary + "\n")
            self.stream.flush()


# --------------------------------------------------------------------------- input


Batch = Tuple[Any, Any, Optional[float]]  # (input rows, texts, fraction of the input read)


def _read_jsonl(path: str, column: str, batch_size: int) -> Iterator[Batch]:
    size = os.path.getsize(path) or 1
    seen = 0
    rows: List[Dict[str, Any]] = []
    texts: List[Optional[str]] = []
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            seen += len(raw)
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError as e:
                raise BatchError(f"{path}, line {number}: not JSON ({e})") from None
            if not isinstance(obj, dict):
                raise BatchError(f"{path}, line {number}: a JSON object was expected, not {type(obj).__name__}")
            if column not in obj:
                raise BatchError(f"{path}, line {number}: no {column!r} key (keys: {', '.join(map(repr, obj)) or 'none'})")
            text = obj[column]
            if text is not None and not isinstance(text, str):
                raise BatchError(f"{path}, line {number}: {column!r} is {type(text).__name__}, not a string")
            rows.append(obj)
            texts.append(text)
            if len(rows) >= batch_size:
                yield rows, texts, seen / size
                rows, texts = [], []
    if rows:
        yield rows, texts, 1.0


def _read_parquet(path: str, column: str, batch_size: int) -> Iterator[Batch]:
    pa = _pyarrow("Reading")
    try:
        source = pa.parquet.ParquetFile(path)
    except (OSError, pa.ArrowException) as e:
        raise BatchError(f"{path}: cannot read as Parquet ({e})") from None
    names = source.schema_arrow.names
    if column not in names:
        raise BatchError(f"{path}: no column {column!r} (columns: {', '.join(map(repr, names))})")
    total = source.metadata.num_rows or 1
    done = 0
    for batch in source.iter_batches(batch_size=batch_size):
        done += batch.num_rows
        yield batch, batch.column(column), done / total


# --------------------------------------------------------------------------- output


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "backslashreplace")
    return str(value)


class Counts:
    """What the rows held, for the summary."""

    def __init__(self) -> None:
        self.calls = self.none = self.errors = self.null = 0

    def add(self, with_calls: int, without: int, errors: int, null: int) -> None:
        self.calls += with_calls
        self.none += without
        self.errors += errors
        self.null += null

    def __str__(self) -> str:
        null = f", {self.null:,} null" if self.null else ""
        return f"{self.calls:,} with calls, {self.none:,} without, {self.errors:,} errors{null}"


class JsonlWriter:
    def __init__(self, path: str, prefix: str, counts: Counts) -> None:
        self.file = open(path, "w", encoding="utf-8", newline="\n")
        self.names = [prefix + c for c in RESULT_COLUMNS]
        self.counts = counts

    def write(self, inputs: Any, result: Any) -> None:
        if not isinstance(inputs, list):  # a pyarrow RecordBatch read from Parquet
            inputs = inputs.to_pylist()
        lines = []
        parsed_rows = result.to_pylist()
        errors = sum(r["error_code"] is not None for r in parsed_rows)
        null = sum(r["calls"] is None for r in parsed_rows) - errors
        with_calls = sum(bool(r["calls"]) for r in parsed_rows)
        self.counts.add(with_calls, len(parsed_rows) - with_calls - errors - null, errors, null)
        for row, parsed in zip(inputs, parsed_rows):
            if parsed["calls"]:
                parsed["calls"] = [dict(c, arguments=json.loads(c["arguments"])) for c in parsed["calls"]]
            out = dict(row)
            out.update(zip(self.names, (parsed[c] for c in RESULT_COLUMNS)))
            lines.append(json.dumps(out, ensure_ascii=False, default=_json_default))
        if lines:
            self.file.write("\n".join(lines) + "\n")

    def close(self) -> None:
        self.file.close()

    def abort(self) -> None:
        self.file.close()
        _remove(self.file.name)


class ParquetWriter:
    def __init__(self, path: str, prefix: str, counts: Counts) -> None:
        self.pa = _pyarrow("Writing")
        import pyarrow.compute

        self.pc = pyarrow.compute
        self.path = path
        self.prefix = prefix
        self.counts = counts
        self.writer: Any = None

    def count(self, parsed: Any) -> None:
        pc = self.pc
        calls, errors = parsed.column("calls"), parsed.column("error_code")
        n_errors = len(errors) - errors.null_count
        n_null = calls.null_count - n_errors
        with_calls = pc.sum(pc.greater(pc.list_value_length(calls), 0)).as_py() or 0
        self.counts.add(with_calls, len(calls) - with_calls - n_errors - n_null, n_errors, n_null)

    def write(self, inputs: Any, result: Any) -> None:
        pa = self.pa
        if isinstance(inputs, list):  # rows read from JSON Lines
            inputs = pa.RecordBatch.from_pylist(inputs)
        parsed = pa.RecordBatch.from_struct_array(pa.array(result))
        self.count(parsed)
        batch = pa.RecordBatch.from_arrays(
            list(inputs.columns) + list(parsed.columns),
            names=list(inputs.schema.names) + [self.prefix + c for c in RESULT_COLUMNS],
        )
        if self.writer is None:
            self.writer = pa.parquet.ParquetWriter(self.path, batch.schema)
        elif batch.schema != self.writer.schema:
            try:
                batch = batch.cast(self.writer.schema)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as e:
                raise BatchError(
                    f"the input's columns change type between batches ({e}); write JSON Lines instead, "
                    "or raise --batch-size"
                ) from None
        self.writer.write_batch(batch)

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close()
        _remove(self.path)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        else:  # no rows: still write a file with the result columns
            pa = self.pa
            empty = pa.RecordBatch.from_struct_array(pa.array(parse_arrow([])))
            pa.parquet.write_table(
                pa.Table.from_batches([empty]).rename_columns([self.prefix + c for c in RESULT_COLUMNS]),
                self.path,
            )


# --------------------------------------------------------------------------- main


def _tools(path: str) -> Any:
    """The tool definitions of the --tools file, compiled once for the whole run."""
    from ._tools import Tools

    try:
        with open(path, encoding="utf-8") as f:
            definitions = json.load(f)
    except ValueError as e:
        raise BatchError(f"{path}: not JSON ({e})") from None
    try:
        return Tools(definitions)
    except (TypeError, ValueError) as e:
        raise BatchError(f"{path}: {e}") from None


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _check_names(inputs: Any, prefix: str) -> None:
    names = inputs.schema.names if hasattr(inputs, "schema") else list(inputs[0]) if inputs else []
    clash = [n for n in names if n in {prefix + c for c in RESULT_COLUMNS}]
    if clash:
        raise BatchError(
            f"the input already has a column named {clash[0]!r}; pass --prefix (e.g. --prefix parsed_) "
            "to name the added columns apart"
        )


def run(args: argparse.Namespace, stderr: IO[str]) -> str:
    """Runs the job; returns the summary line."""
    formats = [f.strip() for f in args.formats.split(",") if f.strip()] if args.formats else None
    tools = _tools(args.tools) if args.tools else None
    if args.batch_size < 1:
        raise BatchError("--batch-size must be at least 1")
    read = {"jsonl": _read_jsonl, "parquet": _read_parquet}[_kind(args.input)]
    out_kind = _kind(args.output)
    if os.path.abspath(args.input) == os.path.abspath(args.output):
        raise BatchError("the output would overwrite the input")
    batches = read(args.input, args.column, args.batch_size)
    counts = Counts()
    make_writer = ParquetWriter if out_kind == "parquet" else JsonlWriter
    writer = make_writer(args.output, args.prefix, counts)
    progress = Progress(stderr, not args.quiet)
    try:
        for inputs, texts, fraction in batches:
            if progress.rows == 0:
                _check_names(inputs, args.prefix)
            result = parse_arrow(texts, formats=formats, tools=tools, unknown=args.unknown, threads=args.threads)
            writer.write(inputs, result)
            progress.update(len(result), fraction)
    except BaseException:
        writer.abort()  # no half-written or empty output left behind a job that failed
        raise
    writer.close()
    elapsed = max(time.perf_counter() - progress.start, 1e-9)
    summary = (
        f"beacon batch: {progress.rows:,} rows in {elapsed:.1f} s ({progress.rows / elapsed:,.0f} rows/s): "
        f"{counts} -> {args.output}"
    )
    progress.finish(summary)
    return summary


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        run(args, sys.stderr)
    except BatchError as e:
        sys.stderr.write(f"beacon batch: {e}\n")
        return EXIT_ERROR
    except (OSError, TypeError, ValueError) as e:
        sys.stderr.write(f"beacon batch: {e}\n")
        return EXIT_ERROR
    return EXIT_OK
