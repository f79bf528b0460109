"""Peak memory of one parse of a 10 MB model output, against two targets: at most twice the
input plus the result's own size, and at most 1.5 times the growth of ``json.loads`` on the same
payload (the arguments of the one large call; the many small calls written as one JSON array);
and of a ``ToolCallStream`` fed the same kind of output in 4 KB pieces, against at most 1.5 times
``parse_message`` on the whole text. Each measurement runs in a fresh process.

    .venv/bin/python bench/memory.py

- **peak** is the growth of the process's peak resident set (``VmHWM``) across the one call,
  measured after the input was built and the modules imported: everything the call allocates
  at its worst moment, Rust and Python alike. Nothing else is traced meanwhile.
- **result** is the Python memory the answer keeps (``tracemalloc``, which sees every Python
  object), measured in another process, since tracing every allocation raises the peak (by
  about half, for a million small calls).
- **input** is the input's size in bytes (ASCII, so also its size as a Python ``str``).
"""

import json
import os
import subprocess
import sys

MB = 1 << 20

CASES = {
    "hermes call, one 5M-element array": "hermes_array",
    "call syntax, ~1.4M small calls": "many_calls",
    "hermes call, 900k small objects": "hermes_objects",
}
# The parsers measured on a case: `beacon` (`parse_tool_calls`; `parse_message` for the stream
# cases, so that the stream is held to the same answer), `stream` (`ToolCallStream`, every event
# kept) and `json.loads` of the arguments, for reference.
PARSERS = {
    "hermes_objects": ("beacon", "stream", "json.loads"),
}
PIECE = 4096


def make(kind, part):
    """The model output (`part` "text") or the payload `json.loads` reads for reference
    ("payload"), built alone, so that nothing freed before the call lowers its measured growth."""
    if kind == "hermes_array":
        # Built by repetition, not by joining a list: a 5M-item list would raise the peak before
        # the measurement starts.
        payload = '{"a": [' + "1," * 4_999_999 + "1]}"
        return payload if part == "payload" else '<tool_call>{"name": "f", "arguments": ' + payload + "}</tool_call>"
    if kind == "many_calls":
        n = 10_000_000 // 7
        if part == "text":
            return "f(a=1)\n" * n
        call = '{"name": "f", "arguments": {"a": 1}}'
        return "[" + (call + ", ") * (n - 1) + call + "]"
    if kind == "hermes_objects":
        payload = '{"a": [' + '{"k": 1}, ' * 899_999 + '{"k": 1}]}'
        return payload if part == "payload" else '<tool_call>\n{"name": "f", "arguments": ' + payload + "}\n</tool_call>"
    raise ValueError(kind)


def peak_rss():
    """This process's peak resident set in bytes: ``VmHWM``, which belongs to the process image.
    (``getrusage``'s ``ru_maxrss`` survives ``exec`` on Linux: a child of the large bench process
    would start at its parent's peak and show no growth at all.)"""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))


def child(kind, parser, what):
    """Runs in the child: prints {"input", "peak"} (``what`` is "peak") or {"input", "result"}
    ("result") in bytes."""
    import tracemalloc

    if parser in ("beacon", "stream"):
        import beacon

        if parser == "stream":
            def call(text):
                stream, events = beacon.ToolCallStream(start="content"), []
                for i in range(0, len(text), PIECE):
                    events.extend(stream.feed(text[i : i + PIECE]))
                return events + stream.finish()
        elif kind in PARSERS:
            call = beacon.parse_message
        else:
            call = beacon.parse_tool_calls
        arg = make(kind, "text")
    else:
        call, arg = json.loads, make(kind, "payload")
    if what == "result":
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        result = call(arg)
        kept = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        print(json.dumps({"input": len(arg), "result": kept}))
    else:
        before_peak = peak_rss()
        result = call(arg)
        peak = peak_rss() - before_peak
        print(json.dumps({"input": len(arg), "peak": peak}))
    del result


def measure(kind, parser):
    """{"input", "peak", "result"} of `parser` on `kind`, each from a fresh process."""
    out = {}
    for what in ("peak", "result"):
        run = subprocess.run(
            [sys.executable, __file__, "--child", kind, parser, what], capture_output=True, text=True, check=True
        )
        out.update(json.loads(run.stdout))
    return out


def rows():
    """[(case, parser, input MB, peak MB, result MB, target, met)] for every case: `target` says
    what the peak is held to, `met` whether it is within it ("" for a reference row)."""
    out = []
    for label, kind in CASES.items():
        parsers = PARSERS.get(kind, ("beacon", "json.loads"))
        m = {parser: measure(kind, parser) for parser in parsers}
        for parser in parsers:
            x = m[parser]
            if parser == "stream":
                allowed = 1.5 * m["beacon"]["peak"]
                target, met = f"1.5 × parse_message: {allowed / MB:.0f} MB", "yes" if x["peak"] <= allowed else "no"
            elif parser == "beacon" and kind in PARSERS:
                parser, target, met = "parse_message", "(the stream's baseline)", ""
            elif parser == "beacon":
                whole = 2 * x["input"] + x["result"]
                loads = 1.5 * m["json.loads"]["peak"]
                target = f"2 × input + result: {whole / MB:.0f} MB; 1.5 × json.loads: {loads / MB:.0f} MB"
                met = " / ".join("yes" if x["peak"] <= a else "no" for a in (whole, loads))
            else:
                target, met = "(reference)", ""
            out.append((label, parser, x["input"] / MB, x["peak"] / MB, x["result"] / MB, target, met))
    return out


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    print("| input | parser | input MB | peak MB | result MB | target | met |")
    print("|---|---|---|---|---|---|---|")
    for label, parser, inp, peak, result, target, met in rows():
        if parser == "stream":
            parser = f"ToolCallStream, {PIECE} B pieces"
        print(f"| {label} | {parser} | {inp:.1f} | {peak:.0f} | {result:.0f} | {target} | {met} |")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    main()
