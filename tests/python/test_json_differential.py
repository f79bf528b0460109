"""Property tests: beacon's strict JSON accepts exactly what json.loads accepts, except the
documented strict differences, and decodes to equal values (same types, same key order)."""

import json

import beacon
from hypothesis import assume, given, settings
from hypothesis import strategies as st

STRICT_DIFFERENCES = {"json.duplicate_key", "json.too_deep", "json.invalid_unicode"}

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**19, max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=24)
objects = st.dictionaries(st.text(), values, max_size=5)


def exact(v):
    """A canonical text that tells 1 from 1.0 and True from 1, and keeps key order."""
    return json.dumps(v, ensure_ascii=False)


def message(payload_text):
    return '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": %s}}]}' % payload_text


@settings(max_examples=300, deadline=None)
@given(objects, st.booleans())
def test_decodes_like_json_loads(args, ascii_only):
    payload = json.dumps(args, ensure_ascii=ascii_only)
    # as a call's arguments object, through two parsers of beacon's: provider responses and text
    (call,) = beacon.parse_response(message(payload))
    assert exact(call["arguments"]) == exact(json.loads(payload))
    text_call = beacon.parse_tool_call("<tool_call>" + json.dumps({"name": "f", "arguments": args}) + "</tool_call>")
    assert exact(text_call["arguments"]) == exact(args)


def _reject(constant):
    raise ValueError(f"{constant} is not JSON")


MUTATIONS = ["{", "}", "[", "]", '"', ",", ":", "0", "-", ".", "e", "+", "t", "n", " ", "\\", "\\u", "01", "1e999", "\x01", "NaN", "//", "'"]


@settings(max_examples=500, deadline=None)
@given(objects, st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(MUTATIONS), st.booleans()), min_size=1, max_size=3))
def test_accepts_exactly_what_json_loads_accepts(args, edits):
    text = json.dumps(args)
    for at, insert, delete in edits:
        i = at % (len(text) + 1)
        text = text[:i] + text[i + 1:] if delete and i < len(text) else text[:i] + insert + text[i:]
    assume(text.lstrip(" \t\r\n")[:1] in ("{", "["))  # otherwise it is plain text, not JSON
    try:
        json.loads(text, parse_constant=_reject)  # NaN, Infinity: json.loads's extension, not JSON
        theirs_ok = True
    except ValueError:
        theirs_ok = False
    try:
        beacon.detect_provider(text)  # parses the whole text as strict JSON
    except beacon.ToolCallError as e:
        if e.code in STRICT_DIFFERENCES or (e.code == "json.invalid_number" and "too large" in e.message):
            return
        assert not theirs_ok, f"beacon rejected ({e}), json.loads accepted: {text!r}"
        assert e.code.startswith("json.")
    else:
        assert theirs_ok, f"beacon accepted, json.loads rejected: {text!r}"
