// `npm pack` of the built package installs offline into an empty Node project and works with a
// plain `import` — the way users get it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBeacon, PKG_DIR } from './helpers.mjs';

await loadBeacon(); // fails loudly when the package is not built

test('npm pack -> npm install --offline -> import', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'beacon-pack-'));
  try {
    // A private, empty npm cache: nothing may come from (or go to) the registry.
    const env = {
      ...process.env,
      npm_config_cache: join(tmp, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    const npm = (args, cwd) => execFileSync('npm', args, { cwd, env, encoding: 'utf8' });

    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp, PKG_DIR], tmp));
    const tarball = join(tmp, packed[0].filename);
    assert.match(packed[0].filename, /^beacon-toolcall-\d+\.\d+\.\d+\.tgz$/);
    assert.deepEqual(
      packed[0].files.map((f) => f.path).sort(),
      ['README.md', 'beacon_template.js', 'beacon_template_bg.wasm', 'beacon_wasm.js', 'beacon_wasm_bg.wasm', 'browser.js', 'index.cjs', 'index.d.cts', 'index.d.ts',
        'index.js', 'init.js', 'node.mjs', 'package.json', 'wasm.d.ts'],
    );

    const project = join(tmp, 'project');
    execFileSync('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), '{"name": "consumer", "private": true, "type": "module"}\n');
    npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    assert.deepEqual(readdirSync(join(project, 'node_modules')).filter((d) => !d.startsWith('.')), ['beacon-toolcall']);

    writeFileSync(join(project, 'main.mjs'), [
      "import { parseToolCall, parseToolCalls, parseResponse, formatResults, ToolCallError, NoToolCallFoundError } from 'beacon-toolcall';",
      'const call = parseToolCall(\'I will look that up. search(query="rust async", limit=5)\');',
      "const all = parseToolCalls('<tool_call>{\"name\": \"f\", \"arguments\": {\"id\": 12345678901234567890}}</tool_call>', { includeFormat: true });",
      'let err;',
      "try { parseToolCall('nothing') } catch (e) { err = e }",
      "const calls = parseResponse({ type: 'message', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: { n: 1n } }] });",
      "const reply = formatResults([{ id: calls[0].id, content: 'ok' }], 'anthropic');",
      'console.log(JSON.stringify({ call, all, calls, reply, err: [err instanceof NoToolCallFoundError, err instanceof ToolCallError, err.code] },',
      "  (k, v) => typeof v === 'bigint' ? `${v}n` : v));",
    ].join('\n'));
    const out = execFileSync(process.execPath, ['main.mjs'], { cwd: project, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), {
      call: { name: 'search', arguments: { query: 'rust async', limit: 5 } },
      all: [{ name: 'f', arguments: { id: '12345678901234567890n' }, format: 'hermes' }],
      calls: [{ id: 'toolu_1', name: 'f', arguments: { n: 1 } }],
      reply: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }],
      err: [true, true, 'tool_call.not_found'],
    });

    // CommonJS callers can use a dynamic import().
    const cjs = execFileSync(process.execPath, ['-e',
      "import('beacon-toolcall').then(m => console.log(m.parseToolCall('f(a=1)').name))"],
    { cwd: project, encoding: 'utf8' });
    assert.equal(cjs.trim(), 'f');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
