// The WASM half of bench/run.py: reads [{format, size, text}] as JSON on stdin, times
// parseToolCalls from the built npm package (build/pkg-web, or BEACON_WASM_PKG) on each with the
// same method as the Python side (a warm-up that lets V8 tier the module up, then calibrate, then
// best of 5 repeats of BENCH_BUDGET/5 seconds; bench/run.py passes its budget), and prints
// [{format, size, seconds}] as JSON.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const dir = resolve(process.env.BEACON_WASM_PKG ?? resolve(root, 'build/pkg-web'));
const { parseToolCalls } = await import(pathToFileURL(resolve(dir, 'index.js')).href);
const budget = Number(process.env.BENCH_BUDGET ?? 0.4);

function perCall(text) {
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  // Warm-up: let V8 optimise the wasm (3000 calls, or `budget` seconds if that comes first).
  const warmEnd = now() + budget;
  for (let i = 0; i < 3000 && now() < warmEnd; i++) parseToolCalls(text);
  let n = 1;
  let t = 0;
  for (;;) {
    const start = now();
    for (let i = 0; i < n; i++) parseToolCalls(text);
    t = now() - start;
    if (t > budget / 25 || n >= 1 << 22) break;
    n *= 4;
  }
  const reps = Math.max(1, Math.floor((n * (budget / 5)) / Math.max(t, 1e-9)));
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const start = now();
    for (let i = 0; i < reps; i++) parseToolCalls(text);
    best = Math.min(best, (now() - start) / reps);
  }
  return best;
}

const cases = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify(cases.map(({ format, size, text }) => ({ format, size, seconds: perCall(text) }))));
