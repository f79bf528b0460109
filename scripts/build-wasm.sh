#!/usr/bin/env bash
# Build the npm package beacon-toolcall into build/pkg-web, with the wasm32 toolchain
# scripts/setup.sh detected (RUSTUP_TOOLCHAIN=$(cat build/wasm-toolchain); native builds keep the
# default one). The build itself is the binding's own script, bindings-wasm/build.sh:
#   cargo build (wasm32) -> wasm-opt -> wasm-bindgen --target web -> js/index.js + index.d.ts
# one package for Node >= 20 and browsers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
case ":$PATH:" in *":$CARGO_BIN:"*) ;; *) export PATH="$CARGO_BIN:$PATH" ;; esac

cmd() { printf '[build-wasm] $ %s\n' "$*"; }
die() { printf '[build-wasm] ERROR: %s\n' "$*" >&2; exit 1; }

[ -f bindings-wasm/build.sh ] || die "bindings-wasm/build.sh does not exist"
[ -f build/wasm-toolchain ] || die "build/wasm-toolchain missing: run scripts/setup.sh first"
TC=$(cat build/wasm-toolchain)
export RUSTUP_TOOLCHAIN="$TC"

cmd "RUSTUP_TOOLCHAIN=$TC bash bindings-wasm/build.sh build/pkg-web"
exec bash bindings-wasm/build.sh "$ROOT/build/pkg-web"
