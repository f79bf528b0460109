// beacon-toolcall: the tool-call parser for LLM output, compiled from beacon's Rust core to
// WebAssembly. Works in Node >= 20 and in browsers (a plain <script type="module">, no bundler).
//
// This file is the whole public API. The wasm-bindgen module (`beacon_wasm.js`) is private: its
// exports answer with tagged JSON strings (see bindings-wasm/src/lib.rs).

import init, {
  initSync,
  __wbg_reset_state as resetInstance,
  detect_provider as wasmDetectProvider,
  format_results as wasmFormatResults,
  has_tool_calls as wasmHasToolCalls,
  panic_for_testing as wasmPanicForTesting,
  parse,
  parse_response as wasmParseResponse,
  scan_stream as wasmScanStream,
  providers as wasmProviders,
} from './beacon_wasm.js';

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
  constructor(message, { code, position, line, column, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
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

// A trap in the module (a panic, i.e. a bug in beacon) is reported as the documented `internal`
// error, and the instance is replaced by a fresh one (same compiled module, new memory): the
// trapped call may have stopped halfway through the allocator or a borrow, so no later call may
// run on it. Any other exception passes through unchanged.
let trappedInstance = false; // a trap whose instance could not be replaced yet

function replaceInstance() {
  try {
    resetInstance();
    trappedInstance = false;
  } catch {
    trappedInstance = true; // e.g. out of memory: every call retries before it runs
  }
}

function internalError(message, cause) {
  return new ToolCallError(`internal error in beacon: ${message}`, {
    code: 'internal', position: 0, line: 1, column: 1, cause,
  });
}

function trapped(e) {
  if (!(e instanceof WebAssembly.RuntimeError)) return e;
  replaceInstance();
  return internalError(e.message, e);
}

// Before a call: never run on an instance that trapped.
function checkInstance() {
  if (trappedInstance) {
    replaceInstance();
    if (trappedInstance) throw internalError('its WebAssembly instance trapped and could not be replaced');
  }
}

// The module's answer (see bindings-wasm/src/lib.rs) as a value, or its error thrown.
function decode(answer) {
  const tag = answer.charCodeAt(0);
  if (tag === 111 /* o */) return JSON.parse(answer.slice(1));
  if (tag === 98 /* b */) return JSON.parse(answer.slice(1), revive);
  const err = JSON.parse(answer.slice(1));
  const Class = err.code === 'tool_call.not_found' ? NoToolCallFoundError : ToolCallError;
  throw new Class(
    `${err.code} at line ${err.line}, column ${err.column}: ${err.message}`, err,
  );
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function run(text, all, includeFormat) {
  if (typeof text !== 'string') {
    throw new TypeError(`text must be a string, not ${text === null ? 'null' : typeof text}`);
  }
  checkInstance();
  let answer;
  try {
    answer = parse(text, all, includeFormat);
  } catch (e) {
    throw trapped(e);
  }
  return decode(answer);
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

/**
 * Whether streamed model output may be shown yet. Call it with the text received so far:
 * `state` is `'none'` when no tagged call has started (show it all; `position` is its length),
 * `'partial'` when a tagged call has started and is incomplete, or the text ends with what may
 * begin a marker (show `text.slice(0, position)`, hold the rest), and `'found'` when a complete
 * tagged call is there, or a broken one (show `text.slice(0, position)`; parse the whole message
 * when it ends). `position` is a UTF-16 index.
 */
export function scanStream(text) {
  if (typeof text !== 'string') {
    throw new TypeError(`text must be a string, not ${text === null ? 'null' : typeof text}`);
  }
  return runResponse(wasmScanStream, text);
}

// ------------------------------------------------------------------------------------------
// Provider responses

/** Every provider id, in the core's order. */
export const PROVIDERS = Object.freeze(wasmProviders().split(','));

function providerArg(fn, provider, autoOk) {
  if (typeof provider !== 'string') {
    throw new TypeError(`${fn}(): provider must be a string, not ${describe(provider)}`);
  }
  if ((autoOk && provider === 'auto') || PROVIDERS.includes(provider)) return provider;
  const ids = PROVIDERS.map((p) => `'${p}'`).join(', ');
  throw new RangeError(
    `${fn}(): provider must be ${autoOk ? "'auto' or " : ''}one of ${ids}, not ${JSON.stringify(provider)}`,
  );
}

// Values go to the core as JSON text. JSON.stringify cannot write a BigInt: it is written as its
// digits, through JSON.rawJSON where the engine has it (Node >= 21, Chrome >= 114), else as a
// marked string that is then replaced by the digits (the mark has a random part, so no string
// of the caller's can look like one).
const HAS_RAW_JSON = typeof JSON.rawJSON === 'function';
const BIGINT_NONCE = Array.from(
  globalThis.crypto?.getRandomValues?.(new Uint32Array(2)) ?? [Math.random() * 2 ** 32, Date.now()],
  (n) => (n >>> 0).toString(36),
).join('');
const BIGINT_MARK = `\u0000beacon-bigint-${BIGINT_NONCE}:`;
const BIGINT_MARKED = new RegExp(`"\\\\u0000beacon-bigint-${BIGINT_NONCE}:(-?\\d+)"`, 'g');

function bigintReplacer(_key, value) {
  if (typeof value !== 'bigint') return value;
  return HAS_RAW_JSON ? JSON.rawJSON(value.toString()) : BIGINT_MARK + value.toString();
}

// `value` as compact JSON text, exactly as JSON.stringify writes it, BigInts as their digits.
function toJson(value) {
  let text;
  try {
    text = JSON.stringify(value); // the common case: no BigInt, no replacer to call per value
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    text = JSON.stringify(value, bigintReplacer); // still throws for a cycle
    if (!HAS_RAW_JSON) text = text?.replace(BIGINT_MARKED, '$1');
  }
  return text;
}

// The response as text: a string is JSON text (or plain text) as given; any other value is a
// decoded JSON value, read as its JSON.stringify text (so error positions refer to that text).
function responseText(fn, response) {
  if (typeof response === 'string') return response;
  if (response instanceof ArrayBuffer || ArrayBuffer.isView(response)) {
    throw new TypeError(
      `${fn}(): response must be a string of JSON or a decoded JSON value, not bytes; `
      + 'decode them first (new TextDecoder().decode(bytes))',
    );
  }
  const text = typeof response === 'function' || typeof response === 'symbol' ? undefined : toJson(response);
  if (text === undefined) {
    throw new TypeError(
      `${fn}(): response must be a string of JSON or a decoded JSON value (object, array, number, `
      + `boolean or null), not ${describe(response)}`,
    );
  }
  return text;
}

// Calls a module export with `args` and decodes its answer.
function runResponse(wasmFunction, ...args) {
  checkInstance();
  let answer;
  try {
    answer = wasmFunction(...args);
  } catch (e) {
    throw trapped(e);
  }
  return decode(answer);
}

/**
 * The tool calls in a model API's response, in response order, as `[{id, name, arguments}]`
 * (`id` null when the provider gave none). `provider: 'auto'` detects the API; a provider id
 * reads that API's paths only. No calls (or plain text, or JSON of no known API) is `[]`.
 * With `textFallback: true`, a response without structured calls has its assistant text read
 * like `parseToolCalls` (those calls have `id` null).
 */
export function parseResponse(response, { provider = 'auto', textFallback = false } = {}) {
  const id = providerArg('parseResponse', provider, true);
  const text = responseText('parseResponse', response);
  return runResponse(wasmParseResponse, text, id, Boolean(textFallback));
}

/** Which API `response` came from (one of `PROVIDERS`), or null. */
export function detectProvider(response) {
  const text = responseText('detectProvider', response);
  return runResponse(wasmDetectProvider, text);
}

/** Whether `response` has tool calls: exactly `parseResponse(...).length > 0`, same errors. */
export function hasToolCalls(response, { provider = 'auto', textFallback = false } = {}) {
  const id = providerArg('hasToolCalls', provider, true);
  const text = responseText('hasToolCalls', response);
  return runResponse(wasmHasToolCalls, text, id, Boolean(textFallback));
}

const RESULT_KEYS = 'id, name, content and isError (or is_error)';

// One `results` item, checked and normalised to the module's {id, name, content, is_error}.
function toolResult(result, i) {
  const at = `formatResults(): results[${i}]`;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) {
    throw new TypeError(`${at} must be an object with ${RESULT_KEYS}, not ${describe(result)}`);
  }
  for (const key of Object.keys(result)) {
    if (!['id', 'name', 'content', 'isError', 'is_error'].includes(key)) {
      throw new TypeError(`${at} has an unknown key ${JSON.stringify(key)}; a result has ${RESULT_KEYS}`);
    }
  }
  const { id = null, name = null, content } = result;
  for (const [key, value] of [['id', id], ['name', name]]) {
    if (value !== null && typeof value !== 'string') {
      throw new TypeError(`${at}.${key} must be a string, null or missing, not ${describe(value)}`);
    }
  }
  if (content === undefined) throw new TypeError(`${at} has no content`);
  if (typeof content === 'function' || typeof content === 'symbol') {
    throw new TypeError(`${at}.content must be a string or a JSON value, not ${typeof content}`);
  }
  if (result.isError !== undefined && result.is_error !== undefined) {
    throw new TypeError(`${at} has both isError and is_error; give one`);
  }
  const key = result.is_error !== undefined ? 'is_error' : 'isError';
  const isError = result[key] ?? false;
  if (typeof isError !== 'boolean') {
    throw new TypeError(`${at}.${key} must be a boolean, not ${describe(isError)}`);
  }
  return { id, name, content, is_error: isError };
}

/**
 * The messages (or content blocks, or parts) that carry `results` back to `provider`, in the
 * order given, ready to append to the conversation. Each result is `{id, name, content,
 * isError}`; `content` is a string or any JSON value.
 */
export function formatResults(results, provider) {
  const id = providerArg('formatResults', provider, false);
  if (!Array.isArray(results)) {
    throw new TypeError(`formatResults(): results must be an array of objects, not ${describe(results)}`);
  }
  const json = toJson(Array.from(results, toolResult));
  return runResponse(wasmFormatResults, json, id);
}

/**
 * Not part of the API: makes the WebAssembly module panic, through the same path as the parse
 * functions, so beacon's tests can check the `internal` error and the recovery after it.
 */
export function _panicForTesting() {
  checkInstance();
  try {
    wasmPanicForTesting(true);
  } catch (e) {
    throw trapped(e);
  }
}
