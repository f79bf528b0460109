// The JavaScript surface of beacon-toolcall: exports, Error classes, TypeError, BigInt,
// UTF-16 positions, includeFormat, and what travels through the private wire format.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertExact, loadBeacon, thrown, PKG_DIR, ROOT } from './helpers.mjs';

const beacon = await loadBeacon();
const { parseToolCall, parseToolCalls, ToolCallError, NoToolCallFoundError } = beacon;

test('exports exactly the documented API, and index.d.ts declares all of it', () => {
  assert.deepEqual(
    Object.keys(beacon).sort(),
    [
      'ERROR_CODES', 'FORMATS', 'FormatSpec', 'NoToolCallFoundError', 'PROVIDERS', 'ResponseStream', 'ToolCallError', 'ToolCallStream', 'Tools',
      // not part of the API: for the tests (providers.test.mjs, limits.test.mjs)
      '_memoryBytesForTesting', '_panicForTesting', '_setMemoryLimitForTesting',
      'compileTools', 'detectProvider', 'formatCalls', 'formatResults', 'hasToolCalls',
      // loading the module (every entry; only beacon-toolcall/init needs them: init.test.mjs)
      'init', 'initSync', 'initTemplates',
      'parseMessage', 'parseResponse', 'parseToolCall', 'parseToolCalls',
      'scanStream',
    ],
  );
  const dts = readFileSync(join(PKG_DIR, 'index.d.ts'), 'utf8');
  for (const name of Object.keys(beacon)) {
    assert.match(dts, new RegExp(`export (declare )?(class|function|const) ${name}\\b`), name);
  }
});

test('FORMATS lists every format id; formats= recognises only those', () => {
  assert.equal(beacon.FORMATS.length, 32);
  assert.deepEqual(beacon.FORMATS.slice(-2), ['json', 'python']);
  const text = '<tool_call>{"name": "a", "arguments": {}}</tool_call> b(x=1)';
  assert.deepEqual(parseToolCalls(text, { formats: ['python'] }), [{ name: 'b', arguments: { x: 1 } }]);
  assert.deepEqual(parseToolCalls(text, { formats: new Set(['hermes']) }), [{ name: 'a', arguments: {} }]);
  assert.throws(() => parseToolCalls(text, { formats: ['nope'] }), (e) => e instanceof TypeError && /hermes, bracket/.test(e.message));
  assert.throws(() => parseToolCalls(text, { formats: 'hermes' }), TypeError);
  assert.throws(() => parseToolCall(text, { formats: [] }), NoToolCallFoundError);
});

test('package.json: name, ESM, types, version of the Rust workspace', () => {
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'beacon-toolcall');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.types, './index.d.ts');
  const cargo = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const version = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(cargo)[1];
  assert.equal(pkg.version, version, 'bindings-wasm/js/package.json version != Cargo.toml');
});

test('the first examples of docs/python.md and docs/javascript.md', () => {
  assertExact(parseToolCall('Call: search(query="rust async", limit=5)'), {
    name: 'search', arguments: { query: 'rust async', limit: 5 },
  });
  assertExact(parseToolCall('[TOOL_CALL]name=search;args={"q":"rust"}[/TOOL_CALL]'), {
    name: 'search', arguments: { q: 'rust' },
  });
});

test('includeFormat adds the format id; without it there is no format key', () => {
  const text = 'a <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call> '
    + '[TOOL_CALL]name=g;args={}[/TOOL_CALL]';
  assertExact(parseToolCalls(text), [
    { name: 'f', arguments: { x: 1 } }, { name: 'g', arguments: {} },
  ]);
  assertExact(parseToolCalls(text, { includeFormat: true }), [
    { name: 'f', arguments: { x: 1 }, format: 'hermes' },
    { name: 'g', arguments: {}, format: 'bracket' },
  ]);
  assertExact(parseToolCalls(text, { includeFormat: false }), parseToolCalls(text));
  assertExact(parseToolCalls(text, {}), parseToolCalls(text));
});

test('integers beyond Number.MAX_SAFE_INTEGER are BigInt, others numbers', () => {
  const got = parseToolCall(
    'f(a=9007199254740991, b=9007199254740992, c=-9007199254740991, d=-9007199254740992, '
    + 'e=123456789012345678901234567890, f=-0, g=1.5, h=-0.0, i=1e300, j=12345678901234567890.0)',
  );
  assertExact(got.arguments, {
    a: 9007199254740991,
    b: 9007199254740992n,
    c: -9007199254740991,
    d: -9007199254740992n,
    e: 123456789012345678901234567890n,
    f: 0,
    g: 1.5,
    h: -0,
    i: 1e300,
    j: 12345678901234567890.0,
  });
  // Inside JSON and nested values too.
  const json = parseToolCall(
    '{"name": "f", "arguments": {"ids": [18446744073709551616, 1], "o": {"n": -18446744073709551616}}}',
  );
  assertExact(json.arguments, { ids: [18446744073709551616n, 1], o: { n: -18446744073709551616n } });
});

test('strings come back exactly, including ones that start with U+0000 or look like tags', () => {
  const args = {
    nul: '\u0000n123',
    nul2: '\u0000s',
    nul3: '\u0000',
    quote: 'say "hi"\\ \n\t\r\u0001\u001f',
    unicode: 'żółw 🐢 \u2028',
    empty: '',
  };
  const text = `<tool_call>${JSON.stringify({ name: 'f', arguments: args })}</tool_call>`;
  assertExact(parseToolCall(text).arguments, args);
  // With a BigInt in the same answer (the other wire path).
  const text2 = `<tool_call>${JSON.stringify({ name: 'f', arguments: args }).replace(/}}$/, ', "big": 99999999999999999999}}')}</tool_call>`;
  assertExact(parseToolCall(text2).arguments, { ...args, big: 99999999999999999999n });
});

test('a name starting with U+0000 survives next to a BigInt', () => {
  const text = '{"name": "\\u0000n1", "arguments": {"big": 99999999999999999999, "\\u0000k": "\\u0000n2"}}';
  assertExact(parseToolCall(text), {
    name: '\u0000n1', arguments: { big: 99999999999999999999n, '\u0000k': '\u0000n2' },
  });
});

test('"__proto__" is an ordinary key; key order is kept', () => {
  const got = parseToolCall('{"name": "f", "arguments": {"z": 1, "__proto__": {"polluted": true}, "a": 2}}');
  assert.equal(Object.getPrototypeOf(got.arguments), Object.prototype);
  assert.deepEqual(Object.keys(got.arguments), ['z', '__proto__', 'a']);
  assert.equal(({}).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(got.arguments, '__proto__').value, { polluted: true });
});

test('ToolCallError: a real Error subclass with code, position, line, column', () => {
  const text = 'x <tool_call>{"name": "f", "arguments": {"a": 1}\n</tool_call>';
  const e = thrown(() => parseToolCall(text));
  assert.ok(e instanceof ToolCallError);
  assert.ok(e instanceof Error);
  assert.ok(!(e instanceof NoToolCallFoundError));
  assert.equal(e.name, 'ToolCallError');
  assert.equal(e.code, 'json.unexpected_token');
  assert.equal(text[e.position], '<');
  assert.equal(e.position, text.indexOf('</tool_call>'));
  assert.equal(e.line, 2);
  assert.equal(e.column, 1);
  assert.match(e.message, /^json\.unexpected_token at line 2, column 1: ./);
  assert.match(String(e), /^ToolCallError: json\.unexpected_token/);
  assert.match(e.stack, /ToolCallError/);
});

test('NoToolCallFoundError extends ToolCallError', () => {
  for (const fn of [() => parseToolCall('hello, no tools here'), () => parseToolCalls('')]) {
    const e = thrown(fn);
    assert.ok(e instanceof NoToolCallFoundError);
    assert.ok(e instanceof ToolCallError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'NoToolCallFoundError');
    assert.equal(e.code, 'tool_call.not_found');
    assert.deepEqual([e.position, e.line, e.column], [0, 1, 1]);
  }
  assert.ok(Object.getPrototypeOf(NoToolCallFoundError) === ToolCallError);
});

test('the classes can be constructed by callers (e.g. in mocks)', () => {
  const e = new ToolCallError('boom', { code: 'tool_call.syntax', position: 3, line: 1, column: 4 });
  assert.deepEqual([e.message, e.code, e.position, e.line, e.column], ['boom', 'tool_call.syntax', 3, 1, 4]);
  assert.ok(new NoToolCallFoundError('none') instanceof ToolCallError);
});

test('tool_call.multiple from parseToolCall, at the second call', () => {
  const text = 'f(a=1) and then g(b=2)';
  const e = thrown(() => parseToolCall(text));
  assert.equal(e.code, 'tool_call.multiple');
  assert.equal(e.position, text.indexOf('g(b=2)'));
  assert.equal(parseToolCalls(text).length, 2);
});

test('positions are UTF-16 code units: astral characters count twice', () => {
  const prefix = '🙂🙂 é\n🙂 ';
  const text = `${prefix}search(q="x", q="y")`;
  const e = thrown(() => parseToolCall(text));
  assert.equal(e.code, 'tool_call.duplicate_argument');
  assert.equal(text.slice(e.position, e.position + 1), 'q');
  assert.equal(e.position, text.lastIndexOf('q="y"'));
  assert.equal(e.line, 2);
  // column: "🙂 search(q=\"x\", " is 2 + 1 + 14 UTF-16 units before the second q.
  assert.equal(e.column, text.slice(text.lastIndexOf('\n') + 1, e.position).length + 1);
});

test('a lone surrogate in the input is json.invalid_unicode at its UTF-16 index', () => {
  // A lone surrogate is not Unicode text: crossing into WebAssembly would make it U+FFFD and the
  // parse would go on. Python raises the same code at its code-point index.
  const cases = [
    ['\ud800 x <tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>', 0],
    ['f(x="\ud800")', 5],
    ['😀 é\n<tool_call>{"name": "f\udc00", "arguments": {}}</tool_call>', 27],
    ['search(q="\ude00\ud83d")', 10], // a pair written backwards is two lone surrogates
    ['ok 😀 then \udbff', 11],
  ];
  for (const [text, index] of cases) {
    assert.ok(/[\ud800-\udfff]/.test(text[index]), text);
    for (const fn of [parseToolCall, parseToolCalls, beacon.scanStream]) {
      const e = thrown(() => fn(text));
      assert.ok(e instanceof ToolCallError && !(e instanceof NoToolCallFoundError), `${fn.name}: ${e}`);
      assert.equal(e.code, 'json.invalid_unicode');
      assert.equal(e.position, index);
      const before = text.slice(0, index);
      assert.equal(e.line, before.split('\n').length);
      assert.equal(e.column, index - (before.lastIndexOf('\n') + 1) + 1);
      assert.ok(e.message.startsWith(`json.invalid_unicode at line ${e.line}, column ${e.column}: `), e.message);
      assert.match(e.message, new RegExp(`U\\+${text.charCodeAt(index).toString(16).toUpperCase()}`));
    }
  }
  // A well-formed pair is one character, not an error.
  assert.deepEqual(parseToolCall('f(x="\ud83d\ude00")'), { name: 'f', arguments: { x: '😀' } });
});

test('non-string text is a TypeError', () => {
  for (const bad of [undefined, null, 5, {}, ['f(a=1)'], new String('f(a=1)'), Symbol('x')]) {
    assert.throws(() => parseToolCall(bad), TypeError);
    assert.throws(() => parseToolCalls(bad), TypeError);
  }
});

test('many calls in a row reuse the module (no leaks of state between calls)', () => {
  for (let i = 0; i < 2000; i++) {
    assertExact(parseToolCall(`f(i=${i})`), { name: 'f', arguments: { i } });
    assert.throws(() => parseToolCall(`f(i=${i}`), ToolCallError);
  }
});

test('large input', () => {
  const items = Array.from({ length: 2000 }, (_, k) => ({ id: k, title: `item ${k}`, score: k / 8 }));
  const text = `prose ${'x'.repeat(100000)} <tool_call>${JSON.stringify({ name: 'bulk', arguments: { items } })}</tool_call>`;
  assertExact(parseToolCall(text), { name: 'bulk', arguments: { items } });
});

test('parseMessage: content, reasoning, calls with ids, formats and UTF-16 spans', () => {
  const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Zürich"}}</tool_call>';
  const text = `<think>Plan 😀.</think>Checking 😀.\n${call}<|im_end|>`;
  const message = beacon.parseMessage(text);
  assertExact(message, {
    content: 'Checking 😀.',
    reasoning: 'Plan 😀.',
    tool_calls: [{
      id: null, name: 'get_weather', arguments: { city: 'Zürich' }, format: 'hermes',
      span: [text.indexOf('<tool_call>'), text.indexOf('<|im_end|>')],
    }],
  });
  assert.equal(text.slice(...message.tool_calls[0].span), call);
  assertExact(beacon.parseMessage('Just prose.'), { content: 'Just prose.', reasoning: null, tool_calls: [] });
  const big = beacon.parseMessage('f(n=123456789012345678901234567890)').tool_calls[0].arguments.n;
  assert.equal(big, 123456789012345678901234567890n);
});

test('parseMessage: ids and formats options, and their errors', () => {
  const two = 'a(x=1) b(y=2)';
  assert.deepEqual(beacon.parseMessage(two).tool_calls.map((c) => c.id), [null, null]);
  for (const opts of [{ ids: 'generate' }, { idSeed: 'request-42' }]) {
    const ids = beacon.parseMessage(two, opts).tool_calls.map((c) => c.id);
    assert.equal(new Set(ids).size, 2);
    for (const id of ids) assert.match(id, /^call_[A-Za-z0-9]{24}$/);
  }
  const seededIds = beacon.parseMessage(two, { idSeed: 'request-42' }).tool_calls.map((c) => c.id);
  assert.deepEqual(seededIds, beacon.parseMessage(two, { ids: 'generate', idSeed: 'request-42' }).tool_calls.map((c) => c.id));
  assert.notDeepEqual(seededIds, beacon.parseMessage(two, { idSeed: 'request-43' }).tool_calls.map((c) => c.id));
  assert.throws(() => beacon.parseMessage(two, { idSeed: 42 }), TypeError);
  assert.deepEqual(beacon.parseMessage(two, { ids: null }).tool_calls.map((c) => c.id), [null, null]);
  assert.deepEqual(beacon.parseMessage(two, { formats: ['hermes'] }).tool_calls, []);
  assert.throws(() => beacon.parseMessage(two, { ids: 'uuid' }), (e) => e instanceof TypeError && /"generate"/.test(e.message));
  assert.throws(() => beacon.parseMessage(two, { ids: true }), TypeError);
  assert.throws(() => beacon.parseMessage(two, { formats: ['nope'] }), (e) => e instanceof TypeError && /hermes, bracket/.test(e.message));
  assert.throws(() => beacon.parseMessage(42), TypeError);
  const e = thrown(() => beacon.parseMessage('😀 f(q=1, 2)'));
  assert.deepEqual([e.code, e.position, e.line, e.column], ['tool_call.positional_argument', 10, 1, 11]);
  assert.match(e.message, /^tool_call\.positional_argument at line 1, column 11: /);
});

// The same ids as core/tests/message.rs and tests/python/test_message.py pin (from an
// independent implementation of the derivation): equal on every target.
const TWO = '<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", "arguments": {}}</tool_call>';
const SEEDED = ['call_DRWNE4fNQq0wjbTbFjsPK57j', 'call_q0xFUBWyv7BeWy9kSjPAcFwJ'];

test('seeded ids are the same on every target, streamed or not', () => {
  assert.deepEqual(beacon.parseMessage(TWO, { idSeed: 'request-42' }).tool_calls.map((c) => c.id), SEEDED);
  const stream = new beacon.ToolCallStream({ idSeed: 'request-42', start: 'content' });
  const events = [...stream.feed(TWO.slice(0, 30)), ...stream.feed(TWO.slice(30, 70)), ...stream.feed(TWO.slice(70)), ...stream.finish()];
  assert.deepEqual(events.filter((e) => e.type === 'call_start').map((e) => e.id), SEEDED);
});

test('generated ids are unique across outputs (#26 item 13)', () => {
  const outputs = [
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
    '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Berlin"}}]',
  ];
  const ids = [];
  for (let i = 0; i < 20; i++) for (const text of outputs) ids.push(beacon.parseMessage(text, { ids: 'generate' }).tool_calls[0].id);
  assert.equal(new Set(ids).size, ids.length);
  const streamedId = (text) => {
    const stream = new beacon.ToolCallStream({ ids: 'generate' });
    return [...stream.feed(text), ...stream.finish()].find((e) => e.type === 'call_start').id;
  };
  assert.notEqual(streamedId(outputs[0]), streamedId(outputs[0]));
});

test('formatCalls: the assistant message, read back by parseResponse', () => {
  const calls = [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris', n: 123456789012345678901234567890n } }];
  for (const provider of beacon.PROVIDERS) {
    if (provider === 'cohere_v1') continue;
    const message = beacon.formatCalls(calls, provider, { content: 'Checking.' });
    assertExact(beacon.parseResponse(message, { provider }), calls);
  }
  const m = beacon.parseMessage('get_weather(city="Paris")', { ids: 'generate' });
  assert.equal(beacon.formatCalls(m.tool_calls, 'openai_chat').tool_calls[0].id, m.tool_calls[0].id);
  const e = thrown(() => beacon.formatCalls([{ name: 'f', arguments: {} }], 'openai_chat'));
  assert.equal(e.code, 'result.missing_field');
  assert.throws(() => beacon.formatCalls([{ name: 'f' }], 'openai_chat'), (err) => err instanceof TypeError && /has no 'arguments'/.test(err.message));
  assert.throws(() => beacon.formatCalls([], 'nope'), RangeError);
  assert.throws(() => beacon.formatCalls({}, 'anthropic'), TypeError);
});
