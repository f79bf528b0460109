"""The playground as a new user meets it (issue 15): a long line's snippet keeps the caret in view,
every control shows a focus ring and has a name, all text has 4.5:1 contrast, presets say which
is pressed, responses have a text-fallback toggle, the result can be copied, the URL holds the
input (a link reproduces the parse), a phone shows the result after a preset, and format ids
never break mid-word.

Contrast is computed from computed styles (WCAG 2 relative luminance, backgrounds composited up
the ancestor chain, opacity included). Visibility checks read pixels of real screenshots, decoded
by the page itself (a canvas), and the phone screenshots are kept in build/screenshots/.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any, Dict, List
from urllib.parse import quote

import pytest
from playwright.sync_api import Page, expect

from conftest import READY
from model_presets import MODEL_PRESETS
from test_playground import PRESETS, PROVIDER_PRESETS, SCREENSHOTS, output_calls

PHONE = {"width": 390, "height": 844}
ACCENT = (0xC2, 0x57, 0x0C)  # --accent: the focus ring
CONTROLS = "button, input, textarea, select, a[href], [tabindex]"

ALL_PRESETS = [p.label for p in MODEL_PRESETS] + [p[0] for p in PRESETS] + [p[0] for p in PROVIDER_PRESETS]


def new_page(browser, base_url: str, url_suffix: str = "", **context: Any) -> Page:
    """A fresh context and page on the playground (loaded, its first parse done)."""
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    pg = ctx.new_page()
    errors: List[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.goto(base_url + url_suffix)
    expect(pg.locator("#status")).to_have_class(READY, timeout=15_000)
    pg.errors = errors  # type: ignore[attr-defined]
    return pg


def close(pg: Page) -> None:
    errors = pg.errors  # type: ignore[attr-defined]
    pg.context.close()
    assert not errors, errors


# ------------------------------------------------------------------------------- pixels

PIXELS_JS = """
async ([pngs, region, accent]) => {
  // Decodes PNG screenshots (base64) in a canvas and counts, in `region` ({x, y, width, height}
  // in image pixels; null: all), the dark pixels of the first image, and the pixels that differ
  // between the first two and are close to `accent` in the second.
  const data = [];
  for (const b64 of pngs) {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width; canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const r = region || { x: 0, y: 0, width: img.width, height: img.height };
    data.push(ctx.getImageData(r.x, r.y, r.width, r.height).data);
  }
  const [a, b] = data;
  let dark = 0, ring = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] + a[i + 1] + a[i + 2] < 3 * 160) dark++;
    if (b && (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2])
        && Math.abs(b[i] - accent[0]) + Math.abs(b[i + 1] - accent[1]) + Math.abs(b[i + 2] - accent[2]) < 60) ring++;
  }
  return { dark, ring };
}
"""


def pixels(pg: Page, pngs: List[bytes], region: Dict[str, int] | None = None) -> Dict[str, int]:
    return pg.evaluate(PIXELS_JS, [[base64.b64encode(p).decode() for p in pngs], region, list(ACCENT)])


def ring_pixels(pg: Page, before: bytes, after: bytes) -> int:
    """Pixels that turned close to the accent colour between two screenshots of one area."""
    return pixels(pg, [before, after])["ring"]


# ------------------------------------------------------------------------------- snippet


SNIPPET_GEOMETRY_JS = """
() => {
  const snippet = document.getElementById('snippet');
  const box = (el) => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, right: r.right, bottom: r.bottom}; };
  return {
    text: snippet.textContent,
    scrollWidth: snippet.scrollWidth, clientWidth: snippet.clientWidth,
    at: snippet.querySelector('.snippet-at').textContent,
    atBox: box(snippet.querySelector('.snippet-at')),
    caretBox: box(snippet.querySelector('.caret')),
    outputBox: box(document.getElementById('output')),
  };
}
"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_snippet_is_cropped_around_the_caret(browser, base_url, viewport):
    pg = new_page(browser, base_url, viewport=viewport)
    # A 100 KB line with the error in its middle.
    text = "x" * 50_000 + '<tool_call>{"name": "f", "arguments": {"x": }}</tool_call>' + "y" * 50_000
    pg.locator("#input").fill(text)
    expect(pg.locator("#error-code")).to_have_text("json.unexpected_token")
    g = pg.evaluate(SNIPPET_GEOMETRY_JS)
    assert g["at"] == "}"
    first, caret_line = g["text"].split("\n")
    assert first.startswith("1 │ …") and first.endswith("y…"), first
    assert len(first) < 100
    assert g["scrollWidth"] <= g["clientWidth"] + 1, "the snippet scrolls sideways"
    # The caret is under the offending character, inside the visible output panel.
    assert abs(g["caretBox"]["x"] - g["atBox"]["x"]) < 1
    assert g["outputBox"]["x"] <= g["caretBox"]["x"] and g["caretBox"]["right"] <= g["outputBox"]["right"]
    assert caret_line.endswith("^")
    close(pg)


def test_snippet_caret_lines_up_after_wide_characters(page: Page):
    for prefix in ("\t日本語 🙂 ", "é" * 80, "🙂" * 60):
        text = prefix + 'get_weather(city="Paris", city="Lyon")'
        page.locator("#input").fill(text)
        expect(page.locator("#error-code")).to_have_text("tool_call.duplicate_argument")
        g = page.evaluate(SNIPPET_GEOMETRY_JS)
        assert g["at"] == "c"
        assert abs(g["caretBox"]["x"] - g["atBox"]["x"]) < 1, prefix
        assert g["scrollWidth"] <= g["clientWidth"] + 1
        assert "\ufffd" not in g["text"], "a cut split a character"
    # A short line is shown whole.
    page.locator("#input").fill('f(a=1, a=2)')
    first = page.locator("#snippet").inner_text().split("\n")[0]
    assert first == "1 │ f(a=1, a=2)"


# ------------------------------------------------------------------------------- focus


def tab_to(pg: Page, selector: str, limit: int = 60) -> None:
    """Presses Tab until the element matching `selector` has focus."""
    for _ in range(limit):
        if pg.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
        pg.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def focusable_controls(pg: Page) -> List[str]:
    """Selectors (#id or a preset's data-preset) of the visible, enabled controls (not those inside a
    closed <details>, which Chromium renders with `content-visibility: hidden`)."""
    return pg.evaluate(
        """(sel) => [...document.querySelectorAll(sel)]
          .filter((el) => !el.disabled && el.checkVisibility({ visibilityProperty: true }))
          .map((el) => el.id ? '#' + el.id : `[data-preset="${el.dataset.preset}"]`)""",
        CONTROLS,
    )


def check_rings(pg: Page, controls: List[str]) -> None:
    reached = []
    pg.locator("h1").click()  # start from the top, then go by keyboard only
    for _ in range(80):
        pg.keyboard.press("Tab")
        current = pg.evaluate(
            "() => { const el = document.activeElement; return el.id ? '#' + el.id : `[data-preset=\"${el.dataset.preset}\"]`; }"
        )
        if current in reached:
            continue
        reached.append(current)
        style = pg.evaluate(
            """() => { const s = getComputedStyle(document.activeElement);
                       return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor,
                               visible: document.activeElement.matches(':focus-visible')}; }"""
        )
        assert style["visible"] and style["style"] != "none" and style["width"] >= 2, (current, style)
        # The ring shows on screen: screenshot the area around the control focused and not.
        el = pg.locator(current)
        el.scroll_into_view_if_needed()
        box = el.bounding_box()
        clip = {"x": max(box["x"] - 6, 0), "y": max(box["y"] - 6, 0), "width": box["width"] + 12, "height": box["height"] + 12}
        focused = pg.screenshot(clip=clip)
        pg.evaluate("() => document.activeElement.blur()")
        blurred = pg.screenshot(clip=clip)
        el.focus()
        assert pg.evaluate("() => document.activeElement.matches(':focus-visible')")
        changed = ring_pixels(pg, blurred, focused)
        assert changed >= box["width"] + box["height"], f"{current}: only {changed} ring pixels visible"
        if set(controls) <= set(reached):
            break
    assert set(controls) <= set(reached), f"not reached by Tab: {set(controls) - set(reached)}"


def test_every_control_has_a_visible_focus_ring(page: Page):
    controls = focusable_controls(page)
    assert {"#input", "#include-format", "#copy-result", "#copy-link", "#run-bench", '[data-preset="hermes"]'} <= set(controls)
    check_rings(page, controls)
    # Response mode shows the text-fallback toggle instead of include-format.
    page.get_by_role("button", name="Gemini response", exact=True).click()
    controls = focusable_controls(page)
    assert "#text-fallback" in controls and "#include-format" not in controls
    check_rings(page, ["#text-fallback", "#copy-result"])


# ------------------------------------------------------------------------------- contrast

CONTRAST_JS = """
() => {
  const parse = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, below) => {            // `top` (with alpha) composited over opaque `below`
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a));
  };
  const lum = (rgb) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(rgb[0]) + 0.7152 * f(rgb[1]) + 0.0722 * f(rgb[2]);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const background = (el) => {              // the opaque colour behind el's text
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    let bg = [255, 255, 255];
    for (const e of chain) {
      const s = getComputedStyle(e);
      const c = parse(s.backgroundColor);
      c[3] *= Number(s.opacity);
      if (c[3] > 0) bg = over(c, bg);
    }
    return bg;
  };
  const opacity = (el) => { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; };
  const failures = [];
  let checked = 0;
  for (const el of document.body.querySelectorAll('*')) {
    if (['SCRIPT', 'STYLE', 'svg'].includes(el.tagName)) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    if (!own || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || el.closest('.sr-only')) continue;
    const color = parse(s.color);
    color[3] *= opacity(el);
    // Text drawn transparent on purpose (the editor's mirror, the snippet's caret padding) is
    // hidden from assistive technology too; any other transparent text is a failure.
    if (color[3] === 0 && el.closest('[aria-hidden="true"]')) continue;
    const bg = background(el);
    const r = ratio(over(color, bg), bg);
    checked++;
    if (r < 4.5) failures.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${own.slice(0, 40)}": ${r.toFixed(2)}:1`);
  }
  return { checked, failures };
}
"""


def assert_contrast(pg: Page, state: str) -> int:
    result = pg.evaluate(CONTRAST_JS)
    assert not result["failures"], f"{state}: text below 4.5:1:\n" + "\n".join(result["failures"])
    return result["checked"]


def test_all_text_has_4_5_to_1_contrast(page: Page):
    checked = assert_contrast(page, "loaded")
    assert checked > 60, "the check saw too little text"
    page.locator("#include-format").check()
    page.get_by_role("button", name="Hermes / Qwen", exact=True).click()
    assert_contrast(page, "Hermes with formats")
    page.get_by_role("button", name="Run 1,000×").click()
    expect(page.locator("#bench-result")).to_contain_text("calls/s", timeout=30_000)
    assert_contrast(page, "after a timing run")
    page.get_by_role("button", name="Broken", exact=True).click()
    assert_contrast(page, "an error")
    page.locator("#input").fill("Nothing to call.")
    expect(page.locator("#error-code")).to_have_text("tool_call.not_found")
    assert_contrast(page, "no call")
    page.get_by_role("button", name="Anthropic response", exact=True).click()
    assert_contrast(page, "a provider response")
    page.locator("#input").fill(json.dumps({"model": "m", "message": {"role": "assistant", "content": "Hi"}, "done": True}))
    expect(page.locator("#hint")).to_be_visible()
    assert_contrast(page, "a response without calls")


def test_contrast_check_catches_grey_text(page: Page):
    """The check is live: the old grey (#7a8190, 3.9:1 on white) fails it."""
    page.add_style_tag(content=".panel-meta { color: #7a8190 !important; }")
    result = page.evaluate(CONTRAST_JS)
    assert any("panel-meta" in f for f in result["failures"]), result["failures"]


# ------------------------------------------------------------------------------- presets and labels


def test_presets_expose_aria_pressed(page: Page):
    presets = page.locator("button.preset")
    assert presets.count() == len(ALL_PRESETS)
    # The page opens on the Python preset's text.
    pressed = [presets.nth(i).get_attribute("aria-pressed") for i in range(presets.count())]
    assert pressed == ["true" if label == "Python call" else "false" for label in ALL_PRESETS]
    for label in ("Hermes / Qwen", "Bedrock response", "Broken"):
        page.get_by_role("button", name=label, exact=True).click()
        pressed = page.get_by_role("button", pressed=True)
        expect(pressed).to_have_count(1)
        expect(pressed).to_have_text(label)
    page.locator("#input").press("End")
    page.locator("#input").press_sequentially(" ")
    expect(page.get_by_role("button", pressed=True)).to_have_count(0)
    assert all(presets.nth(i).get_attribute("aria-pressed") == "false" for i in range(presets.count()))


def test_every_control_is_labelled(page: Page):
    for state in ("text", "response"):
        if state == "response":
            page.get_by_role("button", name="OpenAI response", exact=True).click()
        tree = page.locator("body").aria_snapshot()
        controls = [line.strip() for line in tree.splitlines() if re.match(r"\s*- (button|textbox|checkbox)\b", line)]
        assert len(controls) >= 14, tree
        unnamed = [c for c in controls if not re.match(r'- \w+ "[^"]+"', c)]
        assert not unnamed, f"controls without a name: {unnamed}"
        names = {re.match(r'- (\w+) "([^"]+)"', c).groups() for c in controls}
        assert ("button", "Copy result") in names and ("button", "Copy link") in names
        box = ("checkbox", "include format") if state == "text" else ("checkbox", "text fallback")
        assert box in names
        textbox = "LLM output" if state == "text" else "Provider response"
        assert ("textbox", textbox) in names


# ------------------------------------------------------------------------------- text fallback


def test_text_fallback_toggle_for_responses(page: Page):
    toggle = page.locator("#text-fallback")
    expect(toggle).to_be_hidden()
    expect(toggle).to_be_disabled()
    response = {
        "model": "qwen3",
        "message": {"role": "assistant", "content": 'Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'},
        "done": True,
    }
    page.locator("#input").fill(json.dumps(response, indent=2))
    expect(page.locator("#provider")).to_have_text("ollama")
    expect(toggle).to_be_visible()
    expect(toggle).to_be_enabled()
    expect(page.locator("#include-format")).to_be_hidden()
    # No structured calls: [], and a hint that names the toggle.
    assert output_calls(page) == []
    expect(page.locator("#hint")).to_contain_text("text fallback")
    page.get_by_role("checkbox", name="text fallback").check()
    assert output_calls(page) == [{"id": None, "name": "get_weather", "arguments": {"city": "Oslo"}}]
    expect(page.locator("#output-meta")).to_contain_text("1 call · ollama")
    # The page's result is the package's parseResponse with textFallback.
    assert page.evaluate(
        "async (t) => (await import('/pkg/index.js')).parseResponse(t, {textFallback: true})",
        page.locator("#input").input_value(),
    ) == output_calls(page)
    # Model output again: the toggle goes, include format comes back.
    page.get_by_role("button", name="Mistral", exact=True).click()
    expect(toggle).to_be_hidden()
    expect(page.locator("#include-format")).to_be_visible()


# ------------------------------------------------------------------------------- copy


def test_copy_result(browser, base_url):
    pg = new_page(browser, base_url, permissions=["clipboard-read", "clipboard-write"])
    read = lambda: pg.evaluate("() => navigator.clipboard.readText()")  # noqa: E731
    pg.locator("#input").fill('f(id=123456789012345678901234567890, name="café 🙂")')
    button = pg.get_by_role("button", name="Copy result")
    button.click()
    expect(pg.locator("#copy-result")).to_have_text("Copied")
    copied = read()
    assert copied == pg.locator("#json").text_content()
    assert json.loads(copied, parse_int=str) == [{"name": "f", "arguments": {"id": "123456789012345678901234567890", "name": "café 🙂"}}]
    expect(pg.locator("#announce")).to_have_text("Copied the result")
    expect(pg.locator("#copy-result")).to_have_text("Copy result", timeout=5_000)
    # An error copies as `code at line L, column C: message`.
    pg.get_by_role("button", name="Broken", exact=True).click()
    pg.locator("#copy-result").click()
    assert re.fullmatch(r"json\.[a-z_]+ at line \d+, column \d+: .+", read())
    # Copy link copies the address, input included.
    pg.locator("#copy-link").click()
    expect(pg.locator("#copy-link")).to_have_text("Copied")
    link = read()
    assert link == pg.url and "#z=" in link
    close(pg)


# ------------------------------------------------------------------------------- link


def test_the_url_hash_reproduces_a_parse(page: Page, browser, base_url):
    text = 'Voilà 🙂 — <tool_call>{"name": "get_weather", "arguments": {"city": "Zürich", "n": 12345678901234567890}}</tool_call>'
    page.locator("#include-format").check()
    page.locator("#input").fill(text)
    expect(page).to_have_url(re.compile(r"#z=[A-Za-z0-9_-]+&m=auto&f=1$"))
    shown = page.locator("#json").text_content()
    pg = new_page(browser, base_url, url_suffix=page.url[len(base_url):])
    expect(pg.locator("#input")).to_have_value(text)
    expect(pg.locator("#include-format")).to_be_checked()
    assert pg.locator("#json").text_content() == shown
    assert output_calls(pg)[0]["format"] == "hermes"
    close(pg)

    # A response preset, read as a response, with text fallback: the link says so.
    page.get_by_role("button", name="Anthropic response", exact=True).click()
    page.locator("#text-fallback").check()
    expect(page).to_have_url(re.compile(r"&m=response&f=1&fb=1$"))
    pg = new_page(browser, base_url, url_suffix=page.url[len(base_url):])
    expect(pg.locator("#provider")).to_have_text("anthropic")
    expect(pg.locator("#input-label")).to_have_text("Provider response")
    expect(pg.locator("#text-fallback")).to_be_checked()
    expect(pg.get_by_role("button", pressed=True)).to_have_text("Anthropic response")
    assert output_calls(pg) == output_calls(page)
    close(pg)


def test_a_hand_written_link(browser, base_url):
    pg = new_page(browser, base_url, url_suffix="#t=" + quote('search(q="a+b", n=2)', safe=""))
    expect(pg.locator("#input")).to_have_value('search(q="a+b", n=2)')
    assert output_calls(pg) == [{"name": "search", "arguments": {"q": "a+b", "n": 2}}]
    expect(pg.get_by_role("button", pressed=True)).to_have_count(0)
    # Following another link in the same tab.
    pg.evaluate("() => { location.hash = 't=' + encodeURIComponent('[TOOL_CALL]name=g[/TOOL_CALL]'); }")
    expect(pg.locator("#input")).to_have_value("[TOOL_CALL]name=g[/TOOL_CALL]")
    assert output_calls(pg) == [{"name": "g", "arguments": {}}]
    close(pg)


def test_plain_load_leaves_the_url_alone(page: Page):
    page.wait_for_timeout(400)
    assert "#" not in page.url


# ------------------------------------------------------------------------------- phone


def dark_pixels(pg: Page, png: bytes, box: Dict[str, float], scale: float) -> int:
    region = {k: int(box[k] * scale) for k in ("x", "y", "width", "height")}
    return pixels(pg, [png], region)["dark"]


@pytest.mark.parametrize("label", ALL_PRESETS)
def test_phone_shows_the_result_after_a_preset(browser, base_url, label):
    pg = new_page(browser, base_url, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg.get_by_role("button", name=label, exact=True).tap()
    result = pg.locator("#json, #output .error").first
    expect(result).to_be_visible()
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"], "the page scrolls sideways"
    # The result's head, and several lines of it, are inside the viewport.
    out = pg.locator("#output").bounding_box()
    visible_height = min(out["y"] + out["height"], PHONE["height"]) - max(out["y"], 0)
    assert out["y"] >= 0 and visible_height >= 150, out
    # In the viewport's screenshot, the result's area has text drawn in it.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    png = pg.screenshot(path=str(SCREENSHOTS / f"playground-phone-{slug}.png"))
    area = {"x": out["x"], "y": out["y"], "width": out["width"], "height": visible_height}
    assert dark_pixels(pg, png, area, 2) > 2000, "no text in the result area of the screenshot"
    close(pg)


def test_phone_scrolls_to_the_result_on_a_short_screen(browser, base_url):
    pg = new_page(browser, base_url, viewport={"width": 390, "height": 560}, is_mobile=True, has_touch=True)
    pg.get_by_role("button", name="Anthropic response", exact=True).tap()
    box = pg.locator("#output-panel").bounding_box()
    assert 0 <= box["y"] < 560 - 96
    close(pg)


# ------------------------------------------------------------------------------- format ids


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_format_ids_do_not_break_mid_word(browser, base_url, viewport):
    pg = new_page(browser, base_url, viewport=viewport)
    ids = pg.evaluate(
        """() => [...document.querySelectorAll('#formats td.fmt code')].map((c) => ({
             id: c.textContent, lines: c.getClientRects().length,
             right: c.getBoundingClientRect().right, cell: c.closest('td').getBoundingClientRect().right }))"""
    )
    assert len(ids) >= 29
    for i in ids:
        assert i["lines"] == 1, f"{i['id']} breaks across lines"
        assert i["right"] <= i["cell"] + 0.5, f"{i['id']} overflows its cell"
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    # The formats listed above the result do not break inside an id either.
    pg.locator("#include-format").check()
    pg.locator("#input").fill('<tool_call>{"name": "a", "arguments": {}}</tool_call> [TOOL_CALL]name=functionary_thing[/TOOL_CALL]')
    spans = pg.locator("#output-meta .fmt-id")
    expect(spans).to_have_count(2)
    assert all(n == 1 for n in spans.evaluate_all("(els) => els.map((e) => e.getClientRects().length)"))
    close(pg)


def test_focus_ring_check_catches_a_missing_ring(page: Page):
    """The check is live: a control whose ring is taken away fails it."""
    page.add_style_tag(content="#copy-result:focus-visible { outline: none !important; }")
    with pytest.raises(AssertionError, match="copy-result"):
        check_rings(page, ["#copy-result"])
