// The built package as users get it: `npm pack`, then `npm install --offline` of the tarball into
// a fresh project. Shared by the Node tests (pack, CommonJS, TypeScript) and the browser bundle
// test (through bundle-app.mjs). Nothing comes from, or goes to, the registry: a private empty
// npm cache, and the tools (esbuild, tsc) are the pinned ones scripts/setup.sh installed.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PKG_DIR, ROOT } from './helpers.mjs';

export const TOOLING_BIN = join(ROOT, 'tests/js/tooling/node_modules/.bin');

/** The pinned tool `name` (esbuild, tsc), failing loudly when setup has not installed it. */
export function tool(name) {
  const bin = join(TOOLING_BIN, name);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run scripts/setup.sh (it installs tests/js/tooling)`);
  return bin;
}

function npmEnv(tmp) {
  return {
    ...process.env,
    npm_config_cache: join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/** `npm` with `args` in `cwd`, offline-safe environment of `tmp`; its stdout. */
export function npm(tmp, args, cwd) {
  return execFileSync('npm', args, { cwd, env: npmEnv(tmp), encoding: 'utf8' });
}

/** Packs the built package into `tmp`: `{ tarball, filename, files }` (files: paths in the tarball). */
export function pack(tmp) {
  const packed = JSON.parse(npm(tmp, ['pack', '--json', '--pack-destination', tmp, PKG_DIR], tmp));
  return { tarball: join(tmp, packed[0].filename), filename: packed[0].filename, files: packed[0].files.map((f) => f.path) };
}

/**
 * A new project `tmp/name` with `packageJson` (an object), the tarball installed offline, and
 * `files` ({ relative path: text }) written. Returns its directory.
 */
export function project(tmp, name, tarball, packageJson, files = {}) {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, ...packageJson }, null, 2)}\n`);
  npm(tmp, ['install', '--offline', '--no-audit', '--no-fund', tarball], dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
