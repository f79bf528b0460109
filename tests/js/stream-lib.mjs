// Streams events through beacon-toolcall's ToolCallStream and ResponseStream and assembles them,
// checking their order: a call starts, gets its argument fragments, ends, then the next one
// starts; each call's fragments parse (as JSON, integers exact) to the arguments of its end.
// Plain ES module: stream-split.test.mjs and the playground test share what it checks.

import { diffExact, parseJsonExact, show } from './fixture-lib.mjs';

/** Assembles events into `{content, reasoning, calls: [{id, name, format, arguments, repairs?}]}`
 * (`repairs`: a mended call's receipts, from its `call_end`). */
export class Assembler {
  constructor() {
    this.content = '';
    this.reasoning = '';
    this.calls = [];
    this.open = null; // { index, fragments }
  }

  /** Takes `events`; throws an Error naming the first event out of order. */
  take(events) {
    for (const e of events) this.#one(e);
  }

  #one(e) {
    const fail = (why) => {
      throw new Error(`${why}: ${show(e)}`);
    };
    const keys = Object.keys(e).join(',');
    const shape = {
      content: 'type,text', reasoning: 'type,text', call_start: 'type,index,id,name,format',
      arguments: 'type,index,delta', call_end: 'type,index,arguments',
    }[e.type];
    const mended = e.type === 'call_end' && keys === `${shape},repairs`;
    if (keys !== shape && !mended) fail(`keys ${keys}, want ${shape}`);
    if (mended && !(Array.isArray(e.repairs) && e.repairs.length)) fail('empty repairs');
    switch (e.type) {
      case 'content':
      case 'reasoning':
        if (this.open) fail('text inside a call');
        if (typeof e.text !== 'string' || e.text === '') fail('an empty text');
        this[e.type] += e.text;
        return;
      case 'call_start':
        if (this.open || e.index !== this.calls.length) fail('a call start out of order');
        this.calls.push({ id: e.id, name: e.name, format: e.format, arguments: undefined });
        this.open = { index: e.index, fragments: '' };
        return;
      case 'arguments':
        if (this.open?.index !== e.index || typeof e.delta !== 'string') fail('fragments outside their call');
        this.open.fragments += e.delta;
        return;
      case 'call_end': {
        if (this.open?.index !== e.index) fail('a call end out of order');
        let parsed;
        try {
          parsed = parseJsonExact(this.open.fragments);
        } catch (err) {
          fail(`fragments ${show(this.open.fragments)} are not JSON (${err.message})`);
        }
        const d = diffExact(parsed, e.arguments, 'fragments');
        if (d) fail(d);
        this.calls[e.index].arguments = e.arguments;
        if (e.repairs !== undefined) this.calls[e.index].repairs = e.repairs;
        this.open = null;
        return;
      }
      default:
        fail('an unknown event type');
    }
  }

  /** The result; throws when a call never ended. */
  result() {
    if (this.open) throw new Error(`call ${this.open.index} never ended`);
    return { content: this.content, reasoning: this.reasoning, calls: this.calls };
  }
}

/** `parseMessage`'s answer as a stream assembles it (or its error as `{error}`). */
export function expectedMessage(beacon, text, options) {
  let m;
  try {
    m = beacon.parseMessage(text, options);
  } catch (error) {
    return { error };
  }
  return {
    content: m.content,
    reasoning: m.reasoning ?? '',
    calls: m.tool_calls.map(({ id, name, format, arguments: args, repairs }) => (
      repairs === undefined ? { id, name, format, arguments: args } : { id, name, format, arguments: args, repairs })),
  };
}

/** Streams `pieces` through a new ToolCallStream with `options`: the assembled result or `{error}`. */
export function streamPieces(beacon, pieces, options) {
  const stream = new beacon.ToolCallStream(options);
  const assembler = new Assembler();
  try {
    for (const piece of pieces) assembler.take(stream.feed(piece));
    assembler.take(stream.finish());
  } catch (error) {
    if (error instanceof beacon.ToolCallError) return { error };
    throw error;
  }
  return assembler.result();
}

/** `streamPieces` with the pieces given to `feedMany` in groups of one to eight (`random`). */
export function streamPiecesMany(beacon, pieces, options, random) {
  const stream = new beacon.ToolCallStream(options);
  const assembler = new Assembler();
  try {
    for (let at = 0; at < pieces.length;) {
      const n = 1 + random(8);
      assembler.take(stream.feedMany(pieces.slice(at, at + n)));
      at += n;
    }
    assembler.take(stream.finish());
  } catch (error) {
    if (error instanceof beacon.ToolCallError) return { error };
    throw error;
  }
  return assembler.result();
}

const errorFields = (e) => ({ code: e.code, position: e.position, line: e.line, column: e.column, path: e.path });

/** A difference between two outcomes (results or `{error}`), or ''. */
export function outcomeDiff(got, want) {
  if (want.error || got.error) {
    if (!want.error) return `threw ${got.error.message}`;
    if (!got.error) return `did not throw ${want.error.code}: ${show(got)}`;
    return diffExact(errorFields(got.error), errorFields(want.error), 'error');
  }
  return diffExact(got, want, 'streamed');
}

/** A seeded generator of integers in [0, n) (mulberry32). */
export function seeded(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** `text` cut into pieces of 1 to `most` UTF-16 units, at random. */
export function randomPieces(text, random, most) {
  const pieces = [];
  for (let from = 0; from < text.length;) {
    const to = Math.min(text.length, from + 1 + random(most));
    pieces.push(text.slice(from, to));
    from = to;
  }
  return pieces;
}

/** `text` one code point at a time. */
export const codePoints = (text) => [...text];
