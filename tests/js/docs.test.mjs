// The ```js examples of README.md and of every docs/*.md page run against the built package, and
// their `// →` comments are checked (doc-examples.mjs says how). A page that has examples must keep
// them: MIN_CHECKS is the fewest `// →` checks each must make.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeacon, ROOT } from './helpers.mjs';
import { jsBlocks, runExample } from './doc-examples.mjs';

const beacon = await loadBeacon();

const MIN_CHECKS = {
  'README.md': 3,
  'docs/javascript.md': 3,
  'docs/providers.md': 5,
  'docs/templates.md': 2,
  'docs/tools.md': 2,
  'docs/streaming.md': 0,   // the server loop: checked by stream-split.test.mjs, run here too
};

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

test('every page with js examples is listed, and every listed page has them', () => {
  for (const page of pages) {
    const n = jsBlocks(readFileSync(join(ROOT, page), 'utf8')).length;
    assert.equal(page in MIN_CHECKS, n > 0, `${page}: ${n} js example(s); MIN_CHECKS ${page in MIN_CHECKS ? 'lists' : 'does not list'} it`);
  }
});

for (const page of pages) {
  const blocks = jsBlocks(readFileSync(join(ROOT, page), 'utf8'));
  if (blocks.length === 0) continue;
  test(`${page}: its js examples run and say what they give`, async () => {
    let checks = 0;
    for (const { code, line } of blocks) {
      try {
        checks += await runExample(beacon, code);
      } catch (e) {
        assert.fail(`${page}, the example at line ${line}: ${e.message}`);
      }
    }
    assert.ok(checks >= MIN_CHECKS[page], `${page}: ${checks} checks, fewer than ${MIN_CHECKS[page]}`);
  });
}
