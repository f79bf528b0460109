// The tools option in JavaScript: Tools / compileTools from every definition shape, the
// validate and unknown options, malformed definitions (TypeError / RangeError naming the entry),
// ToolCallError.path, and a compiled list surviving a replaced instance.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertExact, loadBeacon, thrown } from './helpers.mjs';

const beacon = await loadBeacon();
const { Tools, compileTools, parseToolCall, parseToolCalls, parseMessage, ToolCallError, NoToolCallFoundError } = beacon;

const ZIP = { name: 'lookup_zip', input_schema: { type: 'object', properties: { zip: { type: 'string' } }, required: ['zip'] } };
const TODOS = {
  type: 'function',
  function: {
    name: 'write_todos',
    parameters: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          items: { type: 'object', properties: { status: { enum: ['open', 'done'] } }, required: ['status'] },
        },
      },
    },
  },
};
const QWEN = '<tool_call>\n<function=lookup_zip>\n<parameter=zip>\n10001\n</parameter>\n</function>\n</tool_call>';
const hermes = (name, args) => `<tool_call>{"name": "${name}", "arguments": ${args}}</tool_call>`;

test('Tools types values by the schema, once for many calls', () => {
  const tools = new Tools([ZIP, 'get_time']);
  assert.deepEqual([...tools.names], ['lookup_zip', 'get_time']);
  assertExact(parseToolCall(QWEN), { name: 'lookup_zip', arguments: { zip: 10001 } });
  for (let i = 0; i < 3; i++) {
    assertExact(parseToolCall(QWEN, { tools }), { name: 'lookup_zip', arguments: { zip: '10001' } });
  }
  assertExact(parseToolCalls(QWEN, { tools: [ZIP], includeFormat: true }), [
    { name: 'lookup_zip', arguments: { zip: '10001' }, format: 'qwen3_coder' },
  ]);
  assert.ok(compileTools([ZIP]) instanceof Tools);
});

test('tool_call.schema has path and the position of the value', () => {
  const text = hermes('write_todos', '{"todos": [{"status": "open"}, {"status": "later"}]}');
  const e = thrown(() => parseToolCalls(text, { tools: [TODOS] }));
  assert.ok(e instanceof ToolCallError);
  assert.equal(e.code, 'tool_call.schema');
  assert.equal(e.path, '/todos/1/status');
  assert.ok(text.slice(e.position).startsWith('"later"'));
  assert.match(e.message, /\(enum\)$/);
  assert.equal(parseToolCalls(text, { tools: [TODOS], validate: false })[0].name, 'write_todos');
  const m = thrown(() => parseMessage(text, { tools: [TODOS] }));
  assert.equal(m.path, '/todos/1/status');
  const other = thrown(() => parseToolCall(hermes('f', '{"x": }')));
  assert.equal(other.path, undefined);
  assert.ok('path' in other);
});

test('unknown tools: error, keep, drop; prose stays prose', () => {
  const tools = new Tools(['lookup_zip']);
  const text = hermes('delete_all', '{}');
  const e = thrown(() => parseToolCalls(text, { tools }));
  assert.equal(e.code, 'tool_call.unknown_tool');
  assert.ok(text.slice(e.position).startsWith('"delete_all"'));
  assertExact(parseToolCalls(text, { tools, unknown: 'keep' }), [{ name: 'delete_all', arguments: {} }]);
  assert.throws(() => parseToolCalls(text, { tools, unknown: 'drop' }), NoToolCallFoundError);
  assert.throws(() => parseToolCalls(text, { tools, unknown: 'ignore' }), (x) => x instanceof TypeError && /unknown must be/.test(x.message));
  assert.throws(() => parseToolCalls(text, { tools, unknown: 1 }), TypeError);
  const prose = 'Use requests.get(url="https://example.com") to fetch it.';
  assert.deepEqual(parseMessage(prose, { tools }).tool_calls, []);
  assert.equal(parseMessage(prose).tool_calls[0].name, 'requests.get');
});

test('every definition shape', () => {
  for (const d of [
    { type: 'function', function: { name: 'f', parameters: { type: 'object' } } },
    { type: 'function', name: 'f', parameters: { type: 'object' } },
    { name: 'f', input_schema: { type: 'object' } },
    { name: 'f', inputSchema: { type: 'object' } },
    { functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] },
    'f',
  ]) {
    assert.deepEqual([...new Tools([d]).names], ['f'], JSON.stringify(d));
    assertExact(parseToolCall(hermes('f', '{}'), { tools: [d] }), { name: 'f', arguments: {} });
  }
});

test('malformed definitions: TypeError or RangeError naming the entry', () => {
  const cases = [
    ['get_weather', TypeError, 'must be an array'],
    [[1], TypeError, 'tools[0]: a tool definition must be an object or a name'],
    [[{ name: 1 }], TypeError, 'tools[0].name'],
    [['a', { type: 'function', function: { parameters: {} } }], RangeError, 'tools[1].function: a tool definition needs a `name`'],
    [['a', 'a'], RangeError, 'tools[1]: two tools are named "a"'],
    [[{ name: 'f', parameters: { type: 'strnig' } }], RangeError, 'tools[0]'],
    [[{ name: 'f', parameters: 'object' }], TypeError, 'tools[0].parameters'],
  ];
  for (const [definitions, Class, needle] of cases) {
    const e = thrown(() => new Tools(definitions));
    assert.equal(e.constructor, Class, `${JSON.stringify(definitions)}: ${e}`);
    assert.ok(e.message.includes(needle), e.message);
    if (Array.isArray(definitions)) assert.equal(thrown(() => parseToolCall('f()', { tools: definitions })).constructor, Class);
  }
  assert.throws(() => parseToolCall('f()', { tools: 'f' }), TypeError);
});

test('a Tools keeps working after the instance is replaced', () => {
  const tools = new Tools([ZIP]);
  assert.equal(parseToolCall(QWEN, { tools }).arguments.zip, '10001');
  assert.throws(() => beacon._panicForTesting(), (e) => e.code === 'internal');
  assert.equal(parseToolCall(QWEN, { tools }).arguments.zip, '10001');
  const e = thrown(() => parseToolCall(hermes('lookup_zip', '{"zip": 10001}'), { tools }));
  assert.equal(e.path, '/zip');
});
