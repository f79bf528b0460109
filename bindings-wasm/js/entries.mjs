// Build step (not shipped): makes the package's per-environment entries from index.js, in the
// package directory given as argv[2] (index.js, index.d.ts and the wasm-bindgen glue already
// there). index.js loads the module between its `// load: begin` and `// load: end` lines; each
// entry replaces that block and keeps the rest (the whole API) as it is:
//   browser.js   ESM, fetches the .wasm next to it (no Node code: bundlers need no `node:fs`)
//   index.cjs    CommonJS for Node, one file (esbuild bundles the glue in), reads the .wasm
//                synchronously, so `require('beacon-toolcall')` works
//   node.mjs     ESM for Node: re-exports index.cjs, so `import` and `require` share one
//                instance (one ToolCallError class, one module)
//   index.d.cts  the types for `require` (index.d.ts, read as CommonJS declarations)
// argv[3]: the esbuild binary (the pinned one scripts/setup.sh installs in tests/js/tooling).
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [out, esbuild] = process.argv.slice(2);
if (!out || !esbuild) throw new Error('usage: node entries.mjs PACKAGE_DIR ESBUILD');

const source = readFileSync(join(out, 'index.js'), 'utf8');
const match = /^\/\/ load: begin\n[\s\S]*?^\/\/ load: end\n/m.exec(source);
if (!match) throw new Error('index.js has no `// load: begin` ... `// load: end` block');
const withLoad = (block) => source.slice(0, match.index) + block + source.slice(match.index + match[0].length);

writeFileSync(join(out, 'browser.js'), withLoad(`\
// The browser entry: the module is fetched from next to this file (a bundler that copies assets
// referenced by \`new URL(..., import.meta.url)\`, as Vite and webpack do, serves it from there).
await init({ module_or_path: new URL('./beacon_wasm_bg.wasm', import.meta.url) });
`));

// The Node source, bundled to CommonJS: imports are hoisted, `__dirname` is CommonJS's.
const nodeSource = join(out, '.index.node.mjs');
writeFileSync(nodeSource, withLoad(`\
// The Node entry: the module is read synchronously from next to this file.
import { readFileSync as readWasmFile } from 'node:fs';
import { join as joinPath } from 'node:path';

initSync({ module: readWasmFile(joinPath(__dirname, 'beacon_wasm_bg.wasm')) });
`));
try {
  execFileSync(esbuild, [
    nodeSource, '--bundle', '--format=cjs', '--platform=node', '--target=node20',
    `--outfile=${join(out, 'index.cjs')}`, '--log-level=warning',
    // The glue's default path (a URL from import.meta) is never taken: initSync gets the bytes.
    '--log-override:empty-import-meta=silent',
  ], { stdio: 'inherit' });
} finally {
  rmSync(nodeSource, { force: true });
}

const names = Object.keys(createRequire(import.meta.url)(join(out, 'index.cjs'))).sort();
if (!names.includes('parseToolCalls')) throw new Error(`index.cjs exports ${names.join(', ')}`);
writeFileSync(join(out, 'node.mjs'), `\
// The Node ESM entry: index.cjs's exports, so that \`import\` and \`require\` share one instance.
import beacon from './index.cjs';

export const {\n${names.map((n) => `  ${n},\n`).join('')}} = beacon;
`);

copyFileSync(join(out, 'index.d.ts'), join(out, 'index.d.cts'));
