"""Peak memory of one parse of a 10 MB model output, against the target: at most twice the input
plus the result's own size; and of a ``ToolCallStream`` fed the same kind of output in 4 KB
pieces, against at most 1.5 times ``parse_message`` on the whole text. Each measurement runs in a
fresh process.

    .venv/bin/python bench/memory.py

- **peak** is the growth of the process's peak resident set (``ru_maxrss``) across the one call,
  measured after the input was built and the modules imported: everything the call allocates
  at its worst moment, Rust and Python alike.
- **result** is the Python memory the answer keeps (``tracemalloc``, which sees every Python
  object): the part of the peak that is the answer itself.
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


def make(kind):
    if kind == "hermes_array":
        # Built by repetition, not by joining a list: a 5M-item list would raise the peak before
        # the measurement starts.
        payload = '{"a": [' + "1," * 4_999_999 + "1]}"
        return '<tool_call>{"name": "f", "arguments": ' + payload + "}</tool_call>", payload
    if kind == "many_calls":
        text = "f(a=1)\n" * (10_000_000 // 7)
        return text, None
    if kind == "hermes_objects":
        payload = '{"a": [' + '{"k": 1}, ' * 899_999 + '{"k": 1}]}'
        return '<tool_call>\n{"name": "f", "arguments": ' + payload + "}\n</tool_call>", payload
    raise ValueError(kind)


def child(kind, parser):
    """Runs in the child: prints {"input", "peak", "result"} in bytes."""
    import resource
    import tracemalloc

    text, payload = make(kind)
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
        arg = text
    else:
        if payload is None:
            print(json.dumps(None))
            return
        call, arg = json.loads, payload
    before_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    result = call(arg)
    kept = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before_peak
    print(json.dumps({"input": len(arg), "peak": peak, "result": kept}))
    del result


def measure(kind, parser):
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind, parser], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def rows():
    """[(case, parser, input MB, peak MB, result MB, allowed MB, met)] for every case."""
    out = []
    for label, kind in CASES.items():
        whole = None
        for parser in PARSERS.get(kind, ("beacon", "json.loads")):
            m = measure(kind, parser)
            if m is None:
                continue
            if parser == "beacon":
                whole = m["peak"]
            allowed = 1.5 * whole if parser == "stream" else 2 * m["input"] + m["result"]
            if parser == "beacon" and kind in PARSERS:
                parser = "parse_message"
            out.append((label, parser, m["input"] / MB, m["peak"] / MB, m["result"] / MB, allowed / MB,
                        m["peak"] <= allowed))
    return out


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return
    print("| input | parser | input MB | peak MB | result MB | target | met |")
    print("|---|---|---|---|---|---|---|")
    for label, parser, inp, peak, result, allowed, met in rows():
        if parser == "stream":
            parser, target = f"ToolCallStream, {PIECE} B pieces", f"1.5 × parse_message: {allowed:.0f} MB"
        elif parser == "parse_message":
            target = "(the stream's baseline)"
        elif parser == "beacon":
            target = f"2 × input + result: {allowed:.0f} MB"
        else:
            target = "(reference)"
        mark = "" if target.startswith("(") else ("yes" if met else "no")
        print(f"| {label} | {parser} | {inp:.1f} | {peak:.0f} | {result:.0f} | {target} | {mark} |")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    main()
