// The package from CommonJS: a project as `npm init` makes it (no "type": CommonJS), the packed
// package installed offline, loaded with a plain synchronous `require()` (index.cjs, which reads
// the .wasm synchronously), and `import()` from the same project getting the same instance.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBeacon } from './helpers.mjs';
import { pack, project } from './pack-lib.mjs';

await loadBeacon(); // fails loudly when the package is not built

const MAIN = `\
'use strict';
const beacon = require('beacon-toolcall');
const { parseToolCall, parseToolCalls, parseResponse, ToolCallError, NoToolCallFoundError, FORMATS } = beacon;
const call = parseToolCall('search(query="rust", limit=5)');
const all = parseToolCalls('<tool_call>{"name": "f", "arguments": {"n": 12345678901234567890}}</tool_call>',
  { includeFormat: true, bigints: 'string' });
let err;
try { parseToolCall('<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'); } catch (e) { err = e; }
let none;
try { parseToolCall('plain text'); } catch (e) { none = e; }
const calls = parseResponse({ choices: [{ message: { tool_calls: [
  { id: 'c1', type: 'function', function: { name: 'g', arguments: '{"x": 1}' } }] } }] });
import('beacon-toolcall').then((esm) => {
  console.log(JSON.stringify({
    resolved: require.resolve('beacon-toolcall').split(/[\\\\/]/).pop(),
    call, all, calls,
    err: [err instanceof ToolCallError, err.code, err.position],
    none: [none instanceof NoToolCallFoundError, none.code],
    formats: FORMATS.length > 20,
    sameInstance: esm.ToolCallError === ToolCallError && esm.parseToolCall === parseToolCall,
  }));
});
`;

test('require() from a CommonJS project', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'beacon-cjs-'));
  try {
    const { tarball } = pack(tmp);
    const dir = project(tmp, 'cjs-consumer', tarball, { version: '1.0.0', main: 'index.js' }, { 'index.js': MAIN });
    const out = JSON.parse(execFileSync(process.execPath, ['index.js'], { cwd: dir, encoding: 'utf8' }));
    assert.deepEqual(out, {
      resolved: 'index.cjs',
      call: { name: 'search', arguments: { query: 'rust', limit: 5 } },
      all: [{ name: 'f', arguments: { n: '12345678901234567890' }, format: 'hermes' }],
      calls: [{ id: 'c1', name: 'g', arguments: { x: 1 } }],
      err: [true, 'json.unexpected_token', 46],
      none: [true, 'tool_call.not_found'],
      formats: true,
      sameInstance: true,
    });
    // The CommonJS entry is synchronous: nothing is pending once require() returns.
    const sync = execFileSync(process.execPath, ['-e',
      "const b = require('beacon-toolcall'); process.stdout.write(b.parseToolCall('f(a=1)').name)"],
    { cwd: dir, encoding: 'utf8' });
    assert.equal(sync, 'f');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
