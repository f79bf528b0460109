"""The npm package bundled for the browser: tests/js/bundle-app.mjs packs it, installs it offline
into a fresh project and bundles a tiny app with the pinned esbuild (`platform=browser`, so the
`browser` export condition, which holds no Node code); the app then runs in Chromium."""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import expect

from conftest import ROOT, _Handler

BUNDLE_APP = ROOT / "tests" / "js" / "bundle-app.mjs"


@contextlib.contextmanager
def bundled_page(browser, script: Path, out: Path) -> Iterator:
    """The site `script` builds into `out`, served on a free port and opened in a fresh context:
    yields the page; afterwards, any page error or console error fails the test."""
    subprocess.run(["node", str(script), str(out)], check=True, cwd=ROOT, timeout=300)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = browser.new_context()
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        yield page
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    assert not errors, "\n".join(errors)


def test_esbuild_bundle_runs_in_chromium(browser, playground_pkg: Path, tmp_path: Path) -> None:
    with bundled_page(browser, BUNDLE_APP, tmp_path / "site") as page:
        expect(page.locator("#result")).not_to_be_empty(timeout=15_000)
        assert page.locator("#error").text_content() == ""
        assert json.loads(page.locator("#result").text_content() or "") == {
            "calls": [{"name": "f", "arguments": {"n": "12345678901234567890"}, "format": "hermes"}],
            "broken": [True, "json.unexpected_token", 46],
            "typeError": True,
            "formats": True,
        }


BUNDLE_WORKERS = ROOT / "tests" / "js" / "bundle-workers.mjs"


def test_init_entry_bundles_for_the_page_and_both_kinds_of_worker(browser, playground_pkg: Path, tmp_path: Path) -> None:
    """`beacon-toolcall/init` (no top-level await) with the asset `beacon-toolcall/wasm`, bundled by
    esbuild (`--loader:.wasm=file`, nothing copied by hand) into the page's ESM script, a module
    Web Worker (ESM) and a classic Web Worker (CommonJS): all three load the module and parse."""
    with bundled_page(browser, BUNDLE_WORKERS, tmp_path / "site") as page:
        expect(page.locator("#result, #error").filter(has_text=re.compile("."))).to_have_count(1, timeout=20_000)
        assert page.locator("#error").text_content() == ""
        got = json.loads(page.locator("#result").text_content() or "")
        want = {"calls": [{"name": "f", "arguments": {"n": 1}, "format": "hermes"}], "formats": True, "isError": True}
        assert got["page"] == want
        assert got["esm"] == {**want, "early": True, "wasm": "string", "bare": None}
        bare = got["cjs"].pop("bare")
        assert got["cjs"] == {**want, "early": True, "wasm": "string"}
        # In the CommonJS worker (no import.meta.url) init() without a source says what to pass.
        assert "has no URL to fetch the .wasm from" in bare and "init({ module_or_path })" in bare, bare
