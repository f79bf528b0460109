"""Serves the playground for scripts/serve.sh: playground/ at /, and the repository's docs/ at
/docs/, so the page's links to the docs (../docs/NAME.md, relative to playground/index.html in the
repository) work from the served page too. Markdown is sent as UTF-8 text, which browsers show.

    python scripts/serve-playground.py [PORT]      (binds 127.0.0.1; PORT defaults to 8000)
"""

from __future__ import annotations

import functools
import http.server
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAYGROUND = ROOT / "playground"
DOCS = ROOT / "docs"


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".md": "text/plain; charset=utf-8",
    }

    def translate_path(self, path: str) -> str:
        route = path.split("?", 1)[0].split("#", 1)[0]
        if route == "/docs" or route.startswith("/docs/"):
            # SimpleHTTPRequestHandler's own path cleaning (no `..` out of the folder), from docs/.
            inner = http.server.SimpleHTTPRequestHandler.translate_path(self, route[len("/docs"):] or "/")
            return str(DOCS / Path(inner).relative_to(Path(self.directory)))
        return super().translate_path(path)


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    handler = functools.partial(Handler, directory=str(PLAYGROUND))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"Serving playground/ (and docs/ at /docs/) on http://127.0.0.1:{port}/", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
