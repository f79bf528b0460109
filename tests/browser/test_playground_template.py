"""The playground's chat-template box: a pasted template's format is inferred in the page (the
package's template module, loaded on first use), shown as its spec, and read by the parses."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

import beacon

ROOT = Path(__file__).resolve().parents[2]
CHAT_TEMPLATES = ROOT.parent / "shared" / "chat-templates"

# A format no built-in family reads: one call per `[[call NAME]]` … `[[/call]]` block.
NEW_MODEL = (
    "{% for m in messages %}{% if m.tool_calls %}{% for c in m.tool_calls %}"
    "[[call {{ c.function.name }}]]{{ c.function.arguments | tojson }}[[/call]]"
    "{% endfor %}{% else %}{{ m.content }}{% endif %}{% endfor %}"
)
NEW_MODEL_OUTPUT = 'Checking. [[call get_weather]]{"city": "Paris"}[[/call]][[call get_time]]{"tz": "CET"}[[/call]]'


def infer(page: Page, template: str) -> None:
    page.locator("#template-summary").click()
    page.locator("#template").fill(template)
    page.locator("#infer-template").click()


def test_a_pasted_template_is_inferred_and_read_by_the_parse(page: Page):
    page.locator("#input").fill(NEW_MODEL_OUTPUT)
    expect(page.locator("#error-code")).to_have_text("tool_call.not_found")
    infer(page, NEW_MODEL)
    spec = page.locator("#template-spec")
    expect(spec).to_be_visible(timeout=15_000)
    assert json.loads(spec.inner_text()) == beacon.FormatSpec.from_template(NEW_MODEL).describe()
    expect(page.locator("#json")).to_be_visible()
    calls = json.loads(page.locator("#json").inner_text())
    assert calls == [
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "get_time", "arguments": {"tz": "CET"}},
    ]
    page.locator("#include-format").check()
    assert {c["format"] for c in json.loads(page.locator("#json").inner_text())} == {"spec"}
    expect(page.locator("#message-content")).to_have_text("Checking.")
    # The snippet writes the spec out, so it runs without the template.
    expect(page.locator("#code")).to_contain_text("beacon.FormatSpec.from_dict(json.loads(")
    # Streamed with the spec, the replay equals the one-shot parse.
    page.locator("#stream").check()
    check = page.locator("#stream-check")
    expect(check).to_be_visible(timeout=20_000)
    expect(check).to_have_class(re.compile(r"\bok\b"))
    expect(page.locator("#stream-calls .stream-call")).to_have_count(2)
    page.locator("#stream").uncheck()
    # Stopping: the built-in formats alone find no call again.
    page.locator("#clear-template").click()
    expect(page.locator("#error-code")).to_have_text("tool_call.not_found")


def test_a_real_template_gives_the_spec_the_python_package_infers(page: Page):
    source = (CHAT_TEMPLATES / "Qwen3-Coder.jinja").read_text(encoding="utf-8")
    infer(page, source)
    spec = page.locator("#template-spec")
    expect(spec).to_be_visible(timeout=15_000)
    assert json.loads(spec.inner_text()) == beacon.FormatSpec.from_template(source).describe()
    text = "<tool_call>\n<function=ls>\n<parameter=path>\n/tmp\n</parameter>\n</function>\n</tool_call>"
    page.locator("#template-only").check()
    page.locator("#include-format").check()
    page.locator("#input").fill(text)
    assert json.loads(page.locator("#json").inner_text()) == [{"name": "ls", "arguments": {"path": "/tmp"}, "format": "spec"}]


def test_a_template_that_cannot_be_read_shows_its_coded_error(page: Page):
    infer(page, "{% for m in messages %}\n{% if %}")
    expect(page.locator("#template-error-code")).to_have_text("template.render", timeout=15_000)
    expect(page.locator("#template-error-message")).to_contain_text("line 2")
    page.locator("#template").fill("{% for m in messages %}{{ m.content }}{% endfor %}")
    page.locator("#infer-template").click()
    expect(page.locator("#template-error-code")).to_have_text("template.no_tool_calls")
    expect(page.locator("#template-meta")).to_have_text("no format inferred")
