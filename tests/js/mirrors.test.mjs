// The hand-kept copies of the core's lists in index.d.ts (and the option descriptions of
// index.js) equal the lists the wasm module takes from the core: the unions `ErrorCode`,
// `Format` and `Provider` are `ERROR_CODES`, `FORMATS` and `PROVIDERS` (the core's
// `ErrorCode::ALL`, `Format::ALL`, `Provider::ALL`); the values of the `unknown` and `start`
// options are those the core names when it rejects a value; `StreamScan.state` are the states of
// the stream fixtures, and the `StreamEvent` types those a stream reports.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeacon, thrown, ROOT } from './helpers.mjs';

const beacon = await loadBeacon();
const DTS = readFileSync(join(ROOT, 'bindings-wasm/js/index.d.ts'), 'utf8');

/** The string literals of a union written as `'a' | 'b' | ...`, checking it holds nothing else. */
function literals(union, what) {
  const found = [...union.matchAll(/'([^']*)'/g)].map((m) => m[1]);
  const rest = union.replace(/'[^']*'/g, '').replace(/\/\*[^]*?\*\//g, '');
  assert.match(rest, /^[\s|]*$/, `${what} is not a union of string literals: ${union}`);
  assert.ok(found.length > 0, `${what} has no member`);
  return found;
}

/** The members of `export type NAME = 'a' | 'b' ...;` in index.d.ts. */
function typeUnion(name) {
  const m = new RegExp(`export type ${name} =([^;]*);`).exec(DTS);
  assert.ok(m, `index.d.ts declares no type ${name}`);
  return literals(m[1], `type ${name}`);
}

/** The members of every inline union `FIELD: 'a' | 'b';` (or `FIELD?:`), which must agree. */
function fieldUnion(field) {
  const unions = [...DTS.matchAll(new RegExp(`\\b${field}\\??: ('[^;]*');`, 'g'))].map((m) => literals(m[1], field));
  assert.ok(unions.length > 0, `index.d.ts has no field ${field} of a string union`);
  for (const u of unions) assert.deepEqual(u, unions[0], `the unions of ${field} differ`);
  return unions[0];
}

/** `mirror` holds `core`'s values, each once, and nothing else. */
function assertSameSet(mirror, core, what) {
  assert.equal(new Set(mirror).size, mirror.length, `${what}: a value appears twice: ${mirror}`);
  assert.equal(new Set(core).size, core.length, `the core's list for ${what} has a value twice`);
  const missing = core.filter((v) => !mirror.includes(v));
  const extra = mirror.filter((v) => !core.includes(v));
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${what} differs from the core's list`);
}

/** The double-quoted values the core lists in a rejection (`x must be "a", "b" or "c", not …`). */
function listed(message) {
  const m = /must be (.*), not /.exec(message);
  assert.ok(m, `no list of values in ${JSON.stringify(message)}`);
  return [...m[1].matchAll(/"([^"]*)"|'([^']*)'/g)].map((v) => v[1] ?? v[2]);
}

test('the ErrorCode, Format and Provider unions are the core\'s lists', () => {
  for (const [name, core] of [['ErrorCode', beacon.ERROR_CODES], ['Format', beacon.FORMATS], ['Provider', beacon.PROVIDERS]]) {
    assert.ok(Object.isFrozen(core), name);
    assertSameSet(typeUnion(name), core, `type ${name}`);
  }
  assert.ok(beacon.ERROR_CODES.includes('tool_call.unknown_tool'));
  // Every code an error object carries is one of them.
  assert.ok(beacon.ERROR_CODES.includes(thrown(() => beacon.parseToolCall('nothing')).code));
});

test('the values of the unknown and start options are those the core accepts', () => {
  const unknown = thrown(() => beacon.parseToolCalls('f(x=1)', { tools: ['f'], unknown: 'bogus' }));
  const start = thrown(() => new beacon.ToolCallStream({ start: 'bogus' }));
  for (const [field, error] of [['unknown', unknown], ['start', start]]) {
    const core = listed(error.message);
    assertSameSet(fieldUnion(field), core, `the ${field} option in index.d.ts`);
    // index.js's own description of the option (its TypeError for a value of the wrong type).
    const typeError = field === 'unknown'
      ? thrown(() => beacon.parseToolCalls('f(x=1)', { tools: ['f'], unknown: 1 }))
      : thrown(() => new beacon.ToolCallStream({ start: 1 }));
    assert.ok(typeError instanceof TypeError, String(typeError));
    assertSameSet(listed(typeError.message), core, `index.js's description of ${field}`);
  }
});

test('StreamScan.state holds the states of the stream fixtures', () => {
  const doc = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/stream/scan.json'), 'utf8'));
  const states = [...new Set(doc.cases.map((c) => c.scan.state))];
  for (const c of doc.cases) assert.equal(beacon.scanStream(c.input).state, c.scan.state, c.id);
  assertSameSet(fieldUnion('state'), states, 'StreamScan.state');
});

test('the StreamEvent types are those a stream reports', () => {
  const stream = new beacon.ToolCallStream();
  const events = [
    ...stream.feed('<think>hm</think>Sure. <tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'),
    ...stream.finish(),
  ];
  const m = /export type StreamEvent<[^>]*> =([^]*?);\n\n/.exec(DTS);
  assert.ok(m, 'index.d.ts declares no StreamEvent');
  const types = [...m[1].matchAll(/\btype: '([^']*)'/g)].map((t) => t[1]);
  assertSameSet(types, [...new Set(events.map((e) => e.type))], 'StreamEvent types');
});
