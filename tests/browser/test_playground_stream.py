"""The playground's Stream toggle, in Debian's Chromium: a preset replayed through ToolCallStream a
few characters per tick shows the content appearing and each call filling in (name, then
arguments), and ends with a check line that the streamed result equals the one-shot parse.
The fixtures (server, browser, a loaded page that fails on any console error) are in conftest.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

# (preset button, the streamed calls' names, the content shown)
STREAMED = [
    ("Hermes / Qwen", ["get_weather", "get_weather"], "I'll check the current weather in both cities."),
    ("XML invoke", ["search_docs"], "I'll search the documentation for that."),
    # A call's text is never content.
    ("Python call", ["search"], "I will look that up."),
]


@pytest.mark.parametrize("label,names,content", STREAMED, ids=[s[0] for s in STREAMED])
def test_stream_toggle_replays_a_preset_and_checks_it(page: Page, label, names, content):
    page.locator("#stream").check()
    page.get_by_role("button", name=label, exact=True).click()
    tick = page.locator("#stream-tick")
    # The replay is visible while it runs: ticks count up, and the text is fed a few characters at a time.
    expect(tick).to_contain_text(re.compile(r"tick \d+ · \d+ / [\d,]+ chars fed"))
    first = int(re.search(r"tick (\d+)", tick.inner_text()).group(1))
    expect(tick).not_to_contain_text(f"tick {first} ·")
    check = page.locator("#stream-check")
    expect(check).to_be_visible(timeout=20_000)
    expect(check).to_have_class(re.compile(r"\bok\b"))
    expect(check).to_contain_text("The streamed result equals the one-shot parse")
    expect(tick).to_contain_text("done")
    expect(page.locator("#stream-content")).to_have_text(content)
    calls = page.locator("#stream-calls .stream-call")
    expect(calls).to_have_count(len(names))
    assert calls.locator(".call-name").all_inner_texts() == names
    for i in range(len(names)):
        expect(calls.nth(i)).to_have_class(re.compile(r"\bdone\b"))
        assert calls.nth(i).locator(".call-args").inner_text().startswith("{")


def test_a_call_fills_in_name_first_then_arguments(page: Page):
    """Snapshots taken while the Hermes preset streams: a call shows its name before all of its
    arguments, and the arguments only grow."""
    page.locator("#stream").check()
    page.get_by_role("button", name="Hermes / Qwen", exact=True).click()
    seen = page.evaluate(
        """() => new Promise((resolve) => {
          const seen = [];
          const look = () => {
            const call = document.querySelector('#stream-calls .stream-call');
            if (call) seen.push([call.querySelector('.call-name').textContent, call.querySelector('.call-args').textContent]);
            if (document.getElementById('stream-check')) resolve(seen);
            else requestAnimationFrame(look);
          };
          look();
        })"""
    )
    assert seen, "a call was shown"
    assert seen[0][0] == "get_weather"
    args = [a for _, a in seen]
    assert any(a != args[-1] for a in args), "the arguments filled in over several ticks"
    assert all(args[-1].startswith(a) for a in args)
    assert page.locator("#stream-calls .call-args").first.inner_text() == '{"city": "Paris", "unit": "celsius"}'


def test_a_broken_call_streams_to_the_one_shot_error(page: Page):
    page.locator("#stream").check()
    page.get_by_role("button", name="Broken", exact=True).click()
    check = page.locator("#stream-check")
    expect(check).to_be_visible(timeout=20_000)
    expect(check).to_have_class(re.compile(r"\bok\b"))
    expect(check).to_contain_text("The stream threw what the one-shot parse throws")
    expect(page.locator("#highlights mark")).to_have_count(1)


def test_stream_is_for_model_output_only_and_off_gives_the_parse_back(page: Page):
    page.locator("#stream").check()
    page.get_by_role("button", name="Gemini response", exact=True).click()
    expect(page.locator("#stream-toggle")).to_be_hidden()
    expect(page.locator("#json")).to_be_visible()
    page.get_by_role("button", name="Mistral", exact=True).click()
    expect(page.locator("#stream-check")).to_be_visible(timeout=20_000)
    page.locator("#stream").uncheck()
    expect(page.locator("#json")).to_be_visible()
    expect(page.locator("#stream-view")).to_have_count(0)
