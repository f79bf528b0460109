#!/usr/bin/env bash
# The benchmark command: sets up, builds the Python package and the WASM package, then prints
# bench/run.py's and bench/batch.py's tables. The two scripts take about 5 minutes on 2 cores (--quick,
# a smoke run: under 1.5), plus the builds (wasm-opt alone about 30 s).
#   bash bench/run.sh [--quick] [--no-wasm]
set -euo pipefail
cd "$(dirname "$0")/.."
run() { printf '+ %s\n' "$*"; "$@"; }
run bash scripts/setup.sh >/dev/null
run env VIRTUAL_ENV=.venv .venv/bin/maturin develop --release -q
run bash scripts/build-wasm.sh >/dev/null
run .venv/bin/python bench/wasm_size.py   # where the main .wasm's bytes go, by feature
run .venv/bin/python bench/run.py "$@"
run .venv/bin/python bench/batch.py "$@"   # dataset scale: parse_many, parse_arrow, beacon batch
