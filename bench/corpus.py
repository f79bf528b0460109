"""The benchmark corpus: one typical and one large model output per format, prose inputs and
adversarial inputs. Deterministic, generated in process; the arguments payload of every output is
kept beside it so the json.loads floor is measured on exactly the bytes the model wrote."""

import json

FORMATS = ["hermes", "bracket", "mistral", "llama", "xml_invoke", "qwen3_coder", "json", "python"]

TYPICAL_ARGS = {
    "location": "San Francisco, CA",
    "unit": "celsius",
    "days": 3,
    "include": ["hourly", "alerts", "air_quality"],
    "options": {"language": "en-US", "round": True, "threshold": 0.75},
}


def large_args():
    code = "\n".join(f"    total += values[{i}] * weights[{i % 17}]  # step {i}" for i in range(150))
    rows = [{"id": i, "name": f"item-{i}", "price": round(i * 1.37, 2), "tags": ["a", "b"]} for i in range(40)]
    return {"path": "src/compute.py", "content": "def compute(values, weights):\n    total = 0\n" + code, "rows": rows}


def _py(v):
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_py(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)}: {_py(x)}" for k, x in v.items()) + "}"


def _xml(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(fmt, name, args):
    """(model output, arguments payload as written) for one call in `fmt`."""
    payload = json.dumps(args, ensure_ascii=False)
    lead = "I'll look that up for you. Let me call the right tool with the details you gave.\n"
    if fmt == "hermes":
        return lead + f'<tool_call>\n{{"name": "{name}", "arguments": {payload}}}\n</tool_call>', payload
    if fmt == "bracket":
        return lead + f"[TOOL_CALL]name={name};args={payload}[/TOOL_CALL]", payload
    if fmt == "mistral":
        return f'[TOOL_CALLS] [{{"name": "{name}", "arguments": {payload}}}]</s>', payload
    if fmt == "llama":
        return f'<|python_tag|>{{"name": "{name}", "parameters": {payload}}}<|eom_id|>', payload
    if fmt == "xml_invoke":
        params = "".join(
            f'<parameter name="{k}">{_xml(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))}</parameter>\n'
            for k, v in args.items()
        )
        return lead + f'<function_calls>\n<invoke name="{name}">\n{params}</invoke>\n</function_calls>', payload
    if fmt == "qwen3_coder":
        params = "".join(
            f"<parameter={k}>\n{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}\n</parameter>\n"
            for k, v in args.items()
        )
        return lead + f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>", payload
    if fmt == "json":
        msg = {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_8f2a", "type": "function", "function": {"name": name, "arguments": payload}}]}
        return json.dumps(msg, ensure_ascii=False), payload
    if fmt == "python":
        kwargs = ", ".join(f"{k}={_py(v)}" for k, v in args.items())
        return lead + f"{name}({kwargs})", payload
    raise ValueError(fmt)


def typical_and_large():
    """[(format, size label, text, payload)] for every format."""
    out = []
    for fmt in FORMATS:
        for label, args in (("typical", TYPICAL_ARGS), ("10KB", large_args())):
            text, payload = render(fmt, "get_weather" if label == "typical" else "write_file", args)
            out.append((fmt, label, text, payload))
    return out


def prose(size, with_call):
    sentence = ("The quick brown fox jumps over the lazy dog while the model explains its reasoning "
                "at some length, with numbers like 3.14 and words (in parentheses) and [brackets]. ")
    text = (sentence * (size // len(sentence) + 1))[:size]
    if with_call:
        text += '\n<tool_call>{"name": "search", "arguments": {"q": "rust"}}</tool_call>'
    return text


ADVERSARIAL = {
    'repeated {"name": ': '{"name": ',
    "repeated f(a=": "f(a=",
    "repeated <tool_call>": "<tool_call>",
    "deep [[[[": "[",
    "repeated {{{{ (prose)": "{",
    "repeated a( (prose)": "a(",
}


def adversarial(unit, size):
    return (unit * (size // len(unit) + 1))[:size]
