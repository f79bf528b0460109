"""Leave-one-out over ../shared/chat-templates: for every template, the format is inferred from the
template alone (`FormatSpec.from_template`), then the renders of varied calls (nested values,
unicode, quotes and markers inside strings, empty arguments, parallel calls) are parsed with that
spec and the built-in formats off (`formats=[]`). The report (one row per template, written to
build/template-report.md and printed) counts the renders read back exactly.

Every template is either read back whole, or listed in MISSES with what it fails on: a template
that starts to read back fails the test until its entry goes, and so does a listed one that
fails otherwise than it says.

The same runs over tests/fixtures/template/unseen: templates written here in the styles of models
whose own template is not among the shared ones (their formats from the format reference), a
stand-in for models released after the inference was written. They must all read back whole."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import beacon
import pytest
from beacon import FormatSpec, ToolCallError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "template"))

import _spec_cases  # noqa: E402

TEMPLATES = ROOT.parent / "shared" / "chat-templates"
UNSEEN = ROOT / "tests" / "fixtures" / "template" / "unseen"

#: Templates that do not read back, and the coded error that says why (inference, or the spec's
#: use). Every other template must read back every render.
MISSES: Dict[str, str] = {
    # The first call's `>>>` is the prompt's: its calls have no opening marker of their own.
    "meetkai-functionary-medium-v3.2": "result.unsupported",
    # The opening marker ` to=functions.` has no `<`, `[` or `>` (the built-in `harmony` reads it).
    "openai-gpt-oss-120b": "result.unsupported",
}

#: Templates that write no tool call at all, or fail to render in jinja2 too: nothing to read back.
NO_CALLS = {
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": "template.no_tool_calls",
    # Its system prompt asks for `<|tool_call|>` and a JSON list, but an assistant turn with
    # tool_calls renders without them.
    "ibm-granite-granite-3.3-2B-Instruct": "template.no_tool_calls",
    "CohereForAI-c4ai-command-r-plus-tool_use": "template.render",
    "fireworks-ai-llama-3-firefunction-v2": "template.render",
}


def names() -> List[str]:
    return sorted(p.stem for p in TEMPLATES.glob("*.jinja"))


def unseen_names() -> List[str]:
    return sorted(p.stem for p in UNSEEN.glob("*.jinja"))


def read_back(name: str) -> Tuple[Optional[str], int, int, List[str]]:
    """The template's error code (None when its spec read), renders read back, renders, and what
    went wrong with the others."""
    try:
        source = Path(_spec_cases._render.template_path(name)).read_text("utf-8")
        spec = FormatSpec.from_template(source, bos_token="<s>", eos_token="</s>")
    except ToolCallError as e:
        return e.code, 0, 0, []
    good, total, wrong, code = 0, 0, [], None
    repaired: List[str] = []
    for case, calls in _spec_cases.CASES.items():
        try:
            text, written = _spec_cases.render(name, calls)
        except Exception:  # noqa: BLE001 - a template that cannot render a case (jinja2's own error)
            continue
        total += 1
        tools = [t["function"] for t in _spec_cases.tools(calls)]
        try:
            got = beacon.parse_tool_calls(text, formats=[], template=spec, tools=tools)
        except ToolCallError as e:
            # A template may write text its own format cannot read (LFM2.5 puts a quote or a line
            # break in a Python string as it is): strict parsing raises; counted as read back
            # only when repair mends it, every repair reported.
            try:
                got = beacon.parse_tool_calls(text, formats=[], template=spec, tools=tools, repair=True)
            except ToolCallError:
                got = None
            if got is None or not all(c.get("repairs") for c in got):
                code = code or e.code
                wrong.append(f"{case}: {e.code} at {e.position}")
                continue
            repaired.append(f"{case} ({e.code})")
        # Where the template writes the call's id, it is read back too (one that numbers its
        # calls itself, as Kimi K2 does, writes the number: that is the id then).
        given = [f"call{i}Xyz9" for i in range(len(got))]
        wants = given if given and given[0] in text else [str(i) for i in range(len(got))]
        ids = [c.get("id", wants[i]) for i, c in enumerate(got)]
        if [(c["name"], c["arguments"]) for c in got] == written and ids == wants:
            good += 1
        else:
            wrong.append(f"{case}: read {got!r}")
    if repaired:
        wrong.append("with repair: " + ", ".join(repaired))
        good_strict[name] = good - len(repaired)
    return code, good, total, wrong


#: Per template, the renders read back without repair, where some needed it.
good_strict: Dict[str, int] = {}


@pytest.fixture(scope="module")
def report() -> Dict[str, Tuple[Optional[str], int, int, List[str]]]:
    rows = {name: read_back(name) for name in names()}
    unseen = {name: read_back(name) for name in unseen_names()}
    lines = ["| template | read back | note |", "| --- | --- | --- |"]
    for name, (code, good, total, wrong) in [*rows.items(), *unseen.items()]:
        name = f"{name} (written here)" if name in unseen else name
        share = f"{good}/{total}" if total else "—"
        note = code or ("; ".join(wrong[:3]) if wrong else "")
        lines.append(f"| {name} | {share} | {note} |")
    counted = [r for n, r in rows.items() if n not in NO_CALLS]
    good = sum(r[1] for r in counted)
    total = sum(r[2] if r[2] else len(_spec_cases.CASES) for r in counted)
    lines.append("")
    mended = sum(r[1] - good_strict[n] for n, r in rows.items() if n in good_strict)
    lines.append(f"{good} of {total} renders read back ({100 * good / total:.1f}%; {mended} of them the template "
                 f"writes invalidly, read with repair), over {len(counted)} templates that write calls (a template "
                 f"whose format is not inferred counts every case as a miss).")
    lines.append(f"Written here in the styles of models without a shared template: "
                 f"{sum(r[1] for r in unseen.values())} of {sum(r[2] for r in unseen.values())} renders read back, "
                 f"over {len(unseen)} templates.")
    text = "\n".join(lines) + "\n"
    out = ROOT / "build" / "template-report.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text, "utf-8")
    print("\n" + text)
    return {**rows, **unseen}


def test_every_template_is_reported(report) -> None:
    assert len(report) >= 40
    assert set(MISSES) <= set(report) and set(NO_CALLS) <= set(report)


@pytest.mark.parametrize("name", names())
def test_the_inferred_format_reads_the_templates_renders_back(report, name: str) -> None:
    code, good, total, wrong = report[name]
    if name in NO_CALLS:
        assert code == NO_CALLS[name]
    elif name in MISSES:
        assert code == MISSES[name], f"{name} now fails otherwise ({code}; {wrong}) or reads back: update MISSES"
    else:
        assert code is None and total >= 8 and good == total, (name, code, wrong)
        assert name not in good_strict or name in NEEDS_REPAIR, (name, wrong)


@pytest.mark.parametrize("name", unseen_names())
def test_templates_in_styles_not_shared_read_back(report, name: str) -> None:
    code, good, total, wrong = report[name]
    assert code is None and total == len(_spec_cases.CASES) and good == total, (name, code, wrong)
    assert name not in good_strict, (name, wrong)


def test_there_are_unseen_templates() -> None:
    assert len(unseen_names()) >= 12


#: Templates that write some calls their own format cannot read strictly (see read_back).
NEEDS_REPAIR = {"LFM2.5-8B-A1B"}
