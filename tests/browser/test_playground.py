"""Browser tests of the playground (playground/), in Debian's Chromium driven by Playwright.

The fixtures (the server, Chromium, a loaded page) are in conftest.py. Every test fails on any
console error.
The shared fixtures (tests/fixtures/*.json and tests/fixtures/providers/*.json) also run inside
the page, through the module the page loaded, with the same checks as the Node tests
(tests/js/fixture-lib.mjs and tests/js/provider-fixture-lib.mjs).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conftest import READY
from model_presets import MODEL_PRESETS

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
PROVIDER_FIXTURES = FIXTURES / "providers"
SCREENSHOTS = ROOT / "build" / "screenshots"
LOADING = "Loading beacon's Rust core (WebAssembly)…"

# (preset button, first call's name, format, number of calls); None for an error.
PRESETS = [
    ("Python call", "search", "python", 1),
    ("Hermes / Qwen", "get_weather", "hermes", 2),
    ("Mistral", "get_current_weather", "mistral", 1),
    ("Llama 3", "get_stock_price", "llama", 1),
    ("OpenAI JSON", "create_ticket", "json", 1),
    ("XML invoke", "search_docs", "xml_invoke", 1),
    ("Broken", None, None, None),
]

# (provider preset button, detected provider, the calls' (id, name)).
PROVIDER_PRESETS = [
    (
        "OpenAI response",
        "openai_chat",
        [("call_Vx9f2kq1ZpL0mT7sRb3W", "get_weather"), ("call_Q3n8rW5yHb2cJd4eTn6K", "get_weather")],
    ),
    (
        "Anthropic response",
        "anthropic",
        [("toolu_01A09q90qw90lq917835lq9", "search_flights"), ("toolu_01B7c5Lm2Qx8Rz4Tn6Vp3Wk1", "check_hotel")],
    ),
    ("Gemini response", "gemini", [(None, "set_light_values")]),
    ("Bedrock response", "bedrock", [("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_stock_price")]),
]

def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


# ------------------------------------------------------------------------------- helpers


def output_calls(page: Page) -> list[dict]:
    """The calls shown in the Output panel (the page prints them as JSON)."""
    return json.loads(page.locator("#json").inner_text())


# ------------------------------------------------------------------------------- tests


def test_loads_with_title_pitch_and_status(browser, base_url, playground_pkg):
    context = browser.new_context()
    pg = context.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("pageerror", lambda e: errors.append(str(e)))
    # Hold the .wasm back to see the loading state, then let it through.
    held = []
    pg.route("**/*.wasm", lambda route: held.append(route))
    pg.goto(base_url, wait_until="domcontentloaded")
    expect(pg.locator("#status")).to_have_text(LOADING)
    expect(pg.locator("#run-bench")).to_be_disabled()
    for _ in range(100):
        if held:
            break
        pg.wait_for_timeout(100)
    assert held, "the page never requested the .wasm"
    expect(pg.locator("#status")).to_have_text(LOADING)
    held[0].continue_()
    expect(pg.locator("#status")).to_have_class(READY, timeout=15_000)
    # The status says what the first parse did (never a constant "Idle").
    expect(pg.locator("#status")).to_have_text(re.compile(r"^Parsed 1 call in \d+(\.\d+)? (ms|µs)$"))
    expect(pg.locator("h1")).to_have_text("beacon")
    expect(pg.locator(".pitch")).to_have_text(
        "Every vendor writes tool calls differently. One parser, documented format detection, "
        "strict arguments."
    )
    expect(pg.locator("body")).to_contain_text(
        "Same Rust core as the Python package, compiled to WebAssembly"
    )
    expect(pg.locator("#input")).to_have_value(
        'I will look that up. search(query="rust async", limit=5)'
    )
    assert output_calls(pg) == [{"name": "search", "arguments": {"query": "rust async", "limit": 5}}]
    context.close()
    assert not errors, errors


def test_preset_buttons_exactly(page: Page):
    rows = page.locator("nav.presets")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator(".presets-label")).to_have_text("Open models")
    assert rows.nth(0).locator("button.preset").all_inner_texts() == [p.label for p in MODEL_PRESETS]
    expect(rows.nth(1).locator(".presets-label")).to_have_text("Model output")
    assert rows.nth(1).locator("button.preset").all_inner_texts() == [p[0] for p in PRESETS]
    expect(rows.nth(2).locator(".presets-label")).to_have_text("Provider responses")
    assert rows.nth(2).locator("button.preset").all_inner_texts() == [p[0] for p in PROVIDER_PRESETS]
    # The rows' first buttons line up.
    first = [rows.nth(i).locator("button.preset").first.bounding_box() for i in range(3)]
    assert all(first) and max(b["x"] for b in first) - min(b["x"] for b in first) < 1


@pytest.mark.parametrize("label,name,fmt,count", PRESETS, ids=[p[0] for p in PRESETS])
def test_preset(page: Page, label, name, fmt, count):
    page.locator("#include-format").check()
    page.get_by_role("button", name=label, exact=True).click()
    text = page.locator("#input").input_value()
    assert text.strip(), "the preset fills the textarea"
    if name is None:
        expect(page.locator("#error-code")).to_have_text(re.compile(r"^(json|tool_call)\.[a-z_]+$"))
        code = page.locator("#error-code").inner_text()
        assert code != "tool_call.not_found"
        mark = page.locator("#highlights mark")
        expect(mark).to_have_count(1)
        position = int(mark.get_attribute("data-position"))
        assert mark.get_attribute("data-char") == text[position]  # ASCII preset: same indices
        expect(page.locator("#error-where")).to_contain_text("line ")
        return
    calls = output_calls(page)
    assert len(calls) == count
    assert calls[0]["name"] == name
    assert {c["format"] for c in calls} == {fmt}
    assert all(isinstance(c["arguments"], dict) and c["arguments"] for c in calls)
    expect(page.locator("#highlights mark")).to_have_count(0)
    page.locator("#include-format").uncheck()
    assert all("format" not in c for c in output_calls(page))


@pytest.mark.parametrize("label,provider,calls", PROVIDER_PRESETS, ids=[p[0] for p in PROVIDER_PRESETS])
def test_provider_preset(page: Page, label, provider, calls):
    page.get_by_role("button", name=label, exact=True).click()
    text = page.locator("#input").input_value()
    assert json.loads(text), "the preset fills the textarea with a response JSON"
    expect(page.locator("#provider")).to_have_text(provider)
    n = len(calls)
    expect(page.locator("#output-meta")).to_contain_text(f"{n} call{'' if n == 1 else 's'} · {provider} · ")
    shown = output_calls(page)
    assert [(c["id"], c["name"]) for c in shown] == calls
    assert all(list(c) == ["id", "name", "arguments"] and c["arguments"] for c in shown)
    expect(page.locator("#input-label")).to_have_text("Provider response")
    expect(page.locator("#include-format")).to_be_disabled()
    expect(page.locator("#highlights mark")).to_have_count(0)
    # The page's result is the package's parseResponse on that text.
    assert page.evaluate(
        "async (t) => (await import('/pkg/index.js')).parseResponse(t)", text
    ) == shown
    # Back to model output: parseToolCalls again, format toggle on.
    page.get_by_role("button", name="Hermes / Qwen", exact=True).click()
    expect(page.locator("#input-label")).to_have_text("LLM output")
    expect(page.locator("#include-format")).to_be_enabled()
    expect(page.locator("#provider")).to_have_count(0)
    assert [c["name"] for c in output_calls(page)] == ["get_weather", "get_weather"]


def test_pasted_response_is_detected(page: Page):
    """Typed or pasted text is a provider response when detectProvider recognises it."""
    textarea = page.locator("#input")
    ollama = {
        "model": "qwen3",
        "created_at": "2025-05-01T10:00:00Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        },
        "done": True,
    }
    textarea.fill(json.dumps(ollama, indent=2))
    expect(page.locator("#provider")).to_have_text("ollama")
    assert output_calls(page) == [{"id": None, "name": "get_weather", "arguments": {"city": "Paris"}}]
    # Model output that starts with a bracket is not a response.
    textarea.fill('[TOOL_CALLS] [{"name": "f", "arguments": {"x": 1}}]')
    expect(page.locator("#input-label")).to_have_text("LLM output")
    assert output_calls(page) == [{"name": "f", "arguments": {"x": 1}}]
    # JSON of no known API is model output too (the JSON call shape here).
    textarea.fill('{"name": "f", "arguments": {"x": 1}}')
    expect(page.locator("#provider")).to_have_count(0)
    assert output_calls(page) == [{"name": "f", "arguments": {"x": 1}}]


def test_editing_a_response_into_malformed_json_marks_the_error(page: Page):
    page.get_by_role("button", name="Anthropic response", exact=True).click()
    textarea = page.locator("#input")
    text = textarea.input_value()
    broken = text.replace('"nights": 5,', '"nights": 5,,', 1)
    assert broken != text
    textarea.fill(broken)
    expect(page.locator("#error-code")).to_have_text("json.unexpected_token")
    expect(page.locator("#input-label")).to_have_text("Provider response")
    mark = page.locator("#highlights mark")
    expect(mark).to_have_count(1)
    assert int(mark.get_attribute("data-position")) == broken.index(",,") + 1
    # A broken call inside a valid response: the path in the message, the mark in the string.
    bad_args = text.replace('"id": "toolu_01A09q90qw90lq917835lq9"', '"id": 7', 1)
    textarea.fill(bad_args)
    expect(page.locator("#error-code")).to_have_text("tool_call.unrecognized")
    expect(page.locator("#error-message")).to_contain_text("content[1].id")
    expect(page.locator("#provider")).to_have_text("anthropic")
    textarea.fill(text)
    expect(page.locator("#output-meta")).to_contain_text("2 calls · anthropic")


def test_typing_a_broken_call_marks_the_offending_character(page: Page):
    textarea = page.locator("#input")
    textarea.fill("")
    prefix = "Voilà 🙂\nOK: "
    text = prefix + 'get_weather(city="Paris", city="Lyon")'
    textarea.press_sequentially(text)
    expect(page.locator("#error-code")).to_have_text("tool_call.duplicate_argument")
    mark = page.locator("#highlights mark")
    expect(mark).to_have_count(1)
    second = text.index('city="Lyon"')
    assert mark.get_attribute("data-char") == "c"
    assert mark.inner_text() == "c"
    assert int(mark.get_attribute("data-position")) == utf16_len(text[:second])
    column = second - (text.rindex("\n", 0, second) + 1) + 1
    expect(page.locator("#error-where")).to_contain_text(f"line 2, column {column}")
    # The mark sits under the character in the textarea: same line box as the caret there.
    box = mark.bounding_box()
    area = textarea.bounding_box()
    assert box and area and area["x"] <= box["x"] < area["x"] + area["width"]
    assert area["y"] <= box["y"] < area["y"] + area["height"]

    # Fixing it clears the error and the mark, while typing.
    textarea.press("End")
    for _ in range(len(', city="Lyon")')):
        textarea.press("Backspace")
    textarea.press_sequentially(")")
    assert output_calls(page) == [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    expect(page.locator("#highlights mark")).to_have_count(0)


def test_unclosed_call_marks_end_of_text(page: Page):
    page.locator("#input").fill('search(query="rust async", limit=5')
    expect(page.locator("#error-code")).to_have_text("tool_call.unclosed")
    expect(page.locator("#highlights mark")).to_have_count(1)


def test_no_call_is_not_found_without_mark(page: Page):
    page.locator("#input").fill("Sure! Paris is sunny today.")
    expect(page.locator("#error-code")).to_have_text("tool_call.not_found")
    expect(page.locator(".error-class")).to_have_text("NoToolCallFoundError")
    expect(page.locator("#highlights mark")).to_have_count(0)


def test_bigint_shown_exactly(page: Page):
    page.locator("#input").fill('f(id=123456789012345678901234567890, n=9007199254740993)')
    shown = page.locator("#json").inner_text()
    assert "123456789012345678901234567890" in shown and "9007199254740993" in shown


def test_run_1000(page: Page):
    page.get_by_role("button", name="Run 1,000×").click()
    result = page.locator("#bench-result")
    expect(result).to_contain_text("µs per call", timeout=30_000)
    text = result.inner_text()
    assert re.search(r"1,000 calls in \d+(\.\d+)? ms", text), text
    assert re.search(r"[\d,]+ calls/s", text), text
    # After the run the status says again what the parse did.
    expect(page.locator("#status")).to_have_text(re.compile(r"^Parsed 1 call in "))


def test_formats_table_matches_readme(page: Page):
    """The page's formats table has the rows of docs/formats.md: (tier, format id, example)."""
    readme = (ROOT / "docs/formats.md").read_text(encoding="utf-8")
    section = readme.split("| Tier | Format id | Example |", 1)[1]
    want = []
    tier = ""
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            break
        # " | `bracket` | ex " -> ["", "`bracket`", "ex"]; pipes inside code have no spaces around
        cells = [c.strip() for c in re.split(r"\s\|\s", line.strip()[1:-1])]
        cells = [c.replace("\\|", "|").replace("`", "") for c in cells]
        tier = cells[0] or tier
        want.append((tier, cells[1], cells[2]))
    got = page.evaluate(
        """() => {
          let tier = '';
          return [...document.querySelectorAll('#formats tbody tr')].map((tr) => {
            const tds = [...tr.querySelectorAll('td')].map((td) => td.textContent.replace(/\\s+/g, ' ').trim());
            if (tds.length === 3) tier = tds.shift(); 
            return [tier, ...tds];
          });
        }"""
    )
    assert [tuple(r) for r in got] == want


def _run_fixture_files_in_page(page: Page, texts: dict, runner: str) -> dict:
    """Runs every case of the fixture files `texts` (name -> JSON text) in the page, through the
    module the page loaded, with the shared checker `runner` ("text" for tests/fixtures/*.json,
    "provider" for tests/fixtures/providers/*.json). Returns `{total, failures}`."""
    return page.evaluate(
        """async ([texts, runner]) => {
          const libs = {
            lib: await import('/__tests__/fixture-lib.mjs'),
            providerLib: await import('/__tests__/provider-fixture-lib.mjs'),
          };
          const beacon = await import('/pkg/index.js');   // the module the page loaded
          const runCase = {
            text: (file, c) => libs.lib.runCase(beacon, c),
            provider: (file, c) => libs.providerLib.runProviderCase(beacon, file, c),
          }[runner];
          let total = 0;
          const failures = [];
          for (const [file, text] of Object.entries(texts)) {
            for (const c of libs.lib.parseJsonExact(text).cases) {
              total++;
              const problems = runCase(file, c);
              if (problems.length) failures.push(`${file} ${c.id}: ${problems.join('; ')}`);
            }
          }
          return { total, failures };
        }""",
        [texts, runner],
    )


def test_shared_fixtures_pass_in_the_browser(page: Page):
    files = sorted(FIXTURES.glob("*.json"))
    assert files, "no tests/fixtures/*.json"
    texts = {f.name: f.read_text(encoding="utf-8") for f in files}
    result = _run_fixture_files_in_page(page, texts, "text")
    assert result["total"] > 0
    assert not result["failures"], (
        f"{len(result['failures'])} of {result['total']} fixture cases fail in the browser:\n"
        + "\n".join(result["failures"])
    )


def test_provider_fixtures_pass_in_the_browser(page: Page):
    # format_calls.json is run by the Rust runner until formatCalls reaches the package.
    files = sorted(f for f in PROVIDER_FIXTURES.glob("*.json") if f.name != "format_calls.json")
    assert files, "no tests/fixtures/providers/*.json"
    texts = {f.name: f.read_text(encoding="utf-8") for f in files}
    result = _run_fixture_files_in_page(page, texts, "provider")
    want = sum(len(json.loads(t)["cases"]) for t in texts.values())
    assert result["total"] == want
    assert not result["failures"], (
        f"{len(result['failures'])} of {result['total']} provider fixture cases fail in the browser:\n"
        + "\n".join(result["failures"])
    )


def test_stream_fixtures_pass_in_the_browser(page: Page):
    cases = json.loads((FIXTURES / "stream" / "scan.json").read_text(encoding="utf-8"))["cases"]
    assert cases, "no tests/fixtures/stream/scan.json cases"
    failures = page.evaluate(
        """async (cases) => {
          const beacon = await import('/pkg/index.js');   // the module the page loaded
          // the fixture's positions are code points; the package answers in UTF-16 units
          const utf16 = (text, n) => [...text].slice(0, n).join('').length;
          const failures = [];
          for (const c of cases) {
            const got = beacon.scanStream(c.input);
            const want = { state: c.scan.state, position: utf16(c.input, c.scan.position) };
            if (got.state !== want.state || got.position !== want.position) {
              failures.push(`${c.id}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
            }
          }
          return failures;
        }""",
        cases,
    )
    assert not failures, f"{len(failures)} of {len(cases)} stream cases fail in the browser:\n" + "\n".join(failures)


def test_bigint_in_a_decoded_response_in_the_browser(page: Page):
    """Chromium has JSON.rawJSON (Node 20 has not): the other path for BigInts in objects."""
    got = page.evaluate(
        """async () => {
          const { parseResponse, formatResults } = await import('/pkg/index.js');
          const response = {type: 'message', stop_reason: 'tool_use', content: [
            {type: 'tool_use', id: 't1', name: 'f', input: {big: 123456789012345678901234567890n, n: 2n}}]};
          const [call] = parseResponse(response);
          const [reply] = formatResults([{name: 'f', content: {big: call.arguments.big}}], 'gemini');
          return [typeof JSON.rawJSON, typeof call.arguments.big, String(call.arguments.big),
                  call.arguments.n, String(reply.functionResponse.response.big)];
        }"""
    )
    assert got == ["function", "bigint", "123456789012345678901234567890", 2, "123456789012345678901234567890"]


def test_a_panic_replaces_the_instance_in_the_browser(page: Page):
    """After a trap the package re-instantiates the module synchronously on the main thread."""
    got = page.evaluate(
        """async () => {
          const beacon = await import('/pkg/index.js');
          const glue = await import('/pkg/beacon_wasm.js');
          const before = [glue.panic_for_testing(false), glue.panic_for_testing(false)];
          let err;
          try { beacon._panicForTesting(); } catch (e) { err = e; }
          const after = glue.panic_for_testing(false);
          return { before, after, name: err && err.name, code: err && err.code,
                   call: beacon.parseToolCall('f(a=1)').name };
        }"""
    )
    assert got["before"][1] == got["before"][0] + 1
    assert got == {**got, "after": 1, "name": "ToolCallError", "code": "internal", "call": "f"}


def test_screenshot(page: Page):
    """build/screenshots/playground.png: the Hermes preset with formats, after a timing run."""
    page.locator("#include-format").check()
    page.get_by_role("button", name="Hermes / Qwen", exact=True).click()
    page.get_by_role("button", name="Run 1,000×").click()
    expect(page.locator("#bench-result")).to_contain_text("calls/s", timeout=30_000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "playground.png"), full_page=True)
    page.get_by_role("button", name="Broken", exact=True).click()
    expect(page.locator("#error-code")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "playground-error.png"), full_page=True)
    page.get_by_role("button", name="Anthropic response", exact=True).click()
    expect(page.locator("#provider")).to_have_text("anthropic")
    page.screenshot(path=str(SCREENSHOTS / "playground-provider.png"), full_page=True)
    assert (SCREENSHOTS / "playground.png").stat().st_size > 10_000
