// Every shared stream-scan fixture (tests/fixtures/stream/scan.json) through scanStream, with the
// fixture's code-point positions converted to UTF-16 here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES_DIR, loadBeacon } from './helpers.mjs';

const { scanStream } = await loadBeacon();
const { cases } = JSON.parse(readFileSync(join(FIXTURES_DIR, 'stream', 'scan.json'), 'utf8'));
const utf16 = (text, codePoints) => [...text].slice(0, codePoints).join('').length;

test('there are stream fixtures', () => {
  assert.ok(cases.length >= 25);
});

for (const c of cases) {
  test(c.id, () => {
    assert.deepEqual(scanStream(c.input), { state: c.scan.state, position: utf16(c.input, c.scan.position) });
  });
}

test('positions are UTF-16 indices', () => {
  assert.deepEqual(scanStream('😀😀 <tool'), { state: 'partial', position: 5 });
});

test('a non-string is a TypeError', () => {
  assert.throws(() => scanStream(42), TypeError);
});
