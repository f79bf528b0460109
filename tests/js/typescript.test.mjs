// The package from strict TypeScript (the pinned tsc of tests/js/tooling): a CommonJS project as
// `npm init` makes it and an ESM one ("type": "module"), both `module: nodenext`, type-check
// with `tsc --noEmit` (the types of the `require` and `import` conditions), then compile and run.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBeacon } from './helpers.mjs';
import { pack, project, tool } from './pack-lib.mjs';

await loadBeacon(); // fails loudly when the package is not built

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types: [],
    outDir: 'dist',
    rootDir: 'src',
  },
  include: ['src'],
}, null, 2);

const MAIN = `\
import {
  parseToolCall, parseToolCalls, parseMessage, parseResponse, ToolCallError, NoToolCallFoundError,
  ToolCallStream, ResponseStream, Tools,
  type ToolCall, type ToolCallWithFormat, type Message, type ProviderCall, type Format, type StreamEvent,
} from 'beacon-toolcall';

const call: ToolCall = parseToolCall('search(query="rust", limit=5)');
const withFormat: ToolCallWithFormat[] = parseToolCalls('f(a=1)', { includeFormat: true });
const format: Format = withFormat[0]!.format;
const big = parseToolCalls('<tool_call>{"name": "f", "arguments": {"n": 12345678901234567890}}</tool_call>',
  { bigints: 'string' });
const message: Message = parseMessage('<think>hm</think>f(a=1)', { ids: 'generate' });
const seededMessage: Message = parseMessage('f(a=1)', { idSeed: 'request-42' });
const seededStream = new ToolCallStream({ idSeed: 'request-42', start: 'content' });
const calls: ProviderCall[] = parseResponse('{"choices": [{"message": {"tool_calls": []}}]}', { textFallback: true });
// Tools<A> types the arguments of parseResponse's calls by tool name.
const weather = new Tools<{ get_weather: { city: string } }>(['get_weather']);
const typed = parseResponse({ role: 'assistant', tool_calls: [{ id: 'c1', type: 'function',
  function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] }, { tools: weather });
const city: string | undefined = typed[0]?.arguments.city;
// @ts-expect-error a Python-style option name is a type error (and a TypeError at run time)
try { parseToolCalls('f()', { include_format: true }); } catch (e) { if (!(e instanceof TypeError)) throw e; }
let code = '';
try {
  parseToolCall('nothing');
} catch (e) {
  if (e instanceof NoToolCallFoundError) code = e.code;
  else if (e instanceof ToolCallError) code = 'other';
}
// Streams: the events are a union discriminated by \`type\`; with typed tools, call_start names one of them.
const tools = new Tools<{ get_weather: { city: string } }>(['get_weather']);
const stream = new ToolCallStream({ tools, start: 'content' });
const events: StreamEvent<{ get_weather: { city: string } }>[] = [
  ...stream.feed('Sure. <tool_call>{"name": "get_weather", "arguments": {"city": "Pa'),
  ...stream.feed('ris"}}</tool_call>'),
  ...stream.finish(),
];
let streamed = '';
for (const event of events) {
  if (event.type === 'content') streamed += event.text;
  else if (event.type === 'call_start') streamed += \` \${event.name}\`;
  else if (event.type === 'arguments') streamed += event.delta;
  else if (event.type === 'call_end') streamed += \` \${event.arguments.city}\`;
}
// @ts-expect-error start takes three values
try { new ToolCallStream({ start: 'think' }); } catch (e) { if (!(e instanceof TypeError)) throw e; }
const response = new ResponseStream({ provider: 'ollama', tools: ['get_weather'], unknown: 'keep' });
// @ts-expect-error unknown takes three values
try { new ResponseStream({ unknown: 'ignore' }); } catch (e) { if (!(e instanceof TypeError)) throw e; }
const ended: StreamEvent[] = response.feed('{"message": {"role": "assistant", "content": "hi"}, "done": true}\\n');
console.log(JSON.stringify({
  call, format, big: big[0]!.arguments, message: message.tool_calls.length, calls, code, city, streamed,
  ended: [...ended, ...response.finish()],
  seeded: [seededMessage.tool_calls[0]!.id!.length, seededStream.finish().length],
}));
`;

const EXPECTED = {
  call: { name: 'search', arguments: { query: 'rust', limit: 5 } },
  format: 'python',
  big: { n: '12345678901234567890' },
  message: 1,
  calls: [],
  code: 'tool_call.not_found',
  city: 'Paris',
  streamed: 'Sure. get_weather{"city": "Paris"} Paris',
  ended: [{ type: 'content', text: 'hi' }],
  seeded: [29, 0],
};

for (const [kind, packageJson] of [['commonjs', {}], ['module', { type: 'module' }]]) {
  test(`strict TypeScript project (${kind}): tsc --noEmit, then the compiled output runs`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'beacon-ts-'));
    try {
      const { tarball } = pack(tmp);
      const dir = project(tmp, `ts-${kind}`, tarball, { version: '1.0.0', ...packageJson },
        { 'tsconfig.json': TSCONFIG, 'src/main.ts': MAIN });
      const tsc = (args) => execFileSync(tool('tsc'), args, { cwd: dir, encoding: 'utf8' });
      try {
        tsc(['--noEmit', '-p', '.']);
        tsc(['-p', '.']);
      } catch (e) {
        assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
      }
      const out = execFileSync(process.execPath, ['dist/main.js'], { cwd: dir, encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out), EXPECTED);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
}
