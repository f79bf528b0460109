// Build step (not shipped): makes the package's per-environment entries from index.js, in the
// package directory given as argv[2] (index.js, index.d.ts and the wasm-bindgen glue already
// there). index.js loads the module between its `// load: begin` and `// load: end` lines; each
// entry replaces that block and keeps the rest (the whole API) as it is:
//   browser.js   ESM, fetches the .wasm next to it (no Node code: bundlers need no `node:fs`)
//   init.js      ESM without top-level await (`beacon-toolcall/init`): loads nothing until the
//                caller's init() / initSync(), so it bundles to CommonJS or a classic script (a
//                Web Worker); FORMATS, PROVIDERS and ERROR_CODES are written in as literals (from index.cjs)
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
function besideThisFile() {
  return new URL('./beacon_wasm_bg.wasm', import.meta.url);
}
function templateBesideThisFile() {
  return new URL('./beacon_template_bg.wasm', import.meta.url);
}
function templateModuleSync() {
  return undefined;
}
await init();
`));

// The Node source, bundled to CommonJS: imports are hoisted, `__dirname` is CommonJS's.
const nodeSource = join(out, '.index.node.mjs');
writeFileSync(nodeSource, withLoad(`\
// The Node entry: the module is read synchronously from next to this file.
import { readFileSync as readWasmFile } from 'node:fs';
import { join as joinPath } from 'node:path';

function besideThisFile() {
  return readWasmFile(joinPath(__dirname, 'beacon_wasm_bg.wasm'));
}
function templateModuleSync() {
  return readWasmFile(joinPath(__dirname, 'beacon_template_bg.wasm'));
}
const templateBesideThisFile = templateModuleSync;
initSync({ module: besideThisFile() });
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

// init.js: nothing runs at import. The two lists index.js reads from the module as it loads are
// written in from the built module (index.cjs), so importing needs no instance.
const lists = createRequire(import.meta.url)(join(out, 'index.cjs'));
let initSource = withLoad(`\
// The entry that waits (\`beacon-toolcall/init\`): nothing is loaded until the caller's init() or
// initSync(), so this file has no top-level await. By default init() fetches the .wasm next to
// this file; a bundle without import.meta (CommonJS, a classic script) must pass it, e.g. the
// asset \`beacon-toolcall/wasm\` that a bundler copies (esbuild: --loader:.wasm=file).
function besideThisFile() {
  try {
    return new URL('./beacon_wasm_bg.wasm', import.meta.url);
  } catch {
    throw new TypeError('beacon-toolcall: init() has no URL to fetch the .wasm from (this build has no '
      + 'import.meta.url, as in a CommonJS or classic-script bundle): pass it, init({ module_or_path }), '
      + 'e.g. the beacon-toolcall/wasm asset');
  }
}
function templateBesideThisFile() {
  try {
    return new URL('./beacon_template_bg.wasm', import.meta.url);
  } catch {
    throw new TypeError('beacon-toolcall: initTemplates() has no URL to fetch the template module from (this '
      + 'build has no import.meta.url): pass it, initTemplates({ module_or_path }), e.g. the '
      + 'beacon-toolcall/template-wasm asset');
  }
}
function templateModuleSync() {
  return undefined;
}
`);
for (const name of ['FORMATS', 'PROVIDERS', 'ERROR_CODES']) {
  const line = new RegExp(`^export const ${name} = .*;$`, 'm');
  if (!line.test(initSource)) throw new Error(`index.js has no one-line \`export const ${name} = ...;\``);
  initSource = initSource.replace(line, `export const ${name} = Object.freeze(${JSON.stringify(lists[name])});`);
}
if (/^await /m.test(initSource)) throw new Error('init.js has a top-level await');
writeFileSync(join(out, 'init.js'), initSource);

copyFileSync(join(out, 'index.d.ts'), join(out, 'index.d.cts'));
