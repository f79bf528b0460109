#!/usr/bin/env bash
# The "main job": set up, build the Python package (into .venv) and the wasm package,
# put the web build into playground/pkg, show one parse from Python, then serve the
# playground on http://127.0.0.1:${PORT:-8000}/ until interrupted.
# Setup runs as `setup.sh --serve`: only what these builds need (the wasm32 toolchain,
# wasm-bindgen-cli, wasm-opt, esbuild, and maturin in .venv); the test-only tools (Chromium, a
# JRE, shellcheck, Go and actionlint, PySpark, Playwright, TypeScript) come with scripts/test.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac
unset RUSTUP_TOOLCHAIN   # native build uses the default toolchain; build-wasm.sh sets its own

PORT="${PORT:-8000}"
VENV="$ROOT/.venv"
cmd() { printf '[serve] $ %s\n' "$*"; }

cmd "bash scripts/setup.sh --serve"
bash scripts/setup.sh --serve

cmd "VIRTUAL_ENV=.venv .venv/bin/maturin develop --release"
VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release

cmd "bash scripts/build-wasm.sh"
bash scripts/build-wasm.sh

cmd "rm -rf playground/pkg && cp -r build/pkg-web playground/pkg"
rm -rf playground/pkg
cp -r build/pkg-web playground/pkg

cmd ".venv/bin/python -c 'import beacon; print(beacon.parse_tool_call(...))'"
"$VENV/bin/python" -c 'import beacon; print(beacon.parse_tool_call("Call: search(query=\"rust async\", limit=5)"))'

echo "[serve] playground: http://127.0.0.1:$PORT/"
# Like `python -m http.server --bind 127.0.0.1 --directory playground`, plus docs/ at /docs/ (the
# page links to ../docs/*.md).
cmd ".venv/bin/python scripts/serve-playground.py $PORT"
exec "$VENV/bin/python" scripts/serve-playground.py "$PORT"
