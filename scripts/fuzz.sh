#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS (default 300) each, seeded from the shared fixtures.
# Needs a nightly toolchain (installed by rustup if missing) and cargo-fuzz.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}; shift || true
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(text json providers response_stream tool_call_stream host)

run() { printf '+ %s\n' "$*"; "$@"; }
rustup toolchain list | grep -q '^nightly' || run rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || run cargo install cargo-fuzz --locked

# Seed corpora: every fixture input, one file each.
python3 - <<'PY'
import glob, hashlib, json, os
for target in ("text", "json", "providers", "response_stream", "tool_call_stream", "host"):
    os.makedirs(f"fuzz/corpus/{target}", exist_ok=True)
def seed(target, data):
    open(f"fuzz/corpus/{target}/{hashlib.sha1(data).hexdigest()}", "wb").write(data)
for path in glob.glob("tests/fixtures/**/*.json", recursive=True):
    doc = json.load(open(path, encoding="utf-8"))
    for case in doc.get("cases", []) if isinstance(doc, dict) else []:
        texts = [case[k] for k in ("input", "response_text") if isinstance(case.get(k), str)]
        if "response" in case:
            texts.append(json.dumps(case["response"], ensure_ascii=False))
        for text in texts:
            data = text.encode()
            seed("text", data)
            seed("json", data)
            seed("providers", bytes([9]) + data)  # selector 9: auto-detect, no text fallback
            seed("response_stream", bytes([9, 6]) + data)  # auto-detect, pieces of 7 bytes
            seed("tool_call_stream", bytes([0, 3]) + data)  # detect reasoning, pieces of 4 bytes
            seed("host", bytes([1]) + data)  # parse_tool_calls
            seed("host", bytes([2]) + data)  # parse_message
            seed("host", bytes([9 << 2 | 3]) + data)  # parse_response, the provider detected
PY

for t in "${targets[@]}"; do
  run cargo +nightly fuzz run "$t" "fuzz/corpus/$t" --fuzz-dir fuzz -- -max_total_time="$seconds" -max_len=4096 -print_final_stats=1
done
