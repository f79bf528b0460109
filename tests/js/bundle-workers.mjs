// Used by tests/browser/test_bundle.py: `node tests/js/bundle-workers.mjs OUT_DIR` packs the built
// package, installs it offline into a fresh project and bundles, with the pinned esbuild
// (`platform=browser`), three programs that load the module through `beacon-toolcall/init` (no
// top-level await) and the asset `beacon-toolcall/wasm` (esbuild's `file` loader copies it; no
// .wasm is copied by hand):
//   app.js         the page's own script, ESM
//   worker-esm.js  a module Web Worker, ESM          (new Worker(url, { type: 'module' }))
//   worker-cjs.js  a classic Web Worker, CommonJS    (new Worker(url)), the build that died with
//                  "Unexpected reserved word" while the browser entry had a top-level await
// plus OUT_DIR/index.html, which runs all three and writes their results as JSON into
// <pre id="result"> (or an error into <pre id="error">). It also checks that the default entry,
// which does have a top-level await, is refused for CommonJS (why `beacon-toolcall/init` exists).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pack, project, tool } from './pack-lib.mjs';

const out = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: node bundle-workers.mjs OUT_DIR');
mkdirSync(out, { recursive: true });
const tmp = join(out, 'work');
mkdirSync(tmp);

const TEXT = '<tool_call>{"name": "f", "arguments": {"n": 1}}</tool_call>';

// What every program computes once the module is loaded.
const PARSE = `\
const result = () => ({
  calls: parseToolCalls(${JSON.stringify(TEXT)}, { includeFormat: true }),
  formats: FORMATS.length > 20 && FORMATS.includes('hermes'),
  isError: (() => { try { parseToolCalls('<tool_call>{"name": 1}</tool_call>'); } catch (e) { return e instanceof ToolCallError; } return false; })(),
});
`;

const WORKER = `\
import { init, parseToolCalls, FORMATS, ToolCallError } from 'beacon-toolcall/init';
import wasm from 'beacon-toolcall/wasm';

${PARSE}
// A call before init() throws, saying what to do.
let early = null;
try { parseToolCalls('f()'); } catch (e) { early = e.message; }
self.onmessage = async (message) => {
  try {
    // Asked to (the CommonJS worker: no import.meta.url), init() without a source first: it says
    // to pass one, and a later init() with the source still loads the module.
    const bare = message.data === 'try-bare' ? await init().then(() => 'loaded', (e) => String(e && e.message)) : null;
    await init({ module_or_path: wasm });
    self.postMessage({ ...result(), early: /await init\\(\\)/.test(early), wasm: typeof wasm, bare });
  } catch (e) {
    self.postMessage({ error: String((e && e.stack) || e) });
  }
};
`;

const APP = `\
import { init, parseToolCalls, FORMATS, ToolCallError } from 'beacon-toolcall/init';
import wasm from 'beacon-toolcall/wasm';

${PARSE}
const show = (id, value) => { document.getElementById(id).textContent = value; };
const ask = (worker, what = 'go') => new Promise((done, fail) => {
  worker.onmessage = (e) => (e.data.error ? fail(new Error(e.data.error)) : done(e.data));
  worker.onerror = (e) => fail(new Error(\`worker error: \${e.message}\`));
  worker.postMessage(what);
});
(async () => {
  try {
    await init({ module_or_path: wasm });
    await init(); // a second call does nothing
    const esm = await ask(new Worker('./worker-esm.js', { type: 'module' }));
    const cjs = await ask(new Worker('./worker-cjs.js'), 'try-bare');
    show('result', JSON.stringify({ page: result(), esm, cjs }));
  } catch (e) {
    show('error', String((e && e.stack) || e));
  }
})();
`;

const dir = project(tmp, 'bundled-workers', pack(tmp).tarball, { type: 'module' },
  { 'src/app.js': APP, 'src/worker.js': WORKER, 'src/default-entry.js': "export { parseToolCalls } from 'beacon-toolcall';\n" });
const esbuild = (args) => execFileSync(tool('esbuild'), [
  '--bundle', '--platform=browser', '--loader:.wasm=file', '--log-level=error', ...args,
], { cwd: dir, stdio: 'inherit' });
esbuild(['src/app.js', '--format=esm', `--outfile=${join(out, 'app.js')}`]);
esbuild(['src/worker.js', '--format=esm', `--outfile=${join(out, 'worker-esm.js')}`]);
esbuild(['src/worker.js', '--format=cjs', `--outfile=${join(out, 'worker-cjs.js')}`]);

for (const name of ['app.js', 'worker-esm.js', 'worker-cjs.js']) {
  const bundle = readFileSync(join(out, name), 'utf8');
  if (/node:fs|readFileSync|require\(/.test(bundle)) throw new Error(`${name} holds Node code`);
  if (/^await /m.test(bundle)) throw new Error(`${name} has a top-level await`);
}
const assets = readdirSync(out).filter((f) => f.endsWith('.wasm'));
if (assets.length !== 1) throw new Error(`esbuild wrote ${assets.length} .wasm assets: ${assets}`);

// The default entry awaits the module at the top level: esbuild refuses it for CommonJS.
const refused = spawnSync(tool('esbuild'), ['src/default-entry.js', '--bundle', '--platform=browser', '--format=cjs',
  '--outfile=/dev/null', '--log-level=error'], { cwd: dir, encoding: 'utf8' });
if (refused.status === 0 || !/[Tt]op-level await/.test(refused.stderr)) {
  throw new Error(`the default entry bundled to CommonJS: ${refused.stderr}`);
}

writeFileSync(join(out, 'index.html'), `\
<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>beacon-toolcall/init bundled with esbuild, in the page and in two Web Workers</title>
<pre id="result"></pre>
<pre id="error"></pre>
<script type="module" src="./app.js"></script>
`);
console.log(JSON.stringify({ assets }));
