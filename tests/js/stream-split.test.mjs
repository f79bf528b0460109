// Split invariance in JavaScript: every text fixture (tests/fixtures/*.json, with its formats and
// tools) through ToolCallStream, split at every point (UTF-16 indices, so also between the two
// halves of a surrogate pair; for an input longer than SPLIT_CAP units, SPLIT_CAP points spread
// evenly over it, first and last included, to keep the suite's time in check: today every fixture
// is shorter, and the whole file runs in about 20 s), in 20 seeded
// random ways and one code point at a time, gives what parseMessage gives on the whole text: the
// same content, reasoning and calls (id, name, format, arguments) in order, each call's argument
// fragments parsing to its arguments; or the same ToolCallError (code, position, line, column,
// path). Once more one code point at a time with seeded ids (`idSeed`). A `repair` case streams
// with `repair: true`, each call's receipts compared too.
//
// Recorded provider streams (tests/fixtures/providers/*.json, cases with "stream": true) read by
// ResponseStream whole, one code point at a time, in 10 random ways and (for a list of events)
// one decoded event at a time give the calls parseResponse gives on the whole recording, or its
// error (code, position and message; code and message for decoded events, whose errors have no
// text). A case with tools is read with its tools, validate and unknown, and again with unknown
// tools kept or dropped and without validation, each compared with parseResponse with the same.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_FIXTURES_DIR, ROOT, loadBeacon, loadFixtureFiles, thrown } from './helpers.mjs';
import { caseOptions, diffExact, show } from './fixture-lib.mjs';
import { toJsonExact } from './provider-fixture-lib.mjs';
import {
  Assembler, codePoints, expectedMessage, outcomeDiff, randomPieces, seeded, streamPieces, streamPiecesMany,
} from './stream-lib.mjs';

const beacon = await loadBeacon();
const { ToolCallStream, ResponseStream, ToolCallError } = beacon;

/** Split points tried per input, at most (see the header). */
const SPLIT_CAP = 1000;

/** The split points of `text`: every one, or SPLIT_CAP spread evenly. */
function splitPoints(text) {
  const n = text.length;
  if (n + 1 <= SPLIT_CAP) return Array.from({ length: n + 1 }, (_, i) => i);
  return Array.from({ length: SPLIT_CAP }, (_, i) => Math.round((i * n) / (SPLIT_CAP - 1)));
}

const cases = loadFixtureFiles().flatMap(({ file, cases: list }) => list
  .filter((c) => typeof c.input === 'string')
  .map((c) => ({ file, c })));

test('there are text fixtures to stream', () => {
  assert.ok(cases.length > 1000, `only ${cases.length}`);
});

for (const { file, c } of cases) {
  test(`${file}: ${c.id} streams as parseMessage`, () => {
    const options = caseOptions(beacon, c);
    const want = expectedMessage(beacon, c.input, options);
    const problems = [];
    const check = (how, pieces, opts = options, expected = want) => {
      const d = outcomeDiff(streamPieces(beacon, pieces, opts), expected);
      if (d) problems.push(`${how} ${show(pieces)}: ${d}`);
    };
    for (const at of splitPoints(c.input)) {
      check(`split at ${at}`, [c.input.slice(0, at), c.input.slice(at)]);
      if (problems.length) break;
    }
    const random = seeded(c.input.length * 2654435761 + c.id.length);
    for (let i = 0; i < 20 && !problems.length; i++) check('random', randomPieces(c.input, random, 12));
    if (!problems.length) check('code points', codePoints(c.input));
    if (!problems.length) {
      const d = outcomeDiff(streamPiecesMany(beacon, codePoints(c.input), options, random), want);
      if (d) problems.push(`feedMany of code points: ${d}`);
    }
    if (!problems.length) {
      const seededIds = { ...options, idSeed: c.id };
      check('code points with seeded ids', codePoints(c.input), seededIds, expectedMessage(beacon, c.input, seededIds));
    }
    assert.deepEqual(problems, []);
  });
}

// ------------------------------------------------------------------------------------------
// Provider streams

const streamCases = loadFixtureFiles(PROVIDER_FIXTURES_DIR).flatMap(({ file, cases: list }) => list
  .filter((c) => c.stream === true)
  .map((c) => ({ file, c })));

/** Reads `pieces` (strings or decoded events) with a new ResponseStream: `{calls}` or `{error}`. */
function readStream(pieces, options = {}) {
  const stream = new ResponseStream(options);
  const assembler = new Assembler();
  try {
    for (const piece of pieces) assembler.take(stream.feed(piece));
    assembler.take(stream.finish());
  } catch (error) {
    if (error instanceof ToolCallError) return { error };
    throw error;
  }
  const { calls } = assembler.result();
  for (const call of calls) assert.equal(call.format, 'json');
  return { calls: calls.map(({ format, ...call }) => call) };
}

test('there are recorded provider streams of every streaming API', () => {
  assert.ok(streamCases.length >= 14, `only ${streamCases.length}`);
  const providers = new Set(streamCases.map(({ c }) => c.expected?.provider ?? c.error?.provider));
  for (const p of ['anthropic', 'bedrock', 'cohere_v2', 'gemini', 'ollama', 'openai_chat', 'openai_responses']) {
    assert.ok(providers.has(p), `no recorded stream of ${p}`);
  }
});

/** The tools options a case is read with: its own, and with tools, the other ways. */
function toolOptionSets(c) {
  const repair = c.repair ? { repair: true } : {};
  if (c.tools === undefined) return [['', repair]];
  const own = { ...repair, tools: new beacon.Tools(c.tools) };
  if (c.validate !== undefined) own.validate = c.validate;
  if (c.unknown !== undefined) own.unknown = c.unknown;
  return [
    ['', own],
    [' [unknown keep]', { ...own, unknown: 'keep' }],
    [' [unknown drop]', { ...own, unknown: 'drop' }],
    [' [no validation]', { ...own, validate: false }],
  ];
}

for (const { file, c } of streamCases) {
  test(`${file}: ${c.id} reads incrementally as parseResponse`, () => {
    const text = c.response_text ?? toJsonExact(c.response);
    for (const [variant, options] of toolOptionSets(c)) {
      let whole;
      try {
        whole = { calls: beacon.parseResponse(text, options) };
      } catch (error) {
        whole = { error };
      }
      const random = seeded(text.length | 1);
      const ways = [['whole', [text]], ['code points', codePoints(text)]];
      for (let i = 0; i < 10; i++) ways.push(['random', randomPieces(text, random, 40)]);
      if (c.response_text === undefined) ways.push(['decoded events', c.response]);
      for (const [way, pieces] of ways) {
        const how = `${way}${variant}`;
        const got = readStream(pieces, options);
        if (whole.error && got.error && way === 'decoded events') {
          assert.equal(got.error.code, whole.error.code, how);
        } else if (whole.error || got.error) {
          const fields = (e) => e && { code: e.code, position: e.position, line: e.line, column: e.column, path: e.path, message: e.message };
          assert.deepEqual(fields(got.error), fields(whole.error), `${how}: ${got.error?.message ?? show(got)}`);
        } else {
          const d = diffExact(got.calls, whole.calls, 'calls');
          assert.ok(!d, `${how}: ${d}`);
        }
      }
    }
  });
}

test('ResponseStream checks its tools options as parseResponse does', () => {
  assert.throws(() => new ResponseStream({ unknown: 'ignore' }), TypeError);
  assert.throws(() => new ResponseStream({ unknown: 3 }), TypeError);
  assert.throws(() => new ResponseStream({ tools: 3 }), TypeError);
  assert.deepEqual(new ResponseStream({ tools: ['f'], unknown: 'drop' }).finish(), []);
});

// ------------------------------------------------------------------------------------------
// The API

test('feedMany is the pieces fed one by one, with one crossing', () => {
  const text = 'Sure. <tool_call>{"name": "f", "arguments": {"x": "é😀"}}</tool_call> done';
  const pieces = [];
  for (let i = 0; i < text.length; i += 3) pieces.push(text.slice(i, i + 3));
  const one = new ToolCallStream({ start: 'content' });
  const events = [...pieces.flatMap((p) => one.feed(p)), ...one.finish()];
  const many = new ToolCallStream({ start: 'content' });
  const batched = [...many.feedMany(pieces.slice(0, 5)), ...many.feedMany(pieces.slice(5)), ...many.feedMany([]), ...many.finish()];
  const assemble = (list) => { const a = new Assembler(); a.take(list); return a.result(); };
  assert.deepEqual(assemble(batched), assemble(events));
  assert.equal(new ToolCallStream({ start: 'content' }).feedMany(pieces).filter((e) => e.type === 'arguments').length, 1);
  const broken = new ToolCallStream({ start: 'content' });
  assert.throws(() => { broken.feedMany(['Hi ', '<tool_call>', '{"name": "f", "arguments": {"x": }}']); broken.finish(); },
    (e) => e instanceof ToolCallError && e.code === 'json.unexpected_token' && e.position === 'Hi <tool_call>{"name": "f", "arguments": {"x": '.length);
  assert.throws(() => new ToolCallStream().feedMany(['a', 1]), /deltas\[1\] must be a string/);
  assert.throws(() => new ToolCallStream().feedMany('abc'), /must be an array of strings/);
});

test('events are plain objects, in text order, with the call filling in', () => {
  const stream = new ToolCallStream({ start: 'content' });
  const events = [
    ...stream.feed('Let me check.\n<tool'),
    ...stream.feed('_call>\n{"name": "get_weather", "arguments": {"city": "Pa'),
    ...stream.feed('ris"}}\n</tool_call><|im_end|>'),
    ...stream.finish(),
  ];
  assert.deepEqual(events, [
    { type: 'content', text: 'Let me check.' },
    { type: 'call_start', index: 0, id: null, name: 'get_weather', format: 'hermes' },
    { type: 'arguments', index: 0, delta: '{"city": "Pa' },
    { type: 'arguments', index: 0, delta: 'ris"}' },
    { type: 'call_end', index: 0, arguments: { city: 'Paris' } },
  ]);
});

test('empty arguments stream as {}', () => {
  const stream = new ToolCallStream();
  const events = [...stream.feed('<tool_call>{"name": "now"}</tool_call>'), ...stream.finish()];
  assert.deepEqual(events.filter((e) => e.type === 'arguments').map((e) => e.delta).join(''), '{}');
});

test('a broken call throws the whole text\'s error, positioned in all the text fed, and again after', () => {
  const text = 'Hi 😀\n<tool_call>{"name": "f", "arguments": {"x": tru}}</tool_call>';
  const want = thrown(() => beacon.parseMessage(text));
  const stream = new ToolCallStream();
  let e;
  try {
    for (const piece of codePoints(text)) stream.feed(piece);
    stream.finish();
  } catch (err) {
    e = err;
  }
  assert.ok(e instanceof ToolCallError);
  assert.deepEqual([e.code, e.position, e.line, e.column, e.message], [want.code, want.position, want.line, want.column, want.message]);
  assert.equal(thrown(() => stream.feed('more')), e);
  assert.equal(thrown(() => stream.finish()), e);
});

test('a stream takes nothing after finish', () => {
  const stream = new ToolCallStream();
  stream.feed('hello');
  assert.deepEqual(stream.finish(), [{ type: 'content', text: 'hello' }]);
  const e = thrown(() => stream.feed('x'));
  assert.ok(e instanceof ToolCallError);
  assert.equal(e.code, 'internal');
  assert.match(e.message, /finished/);
});

test('a surrogate pair split between two pieces is one character; a lone one is json.invalid_unicode in all the text', () => {
  const stream = new ToolCallStream({ start: 'content' });
  const events = [...stream.feed('ab\ud83d'), ...stream.feed('\ude00 c'), ...stream.finish()];
  assert.equal(events.map((e) => e.text).join(''), 'ab😀 c');
  const lone = new ToolCallStream();
  lone.feed('x\ny');
  const e = thrown(() => lone.feed('z\udc00'));
  assert.deepEqual([e.code, e.position, e.line, e.column], ['json.invalid_unicode', 4, 2, 3]);
  // The stream is over after it, as after any error; positions count everything fed.
  for (const stream of [new ToolCallStream({ start: 'content' }), new ResponseStream()]) {
    stream.feed('Hello there. ');
    const bad = thrown(() => stream.feed('bad \ud800 x'));
    assert.deepEqual([bad.code, bad.position, bad.line, bad.column], ['json.invalid_unicode', 17, 1, 18]);
    assert.throws(() => stream.feed(' world'));
    assert.throws(() => stream.finish());
  }
  const last = new ToolCallStream();
  last.feed('ab\ud83d');
  const end = thrown(() => last.finish());
  assert.deepEqual([end.code, end.position], ['json.invalid_unicode', 2]);
});

test('options are checked like parseMessage\'s, plus start', () => {
  assert.throws(() => new ToolCallStream({ include_format: true }), TypeError);
  assert.throws(() => new ToolCallStream({ formats: 'hermes' }), TypeError);
  assert.throws(() => new ToolCallStream({ formats: ['nope'] }), TypeError);
  assert.throws(() => new ToolCallStream({ ids: 'uuid' }), TypeError);
  assert.throws(() => new ToolCallStream({ start: 'think' }), /start must be "detect", "content" or "reasoning"/);
  assert.throws(() => new ToolCallStream({ start: 1 }), TypeError);
  assert.throws(() => new ToolCallStream({ unknown: 'ignore' }), TypeError);
  assert.throws(() => new ToolCallStream(null), TypeError);
  assert.throws(() => new ToolCallStream().feed(1), TypeError);
  assert.throws(() => new ResponseStream({ provider: 'nope' }), RangeError);
  assert.throws(() => new ResponseStream({ textFallback: true }), TypeError);
  assert.throws(() => new ResponseStream().feed(new Map()), TypeError);
  assert.throws(() => new ResponseStream().feed(3), TypeError);
});

test('start: reasoning shows the reasoning as it arrives', () => {
  const stream = new ToolCallStream({ start: 'reasoning' });
  assert.deepEqual(stream.feed('I should call f'), [{ type: 'reasoning', text: 'I should call f' }]);
  const rest = [...stream.feed('.</think>Done.'), ...stream.finish()];
  assert.deepEqual(rest, [{ type: 'reasoning', text: '.' }, { type: 'content', text: 'Done.' }]);
});

test('tools: an unknown tool in a tag throws tool_call.unknown_tool; known calls stream', () => {
  const tools = new beacon.Tools(['get_weather']);
  const text = '<tool_call>{"name": "launch", "arguments": {}}</tool_call>';
  const stream = new ToolCallStream({ tools });
  const e = thrown(() => {
    stream.feed(text);
    stream.finish();
  });
  assert.equal(e.code, 'tool_call.unknown_tool');
  assert.equal(e.position, thrown(() => beacon.parseMessage(text, { tools })).position);
  const ok = new ToolCallStream({ tools: ['get_weather'] });
  const events = [...ok.feed('<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'), ...ok.finish()];
  assert.deepEqual(events.at(-1), { type: 'call_end', index: 0, arguments: { city: 'Oslo' } });
});

test('big integers come back as BigInt, or as strings with bigints: string', () => {
  const text = '<tool_call>{"name": "f", "arguments": {"n": 12345678901234567890}}</tool_call>';
  const end = (o) => {
    const s = new ToolCallStream(o);
    return [...s.feed(text), ...s.finish()].at(-1).arguments.n;
  };
  assert.equal(end(), 12345678901234567890n);
  assert.equal(end({ bigints: 'string' }), '12345678901234567890');
});

test('ResponseStream: an error event throws response.error with the provider\'s message', () => {
  const stream = new ResponseStream({ provider: 'anthropic' });
  stream.feed({ type: 'message_start', message: { id: 'm', role: 'assistant', content: [] } });
  const e = thrown(() => stream.feed({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
  assert.equal(e.code, 'response.error');
  assert.match(e.message, /Overloaded/);
  assert.equal(thrown(() => stream.finish()), e);
});

test('a trap elsewhere loses an open stream (internal), and new streams work', () => {
  const stream = new ToolCallStream();
  stream.feed('<tool_call>{"name": "f", ');
  assert.equal(thrown(() => beacon._panicForTesting()).code, 'internal');
  const e = thrown(() => stream.feed('"arguments": {}}</tool_call>'));
  assert.equal(e.code, 'internal');
  assert.match(e.message, /lost/);
  const fresh = new ToolCallStream();
  assert.equal([...fresh.feed('<tool_call>{"name": "f", "arguments": {}}</tool_call>'), ...fresh.finish()].length, 3);
});

test('a stream that runs out of memory throws input.too_large, and the next stream works', () => {
  const stream = new ToolCallStream();
  stream.feed('<tool_call>{"name": "f", "arguments": {"x": "');
  beacon._setMemoryLimitForTesting(1 << 20);
  const e = thrown(() => stream.feed('a'.repeat(4 << 20)));
  assert.equal(e.code, 'input.too_large');
  assert.equal(thrown(() => stream.finish()), e);
  const fresh = new ToolCallStream();
  assert.equal([...fresh.feed('f(a=1)'), ...fresh.finish()].at(-1).type, 'call_end');
});

test('a thousand streams left unfinished do not break the next one', () => {
  for (let i = 0; i < 1000; i++) new ToolCallStream().feed('<tool_call>{"name": "f", "arguments": {"x": ');
  const s = new ToolCallStream();
  assert.equal([...s.feed('f(a=1)'), ...s.finish()].at(-1).type, 'call_end');
});


test('the server loop of docs/streaming.md (In JavaScript) turns events into OpenAI deltas', async () => {
  const page = readFileSync(join(ROOT, 'docs/streaming.md'), 'utf8');
  assert.ok(page.includes('\n## In JavaScript\n'), 'docs/streaming.md lost its section "In JavaScript"');
  const section = page.slice(page.indexOf('\n## In JavaScript\n'));
  const code = /```js\n([\s\S]*?)```/.exec(section)[1].replace(/^import .*\n/m, '');
  const AsyncFunction = (async () => {}).constructor;
  const sent = [];
  const tokens = ['Let me check', '.\n<tool', '_call>\n{"name": "get_weather", ', '"arguments": {"city": "Pa', 'ris"}}\n</tool_call>', '<|im_end|>'];
  await new AsyncFunction('ToolCallStream', 'modelTokens', 'send', code)(ToolCallStream, tokens, (d) => d && sent.push(d));
  // `check` waits for the next token, which might have made it `check(…)`, a call.
  assert.deepEqual(sent[0], { content: 'Let me' });
  assert.match(sent.find((d) => d.tool_calls?.[0].id)?.tool_calls[0].id, /^call_[A-Za-z0-9]{24}$/);
  const args = sent.filter((d) => d.tool_calls && !d.tool_calls[0].id).map((d) => d.tool_calls[0].function.arguments).join('');
  assert.deepEqual(JSON.parse(args), { city: 'Paris' });
  assert.equal(sent.map((d) => d.content ?? '').join(''), 'Let me check.');
});

test('large arguments are built from the text the stream keeps, as parseMessage builds them', () => {
  // Past 2 KB the core leaves a call's arguments in the text; the binding builds them from there.
  const items = Array.from({ length: 300 }, (_, i) => ({ k: i, s: 'é"\\n', n: null, f: 1.5 }));
  const first = JSON.stringify({ name: 'f', arguments: { a: items, b: { c: [true, false] } } });
  const second = JSON.stringify({ name: 'g', arguments: { x: 'y'.repeat(5000) } });
  const text = `Sure.\n<tool_call>\n${first}\n</tool_call>\n<tool_call>\n${second}\n</tool_call>`;
  const expected = beacon.parseMessage(text).tool_calls.map((c) => c.arguments);
  for (const piece of [text.length, 4096, 7]) {
    const s = new ToolCallStream({ start: 'content' });
    const events = [];
    for (let i = 0; i < text.length; i += piece) events.push(...s.feed(text.slice(i, i + piece)));
    events.push(...s.finish());
    assert.deepEqual(events.filter((e) => e.type === 'call_end').map((e) => e.arguments), expected);
    expected.forEach((args, index) => {
      const deltas = events.filter((e) => e.type === 'arguments' && e.index === index).map((e) => e.delta).join('');
      assert.deepEqual(JSON.parse(deltas), args);
    });
  }
});
