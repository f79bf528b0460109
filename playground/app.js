// beacon playground: parses the textarea as you type with the beacon-toolcall package
// (beacon's Rust core compiled to WebAssembly), copied into ./pkg by scripts/serve.sh.
// No framework, no network beyond this folder.

const PRESETS = {
  python: 'I will look that up. search(query="rust async", limit=5)',
  hermes: `I'll check the current weather in both cities.
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
</tool_call>
<tool_call>
{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}
</tool_call>`,
  mistral: '[TOOL_CALLS] [{"name": "get_current_weather", "arguments": {"location": "Paris, France", "format": "celsius"}}]</s>',
  llama: '<|python_tag|>{"name": "get_stock_price", "parameters": {"ticker": "NVDA", "currency": "USD"}}<|eom_id|>',
  openai: `{
  "role": "assistant",
  "content": null,
  "tool_calls": [
    {
      "id": "call_8f2kq1xZ",
      "type": "function",
      "function": {
        "name": "create_ticket",
        "arguments": "{\\"title\\": \\"Login page returns 500\\", \\"priority\\": \\"high\\", \\"labels\\": [\\"bug\\", \\"auth\\"]}"
      }
    }
  ]
}`,
  xml: `I'll search the documentation for that.
<function_calls>
<invoke name="search_docs">
<parameter name="query">tokio::select! cancellation safety</parameter>
<parameter name="max_results">3</parameter>
</invoke>
</function_calls>`,
  broken: `<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}
</tool_call>`,

  // Provider responses (read with parseResponse): what each API returns, abridged only of
  // fields that do not matter here.
  openai_response: `{
  "id": "chatcmpl-BXk3f9ZqT2mN8vR1cLpQ7wYe4Hs0",
  "object": "chat.completion",
  "created": 1747412345,
  "model": "gpt-4.1-2025-04-14",
  "choices": [
    {
      "index": 0,
      "message": {
        "role": "assistant",
        "content": null,
        "tool_calls": [
          {
            "id": "call_Vx9f2kq1ZpL0mT7sRb3W",
            "type": "function",
            "function": {
              "name": "get_weather",
              "arguments": "{\\"city\\": \\"Paris\\"}"
            }
          },
          {
            "id": "call_Q3n8rW5yHb2cJd4eTn6K",
            "type": "function",
            "function": {
              "name": "get_weather",
              "arguments": "{\\"city\\": \\"Tokyo\\"}"
            }
          }
        ],
        "refusal": null
      },
      "finish_reason": "tool_calls"
    }
  ],
  "usage": {
    "prompt_tokens": 82,
    "completion_tokens": 51,
    "total_tokens": 133
  },
  "system_fingerprint": "fp_b3f1157249"
}`,
  anthropic_response: `{
  "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
  "type": "message",
  "role": "assistant",
  "model": "claude-sonnet-4-20250514",
  "content": [
    {
      "type": "text",
      "text": "I'll look for flights and a hotel."
    },
    {
      "type": "tool_use",
      "id": "toolu_01A09q90qw90lq917835lq9",
      "name": "search_flights",
      "input": {
        "from": "SFO",
        "to": "NRT",
        "date": "2025-06-14",
        "passengers": 2
      }
    },
    {
      "type": "tool_use",
      "id": "toolu_01B7c5Lm2Qx8Rz4Tn6Vp3Wk1",
      "name": "check_hotel",
      "input": {
        "city": "Tokyo",
        "nights": 5,
        "amenities": ["wifi", "breakfast"]
      }
    }
  ],
  "stop_reason": "tool_use",
  "stop_sequence": null,
  "usage": {"input_tokens": 512, "output_tokens": 134}
}`,
  gemini_response: `{
  "candidates": [
    {
      "content": {
        "role": "model",
        "parts": [
          {
            "functionCall": {
              "name": "set_light_values",
              "args": {
                "brightness": 25,
                "color": "warm"
              }
            }
          }
        ]
      },
      "finishReason": "STOP",
      "index": 0
    }
  ],
  "usageMetadata": {
    "promptTokenCount": 74,
    "candidatesTokenCount": 19,
    "totalTokenCount": 93
  },
  "modelVersion": "gemini-2.5-flash",
  "responseId": "o3ZFaPyUNcTqz7IP2Y6x8QM"
}`,
  bedrock_response: `{
  "output": {
    "message": {
      "role": "assistant",
      "content": [
        {"text": "Let me look up the current price."},
        {
          "toolUse": {
            "toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
            "name": "get_stock_price",
            "input": {
              "ticker": "AMZN",
              "exchange": "NASDAQ"
            }
          }
        }
      ]
    }
  },
  "stopReason": "tool_use",
  "usage": {
    "inputTokens": 398,
    "outputTokens": 72,
    "totalTokens": 470
  },
  "metrics": {"latencyMs": 1183}
}`,
};

const BENCH_CALLS = 1000;
// V8 first runs wasm in its baseline compiler and tiers hot functions up while they run:
// warm up for up to 10,000 calls (or 300 ms, whichever comes first) before timing.
const WARMUP_MAX_CALLS = 10000;
const WARMUP_MAX_MS = 300;

const $ = (id) => document.getElementById(id);
const input = $('input');
const highlights = $('highlights');
const backdrop = $('backdrop');
const output = $('output');
const outputMeta = $('output-meta');
const inputMeta = $('input-meta');
const includeFormat = $('include-format');
const streamBox = $('stream');
const streamToggle = $('stream-toggle');
const status = $('status');
const runBench = $('run-bench');
const benchResult = $('bench-result');
const inputLabel = $('input-label');
const formatToggle = $('include-format-toggle');
const textFallback = $('text-fallback');
const fallbackToggle = $('text-fallback-toggle');
const copyResult = $('copy-result');
const copyLink = $('copy-link');
const announce = $('announce');
const outputPanel = $('output-panel');
const presetButtons = [...document.querySelectorAll('button.preset')];

let beacon = null;

// How the textarea is read: 'text' (model output, parseToolCalls) or 'response' (a model API's
// response JSON, parseResponse), fixed by the preset row last clicked; 'auto' once the user edits:
// a response when detectProvider recognises the JSON. `lastSource` keeps a half-edited response
// (malformed JSON for the moment) read as a response, so its error is the JSON error.
let mode = 'text';
let lastSource = 'text';
let lastErrorMessage = '';

// ---------------------------------------------------------------------------------- rendering

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const numberFormat = new Intl.NumberFormat('en-US');

/** Pretty JSON as highlighted HTML; BigInts print as their exact digits. */
function jsonHtml(value, indent = '') {
  if (value === null) return '<span class="j-null">null</span>';
  switch (typeof value) {
    case 'boolean': return `<span class="j-bool">${value}</span>`;
    case 'number': return `<span class="j-num">${Object.is(value, -0) ? '-0.0' : String(value)}</span>`;
    case 'bigint': return `<span class="j-num j-big" title="BigInt: beyond Number.MAX_SAFE_INTEGER, kept exact">${value}</span>`;
    case 'string': return `<span class="j-str">${escapeHtml(JSON.stringify(value))}</span>`;
    default: break;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + jsonHtml(v, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}<span class="j-key">${escapeHtml(JSON.stringify(k))}</span>: ${jsonHtml(value[k], inner)}`).join(',\n')}\n${indent}}`;
}

/** Escapes `text`, rendering `backticked` parts (as in beacon's messages) as code. */
function codeSpans(text) {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** Mirrors the textarea into the backdrop, with the character at `position` marked. */
function renderHighlight(text, position) {
  highlights.replaceChildren();
  if (position == null) {
    highlights.append(text, ' ');
    return;
  }
  // Mark a whole code point (a surrogate pair is two UTF-16 units).
  const cp = text.codePointAt(position);
  const end = position + (cp === undefined ? 0 : cp > 0xffff ? 2 : 1);
  const ch = text.slice(position, end);
  const mark = document.createElement('mark');
  mark.dataset.position = String(position);
  mark.dataset.char = ch;
  // A newline or the end of the text has no glyph: mark a space in its place.
  mark.textContent = ch === '' || ch === '\n' || ch === '\r' ? ' ' : ch;
  mark.title = 'offending character';
  highlights.append(text.slice(0, position), mark, ch === '\n' || ch === '\r' ? ch : '', text.slice(end), ' ');
  syncScroll();
}

function syncScroll() {
  backdrop.scrollTop = input.scrollTop;
  backdrop.scrollLeft = input.scrollLeft;
}

// A long line's snippet is cropped to the characters that fit the output panel's width, the caret
// at most 40% of the way in: on a long line (a one-line response of 100 KB) the caret stays in view.
const SNIPPET_MIN_COLUMNS = 16;
let snippetCharWidth = 0;

/** How many monospace characters a snippet line holds in the output panel as laid out now. */
function snippetColumns(gutterWidth) {
  if (!snippetCharWidth) {
    const probe = document.createElement('pre');
    probe.className = 'snippet';
    probe.style.cssText = 'position:absolute;visibility:hidden;padding:0;border:0;width:auto';
    probe.textContent = '0'.repeat(100);
    document.body.append(probe);
    snippetCharWidth = probe.getBoundingClientRect().width / 100;
    probe.remove();
  }
  const style = getComputedStyle(output);
  const inner = output.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  // The snippet's own padding and border (12 + 12 + 3 px), and the gutter ("12 │ ").
  const columns = Math.floor((inner - 27) / snippetCharWidth) - (gutterWidth + 3);
  return Math.max(SNIPPET_MIN_COLUMNS, columns);
}

const isLowSurrogate = (s, i) => s.charCodeAt(i) >= 0xdc00 && s.charCodeAt(i) <= 0xdfff;

/** The part [start, end) of `line` a snippet `width` columns wide shows around index `at`: all of
 * it when it fits, else `at` 40% of the way in, with a column kept for each … mark at a cut. A cut
 * never splits a surrogate pair. */
function cropWindow(line, at, width) {
  if (line.length <= width) return [0, line.length];
  let start = Math.max(0, at - Math.floor(width * 0.4));
  let end = start + width - (start > 0 ? 1 : 0) - 1;
  if (end >= line.length - 1) {
    end = line.length;
    start = Math.min(start, line.length - width + 1);
  }
  if (isLowSurrogate(line, start)) start += 1;
  if (isLowSurrogate(line, end)) end -= 1;
  return [start, end];
}

/** The offending line with a caret under the character, like a compiler diagnostic. A long line
 * is cropped around the column (… marks a cut). The caret line repeats the text before the column
 * in transparent ink, so the caret lines up whatever the characters' widths (tabs, CJK, emoji). */
function snippetHtml(text, err) {
  const lines = text.split('\n');
  const line = (lines[err.line - 1] ?? '').replace(/\r$/, '');
  const gutter = String(err.line);
  const pad = ' '.repeat(gutter.length);
  const at = Math.min(err.column - 1, line.length);
  const [start, end] = cropWindow(line, at, snippetColumns(gutter.length));
  const cp = line.codePointAt(at);
  const atEnd = at + (cp === undefined ? 0 : cp > 0xffff ? 2 : 1);
  const before = (start > 0 ? '…' : '') + line.slice(start, at);
  const after = line.slice(atEnd, end) + (end < line.length ? '…' : '');
  const ch = line.slice(at, atEnd);
  return `<pre class="snippet" id="snippet"><span class="gutter">${gutter} │</span> `
    + `${escapeHtml(before)}<span class="snippet-at">${escapeHtml(ch)}</span>${escapeHtml(after)}\n`
    + `<span class="gutter" aria-hidden="true">${pad} │</span> <span class="snippet-pad" aria-hidden="true">${escapeHtml(before)}</span>`
    + '<span class="caret" aria-hidden="true">^</span></pre>';
}

function plural(n, word) {
  return `${numberFormat.format(n)} ${word}${n === 1 ? '' : 's'}`;
}

// ---------------------------------------------------------------------------------- parsing

/** How to read `text` ('text' or 'response'), and the provider detectProvider names (or null). */
function sourceOf(text) {
  if (mode === 'text') return { source: 'text', provider: null };
  let provider;
  try {
    provider = beacon.detectProvider(text);
  } catch (e) {
    if (!(e instanceof beacon.ToolCallError)) throw e;
    // Malformed JSON. A response being edited stays one, so its error is the JSON error; other
    // text is model output (`[TOOL_CALLS] [...]` starts with a bracket too, and a paste replaces
    // the response with it).
    const editing = lastSource === 'response' && /^\s*(\{|\[\s*[{\]])/.test(text);
    return { source: mode === 'response' || editing ? 'response' : 'text', provider: null };
  }
  return { source: mode === 'response' || provider ? 'response' : 'text', provider };
}

/** The parse the page runs for `source`: parseResponse or parseToolCalls. */
function parser(source) {
  if (source === 'response') {
    const options = { textFallback: textFallback.checked };
    return (text) => beacon.parseResponse(text, options);
  }
  const options = { includeFormat: includeFormat.checked };
  return (text) => beacon.parseToolCalls(text, options);
}

function update() {
  const text = input.value;
  inputMeta.textContent = plural(text.length, 'char');
  if (!beacon) return;
  const { source, provider } = sourceOf(text);
  stopReplay();
  streamToggle.hidden = source === 'response';
  streamBox.disabled = source === 'response';
  if (streamBox.checked && source === 'text') {
    lastSource = source;
    inputLabel.textContent = 'LLM output';
    formatToggle.hidden = true;
    fallbackToggle.hidden = true;
    startReplay(text);
    return;
  }
  const parse = parser(source);
  const t0 = performance.now();
  let calls;
  let error;
  try {
    calls = parse(text);
  } catch (e) {
    if (!(e instanceof beacon.ToolCallError)) throw e;
    error = e;
  }
  const ms = performance.now() - t0;
  const took = ms < 0.1 ? '< 0.1 ms' : `${ms.toFixed(1)} ms`;
  lastSource = source;
  const response = source === 'response';
  inputLabel.textContent = response ? 'Provider response' : 'LLM output';
  // The option that applies: include format for model output, text fallback for a response.
  formatToggle.hidden = response;
  includeFormat.disabled = response;
  fallbackToggle.hidden = !response;
  textFallback.disabled = !response;
  const providerTag = provider ? ` · <span class="provider" id="provider">${escapeHtml(provider)}</span>` : '';

  if (error) {
    lastErrorMessage = error.message;
    renderHighlight(text, error.code === 'tool_call.not_found' ? null : error.position);
    const reason = error.message.replace(/^\S+ at line \d+, column \d+: /, '');
    const none = error instanceof beacon.NoToolCallFoundError;
    output.className = `output ${none ? 'is-empty' : 'is-error'}`;
    output.innerHTML = `<div class="error">
      <div class="error-head"><span class="error-class">${error.name}</span><code class="error-code" id="error-code">${escapeHtml(error.code)}</code></div>
      <p class="error-message" id="error-message">${codeSpans(reason)}</p>
      <p class="error-where" id="error-where">line ${error.line}, column ${error.column} <span class="dim">· offset ${error.position}</span></p>
      ${none ? '' : snippetHtml(text, error)}
    </div>`;
    outputMeta.innerHTML = `${none ? 'no call' : 'error'}${providerTag} · ${took}`;
    return;
  }
  renderHighlight(text, null);
  output.className = 'output is-ok';
  const none = response && calls.length === 0
    ? `<p class="hint" id="hint">No tool calls in this response.${textFallback.checked ? ''
      : ' Its assistant text is not read as model output unless <strong>text fallback</strong> is on.'}</p>`
    : '';
  output.innerHTML = `<pre class="json" id="json">${jsonHtml(calls)}</pre>${none}`;
  const formats = [...new Set(calls.map((c) => c.format).filter(Boolean))];
  const formatTags = formats.map((f) => `<span class="fmt-id">${escapeHtml(f)}</span>`).join(', ');
  outputMeta.innerHTML = `${plural(calls.length, 'call')}${providerTag}`
    + `${formats.length ? ` · ${formatTags}` : ''} · ${took}`;
}

// ---------------------------------------------------------------------------------- stream replay
// With "stream" on, model output is replayed through ToolCallStream about STREAM_CHARS characters
// (code points) per tick, as a server would receive it token by token: the content appears as
// the stream lets it out, and each call fills in, name first, then its arguments. When the text
// has ended, a check line compares what the events add up to with parseMessage of the whole text.
// The page knows the whole text, so it tells the stream whether it starts inside a reasoning
// block the prompt opened (a close tag before any open tag of its kind), as a server that knows
// its chat template would (`start`).

const STREAM_CHARS = 4;
const STREAM_TICK_MS = 40;
let replay = null; // { timer, ... } of the replay running

function stopReplay() {
  if (replay) clearTimeout(replay.timer);
  replay = null;
}

const REASONING_TAGS = [['<think>', '</think>'], ['[THINK]', '[/THINK]'], ['<seed:think>', '</seed:think>'],
  ['<longcat_think>', '</longcat_think>']];

/** `'reasoning'` when the text starts inside a block the prompt opened, else `'content'`. */
function streamStart(text) {
  for (const [open, close] of REASONING_TAGS) {
    const at = text.indexOf(close);
    if (at >= 0 && !text.slice(0, at).includes(open)) return 'reasoning';
  }
  return 'content';
}

/** Whether two results (plain values, BigInts included) are the same. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
}

/** The replay's state as HTML. */
function replayHtml(r) {
  const calls = r.calls.map((c) => `<li class="stream-call${c.done ? ' done' : ''}" data-index="${c.index}">
      <div class="call-head"><span class="call-name">${escapeHtml(c.name)}</span>
        <span class="call-meta">${escapeHtml(c.format)}${c.id ? ` · ${escapeHtml(c.id)}` : ''} · ${c.done ? 'complete' : 'arguments arriving…'}</span></div>
      <pre class="call-args">${escapeHtml(c.fragments)}</pre></li>`).join('');
  const reasoning = r.reasoning
    ? `<p class="stream-label">reasoning</p><pre class="stream-text stream-reasoning" id="stream-reasoning">${escapeHtml(r.reasoning)}</pre>` : '';
  const state = r.ended ? 'done' : `tick ${r.ticks}`;
  return `<div class="stream-view" id="stream-view">
    <p class="stream-tick${r.ended ? ' done' : ''}" id="stream-tick"><span class="tick-dot${r.ticks % 2 ? ' on' : ''}"></span>`
    + `${state} · ${numberFormat.format(r.fed)} / ${numberFormat.format(r.total)} chars fed</p>
    ${reasoning}
    <p class="stream-label">content</p><pre class="stream-text" id="stream-content">${escapeHtml(r.content)}</pre>
    <p class="stream-label">tool calls</p><ol class="stream-calls" id="stream-calls">${calls}</ol>
    ${r.check ?? ''}</div>`;
}

/** Applies stream events to the replay's state. */
function applyEvents(r, events) {
  for (const e of events) {
    if (e.type === 'content') r.content += e.text;
    else if (e.type === 'reasoning') r.reasoning += e.text;
    else if (e.type === 'call_start') r.calls.push({ ...e, fragments: '', done: false });
    else if (e.type === 'arguments') r.calls[e.index].fragments += e.delta;
    else if (e.type === 'call_end') Object.assign(r.calls[e.index], { arguments: e.arguments, done: true });
  }
}

/** The check line: the streamed result (or error) against parseMessage of the whole text. */
function checkLine(r, text) {
  let want;
  try {
    want = beacon.parseMessage(text);
  } catch (e) {
    if (!(e instanceof beacon.ToolCallError)) throw e;
    const ok = r.error && r.error.code === e.code && r.error.position === e.position;
    return ok
      ? `<p class="stream-check ok" id="stream-check">✓ The stream threw what the one-shot parse throws: ${escapeHtml(e.code)} at line ${e.line}, column ${e.column}</p>`
      : `<p class="stream-check fail" id="stream-check">✗ The one-shot parse throws ${escapeHtml(e.code)}; the stream ${r.error ? `threw ${escapeHtml(r.error.code)}` : 'did not'}</p>`;
  }
  const got = {
    content: r.content,
    reasoning: r.reasoning || null,
    calls: r.calls.map(({ id, name, format, arguments: args }) => ({ id, name, format, arguments: args })),
  };
  const expected = {
    content: want.content,
    reasoning: want.reasoning || null,
    calls: want.tool_calls.map(({ id, name, format, arguments: args }) => ({ id, name, format, arguments: args })),
  };
  if (!r.error && same(got, expected)) {
    return `<p class="stream-check ok" id="stream-check">✓ The streamed result equals the one-shot parse: the same content${
      expected.reasoning ? ', reasoning' : ''} and ${plural(expected.calls.length, 'call')}</p>`;
  }
  const why = r.error ? `the stream threw ${escapeHtml(r.error.code)}` : 'they differ';
  return `<p class="stream-check fail" id="stream-check">✗ The streamed result is not the one-shot parse: ${why}</p>`;
}

function renderReplay(r) {
  output.innerHTML = replayHtml(r);
  const formats = [...new Set(r.calls.map((c) => c.format))];
  outputMeta.innerHTML = `${r.ended ? '' : 'streaming · '}${plural(r.calls.length, 'call')}`
    + `${formats.length ? ` · ${formats.map((f) => `<span class="fmt-id">${escapeHtml(f)}</span>`).join(', ')}` : ''}`;
}

/** Replays `text` through a ToolCallStream, one tick at a time. */
function startReplay(text) {
  stopReplay();
  const chars = [...text];
  const r = {
    stream: new beacon.ToolCallStream({ start: streamStart(text) }),
    timer: 0, ticks: 0, at: 0, fed: 0, total: text.length,
    content: '', reasoning: '', calls: [], error: null, ended: false, check: null,
  };
  replay = r;
  renderHighlight(text, null);
  output.className = 'output is-ok is-streaming';
  const end = () => {
    r.ended = true;
    r.check = checkLine(r, text);
    output.className = `output ${r.check.includes('stream-check ok') ? 'is-ok' : 'is-error'}`;
    if (r.error) renderHighlight(text, r.error.code === 'tool_call.not_found' ? null : r.error.position);
    renderReplay(r);
    if (replay === r) replay = null;
  };
  const tick = () => {
    if (replay !== r) return;
    r.ticks += 1;
    const piece = chars.slice(r.at, r.at + STREAM_CHARS).join('');
    r.at += STREAM_CHARS;
    r.fed += piece.length;
    try {
      applyEvents(r, r.at >= chars.length ? [...r.stream.feed(piece), ...r.stream.finish()] : r.stream.feed(piece));
    } catch (e) {
      if (!(e instanceof beacon.ToolCallError)) throw e;
      r.error = e;
    }
    if (r.error || r.at >= chars.length) {
      end();
      return;
    }
    renderReplay(r);
    r.timer = setTimeout(tick, STREAM_TICK_MS);
  };
  renderReplay(r);
  r.timer = setTimeout(tick, STREAM_TICK_MS);
}

// ---------------------------------------------------------------------------------- benchmark

function bench() {
  const text = input.value;
  const parse = parser(sourceOf(text).source);
  const once = () => {
    try {
      parse(text);
    } catch (e) {
      if (!(e instanceof beacon.ToolCallError)) throw e;
    }
  };
  const w0 = performance.now();
  let warmup = 0;
  while (warmup < WARMUP_MAX_CALLS && (warmup < 100 || performance.now() - w0 < WARMUP_MAX_MS)) {
    once();
    warmup++;
  }
  const t0 = performance.now();
  for (let i = 0; i < BENCH_CALLS; i++) once();
  const total = performance.now() - t0;
  const perCallUs = (total * 1000) / BENCH_CALLS;
  const perSecond = total > 0 ? Math.round(BENCH_CALLS / (total / 1000)) : Infinity;
  benchResult.innerHTML = `<strong>${numberFormat.format(BENCH_CALLS)} calls</strong> in ${total.toFixed(1)} ms`
    + ` · <strong>${perCallUs.toFixed(perCallUs < 10 ? 2 : 1)} µs</strong> per call`
    + ` · ${Number.isFinite(perSecond) ? numberFormat.format(perSecond) : '∞'} calls/s`;
  benchResult.title = `warm-up: ${numberFormat.format(warmup)} calls; then ${numberFormat.format(BENCH_CALLS)} calls timed as one batch with performance.now()`;
}

// ---------------------------------------------------------------------------------- copy

/** What "Copy result" copies: the calls as JSON (as shown, BigInts as their digits), or the
 * error as `code at line L, column C: message`. */
function resultText() {
  const json = document.getElementById('json');
  if (json) return json.textContent;
  const code = document.getElementById('error-code');
  return code ? lastErrorMessage : output.textContent.trim();
}

async function copy(text, button, said) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (an insecure context) or no permission: copy through a selection.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'sr-only';
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  button.textContent = 'Copied';
  announce.textContent = said;
  clearTimeout(button.copiedTimer);
  button.copiedTimer = setTimeout(() => {
    button.textContent = label;
    announce.textContent = '';
  }, 1500);
}

// ---------------------------------------------------------------------------------- link (URL hash)
// The hash holds the input and the options, so a link reproduces a parse:
//   #z=<base64url of the UTF-8 input, deflate-raw compressed>  (what the page writes)
//   #t=<the input, percent-encoded>                              (easier to write by hand)
// plus m=text|response|auto (how the input is read), f=1 (include format), fb=1 (text fallback),
// s=1 (stream).

const HASH_DELAY_MS = 250;
let hashTimer = 0;
let hashWritten = '';

function base64url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unbase64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function through(stream, bytes) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

async function hashFor(text) {
  const params = new URLSearchParams();
  if (typeof CompressionStream === 'function') {
    params.set('z', base64url(await through(new CompressionStream('deflate-raw'), new TextEncoder().encode(text))));
  } else {
    params.set('t', text); // a browser without CompressionStream: the text itself
  }
  params.set('m', mode);
  if (includeFormat.checked) params.set('f', '1');
  if (textFallback.checked) params.set('fb', '1');
  if (streamBox.checked) params.set('s', '1');
  return `#${params}`;
}

/** Puts the current input and options into the URL (replacing the history entry). */
async function writeHash() {
  clearTimeout(hashTimer);
  const hash = await hashFor(input.value);
  if (hash !== hashWritten && hash !== window.location.hash) {
    window.history.replaceState(null, '', hash);
  }
  hashWritten = hash;
}

function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(writeHash, HASH_DELAY_MS);
}

/** Loads the input and options from the URL hash; false when it holds none (or is unreadable). */
async function readHash() {
  const hash = window.location.hash.slice(1);
  if (!hash || `#${hash}` === hashWritten) return false;
  const params = new URLSearchParams(hash);
  let text;
  try {
    if (params.has('z')) {
      text = new TextDecoder('utf-8', { fatal: true }).decode(
        await through(new DecompressionStream('deflate-raw'), unbase64url(params.get('z'))),
      );
    } else if (params.has('t')) {
      text = params.get('t');
    } else {
      return false;
    }
  } catch {
    status.textContent = 'The link\u2019s input could not be read';
    return false;
  }
  input.value = text;
  input.scrollTop = 0;
  const m = params.get('m');
  mode = m === 'text' || m === 'response' ? m : 'auto';
  includeFormat.checked = params.get('f') === '1';
  textFallback.checked = params.get('fb') === '1';
  streamBox.checked = params.get('s') === '1';
  const preset = presetButtons.find((b) => PRESETS[b.dataset.preset] === text
    && (b.dataset.source === 'response' ? 'response' : 'text') === mode);
  pressPreset(preset ?? null);
  hashWritten = `#${hash}`;
  renderHighlight(text, null);
  inputMeta.textContent = plural(text.length, 'char');
  return true;
}

// ---------------------------------------------------------------------------------- wiring

/** Marks `pressed` (a preset button, or none) as the one pressed. */
function pressPreset(pressed) {
  for (const b of presetButtons) {
    b.setAttribute('aria-pressed', String(b === pressed));
  }
}

/** On a small screen, brings the result into view when it is below the fold. */
function revealOutput() {
  const head = outputPanel.getBoundingClientRect();
  if (head.top + 96 > window.innerHeight) outputPanel.scrollIntoView({ block: 'start', behavior: 'instant' });
}

for (const button of presetButtons) {
  button.addEventListener('click', () => {
    input.value = PRESETS[button.dataset.preset];
    mode = button.dataset.source === 'response' ? 'response' : 'text';
    pressPreset(button);
    benchResult.textContent = '';
    input.scrollTop = 0;
    update();
    scheduleHash();
    revealOutput();
  });
}
input.addEventListener('input', () => {
  pressPreset(null);
  mode = 'auto';
  benchResult.textContent = '';
  update();
  scheduleHash();
});
input.addEventListener('scroll', syncScroll);
new ResizeObserver(syncScroll).observe(input);
// A snippet is cropped to the panel's width: crop it again when that changes.
let outputWidth = 0;
new ResizeObserver(() => {
  if (output.clientWidth === outputWidth) return;
  outputWidth = output.clientWidth;
  if (document.getElementById('snippet')) update();
}).observe(output);
for (const box of [includeFormat, textFallback, streamBox]) {
  box.addEventListener('change', () => {
    update();
    scheduleHash();
  });
}
copyResult.addEventListener('click', () => copy(resultText(), copyResult, 'Copied the result'));
copyLink.addEventListener('click', async () => {
  await writeHash();
  copy(window.location.href, copyLink, 'Copied a link to this input');
});
window.addEventListener('hashchange', async () => {
  if (await readHash()) update();
});
runBench.addEventListener('click', () => {
  status.textContent = `Running ${numberFormat.format(BENCH_CALLS)}×…`;
  runBench.disabled = true;
  // Let the status paint before the synchronous batch.
  requestAnimationFrame(() => setTimeout(() => {
    try {
      bench();
    } finally {
      runBench.disabled = false;
      status.textContent = 'Idle';
    }
  }, 0));
});

if (!(await readHash()) && input.value === PRESETS.python) pressPreset(document.querySelector('[data-preset="python"]'));
renderHighlight(input.value, null);
inputMeta.textContent = plural(input.value.length, 'char');

try {
  beacon = await import('./pkg/index.js');
} catch (e) {
  status.textContent = 'Could not load beacon\u2019s WebAssembly core (was the package copied into playground/pkg?)';
  status.classList.add('failed');
  output.innerHTML = `<p class="placeholder">${escapeHtml(String(e))}</p>`;
  throw e;
}
status.textContent = 'Idle';
status.classList.add('ready');
runBench.disabled = false;
update();
