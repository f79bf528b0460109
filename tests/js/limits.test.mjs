// Memory limits of the WebAssembly module: an input that needs more memory than the module can
// have is ToolCallError `input.too_large` (not `internal`), the instance is then replaced, and an
// instance whose memory grew large is replaced after the call (WebAssembly memory never shrinks).
//
// The real limit is 4 GiB: 'f(a=1) '.repeat(15e6) (105 MB, 15 million calls) reaches it after
// about a minute, too long for a test. The same path is tested here at a low limit that the
// module enforces for tests (`_setMemoryLimitForTesting`): its allocator refuses allocations
// beyond the limit exactly as the 4 GiB memory refuses to grow.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assertExact, loadBeacon, thrown, PKG_DIR } from './helpers.mjs';

const beacon = await loadBeacon();
const { parseToolCalls, parseResponse, formatResults, scanStream, ToolCallError } = beacon;
// The wasm-bindgen module the package loaded: its call counter starts again on a new instance.
const glue = await import(pathToFileURL(join(PKG_DIR, 'beacon_wasm.js')).href);
const counter = () => glue.panic_for_testing(false);
const MiB = 2 ** 20;

const manyCalls = (n) => 'f(a=1) '.repeat(n);

function assertTooLarge(e) {
  assert.ok(e instanceof ToolCallError, `${e}`);
  assert.deepEqual([e.code, e.position, e.line, e.column], ['input.too_large', 0, 1, 1]);
  assert.match(e.message, /^input\.too_large at line 1, column 1: the input needs more memory than beacon can have/);
}

test('reaching the memory limit is input.too_large, and the next call runs on a fresh instance', () => {
  const text = manyCalls(200000); // 1.4 MB, 200,000 calls: well over 16 MiB of parsed calls
  const response = JSON.stringify({ role: 'assistant', content: text });
  const runs = [
    () => parseToolCalls(text),
    () => beacon.parseToolCall(text),
    () => parseResponse(response, { textFallback: true }),
    () => formatResults(Array.from({ length: 100000 }, (_, i) => ({ id: `c${i}`, content: text.slice(0, 64) })), 'anthropic'),
  ];
  for (const run of runs) {
    beacon._setMemoryLimitForTesting(16 * MiB);
    counter();
    const e = thrown(run);
    assertTooLarge(e);
    assert.ok(e.cause instanceof WebAssembly.RuntimeError, 'the allocation failure trapped the module');
    assert.equal(counter(), 1, 'the instance was replaced (its call counter starts again)');
    // The fresh instance has no limit, and works.
    assertExact(beacon.parseToolCall('f(a=1)'), { name: 'f', arguments: { a: 1 } });
  }
  assert.equal(parseToolCalls(text).length, 200000);
});

test('a limit that is not reached changes nothing; a panic is still internal', () => {
  beacon._setMemoryLimitForTesting(64 * MiB);
  assertExact(parseToolCalls('f(a=1) g(b=[1, 2])'), [{ name: 'f', arguments: { a: 1 } }, { name: 'g', arguments: { b: [1, 2] } }]);
  assertExact(scanStream('Hi <tool_'), { state: 'partial', position: 3 });
  const e = thrown(() => beacon._panicForTesting());
  assert.equal(e.code, 'internal', 'a trap without a failed allocation is a bug, not the memory limit');
  beacon._setMemoryLimitForTesting(Infinity);
});

test('after an input that grew the memory past 64 MiB, the instance is replaced', () => {
  assert.ok(beacon._memoryBytesForTesting() < 64 * MiB);
  const before = counter();
  assert.equal(counter(), before + 1);
  // Small inputs do not grow the memory enough: the same instance goes on.
  parseToolCalls(manyCalls(1000));
  assert.equal(counter(), before + 2);
  // 300,000 calls take more than 64 MiB while they are parsed; the memory is given back after.
  assert.equal(parseToolCalls(manyCalls(300000)).length, 300000);
  assert.equal(counter(), 1, 'a fresh instance');
  assert.ok(beacon._memoryBytesForTesting() < 64 * MiB);
});
