// A model's own tool-call format (FormatSpec) through the `template` option: the renders of real
// chat templates (tests/fixtures/template/spec_renders.json, made with jinja2) read back with the
// spec alone, one-shot and streamed with every split point.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeacon, ROOT } from './helpers.mjs';

const beacon = await loadBeacon();
const { FormatSpec, parseToolCalls, parseMessage, ToolCallStream, NoToolCallFoundError, formatCalls } = beacon;

const { templates, write_gaps: writeGaps } = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/template/spec_renders.json'), 'utf8'));

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

// The calls parsed with a template's spec, written with it (formatCalls with { template }): the
// exact text of the render's calls, read back as the same calls. The gaps the fixture lists must
// still differ somewhere (the Python runner says so too).
test('formatCalls with a template writes what the template renders', () => {
  for (const [name, t] of Object.entries(templates)) {
    const template = FormatSpec.fromDict(t.spec);
    let differ = 0;
    for (const r of t.renders) {
      const options = { formats: [], template, tools: r.tools };
      const calls = parseToolCalls(r.text, options);
      const written = formatCalls(calls, null, { template });
      if (!r.text.includes(written)) {
        differ += 1;
        assert.ok(name in writeGaps, `${name}/${r.case}: ${JSON.stringify(written)} is not in ${JSON.stringify(r.text)}`);
        continue;
      }
      assert.deepEqual(parseToolCalls(written, options), calls, `${name}/${r.case}`);
    }
    if (name in writeGaps) assert.ok(differ > 0, `${name} writes every render back now: drop it from WRITE_GAPS`);
  }
  assert.throws(() => formatCalls([], 'openai_chat', { template: templates['Qwen3-Coder'].spec }), TypeError);
  assert.equal(formatCalls([{ name: 'f', arguments: { x: 1 } }], null, { template: templates['Qwen3-Coder'].spec, content: 'Ok.' }),
    'Ok.<tool_call>\n<function=f>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>');
});

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

// FormatSpec.fromTemplate: the second module (bindings-wasm/template) infers the same spec as the
// Python package from every template, and its errors are coded ToolCallErrors.
const TEMPLATES = join(ROOT, '..', 'shared', 'chat-templates');
const UNSEEN = join(ROOT, 'tests', 'fixtures', 'template', 'unseen');
const source = (name) => {
  const shared = join(TEMPLATES, `${name}.jinja`);
  return readFileSync(existsSync(shared) ? shared : join(UNSEEN, `${name}.jinja`), 'utf8');
};

test('fromTemplate infers, from every template, the spec the Python package infers', () => {
  for (const [name, t] of Object.entries(templates)) {
    const spec = FormatSpec.fromTemplate(source(name), { bosToken: '<s>', eosToken: '</s>' });
    assert.deepEqual(spec.describe(), t.spec, name);
    const r = t.renders[0];
    assert.deepEqual(
      parseToolCalls(r.text, { formats: [], template: spec, tools: r.tools }).map((c) => ({ name: c.name, arguments: c.arguments })),
      r.calls, `${name}/${r.case}`,
    );
  }
});

test('the template option takes a chat template or a tokenizer config, inferred once', () => {
  const name = 'Qwen3-Coder';
  const r = templates[name].renders.find((x) => x.calls.length > 0);
  const text = source(name);
  const want = parseToolCalls(r.text, { formats: [], template: FormatSpec.fromTemplate(text), tools: r.tools });
  assert.deepEqual(parseToolCalls(r.text, { formats: [], template: text, tools: r.tools }), want);
  const config = { chat_template: [{ name: 'default', template: '{{ messages }}' }, { name: 'tool_use', template: text }] };
  assert.deepEqual(parseToolCalls(r.text, { formats: [], template: config, tools: r.tools }), want);
  assert.deepEqual(parseToolCalls(r.text, { formats: [], template: JSON.stringify(config), tools: r.tools }), want);
  assert.equal(FormatSpec.fromTemplate(text), FormatSpec.fromTemplate(text)); // cached
  const streamed = new ToolCallStream({ formats: [], template: text, tools: r.tools });
  const ends = [...streamed.feed(r.text), ...streamed.finish()].filter((e) => e.type === 'call_end');
  assert.deepEqual(ends.map((e) => e.arguments), want.map((c) => c.arguments));
});

// tests/fixtures/template/errors.json: the coded error of each template no format is inferred
// from, given as its text, a tokenizer config, or the config's JSON text.
test('a template that cannot be read is a coded ToolCallError (errors.json)', () => {
  const { cases } = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/template/errors.json'), 'utf8'));
  const codes = new Set();
  for (const c of cases) {
    const template = c.config_text ? JSON.stringify(c.template) : c.template;
    assert.throws(() => FormatSpec.fromTemplate(template), (e) => {
      assert.ok(e instanceof beacon.ToolCallError, c.id);
      assert.deepEqual([e.code, e.position, e.line, e.column], [c.error.code, c.error.position, c.error.line, c.error.column], c.id);
      assert.ok(e.message.includes(c.error.message), `${c.id}: ${e.message}`);
      return true;
    });
    codes.add(c.error.code);
  }
  assert.deepEqual([...codes].sort(), ['template.ambiguous', 'template.limit', 'template.no_tool_calls', 'template.render']);
});

test('fromTemplate checks its arguments', () => {
  const t = source('Qwen3-Coder');
  assert.throws(() => FormatSpec.fromTemplate(3), TypeError);
  assert.throws(() => FormatSpec.fromTemplate(t, { bos_token: '<s>' }), /did you mean bosToken/);
  assert.throws(() => FormatSpec.fromTemplate(t, { eosToken: 1 }), TypeError);
  assert.throws(() => FormatSpec.fromTemplate(t, { specialTokens: [1] }), TypeError);
  assert.deepEqual(FormatSpec.fromTemplate(t, { specialTokens: new Set(['<tool_call>']) }).describe(),
    FormatSpec.fromTemplate(t).describe());
  assert.throws(() => FormatSpec.fromTemplate('x\uD800'), (e) => e.code === 'json.invalid_unicode');
});
