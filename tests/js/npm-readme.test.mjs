// The npm package's own README (bindings-wasm/README.md, shipped in the tarball as README.md) is
// checked against the package it describes, so that it cannot contradict it again: every export is
// in its API table and everything that table names is exported, every `name(` it mentions is an
// export or a method of an exported class, its format and provider lists are the package's, and its
// js examples run (doc-examples.mjs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeacon, PKG_DIR, ROOT } from './helpers.mjs';
import { jsBlocks, runExample } from './doc-examples.mjs';

const beacon = await loadBeacon();
const SOURCE = join(ROOT, 'bindings-wasm/README.md');
const readme = readFileSync(SOURCE, 'utf8');
const api = Object.keys(beacon).filter((n) => !n.startsWith('_'));

/** The lines of the section under `## title`, up to the next `## `. */
function section(title) {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `the npm README has no section "${title}"`);
  const rest = readme.slice(start + title.length + 5);
  const end = rest.indexOf('\n## ');
  return end < 0 ? rest : rest.slice(0, end);
}

test('the package ships this README', () => {
  const built = join(PKG_DIR, 'README.md');
  assert.ok(existsSync(built), `${built} is missing`);
  assert.equal(readFileSync(built, 'utf8'), readme, 'build/pkg-web/README.md differs from bindings-wasm/README.md: rebuild');
});

test('its API table names every export, and only exports', () => {
  const named = new Set();
  for (const line of section('API').split('\n')) {
    if (!line.startsWith('| `')) continue;
    const first = line.split(' | ')[0];
    for (const m of first.matchAll(/`([A-Za-z_$][\w$]*)/g)) named.add(m[1]);
  }
  assert.deepEqual([...named].sort(), [...api].sort());
});

test('every function it mentions exists', () => {
  const methods = new Set();
  for (const name of api) {
    const v = beacon[name];
    if (typeof v === 'function' && v.prototype) for (const m of Object.getOwnPropertyNames(v.prototype)) methods.add(m);
  }
  for (const m of readme.matchAll(/`(?:new )?([A-Za-z_$][\w$]*)\(/g)) {
    if (m[1] === 'require') continue;   // `require('beacon-toolcall')`
    assert.ok(api.includes(m[1]) || methods.has(m[1]), `the README mentions ${m[1]}(), which the package does not have`);
  }
});

test('its lists of formats and providers are the package\'s', () => {
  const formats = section('Formats');
  const [formatList, providerList] = formats.split('\nProviders:');
  assert.deepEqual([...formatList.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]).filter((id) => id !== 'FORMATS'), [...beacon.FORMATS]);
  assert.deepEqual([...providerList.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]), [...beacon.PROVIDERS]);
  const count = /(\d+) formats/.exec(readme)[1];
  assert.equal(Number(count), beacon.FORMATS.length, 'the count of formats in the first paragraph');
});

test('it never says streaming is unsupported', () => {
  assert.doesNotMatch(readme, /not supported/i);
});

test('its js examples run and say what they give', async () => {
  const blocks = jsBlocks(readme);
  assert.ok(blocks.length >= 2, 'the npm README lost its examples');
  let checks = 0;
  for (const { code, line } of blocks) {
    try {
      checks += await runExample(beacon, code);
    } catch (e) {
      assert.fail(`the example at line ${line}: ${e.message}`);
    }
  }
  assert.ok(checks >= 4, `${checks} checks`);
});
