// Used by tests/browser/test_bundle.py: `node tests/js/bundle-app.mjs OUT_DIR` packs the built
// package, installs it offline into a fresh project, bundles a tiny app with the pinned esbuild
// for the browser (`platform=browser`: the `browser` export condition), and writes OUT_DIR/
// {index.html, app.js, beacon_wasm_bg.wasm} to serve. The app writes its results as JSON into
// <pre id="result"> (or the error into <pre id="error">).

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pack, project, tool } from './pack-lib.mjs';

const out = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: node bundle-app.mjs OUT_DIR');
mkdirSync(out, { recursive: true });
const tmp = join(out, 'work');
mkdirSync(tmp);

const APP = `\
import { parseToolCalls, parseResponse, ToolCallError, FORMATS } from 'beacon-toolcall';

const show = (id, value) => { document.getElementById(id).textContent = value; };
try {
  const calls = parseToolCalls('<tool_call>{"name": "f", "arguments": {"n": 12345678901234567890}}</tool_call>',
    { includeFormat: true, bigints: 'string' });
  let broken = null;
  try { parseToolCalls('<tool_call>{"name": "f", "arguments": {"a": 1,}}</tool_call>'); } catch (e) {
    broken = [e instanceof ToolCallError, e.code, e.position];
  }
  let typeError = null;
  try { parseResponse(new Response('{}')); } catch (e) { typeError = e instanceof TypeError; }
  show('result', JSON.stringify({ calls, broken, typeError, formats: FORMATS.length > 20 }));
} catch (e) {
  show('error', String(e && e.stack || e));
}
`;

const dir = project(tmp, 'bundled-app', pack(tmp).tarball, { type: 'module' }, { 'src/app.js': APP });
execFileSync(tool('esbuild'), [
  'src/app.js', '--bundle', '--platform=browser', '--format=esm', `--outfile=${join(out, 'app.js')}`,
  '--log-level=warning',
], { cwd: dir, stdio: 'inherit' });
// The module is fetched from next to the bundle (new URL('./beacon_wasm_bg.wasm', import.meta.url)).
copyFileSync(join(dir, 'node_modules/beacon-toolcall/beacon_wasm_bg.wasm'), join(out, 'beacon_wasm_bg.wasm'));
const bundle = readFileSync(join(out, 'app.js'), 'utf8');
if (/node:fs|readFileSync|require\(/.test(bundle)) throw new Error('the browser bundle holds Node code');
writeFileSync(join(out, 'index.html'), `\
<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>beacon-toolcall bundled with esbuild</title>
<pre id="result"></pre>
<pre id="error"></pre>
<script type="module" src="./app.js"></script>
`);
