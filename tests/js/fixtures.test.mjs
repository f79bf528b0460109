// Runs every shared fixture (tests/fixtures/*.json) through the npm package and checks the
// exact result — values, BigInts, key order, formats — or the exact error: class, code, and
// position/line/column converted from the fixtures' code points to UTF-16 code units.
// The checks live in fixture-lib.mjs, which the browser test runs in the playground page too.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBeacon, loadFixtureFiles } from './helpers.mjs';
import { caseFunction, runCase } from './fixture-lib.mjs';

const beacon = await loadBeacon();
const files = loadFixtureFiles();

test('there are fixtures to run', () => {
  assert.ok(files.length > 0, 'no tests/fixtures/*.json');
  assert.ok(files.some((f) => f.cases.length > 0), 'every fixture file is empty');
});

for (const { file, cases } of files) {
  describe(file, () => {
    for (const c of cases) {
      test(`${c.id} (${caseFunction(c)})`, () => {
        const problems = runCase(beacon, c);
        assert.ok(problems.length === 0, `${JSON.stringify(c.input)}\n  ${problems.join('\n  ')}`);
      });
    }
  });
}
