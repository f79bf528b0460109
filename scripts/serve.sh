#!/usr/bin/env bash
# The "main job": set up, build the Python package (into .venv) and the wasm package,
# put the web build into playground/pkg, show one parse from Python, then serve the
# playground on http://127.0.0.1:${PORT:-8000}/ until interrupted.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac
unset RUSTUP_TOOLCHAIN   # native build uses the default toolchain; build-wasm.sh sets its own

PORT="${PORT:-8000}"
VENV="$ROOT/.venv"
cmd() { printf '[serve] $ %s\n' "$*"; }

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
cmd ".venv/bin/python -m http.server $PORT --bind 127.0.0.1 --directory playground"
exec "$VENV/bin/python" -m http.server "$PORT" --bind 127.0.0.1 --directory playground
