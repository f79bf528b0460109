// Runs shared fixtures (tests/fixtures/*.json, schema in tests/fixtures/README.md) against the
// beacon-toolcall API. Plain ES module without imports: the Node tests (fixtures.test.mjs) and
// the browser test (tests/browser/test_playground.py, in the playground page) use this same
// file, so both check exactly the same things.

// ------------------------------------------------------------------------------------------
// A small strict JSON reader that keeps integers exact: an integer literal (no fraction, no
// exponent) beyond Number.MAX_SAFE_INTEGER in magnitude becomes a BigInt, exactly as
// beacon-toolcall returns it. Keys are defined as own data properties (so "__proto__" is an
// ordinary key, as with JSON.parse).

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function parseJsonExact(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at offset ${i} of JSON text`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)); // JSON.parse decodes the escapes exactly
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 4096));
    if (!m) fail('bad number');
    i += m[0].length;
    if (m[2] === undefined && m[3] === undefined) {
      const big = BigInt(m[0]);
      // Number(BigInt("-0")) is 0, like the core's Int(0).
      return big > MAX_SAFE || big < -MAX_SAFE ? big : Number(big);
    }
    return Number(m[0]);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = {};
      ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        ws();
        if (text[i] !== ':') fail('expected :');
        i++;
        Object.defineProperty(obj, key, {
          value: value(), enumerable: true, writable: true, configurable: true,
        });
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return obj; }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const arr = [];
      ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return arr; }
        fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    return number();
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// ------------------------------------------------------------------------------------------
// Positions: fixtures count code points, JavaScript counts UTF-16 code units.

/** The UTF-16 length of the first `codePoints` code points of `s`. */
export function utf16Offset(s, codePoints) {
  return [...s].slice(0, codePoints).join('').length;
}

/** A fixture's `error` (code points) in JavaScript's units. */
export function expectedErrorUtf16(input, error) {
  const position = utf16Offset(input, error.position);
  const lineStart = utf16Offset(input, error.position - (error.column - 1));
  return { code: error.code, position, line: error.line, column: position - lineStart + 1 };
}

/** Which function a fixture case exercises: "parse_tool_call" or "parse_tool_calls" (default). */
export function caseFunction(c) {
  return c.function ?? 'parse_tool_calls';
}

// ------------------------------------------------------------------------------------------
// Exact comparison: same types (a BigInt never equals a number), numbers by Object.is (so -0
// and 0 differ), plain objects with the same keys in the same order.

/** `JSON.stringify` that prints BigInts as `123n`, for messages. */
export function show(v) {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
}

const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The first difference between `actual` and `expected` as a sentence, or null. */
export function diffExact(actual, expected, path = '$') {
  if (kind(actual) !== kind(expected)) {
    return `${path}: got ${kind(actual)} ${show(actual)}, want ${kind(expected)} ${show(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (actual.length !== expected.length) {
      return `${path}: got ${actual.length} items ${show(actual)}, want ${expected.length} ${show(expected)}`;
    }
    for (let k = 0; k < expected.length; k++) {
      const d = diffExact(actual[k], expected[k], `${path}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  if (kind(expected) === 'object') {
    if (Object.getPrototypeOf(actual) !== Object.prototype) return `${path}: not a plain object`;
    const ak = Object.keys(actual);
    const ek = Object.keys(expected);
    if (show(ak) !== show(ek)) return `${path}: keys ${show(ak)}, want ${show(ek)} (in this order)`;
    for (const k of ek) {
      const d = diffExact(actual[k], expected[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  const same = typeof expected === 'number' ? Object.is(actual, expected) : actual === expected;
  return same ? null : `${path}: got ${show(actual)}, want ${show(expected)}`;
}

// ------------------------------------------------------------------------------------------

const withoutFormat = ({ id, name, arguments: args, repairs }) => {
  const call = id === undefined ? { name, arguments: args } : { id, name, arguments: args };
  return repairs === undefined ? call : { ...call, repairs };
};

/** A receipt as the fixtures state it: code and location (UTF-16), the call index checked. */
function receiptAsFixture(r, index, input) {
  if (r.call_index !== index || typeof r.message !== 'string' || !r.message) {
    return { problem: `receipt ${show(r)} of call ${index}` };
  }
  const cp = [...input.slice(0, r.position)].length;
  return { code: r.code, position: cp, line: r.line, column: r.column };
}

/** The calls with their receipts as the fixtures state them (positions in code points). */
export function receiptsAsFixtures(calls, input) {
  const one = !Array.isArray(calls);
  const list = (one ? [calls] : calls).map((call, i) => (call.repairs === undefined
    ? call
    : { ...call, repairs: call.repairs.map((r) => receiptAsFixture(r, i, input)) }));
  return one ? list[0] : list;
}

/**
 * The options case `c` gives, for every function: `formats`, and `tools` (compiled once into a
 * `beacon.Tools`) with `validate` and `unknown`.
 */
export function caseOptions(beacon, c) {
  const o = c.formats === undefined ? {} : { formats: c.formats };
  if (c.repair) o.repair = true;
  if (c.tools !== undefined) {
    o.tools = new beacon.Tools(c.tools);
    if (c.validate !== undefined) o.validate = c.validate;
    if (c.unknown !== undefined) o.unknown = c.unknown;
  }
  return o;
}

/** An error's fields that a fixture states (`path` is compared always: absent means none). */
function errorFields(e) {
  return { code: e.code, position: e.position, line: e.line, column: e.column, path: e.path };
}

function expectedError(c) {
  return { ...expectedErrorUtf16(c.input, c.error), path: c.error.path };
}

/**
 * Runs one fixture case against `beacon` (the module's exports) and returns the problems found,
 * as sentences; an empty array means the case passes.
 */
export function runCase(beacon, c) {
  let f;
  try {
    f = caseOptions(beacon, c);
  } catch (e) {
    return [`the case's options threw ${e && e.name}: ${e && e.message}`];
  }
  return [...runCallsCase(beacon, c, f), ...runMessageCase(beacon, c, f)];
}

/**
 * The message counterpart of a case, through `parseMessage` (the rule of core/tests/fixtures.rs
 * `check_message`): the same calls with ids and formats, spans in UTF-16 units that slice the
 * input in order, or the same error; no call (`tool_call.not_found`) is an empty `tool_calls`;
 * and the content and reasoning the case states.
 */
export function runMessageCase(beacon, c, f = caseOptions(beacon, c)) {
  const code = c.error?.code;
  let message;
  try {
    message = beacon.parseMessage(c.input, f);
  } catch (e) {
    if (code === undefined || code === 'tool_call.not_found' || code === 'tool_call.multiple') {
      return [`parseMessage threw ${e && e.name}: ${e && e.message}`];
    }
    const d = diffExact(errorFields(e), expectedError(c), 'parseMessage error');
    return d ? [d] : [];
  }
  if (code !== undefined && code !== 'tool_call.not_found' && code !== 'tool_call.multiple') {
    return [`parseMessage did not throw ${code}: ${show(message)}`];
  }
  const problems = [];
  const keys = Object.keys(message);
  const wantKeys = ['content', 'reasoning', 'tool_calls', ...(c.repair ? ['repairs'] : [])];
  if (show(keys) !== show(wantKeys)) problems.push(`parseMessage keys ${show(keys)}`);
  const calls = message.tool_calls;
  if (code === 'tool_call.not_found' && calls.length !== 0) problems.push(`parseMessage found ${show(calls)}`);
  if (code === undefined) {
    const want = c.calls.map((x) => ({
      id: x.id ?? null,
      name: x.name,
      arguments: x.arguments,
      format: x.format ?? calls[c.calls.indexOf(x)]?.format,
      ...(x.repairs === undefined ? {} : { repairs: x.repairs }),
    }));
    const got = receiptsAsFixtures(calls.map(({ span: _span, ...rest }) => rest), c.input);
    const d = diffExact(got, want, 'parseMessage.tool_calls');
    if (d) problems.push(d);
  }
  let last = 0;
  for (const call of calls) {
    const [start, end] = call.span;
    if (!(last <= start && start < end && end <= c.input.length)) problems.push(`span ${show(call.span)} of ${call.name}`);
    last = end;
  }
  if ('content' in c && message.content !== c.content) problems.push(`content: got ${show(message.content)}, want ${show(c.content)}`);
  if ('reasoning' in c && message.reasoning !== c.reasoning) {
    problems.push(`reasoning: got ${show(message.reasoning)}, want ${show(c.reasoning)}`);
  }
  return problems;
}

function runCallsCase(beacon, c, f) {
  const { parseToolCall, parseToolCalls, ToolCallError, NoToolCallFoundError } = beacon;
  const fn = caseFunction(c);
  if (fn !== 'parse_tool_call' && fn !== 'parse_tool_calls') return [`unknown function ${fn}`];
  // The case's options (`f`: formats, tools, validate, unknown) go with every call.
  const call = (options) => (fn === 'parse_tool_call' ? parseToolCall(c.input, f) : parseToolCalls(c.input, { ...options, ...f }));
  const problems = [];

  if (c.error) {
    const want = expectedError(c);
    let e;
    try {
      return [`expected ${want.code}, got ${show(call({ includeFormat: true }))}`];
    } catch (thrown) {
      e = thrown;
    }
    if (!(e instanceof ToolCallError) || !(e instanceof Error)) {
      return [`expected a ToolCallError, got ${e && e.name}: ${e && e.message}`];
    }
    if ((e instanceof NoToolCallFoundError) !== (want.code === 'tool_call.not_found')) {
      problems.push(`${e.name} for ${e.code}: NoToolCallFoundError must be thrown exactly for tool_call.not_found`);
    }
    const d = diffExact(errorFields(e), want, 'error');
    if (d) problems.push(`${d} (message: ${e.message})`);
    const prefix = `${e.code} at line ${e.line}, column ${e.column}: `;
    if (!e.message.startsWith(prefix)) problems.push(`message ${show(e.message)} does not start with ${show(prefix)}`);
    return problems;
  }

  if (!Array.isArray(c.calls)) return ['a case has either "calls" or "error"'];
  try {
    if (fn === 'parse_tool_call') {
      if (c.calls.length !== 1) return ['parse_tool_call cases expect exactly one call'];
      const d = diffExact(receiptsAsFixtures(parseToolCall(c.input, f), c.input), withoutFormat(c.calls[0]), 'result');
      if (d) problems.push(d);
    } else {
      const d = diffExact(receiptsAsFixtures(parseToolCalls(c.input, f), c.input), c.calls.map(withoutFormat), 'result');
      if (d) problems.push(d);
    }
    // Formats, through parseToolCalls (parse_tool_call succeeding means there is one call).
    if (c.calls.every((x) => 'format' in x)) {
      const got = receiptsAsFixtures(parseToolCalls(c.input, { includeFormat: true, ...f }), c.input);
      const d = diffExact(got, c.calls, 'includeFormat');
      if (d) problems.push(d);
    }
  } catch (e) {
    problems.push(`threw ${e && e.name}: ${e && e.message}`);
  }
  return problems;
}
