// Options are checked (unknown names, wrong types, null), parseResponse refuses non-JSON objects,
// and `bigints: 'string'` makes results JSON.stringify-safe.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBeacon } from './helpers.mjs';

const b = await loadBeacon();
const BIG = '<tool_call>{"name": "f", "arguments": {"n": 12345678901234567890, "s": 1}}</tool_call>';

test('unknown option names are TypeErrors naming the valid ones', () => {
  assert.throws(() => b.parseToolCalls('f()', { include_format: true }),
    { name: 'TypeError', message: /unknown option "include_format" \(did you mean includeFormat\?\); the options are includeFormat, formats, template, bigints/ });
  assert.throws(() => b.parseResponse('{}', { text_fallback: true }),
    { name: 'TypeError', message: /did you mean textFallback\?.*provider, textFallback, bigints/ });
  assert.throws(() => b.parseToolCall('f()', { fromats: ['python'] }), { name: 'TypeError', message: /formats, template, bigints/ });
  assert.throws(() => b.formatCalls([], 'openai', { text: 'x' }), { name: 'TypeError', message: /the options are content/ });
});

test('wrong option types and null options are TypeErrors', () => {
  assert.throws(() => b.parseToolCalls('f()', null), { name: 'TypeError', message: /^parseToolCalls\(\): options must be an object .*not null/ });
  assert.throws(() => b.parseToolCalls('f()', 'python'), { name: 'TypeError', message: /options must be an object/ });
  assert.throws(() => b.parseToolCalls('f()', { includeFormat: 'yes' }), { name: 'TypeError', message: /includeFormat must be a boolean, not "yes"/ });
  assert.throws(() => b.parseResponse('{}', { textFallback: 1 }), { name: 'TypeError', message: /textFallback must be a boolean/ });
  assert.throws(() => b.parseToolCalls('f()', { bigints: 'number' }), { name: 'TypeError', message: /bigints must be 'bigint' or 'string'/ });
  assert.throws(() => b.parseToolCalls('f()', { formats: 'python' }), { name: 'TypeError', message: /formats must be an array/ });
  // undefined leaves the default
  assert.deepEqual(b.parseToolCalls('f()', { includeFormat: undefined }), [{ name: 'f', arguments: {} }]);
});

test('parseResponse: a fetch Response or Request, a Promise, a Map are TypeErrors', () => {
  assert.throws(() => b.parseResponse(new Response('{}')), { name: 'TypeError', message: /not a fetch Response \(pass its body: await r\.json\(\)/ });
  assert.throws(() => b.hasToolCalls(new Request('http://x.invalid/')), { name: 'TypeError', message: /not a fetch Request/ });
  assert.throws(() => b.parseResponse(Promise.resolve({})), { name: 'TypeError', message: /Promise \(await it first\)/ });
  assert.throws(() => b.detectProvider(new Map()), { name: 'TypeError', message: /not a Map object/ });
  assert.deepEqual(b.parseResponse(Object.create(null)), []);
  assert.deepEqual(b.parseResponse([]), []);
});

test("bigints: 'string' makes results JSON.stringify-safe; the default stays BigInt", () => {
  assert.equal(b.parseToolCall(BIG).arguments.n, 12345678901234567890n);
  for (const calls of [
    b.parseToolCalls(BIG, { bigints: 'string' }),
    [b.parseToolCall(BIG, { bigints: 'string' })],
    b.parseMessage(BIG, { bigints: 'string' }).tool_calls,
    b.parseResponse({ choices: [{ message: { role: 'assistant', content: BIG } }] }, { textFallback: true, bigints: 'string' }),
    b.parseResponse({ content: [{ type: 'tool_use', id: 't', name: 'f', input: { n: 12345678901234567890n } }],
      stop_reason: 'tool_use', type: 'message' }, { bigints: 'string' }),
  ]) {
    assert.equal(calls[0].arguments.n, '12345678901234567890');
    assert.match(JSON.stringify(calls), /"n":"12345678901234567890"/);
  }
  assert.equal(b.parseToolCalls('<tool_call>{"name": "f", "arguments": {"s": "\\u0000x"}}</tool_call>',
    { bigints: 'string' })[0].arguments.s, '\0x');
});

test('integer-like argument keys come first (JavaScript object order), as documented', () => {
  const call = b.parseToolCall('<tool_call>{"name": "f", "arguments": {"b": 1, "2": 2}}</tool_call>');
  assert.deepEqual(Object.keys(call.arguments), ['2', 'b']);
});
