// Times beacon-toolcall in Node: parseToolCalls on representative model outputs, best of 30
// batches of 1,000 calls after a warm-up (V8 tiers wasm up while it runs).
//   node bindings-wasm/bench.mjs [package dir, default build/pkg-web]
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const dir = resolve(process.argv[2] ?? resolve(root, 'build/pkg-web'));
const { parseToolCalls, ToolCallError } = await import(pathToFileURL(resolve(dir, 'index.js')).href);

const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, title: `row ${i}`, score: i / 4, tags: ['a', 'b'] }));
const INPUTS = {
  'python call': 'I will look that up. search(query="rust async", limit=5)',
  'hermes x2': '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool_call>\n'
    + '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo", "unit": "celsius"}}\n</tool_call>',
  'openai message': JSON.stringify({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'create_ticket', arguments: JSON.stringify({ title: 'Login returns 500', priority: 'high', labels: ['bug', 'auth'] }) } }],
  }),
  'xml invoke': '<function_calls>\n<invoke name="search_docs">\n<parameter name="query">tokio select</parameter>\n<parameter name="max_results">3</parameter>\n</invoke>\n</function_calls>',
  'broken (error)': '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>',
  'no call (2 KB prose)': 'The weather in Paris is mild (around 15 °C) with {light} rain. '.repeat(32),
  '50-row arguments': `<tool_call>${JSON.stringify({ name: 'bulk', arguments: { rows } })}</tool_call>`,
};

console.log(`beacon-toolcall from ${dir}, Node ${process.version}`);
for (const [name, text] of Object.entries(INPUTS)) {
  const once = () => {
    try {
      parseToolCalls(text, { includeFormat: true });
    } catch (e) {
      if (!(e instanceof ToolCallError)) throw e;
    }
  };
  for (let i = 0; i < 5000; i++) once();
  let best = Infinity;
  for (let b = 0; b < 30; b++) {
    const t = performance.now();
    for (let i = 0; i < 1000; i++) once();
    best = Math.min(best, performance.now() - t);
  }
  console.log(`${name.padEnd(22)} ${String(text.length).padStart(6)} chars  ${(best).toFixed(2).padStart(7)} µs/call`);
}
