"""The tables of README.md and docs/ that copy a list the core keeps — error codes, format ids,
provider ids — must list exactly the core's ids, so that a code, format or provider added to the
core and left out of the documents (or a documented one the core dropped) fails here."""

import re
import typing
from pathlib import Path
from typing import List, Set

import beacon

ROOT = Path(__file__).resolve().parents[2]

# Codes that are not the core's: raised by the `beacon` command itself (python/beacon/_cli.py).
CLI_CODES = {"input.unreadable"}


def core_error_codes() -> Set[str]:
    """The core's error codes: the `beacon.ErrorCode` Literal when the package has one (it is tied
    to `ErrorCode::ALL` by its own test), else the strings of `ErrorCode::as_str` in the core's
    source, wherever the enum lives."""
    literal = getattr(beacon, "ErrorCode", None)
    if literal is not None:
        return set(typing.get_args(literal))
    for path in sorted((ROOT / "core/src").rglob("*.rs")):
        source = path.read_text(encoding="utf-8")
        if "pub enum ErrorCode" in source:
            body = source.split("fn as_str", 1)[1].split("\n    }\n", 1)[0]
            codes = set(re.findall(r'=> "([a-z_0-9.]+)"', body))
            assert len(codes) >= 20, (path, codes)
            return codes
    raise AssertionError("no `pub enum ErrorCode` under core/src")


def table_rows(text: str, header: str) -> List[List[str]]:
    """The cells of each row of the Markdown table whose header line starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        # a bar escaped as `\|` or inside `code` is not a cell border when unspaced
        rows.append([c.strip() for c in re.split(r"\s\|\s", line.strip()[1:-1])])
    assert rows, header
    return rows


def first_code(cell: str) -> str:
    found = re.match(r"`([^`]+)`", cell)
    assert found, cell
    return found.group(1)


def read(page: str) -> str:
    return (ROOT / page).read_text(encoding="utf-8")


def test_readme_errors_table_lists_every_code() -> None:
    codes = [first_code(r[0]) for r in table_rows(read("README.md"), "| code | when |")]
    assert len(codes) == len(set(codes)), codes
    assert set(codes) == core_error_codes() | CLI_CODES


def test_docs_errors_table_lists_every_code() -> None:
    codes = [first_code(r[0]) for r in table_rows(read("docs/errors.md"), "| Code | When |")]
    assert len(codes) == len(set(codes)), codes
    assert set(codes) == core_error_codes() | CLI_CODES


def test_formats_table_lists_every_format() -> None:
    """docs/formats.md's tier table: one row per format id (grouped by family, tier by tier)."""
    ids = [first_code(r[1]) for r in table_rows(read("docs/formats.md"), "| Tier | Format id | Example |")]
    assert len(ids) == len(set(ids)), ids
    assert set(ids) == set(beacon.FORMATS)
    assert ids[-2:] == ["json", "python"]
    assert set(beacon.FORMATS) == set(typing.get_args(beacon.Format))


def test_model_table_names_every_format() -> None:
    """The README's model table: every format id it names exists, and every format is named."""
    rows = table_rows(read("README.md"), "| model family | format id |")
    named = {i for r in rows for i in re.findall(r"`([a-z0-9_]+)`", r[1])}
    assert named == set(beacon.FORMATS)


def test_provider_tables_list_every_provider() -> None:
    providers = read("docs/providers.md")
    for header in (
        "| provider | calls | id (what the API wants back) |",
        "| provider | the message | text (`content`) | id |",
        "| provider | one result becomes | requires |",
    ):
        ids = [c.strip("`") for r in table_rows(providers, header) for c in re.findall(r"`[a-z0-9_]+`", r[0])]
        assert sorted(ids) == sorted(beacon.PROVIDERS), header  # one row each (the last may name two)
    listed = re.search(r"`Provider::\{as_str, parse, ALL\}` \| ids (.*) \|", providers)
    assert listed, "the Rust table's Provider row"
    assert re.findall(r"`([a-z0-9_]+)`", listed.group(1)) == list(beacon.PROVIDERS)
    assert set(beacon.PROVIDERS) == set(typing.get_args(beacon.Provider))


def test_fixtures_readme_lists_every_format() -> None:
    text = read("tests/fixtures/README.md")
    listed = re.search(r"<!-- format ids -->(.*?)<!-- /format ids -->", text, re.S)
    assert listed, "tests/fixtures/README.md lost its list of format ids"
    assert re.findall(r"`([a-z0-9_]+)`", listed.group(1)) == list(beacon.FORMATS)


def test_fixtures_readme_lists_every_file_and_folder() -> None:
    """tests/fixtures/README.md names every fixture file (`NAME.json` in its Files tables) and
    every subfolder (`NAME/`), and names none that does not exist."""
    fixtures = ROOT / "tests/fixtures"
    text = read("tests/fixtures/README.md")
    files_section = text.split("\n## Files\n", 1)[1].split("\n## ", 1)[0]
    named_files = set(re.findall(r"`([a-z0-9_]+\.json)`", files_section))
    named_folders = set(re.findall(r"^\| `([a-z0-9_]+)/`", files_section, re.M))
    files = {p.name for p in fixtures.glob("*.json")}
    folders = {p.name for p in fixtures.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert files - named_files == set(), "fixture files the README does not list"
    assert named_files - files - {"scan.json"} == set(), "the README lists fixture files that do not exist"
    assert named_folders == folders
    for author in sorted((fixtures / "authors").glob("*.py")):
        assert f"`authors/{author.name}`" in files_section, f"the README does not say what {author.name} writes"


def test_python_page_names_every_export() -> None:
    """docs/python.md names every public name of the package (`beacon.__all__`)."""
    text = read("docs/python.md")
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", text))
    assert set(beacon.__all__) - named == set()
