// beacon-toolcall: the tool-call parser for LLM output, compiled from beacon's Rust core to
// WebAssembly. Works in Node >= 20 and in browsers (a plain <script type="module">, no bundler).
//
// This file is the whole public API. The wasm-bindgen module (`beacon_wasm.js`) is private: its
// exports answer with tagged JSON strings (see bindings-wasm/src/lib.rs), and the core behind
// them reads every option and writes every answer and every error. What is left here is what
// only JavaScript can do: check argument types, turn decoded values into JSON text (BigInts,
// cycles), turn BigInts back, throw Error classes, and recover from traps.

import wasmInit, {
  initSync as wasmInitSync,
  __wbg_reset_state as resetInstance,
  compile_tools as wasmCompileTools,
  error_codes as wasmErrorCodes,
  free_stream as wasmFreeStream,
  free_tools as wasmFreeTools,
  format_calls as wasmFormatCalls,
  format_results as wasmFormatResults,
  formats as wasmFormats,
  lone_surrogate as wasmLoneSurrogate,
  memory_bytes as wasmMemoryBytes,
  non_finite_number as wasmNonFiniteNumber,
  out_of_memory as wasmOutOfMemory,
  panic_for_testing as wasmPanicForTesting,
  parse_message as wasmParseMessage,
  parse_tool_calls as wasmParseToolCalls,
  providers as wasmProviders,
  read_response as wasmReadResponse,
  read_response_bytes as wasmReadResponseBytes,
  response_stream as wasmResponseStream,
  scan_stream as wasmScanStream,
  set_memory_limit_for_testing as wasmSetMemoryLimitForTesting,
  stream_feed as wasmStreamFeed,
  stream_feed_event as wasmStreamFeedEvent,
  stream_finish as wasmStreamFinish,
  stream_lone_surrogate as wasmStreamLoneSurrogate,
  tool_call_stream as wasmToolCallStream,
  trap_error as wasmTrapError,
} from './beacon_wasm.js';
import templateInit, {
  initSync as templateInitSync,
  __wbg_reset_state as resetTemplateInstance,
  infer_format as wasmInferFormat,
} from './beacon_template.js';

// Loading the module: init() (asynchronous: fetches it, or takes a URL, a Response, bytes or a
// compiled module) or initSync() (bytes or a compiled module). Every entry but one calls one of
// them itself as it is imported; `beacon-toolcall/init` (init.js) waits for the caller, so it has
// no top-level await (a CommonJS or classic-script bundle, as a Web Worker may need, cannot hold
// one). Once the module is loaded both do nothing, so calling them is always safe.
let loaded = false;
let loading = null; // init()'s promise while it runs

/**
 * Loads the WebAssembly module. `source` (or `source.module_or_path`): a URL to fetch, a fetch
 * `Response`, the module's bytes or a compiled `WebAssembly.Module`; by default the .wasm file
 * next to this one.
 */
export function init(source) {
  if (loaded) return Promise.resolve();
  if (!loading) {
    loading = (async () => {
      const given = await (source !== null && typeof source === 'object' && 'module_or_path' in source
        ? source.module_or_path : source);
      await wasmInit({ module_or_path: given === undefined ? await besideThisFile() : given });
      loaded = true;
    })();
    loading.catch(() => { loading = null; }); // a failed load may be retried
  }
  return loading;
}

/** Loads the WebAssembly module synchronously, from its bytes or a compiled `WebAssembly.Module`
 * (`source` or `source.module`). */
export function initSync(source) {
  if (loaded) return;
  const module = source !== null && typeof source === 'object' && 'module' in source ? source.module : source;
  if (module === undefined) {
    throw new TypeError('initSync(): pass the module, as bytes or a WebAssembly.Module: initSync({ module })');
  }
  wasmInitSync({ module });
  loaded = true;
}

function notLoaded() {
  return new Error('beacon-toolcall: the WebAssembly module is not loaded yet: `await init()` (or call '
    + '`initSync({ module })`) before the first call; only the beacon-toolcall/init entry waits for that');
}

// bindings-wasm/build.sh makes the package's other entries from this file by replacing the block
// between the two `load` lines (bindings-wasm/js/entries.mjs); each defines besideThisFile() and
// templateBesideThisFile(), the modules that init() and initTemplates() load by default, and
// templateModuleSync(), the template module's bytes where a synchronous read can get them. browser.js fetches them; index.cjs
// (Node's `require` and, through node.mjs, `import`) reads the files synchronously; init.js
// (beacon-toolcall/init) only defines them. This file itself (the `default` entry, e.g. a plain
// <script type="module">) does either. The module name is not a literal, so bundlers leave the
// Node branch alone.
// load: begin
// Node's fetch() cannot read file: URLs, so Node reads the modules from disk (the template module
// synchronously, on first use); browsers fetch them (streaming compilation when the server sends
// application/wasm), the template module with initTemplates().
const wasmUrl = new URL('./beacon_wasm_bg.wasm', import.meta.url);
const templateUrl = new URL('./beacon_template_bg.wasm', import.meta.url);
const nodeFs = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string'
  && wasmUrl.protocol === 'file:' ? await import(/* webpackIgnore: true */ /* @vite-ignore */ `node:${'fs'}`) : null;
function besideThisFile() {
  return nodeFs ? nodeFs.readFileSync(wasmUrl) : wasmUrl;
}
function templateBesideThisFile() {
  return nodeFs ? nodeFs.readFileSync(templateUrl) : templateUrl;
}
function templateModuleSync() {
  return nodeFs?.readFileSync(templateUrl);
}
await init();
// load: end

/** Every error code, in the core's order (`tool_call.*`, `json.*`, then the rest). */
export const ERROR_CODES = Object.freeze(wasmErrorCodes().split(','));

/** A tool call that is present but broken, or any other parse failure. */
export class ToolCallError extends Error {
  constructor(message, { code, position, line, column, path, truncated = false, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    /** Stable error code such as `json.unexpected_token`. */
    this.code = code;
    /** 0-based offset of the offending character, in UTF-16 code units (string index). */
    this.position = position;
    /** 1-based line (lines end at `\n`). */
    this.line = line;
    /** 1-based column, counted in UTF-16 code units. */
    this.column = column;
    /**
     * For `tool_call.schema` (with the `tools` option): the JSON pointer of the offending value in
     * the call's arguments (`''` for the arguments themselves); undefined for every other error.
     */
    this.path = path;
    /**
     * Whether the text ended inside the call (the error stands at the end of the text): a cut-off
     * output, which `repair: true` never mends.
     */
    this.truncated = truncated;
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

// Undoes the tagging of src/lib.rs: "\0n<digits>" is a BigInt (its digits with the option
// `bigints: 'string'`), "\0s<rest>" a string that started with U+0000. Only used for answers
// that contain such values.
function revive(_key, value) {
  if (typeof value === 'string' && value.charCodeAt(0) === 0) {
    return value.charCodeAt(1) === 110 /* n */ ? BigInt(value.slice(2)) : value.slice(2);
  }
  return value;
}

function reviveToString(_key, value) {
  return typeof value === 'string' && value.charCodeAt(0) === 0 ? value.slice(2) : value;
}

// The module's answer (see bindings-wasm/src/lib.rs) as a value, or its error thrown.
function decode(answer, cause, bigints = 'bigint') {
  const tag = answer.charCodeAt(0);
  if (tag === 116 /* t */) throw new TypeError(answer.slice(1));
  if (tag === 114 /* r */) throw new RangeError(answer.slice(1));
  let value;
  try {
    value = JSON.parse(answer.slice(1), tag !== 98 /* b */ ? undefined : bigints === 'string' ? reviveToString : revive);
  } catch (e) {
    throw e instanceof RangeError ? trapped(e) : e; // a string longer than the engine allows
  }
  if (tag !== 101 /* e */) return value;
  const Class = value.code === 'tool_call.not_found' ? NoToolCallFoundError : ToolCallError;
  throw new Class(value.message, { ...value, cause });
}

// A trap in the module is reported as a ToolCallError, and the instance is replaced by a fresh
// one (same compiled module, new memory): the trapped call may have stopped halfway through the
// allocator or a borrow, so no later call may run on it. A trap after an allocation failed (the
// module records it: src/lib.rs, "Memory") is `input.too_large`; any other trap is a panic, a bug
// in beacon: `internal`. A RangeError while the answer crosses into JavaScript (a string longer
// than the engine allows) is `input.too_large` too. Any other exception passes through unchanged.
let trappedInstance = false; // a trap whose instance could not be replaced yet
let instanceGeneration = 0; // counts instances: a Tools or stream handle belongs to one
let openStreams = 0; // streams on the current instance that have not finished or failed

function replaceInstance() {
  try {
    instanceGeneration++; // the old instance's handles are gone even if the reset fails
    openStreams = 0;
    resetInstance();
    trappedInstance = false;
  } catch {
    trappedInstance = true; // e.g. out of memory: every call retries before it runs
  }
}

// The one error built here rather than by the module: there is no instance to build it.
function noInstanceError() {
  return new ToolCallError(
    'internal at line 1, column 1: its WebAssembly instance trapped and could not be replaced',
    { code: 'internal', position: 0, line: 1, column: 1 },
  );
}

// The error for a trap (or a RangeError) `e`, from the fresh instance.
function trapped(e) {
  const tooLarge = e instanceof RangeError;
  if (!tooLarge && !(e instanceof WebAssembly.RuntimeError)) return e;
  let outOfMemory = tooLarge;
  if (!tooLarge) {
    try {
      outOfMemory = wasmOutOfMemory(); // reads one flag of the trapped instance, before it goes
    } catch {
      // leave it an internal error
    }
    replaceInstance();
  }
  if (trappedInstance) return noInstanceError();
  try {
    decode(wasmTrapError(outOfMemory, e.message), e);
  } catch (err) {
    return err;
  }
  return e;
}

// WebAssembly memory grows with the input and never shrinks. After an input large enough to have
// grown it past RECYCLE_ABOVE bytes, the instance is replaced by a fresh one (a few milliseconds),
// so the engine gets that memory back. Inputs under CHECK_FROM UTF-16 units cannot grow it that far.
const RECYCLE_ABOVE = 64 * 1024 * 1024;
const CHECK_FROM = 1 << 16;

// Never while a stream is open: its state lives in the instance.
function recycleAfter(inputLength) {
  if (inputLength >= CHECK_FROM && openStreams === 0 && !trappedInstance && wasmMemoryBytes() > RECYCLE_ABOVE) {
    replaceInstance();
  }
}

// Before a call: never run on an instance that trapped (or on none).
function checkInstance() {
  if (!loaded) throw notLoaded();
  if (trappedInstance) {
    replaceInstance();
    if (trappedInstance) throw noInstanceError();
  }
}

// Calls a module export with `args` (the first is the input, `inputLength` long) and decodes
// its answer.
function callModule(inputLength, wasmFunction, ...args) {
  return callModuleBigints('bigint', inputLength, wasmFunction, ...args);
}

// callModule, with big integers in the answer as `bigints` says ('bigint' or 'string').
function callModuleBigints(bigints, inputLength, wasmFunction, ...args) {
  checkInstance();
  let answer;
  try {
    answer = wasmFunction(...args);
  } catch (e) {
    throw trapped(e);
  }
  recycleAfter(inputLength);
  return decode(answer, undefined, bigints);
}

// The error a module export answers with, to throw.
function moduleError(wasmFunction, ...args) {
  try {
    callModule(0, wasmFunction, ...args);
  } catch (e) {
    return e;
  }
  return new TypeError('expected an error');
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

// `text` as given when it is a string of Unicode text. A lone surrogate (half of a UTF-16 pair)
// has no UTF-8 form (crossing into WebAssembly would turn it into U+FFFD): json.invalid_unicode
// at its index.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// The index of the first lone surrogate in `text`, or -1.
function loneSurrogateAt(text) {
  if (typeof text.isWellFormed === 'function' ? text.isWellFormed() : !LONE_SURROGATE.test(text)) return -1;
  return LONE_SURROGATE.exec(text).index;
}

function unicodeText(text) {
  const at = loneSurrogateAt(text);
  if (at < 0) return text;
  throw moduleError(wasmLoneSurrogate, text.slice(0, at), text.charCodeAt(at), at);
}

function textArg(fn, text) {
  if (typeof text !== 'string') {
    throw new TypeError(`${fn}(): text must be a string, not ${describe(text)}`);
  }
  return unicodeText(text);
}

// Options. Each function names the options it takes; any other name (a Python-style
// `include_format`, a misspelling) or a value of the wrong type is a TypeError naming them, so a
// mistake is never silently ignored. An option given as undefined is left at its default.
const OPTION = {
  formats: ['an array (or other iterable) of format ids',
    (v) => v !== null && typeof v === 'object' && typeof v[Symbol.iterator] === 'function'],
  includeFormat: ['a boolean', (v) => typeof v === 'boolean'],
  textFallback: ['a boolean', (v) => typeof v === 'boolean'],
  bigints: ["'bigint' or 'string'", (v) => v === 'bigint' || v === 'string'],
  ids: ["'generate' (or undefined: keep the ids the text has)", (v) => v === null || typeof v === 'string'],
  idSeed: ['a string (the seed of deterministic ids)', (v) => v === null || typeof v === 'string'],
  provider: ['a provider id (string)', (v) => typeof v === 'string'],
  content: ['a string', (v) => v === null || typeof v === 'string'],
  tools: ['a Tools or an array of tool definitions', (v) => v === null || v instanceof Tools || Array.isArray(v)],
  validate: ['a boolean', (v) => typeof v === 'boolean'],
  repair: ['a boolean', (v) => typeof v === 'boolean'],
  unknown: ["'error', 'keep' or 'drop'", (v) => v === null || typeof v === 'string'],
  start: ["'detect', 'content' or 'reasoning'", (v) => v === null || typeof v === 'string'],
  template: ['a FormatSpec (or the object its describe() gives), a chat template or a tokenizer_config.json',
    (v) => v === null || typeof v === 'string' || (typeof v === 'object' && !Array.isArray(v))],
  bosToken: ['a string', (v) => typeof v === 'string'],
  eosToken: ['a string', (v) => typeof v === 'string'],
  specialTokens: ['an array (or other iterable) of strings',
    (v) => v !== null && typeof v === 'object' && typeof v[Symbol.iterator] === 'function'],
};

// The options every parse function takes with tools.
const TOOL_OPTIONS = ['tools', 'validate', 'unknown'];

const camelCase = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// `options` (undefined: {}) checked against the option names `names`.
function optionsArg(fn, options, names) {
  const list = names.join(', ');
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${fn}(): options must be an object with any of ${list}, not ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!names.includes(key)) {
      const hint = names.includes(camelCase(key)) ? ` (did you mean ${camelCase(key)}?)` : '';
      throw new TypeError(`${fn}(): unknown option ${JSON.stringify(key)}${hint}; the options are ${list}`);
    }
    const value = options[key];
    const [expected, valid] = OPTION[key];
    if (value !== undefined && !valid(value)) {
      const got = typeof value === 'string' ? JSON.stringify(value) : describe(value);
      throw new TypeError(`${fn}(): option ${key} must be ${expected}, not ${got} (the options are ${list})`);
    }
  }
  return options;
}

/** Every format id: the tagged (tier 1) formats, then `json` (tier 2) and `python` (tier 3). */
export const FORMATS = Object.freeze(wasmFormats().split(','));

// The `formats` option as the module takes it: undefined for every format, else the JSON array
// of the ids (the module checks them).
function formatsArg(fn, formats) {
  if (formats === undefined) return undefined;
  if (typeof formats === 'string' || formats === null || typeof formats[Symbol.iterator] !== 'function') {
    throw new TypeError(`${fn}(): formats must be an array (or other iterable) of format ids, not ${describe(formats)}`);
  }
  const ids = [...formats];
  for (const id of ids) {
    if (typeof id !== 'string') throw new TypeError(`${fn}(): formats must hold format ids (strings), not ${describe(id)}`);
  }
  return JSON.stringify(ids);
}

/**
 * A tool-call format as data (docs/templates.md): what `FormatSpec.describe()` gives in Python
 * (`beacon template FILE` prints it), saved, edited or written by hand. Pass it as the `template`
 * option of every parse function: its format is read besides the built-in ones (only it with
 * `formats: []`), and its calls have the format id `'spec'`. `FormatSpec.fromTemplate` infers
 * one from a model's chat template, in a second WebAssembly module (the template renderer would
 * double the size of the first): Node loads it on first use, a browser with `initTemplates()`.
 */
export class FormatSpec {
  #json;
  #described;

  /** Use `FormatSpec.fromDict`. */
  constructor(described, json) {
    this.#described = described;
    this.#json = json;
  }

  /**
   * The spec `described`. Throws `TypeError` when it is not one (the message names the code:
   * `result.missing_field`, `result.unsupported`).
   */
  static fromDict(described) {
    if (described === null || typeof described !== 'object' || Array.isArray(described)) {
      throw new TypeError(`FormatSpec.fromDict(): takes an object, not ${describe(described)}`);
    }
    const json = JSON.stringify(described);
    const spec = new FormatSpec(JSON.parse(json), json);
    parseMessage('', { formats: [], template: spec }); // compiles it once, or throws
    return spec;
  }

  /**
   * The format `template` writes, inferred by rendering it (docs/templates.md); the same
   * template (and options) is inferred once, then cached. `template`: the Jinja text, or a
   * `tokenizer_config.json` (its text, or the object it decodes to: its `chat_template`, a string
   * or a list of named templates of which `tool_use` is taken, its `bos_token`, `eos_token` and
   * added tokens). `bosToken`, `eosToken` replace the config's; `specialTokens` (text the
   * tokenizer keeps as one token) add to its added tokens. Throws `ToolCallError`
   * `template.render` (the message names the template's line), `template.no_tool_calls`,
   * `template.ambiguous` or `template.limit`; `TypeError` for an argument of the wrong type, or
   * (in a browser) when `initTemplates()` has not loaded the inference module yet.
   */
  static fromTemplate(template, options) {
    const fn = 'FormatSpec.fromTemplate';
    const o = optionsArg(fn, options, ['bosToken', 'eosToken', 'specialTokens']);
    let text;
    if (typeof template === 'string') {
      text = textArg(fn, template);
    } else if (template !== null && typeof template === 'object' && !Array.isArray(template)) {
      text = toJson(fn, template, 'template', false);
    } else {
      throw new TypeError(`${fn}(): template must be a string (the template, or a tokenizer_config.json's text) `
        + `or an object (a tokenizer_config.json decoded), not ${describe(template)}`);
    }
    let special;
    if (o.specialTokens !== undefined) {
      const tokens = [...o.specialTokens];
      if (!tokens.every((t) => typeof t === 'string')) {
        throw new TypeError(`${fn}(): option specialTokens must hold strings only`);
      }
      special = JSON.stringify(tokens);
    }
    const key = JSON.stringify([text, o.bosToken ?? null, o.eosToken ?? null, special ?? null]);
    let spec = inferredSpecs.get(key);
    if (spec === undefined) {
      const json = callTemplateModule(text, o.bosToken, o.eosToken, special);
      spec = new FormatSpec(JSON.parse(json), json);
      if (inferredSpecs.size >= INFERRED_SPECS) inferredSpecs.delete(inferredSpecs.keys().next().value);
    } else {
      inferredSpecs.delete(key); // most recent last
    }
    inferredSpecs.set(key, spec);
    return spec;
  }

  /** The spec as a plain object (a copy). */
  describe() {
    return JSON.parse(this.#json);
  }

  /** The spec's JSON text, as the module takes it. */
  get _json() {
    return this.#json;
  }
}

// The `formats` and `template` options as the module takes them: undefined for every format,
// the JSON array of ids, or with a template `{"formats": ids or null, "spec": described}`.
function formatSetArg(fn, o) {
  const f = formatsArg(fn, o.formats);
  if (o.template === undefined || o.template === null) return f;
  return `{"formats":${f ?? 'null'},"spec":${templateArg(o.template)._json}}`;
}

// The `template` option as a FormatSpec: one, a chat template (its text, or a
// tokenizer_config.json with `chat_template`: inferred once and cached), or a spec described.
function templateArg(template) {
  if (template instanceof FormatSpec) return template;
  if (typeof template === 'string' || (template !== null && typeof template === 'object' && 'chat_template' in template)) {
    return FormatSpec.fromTemplate(template);
  }
  return { _json: JSON.stringify(template) };
}

// ------------------------------------------------------------------------------------------
// Template inference: the second module (src: bindings-wasm/template), loaded on first use.

const INFERRED_SPECS = 64; // the cache of FormatSpec.fromTemplate, most recent last
const inferredSpecs = new Map();
let templatesLoaded = false;
let templatesLoading = null;

/**
 * Loads the template-inference module that `FormatSpec.fromTemplate` needs (Node loads it by
 * itself; a browser must call this first). `source` (or `source.module_or_path`): as for
 * `init()`; by default the beacon_template_bg.wasm file next to this one.
 */
export function initTemplates(source) {
  if (templatesLoaded) return Promise.resolve();
  if (!templatesLoading) {
    templatesLoading = (async () => {
      const given = await (source !== null && typeof source === 'object' && 'module_or_path' in source
        ? source.module_or_path : source);
      await templateInit({ module_or_path: given === undefined ? await templateBesideThisFile() : given });
      templatesLoaded = true;
    })();
    templatesLoading.catch(() => { templatesLoading = null; });
  }
  return templatesLoading;
}

// infer_format, loading the module first where that can be done synchronously (Node); a trap
// (a bug in beacon) is `internal`, and the next call runs on a fresh instance.
function callTemplateModule(...args) {
  if (!templatesLoaded) {
    const bytes = templateModuleSync();
    if (bytes === undefined) {
      throw new TypeError('FormatSpec.fromTemplate(): the template-inference module is not loaded: '
        + '`await initTemplates()` once before (a browser loads it on request; Node by itself)');
    }
    templateInitSync({ module: bytes });
    templatesLoaded = true;
  }
  checkInstance(); // the main module builds the errors
  let answer;
  try {
    answer = wasmInferFormat(...args);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    try {
      resetTemplateInstance();
    } catch {
      templatesLoaded = false;
    }
    return decode(wasmTrapError(false, e.message), e);
  }
  if (answer.charCodeAt(0) !== 111 /* o */) decode(answer);
  return answer.slice(1);
}

// ------------------------------------------------------------------------------------------
// Tools

// Frees a collected Tools' compiled list, when it is still on the instance that compiled it.
const toolsCleanup = new FinalizationRegistry((state) => {
  if (state.generation === instanceGeneration && state.handle !== undefined && !trappedInstance) {
    try {
      wasmFreeTools(state.handle);
    } catch {
      // a trap while freeing: the next call replaces the instance
    }
  }
});

/**
 * A tool list, read once and reused: pass it as the `tools` option of `parseToolCall`,
 * `parseToolCalls` and `parseMessage` (a plain array works too, but is read on every call).
 * Each definition is, in any mix: a bare name, or an OpenAI Chat, OpenAI Responses, Anthropic,
 * Gemini or MCP tool definition. A malformed one is a `TypeError` (a value of the wrong type) or
 * a `RangeError` (no name, two tools with one name, a schema beacon cannot use), naming the
 * entry (`tools[1].function.name`).
 */
export class Tools {
  #json;
  #state;
  #names;

  constructor(definitions) {
    if (!Array.isArray(definitions)) {
      throw new TypeError(`Tools(): definitions must be an array of tool definitions, not ${describe(definitions)}`);
    }
    this.#json = toJson('Tools', definitions, 'tools', false);
    this.#state = { handle: undefined, generation: -1 };
    this._handle(); // compile now, so a bad definition throws here
    toolsCleanup.register(this, this.#state, this);
  }

  /** The tool names, in the order given. */
  get names() {
    return this.#names;
  }

  /** Not part of the API: the handle of the compiled list on the current instance. */
  _handle() {
    const state = this.#state;
    if (state.generation !== instanceGeneration || state.handle === undefined) {
      const { handle, names } = callModule(this.#json.length, wasmCompileTools, this.#json);
      state.handle = handle;
      state.generation = instanceGeneration;
      this.#names ??= Object.freeze(names);
    }
    return state.handle;
  }

  /** Not part of the API: frees the compiled list now (a list compiled for one call). */
  _free() {
    const state = this.#state;
    toolsCleanup.unregister(this);
    if (state.generation === instanceGeneration && state.handle !== undefined && !trappedInstance) {
      wasmFreeTools(state.handle);
    }
    state.handle = undefined;
  }
}

/** `new Tools(definitions)`. */
export function compileTools(definitions) {
  return new Tools(definitions);
}

// Calls `run` with the tools options as the module takes them (a handle or undefined, validate,
// unknown). A plain array is compiled for this call only, and freed after it.
function withTools(fn, { tools, validate = true, unknown }, run) {
  if (unknown !== undefined && unknown !== null && typeof unknown !== 'string') {
    throw new TypeError(`${fn}(): unknown must be 'error', 'keep' or 'drop', not ${describe(unknown)}`);
  }
  const u = unknown ?? undefined;
  if (tools === undefined || tools === null) return run(undefined, Boolean(validate), u);
  if (tools instanceof Tools) return run(tools._handle(), Boolean(validate), u);
  if (!Array.isArray(tools)) {
    throw new TypeError(`${fn}(): tools must be a Tools or an array of tool definitions, not ${describe(tools)}`);
  }
  const once = new Tools(tools);
  try {
    return run(once._handle(), Boolean(validate), u);
  } finally {
    once._free();
  }
}

/**
 * The one tool call in `text`, as `{name, arguments}`. Throws `ToolCallError` with code
 * `tool_call.multiple` when there are several, and `NoToolCallFoundError` when there is none.
 * `tools`, `validate`, `unknown`: see `parseToolCalls`.
 */
export function parseToolCall(text, options) {
  const fn = 'parseToolCall';
  const t = textArg(fn, text);
  const o = optionsArg(fn, options, ['formats', 'template', 'bigints', 'repair', ...TOOL_OPTIONS]);
  const f = formatSetArg(fn, o);
  const r = o.repair ?? false;
  return withTools(fn, o, (...x) => callModuleBigints(o.bigints, t.length, wasmParseToolCalls, t, false, false, f, ...x, r));
}

/**
 * Every tool call in `text`, in text order, as `[{name, arguments}]` (plus `format` with
 * `{ includeFormat: true }`). Throws `NoToolCallFoundError` when there is none.
 *
 * `tools` (a `Tools`, or an array of definitions, read on every call) names, types and validates
 * the calls (README: "Tools and schemas"): a tagged call to a tool not in the list throws
 * `tool_call.unknown_tool` (`unknown: 'keep'` returns it, `unknown: 'drop'` leaves it out), a
 * JSON or call-syntax candidate with an unknown name is prose; arguments that break the schema
 * throw `tool_call.schema` with `error.path` (`validate: false`: naming and typing only).
 *
 * `repair: true` mends a fixed list of model mistakes (docs/repair.md) and reports each: a
 * repaired call has `repairs`, `[{code, message, position, line, column, call_index}]`. A call cut
 * off by the end of the text still throws (`error.truncated`).
 */
export function parseToolCalls(text, options) {
  const fn = 'parseToolCalls';
  const t = textArg(fn, text);
  const o = optionsArg(fn, options, ['includeFormat', 'formats', 'template', 'bigints', 'repair', ...TOOL_OPTIONS]);
  const f = formatSetArg(fn, o);
  const all = o.includeFormat ?? false;
  const r = o.repair ?? false;
  return withTools(fn, o, (...x) => callModuleBigints(o.bigints, t.length, wasmParseToolCalls, t, true, all, f, ...x, r));
}

/**
 * The whole message: `{content, reasoning, tool_calls}` where `content` is the text without the
 * calls, reasoning blocks and end-of-turn tokens, `reasoning` the reasoning text (or null), and
 * `tool_calls` every call as `{id, name, arguments, format, span}` (`span`: `[start, end]`,
 * UTF-16 indices; `id` null when the text wrote none). No call is no error: `tool_calls` is
 * then empty. `ids: 'generate'` gives every call without an id one (`call_` and 24 letters and
 * digits) from a fresh random seed, so ids are unique across outputs; `idSeed: 'request-42'`
 * gives deterministic ones instead (the same seed and text give the same ids, here, in Python and
 * in a `ToolCallStream`). `tools`, `validate`, `unknown`: as for `parseToolCalls`.
 */
export function parseMessage(text, options) {
  const fn = 'parseMessage';
  const t = textArg(fn, text);
  const o = optionsArg(fn, options, ['formats', 'template', 'ids', 'idSeed', 'bigints', 'repair', ...TOOL_OPTIONS]);
  const f = formatSetArg(fn, o);
  const r = o.repair ?? false;
  return withTools(fn, o, (...x) => callModuleBigints(
    o.bigints, t.length, wasmParseMessage, t, f, o.ids ?? undefined, o.idSeed ?? undefined, ...x, r,
  ));
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
  const t = textArg('scanStream', text);
  return callModule(t.length, wasmScanStream, t);
}

// ------------------------------------------------------------------------------------------
// Streams
//
// A stream's state lives in the WebAssembly instance, under a handle (bindings-wasm/src/stream.rs).
// A stream is freed there once it has finished or failed; after a failure every call throws the
// same error again. A trap (in this stream or in any other call) replaces the instance: a stream
// of the old one cannot go on, and throws `internal`. The instance is not recycled for memory
// (recycleAfter) while a stream is open.

// `internal` for a stream that cannot take a call: `why` says what happened to it.
function streamError(fn, why) {
  const message = `${fn}(): ${why}`;
  return new ToolCallError(`internal at line 1, column 1: ${message}`, { code: 'internal', position: 0, line: 1, column: 1 });
}

// Frees a collected stream that was still open, when it is on the current instance.
const streamCleanup = new FinalizationRegistry((state) => {
  if (state.generation !== instanceGeneration) return;
  openStreams--;
  if (trappedInstance) return;
  try {
    wasmFreeStream(state.handle);
  } catch {
    // a trap while freeing: the next call replaces the instance
  }
});

// Makes a stream with `create` (a module export answering its handle) for `owner`; its state.
function openStream(owner, bigints, create) {
  const handle = create();
  const state = { handle, generation: instanceGeneration, bigints, open: true, error: undefined, high: '', fed: 0 };
  openStreams++;
  streamCleanup.register(owner, state, owner);
  return state;
}

// The stream has finished (`error` undefined) or failed: it is freed, and every later call throws.
function closeStream(owner, state, error) {
  state.error = error ?? null;
  if (!state.open) return;
  state.open = false;
  streamCleanup.unregister(owner);
  if (state.generation !== instanceGeneration) return;
  openStreams--;
  if (!trappedInstance) wasmFreeStream(state.handle);
}

// Throws when the stream can take no call.
function checkStream(fn, owner, state) {
  if (state.error) throw state.error;
  if (state.error === null) throw streamError(fn, 'the stream has finished: it takes no more text');
  if (state.generation !== instanceGeneration) {
    const e = streamError(fn, 'the stream was lost: its WebAssembly instance trapped and was replaced; start a new stream');
    closeStream(owner, state, e);
    throw e;
  }
}

// Calls a stream export on the stream's handle (`inputLength`: the text passed); any error fails
// the stream.
function streamCall(fn, owner, state, inputLength, wasmFunction, ...args) {
  checkStream(fn, owner, state);
  try {
    return callModuleBigints(state.bigints, inputLength, wasmFunction, state.handle, ...args);
  } catch (e) {
    closeStream(owner, state, e);
    throw e;
  }
}

// Feeds `text` to the stream. A high surrogate at its end waits for the low one in the next piece
// (a piece may end between the two halves of a pair); a lone surrogate is json.invalid_unicode at
// its index in all the text fed.
function feedText(fn, owner, state, text) {
  checkStream(fn, owner, state);
  let t = state.high + text;
  state.high = '';
  const last = t.charCodeAt(t.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) {
    state.high = t.slice(-1);
    t = t.slice(0, -1);
  }
  const at = loneSurrogateAt(t);
  if (at >= 0) streamCall(fn, owner, state, 0, wasmStreamLoneSurrogate, t.slice(0, at), t.charCodeAt(at), at);
  state.fed += t.length;
  return streamCall(fn, owner, state, t.length, wasmStreamFeed, t);
}

// Ends the stream: the last events.
function finishStream(fn, owner, state) {
  checkStream(fn, owner, state);
  if (state.high) streamCall(fn, owner, state, 0, wasmStreamLoneSurrogate, '', state.high.charCodeAt(0), 0);
  const events = streamCall(fn, owner, state, 0, wasmStreamFinish);
  closeStream(owner, state);
  recycleAfter(state.fed);
  return events;
}

/**
 * Tool calls parsed while the model's output arrives: `feed(delta)` each piece of text, then
 * `finish()`. Each returns the events it decided, in text order: `{type: 'content', text}`,
 * `{type: 'reasoning', text}`, `{type: 'call_start', index, id, name, format}`, `{type:
 * 'arguments', index, delta}` (fragments of the call's arguments as JSON text) and `{type:
 * 'call_end', index, arguments}`. However the text is split, they add up to `parseMessage` of the
 * whole text with the same options; a broken call throws the same `ToolCallError` (positions in
 * UTF-16 units of all the text fed) from `feed` or `finish`, and every later call throws it again.
 *
 * Options: those of `parseMessage` (`formats`, `ids`, `idSeed`, `tools`, `validate`, `unknown`, `bigints`,
 * `repair`: each call then comes whole, a mended call's `call_end` has `repairs`, and a mistake is
 * mended once the text has ended) and `start`: `'detect'` (the default: content and reasoning are told apart from the text, so
 * nothing shows before a reasoning close tag or the end when the text may start in reasoning),
 * `'content'` (the prompt opened no reasoning block) or `'reasoning'` (it opened one).
 */
export class ToolCallStream {
  #state;

  constructor(options) {
    const fn = 'ToolCallStream';
    const o = optionsArg(fn, options, ['formats', 'template', 'ids', 'idSeed', 'start', 'bigints', 'repair', ...TOOL_OPTIONS]);
    const f = formatSetArg(fn, o);
    const r = o.repair ?? false;
    this.#state = openStream(this, o.bigints, () => withTools(fn, o, (...x) => callModule(
      0, wasmToolCallStream, f, o.ids ?? undefined, o.idSeed ?? undefined, o.start ?? undefined, ...x, r,
    )));
  }

  /** Adds `delta` (a string) to the text; the events it decided. */
  feed(delta) {
    if (typeof delta !== 'string') {
      throw new TypeError(`ToolCallStream.feed(): delta must be a string, not ${describe(delta)}`);
    }
    return feedText('ToolCallStream.feed', this, this.#state, delta);
  }

  /**
   * Adds several deltas (an array of strings) at once, with one crossing into the module: the
   * events `feed` would give for them one by one, with neighbouring texts of one kind joined.
   */
  feedMany(deltas) {
    const fn = 'ToolCallStream.feedMany';
    if (!Array.isArray(deltas)) {
      throw new TypeError(`${fn}(): deltas must be an array of strings, not ${describe(deltas)}`);
    }
    for (let i = 0; i < deltas.length; i++) {
      if (typeof deltas[i] !== 'string') {
        throw new TypeError(`${fn}(): deltas[${i}] must be a string, not ${describe(deltas[i])}`);
      }
    }
    return feedText(fn, this, this.#state, deltas.join(''));
  }

  /** The text has ended: the rest of the events, or the error of the whole text. */
  finish() {
    return finishStream('ToolCallStream.finish', this, this.#state);
  }
}

/**
 * A model API's response stream read as it arrives: `feed(chunk)` each piece of the recorded or
 * live stream (text: SSE, NDJSON or a JSON list, in pieces of any size; or one event already
 * decoded, such as an SDK's event object), then `finish()`. The events are those of
 * `ToolCallStream` (calls have format `json`); their calls add up to `parseResponse` of the whole
 * stream. `provider`: `'auto'` (the default: the first event tells) or a provider id. `tools`,
 * `validate`, `unknown`: those of `parseResponse`, applied to each call as it ends, so the calls
 * and the error are those `parseResponse` gives the whole stream with them (a call that fails
 * stops the events and `finish()` throws; with `unknown: 'drop'` a call's events wait for its
 * end). An `error` event throws `response.error` with the API's message.
 */
export class ResponseStream {
  #state;

  constructor(options) {
    const fn = 'ResponseStream';
    const o = optionsArg(fn, options, ['provider', 'bigints', 'repair', ...TOOL_OPTIONS]);
    const { provider = 'auto' } = o;
    const r = o.repair ?? false;
    const id = providerArg(fn, provider);
    this.#state = openStream(this, o.bigints, () => withTools(fn, o, (...x) => callModule(0, wasmResponseStream, id, ...x, r)));
  }

  /** Adds `chunk` (a string of the stream's text, or a decoded event); the events it completed. */
  feed(chunk) {
    const fn = 'ResponseStream.feed';
    if (typeof chunk === 'string') return feedText(fn, this, this.#state, chunk);
    const what = notJsonValue(chunk);
    if (what || chunk === null || typeof chunk !== 'object') {
      throw new TypeError(`${fn}(): chunk must be a string of the stream's text or a decoded event (a plain object or array), not ${what || describe(chunk)}`);
    }
    const json = toJson(fn, chunk, 'event', false);
    return streamCall(fn, this, this.#state, json.length, wasmStreamFeedEvent, json);
  }

  /** The stream has ended: the rest of the events, or its error. */
  finish() {
    return finishStream('ResponseStream.finish', this, this.#state);
  }
}

// ------------------------------------------------------------------------------------------
// Provider responses

/** Every provider id, in the core's order. */
export const PROVIDERS = Object.freeze(wasmProviders().split(','));

function providerArg(fn, provider) {
  if (typeof provider !== 'string') {
    throw new TypeError(`${fn}(): provider must be a string, not ${describe(provider)}`);
  }
  return provider;
}

// Decoded values (a response, the results for formatResults) go to the core as JSON text: the
// text JSON.stringify writes, compact, with these differences, so that a value means exactly
// what its JSON text means and no value is changed on the way:
// - a BigInt is written as its digits (JSON.stringify cannot write one);
// - NaN and ±Infinity (JSON.stringify writes null) are `json.invalid_number`, positioned where
//   the number stands in the text;
// - an object member whose value is undefined is left out, as JSON.stringify leaves it out (an
//   absent key, as in Python); undefined anywhere else, a function or a symbol (which
//   JSON.stringify leaves out, or writes as null in an array) is a TypeError naming its path, as
//   Python raises for a value of no JSON type;
// - arrays and objects nested deeper than MAX_DEPTH, and cycles (nesting without end), are not
//   written past the first bracket too deep: the text stops there, and the core reads it and
//   reports json.too_deep at that bracket, exactly as on the whole text (JSON.stringify would
//   overflow the stack, or throw a TypeError for a cycle).
const MAX_DEPTH = 128;
const TOO_DEEP = Symbol('too deep');

class JsonWriter {
  constructor(fn, root, positioned) {
    this.out = '';
    this.fn = fn;
    this.path = [root];
    this.positioned = positioned; // errors point into the text (else they are at position 0)
  }

  pathText() {
    return this.path.map((k, i) => {
      if (i === 0) return k;
      if (typeof k === 'number') return `[${k}]`;
      return /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
    }).join('');
  }

  notJson(value) {
    const type = typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
    return new TypeError(
      `${this.fn}(): ${this.pathText()} is ${type}; a decoded value holds only JSON values (objects, `
      + 'arrays, strings, finite numbers, BigInts, booleans and null)',
    );
  }

  invalidNumber(value) {
    return moduleError(wasmNonFiniteNumber, this.pathText(), String(value), this.positioned ? this.out : '');
  }

  value(v, key, depth) {
    if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof v.toJSON === 'function') {
      v = v.toJSON(key);
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) v = v.valueOf();
    switch (typeof v) {
      case 'string':
        this.out += JSON.stringify(v);
        return;
      case 'number':
        if (!Number.isFinite(v)) throw this.invalidNumber(v);
        this.out += JSON.stringify(v);
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
      case 'bigint':
        this.out += v.toString();
        return;
      case 'object':
        if (v === null) {
          this.out += 'null';
        } else if (Array.isArray(v)) {
          this.array(v, depth);
        } else {
          this.object(v, depth);
        }
        return;
      default:
        throw this.notJson(v);
    }
  }

  array(items, depth) {
    this.out += '[';
    if (depth === MAX_DEPTH) throw TOO_DEEP;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.out += ',';
      this.path.push(i);
      this.value(items[i], String(i), depth + 1);
      this.path.pop();
    }
    this.out += ']';
  }

  object(o, depth) {
    this.out += '{';
    if (depth === MAX_DEPTH) throw TOO_DEEP;
    let first = true;
    for (const key of Object.keys(o)) {
      const item = o[key];
      if (item === undefined) continue;
      if (!first) this.out += ',';
      first = false;
      this.out += `${JSON.stringify(key)}:`;
      this.path.push(key);
      this.value(item, key, depth + 1);
      this.path.pop();
    }
    this.out += '}';
  }
}

// Whether JSON.stringify writes `v` exactly as JsonWriter would: nothing in it needs the writer
// (a number that is not finite, a BigInt, undefined other than as an object member, a function
// or symbol, a toJSON method or boxed primitive whose result is not checked here, or nesting
// deeper than MAX_DEPTH, which a cycle always is). The common case, checked without writing.
function plainJson(v, depth) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object':
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth === MAX_DEPTH || typeof v.toJSON === 'function') return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!plainJson(v[i], depth + 1)) return false;
    }
    return true;
  }
  if (v instanceof Number || v instanceof String || v instanceof Boolean) return false;
  for (const key in v) {
    if (Object.prototype.hasOwnProperty.call(v, key)) {
      const item = v[key];
      if (item !== undefined && !plainJson(item, depth + 1)) return false;
    }
  }
  return true;
}

// `value` as JSON text (see JsonWriter), for the function `fn`; `root` names the value in
// messages; `positioned`: errors are positioned in the text (else at 0, as formatResults').
function toJson(fn, value, root, positioned) {
  if (plainJson(value, 0)) return JSON.stringify(value);
  const writer = new JsonWriter(fn, root, positioned);
  try {
    writer.value(value, '', 0);
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
  }
  return writer.out;
}

// What `value` is, when it is no decoded JSON value (else ''): undefined, a function, a symbol, or
// an object other than a plain one (from any realm), an array or a boxed primitive, such as a
// fetch Response or Request, a Promise, a Map.
function notJsonValue(value) {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return describe(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '';
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return '';
  const proto = Object.getPrototypeOf(value);
  if (proto === null || Object.getPrototypeOf(proto) === null) return '';
  const name = typeof proto.constructor === 'function' && proto.constructor.name ? proto.constructor.name : 'object';
  if (typeof value.then === 'function') return `a ${name} (await it first)`;
  if (typeof value.json === 'function' && typeof value.headers === 'object') {
    return `a fetch ${name} (pass its body: await r.json(), or await r.text())`;
  }
  return `a ${name} object`;
}

// The response: a string is JSON text (or plain text) as given; bytes (an ArrayBuffer or a view
// of one, such as a Uint8Array) are UTF-8 JSON, positions in bytes; any other value is a decoded
// JSON value, read as its JSON text (so error positions refer to that text).
function responseArg(fn, response) {
  if (typeof response === 'string') return unicodeText(response);
  if (response instanceof ArrayBuffer) return new Uint8Array(response);
  if (ArrayBuffer.isView(response)) return new Uint8Array(response.buffer, response.byteOffset, response.byteLength);
  const what = notJsonValue(response);
  if (what) {
    throw new TypeError(
      `${fn}(): response must be a string of JSON, bytes of UTF-8 JSON or a decoded JSON value (plain `
      + `object, array, number, boolean or null), not ${what}`,
    );
  }
  return toJson(fn, response, 'response', true);
}

function readResponse(fn, response, options, query) {
  // parseResponse (0) takes the tools options too; hasToolCalls (1) the rest; detectProvider none.
  const names = query === 2 ? [] : ['provider', 'textFallback', 'bigints', ...(query === 0 ? ['repair', ...TOOL_OPTIONS] : [])];
  const o = optionsArg(fn, options, names);
  const { provider = 'auto', textFallback = false, bigints } = o;
  const r = o.repair ?? false;
  const id = providerArg(fn, provider);
  const input = responseArg(fn, response);
  const wasmFunction = typeof input === 'string' ? wasmReadResponse : wasmReadResponseBytes;
  return withTools(fn, o, (...x) => callModuleBigints(bigints, input.length, wasmFunction, fn, input, id, textFallback, query, ...x, r));
}

/**
 * The tool calls in a model API's response, in response order, as `[{id, name, arguments}]`
 * (`id` null when the provider gave none). `provider: 'auto'` detects the API; a provider id
 * reads that API's paths only. No calls (or plain text, or JSON of no known API) is `[]`.
 * With `textFallback: true`, a response without structured calls has its assistant text read
 * like `parseToolCalls` (those calls have `id` null). `tools`, `validate`, `unknown`: as for
 * `parseToolCalls`; a call to a tool not in the list throws `tool_call.unknown_tool` at its name,
 * arguments that break the schema `tool_call.schema` at the offending value (also inside an
 * `arguments` string), with `error.path`. `repair: true` mends the mistakes of docs/repair.md in
 * an `arguments` string (or its streamed fragments, and in the text the fallback reads); a
 * mended call has `repairs`.
 */
export function parseResponse(response, options) {
  return readResponse('parseResponse', response, options, 0);
}

/** Whether `response` has tool calls: exactly `parseResponse(...).length > 0`, same errors. */
export function hasToolCalls(response, options) {
  return readResponse('hasToolCalls', response, options, 1);
}

/** Which API `response` came from (one of `PROVIDERS`), or null. */
export function detectProvider(response) {
  return readResponse('detectProvider', response, undefined, 2);
}

/**
 * The messages (or content blocks, or parts) that carry `results` back to `provider`, in the
 * order given, ready to append to the conversation. Each result is `{id, name, content,
 * isError}` (or `is_error`); `content` is a string or any JSON value.
 */
export function formatResults(results, provider) {
  const id = providerArg('formatResults', provider);
  if (!Array.isArray(results)) {
    throw new TypeError(`formatResults(): results must be an array of objects, not ${describe(results)}`);
  }
  const json = toJson('formatResults', results, 'results', false);
  return callModule(json.length, wasmFormatResults, json, id);
}

/**
 * The assistant message that carries `calls` (and `content` as its text) in `provider`'s wire
 * shape: one message object, or for `openai_responses` and `gemini_interactions` the list of
 * input items. Each call is `{id, name, arguments}` (the calls of `parseMessage` may be passed as
 * they are). A call without an id where the provider needs one is `result.missing_field`.
 *
 * With `{ template }` and no provider (`formatCalls(calls, null, { template })`: a FormatSpec,
 * a described spec or a chat template, as the parse functions take it), the calls are written
 * as that model writes them: a string, `content` first.
 */
export function formatCalls(calls, provider, options) {
  const { content, template } = optionsArg('formatCalls', options, ['content', 'template']);
  const withTemplate = template !== undefined && template !== null;
  if (withTemplate && provider !== undefined && provider !== null) {
    throw new TypeError('formatCalls(): takes a provider or a template, not both');
  }
  const id = withTemplate ? '' : providerArg('formatCalls', provider);
  if (!Array.isArray(calls)) {
    throw new TypeError(`formatCalls(): calls must be an array of objects, not ${describe(calls)}`);
  }
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new TypeError(`formatCalls(): content must be a string, not ${describe(content)}`);
  }
  const json = toJson('formatCalls', calls, 'calls', false);
  const spec = withTemplate ? templateArg(template)._json : undefined;
  return callModule(json.length, wasmFormatCalls, json, id, content == null ? undefined : unicodeText(content), spec);
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

/**
 * Not part of the API: makes every allocation of the current WebAssembly instance fail once
 * `bytes` would be in use (a fresh instance has no limit), so beacon's tests can reach the memory
 * limit quickly; `Infinity` lifts it. Returns the instance's memory size in bytes, before.
 */
export function _setMemoryLimitForTesting(bytes) {
  checkInstance();
  const before = wasmMemoryBytes();
  wasmSetMemoryLimitForTesting(bytes);
  return before;
}

/** Not part of the API: the current WebAssembly instance's memory size in bytes. */
export function _memoryBytesForTesting() {
  checkInstance();
  return wasmMemoryBytes();
}
