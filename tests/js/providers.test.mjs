// Provider responses through the npm package: every shared fixture in tests/fixtures/providers
// (checks in provider-fixture-lib.mjs, which the browser test runs in the playground page too),
// then the JavaScript surface of parseResponse, detectProvider, hasToolCalls and formatResults:
// argument checking, decoded values (BigInt both ways), positions, isError.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertExact, loadBeacon, thrown, loadFixtureFiles, PKG_DIR, PROVIDER_FIXTURES_DIR } from './helpers.mjs';
import { runProviderCase } from './provider-fixture-lib.mjs';

const beacon = await loadBeacon();
const {
  parseResponse, detectProvider, hasToolCalls, formatResults, PROVIDERS, ToolCallError, NoToolCallFoundError, Tools,
} = beacon;
// format_calls.json is run by the Rust runner until formatCalls reaches the package.
const files = loadFixtureFiles(PROVIDER_FIXTURES_DIR).filter((f) => f.file !== 'format_calls.json');

test('there are provider fixtures to run, in every file tests/fixtures/providers/README.md lists', () => {
  const names = files.map((f) => f.file);
  for (const want of ['openai_chat.json', 'openai_stream.json', 'openai_responses.json', 'anthropic.json',
    'gemini.json', 'gemini_interactions.json', 'cohere.json', 'bedrock.json', 'ollama.json',
    'detection.json', 'text_fallback.json', 'tools.json', 'format_results.json']) {
    assert.ok(names.includes(want), `missing tests/fixtures/providers/${want}`);
  }
  for (const { file, cases } of files) {
    assert.ok(cases.length > 0, `${file} has no cases`);
    const ids = cases.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length, `${file}: duplicate ids`);
  }
});

for (const { file, cases } of files) {
  describe(`providers/${file}`, () => {
    for (const c of cases) {
      test(c.id, () => {
        const problems = runProviderCase(beacon, file, c);
        assert.ok(problems.length === 0, problems.join('\n'));
      });
    }
  });
}

// ------------------------------------------------------------------------------------------

const ANTHROPIC = {
  id: 'msg_01', type: 'message', role: 'assistant', stop_reason: 'tool_use',
  content: [
    { type: 'text', text: 'Checking.' },
    { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
  ],
};

test('PROVIDERS: the nine ids, in the core\'s order, frozen', () => {
  assert.deepEqual([...PROVIDERS], [
    'openai_chat', 'openai_responses', 'anthropic', 'gemini', 'gemini_interactions',
    'cohere_v1', 'cohere_v2', 'bedrock', 'ollama',
  ]);
  assert.ok(Object.isFrozen(PROVIDERS));
});

test('the round trip of docs/providers.md: parse a response, answer with formatResults', () => {
  const calls = parseResponse(JSON.stringify(ANTHROPIC));
  assertExact(calls, [{ id: 'toolu_01', name: 'get_weather', arguments: { city: 'Paris' } }]);
  assert.equal(detectProvider(ANTHROPIC), 'anthropic');
  assert.equal(hasToolCalls(ANTHROPIC), true);
  const reply = formatResults(calls.map((c) => ({ id: c.id, name: c.name, content: '22°C' })), 'anthropic');
  assertExact(reply, [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '22°C' }]);
});

test('a decoded object gives what its JSON text gives', () => {
  assertExact(parseResponse(ANTHROPIC), parseResponse(JSON.stringify(ANTHROPIC)));
  assertExact(parseResponse(ANTHROPIC, { provider: 'anthropic' }), parseResponse(ANTHROPIC));
  assertExact(parseResponse(ANTHROPIC, { provider: 'bedrock' }), []);
  // Decoded values that are not objects or arrays have no calls, like their JSON text.
  for (const v of [null, 42, true, 12345678901234567890n, []]) {
    assertExact(parseResponse(v), []);
    assert.equal(detectProvider(v), null);
    assert.equal(hasToolCalls(v), false);
  }
  // undefined properties are left out, as JSON.stringify leaves them out.
  const withUndefined = { ...ANTHROPIC, stop_sequence: undefined };
  assertExact(parseResponse(withUndefined), parseResponse(ANTHROPIC));
});

test('BigInts inside a decoded response survive, and big integers come back as BigInt', () => {
  const response = {
    type: 'message', stop_reason: 'tool_use', usage: { input_tokens: 10n },
    content: [{
      type: 'tool_use', id: 'toolu_big', name: 'transfer',
      input: { amount: 123456789012345678901234567890n, small: 5n, neg: -18446744073709551616n, n: 1, s: '\u0000n1' },
    }],
  };
  assertExact(parseResponse(response), [{
    id: 'toolu_big',
    name: 'transfer',
    arguments: { amount: 123456789012345678901234567890n, small: 5, neg: -18446744073709551616n, n: 1, s: '\u0000n1' },
  }]);
  // A number is read as JSON.stringify writes it: an integral one beyond 2^53 as digits.
  const numbers = { ...response, content: [{ ...response.content[0], input: { a: 2 ** 60, b: 1e21, c: 0.5 } }] };
  assertExact(parseResponse(numbers)[0].arguments, { a: 1152921504606847000n, b: 1e21, c: 0.5 });
  // Strings that look like the package's own markers stay strings.
  const tricky = { ...response, content: [{ ...response.content[0], input: { a: '\u0000beacon-bigint-x:1', b: 2n } }] };
  assertExact(parseResponse(tricky)[0].arguments, { a: '\u0000beacon-bigint-x:1', b: 2 });
});

test('error positions: UTF-16 indices into the string, or into JSON.stringify(response)', () => {
  const text = '{"type": "message", "stop_reason": "tool_use", "content": [{"type": "tool_use", '
    + '"id": "t1", "name": "🙂f", "input": "{\\"a\\": 1,}"}]}';
  const e = thrown(() => parseResponse(text));
  assert.ok(e instanceof ToolCallError && !(e instanceof NoToolCallFoundError));
  assert.equal(e.code, 'tool_call.invalid_arguments');
  assert.equal(text[e.position], '}');
  assert.equal(e.position, text.indexOf(',}') + 1);
  assert.match(e.message, /content\[0\]\.input/);

  const value = JSON.parse(text);
  const e2 = thrown(() => parseResponse(value));
  const compact = JSON.stringify(value);
  assert.equal(e2.code, 'tool_call.invalid_arguments');
  assert.equal(compact[e2.position], '}');
  assert.equal(e2.position, compact.indexOf(',}') + 1);
  assert.deepEqual([e2.line, e2.column], [1, e2.position + 1]);

  // Malformed JSON text: the json.* error from all three functions.
  const broken = '{"choices": [}';
  for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
    const err = thrown(() => fn(broken));
    assert.equal(err.code, 'json.unexpected_token');
    assert.equal(err.position, 13);
  }
});

// What a decoded value may hold, and the coded errors for what JSON cannot say (Python raises the
// same codes: tests/python/test_providers.py).
function nest(levels, inner = 0) {
  let v = inner;
  for (let i = 0; i < levels; i++) v = i % 2 ? { k: v } : [v];
  return v;
}

test('decoded values nested deeper than 128, or cyclic, are json.too_deep, not a RangeError or TypeError', () => {
  // At the limit it parses like its text; one deeper is json.too_deep at that bracket, exactly as
  // on the text; 100,000 deep (JSON.stringify overflows the stack) and cycles are the same error.
  for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
    assert.doesNotThrow(() => fn(nest(128)));
    const text = JSON.stringify(nest(129));
    const onText = thrown(() => fn(text));
    assert.equal(onText.code, 'json.too_deep');
    for (const value of [nest(129), nest(100000), nest(129, 'x'.repeat(10))]) {
      const e = thrown(() => fn(value));
      assert.ok(e instanceof ToolCallError, `${fn.name}: ${e}`);
      assert.deepEqual([e.code, e.position, e.line, e.column], ['json.too_deep', onText.position, 1, onText.position + 1]);
      assert.equal(e.message, onText.message);
    }
    const cycle = { role: 'assistant', tool_calls: [] };
    cycle.tool_calls.push(cycle);
    const loop = [];
    loop.push(loop);
    for (const value of [cycle, loop, { choices: [{ message: cycle }] }]) {
      const e = thrown(() => fn(value));
      assert.ok(e instanceof ToolCallError, `${fn.name}: ${e}`);
      assert.equal(e.code, 'json.too_deep');
    }
  }
  const deepContent = thrown(() => formatResults([{ id: 'c', content: nest(100000) }], 'openai_chat'));
  assert.deepEqual([deepContent.code, deepContent.position], ['json.too_deep', 0]);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.equal(thrown(() => formatResults([{ id: 'c', content: cyclic }], 'openai_chat')).code, 'json.too_deep');
});

test('NaN and infinities in a decoded value are json.invalid_number where the number stands', () => {
  for (const bad of [NaN, Infinity, -Infinity]) {
    const value = { choices: [{ message: { role: 'assistant', x: [1, bad] } }] };
    // Where JSON.stringify writes the number (as null).
    const at = JSON.stringify(value).indexOf('null');
    for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
      const e = thrown(() => fn(value));
      assert.ok(e instanceof ToolCallError, `${fn.name}: ${e}`);
      assert.deepEqual([e.code, e.position, e.line, e.column], ['json.invalid_number', at, 1, at + 1]);
      assert.ok(e.message.includes(`response.choices[0].message.x[1] is ${bad}, which is not a JSON number`), e.message);
    }
    const e = thrown(() => formatResults([{ name: 'f', content: { v: bad } }], 'gemini'));
    assert.deepEqual([e.code, e.position], ['json.invalid_number', 0]);
    assert.match(e.message, /results\[0\]\.content\.v is /);
  }
  // A boxed number is its value, as JSON.stringify reads it.
  assert.deepEqual(parseResponse({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { n: Object(2) } } }] }),
    [{ id: 'c', name: 'f', arguments: { n: 2 } }]);
});

test('undefined members are left out; undefined elsewhere, functions and symbols are TypeErrors naming the path', () => {
  const call = (args) => ({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] });
  assert.deepEqual(parseResponse(call({ a: 1, b: undefined })), [{ id: 'c', name: 'f', arguments: { a: 1 } }]);
  const bad = [
    [call({ a: [1, undefined] }), /response\.tool_calls\[0\]\.function\.arguments\.a\[1\] is undefined/],
    [call({ 'odd key': () => 1 }), /response\.tool_calls\[0\]\.function\.arguments\["odd key"\] is a function/],
    [call({ s: Symbol('x') }), /arguments\.s is a symbol/],
    // eslint-disable-next-line no-sparse-arrays
    [call({ holes: [1, , 3] }), /arguments\.holes\[1\] is undefined/],
  ];
  for (const [value, message] of bad) {
    for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
      assert.throws(() => fn(value), (e) => e instanceof TypeError && message.test(e.message), `${fn.name}`);
    }
  }
  assert.throws(() => formatResults([{ id: 'c', content: [undefined] }], 'openai_chat'),
    (e) => e instanceof TypeError && /results\[0\]\.content\[0\] is undefined/.test(e.message));
});

test('lone surrogates: in a response string at their index; in a decoded value at the escape JSON.stringify writes', () => {
  const text = '{"role": "assistant",\n "content": "😀\ud800"}';
  for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
    const e = thrown(() => fn(text));
    assert.ok(e instanceof ToolCallError, `${fn.name}: ${e}`);
    assert.deepEqual([e.code, e.position, e.line, e.column], ['json.invalid_unicode', text.indexOf('\ud800'), 2, 16]);
    assert.match(e.message, /lone surrogate \(U\+D800\)/);
  }
  const value = { role: 'assistant', content: 'ok \udfff' };
  const compact = JSON.stringify(value); // writes the lone surrogate as the escape \udfff
  for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
    const e = thrown(() => fn(value));
    assert.deepEqual([e.code, e.position], ['json.invalid_unicode', compact.indexOf('\\udfff')]);
  }
  assert.equal(thrown(() => formatResults([{ id: 'c\ud800', content: 'x' }], 'openai_chat')).code, 'json.invalid_unicode');
});

test('plain text is no response: null, false, []', () => {
  for (const text of ['', 'Paris is sunny.', '<tool_call>{"name": "f", "arguments": {}}</tool_call>']) {
    assert.equal(detectProvider(text), null);
    assert.equal(hasToolCalls(text, { textFallback: true }), false);
    assertExact(parseResponse(text, { textFallback: true }), []);
  }
});

test('textFallback reads calls written in the assistant text', () => {
  const response = {
    choices: [{ message: { role: 'assistant', content: 'Sure. get_weather(city="Paris")' }, finish_reason: 'stop' }],
  };
  assertExact(parseResponse(response), []);
  assert.equal(hasToolCalls(response), false);
  assertExact(parseResponse(response, { textFallback: true }), [{ id: null, name: 'get_weather', arguments: { city: 'Paris' } }]);
  assert.equal(hasToolCalls(response, { textFallback: true }), true);
});

test('bad arguments: TypeError for types, RangeError listing the ids for an unknown provider', () => {
  for (const fn of [parseResponse, detectProvider, hasToolCalls]) {
    for (const bad of [undefined, () => 1, Symbol('x')]) {
      assert.throws(() => fn(bad), TypeError);
    }
    assert.deepEqual(fn(new TextEncoder().encode('{}')), fn('{}'), 'bytes are UTF-8 JSON');
    assert.deepEqual(fn(new ArrayBuffer(0)), fn(''));
  }
  for (const fn of [parseResponse, hasToolCalls]) {
    const e = thrown(() => fn('{}', { provider: 'openai' }));
    assert.ok(e instanceof RangeError);
    assert.match(e.message, /'auto' or one of 'openai_chat', 'openai_responses', .*'ollama', not "openai"/);
    assert.throws(() => fn('{}', { provider: 7 }), TypeError);
    assert.throws(() => fn('{}', { provider: 'OpenAI_Chat' }), RangeError);
    assert.deepEqual(fn('{}', { provider: undefined }), fn('{}'));
  }
  const e = thrown(() => formatResults([], 'auto'));
  assert.ok(e instanceof RangeError);
  assert.match(e.message, /one of 'openai_chat'/);
  assert.doesNotMatch(e.message, /'auto' or/);
  assert.throws(() => formatResults([]), TypeError);
  assert.throws(() => formatResults({ id: 'x', content: '' }, 'anthropic'), TypeError);
});

test('formatResults: isError (JS style) or is_error, and strict result objects', () => {
  const want = [{ type: 'tool_result', tool_use_id: 't1', content: 'boom', is_error: true }];
  assertExact(formatResults([{ id: 't1', content: 'boom', isError: true }], 'anthropic'), want);
  assertExact(formatResults([{ id: 't1', content: 'boom', is_error: true }], 'anthropic'), want);
  assertExact(formatResults([{ id: 't1', name: null, content: 'ok', isError: undefined }], 'anthropic'),
    [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }]);
  const bad = [
    [{ id: 't1', content: 'x', iserror: true }, /unknown key "iserror"/],
    [{ id: 't1', content: 'x', isError: true, is_error: true }, /both isError and is_error/],
    [{ id: 't1', content: 'x', isError: 'yes' }, /isError must be a boolean/],
    [{ id: 't1' }, /has no 'content'/],
    [{ id: 't1', content: undefined }, /has no 'content'/],
    [{ id: 't1', content: () => 1 }, /results\[0\]\.content is a function/],
    [{ id: 5, content: 'x' }, /results\[0\]\.id must be a string/],
    [null, /results\[0\] must be an object/],
    [['t1', 'x'], /results\[0\] must be an object/],
  ];
  for (const [result, message] of bad) {
    assert.throws(() => formatResults([result], 'anthropic'), (err) => err instanceof TypeError && message.test(err.message));
  }
});

test('formatResults: content of any JSON value, BigInts both ways, errors at position 0', () => {
  const content = { big: 123456789012345678901234567890n, price: 12.5, list: [1, null, 'x'] };
  assertExact(formatResults([{ name: 'quote', content }], 'gemini'),
    [{ functionResponse: { name: 'quote', response: content } }]);
  assertExact(formatResults([{ id: 'c1', content }], 'openai_chat'),
    [{ role: 'tool', tool_call_id: 'c1', content: '{"big":123456789012345678901234567890,"price":12.5,"list":[1,null,"x"]}' }]);
  const e = thrown(() => formatResults([{ content: 'x' }], 'openai_chat'));
  assert.ok(e instanceof ToolCallError);
  assert.deepEqual([e.code, e.position, e.line, e.column], ['result.missing_field', 0, 1, 1]);
  assert.match(e.message, /^result\.missing_field at line 1, column 1: /);
  assert.equal(thrown(() => formatResults([], 'cohere_v1')).code, 'result.unsupported');
  assertExact(formatResults([], 'bedrock'), []);
});

test('a panic is ToolCallError internal, and later calls run on a fresh instance', async () => {
  // The wasm-bindgen module the package loaded (same URL, so the same module instance).
  const glue = await import(pathToFileURL(join(PKG_DIR, 'beacon_wasm.js')).href);
  const counter = () => glue.panic_for_testing(false);
  const before = counter();
  assert.equal(counter(), before + 1);
  const e = thrown(() => beacon._panicForTesting());
  assert.ok(e instanceof ToolCallError);
  assert.equal(e.code, 'internal');
  assert.deepEqual([e.position, e.line, e.column], [0, 1, 1]);
  assert.match(e.message, /^internal at line 1, column 1: beacon's WebAssembly module trapped/);
  assert.ok(e.cause instanceof WebAssembly.RuntimeError);
  assert.equal(counter(), 1, 'the instance was replaced (its call counter starts again)');
  // And everything keeps working, repeatedly.
  for (let i = 0; i < 20; i++) {
    assert.throws(() => beacon._panicForTesting(), ToolCallError);
    assertExact(beacon.parseToolCall(`f(i=${i})`), { name: 'f', arguments: { i } });
    assertExact(parseResponse(ANTHROPIC)[0].id, 'toolu_01');
  }
});

test('when the instance cannot be replaced, calls throw internal until it can', () => {
  const { Instance } = WebAssembly;
  try {
    WebAssembly.Instance = function failing() {
      throw new RangeError('WebAssembly.Instance(): Out of memory (simulated)');
    };
    assert.equal(thrown(() => beacon._panicForTesting()).code, 'internal');
    for (const fn of [() => beacon.parseToolCall('f(a=1)'), () => parseResponse(ANTHROPIC), () => formatResults([], 'anthropic')]) {
      const e = thrown(fn);
      assert.ok(e instanceof ToolCallError);
      assert.equal(e.code, 'internal');
      assert.match(e.message, /could not be replaced/);
    }
  } finally {
    WebAssembly.Instance = Instance;
  }
  assertExact(beacon.parseToolCall('f(a=1)'), { name: 'f', arguments: { a: 1 } });
  assertExact(parseResponse(ANTHROPIC)[0].name, 'get_weather');
});

test('responses as bytes: UTF-8 JSON, positions in bytes, invalid UTF-8 is a coded error', () => {
  const text = JSON.stringify(ANTHROPIC);
  const body = new TextEncoder().encode(text);
  assertExact(parseResponse(body), parseResponse(text));
  assertExact(parseResponse(body.buffer), parseResponse(text));
  assertExact(detectProvider(new DataView(body.buffer)), 'anthropic');
  const broken = new TextEncoder().encode('{"city": "Zürich", "x": }');
  const e = thrown(() => parseResponse(broken));
  assert.deepEqual([e.code, e.position], ['json.unexpected_token', 25], 'a byte offset: "ü" is two');
  const latin1 = Uint8Array.from([...'{"city": "Z'].map((c) => c.charCodeAt(0)).concat([0xfc, 0x22, 0x7d]));
  const bad = thrown(() => parseResponse(latin1));
  assert.deepEqual([bad.code, bad.position], ['json.invalid_utf8', 11]);
});

// ------------------------------------------------------------------------------------------
// parseResponse with tools (the shared cases are in tools.json; these check the JS surface).

const WEATHER_TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: {
  type: 'object', properties: { unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['unit'] } } }];
const KELVIN = {
  role: 'assistant', content: '☀️ Zürich',
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"unit": "kelvin"}' } }],
};

test('parseResponse with tools: a violation inside an arguments string, at its UTF-16 position', () => {
  const text = JSON.stringify(KELVIN);
  for (const tools of [WEATHER_TOOLS, new Tools(WEATHER_TOOLS)]) {
    assert.throws(() => parseResponse(text, { tools }), (e) => {
      assert.ok(e instanceof ToolCallError);
      assert.equal(e.code, 'tool_call.schema');
      assert.equal(e.path, '/unit');
      assert.equal(e.position, text.indexOf('\\"kelvin'));
      assert.match(e.message, /tool_calls\[0\]\.function\.arguments/);
      return true;
    });
    // A decoded object: positions point into its JSON.stringify text, which is `text`.
    assert.throws(() => parseResponse(KELVIN, { tools }), (e) => e.position === text.indexOf('\\"kelvin'));
  }
  assertExact(parseResponse(KELVIN, { tools: WEATHER_TOOLS, validate: false }),
    [{ id: 'call_1', name: 'get_weather', arguments: { unit: 'kelvin' } }]);
  // Bytes: positions in bytes.
  const bytes = new TextEncoder().encode(text);
  assert.throws(() => parseResponse(bytes, { tools: WEATHER_TOOLS }),
    (e) => e.position === new TextEncoder().encode(text.slice(0, text.indexOf('\\"kelvin'))).length);
});

test('parseResponse with tools: unknown names, keep and drop; option checks', () => {
  const tools = ['get_time'];
  assert.throws(() => parseResponse(KELVIN, { tools }), (e) => e.code === 'tool_call.unknown_tool' && e.path === undefined);
  assertExact(parseResponse(KELVIN, { tools, unknown: 'keep' }).map((c) => c.name), ['get_weather']);
  assertExact(parseResponse(KELVIN, { tools, unknown: 'drop' }), []);
  assert.throws(() => parseResponse(KELVIN, { tools, unknown: 'ignore' }), TypeError);
  assert.throws(() => parseResponse(KELVIN, { tools: 'get_time' }), TypeError);
  // hasToolCalls and detectProvider take no tools.
  assert.throws(() => hasToolCalls(KELVIN, { tools }), TypeError);
  assert.equal(hasToolCalls(KELVIN), true);
});
