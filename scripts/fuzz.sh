#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS (default 300) each, seeded from the shared fixtures.
# Needs a nightly toolchain (installed by rustup if missing) and cargo-fuzz.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(text json)

run() { printf '+ %s\n' "$*"; "$@"; }
rustup toolchain list | grep -q '^nightly' || run rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || run cargo install cargo-fuzz --locked

# Seed corpora: every fixture input, one file each.
python3 - <<'PY'
import glob, hashlib, json, os
for target in ("text", "json"):
    os.makedirs(f"fuzz/corpus/{target}", exist_ok=True)
for path in glob.glob("tests/fixtures/**/*.json", recursive=True):
    doc = json.load(open(path, encoding="utf-8"))
    for case in doc.get("cases", []) if isinstance(doc, dict) else []:
        for key in ("input", "response_text"):
            if isinstance(case.get(key), str):
                data = case[key].encode()
                name = hashlib.sha1(data).hexdigest()
                for target in ("text", "json"):
                    open(f"fuzz/corpus/{target}/{name}", "wb").write(data)
PY

for t in "${targets[@]}"; do
  run cargo +nightly fuzz run "$t" "fuzz/corpus/$t" --fuzz-dir fuzz -- -max_total_time="$seconds" -max_len=4096 -print_final_stats=1
done
