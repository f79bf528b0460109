#!/usr/bin/env bash
# Builds the npm package `beacon-toolcall` into build/pkg-web (or the directory given as $1):
#   cargo build (wasm32, size-tuned profile from bindings-wasm/.cargo/config.toml)
#   -> wasm-opt -Oz -> wasm-bindgen --target web -> hand-written wrapper js/index.js + .d.ts.
# The one package serves Node >= 20 (reads the .wasm from disk) and browsers (fetches it).
#
# Needs: the wasm32 toolchain named in build/wasm-toolchain (written by scripts/setup.sh;
# default: rustup's active one), wasm-bindgen-cli of the same version as the wasm-bindgen
# crate, and binaryen's wasm-opt (skipped with a warning when missing).
# Prints, before each step, the shell command it is equivalent to.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="$(realpath -m "${1:-$ROOT/build/pkg-web}")"
TARGET=wasm32-unknown-unknown
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [ -z "${RUSTUP_TOOLCHAIN:-}" ] && [ -f "$ROOT/build/wasm-toolchain" ]; then
  export RUSTUP_TOOLCHAIN="$(cat "$ROOT/build/wasm-toolchain")"
fi

step() { printf '[build-wasm] $ %s\n' "$*"; }

# The two modules: beacon_wasm (every parse function) and beacon_template (FormatSpec.fromTemplate,
# which links the template renderer; index.js loads it on first use). Cargo picks up
# bindings-wasm/.cargo/config.toml only when run from bindings-wasm/ or below.
# One cargo run per module: built together, cargo would give the first module the core's
# `templates` feature too (features are unified across the packages of one build).
for package in beacon-wasm beacon-wasm-template; do
  step "(cd bindings-wasm && RUSTUP_TOOLCHAIN=${RUSTUP_TOOLCHAIN:-} cargo build --release --target $TARGET -p $package)"
  (cd "$HERE" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build --release --target "$TARGET" --quiet -p "$package")
done

# wasm-opt runs on cargo's output, *before* wasm-bindgen. That order works with every binaryen:
# Debian 12's binaryen 108 mixes up the two tables of a wasm-bindgen module when it runs after
# wasm-bindgen (it exports the funcref table as `__wbindgen_externrefs`; instantiation then
# fails), and optimising first gives the same size (112 KB either way, measured).
# The binary: $WASM_OPT, else the pinned npm binaryen scripts/setup.sh installs, else PATH.
# The feature flags are those rustc enables by default for wasm32 (Rust >= 1.87); binaryen
# rejects a module that uses features it was not told about.
WASM_OPT="${WASM_OPT:-}"
if [ -z "$WASM_OPT" ]; then
  if [ -x "$ROOT/build/tools/binaryen/node_modules/.bin/wasm-opt" ]; then
    WASM_OPT="$ROOT/build/tools/binaryen/node_modules/.bin/wasm-opt"
  else
    WASM_OPT="$(command -v wasm-opt || true)"
  fi
fi
[ -n "$WASM_OPT" ] || echo "[build-wasm] warning: wasm-opt not found; the modules are larger than they need to be" >&2

rm -rf "$OUT"
mkdir -p "$OUT"
# --experimental-reset-state-function: the glue exports __wbg_reset_state(), which replaces the
# instance synchronously (same compiled module, fresh memory). js/index.js calls it after a trap
# (a panic is a bug in beacon), so later calls never run on an instance left mid-operation.
for name in beacon_wasm beacon_wasm_template; do
  WASM_IN="$TARGET_DIR/$TARGET/release/$name.wasm"
  out_name=${name/beacon_wasm_template/beacon_template}
  OPT_IN="$WASM_IN"
  if [ -n "$WASM_OPT" ]; then
    OPT_IN="$TARGET_DIR/$TARGET/release/$name.opt.wasm"
    step "${WASM_OPT#"$ROOT"/} -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int --enable-mutable-globals --enable-reference-types --enable-multivalue $WASM_IN -o $OPT_IN"
    "$WASM_OPT" -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$WASM_IN" -o "$OPT_IN"
  fi
  step "wasm-bindgen --target web --no-typescript --experimental-reset-state-function --out-name $out_name --out-dir $OUT $OPT_IN"
  wasm-bindgen --target web --no-typescript --experimental-reset-state-function \
    --out-name "$out_name" --out-dir "$OUT" "$OPT_IN"
  grep -q '^export function __wbg_reset_state' "$OUT/$out_name.js" || {
    echo "[build-wasm] error: wasm-bindgen did not generate __wbg_reset_state (js/index.js needs it)" >&2
    exit 1
  }
done

step "cp bindings-wasm/js/{index.js,index.d.ts,wasm.d.ts,package.json} bindings-wasm/README.md $OUT/"
cp "$HERE/js/index.js" "$HERE/js/index.d.ts" "$HERE/js/wasm.d.ts" "$HERE/js/package.json" "$HERE/README.md" "$OUT/"

# The other entries (browser.js, index.cjs, node.mjs, index.d.cts): see js/entries.mjs. esbuild is
# the pinned one scripts/setup.sh installs ($ESBUILD overrides).
ESBUILD="${ESBUILD:-$ROOT/tests/js/tooling/node_modules/.bin/esbuild}"
[ -x "$ESBUILD" ] || { echo "[build-wasm] error: no esbuild at $ESBUILD: run scripts/setup.sh" >&2; exit 1; }
step "node bindings-wasm/js/entries.mjs $OUT ${ESBUILD#"$ROOT"/}"
node "$HERE/js/entries.mjs" "$OUT" "$ESBUILD"

for wasm in beacon_wasm_bg.wasm beacon_template_bg.wasm; do
  raw=$(wc -c <"$OUT/$wasm")
  gz=$(gzip -9 -c "$OUT/$wasm" | wc -c)
  printf '[build-wasm] %s: %s %d bytes (%d gzipped)\n' "$OUT" "$wasm" "$raw" "$gz"
done
