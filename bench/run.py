"""beacon's benchmark: every comparison measured side by side in this one process.

    .venv/bin/python bench/run.py [--quick] [--no-wasm] [--no-memory]

Prints one table per question: beacon vs json.loads of the payload alone and vs a regex+json.loads
extractor per format; parse_response vs json.loads of the response plus reading the calls by
hand; beacon and its vLLM and SGLang plugins vs the engines' own parsers, one-shot and per
streamed delta (bench/engines.py, in build/engines-venv when it exists); scanning throughput on 1 MB of prose; the WASM build in Node vs the native call;
time per byte on adversarial inputs from 10 KB to 10 MB; time per call on outputs of very many
small calls per format, 10 KB to 10 MB; peak memory on 10 MB inputs (bench/memory.py). Ratios
are what matter: absolute times depend on the machine. Each section's wall time goes to stderr.

Each ratio is measured side by side: the two functions are timed in alternating rounds and each
keeps its best round, so a busy machine slows both alike.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import baselines  # noqa: E402
import corpus  # noqa: E402
from report import table  # noqa: E402

import beacon  # noqa: E402

try:
    import orjson
except ImportError:  # reported in the table, not a failure
    orjson = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def side_by_side(fns, arg_of, budget, rounds=5):
    """Best seconds per call of each fn(arg_of(fn)), timed in alternating rounds."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], per_call(fn, arg_of(i), budget / rounds))
    return best


def per_call(fn, arg, budget):
    """Best seconds per call of fn(arg): of 5 repeats running about budget/5 seconds each, or, when
    one call takes longer than that, of the calibrating call and one more."""
    n, t = 1, 0.0
    while True:  # calibrate
        start = time.perf_counter()
        for _ in range(n):
            fn(arg)
        t = time.perf_counter() - start
        if t > budget / 25 or n >= 1 << 22:
            break
        n *= 4
    reps = max(1, int(n * (budget / 5) / max(t, 1e-9)))
    best = t / n
    for _ in range(5 if t <= budget / 5 else 1):
        start = time.perf_counter()
        for _ in range(reps):
            fn(arg)
        best = min(best, (time.perf_counter() - start) / reps)
    return best


def fmt_time(s):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:7.2f} {unit}"
    return f"{s / 1e-9:7.2f} ns"


def check_same(text, fmt):
    if fmt not in baselines.EXTRACTORS:
        return
    ours = [(c["name"], c["arguments"]) for c in beacon.parse_tool_calls(text)]
    theirs = baselines.EXTRACTORS[fmt](text)
    assert ours == theirs, f"{fmt}: beacon and the regex baseline disagree"


def bench_formats(budget):
    rows, native = [], {}
    for fmt, label, text, payload in corpus.typical_and_large():
        check_same(text, fmt)
        extractor = baselines.EXTRACTORS.get(fmt)
        fns = [beacon.parse_tool_calls, json.loads] + ([extractor] if extractor else [])
        times = side_by_side(fns, lambda i: payload if i == 1 else text, budget)
        t_beacon, t_json = times[0], times[1]
        t_regex = times[2] if extractor else None
        t_orjson = per_call(orjson.loads, payload, budget) if orjson else None
        native[(fmt, label)] = t_beacon
        rows.append([
            fmt, label, len(text.encode()), fmt_time(t_beacon), fmt_time(t_json),
            f"{t_orjson / t_json:.2f}" if t_orjson else "n/a",
            f"{t_beacon / t_json:.2f}",
            f"{t_beacon / t_regex:.2f}" if t_regex else "n/a",
            f"{t_regex / t_beacon:.1f}×" if t_regex else "n/a",
        ])
    table(
        "beacon vs what users do instead (same inputs, same process)",
        ["format", "size", "bytes", "beacon", "json.loads(payload)", "orjson÷json", "beacon÷json", "beacon÷regex", "speed-up vs regex"],
        rows,
    )
    return native


def by_hand_openai(text):
    """What a caller writes without beacon: json.loads, then the calls of every choice."""
    calls = []
    for choice in json.loads(text)["choices"]:
        for call in choice["message"].get("tool_calls") or []:
            f = call["function"]
            calls.append({"id": call.get("id"), "name": f["name"], "arguments": json.loads(f["arguments"] or "{}")})
    return calls


def by_hand_anthropic(text):
    return [{"id": b["id"], "name": b["name"], "arguments": b["input"]}
            for b in json.loads(text)["content"] if b["type"] == "tool_use"]


def bench_responses(budget):
    """parse_response against json.loads of the response plus reading the calls by hand."""
    args = corpus.TYPICAL_ARGS
    openai_response = json.dumps({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": f"call_{i}", "type": "function",
                            "function": {"name": "get_weather", "arguments": json.dumps(args)}} for i in range(2)]}}],
        "usage": {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120},
    })
    anthropic_response = json.dumps({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "Let me check."}] + [
            {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": args} for i in range(2)],
        "usage": {"input_tokens": 80, "output_tokens": 40},
    })
    rows = []
    for label, text, by_hand, provider in (
        ("openai_chat (text)", openai_response, by_hand_openai, "openai_chat"),
        ("anthropic (text)", anthropic_response, by_hand_anthropic, "anthropic"),
    ):
        assert beacon.parse_response(text) == by_hand(text), label
        ours = lambda t: beacon.parse_response(t, provider=provider)  # noqa: E731
        t_beacon, t_hand = side_by_side([ours, by_hand], lambda i: text, budget)
        rows.append([label, len(text), fmt_time(t_beacon), fmt_time(t_hand), f"{t_beacon / t_hand:.2f}"])
    table("parse_response vs json.loads + reading the calls by hand (target ≤ 1.0)",
          ["response", "bytes", "parse_response", "json.loads + by hand", "beacon÷by hand"], rows)


#: Templates whose inferred format has a built-in family, with a typical call written through the
#: template (the renderer of the fixture authors, tests/fixtures/_render.py) and that family's id.
TEMPLATE_ROWS = [
    ("Qwen-Qwen2.5-7B-Instruct", "hermes"),
    ("Qwen3-Coder", "qwen3_coder"),
    ("GLM-4.7-Flash", "glm45"),
    ("deepseek-ai-DeepSeek-V3.1", "deepseek_v31"),
    ("mistralai-Mistral-Nemo-Instruct-2407", "mistral"),
    ("MiniMax-M2", "xml_invoke"),
]


def bench_templates(budget):
    """Inferring a format from a chat template (target ≤ 50 ms each), and parsing with the
    inferred spec against the built-in family on the same text (target ≤ 1.2×) and against
    json.loads of the arguments (target ≤ 1.0×)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "template"))
    import _spec_cases

    templates = os.path.join(os.path.dirname(ROOT), "shared", "chat-templates")
    rows = []
    call = [("search_web", {"query": "rust async runtime", "limit": 5, "exact": True})]
    for name, fmt in TEMPLATE_ROWS:
        path = os.path.join(templates, f"{name}.jinja")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            source = f.read()
        start = time.perf_counter()
        spec = beacon.FormatSpec.from_template(source)
        infer = time.perf_counter() - start
        text, _ = _spec_cases.render(name, call)
        payload = json.dumps(call[0][1])
        with_spec = lambda t: beacon.parse_tool_calls(t, formats=[], template=spec)  # noqa: E731
        built_in = lambda t: beacon.parse_tool_calls(t, formats=[fmt])  # noqa: E731
        assert with_spec(text) == built_in(text), name
        t_spec, t_builtin, t_json = side_by_side([with_spec, built_in, json.loads], lambda i: payload if i == 2 else text, budget)
        rows.append([name, fmt, f"{infer * 1e3:.1f} ms", fmt_time(t_spec), fmt_time(t_builtin),
                     f"{t_spec / t_builtin:.2f}", f"{t_spec / t_json:.2f}"])
    table(
        "formats from chat templates (targets: inference ≤ 50 ms; spec ÷ built-in ≤ 1.2; spec ÷ json ≤ 1.0)",
        ["template", "built-in", "inference", "with the spec", "built-in family", "spec÷built-in", "spec÷json"],
        rows,
    )


def bench_proxy(quick):
    """`beacon proxy` on loopback (bench/proxy.py, in its own process: it serves two uvicorn apps
    on threads): the latency it adds to a non-streaming request, and 200 concurrent streams."""
    cmd = [sys.executable, os.path.join(ROOT, "bench", "proxy.py")] + (["--quick"] if quick else [])
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        print("\n(proxy bench: did not finish within 300 s)")
        return
    print(done.stdout.rstrip() if done.returncode == 0 else f"\n(proxy bench failed: {done.stderr.strip()[-400:]})")


def bench_engines(quick):
    """beacon vs vLLM's and SGLang's own parsers, one-shot and per streamed delta
    (bench/engines.py), run by the engine venv's python when scripts/setup.sh has made
    build/engines-venv."""
    python = os.path.join(ROOT, "build", "engines-venv", "bin", "python")
    if not os.path.exists(python):
        print("\n(engine comparison skipped: no build/engines-venv; `bash scripts/setup.sh` makes it)")
        return
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    cmd = [python, os.path.join(ROOT, "bench", "engines.py")] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        print(f"\n(engine comparison failed: {out.stderr[-2000:]})")
        return
    print(out.stdout, end="")


def bench_prose(budget):
    rows = []
    for with_call in (True, False):
        text = corpus.prose(1 << 20, with_call)

        def run(t):
            try:
                beacon.parse_tool_calls(t)
            except beacon.NoToolCallFoundError:
                pass

        t = per_call(run, text, budget)
        rows.append(["1 MB prose " + ("+ one call at the end" if with_call else "with no call"), fmt_time(t), f"{len(text) / t / 1e6:,.0f} MB/s"])
    table("Scanning throughput (native, through the Python call)", ["input", "time", "throughput"], rows)


def stream_cases():
    """[(label, text, target)]: 1 MB texts for the Python stream, with the issue's target ratio."""
    code = ("def f(x):\n    return x * 2  # doubled\n" * (1 << 20))[: 1 << 20]
    big = json.dumps({"name": "write_file", "arguments": {"path": "a.py", "content": code}})
    return [
        ("1 MB prose, one call at the end", corpus.prose(1 << 20, True), 20),
        ("1 MB of small hermes calls", corpus.many_calls("hermes", 1 << 20)[0], 10),
        ("one hermes call, 1 MB of code in a string", f"<tool_call>{big}</tool_call>", 10),
    ]


def bench_stream(budget, step=4):
    """`ToolCallStream` in Python, fed `step` code points at a time (about a model's token), against
    one `parse_message` of the same text: what streaming costs over reading the whole output."""
    rows = []
    for label, text, target in stream_cases():
        pieces = [text[i:i + step] for i in range(0, len(text), step)]

        def streamed(pieces):
            s = beacon.ToolCallStream(start="content")
            for piece in pieces:
                s.feed(piece)
            s.finish()

        t_stream, t_once = side_by_side(
            [streamed, beacon.parse_message],
            lambda i: pieces if i == 0 else text, budget * 4, rounds=2)
        ratio = t_stream / t_once
        rows.append([label, f"{len(pieces):,}", fmt_time(t_stream / len(pieces)), fmt_time(t_once),
                     f"{ratio:.1f}", f"≤ {target}", "yes" if ratio <= target else "no"])
    table(f"ToolCallStream in Python, {step} code points a feed, vs one parse_message",
          ["input", "feeds", "per feed", "parse_message", "stream ÷ parse", "target", "met"], rows)


def bench_adversarial(budget):
    rows = []
    sizes = [10_000, 100_000, 1_000_000, 10_000_000]
    for label, unit in corpus.ADVERSARIAL.items():
        per_byte = []
        for size in sizes:
            text = corpus.adversarial(unit, size)

            def run(t):
                try:
                    beacon.parse_tool_calls(t)
                except beacon.ToolCallError:
                    pass

            per_byte.append(per_call(run, text, budget / 2) / size)
        rows.append([label] + [f"{p * 1e9:.3f}" for p in per_byte] + [f"{per_byte[-1] / per_byte[0]:.2f}"])
    table("Adversarial inputs: ns per byte (linear time means the last column stays near 1)",
          ["input", "10 KB", "100 KB", "1 MB", "10 MB", "10 MB ÷ 10 KB"], rows)


def many_calls_cases(size):
    """[(label, fn, input, calls)]: beacon on every format's output of small calls, and json.loads
    of mistral's array (the same calls as JSON), the cost of building as many Python objects."""
    cases = []
    for fmt in corpus.MANY_CALLS:
        text, calls = corpus.many_calls(fmt, size)
        cases.append((fmt, beacon.parse_tool_calls, text, calls))
    text, calls = corpus.many_calls("mistral", size)
    cases.append(("json.loads, the calls as a JSON array", json.loads, text.removeprefix("[TOOL_CALLS] ").removesuffix("</s>"), calls))
    return cases


def bench_many_calls(budget, sizes):
    """Outputs of very many small calls per format (bench/corpus.py's MANY_CALLS), from 10 KB up:
    µs per call at each size, and its growth from the smallest to the largest, with Python's
    cyclic garbage collector on (what a caller gets) and paused around the call."""
    import gc

    us, us_gc_off, calls = {}, {}, {}
    for size in sizes:
        for label, fn, arg, n in many_calls_cases(size):
            us.setdefault(label, []).append(per_call(fn, arg, budget / 2) / n * 1e6)
            calls[label] = n
            if size in (sizes[0], sizes[-1]):
                gc.disable()
                try:
                    us_gc_off.setdefault(label, []).append(per_call(fn, arg, budget / 2) / n * 1e6)
                finally:
                    gc.enable()
    rows = [[label, f"{calls[label]:,}"] + [f"{t:.3f}" for t in times]
            + [f"{times[-1] / times[0]:.2f}", f"{us_gc_off[label][-1] / us_gc_off[label][0]:.2f}"]
            for label, times in us.items()]
    labels = [f"{size // 1000:,} KB" if size < 1_000_000 else f"{size // 1_000_000} MB" for size in sizes]
    growth = f"{labels[-1]} ÷ {labels[0]}"
    table("Many small calls: µs per call (linear time means the growth stays near 1)",
          ["input", f"calls in {labels[-1]}"] + labels + [growth, f"{growth}, GC paused"], rows)


def bench_wasm(native, budget):
    script = os.path.join(ROOT, "bench", "wasm.mjs")
    cases = [{"format": f, "size": l, "text": t} for f, l, t, _ in corpus.typical_and_large()]
    try:
        out = subprocess.run(["node", script], input=json.dumps(cases), capture_output=True, text=True, check=True,
                             env=dict(os.environ, BENCH_BUDGET=str(budget)))
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"\n(WASM comparison failed: {getattr(e, 'stderr', e)})")
        return
    rows = []
    for r in json.loads(out.stdout):
        t_native = native[(r["format"], r["size"])]
        rows.append([r["format"], r["size"], fmt_time(r["seconds"]), fmt_time(t_native), f"{r['seconds'] / t_native:.2f}"])
    table("WASM in Node vs the native Python call (same inputs)", ["format", "size", "wasm (node)", "native (python)", "wasm÷native"], rows)


def bench_memory():
    import memory  # bench/memory.py

    rows = [[label, parser, f"{inp:.1f}", f"{peak:.0f}", f"{result:.0f}", target, met]
            for label, parser, inp, peak, result, target, met in memory.rows()]
    table("Peak memory on 10 MB inputs, MB (each parse in a fresh process)",
          ["input", "parser", "input", "peak", "result", "target", "met"], rows)


def timed(section, fn, *args):
    """fn(*args), its wall time printed to stderr, so that a slow section shows."""
    start = time.perf_counter()
    result = fn(*args)
    print(f"section {section}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="shorter timings, for a smoke run")
    ap.add_argument("--no-wasm", action="store_true")
    ap.add_argument("--no-memory", action="store_true")
    args = ap.parse_args()
    budget = 0.05 if args.quick else 0.4
    print(f"beacon benchmark · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · orjson {'yes' if orjson else 'not installed'}")
    native = timed("formats", bench_formats, budget)
    timed("responses", bench_responses, budget)
    timed("templates", bench_templates, budget)
    timed("engines", bench_engines, args.quick)
    timed("proxy", bench_proxy, args.quick)
    timed("prose", bench_prose, budget)
    timed("stream", bench_stream, budget)
    if not args.no_wasm:
        timed("wasm", bench_wasm, native, budget)
    timed("adversarial", bench_adversarial, budget)
    timed("many calls", bench_many_calls, budget, [10_000, 100_000, 1_000_000, 10_000_000])
    if not args.no_memory:
        timed("memory", bench_memory)

if __name__ == "__main__":
    main()
