"""Where the WebAssembly module's bytes go, by feature: the code of every function of the module as
cargo links it (`target/wasm32-unknown-unknown/release/beacon_wasm.wasm`, which keeps the
function names), summed by the part of beacon (or the crate) the function belongs to, and the
data section (string constants, tables).

    bash scripts/build-wasm.sh && python3 bench/wasm_size.py [MODULE.wasm]

A function inlined into another counts where it was inlined (link-time optimisation inlines
across modules), and `wasm-opt -Oz` shrinks the module after this by about a sixth, evenly enough
that the shares hold for the shipped module: read the shares, not the bytes.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "target", "wasm32-unknown-unknown", "release", "beacon_wasm.wasm")

#: (feature, path prefixes), first match wins; a path is `crate::module::…`.
FEATURES = [
    ("streams (ToolCallStream, ResponseStream)", ["beacon_core::text::stream", "beacon_core::providers::response_stream", "beacon_core::host::feed", "beacon_wasm::stream"]),
    ("formats (29 families, format specs)", ["beacon_core::formats"]),
    ("text pipeline (scanner, tiers, message, reasoning)", ["beacon_core::text"]),
    ("value grammars (JSON, call syntax, object literals, shapes)", ["beacon_core::syntax"]),
    ("tools (schemas, typing, validation)", ["beacon_core::tools", "regex_lite"]),
    ("providers (responses, format_calls / format_results)", ["beacon_core::providers"]),
    ("repairs", ["beacon_core::repair"]),
    ("host boundary and bindings (emit, options, wasm-bindgen)", ["beacon_core::host", "beacon_wasm", "wasm_bindgen", "js_sys"]),
    ("errors, values, calls (core types)", ["beacon_core"]),
    ("sorting (`core::slice::sort`, one copy per element type and order)", ["core::slice::sort"]),
    ("Rust standard library, allocator, formatting", ["core", "alloc", "std", "dlmalloc", "compiler_builtins", "hashbrown"]),
    ("memchr", ["memchr"]),
]


def leb(data, i):
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def sections(data):
    """{section id or custom name: (start, end)} of a WebAssembly module."""
    out, i = {}, 8
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        if sid == 0:
            n, j = leb(data, i)
            out[data[j : j + n].decode()] = (j + n, i + size)
        else:
            out[sid] = (i, i + size)
        i += size
    return out


def imported_functions(data, start):
    count, j = leb(data, start)
    functions = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            n, j = leb(data, j)
            j += n
        kind = data[j]
        j += 1
        if kind == 0:  # function: its type index
            _, j = leb(data, j)
            functions += 1
        elif kind == 1:  # table: element type, limits
            j += 1
            flags = data[j]
            _, j = leb(data, j + 1)
            if flags & 1:
                _, j = leb(data, j)
        elif kind == 2:  # memory: limits
            flags = data[j]
            _, j = leb(data, j + 1)
            if flags & 1:
                _, j = leb(data, j)
        elif kind == 3:  # global: type, mutability
            j += 2
        else:  # tag
            j += 1
            _, j = leb(data, j)
    return functions


def function_names(data, start, end):
    names, j = {}, start
    while j < end:
        sub = data[j]
        size, j = leb(data, j + 1)
        stop = j + size
        if sub == 1:
            count, j = leb(data, j)
            for _ in range(count):
                index, j = leb(data, j)
                n, j = leb(data, j)
                names[index] = data[j : j + n].decode("utf-8", "replace")
                j += n
        j = stop
    return names


def v0_path(mangled):
    """The first identifiers of a v0-mangled Rust symbol (`_RNvNtCs…_4core3num…`): its crate and
    the modules after it, enough to place it."""
    m = re.search(r"C(?:s[0-9A-Za-z]*_)?(\d+)", mangled)
    if not m:
        return mangled
    parts, i = [], m.start(1)
    while len(parts) < 4:
        m = re.match(r"[A-Za-z]*?(\d+)(_?)", mangled[i:])
        if not m:
            break
        n = int(m.group(1))
        start = i + m.end()
        parts.append(mangled[start : start + n])
        i = start + n
    return "::".join(parts)


def path(mangled):
    """The `crate::module::…` path of a legacy-mangled Rust symbol (`_ZN11beacon_core6syntax…E`);
    for `<T as Trait>::f`, T's path; a v0-mangled one's first identifiers. Other names as they
    are."""
    if mangled.startswith("_R"):
        return v0_path(mangled)
    if not mangled.startswith("_ZN"):
        return mangled
    parts, i = [], 3
    while i < len(mangled) and mangled[i].isdigit():
        m = re.match(r"\d+", mangled[i:])
        n = int(m.group())
        i += len(m.group())
        parts.append(mangled[i : i + n])
        i += n
    if parts and parts[0].startswith("_$LT$"):
        inner = parts[0][len("_$LT$") :].replace("..", "::")
        inner = re.split(r"\$(?:LT|GT|u20)\$", inner)[0]
        return inner.lstrip("&*").removeprefix("mut$u20$")
    return "::".join(p for p in parts if not re.fullmatch(r"h[0-9a-f]{16}", p))


def feature(p):
    for label, prefixes in FEATURES:
        if any(p == pre or p.startswith(pre + "::") for pre in prefixes):
            return label
    return "other crates"


def main():
    module = sys.argv[1] if len(sys.argv) > 1 else DEFAULT
    data = open(module, "rb").read()
    secs = sections(data)
    first = imported_functions(data, secs[2][0]) if 2 in secs else 0
    names = function_names(data, *secs["name"]) if "name" in secs else {}
    start, _ = secs[10]
    count, j = leb(data, start)
    by_feature = defaultdict(int)
    for k in range(count):
        size, body = leb(data, j)
        total = body - j + size
        j = body + size
        by_feature[feature(path(names.get(first + k, "")))] += total
    code = sum(by_feature.values())
    data_bytes = secs[11][1] - secs[11][0] if 11 in secs else 0
    name_bytes = secs["name"][1] - secs["name"][0] if "name" in secs else 0
    rest = len(data) - code - data_bytes - name_bytes
    whole = len(data) - name_bytes  # what ships, before wasm-opt: the names are dropped
    print(f"{module}: {len(data):,} bytes, {whole:,} without its function names "
          f"({code:,} code, {data_bytes:,} data, {rest:,} other sections)\n")
    print("| part | bytes | share |")
    print("| --- | --- | --- |")
    for label, size in sorted(by_feature.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {size:,} | {100 * size / whole:.1f}% |")
    print(f"| data section (constants, tables) | {data_bytes:,} | {100 * data_bytes / whole:.1f}% |")
    print(f"| other sections (types, imports, exports, wasm-bindgen's) | {rest:,} | {100 * rest / whole:.1f}% |")


if __name__ == "__main__":
    main()
