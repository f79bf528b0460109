"""Fixtures of the browser tests: playground/ served on a local port, Debian's Chromium driven
by Playwright (one for the whole session: two sync Playwright instances cannot run at once), and a
loaded page that fails its test on any console error.

The page loads the beacon-toolcall package from playground/pkg, which scripts/serve.sh and
scripts/test.sh copy there from build/pkg-web; when it is missing, `playground_pkg` copies it
itself (and fails loudly when there is no build).
"""

from __future__ import annotations

import functools
import re
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
PLAYGROUND = ROOT / "playground"
PKG = PLAYGROUND / "pkg"
BUILT_PKG = ROOT / "build" / "pkg-web"
TESTS_JS = ROOT / "tests" / "js"
CHROMIUM = os.environ.get("BEACON_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

# The status bar's class once the module has loaded (its text then says what the last parse did).
READY = re.compile(r"\bready\b")

# The test modules the page may import from /__tests__/ (tests/js).
TEST_MODULES = {"fixture-lib.mjs", "provider-fixture-lib.mjs"}


def _package_ready(d: Path) -> bool:
    return (d / "index.js").is_file() and (d / "beacon_wasm_bg.wasm").is_file()


@pytest.fixture(scope="session")
def playground_pkg() -> Path:
    """playground/pkg, copied from build/pkg-web when it is missing."""
    if not _package_ready(PKG):
        if not _package_ready(BUILT_PKG):
            pytest.fail(
                f"no wasm package: neither {PKG} nor {BUILT_PKG} has index.js and "
                "beacon_wasm_bg.wasm; build it with `bash bindings-wasm/build.sh`",
                pytrace=False,
            )
        shutil.rmtree(PKG, ignore_errors=True)
        shutil.copytree(BUILT_PKG, PKG)
    return PKG


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves playground/, plus the shared fixture checks of tests/js under /__tests__/."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
    }

    def translate_path(self, path: str) -> str:
        route = path.split("?", 1)[0]
        if route.startswith("/__tests__/") and route[len("/__tests__/") :] in TEST_MODULES:
            return str(TESTS_JS / route[len("/__tests__/") :])
        return super().translate_path(path)

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def base_url(playground_pkg: Path):
    handler = functools.partial(_Handler, directory=str(PLAYGROUND))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, base_url):
    """The playground, loaded (its first parse done). Fails the test on any console error or page error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    pg = context.new_page()
    errors: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "error":
            errors.append(f"console.error: {msg.text} ({msg.location})")

    pg.on("console", on_console)
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pg.on("requestfailed", lambda req: errors.append(f"request failed: {req.url} {req.failure}"))
    pg.goto(base_url)
    expect(pg.locator("#status")).to_have_class(READY, timeout=15_000)
    yield pg
    context.close()
    assert not errors, "\n".join(errors)
