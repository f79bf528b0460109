#!/usr/bin/env bash
# THE test command.  Runs scripts/setup.sh, then every test suite that exists:
#   rust     cargo fmt --check; cargo clippy -D warnings; cargo doc -D warnings (the core, private
#            items too); cargo test --workspace (always)
#   python   maturin develop --release; pytest tests/python        (pyproject.toml or tests/python)
#   wasm     scripts/build-wasm.sh; node --test tests/js/...       (bindings-wasm/Cargo.toml or tests/js)
#   browser  pytest tests/browser (Playwright + /usr/bin/chromium) (tests/browser)
#   engines  build/engines-venv's pytest tests/engines: the vLLM and SGLang plugins against the
#            real packages, with PYTHONPATH=python (the python suite's build)  (tests/engines)
# A suite whose directory exists but whose build fails, or which runs no test, FAILS.
# All suites run even if one fails; a PASS/FAIL/SKIP line per suite is printed at the
# end and the exit status is non-zero if any suite failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac
# Browser tests launch Debian's chromium through Playwright; nothing may download a browser.
export BEACON_CHROMIUM="${BEACON_CHROMIUM:-/usr/bin/chromium}"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
unset RUSTUP_TOOLCHAIN   # native builds use the default toolchain; build-wasm.sh sets its own

VENV="$ROOT/.venv"
PY="$VENV/bin/python"

banner() { printf '\n==================== %s ====================\n' "$*"; }
cmd()    { printf '[test] $ %s\n' "$*"; }

if ! bash scripts/setup.sh; then
  echo "[test] setup FAILED; no suite was run"
  echo "SETUP: FAIL"
  exit 1
fi

# ---------------------------------------------------------------- suites
# Each runs in a subshell with `set -e`; its exit status is the suite's result.

suite_rust() {
  cmd "cargo fmt --all --check"
  cargo fmt --all --check
  cmd "cargo clippy --workspace --all-targets -- -D warnings"
  cargo clippy --workspace --all-targets -- -D warnings
  cmd "RUSTDOCFLAGS='-D warnings' cargo doc -p beacon-core --no-deps --document-private-items"
  RUSTDOCFLAGS='-D warnings' cargo doc -p beacon-core --no-deps --document-private-items
  cmd "cargo test --workspace"
  cargo test --workspace
}

suite_python() {
  [ -f pyproject.toml ] || { echo "tests/python exists but pyproject.toml does not"; return 1; }
  cmd "VIRTUAL_ENV=.venv .venv/bin/maturin develop --release"
  VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release
  if [ -d tests/python ]; then
    cmd ".venv/bin/python -m pytest tests/python"
    local rc=0
    "$PY" -m pytest tests/python || rc=$?
    [ "$rc" -ne 5 ] || echo "[test] pytest exit 5: no tests were collected in tests/python -> FAIL"
    return "$rc"
  fi
  echo "[test] no tests/python: python package built, no tests run"
}

js_test_files() {  # node's test-file naming conventions, searched under tests/js
  find tests/js -type f \( -name '*.test.js' -o -name '*.test.mjs' -o -name '*.test.cjs' \
    -o -name '*-test.js' -o -name '*-test.mjs' -o -name '*-test.cjs' \
    -o -name '*_test.js' -o -name '*_test.mjs' -o -name '*_test.cjs' \
    -o -name 'test-*.js' -o -name 'test-*.mjs' -o -name 'test-*.cjs' \
    -o -name 'test.js' -o -name 'test.mjs' -o -name 'test.cjs' \) \
    -not -path '*/node_modules/*' | sort
}

suite_wasm() {
  [ -f bindings-wasm/Cargo.toml ] || { echo "tests/js exists but bindings-wasm/Cargo.toml does not"; return 1; }
  cmd "bash scripts/build-wasm.sh"
  bash scripts/build-wasm.sh
  if [ -d tests/js ]; then
    local files
    mapfile -t files < <(js_test_files)
    if [ "${#files[@]}" -eq 0 ]; then
      echo "[test] tests/js has no test files (*.test.mjs, test-*.js, ...) -> FAIL"
      return 1
    fi
    cmd "node --test ${files[*]}"
    local log rc=0
    log=$(mktemp)
    node --test "${files[@]}" 2>&1 | tee "$log" || rc=$?
    if [ "$rc" -eq 0 ] && grep -Eq '^(# |ℹ )tests 0$' "$log"; then
      echo "[test] node --test ran 0 tests -> FAIL"; rc=1
    fi
    rm -f "$log"
    return "$rc"
  fi
  echo "[test] no tests/js: wasm package built, no tests run"
}

suite_browser() {
  # The browser tests load playground/ (with the web build in playground/pkg).
  if [ -f bindings-wasm/Cargo.toml ] && ! compgen -G "build/pkg-web/*.wasm" >/dev/null; then
    cmd "bash scripts/build-wasm.sh"
    bash scripts/build-wasm.sh
  fi
  if [ -d playground ] && [ -d build/pkg-web ]; then
    cmd "rm -rf playground/pkg && cp -r build/pkg-web playground/pkg"
    rm -rf playground/pkg
    cp -r build/pkg-web playground/pkg
  fi
  cmd ".venv/bin/python -m pytest tests/browser"
  local rc=0
  "$PY" -m pytest tests/browser || rc=$?
  [ "$rc" -ne 5 ] || echo "[test] pytest exit 5: no tests were collected in tests/browser -> FAIL"
  return "$rc"
}

suite_engines() {
  # The engine venv (vllm, sglang) is made by scripts/setup.sh; beacon comes from python/, where
  # the python suite's `maturin develop` put the native module (abi3, so any Python >= 3.11).
  local epy="$ROOT/build/engines-venv/bin/python"
  if [ ! -x "$epy" ]; then
    echo "[test] build/engines-venv is missing (scripts/setup.sh installs it) -> FAIL"
    return 1
  fi
  if ! compgen -G "python/beacon/_core*.so" >/dev/null; then
    echo "[test] python/beacon/_core*.so is missing (the python suite builds it) -> FAIL"
    return 1
  fi
  cmd "PYTHONPATH=python build/engines-venv/bin/python -m pytest tests/engines"
  local rc=0
  PYTHONPATH="$ROOT/python" "$epy" -m pytest tests/engines || rc=$?
  [ "$rc" -ne 5 ] || echo "[test] pytest exit 5: no tests were collected in tests/engines -> FAIL"
  return "$rc"
}

# ---------------------------------------------------------------- runner
NAMES=()
RESULTS=()
TIMES=()
FAILED=0
run_suite() {  # NAME ENABLED(0|1) FUNCTION
  local name=$1 enabled=$2 fn=$3 t0 rc
  NAMES+=("$name")
  if [ "$enabled" != 1 ]; then
    RESULTS+=("SKIP"); TIMES+=("-")
    return
  fi
  banner "$name"
  t0=$(date +%s)
  ( set -e; "$fn" )
  rc=$?
  TIMES+=("$(( $(date +%s) - t0 ))s")
  if [ "$rc" -eq 0 ]; then RESULTS+=("PASS"); else RESULTS+=("FAIL (exit $rc)"); FAILED=1; fi
}

has() { [ -e "$1" ] && echo 1 || echo 0; }
either() { { [ -e "$1" ] || [ -e "$2" ]; } && echo 1 || echo 0; }

run_suite rust    "$(has Cargo.toml)"                            suite_rust
run_suite python  "$(either pyproject.toml tests/python)"        suite_python
run_suite wasm    "$(either bindings-wasm/Cargo.toml tests/js)"  suite_wasm
run_suite browser "$(has tests/browser)"                         suite_browser
run_suite engines "$(has tests/engines)"                         suite_engines

banner "summary"
npass=0; nfail=0; nskip=0
for i in "${!NAMES[@]}"; do
  printf '%-8s %-16s %s\n' "${NAMES[$i]}" "${RESULTS[$i]}" "${TIMES[$i]}"
  case "${RESULTS[$i]}" in PASS) npass=$((npass+1));; SKIP) nskip=$((nskip+1));; *) nfail=$((nfail+1));; esac
done
echo "suites: $npass passed, $nfail failed, $nskip skipped"
exit "$FAILED"
