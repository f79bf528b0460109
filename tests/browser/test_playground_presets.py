"""The playground's first screen (issue 25): the open-model presets are exactly what each model
writes (its chat template, rendered with jinja2: tests/browser/model_presets.py) and parse to the
calls, content and reasoning expected; the one-shot view shows content and reasoning; the status
says what happened; the page links to the docs; and "copy as code" gives a Python and a
JavaScript program that reproduce the parse (both are run here, against the built packages).

The rendering needs the real chat templates: $BEACON_CHAT_TEMPLATES, or ../shared/chat-templates
beside the repository (as tests/python/test_fixture_authoring.py does).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conftest import BUILT_PKG, ROOT
from model_presets import MODEL_PRESETS, ModelPreset, rendered
from test_playground import output_calls

TEMPLATES = Path(os.environ.get("BEACON_CHAT_TEMPLATES") or ROOT.parent / "shared" / "chat-templates")
STATUS_OK = re.compile(r"^Parsed (\d+) calls? in \d+(\.\d+)? (ms|µs)$")
DOCS = ["formats", "providers", "tools", "streaming", "datasets", "errors", "performance", "conformance"]


def click(page: Page, label: str) -> None:
    page.get_by_role("button", name=label, exact=True).click()


# ------------------------------------------------------------------------------- model presets


@pytest.mark.parametrize("preset", MODEL_PRESETS, ids=[p.key for p in MODEL_PRESETS])
def test_model_preset_is_what_the_template_renders(page: Page, preset: ModelPreset):
    assert (TEMPLATES / f"{preset.template}.jinja").is_file(), (
        f"{TEMPLATES / preset.template}.jinja is missing: set BEACON_CHAT_TEMPLATES or put "
        "shared/chat-templates beside the repository"
    )
    page.locator("#include-format").check()
    click(page, preset.label)
    assert page.locator("#input").input_value() == rendered(preset), (
        "the preset in playground/app.js is not the template's rendering: paste what "
        "`python tests/browser/model_presets.py` prints"
    )
    assert output_calls(page) == preset.calls
    # Content and reasoning are shown in the one-shot view.
    if preset.content:
        assert page.locator("#message-content").text_content() == preset.content
    else:
        expect(page.locator("#message-content")).to_have_count(0)
    if preset.reasoning:
        assert page.locator("#message-reasoning").text_content() == preset.reasoning
    else:
        expect(page.locator("#message-reasoning")).to_have_count(0)
    status = page.locator("#status").inner_text()
    m = STATUS_OK.match(status)
    assert m and int(m.group(1)) == len(preset.calls), status
    expect(page.get_by_role("button", pressed=True)).to_have_text(preset.label)


def test_model_presets_stream_to_the_one_shot_parse(page: Page):
    page.locator("#stream").check()
    for preset in MODEL_PRESETS:
        click(page, preset.label)
        expect(page.locator("#stream-check")).to_have_class(re.compile(r"\bok\b"), timeout=20_000)
        expect(page.locator("#status")).to_have_text(
            re.compile(rf"^Streamed {len(preset.calls)} calls? in \d+ ticks?, as the one-shot parse$"))


# ------------------------------------------------------------------------------- status


def test_status_says_what_happened(page: Page):
    status = page.locator("#status")
    expect(status).to_have_text(STATUS_OK)
    assert status.inner_text() != "Idle"
    click(page, "Hermes / Qwen")
    expect(status).to_have_text(re.compile(r"^Parsed 2 calls in "))
    click(page, "Broken")
    code = page.locator("#error-code").inner_text()
    expect(status).to_have_text(re.compile(rf"^Error {re.escape(code)} at line \d+, column \d+ \(in "))
    expect(status).to_have_class(re.compile(r"\bfailed\b"))
    page.locator("#input").fill("Just prose, no call.")
    expect(status).to_have_text(re.compile(r"^No tool call found \(tool_call\.not_found\) in "))
    expect(status).not_to_have_class(re.compile(r"\bfailed\b"))
    click(page, "Anthropic response")
    expect(status).to_have_text(re.compile(r"^Read 2 calls from the response \(anthropic\) in "))


# ------------------------------------------------------------------------------- docs links


def test_links_to_the_docs(page: Page):
    links = page.locator("#docs-links a")
    expect(links).to_have_count(len(DOCS))
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    # Relative to playground/index.html in the repository: the repository's docs/NAME.md.
    assert hrefs == [f"../docs/{name}.md" for name in DOCS]
    for i in range(links.count()):
        assert links.nth(i).inner_text().strip()


# ------------------------------------------------------------------------------- copy as code


def python_result(code: str) -> dict:
    """Runs the Python snippet with the package built into .venv; what it computed."""
    probe = code + "\nimport json as _j, sys as _s\n_s.stdout.write('\\n@@' + _j.dumps({k: v for k, v in dict(globals()).items() if k in ('calls', 'message', 'events')}))\n"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.rsplit("\n@@", 1)[1])


def js_result(code: str, tmp_path: Path) -> dict:
    """Runs the JavaScript snippet with the built npm package (build/pkg-web as
    node_modules/beacon-toolcall); what it computed."""
    modules = tmp_path / "node_modules"
    modules.mkdir(exist_ok=True)
    link = modules / "beacon-toolcall"
    if not link.exists():
        link.symlink_to(BUILT_PKG, target_is_directory=True)
    probe = code + "\nprocess.stdout.write('\\n@@' + JSON.stringify({ calls: typeof calls === 'undefined' ? undefined : calls, message: typeof message === 'undefined' ? undefined : message }, (k, v) => typeof v === 'bigint' ? Number(v) : v));\n"
    main = tmp_path / "snippet.mjs"
    main.write_text(probe, encoding="utf-8")
    proc = subprocess.run(["node", str(main)], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.rsplit("\n@@", 1)[1])


def snippet(page: Page, lang: str) -> str:
    page.get_by_role("tab", name="Python" if lang == "python" else "JavaScript").click()
    expect(page.locator("#code")).to_have_attribute("data-lang", lang)
    return page.locator("#code").inner_text()


@pytest.mark.parametrize("label", [p.label for p in MODEL_PRESETS] + ["Python call", "Hermes / Qwen"])
def test_copy_as_code_reproduces_the_parse(page: Page, tmp_path: Path, label: str):
    page.locator("#include-format").check()
    click(page, label)
    shown = output_calls(page)
    content = page.locator("#message-content")
    reasoning = page.locator("#message-reasoning")
    want_content = content.text_content() if content.count() else ""
    want_reasoning = reasoning.text_content() if reasoning.count() else None

    py = snippet(page, "python")
    assert "include_format=True" in py and py.startswith("import beacon\n")
    got = python_result(py)
    # The Python package returns the calls in the same shape (Kimi's ids included).
    assert got["calls"] == shown
    assert got["message"]["content"] == want_content
    assert got["message"]["reasoning"] == want_reasoning

    js = snippet(page, "js")
    assert "{ includeFormat: true }" in js and js.startswith("import { parseToolCalls, parseMessage } from 'beacon-toolcall';")
    got = js_result(js, tmp_path)
    assert got["calls"] == shown
    assert got["message"]["content"] == want_content
    assert got["message"]["reasoning"] == want_reasoning

    # Without include format, neither snippet passes the option.
    page.locator("#include-format").uncheck()
    assert "include_format" not in snippet(page, "python")
    assert "includeFormat" not in snippet(page, "js")


def test_copy_as_code_for_a_response_and_a_stream(page: Page, tmp_path: Path):
    click(page, "Bedrock response")
    py = snippet(page, "python")
    assert "beacon.parse_response(text)" in py
    assert python_result(py)["calls"] == output_calls(page)
    js = snippet(page, "js")
    assert "parseResponse(text)" in js
    assert js_result(js, tmp_path)["calls"] == output_calls(page)

    click(page, "Kimi K2")
    page.locator("#stream").check()
    py = snippet(page, "python")
    assert "beacon.ToolCallStream(" in py
    events = python_result(py)["events"]
    assert [e["type"] for e in events if e["type"] in ("call_start", "call_end")] == ["call_start", "call_end"] * 2
    assert "new ToolCallStream(" in snippet(page, "js")


def test_copy_code_button(page: Page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    click(page, "GLM 4.6")
    page.locator("#copy-code").click()
    expect(page.locator("#copy-code")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == page.locator("#code").inner_text()


def test_serve_script_serves_the_docs_beside_the_playground(tmp_path: Path):
    """scripts/serve-playground.py (what scripts/serve.sh runs) serves playground/ at / and docs/ at
    /docs/, so the page's ../docs/NAME.md links resolve from the served page; nothing outside."""
    import functools
    import http.server
    import importlib.util
    import threading
    import urllib.error
    import urllib.request

    spec = importlib.util.spec_from_file_location("serve_playground", ROOT / "scripts" / "serve-playground.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "formats.md").write_text("# Formats\n", encoding="utf-8")
    module.DOCS = tmp_path
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(module.Handler, directory=str(module.PLAYGROUND)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(f"{base}/docs/formats.md", timeout=10) as r:
            assert r.read() == b"# Formats\n" and r.headers["Content-Type"] == "text/plain; charset=utf-8"
        with urllib.request.urlopen(f"{base}/", timeout=10) as r:
            assert b'href="../docs/formats.md"' in r.read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/docs/%2e%2e/%2e%2e/pyproject.toml", timeout=10)
    finally:
        server.shutdown()
        server.server_close()
