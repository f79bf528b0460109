#!/usr/bin/env bash
# Make a fresh Debian 12 machine (rustup stable, python3.11+ with pip, node 20 + npm
# preinstalled) ready to build and test every part of beacon.
#
#   bash scripts/setup.sh           everything: what --serve installs, plus the test-only tools
#                                   (what scripts/test.sh runs)
#   bash scripts/setup.sh --serve   only what building the packages and serving the playground
#                                   need (what scripts/serve.sh runs): the wasm32 toolchain,
#                                   wasm-bindgen-cli, wasm-opt, esbuild, and a .venv with maturin
#                                   (requirements-serve.txt). No Chromium, JRE, shellcheck, Go or
#                                   actionlint, rustfmt/clippy, PySpark, Playwright or TypeScript.
#
# Idempotent: every step checks whether it is already done (locally, without network)
# and is skipped if so, so a re-run takes seconds.  Before each step that does work
# the script prints the shell command it is equivalent to.
#
# Outputs used by the other scripts:
#   build/wasm-toolchain   rustup toolchain name to use for the wasm32 build ONLY
#                          (`RUSTUP_TOOLCHAIN=$(cat build/wasm-toolchain)`); the native
#                          build keeps the default toolchain.
#   .venv/                 Python virtualenv with requirements-dev.txt installed (--serve:
#                          requirements-serve.txt, which requirements-dev.txt includes).
#   build/engines-venv/    (full mode only) virtualenv with vllm and sglang for the engine suite
#                          (requirements-engines.txt, then requirements-engines-nodeps.txt with
#                          --no-deps); about 6.9 GB.
#
# Environment knobs:
#   PYTHON=python3                  interpreter used to create .venv (>= 3.11)
#   BEACON_WASM_FORCE_FALLBACK=1    skip `rustup target add` and use the Debian toolchain
set -euo pipefail

MODE=full
case "${1:-}" in
  "") ;;
  --serve) MODE=serve ;;
  --full) MODE=full ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) printf '[setup] ERROR: unknown argument %s (usage: setup.sh [--serve])\n' "$1" >&2; exit 2 ;;
esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac

BUILD="$ROOT/build"
STAMPS="$BUILD/.stamps"
mkdir -p "$STAMPS"

# Only one setup at a time (test.sh and serve.sh both call this).
exec 9>"$BUILD/.setup.lock"
flock 9

WASM_TARGET=wasm32-unknown-unknown
WASM_BINDGEN_DEFAULT=0.2.130          # used only if the version cannot be read from the repo
DEBIAN_WEB_TC=debian-web
DEBIAN_SYSROOT_LIB=/usr/lib/rustlib/$WASM_TARGET/lib
# No Debian binaryen: bookworm's wasm-opt 108 corrupts wasm-bindgen's externref table
# (the module then fails at instantiation with "WebAssembly.Table.set(): Argument 1 is
# invalid for table").  wasm-opt comes from the
# npm package `binaryen` instead (BINARYEN_NPM_VERSION, installed under build/tools/).
# gzip: bindings-wasm/build.sh prints the gzipped size (Debian has it already; it is Essential).
APT_PACKAGES=(gzip)
# Test-only (not with --serve): Chromium and its fonts for the browser suite, shellcheck for
# actionlint (tests/python/test_release.py), and openjdk-17-jre-headless, the Java runtime PySpark
# needs (tests/python/test_spark_example.py).
APT_TEST_PACKAGES=(chromium fonts-liberation shellcheck openjdk-17-jre-headless)
# rust-web-llvm (a Recommends of rustc-web) provides /usr/bin/rust-lld -> lld-22, the wasm linker.
APT_FALLBACK_PACKAGES=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22)
BINARYEN_NPM_VERSION=132.0.0
BINARYEN_DIR="$BUILD/tools/binaryen"
# actionlint checks .github/workflows/ in the Python suite (tests/python/test_release.py); it
# runs shellcheck (an apt package above) on the workflows' `run:` scripts.
ACTIONLINT_MODULE=github.com/rhysd/actionlint
ACTIONLINT_VERSION=v1.7.12
ACTIONLINT_BIN="$BUILD/tools/go/bin/actionlint"
PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
REQS_SERVE="$ROOT/requirements-serve.txt"   # what building the Python package needs (maturin)
REQS_DEV="$ROOT/requirements-dev.txt"       # -r requirements-serve.txt, plus the test tools
ENGINES_VENV="$BUILD/engines-venv"          # test-only: vllm and sglang for tests/engines
REQS_ENGINES="$ROOT/requirements-engines.txt"
REQS_ENGINES_NODEPS="$ROOT/requirements-engines-nodeps.txt"

T0=$(date +%s)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

log()  { printf '[setup] %s\n' "$*"; }
cmd()  { printf '[setup] $ %s\n' "$*"; }   # the command a step is equivalent to
skip() { printf '[setup] ok: %s\n' "$*"; }
die()  { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- apt packages
APT_UPDATED=0
apt_missing() {  # prints the packages among "$@" that are not installed
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}
apt_ensure() {
  local missing
  missing=$(apt_missing "$@" | tr '\n' ' ')
  if [ -z "${missing// /}" ]; then
    skip "apt packages installed: $*"
    return 0
  fi
  if [ "$APT_UPDATED" = 0 ]; then
    cmd "${SUDO:+$SUDO }apt-get update"
    $SUDO apt-get update -q
    APT_UPDATED=1
  fi
  cmd "${SUDO:+$SUDO }apt-get install -y --no-install-recommends ${missing% }"
  # shellcheck disable=SC2086
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# ---------------------------------------------------------------- base tools
command -v rustup >/dev/null || die "rustup not found (expected in $CARGO_BIN)"
command -v cargo  >/dev/null || die "cargo not found"
command -v node   >/dev/null || die "node not found (node 20 expected)"
command -v npm    >/dev/null || die "npm not found"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
  || die "$PYTHON is older than 3.11"

log "mode: $MODE"
if [ "$MODE" = full ]; then
  apt_ensure "${APT_PACKAGES[@]}" "${APT_TEST_PACKAGES[@]}"
else
  apt_ensure "${APT_PACKAGES[@]}"
fi

# rustfmt and clippy: the Rust suite checks formatting and lints (rustup's minimal profile lacks them)
if [ "$MODE" = serve ]; then
  :
elif cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
  skip "rustfmt and clippy"
else
  cmd "rustup component add rustfmt clippy"
  rustup component add rustfmt clippy
fi

# ---------------------------------------------------------------- wasm32 toolchain
# probe_wasm TOOLCHAIN: can TOOLCHAIN build a std-using, LTO'd cdylib for wasm32?
probe_wasm() {
  local tc=$1 dir
  dir=$(mktemp -d)
  mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<'EOF'
[package]
name = "beacon_wasm_probe"
version = "0.0.0"
edition = "2021"
[lib]
crate-type = ["cdylib"]
[profile.release]
lto = true
codegen-units = 1
opt-level = "z"
EOF
  cat >"$dir/src/lib.rs" <<'EOF'
#[no_mangle]
pub extern "C" fn probe(n: u32) -> u32 {
    let v: Vec<String> = (0..n).map(|i| format!("{i}")).collect();
    v.join(",").len() as u32
}
EOF
  cmd "(cd $dir && cargo +$tc build --release --target $WASM_TARGET)"
  if (cd "$dir" && RUSTUP_TOOLCHAIN="$tc" CARGO_TARGET_DIR="$dir/target" \
        cargo build --release --offline --quiet --target "$WASM_TARGET") \
     && head -c4 "$dir/target/$WASM_TARGET/release/beacon_wasm_probe.wasm" | od -An -c | grep -q 'a   s   m'; then
    rm -rf "$dir"; return 0
  fi
  rm -rf "$dir"; return 1
}

default_toolchain() {  # name of the toolchain rustup selects in this repo
  rustup show active-toolchain 2>/dev/null | awk 'NR==1{print $1}'
}

# Build std for wasm32 from Debian's vendored sources and install it into /usr's sysroot.
debian_web_build_std() {
  local want have tmp
  want=$(/usr/bin/rustc --version)
  have=$(cat "$DEBIAN_SYSROOT_LIB/../.beacon-std-stamp" 2>/dev/null || true)
  if [ "$want" = "$have" ] && compgen -G "$DEBIAN_SYSROOT_LIB/libstd-*.rlib" >/dev/null; then
    skip "wasm32 std already built for $want"
    return 0
  fi
  tmp=$(mktemp -d)
  mkdir -p "$tmp/src" "$tmp/.cargo"
  printf '[package]\nname="stdbuild"\nversion="0.0.0"\nedition="2021"\n[lib]\ncrate-type=["cdylib"]\n[profile.release]\npanic="abort"\n' >"$tmp/Cargo.toml"
  : >"$tmp/src/lib.rs"
  printf '[source.crates-io]\nreplace-with="vendored-std"\n[source.vendored-std]\ndirectory="/usr/lib/rustlib/src/rust/library/vendor"\n' >"$tmp/.cargo/config.toml"
  cmd "(cd $tmp && RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Cembed-bitcode=yes /usr/bin/cargo build --release --target $WASM_TARGET -Zbuild-std=std,panic_abort)"
  # embed-bitcode=yes: without it crates built with `lto = true` fail to link.
  (cd "$tmp" && env -u RUSTUP_TOOLCHAIN CARGO_TARGET_DIR="$tmp/target" RUSTC=/usr/bin/rustc \
      RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Cembed-bitcode=yes" \
      /usr/bin/cargo build --release --offline --target "$WASM_TARGET" -Zbuild-std=std,panic_abort)
  cmd "cp $tmp/target/$WASM_TARGET/release/deps/lib*.rlib $DEBIAN_SYSROOT_LIB/"
  $SUDO mkdir -p "$DEBIAN_SYSROOT_LIB"
  $SUDO rm -f "$DEBIAN_SYSROOT_LIB"/lib*.rlib
  $SUDO cp "$tmp/target/$WASM_TARGET/release/deps/"lib*.rlib "$DEBIAN_SYSROOT_LIB/"
  $SUDO rm -f "$DEBIAN_SYSROOT_LIB"/libstdbuild*
  echo "$want" | $SUDO tee "$DEBIAN_SYSROOT_LIB/../.beacon-std-stamp" >/dev/null
  rm -rf "$tmp"
}

setup_debian_web() {
  log "falling back to Debian's rustc-web toolchain for wasm32"
  apt_ensure "${APT_FALLBACK_PACKAGES[@]}"
  debian_web_build_std
  if rustup toolchain list | awk '{print $1}' | grep -qx "$DEBIAN_WEB_TC"; then
    skip "rustup toolchain $DEBIAN_WEB_TC linked"
  else
    cmd "rustup toolchain link $DEBIAN_WEB_TC /usr"
    rustup toolchain link "$DEBIAN_WEB_TC" /usr
  fi
}

wasm_stamp_key() {  # TOOLCHAIN -> key; changes when its rustc or wasm32 std changes
  local tc=$1 ver sysroot libs
  ver=$(rustup run "$tc" rustc --version 2>/dev/null) || return 1
  sysroot=$(rustup run "$tc" rustc --print sysroot 2>/dev/null) || return 1
  libs=$(ls "$sysroot/lib/rustlib/$WASM_TARGET/lib/" 2>/dev/null | grep '^libstd-' | head -1)
  [ -n "$libs" ] || return 1
  printf '%s|%s|%s\n' "$tc" "$ver" "$libs"
}

ensure_wasm_toolchain() {
  local tc key
  if [ -f "$BUILD/wasm-toolchain" ]; then
    tc=$(cat "$BUILD/wasm-toolchain")
    if key=$(wasm_stamp_key "$tc") && [ "$key" = "$(cat "$STAMPS/wasm-toolchain" 2>/dev/null)" ]; then
      skip "wasm32 toolchain: $tc ($(rustup run "$tc" rustc --version))"
      return 0
    fi
  fi
  rm -f "$STAMPS/wasm-toolchain"

  tc=$(default_toolchain)
  [ -n "$tc" ] || die "rustup has no default toolchain"
  if [ "${BEACON_WASM_FORCE_FALLBACK:-0}" != 1 ]; then
    cmd "rustup target add $WASM_TARGET"
    if rustup target add "$WASM_TARGET" && probe_wasm "$tc"; then
      echo "$tc" >"$BUILD/wasm-toolchain"
      wasm_stamp_key "$tc" >"$STAMPS/wasm-toolchain"
      log "wasm32 toolchain: $tc"
      return 0
    fi
    log "rustup's $WASM_TARGET target is unavailable for $tc"
  fi

  setup_debian_web
  probe_wasm "$DEBIAN_WEB_TC" || die "the $DEBIAN_WEB_TC toolchain cannot build for $WASM_TARGET"
  echo "$DEBIAN_WEB_TC" >"$BUILD/wasm-toolchain"
  wasm_stamp_key "$DEBIAN_WEB_TC" >"$STAMPS/wasm-toolchain"
  log "wasm32 toolchain: $DEBIAN_WEB_TC"
}
ensure_wasm_toolchain

# ---------------------------------------------------------------- wasm-bindgen-cli
# The CLI must be exactly the version of the `wasm-bindgen` crate the project uses.
wasm_bindgen_version() {
  local v=""
  if [ -f Cargo.lock ]; then
    v=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock)
  fi
  if [ -z "$v" ]; then
    local f
    for f in bindings-wasm/Cargo.toml Cargo.toml; do
      [ -f "$f" ] || continue
      v=$(grep -E '^[[:space:]]*wasm-bindgen[[:space:]]*=' "$f" \
            | head -1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1 || true)
      [ -n "$v" ] && break
    done
  fi
  echo "${v:-$WASM_BINDGEN_DEFAULT}"
}

# locked_resolves CRATE VERSION: does the Cargo.lock the crate ships resolve against the registry
# index this machine sees?  Some registry mirrors lack a version that lockfile pins (one lacked
# webpki-roots 1.0.11, which wasm-bindgen-cli 0.2.130's lockfile pins), and `cargo install
# --locked` then stops with "error: failed to select a version".  Asked first, quietly, so the
# install below is tried once, the way that works: the crate's source is fetched (cargo fetch
# of a throwaway project that depends on it; the build needs it anyway) and `cargo metadata
# --locked` runs in a copy of it.  The answer and cargo's reason are in $LOCK_REASON.
LOCK_REASON=""
locked_resolves() {
  local crate=$1 version=$2 dir src d rc=0
  dir=$(mktemp -d)
  mkdir -p "$dir/probe/src"
  printf '[package]\nname = "beacon_install_probe"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\n%s = "=%s"\n' \
    "$crate" "$version" >"$dir/probe/Cargo.toml"
  : >"$dir/probe/src/lib.rs"
  if ! (cd "$dir/probe" && cargo fetch --quiet) 2>"$dir/err"; then
    LOCK_REASON=$(grep -m1 '^error' "$dir/err" | sed 's/^error: //')
    rm -rf "$dir"; return 1
  fi
  src=""
  for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate-$version"; do
    if [ -d "$d" ]; then src=$d; break; fi
  done
  if [ -z "$src" ] || [ ! -f "$src/Cargo.lock" ]; then
    LOCK_REASON="the crate ships no Cargo.lock"
    rm -rf "$dir"; return 1
  fi
  cp -r "$src" "$dir/crate"
  (cd "$dir/crate" && CARGO_TARGET_DIR="$dir/target" cargo metadata --locked --format-version 1 >/dev/null) 2>"$dir/err" || rc=$?
  LOCK_REASON=$(grep -m1 '^error' "$dir/err" | sed 's/^error: //')
  rm -rf "$dir"
  return "$rc"
}

# cargo_install CRATE VERSION: `cargo install CRATE --version =VERSION --locked` (the versions the
# crate was released with), or, where this registry index cannot satisfy that lockfile, the same
# version of the crate with a fresh resolution of its dependencies (and a note saying why).
cargo_install() {
  local crate=$1 version=$2
  if locked_resolves "$crate" "$version"; then
    cmd "cargo install $crate --version =$version --locked"
    cargo install "$crate" --version "=$version" --locked
    return
  fi
  log "note: $crate $version's own Cargo.lock does not resolve against this registry index"
  log "      (cargo: ${LOCK_REASON:-no reason given}),"
  log "      so its dependencies are resolved afresh (same $crate version; expected on some mirrors)"
  cmd "cargo install $crate --version =$version"
  cargo install "$crate" --version "=$version"
}

WBG_VERSION=$(wasm_bindgen_version)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WBG_VERSION" ]; then
  skip "wasm-bindgen $WBG_VERSION"
else
  cargo_install wasm-bindgen-cli "$WBG_VERSION"
  [ "$(wasm-bindgen --version | awk '{print $2}')" = "$WBG_VERSION" ] \
    || die "wasm-bindgen on PATH is not $WBG_VERSION: $(command -v wasm-bindgen)"
fi

# ---------------------------------------------------------------- wasm-opt (binaryen)
WASM_OPT="$BINARYEN_DIR/node_modules/.bin/wasm-opt"
BINARYEN_MAJOR=${BINARYEN_NPM_VERSION%%.*}
if [ -x "$WASM_OPT" ] && "$WASM_OPT" --version 2>/dev/null | grep -q "version $BINARYEN_MAJOR\b"; then
  skip "wasm-opt $BINARYEN_MAJOR (npm binaryen@$BINARYEN_NPM_VERSION in build/tools/binaryen)"
else
  cmd "npm install --prefix build/tools/binaryen binaryen@$BINARYEN_NPM_VERSION"
  mkdir -p "$BINARYEN_DIR"
  npm install --prefix "$BINARYEN_DIR" --no-audit --no-fund "binaryen@$BINARYEN_NPM_VERSION"
  "$WASM_OPT" --version
fi

# ---------------------------------------------------------------- JS tooling (esbuild, typescript)
# Exact versions from tests/js/tooling/package-lock.json, installed once with `npm ci`: the wasm
# build makes the package's CommonJS entry with esbuild (a `dependency` there, so --serve installs
# it with `npm ci --omit=dev`), and the Node and browser suites run tsc (a `devDependency`,
# test-only) and esbuild from there, offline.  The stamp records which of the two was installed.
TOOLING="$ROOT/tests/js/tooling"
TOOLING_KEY=$(sha256sum "$TOOLING/package-lock.json" | cut -d' ' -f1)
TOOLING_HAVE=$(cat "$TOOLING/node_modules/.beacon-lock" 2>/dev/null || true)
if [ "$TOOLING_HAVE" = "$TOOLING_KEY" ]; then
  skip "esbuild, typescript (tests/js/tooling)"
elif [ "$MODE" = serve ] && [ "$TOOLING_HAVE" = "$TOOLING_KEY serve" ]; then
  skip "esbuild (tests/js/tooling)"
elif [ "$MODE" = serve ]; then
  cmd "(cd tests/js/tooling && npm ci --omit=dev --no-audit --no-fund)"
  (cd "$TOOLING" && npm ci --omit=dev --no-audit --no-fund)
  "$TOOLING/node_modules/.bin/esbuild" --version >/dev/null
  echo "$TOOLING_KEY serve" >"$TOOLING/node_modules/.beacon-lock"
else
  cmd "(cd tests/js/tooling && npm ci --no-audit --no-fund)"
  (cd "$TOOLING" && npm ci --no-audit --no-fund)
  "$TOOLING/node_modules/.bin/esbuild" --version >/dev/null
  "$TOOLING/node_modules/.bin/tsc" --version >/dev/null
  echo "$TOOLING_KEY" >"$TOOLING/node_modules/.beacon-lock"
fi

# ---------------------------------------------------------------- actionlint (Go module)
# Test-only. Built from the Go module proxy into build/tools/go/bin (GOBIN), so nothing is fetched
# when the tests run.  Go comes with the machine; /usr/local/go/bin is where its image puts it.
if [ "$MODE" = serve ]; then
  :
elif [ "$("$ACTIONLINT_BIN" -version 2>/dev/null | head -1)" = "$ACTIONLINT_VERSION" ]; then
  skip "actionlint $ACTIONLINT_VERSION (build/tools/go/bin)"
else
  if ! command -v go >/dev/null && [ -x /usr/local/go/bin/go ]; then export PATH="$PATH:/usr/local/go/bin"; fi
  command -v go >/dev/null || die "go not found: the test command builds actionlint with it (actionlint v1.7.12 needs Go >= 1.25; scripts/serve.sh needs no Go)"
  cmd "GOBIN=build/tools/go/bin go install $ACTIONLINT_MODULE/cmd/actionlint@$ACTIONLINT_VERSION"
  mkdir -p "$(dirname "$ACTIONLINT_BIN")"
  GOBIN="$(dirname "$ACTIONLINT_BIN")" GOTOOLCHAIN=local go install "$ACTIONLINT_MODULE/cmd/actionlint@$ACTIONLINT_VERSION"
  [ "$("$ACTIONLINT_BIN" -version | head -1)" = "$ACTIONLINT_VERSION" ] \
    || die "build/tools/go/bin/actionlint is not $ACTIONLINT_VERSION: $("$ACTIONLINT_BIN" -version | head -1)"
fi

# ---------------------------------------------------------------- python venv
venv_ok() { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys' 2>/dev/null; }
if venv_ok; then
  skip "virtualenv $VENV"
else
  cmd "$PYTHON -m venv .venv"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
[ -f "$REQS_SERVE" ] || die "missing $REQS_SERVE"
[ -f "$REQS_DEV" ] || die "missing $REQS_DEV"
# The stamp is the key of what was installed: the serve set, or the dev set (which includes it).
PYVER=$("$VENV/bin/python" --version 2>&1)
SERVE_KEY="serve $(sha256sum "$REQS_SERVE" | cut -d' ' -f1) $PYVER"
DEV_KEY="dev $(cat "$REQS_SERVE" "$REQS_DEV" | sha256sum | cut -d' ' -f1) $PYVER"
REQ_HAVE=$(cat "$VENV/.beacon-requirements" 2>/dev/null || true)
if [ "$REQ_HAVE" = "$DEV_KEY" ]; then
  skip "python dev requirements (requirements-dev.txt)"
elif [ "$MODE" = serve ] && [ "$REQ_HAVE" = "$SERVE_KEY" ]; then
  skip "python build requirements (requirements-serve.txt)"
elif [ "$MODE" = serve ]; then
  cmd ".venv/bin/pip install -r requirements-serve.txt"
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$REQS_SERVE"
  echo "$SERVE_KEY" >"$VENV/.beacon-requirements"
else
  cmd ".venv/bin/pip install -r requirements-dev.txt"
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$REQS_DEV"
  echo "$DEV_KEY" >"$VENV/.beacon-requirements"
fi
# The sdist test (tests/python/test_release.py) installs the sdist into a fresh venv with pip
# offline (--no-index): its build backend, maturin at requirements-serve.txt's version, comes
# from this local wheelhouse.  Test-only.
MATURIN_VERSION=$(sed -n 's/^maturin==\([^[:space:]]*\).*/\1/p' "$REQS_SERVE")
[ -n "$MATURIN_VERSION" ] || die "requirements-serve.txt pins no maturin version"
WHEELHOUSE="$BUILD/wheelhouse"
if [ "$MODE" = serve ]; then
  :
elif compgen -G "$WHEELHOUSE/maturin-$MATURIN_VERSION-*.whl" >/dev/null; then
  skip "maturin $MATURIN_VERSION wheel in build/wheelhouse"
else
  cmd ".venv/bin/pip download --no-deps --only-binary :all: -d build/wheelhouse maturin==$MATURIN_VERSION"
  "$VENV/bin/pip" download --disable-pip-version-check -q --no-deps --only-binary :all: \
    -d "$WHEELHOUSE" "maturin==$MATURIN_VERSION"
fi
# Playwright drives Debian's /usr/bin/chromium (executable_path); never `playwright install`.

# ---------------------------------------------------------------- engine venv (test-only)
# tests/engines runs beacon's vLLM and SGLang plugins against the real packages, on CPU: they
# bring torch (about 6.9 GB with its CUDA libraries, a few minutes cold), so they get their own
# virtualenv, never .venv. Two pip calls: the pinned imports (requirements-engines.txt), then
# vllm and sglang with --no-deps (requirements-engines-nodeps.txt). The stamp is the key of both.
if [ "$MODE" = full ]; then
  [ -f "$REQS_ENGINES" ] || die "missing $REQS_ENGINES"
  [ -f "$REQS_ENGINES_NODEPS" ] || die "missing $REQS_ENGINES_NODEPS"
  ENGINES_KEY="engines $(cat "$REQS_ENGINES" "$REQS_ENGINES_NODEPS" | sha256sum | cut -d' ' -f1) $("$PYTHON" --version 2>&1)"
  engines_venv_ok() { [ -x "$ENGINES_VENV/bin/python" ] && "$ENGINES_VENV/bin/python" -c 'import sys' 2>/dev/null; }
  if engines_venv_ok && [ "$(cat "$ENGINES_VENV/.beacon-requirements" 2>/dev/null || true)" = "$ENGINES_KEY" ]; then
    skip "engine virtualenv build/engines-venv (requirements-engines*.txt: vllm, sglang)"
  else
    if ! engines_venv_ok; then
      cmd "$PYTHON -m venv build/engines-venv"
      rm -rf "$ENGINES_VENV"
      "$PYTHON" -m venv "$ENGINES_VENV"
    fi
    rm -f "$ENGINES_VENV/.beacon-requirements"
    cmd "build/engines-venv/bin/pip install -r requirements-engines.txt"
    "$ENGINES_VENV/bin/pip" install --disable-pip-version-check -q -r "$REQS_ENGINES"
    cmd "build/engines-venv/bin/pip install --no-deps -r requirements-engines-nodeps.txt"
    "$ENGINES_VENV/bin/pip" install --disable-pip-version-check -q --no-deps -r "$REQS_ENGINES_NODEPS"
    echo "$ENGINES_KEY" >"$ENGINES_VENV/.beacon-requirements"
  fi
fi

# ---------------------------------------------------------------- summary
log "tools ($MODE):"
printf '  %-14s %s\n' \
  rustc "$(rustc --version)" \
  wasm-toolchain "$(cat "$BUILD/wasm-toolchain") ($(rustup run "$(cat "$BUILD/wasm-toolchain")" rustc --version))" \
  wasm-bindgen "$(wasm-bindgen --version)" \
  wasm-opt "$("$WASM_OPT" --version) (build/tools/binaryen)" \
  node "$(node --version)" \
  esbuild "$("$TOOLING/node_modules/.bin/esbuild" --version) (tests/js/tooling)" \
  python "$("$VENV/bin/python" --version 2>&1) in .venv" \
  maturin "$("$VENV/bin/maturin" --version 2>&1) in .venv"
if [ "$MODE" = full ]; then
  printf '  %-14s %s\n' \
    actionlint "$("$ACTIONLINT_BIN" -version | head -1) (build/tools/go/bin)" \
    chromium "$(/usr/bin/chromium --version 2>/dev/null || echo missing)" \
    java "$(java -version 2>&1 | head -1)" \
    engines "$("$ENGINES_VENV/bin/python" --version 2>&1) in build/engines-venv (vllm, sglang)" \
    typescript "$("$TOOLING/node_modules/.bin/tsc" --version) (tests/js/tooling)"
fi
log "done in $(( $(date +%s) - T0 ))s"
