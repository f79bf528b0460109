"""The benchmark corpus: one typical and one large model output per format, prose inputs and
adversarial inputs. Deterministic, generated in process; the arguments payload of every output is
kept beside it so the json.loads floor is measured on exactly the bytes the model wrote."""

import json

FORMATS = [
    "hermes", "bracket", "mistral", "llama", "xml_invoke", "qwen3_coder",
    "deepseek_v3", "deepseek_v31", "deepseek_v32", "step3", "kimi_k2", "glm45", "longcat", "ifm", "minicpm",
    "harmony", "gemma4", "function_gemma", "pythonic", "command_r7b", "granite", "functionary_v31",
    "functionary_v32", "functools", "nemotron", "apertus", "tool_calls", "internlm", "gigachat",
    "solar_open", "json", "python",
]

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


GEMMA_QUOTE = '<|"|>'


def _lfm2(v):
    """An LFM2 call argument, as its template writes it: strings in single quotes, dicts as JSON,
    anything else with Python's str(). (The template does not escape strings; repr() does, so the
    10 KB output's multi-line string stays valid Python.)"""
    if isinstance(v, dict):
        return json.dumps(v, ensure_ascii=False)
    return repr(v)


def _gemma(v, quote):
    """Gemma 4's object literal, as its template writes it: unquoted keys in sorted order, strings
    between `quote` tokens."""
    if isinstance(v, str):
        return quote + v + quote
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(_gemma(x, quote) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{_gemma(x, quote)}" for k, x in sorted(v.items())) + "}"
    return json.dumps(v)


def _raw(v):
    """A value as a template writes it between tags: strings raw, everything else JSON."""
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _cdata(v):
    """A value as MiniCPM 5's template writes it: a string with `<`, `&` or a line break in CDATA,
    other strings raw, everything else JSON."""
    if isinstance(v, str) and any(c in v for c in "<&\n"):
        return f"<![CDATA[{v}]]>"
    return _raw(v)


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
    if fmt == "deepseek_v3":
        return (lead + "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>" + name
                + f"\n```json\n{payload}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>", payload)
    if fmt == "deepseek_v31":
        return (lead + f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{payload}"
                "<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>", payload)
    if fmt == "deepseek_v32":
        params = "".join(
            f'<｜DSML｜parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">{_raw(v)}'
            "</｜DSML｜parameter>\n"
            for k, v in args.items()
        )
        return (lead + f'\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="{name}">\n{params}'
                "</｜DSML｜invoke>\n</｜DSML｜function_calls>", payload)
    if fmt == "step3":
        params = "".join(f'<steptml:parameter name="{k}">{_raw(v)}</steptml:parameter>' for k, v in args.items())
        return (lead + "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
                f'<steptml:invoke name="{name}">{params}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>', payload)
    if fmt == "kimi_k2":
        return (lead + f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0"
                f"<|tool_call_argument_begin|>{payload}<|tool_call_end|><|tool_calls_section_end|>", payload)
    if fmt in ("glm45", "longcat"):
        p = "" if fmt == "glm45" else "longcat_"
        pairs = "".join(f"<{p}arg_key>{k}</{p}arg_key>\n<{p}arg_value>{_raw(v)}</{p}arg_value>\n"
                        for k, v in args.items())
        tag = "tool_call" if fmt == "glm45" else "longcat_tool_call"
        return lead + f"<{tag}>{name}\n{pairs}</{tag}>", payload
    if fmt == "ifm":
        pairs = "".join(f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{_raw(v)}</ifm|arg_value>"
                        for k, v in args.items())
        return lead + f"<ifm|tool_calls><ifm|tool_call>{name}{pairs}</ifm|tool_call></ifm|tool_calls>", payload
    if fmt == "minicpm":
        params = "".join(f'<param name="{k}">{_cdata(v)}</param>' for k, v in args.items())
        return lead + f'<function name="{name}">{params}</function>', payload
    if fmt == "harmony":
        return ("<|channel|>analysis<|message|>The user wants the weather. Call the tool.<|end|>"
                f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>"
                f"{payload}<|call|>", payload)
    if fmt == "gemma4":
        return lead + f"<|tool_call>call:{name}{_gemma(args, GEMMA_QUOTE)}<tool_call|>", payload
    if fmt == "function_gemma":
        return f"<start_function_call>call:{name}{_gemma(args, '<escape>')}<end_function_call>", payload
    if fmt == "pythonic":
        kwargs = ", ".join(f"{k}={_lfm2(v)}" for k, v in args.items())
        return f"<|tool_call_start|>[{name}({kwargs})]<|tool_call_end|>", payload
    if fmt == "command_r7b":
        return (f'<|START_ACTION|>[\n    {{"tool_call_id": "0", "tool_name": "{name}", "parameters": {payload}}}\n]'
                "<|END_ACTION|>", payload)
    if fmt == "granite":
        return f'<|tool_call|>[{{"name": "{name}", "arguments": {payload}}}]', payload
    if fmt == "functionary_v31":
        return lead + f"<function={name}>{payload}</function><|eom_id|>", payload
    if fmt == "functionary_v32":
        return f"all\n{lead.strip()}>>>{name}\n{payload}", payload
    if fmt == "functools":
        return f' functools[{{"name": "{name}", "arguments": {payload}}}]', payload
    if fmt == "nemotron":
        return f'<TOOLCALL>[{{"name": "{name}", "arguments": {payload}}}]</TOOLCALL>', payload
    if fmt == "apertus":
        return f'<|tools_prefix|>[{{"{name}": {payload}}}]<|tools_suffix|>', payload
    if fmt == "tool_calls":
        return f'<tool_calls>[{{"name": "{name}", "arguments": {payload}}}]</tool_calls>', payload
    if fmt == "internlm":
        return lead + f'<|action_start|><|plugin|>\n{{"name": "{name}", "parameters": {payload}}}<|action_end|>', payload
    if fmt == "gigachat":
        return f'<|function_call|>{{"name": "{name}", "arguments": {payload}}}', payload
    if fmt == "solar_open":
        return (f"<|think|>{lead.strip()}<|end|><|begin|>assistant<|tool_calls|><|tool_call:begin|>a1b2c3d4e5"
                f"<|tool_call:name|>{name}<|tool_call:args|>{payload}<|tool_call:end|><|calls|>", payload)
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
    # Many complete calls: each line a leading call and a tier-3 find (was quadratic).
    "many small calls f(a=1)": "f(a=1)\n",
    "repeated <tool_call>": "<tool_call>",
    "deep [[[[": "[",
    "repeated {{{{ (prose)": "{",
    "repeated a( (prose)": "a(",
    # The open-model formats' markers, alone or opening a broken call, and inside a <think> that
    # is never closed (where a marker not followed by a well-formed call is reasoning text).
    "repeated <｜tool▁call▁begin｜>": "<｜tool▁call▁begin｜>",
    '<｜DSML｜invoke name="': '<｜DSML｜invoke name="',
    "repeated <|tool_call_begin|>": "<|tool_call_begin|>",
    "repeated <|channel|>": "<|channel|>",
    "repeated <|tool_call>call:": "<|tool_call>call:",
    "repeated Gemma nesting": "<|tool_call>call:f{a:",
    "repeated <|tool_call_start|>[f(": "<|tool_call_start|>[f(",
    "repeated [TOOL_CALLS]f": "[TOOL_CALLS]f",
    "repeated >>>": ">>>",
    "repeated functools[": "functools[",
    "repeated <arg_key>": "<arg_key>",
    "repeated <|START_ACTION|>": "<|START_ACTION|>",
    '<|START_ACTION|>[{"tool_name": ': '<|START_ACTION|>[{"tool_name": ',
    "unclosed <think>, Kimi calls": "<think><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
    "unclosed <think>, DeepSeek calls": '<think><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": ',
    "unclosed <think>, GLM pairs": "<think><arg_key>a</arg_key>",
    "unclosed <think>, Harmony calls": "<think><|channel|>commentary to=functions.f<|message|>{",
    "unclosed <think>, >>>": "<think>>>>f\n",
}


def adversarial(unit, size):
    return (unit * (size // len(unit) + 1))[:size]


#: Per format: (opening, one small call, separator, closing) of an output of many calls, written
#: the way the format lists several (one array or section where it has one). `{i}` is the call's
#: index.
MANY_CALLS = {
    "hermes": ("", '<tool_call>\n{{"name": "f", "arguments": {{"a": {i}}}}}\n</tool_call>', "\n", ""),
    "mistral": ("[TOOL_CALLS] [", '{{"name": "f", "arguments": {{"a": {i}}}}}', ", ", "]</s>"),
    "llama": ("<|python_tag|>", '{{"name": "f", "parameters": {{"a": {i}}}}}', "; ", "<|eom_id|>"),
    "qwen3_coder": ("", "<tool_call>\n<function=f>\n<parameter=a>\n{i}\n</parameter>\n</function>\n</tool_call>", "\n", ""),
    "glm45": ("", "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>{i}</arg_value>\n</tool_call>", "\n", ""),
    "kimi_k2": ("<|tool_calls_section_begin|>",
                '<|tool_call_begin|>functions.f:{i}<|tool_call_argument_begin|>{{"a": {i}}}<|tool_call_end|>', "",
                "<|tool_calls_section_end|>"),
    "deepseek_v3": ("<｜tool▁calls▁begin｜>",
                    '<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{{"a": {i}}}\n```<｜tool▁call▁end｜>', "\n",
                    "<｜tool▁calls▁end｜>"),
    "pythonic": ("<|tool_call_start|>[", "f(a={i})", ", ", "]<|tool_call_end|>"),
}


def many_calls(fmt, size):
    """(text, number of calls): an output of small calls in `fmt`, as many as fit in `size` bytes."""
    opening, call, sep, closing = MANY_CALLS[fmt]
    parts, used, i = [], len((opening + closing).encode()), 0
    while True:
        part = (sep if i else "") + call.format(i=i)
        used += len(part.encode())
        if used > size:
            return opening + "".join(parts) + closing, i
        parts.append(part)
        i += 1
