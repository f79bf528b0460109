"""The README's Python examples are doctests: the documentation must match behaviour."""

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_examples_run():
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5, "the README lost its Python examples"
    assert result.failed == 0
