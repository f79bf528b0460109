// init() / initSync(), the entry without top-level await (`beacon-toolcall/init`, init.js) and the
// asset export (`beacon-toolcall/wasm`): what package.json exports, how each entry behaves in Node,
// and that their types check in a strict TypeScript project. The browser side (esbuild, the page
// and two kinds of Web Worker) is tests/browser/test_bundle.py.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadBeacon, PKG_DIR } from './helpers.mjs';
import { pack, project, tool } from './pack-lib.mjs';

const beacon = await loadBeacon();
const PKG = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8'));

test('package.json exports ./init and ./wasm, and ships their files', () => {
  assert.deepEqual(PKG.exports['./wasm'], { types: './wasm.d.ts', default: './beacon_wasm_bg.wasm' });
  const init = PKG.exports['./init'];
  assert.equal(init.default, './init.js');
  assert.equal(init.types, './index.d.ts');
  // In Node the module is read from disk as the package is imported: ./init is the Node entry.
  assert.equal(init.node.import.default, './node.mjs');
  assert.equal(init.node.require.default, './index.cjs');
  for (const file of ['init.js', 'wasm.d.ts', 'beacon_wasm_bg.wasm']) assert.ok(PKG.files.includes(file), file);
  const source = readFileSync(join(PKG_DIR, 'init.js'), 'utf8');
  assert.doesNotMatch(source, /^await /m, 'init.js has a top-level await');
  assert.match(readFileSync(join(PKG_DIR, 'browser.js'), 'utf8'), /^await init\(\);$/m);
});

test('every entry exports init and initSync; where the module is loaded, they do nothing', async () => {
  assert.equal(typeof beacon.init, 'function');
  assert.equal(typeof beacon.initSync, 'function');
  assert.equal(await beacon.init(), undefined);
  assert.equal(await beacon.init({ module_or_path: 'ignored.wasm' }), undefined);
  assert.equal(beacon.initSync({ module: new Uint8Array() }), undefined);
  assert.deepEqual(beacon.parseToolCall('f(a=1)'), { name: 'f', arguments: { a: 1 } });
});

test('init.js loads nothing until initSync() or init(); the lists are there before', async () => {
  // Written in as literals: a list read from the module at import would need the instance first.
  const source = readFileSync(join(PKG_DIR, 'init.js'), 'utf8');
  assert.doesNotMatch(source, /^export const \w+ = Object\.freeze\(wasm/m, 'init.js reads a list from the module at import');
  const lazy = await import(`${pathToFileURL(join(PKG_DIR, 'init.js')).href}?fresh=${Date.now()}`);
  for (const list of ['FORMATS', 'PROVIDERS', 'ERROR_CODES']) {
    assert.deepEqual(lazy[list], beacon[list], list);
    assert.ok(Object.isFrozen(lazy[list]), list);
  }
  assert.throws(() => lazy.parseToolCalls('f()'), (e) => e instanceof Error && /await init\(\)/.test(e.message));
  assert.throws(() => lazy.initSync(), TypeError);
  lazy.initSync(readFileSync(join(PKG_DIR, 'beacon_wasm_bg.wasm'))); // bytes alone, or { module }
  assert.deepEqual(lazy.parseToolCalls('f(a=1)', { includeFormat: true }), [{ name: 'f', arguments: { a: 1 }, format: 'python' }]);
  await lazy.init();
  assert.throws(() => lazy.parseToolCall('<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'), lazy.ToolCallError);
});

test('init.js with init({ module_or_path: bytes })', async () => {
  // (The wasm-bindgen glue under it is shared with the entries loaded above, so this checks the
  // argument's forms, not a second compilation.)
  const lazy = await import(`${pathToFileURL(join(PKG_DIR, 'init.js')).href}?fresh=${Date.now()}-2`);
  assert.throws(() => lazy.parseToolCall('g()'), /not loaded yet/);
  await lazy.init({ module_or_path: readFileSync(join(PKG_DIR, 'beacon_wasm_bg.wasm')) });
  assert.equal(lazy.parseToolCall('g()').name, 'g');
});

test('installed: beacon-toolcall/init is the loaded Node entry, beacon-toolcall/wasm resolves to the asset; types check', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'beacon-init-'));
  try {
    const { tarball } = pack(tmp);
    const main = `\
import { createRequire } from 'node:module';
import * as a from 'beacon-toolcall';
import * as b from 'beacon-toolcall/init';
const require = createRequire(import.meta.url);
await b.init();
console.log(JSON.stringify({
  same: a.ToolCallError === b.ToolCallError && a.parseToolCall === b.parseToolCall,
  call: b.parseToolCall('f(x=1)'),
  wasm: require.resolve('beacon-toolcall/wasm').endsWith('/beacon_wasm_bg.wasm'),
  cjs: require('beacon-toolcall/init').ToolCallError === a.ToolCallError,
}));
`;
    const ts = `\
import { init, initSync, parseToolCalls, type WasmModuleSource } from 'beacon-toolcall/init';
import wasm from 'beacon-toolcall/wasm';

const source: string | Uint8Array = wasm;
const given: WasmModuleSource = source;
export async function start(): Promise<number> {
  await init({ module_or_path: wasm });
  await init(given);
  await init();
  initSync({ module: new Uint8Array(8) });
  initSync(new ArrayBuffer(8));
  // @ts-expect-error a number is no module
  initSync(5);
  // @ts-expect-error initSync needs its source
  initSync();
  return parseToolCalls('f()').length;
}
`;
    const tsconfig = JSON.stringify({
      compilerOptions: { strict: true, module: 'esnext', moduleResolution: 'bundler', target: 'es2022', lib: ['es2022'], types: [], noEmit: true },
      include: ['src'],
    });
    const dir = project(tmp, 'init-consumer', tarball, { type: 'module' },
      { 'main.mjs': main, 'src/app.ts': ts, 'tsconfig.json': tsconfig });
    const out = execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), { same: true, call: { name: 'f', arguments: { x: 1 } }, wasm: true, cjs: true });
    try {
      execFileSync(tool('tsc'), ['-p', '.'], { cwd: dir, encoding: 'utf8' });
    } catch (e) {
      assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
