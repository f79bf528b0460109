// beacon-toolcall: the tool-call parser for LLM output, compiled from beacon's Rust core to
// WebAssembly. Works in Node >= 20 and in browsers (a plain <script type="module">, no bundler).
//
// This file is the whole public API. The wasm-bindgen module (`beacon_wasm.js`) is private: it
// exports one function that answers with a tagged JSON string (see bindings-wasm/src/lib.rs).

import init, { initSync, parse } from './beacon_wasm.js';

const wasmUrl = new URL('./beacon_wasm_bg.wasm', import.meta.url);

// Node's fetch() cannot read file: URLs, so Node reads the module from disk; browsers fetch it
// (streaming compilation when the server sends application/wasm).
if (typeof process === 'object' && process !== null && typeof process.versions?.node === 'string'
    && wasmUrl.protocol === 'file:') {
  const { readFileSync } = await import('node:fs');
  initSync({ module: readFileSync(wasmUrl) });
} else {
  await init({ module_or_path: wasmUrl });
}

/** A tool call that is present but broken, or any other parse failure. */
export class ToolCallError extends Error {
  constructor(message, { code, position, line, column } = {}) {
    super(message);
    /** Stable error code such as `json.unexpected_token`. */
    this.code = code;
    /** 0-based offset of the offending character, in UTF-16 code units (string index). */
    this.position = position;
    /** 1-based line (lines end at `\n`). */
    this.line = line;
    /** 1-based column, counted in UTF-16 code units. */
    this.column = column;
  }
}
Object.defineProperty(ToolCallError.prototype, 'name', {
  value: 'ToolCallError', writable: true, configurable: true,
});

/** No tool call in the text (`tool_call.not_found`). */
export class NoToolCallFoundError extends ToolCallError {}
Object.defineProperty(NoToolCallFoundError.prototype, 'name', {
  value: 'NoToolCallFoundError', writable: true, configurable: true,
});

// Undoes the tagging of src/lib.rs: "\0n<digits>" is a BigInt, "\0s<rest>" a string that
// started with U+0000. Only used for answers that contain such values.
function revive(_key, value) {
  if (typeof value === 'string' && value.charCodeAt(0) === 0) {
    return value.charCodeAt(1) === 110 /* n */ ? BigInt(value.slice(2)) : value.slice(2);
  }
  return value;
}

function run(text, all, includeFormat) {
  if (typeof text !== 'string') {
    throw new TypeError(`text must be a string, not ${text === null ? 'null' : typeof text}`);
  }
  let answer;
  try {
    answer = parse(text, all, includeFormat);
  } catch (e) {
    // A trap in the module is a bug in beacon: report it as the documented `internal` error.
    if (e instanceof WebAssembly.RuntimeError) {
      throw new ToolCallError(`internal error in beacon: ${e.message}`, {
        code: 'internal', position: 0, line: 1, column: 1,
      });
    }
    throw e;
  }
  const tag = answer.charCodeAt(0);
  if (tag === 111 /* o */) return JSON.parse(answer.slice(1));
  if (tag === 98 /* b */) return JSON.parse(answer.slice(1), revive);
  const err = JSON.parse(answer.slice(1));
  const Class = err.code === 'tool_call.not_found' ? NoToolCallFoundError : ToolCallError;
  throw new Class(
    `${err.code} at line ${err.line}, column ${err.column}: ${err.message}`, err,
  );
}

/**
 * The one tool call in `text`, as `{name, arguments}`. Throws `ToolCallError` with code
 * `tool_call.multiple` when there are several, and `NoToolCallFoundError` when there is none.
 */
export function parseToolCall(text) {
  return run(text, false, false);
}

/**
 * Every tool call in `text`, in text order, as `[{name, arguments}]` (plus `format` with
 * `{ includeFormat: true }`). Throws `NoToolCallFoundError` when there is none.
 */
export function parseToolCalls(text, { includeFormat = false } = {}) {
  return run(text, true, Boolean(includeFormat));
}
