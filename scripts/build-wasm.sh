#!/usr/bin/env bash
# Build the wasm package, with the wasm32 toolchain scripts/setup.sh detected
# (RUSTUP_TOOLCHAIN=$(cat build/wasm-toolchain); native builds keep the default one).
#
# If bindings-wasm/build.sh exists (it does: the binding's own build), it is THE build:
#   build/pkg-web   npm package beacon-toolcall, one package for Node >= 20 and browsers
#                   (cargo build -> wasm-opt -> wasm-bindgen --target web -> js/index.js)
# Otherwise (fallback for a plain wasm-bindgen crate) wasm-pack builds two packages:
#   build/pkg-web   --target web      build/pkg-node   --target nodejs
# with wasm-pack's own wasm-opt step off (--no-opt: it would take any wasm-opt on PATH and
# run it without feature flags, or try to download one) and the pinned wasm-opt that
# setup.sh installs (npm binaryen, build/tools/binaryen) run here afterwards.  Debian
# bookworm's binaryen 108 must not run on wasm-bindgen's output: it corrupts the externref
# table ("WebAssembly.Table.set(): Argument 1 is invalid for table" at instantiation).
#
# Environment knobs (wasm-pack fallback only):
#   WASM_OPT_FLAGS   optimisation flags for wasm-opt (default: -Oz); WASM_OPT_FLAGS=none skips it
#   WASM_OPT         wasm-opt binary (default: build/tools/binaryen/node_modules/.bin/wasm-opt)
#   WASM_PROFILE     --release (default) or --dev / --profiling
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac

cmd() { printf '[build-wasm] $ %s\n' "$*"; }
die() { printf '[build-wasm] ERROR: %s\n' "$*" >&2; exit 1; }

[ -f bindings-wasm/Cargo.toml ] || die "bindings-wasm/Cargo.toml does not exist"
[ -f build/wasm-toolchain ] || die "build/wasm-toolchain missing: run scripts/setup.sh first"
TC=$(cat build/wasm-toolchain)
export RUSTUP_TOOLCHAIN="$TC"

if [ -f bindings-wasm/build.sh ]; then
  cmd "RUSTUP_TOOLCHAIN=$TC bash bindings-wasm/build.sh build/pkg-web"
  exec bash bindings-wasm/build.sh "$ROOT/build/pkg-web"
fi

PROFILE="${WASM_PROFILE:---release}"
# Features rustc >= 1.87 enables by default for wasm32-unknown-unknown; binaryen must be
# allowed to keep them (wasm-bindgen's output has no target_features section to detect).
WASM_FEATURES=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
               --enable-sign-ext --enable-reference-types --enable-multivalue)
read -r -a OPT_FLAGS <<<"${WASM_OPT_FLAGS:--Oz}"
WASM_OPT="${WASM_OPT:-$ROOT/build/tools/binaryen/node_modules/.bin/wasm-opt}"
if [ "${WASM_OPT_FLAGS:-}" != none ]; then
  "$WASM_OPT" --version >/dev/null 2>&1 || die "wasm-opt not found at $WASM_OPT: run scripts/setup.sh"
fi

for spec in web:pkg-web nodejs:pkg-node; do
  target=${spec%%:*}
  out="build/${spec#*:}"
  rm -rf "$out"
  cmd "RUSTUP_TOOLCHAIN=$TC wasm-pack build bindings-wasm $PROFILE --target $target --out-dir ../$out --no-opt"
  wasm-pack build bindings-wasm "$PROFILE" --target "$target" --out-dir "../$out" --no-opt

  shopt -s nullglob
  wasms=("$out"/*.wasm)
  shopt -u nullglob
  [ "${#wasms[@]}" -gt 0 ] || die "wasm-pack produced no .wasm in $out"
  for w in "${wasms[@]}"; do
    before=$(stat -c %s "$w")
    if [ "${WASM_OPT_FLAGS:-}" = none ]; then
      printf '[build-wasm] WASM_OPT_FLAGS=none: %s left unoptimised\n' "$w"
    else
      cmd "${WASM_OPT#"$ROOT"/} ${OPT_FLAGS[*]} ${WASM_FEATURES[*]} $w -o $w"
      "$WASM_OPT" "${OPT_FLAGS[@]}" "${WASM_FEATURES[@]}" "$w" -o "$w.opt"
      mv "$w.opt" "$w"
    fi
    printf '[build-wasm] %s: %s bytes (before wasm-opt: %s), gzip -9: %s bytes\n' \
      "$w" "$(stat -c %s "$w")" "$before" "$(gzip -9c "$w" | wc -c)"
  done
done
