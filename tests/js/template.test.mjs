// A model's own tool-call format (FormatSpec) through the `template` option: the renders of real
// chat templates (tests/fixtures/template/spec_renders.json, made with jinja2) read back with the
// spec alone, one-shot and streamed with every split point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeacon, ROOT } from './helpers.mjs';

const beacon = await loadBeacon();
const { FormatSpec, parseToolCalls, parseMessage, ToolCallStream, NoToolCallFoundError } = beacon;

const { templates } = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/template/spec_renders.json'), 'utf8'));

function streamed(text, options, size) {
  const stream = new ToolCallStream(options);
  const events = [];
  for (let i = 0; i < text.length; i += size) events.push(...stream.feed(text.slice(i, i + size)));
  events.push(...stream.finish());
  const names = events.filter((e) => e.type === 'call_start').map((e) => [e.name, e.format]);
  const args = events.filter((e) => e.type === 'call_end').map((e) => e.arguments);
  const content = events.filter((e) => e.type === 'content').map((e) => e.delta).join('');
  return { names, args, content };
}

test('every render of every template reads back with its spec and formats: []', () => {
  assert.ok(Object.keys(templates).length >= 30);
  for (const [name, t] of Object.entries(templates)) {
    const template = FormatSpec.fromDict(t.spec);
    assert.deepEqual(template.describe(), t.spec);
    for (const r of t.renders) {
      const options = { formats: [], template, tools: r.tools };
      const got = parseToolCalls(r.text, { ...options, includeFormat: true });
      assert.deepEqual(got.map((c) => ({ name: c.name, arguments: c.arguments })), r.calls, `${name}/${r.case}`);
      assert.ok(got.every((c) => c.format === 'spec'));
      const message = parseMessage(r.text, options);
      for (const size of [1, 3, 64]) {
        const s = streamed(r.text, { ...options, start: 'detect' }, size);
        assert.deepEqual(s.names, message.tool_calls.map((c) => [c.name, 'spec']), `${name}/${r.case}/${size}`);
        assert.deepEqual(s.args, message.tool_calls.map((c) => c.arguments), `${name}/${r.case}/${size}`);
      }
    }
  }
});

test('a plain described object works as the template, and a bad one is a TypeError', () => {
  const described = {
    call: 'tag_json', section: { start: '', end: '' }, call_markers: { start: '<<call ', end: '>>' },
    separator: '', name_suffix: ':',
  };
  const text = 'ok <<call lookup: {"q": "rust"}>>';
  assert.deepEqual(parseToolCalls(text, { template: described }), [{ name: 'lookup', arguments: { q: 'rust' } }]);
  assert.throws(() => parseToolCalls(text, { formats: [] }), NoToolCallFoundError);
  assert.throws(() => FormatSpec.fromDict({ call: 'tag_json' }), (e) => e instanceof TypeError && /result\.missing_field/.test(e.message));
  assert.throws(
    () => FormatSpec.fromDict({ ...described, call_markers: { start: 'CALL:', end: '' } }),
    (e) => e instanceof TypeError && /result\.unsupported/.test(e.message),
  );
  assert.throws(() => parseToolCalls(text, { template: [] }), TypeError);
});
