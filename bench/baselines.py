"""What users do today instead of beacon: a regex per format plus json.loads (or ast for Python
call syntax), the way inference servers' tool parsers are commonly written.

Where a format carries values as text (GLM, LongCat, Step-3, xml_invoke, qwen3_coder, DSML's
`string="true"` aside), the extractor types them as beacon does without a tool schema: the trimmed
text as JSON when it is JSON, else the text as written."""

import ast
import html
import json
import re

HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
BRACKET = re.compile(r"\[TOOL_CALL\]name=(.*?);args=(.*?)\[/TOOL_CALL\]", re.S)
MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(\[.*\])", re.S)
LLAMA = re.compile(r"<\|python_tag\|>(.*?)(?:<\|eom_id\|>|<\|eot_id\|>|$)", re.S)
INVOKE = re.compile(r'<invoke name="(.*?)">(.*?)</invoke>', re.S)
PARAMETER = re.compile(r'<parameter name="(.*?)">(.*?)</parameter>', re.S)
QWEN_FUNCTION = re.compile(r"<function=(.*?)>(.*?)</function>", re.S)
QWEN_PARAMETER = re.compile(r"<parameter=(.*?)>\n?(.*?)\n?</parameter>", re.S)
JSON_OBJECT = re.compile(r"\{.*\}", re.S)
PY_CALL = re.compile(r"([A-Za-z_][\w.]*)\((.*)\)", re.S)


def _args(a):
    return json.loads(a) if isinstance(a, str) else a


def hermes(text):
    return [(c["name"], _args(c["arguments"])) for c in map(json.loads, HERMES.findall(text))]


def bracket(text):
    return [(n, json.loads(a)) for n, a in BRACKET.findall(text)]


def mistral(text):
    m = MISTRAL.search(text)
    return [(c["name"], _args(c["arguments"])) for c in json.loads(m.group(1))] if m else []


def llama(text):
    m = LLAMA.search(text)
    if not m:
        return []
    c = json.loads(m.group(1))
    return [(c["name"], c["parameters"])]


def _xml_value(raw):
    raw = html.unescape(raw)
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def xml_invoke(text):
    return [
        (name, {k: _xml_value(v) for k, v in PARAMETER.findall(body)})
        for name, body in INVOKE.findall(text)
    ]


def _qwen_value(raw):
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def qwen3_coder(text):
    return [
        (name, {k: _qwen_value(v) for k, v in QWEN_PARAMETER.findall(body)})
        for name, body in QWEN_FUNCTION.findall(text)
    ]


def json_tier(text):
    m = JSON_OBJECT.search(text)
    if not m:
        return []
    msg = json.loads(m.group(0))
    return [(c["function"]["name"], _args(c["function"]["arguments"])) for c in msg.get("tool_calls", [])]


def python(text):
    m = PY_CALL.search(text)
    if not m:
        return []
    call = ast.parse(m.group(0), mode="eval").body
    return [(m.group(1), {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords})]


def _text_value(raw):
    """A value written as text between tags: JSON if the trimmed text is JSON, else the text."""
    try:
        return json.loads(raw.strip())
    except ValueError:
        return raw


DEEPSEEK_V3 = re.compile(
    r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>(.*?)\n```json\n(.*?)\n```<｜tool▁call▁end｜>", re.S
)
DEEPSEEK_V31 = re.compile(r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>(.*?)<｜tool▁call▁end｜>", re.S)
DSML_INVOKE = re.compile(r'<｜DSML｜invoke\s+name="([^"]+)"\s*>(.*?)</｜DSML｜invoke>', re.S)
DSML_PARAMETER = re.compile(
    r'<｜DSML｜parameter\s+name="([^"]+)"\s+string="(true|false)"\s*>(.*?)</｜DSML｜parameter>', re.S
)
STEP3_INVOKE = re.compile(r'<steptml:invoke name="([^"]+)">(.*?)</steptml:invoke>', re.S)
STEP3_PARAMETER = re.compile(r'<steptml:parameter name="([^"]+)">(.*?)</steptml:parameter>', re.S)
KIMI = re.compile(
    r"<\|tool_call_begin\|>\s*([^<]+:\d+)\s*<\|tool_call_argument_begin\|>\s*(.*?)\s*<\|tool_call_end\|>", re.S
)
SOLAR_OPEN = re.compile(
    r"<\|tool_call:begin\|>[^<]*<\|tool_call:name\|>\s*([^<]+?)\s*<\|tool_call:args\|>\s*(.*?)\s*<\|tool_call:end\|>", re.S
)
GLM_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
GLM_NAME = re.compile(r"\s*([^\n<]+)")
GLM_PAIR = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)</arg_value>", re.S)
LONGCAT_CALL = re.compile(r"<longcat_tool_call>(.*?)</longcat_tool_call>", re.S)
LONGCAT_PAIR = re.compile(r"<longcat_arg_key>(.*?)</longcat_arg_key>\s*<longcat_arg_value>(.*?)</longcat_arg_value>", re.S)
IFM_CALL = re.compile(r"<ifm\|tool_call>(.*?)</ifm\|tool_call>", re.S)
IFM_PAIR = re.compile(r"<ifm\|arg_key>(.*?)</ifm\|arg_key>\s*<ifm\|arg_value>(.*?)</ifm\|arg_value>", re.S)
MINICPM_CALL = re.compile(r'<function ?name="([^"]+)">(.*?)</function>', re.S)
MINICPM_PARAM = re.compile(r'<param ?name="([^"]+)">(?:<!\[CDATA\[(.*?)\]\]>|(.*?))</param>', re.S)
HARMONY = re.compile(r"to=functions\.([\w.-]+)[^<]*(?:<\|constrain\|>json)?<\|message\|>(.*?)<\|call\|>", re.S)
GEMMA4 = re.compile(r"<\|tool_call>call:([\w.-]+)(\{.*?\})<tool_call\|>", re.S)
FUNCTION_GEMMA = re.compile(r"<start_function_call>call:([\w.-]+)(\{.*?\})<end_function_call>", re.S)
PYTHONIC = re.compile(r"<\|tool_call_start\|>(.*?)<\|tool_call_end\|>", re.S)
COMMAND_R7B = re.compile(r"<\|START_ACTION\|>(.*?)<\|END_ACTION\|>", re.S)
GRANITE = re.compile(r"<\|tool_call\|>(.*)", re.S)
FUNCTIONARY_V31 = re.compile(r"<function=([^>]+)>(.*?)</function>", re.S)
FUNCTIONARY_V32 = re.compile(r">>>([^\n]+)\n(.*?)(?=>>>|$)", re.S)
FUNCTOOLS = re.compile(r"functools(\[.*\])", re.S)
NEMOTRON = re.compile(r"<TOOLCALL>(.*?)</TOOLCALL>", re.S)
APERTUS = re.compile(r"<\|tools_prefix\|>(.*?)<\|tools_suffix\|>", re.S)
TOOL_CALLS = re.compile(r"<tool_calls>(.*?)</tool_calls>", re.S)
INTERNLM = re.compile(r"<\|action_start\|>\s*<\|plugin\|>(.*?)<\|action_end\|>", re.S)
GIGACHAT = re.compile(r"<\|function_call\|>(.*)", re.S)


def deepseek_v3(text):
    return [(name, json.loads(args)) for _, name, args in DEEPSEEK_V3.findall(text)]


def deepseek_v31(text):
    return [(name, json.loads(args)) for name, args in DEEPSEEK_V31.findall(text)]


def deepseek_v32(text):
    return [
        (name, {k: raw if string == "true" else json.loads(raw) for k, string, raw in DSML_PARAMETER.findall(body)})
        for name, body in DSML_INVOKE.findall(text)
    ]


def step3(text):
    return [
        (name, {k: _text_value(v) for k, v in STEP3_PARAMETER.findall(body)})
        for name, body in STEP3_INVOKE.findall(text)
    ]


def kimi_k2(text):
    return [
        (call_id.strip().removeprefix("functions.").rsplit(":", 1)[0], json.loads(args))
        for call_id, args in KIMI.findall(text)
    ]


def solar_open(text):
    return [(name, json.loads(args)) for name, args in SOLAR_OPEN.findall(text)]


def _pairs(calls, pair, text):
    out = []
    for body in calls.findall(text):
        name = GLM_NAME.match(body).group(1).strip()
        out.append((name, {k.strip(): _text_value(v) for k, v in pair.findall(body)}))
    return out


def glm45(text):
    return _pairs(GLM_CALL, GLM_PAIR, text)


def longcat(text):
    return _pairs(LONGCAT_CALL, LONGCAT_PAIR, text)


def ifm(text):
    return _pairs(IFM_CALL, IFM_PAIR, text)


def minicpm(text):
    return [
        (name, {k: cdata if plain == "" and cdata else _text_value(plain) for k, cdata, plain in MINICPM_PARAM.findall(body)})
        for name, body in MINICPM_CALL.findall(text)
    ]


def harmony(text):
    return [(name, json.loads(body)) for name, body in HARMONY.findall(text)]


def _gemma_literal(quote):
    """Gemma's object literal to JSON: delimited strings re-quoted, bare keys quoted, one pass."""
    token = re.compile(re.escape(quote) + r"(.*?)" + re.escape(quote) + r"|([{,])\s*([A-Za-z_][\w.-]*)\s*:", re.S)

    def sub(m):
        return json.dumps(m.group(1)) if m.group(2) is None else f'{m.group(2)}"{m.group(3)}":'

    return lambda literal: json.loads(token.sub(sub, literal))


_GEMMA4_LITERAL = _gemma_literal('<|"|>')
_FUNCTION_GEMMA_LITERAL = _gemma_literal("<escape>")


def gemma4(text):
    return [(name, _GEMMA4_LITERAL(args)) for name, args in GEMMA4.findall(text)]


def function_gemma(text):
    return [(name, _FUNCTION_GEMMA_LITERAL(args)) for name, args in FUNCTION_GEMMA.findall(text)]


_JSON_NAMES = {"true": True, "false": False, "null": None}


def _literal(node):
    """ast.literal_eval that also takes JSON's true/false/null (LFM2 writes dicts as JSON)."""
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.List):
        return [_literal(x) for x in node.elts]
    return ast.literal_eval(node)


def pythonic(text):
    m = PYTHONIC.search(text)
    if not m:
        return []
    calls = ast.parse(m.group(1).strip(), mode="eval").body.elts
    return [(c.func.id, {kw.arg: _literal(kw.value) for kw in c.keywords}) for c in calls]


def _json_list(pattern, name_key, args_key):
    def extract(text):
        m = pattern.search(text)
        return [(c[name_key], _args(c[args_key])) for c in json.loads(m.group(1))] if m else []

    return extract


def apertus(text):
    m = APERTUS.search(text)
    return [next(iter(c.items())) for c in json.loads(m.group(1))] if m else []


def internlm(text):
    out = []
    for body in INTERNLM.findall(text):
        c = json.loads(body)
        out.append((c["name"], c.get("parameters", c.get("arguments"))))
    return out


def gigachat(text):
    m = GIGACHAT.search(text)
    if not m:
        return []
    c, _ = json.JSONDecoder().raw_decode(m.group(1).strip())
    return [(c["name"], _args(c["arguments"]))]


def functionary_v31(text):
    return [(name, json.loads(args)) for name, args in FUNCTIONARY_V31.findall(text)]


def functionary_v32(text):
    return [(name, json.loads(body)) for name, body in FUNCTIONARY_V32.findall(text) if name != "all"]


EXTRACTORS = {
    "hermes": hermes,
    "bracket": bracket,
    "mistral": mistral,
    "llama": llama,
    "xml_invoke": xml_invoke,
    "qwen3_coder": qwen3_coder,
    "deepseek_v3": deepseek_v3,
    "deepseek_v31": deepseek_v31,
    "deepseek_v32": deepseek_v32,
    "step3": step3,
    "kimi_k2": kimi_k2,
    "glm45": glm45,
    "longcat": longcat,
    "ifm": ifm,
    "minicpm": minicpm,
    "harmony": harmony,
    "gemma4": gemma4,
    "function_gemma": function_gemma,
    "pythonic": pythonic,
    "command_r7b": _json_list(COMMAND_R7B, "tool_name", "parameters"),
    "granite": _json_list(GRANITE, "name", "arguments"),
    "functionary_v31": functionary_v31,
    "functionary_v32": functionary_v32,
    "functools": _json_list(FUNCTOOLS, "name", "arguments"),
    "nemotron": _json_list(NEMOTRON, "name", "arguments"),
    "apertus": apertus,
    "tool_calls": _json_list(TOOL_CALLS, "name", "arguments"),
    "internlm": internlm,
    "gigachat": gigachat,
    "solar_open": solar_open,
    "json": json_tier,
    "python": python,
}
