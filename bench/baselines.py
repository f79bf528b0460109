"""What users do today instead of beacon: a regex per format plus json.loads (or ast for Python
call syntax), the way inference servers' tool parsers are commonly written."""

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


EXTRACTORS = {
    "hermes": hermes,
    "bracket": bracket,
    "mistral": mistral,
    "llama": llama,
    "xml_invoke": xml_invoke,
    "qwen3_coder": qwen3_coder,
    "json": json_tier,
    "python": python,
}
