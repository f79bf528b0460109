#!/usr/bin/env bash
# The benchmark command: sets up, builds the Python package and the WASM package, then prints
# bench/run.py's and bench/batch.py's tables. Takes a few minutes on 2 cores; pass --quick for a smoke run.
#   bash bench/run.sh [--quick] [--no-wasm]
set -euo pipefail
cd "$(dirname "$0")/.."
run() { printf '+ %s\n' "$*"; "$@"; }
run bash scripts/setup.sh >/dev/null
run env VIRTUAL_ENV=.venv .venv/bin/maturin develop --release -q
run bash scripts/build-wasm.sh >/dev/null
run .venv/bin/python bench/run.py "$@"
run .venv/bin/python bench/batch.py "$@"   # dataset scale: parse_many, parse_arrow, beacon batch
