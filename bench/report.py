"""How the benchmark scripts print their results: one Markdown table per question."""

from __future__ import annotations

from typing import Any, List


def table(title: str, header: List[str], rows: List[List[Any]]) -> None:
    """Prints ``rows`` under ``header`` as a Markdown table headed ``## title``: the first column
    left-aligned, the others right-aligned."""
    print(f"\n## {title}\n")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def line(row: List[Any]) -> str:
        cells = (str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(row, widths)))
        return "| " + " | ".join(cells) + " |"

    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
