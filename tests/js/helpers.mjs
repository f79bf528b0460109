// Shared helpers for the Node tests of the npm package beacon-toolcall.
//
// The package under test is the built one: build/pkg-web (override with BEACON_WASM_PKG),
// made by `bash bindings-wasm/build.sh`.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { diffExact, parseJsonExact } from './fixture-lib.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PKG_DIR = resolve(process.env.BEACON_WASM_PKG ?? join(ROOT, 'build/pkg-web'));
export const FIXTURES_DIR = join(ROOT, 'tests/fixtures');
export const PROVIDER_FIXTURES_DIR = join(FIXTURES_DIR, 'providers');

/** Imports the built package (its index.js), failing loudly when it has not been built. */
export async function loadBeacon() {
  const entry = join(PKG_DIR, 'index.js');
  if (!existsSync(entry) || !existsSync(join(PKG_DIR, 'beacon_wasm_bg.wasm'))) {
    throw new Error(
      `the wasm package is not built at ${PKG_DIR} (no index.js or beacon_wasm_bg.wasm): `
      + 'run `bash bindings-wasm/build.sh` (or set BEACON_WASM_PKG)',
    );
  }
  return import(pathToFileURL(entry).href);
}

// ------------------------------------------------------------------------------------------
// Fixtures (schemas: tests/fixtures/README.md and tests/fixtures/providers/README.md), read and
// checked by fixture-lib.mjs and provider-fixture-lib.mjs, which the browser test shares.

/** Every fixture file of `dir` as `{ file, text, cases }`, in name order. */
export function loadFixtureFiles(dir = FIXTURES_DIR) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      return { file, text, ...parseJsonExact(text) };
    });
}

/** Asserts `actual` is exactly `expected` (see diffExact in fixture-lib.mjs). */
/** The exception `fn` throws; fails the test when it throws none. */
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return assert.fail('expected an exception');
}

export function assertExact(actual, expected) {
  const d = diffExact(actual, expected);
  if (d) assert.fail(d);
}
