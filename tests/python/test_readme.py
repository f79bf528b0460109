"""The Python examples of README.md and of every docs/*.md page are doctests: the documentation
must match behaviour. Each page runs on its own (its examples import what they use), and a page
that has examples must keep at least as many as it has now, so that a broken fence (an example
doctest no longer sees) fails instead of passing quietly."""

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The fewest `>>>` examples doctest must attempt in each page; a page not listed here must have
# none (add it here when it gains some).
MIN_ATTEMPTED = {
    "README.md": 5,
    "docs/datasets.md": 5,
    "docs/providers.md": 5,
    "docs/python.md": 4,
    "docs/repair.md": 5,
    "docs/streaming.md": 10,
    "docs/templates.md": 4,
    "docs/tools.md": 8,
}

PAGES = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


def test_every_page_is_checked() -> None:
    assert set(MIN_ATTEMPTED) <= set(PAGES), sorted(set(MIN_ATTEMPTED) - set(PAGES))
    assert len(PAGES) >= 9, PAGES


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page: str) -> None:
    result = doctest.testfile(str(ROOT / page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{page}: {result.failed} example(s) failed (doctest's report is above)"
    want = MIN_ATTEMPTED.get(page, 0)
    if want:
        assert result.attempted >= want, f"{page} lost its Python examples ({result.attempted} < {want})"
    else:
        assert result.attempted == 0, f"{page} has Python examples now: list it in MIN_ATTEMPTED"
