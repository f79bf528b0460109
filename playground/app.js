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
const status = $('status');
const runBench = $('run-bench');
const benchResult = $('bench-result');
const inputLabel = $('input-label');
const formatToggle = includeFormat.closest('label');

let beacon = null;

// How the textarea is read: 'text' (model output, parseToolCalls) or 'response' (a model API's
// response JSON, parseResponse), fixed by the preset row last clicked; 'auto' once the user edits:
// a response when detectProvider recognises the JSON. `lastSource` keeps a half-edited response
// (malformed JSON for the moment) read as a response, so its error is the JSON error.
let mode = 'text';
let lastSource = 'text';

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

/** The offending line with a caret under the character, like a compiler diagnostic. */
function snippetHtml(text, err) {
  const lines = text.split('\n');
  const line = lines[err.line - 1] ?? '';
  const gutter = String(err.line);
  const pad = ' '.repeat(gutter.length);
  const before = line.slice(0, err.column - 1);
  // Tabs keep their width under the caret.
  const caretPad = before.replace(/[^\t]/g, ' ');
  const shown = line === '' ? '' : escapeHtml(line);
  return `<pre class="snippet"><span class="gutter">${gutter} │</span> ${shown}\n`
    + `<span class="gutter">${pad} │</span> ${caretPad}<span class="caret">^</span></pre>`;
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
  if (source === 'response') return (text) => beacon.parseResponse(text);
  const options = { includeFormat: includeFormat.checked };
  return (text) => beacon.parseToolCalls(text, options);
}

function update() {
  const text = input.value;
  inputMeta.textContent = plural(text.length, 'char');
  if (!beacon) return;
  const { source, provider } = sourceOf(text);
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
  formatToggle.classList.toggle('is-off', response);
  includeFormat.disabled = response;
  formatToggle.title = response ? 'Provider responses carry no format: their calls are read from the API\u2019s own fields' : '';
  const providerTag = provider ? ` · <span class="provider" id="provider">${escapeHtml(provider)}</span>` : '';

  if (error) {
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
  output.innerHTML = `<pre class="json" id="json">${jsonHtml(calls)}</pre>`;
  const formats = [...new Set(calls.map((c) => c.format).filter(Boolean))];
  outputMeta.innerHTML = `${plural(calls.length, 'call')}${providerTag}`
    + `${formats.length ? ` · ${formats.join(', ')}` : ''} · ${took}`;
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

// ---------------------------------------------------------------------------------- wiring

for (const button of document.querySelectorAll('button.preset')) {
  button.addEventListener('click', () => {
    input.value = PRESETS[button.dataset.preset];
    mode = button.dataset.source === 'response' ? 'response' : 'text';
    for (const b of document.querySelectorAll('button.preset')) b.classList.toggle('active', b === button);
    benchResult.textContent = '';
    input.scrollTop = 0;
    update();
  });
}
input.addEventListener('input', () => {
  for (const b of document.querySelectorAll('button.preset')) b.classList.remove('active');
  mode = 'auto';
  benchResult.textContent = '';
  update();
});
input.addEventListener('scroll', syncScroll);
new ResizeObserver(syncScroll).observe(input);
includeFormat.addEventListener('change', update);
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

if (input.value === PRESETS.python) document.querySelector('[data-preset="python"]').classList.add('active');
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
