// Type declarations for beacon-toolcall.

/**
 * An argument value, as JSON would give it, except that an integer beyond
 * `Number.MAX_SAFE_INTEGER` (2^53 - 1) in magnitude is a `bigint`, so it is never rounded
 * (with the option `bigints: 'string'`, the string of its digits instead, so that the result can
 * go through `JSON.stringify`). A number written with a fraction or an exponent is always a `number`.
 *
 * Objects are plain JavaScript objects, so their keys follow JavaScript's property order: keys
 * that are array indices (`"2"`, `"10"`: canonical integers below 2^32 - 1) come first, in
 * numeric order, then the other keys in the order the model wrote them. `{"b": 1, "2": 2}` is
 * `{ '2': 2, b: 1 }`. Parse the call's text yourself (`span`, from `parseMessage`) when the
 * written order of such keys matters.
 */
export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };

/** One tool call. Argument keys are in the order the model wrote them (integer-like keys first: see `Value`). */
export interface ToolCall {
  /** The id the model wrote for the call (Kimi K2, Mistral `[CALL_ID]`, Command R7B); absent otherwise. */
  id?: string;
  name: string;
  arguments: { [key: string]: Value };
  /** With `repair: true`, what was mended in this call; absent when nothing was. */
  repairs?: Repair[];
}

/** A receipt of `repair: true`: what was mended, and where (UTF-16 indices into the text). */
export interface Repair {
  code:
    | 'repair.unclosed_value'
    | 'repair.trailing_comma'
    | 'repair.python_literal'
    | 'repair.raw_newline'
    | 'repair.leading_zero'
    | 'repair.set_literal'
    | 'repair.unescaped_quote'
    | 'repair.wrapped_arguments'
    | 'repair.double_encoded';
  message: string;
  position: number;
  line: number;
  column: number;
  /** The index of the call it was mended in, or null. */
  call_index: number | null;
}

/** The format ids, in detection order (see the README's formats table). */
/** A tool-call format as data: what Python's `FormatSpec.describe()` and `beacon template FILE`
 * give (docs/templates.md). */
export interface FormatSpecDict {
  call: 'json_object' | 'name_keyed_object' | 'tag_json' | 'tag_per_argument' | 'call_syntax' | 'object_literal';
  section: { start: string; end: string };
  call_markers: { start: string; end: string };
  separator: string;
  /** The tags around the model's reasoning, where the template writes it. */
  reasoning?: { start: string; end: string; prompt_opened: boolean };
  /** The token that ends the model's turn, where the template writes one. */
  end_of_turn?: string;
  /** The tags the model writes around a turn's content, where the template writes them. */
  content?: { start: string; end: string };
  /** How calls are written back (`formatCalls` with `{ template }`). */
  write?: { json: 'spaced' | 'compact'; sorted_keys: boolean; ascii?: boolean };
  [field: string]: unknown;
}

/** A tool-call format as data, for the `template` option of every parse function. */
export class FormatSpec {
  private constructor();
  /** The spec `described`; throws `TypeError` when it is not one (the message names the code). */
  static fromDict(described: FormatSpecDict): FormatSpec;
  /**
   * The format a chat template writes, inferred by rendering it (docs/templates.md), cached by
   * template and options. `template`: the Jinja text, or a `tokenizer_config.json` (its text or
   * the object it decodes to). Throws `ToolCallError` `template.render`, `template.no_tool_calls`,
   * `template.ambiguous` or `template.limit`; in a browser, a `TypeError` until `initTemplates()`
   * has loaded the inference module (Node loads it by itself).
   */
  static fromTemplate(template: string | TokenizerConfig, options?: TemplateOptions): FormatSpec;
  /** The spec as a plain object (a copy). */
  describe(): FormatSpecDict;
}

/** A `tokenizer_config.json`, decoded: its `chat_template` (a string, or named templates of which
 * `tool_use` is taken) and, when present, its `bos_token`, `eos_token` and added tokens. */
export interface TokenizerConfig {
  chat_template: string | { name: string; template: string }[];
  [field: string]: unknown;
}

/** The options of `FormatSpec.fromTemplate`. */
export interface TemplateOptions {
  /** Replaces the config's `bos_token`. */
  bosToken?: string;
  /** Replaces the config's `eos_token`. */
  eosToken?: string;
  /** Text the tokenizer keeps as one token, added to the config's added tokens. */
  specialTokens?: Iterable<string>;
}

/**
 * Loads the template-inference module `FormatSpec.fromTemplate` needs: by default the
 * beacon_template_bg.wasm next to the package (`beacon-toolcall/template-wasm`), or `source`
 * (a URL, a `Response`, bytes or a compiled module). Node loads it by itself on first use.
 */
export function initTemplates(
  source?: { module_or_path?: WasmModuleSource | Promise<WasmModuleSource> } | WasmModuleSource | Promise<WasmModuleSource>,
): Promise<void>;

export type Format =
  | 'hermes'
  | 'bracket'
  | 'mistral'
  | 'llama'
  | 'xml_invoke'
  | 'qwen3_coder'
  | 'deepseek_v3'
  | 'deepseek_v31'
  | 'deepseek_v32'
  | 'step3'
  | 'kimi_k2'
  | 'glm45'
  | 'longcat'
  | 'ifm'
  | 'minicpm'
  | 'harmony'
  | 'gemma4'
  | 'function_gemma'
  | 'pythonic'
  | 'command_r7b'
  | 'granite'
  | 'functionary_v31'
  | 'functionary_v32'
  | 'functools'
  | 'nemotron'
  | 'apertus'
  | 'tool_calls'
  | 'internlm'
  | 'gigachat'
  | 'solar_open'
  | 'json'
  | 'python';

/** A tool call with the format it was written in (`parseToolCalls(text, { includeFormat: true })`). */
export interface ToolCallWithFormat extends ToolCall {
  format: Format;
}

/** Every error code beacon raises; the codes never change meaning between releases. */
export type ErrorCode =
  | 'tool_call.not_found'
  | 'tool_call.multiple'
  | 'tool_call.unrecognized'
  | 'tool_call.invalid_name'
  | 'tool_call.invalid_arguments'
  | 'tool_call.ambiguous_arguments'
  | 'tool_call.positional_argument'
  | 'tool_call.duplicate_argument'
  | 'tool_call.unclosed'
  | 'tool_call.syntax'
  | 'tool_call.invalid_literal'
  | 'tool_call.too_deep'
  | 'tool_call.unknown_tool'
  | 'tool_call.schema'
  | 'json.unexpected_token'
  | 'json.unexpected_end'
  | 'json.invalid_string'
  | 'json.invalid_escape'
  | 'json.invalid_unicode'
  | 'json.invalid_number'
  | 'json.duplicate_key'
  | 'json.too_deep'
  | 'json.invalid_utf8'
  | 'result.missing_field'
  | 'result.unsupported'
  | 'response.error'
  | 'template.render'
  | 'template.no_tool_calls'
  | 'template.ambiguous'
  | 'template.limit'
  | 'input.too_large'
  | 'internal';

/** Every error code, in the core's order. */
export const ERROR_CODES: readonly ErrorCode[];

/**
 * A parse failure. `message` reads `CODE at line L, column C: explanation`.
 * Positions are in UTF-16 code units, so `text[err.position]` is the offending character.
 */
export class ToolCallError extends Error {
  constructor(
    message: string,
    details?: {
      code: ErrorCode;
      position: number;
      line: number;
      column: number;
      path?: string;
      truncated?: boolean;
      cause?: unknown;
    },
  );
  /** Stable error code, e.g. `json.unexpected_token`. */
  code: ErrorCode;
  /** 0-based offset of the offending character in the input, in UTF-16 code units. */
  position: number;
  /** 1-based line number (lines end at `\n`). */
  line: number;
  /** 1-based column, counted in UTF-16 code units. */
  column: number;
  /**
   * For `tool_call.schema` (with the `tools` option): the JSON pointer of the offending value in
   * the call's arguments (`''` for the arguments themselves, `'/todos/1/status'` deeper);
   * undefined for every other error.
   */
  path?: string;
  /** Whether the text ended inside the call: a cut-off output, which `repair` never mends. */
  truncated: boolean;
}

/** No tool call in the text: `code` is `tool_call.not_found`, `position` is 0. */
export class NoToolCallFoundError extends ToolCallError {}

/** Arguments as beacon returns them without a type for them: keys in the order written. */
export type Arguments = { [key: string]: Value };

/**
 * The argument types of a tool list, by tool name (`{ get_weather: { city: string } }`): the type
 * parameter of `Tools` and of the parse functions, which then type each call's `arguments` by
 * its `name`. The default says nothing about any tool.
 */
export type ToolArgs = { [name: string]: object };

/** A call to one of the tools of `A`: a union discriminated by `name` (plain `ToolCall` for the default `A`). */
export type ToolCallOf<A extends ToolArgs> = string extends keyof A
  ? ToolCall
  : { [N in keyof A & string]: { id?: string; name: N; arguments: A[N] } }[keyof A & string];

/** A tool definition: a bare name, or an OpenAI Chat, OpenAI Responses, Anthropic, Gemini or MCP definition. */
export type ToolDefinition = string | { [key: string]: unknown };

/**
 * A tool list, read once and reused: pass it as the `tools` option. `A` types the arguments of
 * the calls by tool name (beacon validates them against the schemas; the type is the caller's
 * statement of what those schemas mean):
 *
 * ```ts
 * const tools = new Tools<{ get_weather: { city: string; unit?: 'c' | 'f' } }>([weatherDefinition]);
 * const call = parseToolCall(text, { tools });   // call.arguments: { city: string; unit?: 'c' | 'f' }
 * ```
 * @throws {TypeError} when `definitions` is not an array, or an entry (or a value in it) has the
 *   wrong type; the message names the entry (`tools[1].function.name`).
 * @throws {RangeError} when an entry has no name, two tools have one name, or a schema is one
 *   beacon cannot use; the message names the entry.
 */
export class Tools<A extends ToolArgs = { [name: string]: Arguments }> {
  constructor(definitions: readonly ToolDefinition[]);
  /** The tool names, in the order given. */
  readonly names: readonly string[];
  /** Only carries `A`. */
  private readonly __args?: A;
}

/** `new Tools(definitions)`. */
export function compileTools<A extends ToolArgs = { [name: string]: Arguments }>(
  definitions: readonly ToolDefinition[],
): Tools<A>;

/** The tools options of `parseToolCall`, `parseToolCalls`, `parseMessage` and `parseResponse`. */
export interface ToolsOptions<A extends ToolArgs> {
  /**
   * The caller's tools: calls are named, typed and validated (README: "Tools and schemas"). A
   * `Tools`, or an array of definitions (read on every call).
   */
  tools?: Tools<A> | readonly ToolDefinition[];
  /** With `tools`: check the arguments against the schemas (default true; false: naming and typing only). */
  validate?: boolean;
  /**
   * With `tools`: a tagged call to a tool not in the list throws `tool_call.unknown_tool`
   * (`'error'`, the default), is returned (`'keep'`: untyped, unchecked, and outside `A`), or is
   * left out (`'drop'`).
   */
  unknown?: 'error' | 'keep' | 'drop';
}

/**
 * How integers beyond 2^53 - 1 in magnitude come back: `'bigint'` (the default) as a `bigint`,
 * `'string'` as the string of their digits (e.g. `'12345678901234567890'`), so that every result
 * can go through `JSON.stringify` (which throws on a `bigint`).
 */
export type BigintMode = 'bigint' | 'string';

/**
 * Unknown option names (a Python-style `include_format`, `text_fallback`) and option values of
 * the wrong type throw a `TypeError` naming the valid options; so does `null` as `options`.
 */
export interface ParseOptions {
  /** Only these formats are detected (default: every format). */
  formats?: Iterable<Format>;
  /** A model's own format, read besides the built-in ones (only it with `formats: []`); its
   * calls have the format `'spec'`: a `FormatSpec`, the object its `describe()` gives (a spec
   * that is not one throws a `TypeError` naming its code), or a chat template (its text, or a
   * tokenizer config), inferred once by `FormatSpec.fromTemplate`. */
  template?: FormatSpec | FormatSpecDict | string | TokenizerConfig;
  /** See `BigintMode`. Default `'bigint'`. */
  bigints?: BigintMode;
}

/** `parseToolCall`, `parseToolCalls`, `parseMessage`, `parseResponse` and the streams: mend a
 * fixed list of model mistakes (docs/repair.md), each reported as a `Repair` (default false). */
export interface RepairOptions {
  repair?: boolean;
}

/**
 * The one tool call in `text`.
 * @throws {NoToolCallFoundError} when there is none.
 * @throws {ToolCallError} when a call is broken, or with code `tool_call.multiple` when there
 *   are several (use `parseToolCalls` for parallel calls); `json.invalid_unicode` when `text`
 *   holds a lone surrogate; `input.too_large` when it needs more memory than the module can have;
 *   with `tools`, `tool_call.unknown_tool` and `tool_call.schema` (with `path`).
 * @throws {TypeError} when `text` is not a string, or `options` has an unknown name or a wrong type.
 */
export function parseToolCall<A extends ToolArgs = { [name: string]: Arguments }>(
  text: string,
  options?: ParseOptions & RepairOptions & ToolsOptions<A>,
): ToolCallOf<A>;

/**
 * Every tool call in `text`, in text order.
 * @throws {NoToolCallFoundError} when there is none.
 * @throws {ToolCallError} when a call is broken; `json.invalid_unicode` when `text` holds a
 *   lone surrogate; `input.too_large` when it needs more memory than the module can have; with
 *   `tools`, `tool_call.unknown_tool` and `tool_call.schema` (with `path`).
 * @throws {TypeError} when `text` is not a string, or `options` has an unknown name or a wrong type.
 */
export function parseToolCalls<A extends ToolArgs = { [name: string]: Arguments }>(
  text: string,
  options: ParseOptions & RepairOptions & { includeFormat: true } & ToolsOptions<A>,
): (ToolCallOf<A> & { format: Format })[];
export function parseToolCalls<A extends ToolArgs = { [name: string]: Arguments }>(
  text: string,
  options?: ParseOptions & RepairOptions & { includeFormat?: boolean } & ToolsOptions<A>,
): ToolCallOf<A>[];

/** One call of a `Message`. */
export interface MessageToolCall {
  /** The id the text wrote (Kimi K2, Mistral `[CALL_ID]`, Command R7B), one generated with
   * `ids: 'generate'` or `idSeed`, or `null`. */
  id: string | null;
  name: string;
  arguments: { [key: string]: Value };
  format: Format;
  /** `[start, end]`: UTF-16 indices of the call in the text (`text.slice(start, end)`). */
  span: [number, number];
  /** With `repair: true`, what was mended in this call; absent when nothing was. */
  repairs?: Repair[];
}

/** A whole model message. */
export interface Message<A extends ToolArgs = { [name: string]: Arguments }> {
  /** The text without the calls (markers and wrappers included), the reasoning blocks and the
   * end-of-turn tokens; whitespace touching a removed piece at the start or end is dropped. */
  content: string;
  /** The text inside the reasoning blocks (`<think>`, `[THINK]`, Harmony analysis, …), or null. */
  reasoning: string | null;
  /** Every call, in text order. */
  tool_calls: (string extends keyof A
    ? MessageToolCall
    : { [N in keyof A & string]: Omit<MessageToolCall, 'name' | 'arguments'> & { name: N; arguments: A[N] } }[keyof A & string])[];
  /** With `repair: true`: every receipt, in text order. */
  repairs?: Repair[];
}

/** How calls without an id get one (`parseMessage`, `ToolCallStream`). */
export interface IdOptions {
  /** `'generate'`: every call without an id gets one (`call_` and 24 letters and digits) from a
   * fresh random seed per message or stream, so ids are unique across outputs. Undefined: keep
   * the ids the text has. */
  ids?: 'generate';
  /** Deterministic generated ids (`ids` may then be left out): the same seed and text give the
   * same ids on every target (Python's `id_seed`) and in a stream as in `parseMessage`. */
  idSeed?: string;
}

/**
 * The whole message: content, reasoning, and every call with its id, format and span. No call is
 * no error (`tool_calls` is empty).
 * @throws {ToolCallError} when a call is broken (as `parseToolCalls` throws it); `json.invalid_unicode`
 *   when `text` holds a lone surrogate; `input.too_large` when it needs more memory than the module can have.
 * @throws {TypeError} when `text` is not a string, `formats` is not an iterable of known format ids,
 *   `ids` is neither undefined nor `'generate'`, `idSeed` is not a string, or `unknown` is not
 *   `'error'`, `'keep'` or `'drop'`.
 */
export function parseMessage<A extends ToolArgs = { [name: string]: Arguments }>(
  text: string,
  options?: ParseOptions & RepairOptions & IdOptions & ToolsOptions<A>,
): Message<A>;

/** What `scanStream` found in the text streamed so far. */
export interface StreamScan {
  /** `none`: no tagged call has started; `partial`: one has started (or may be starting) and is
   * incomplete; `found`: a complete tagged call, or a broken one, is there. */
  state: 'none' | 'partial' | 'found';
  /** UTF-16 index up to which the text is prose that may be shown (its length for `none`). */
  position: number;
}

/**
 * Whether streamed model output may be shown yet: call it with the text received so far.
 * @throws {ToolCallError} `json.invalid_unicode` when `text` holds a lone surrogate.
 * @throws {TypeError} when `text` is not a string.
 */
export function scanStream(text: string): StreamScan;

/**
 * What a stream reports, in text order: a union discriminated by `type`. Concatenated, the
 * `content` texts are the message's content, the `reasoning` texts its reasoning, and each call's
 * `arguments` deltas the JSON text of its `call_end` arguments (`"{}"` for none).
 */
export type StreamEvent<A extends ToolArgs = { [name: string]: Arguments }> =
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | {
    type: 'call_start';
    /** The call's index in the message, from 0. */
    index: number;
    /** The id the text wrote, one generated with `ids: 'generate'`, or `null`. */
    id: string | null;
    name: string extends keyof A ? string : keyof A & string;
    format: Format;
  }
  | { type: 'arguments'; index: number; /** A fragment of the arguments' JSON text. */ delta: string }
  | {
    type: 'call_end';
    index: number;
    /** The call's arguments, which its `arguments` deltas add up to. */
    arguments: string extends keyof A ? Arguments : A[keyof A & string];
    /** With `repair: true`, what was mended in this call; absent when nothing was. */
    repairs?: Repair[];
  };

/** Options of `ToolCallStream`: those of `parseMessage`, and `start`. With `repair: true` the
 * events add up to `parseMessage(text, {repair: true})`: each call comes whole, and a mistake is
 * mended once the text has ended (the events stop at the call that holds it until `finish`). */
export interface ToolCallStreamOptions<A extends ToolArgs>
  extends ParseOptions, RepairOptions, IdOptions, ToolsOptions<A> {
  /**
   * Whether the text starts inside a reasoning block the prompt opened: `'detect'` (the default:
   * tell from the text, so nothing shows before a reasoning close tag arrives or the text ends
   * when it may start in reasoning), `'content'` (the prompt opened none) or `'reasoning'` (it
   * opened one: the text is reasoning up to the first close tag).
   */
  start?: 'detect' | 'content' | 'reasoning';
}

/**
 * Tool calls parsed while the model's output arrives: `feed` each piece of text, then `finish`.
 * However the text is split, the events add up to `parseMessage` of the whole text with the same
 * options. Text that may begin a marker is held back until it is decided; a tagged call (or a
 * JSON or call-syntax call that begins the message) streams as it arrives, name first, then its
 * arguments; a JSON or call-syntax call inside prose is reported at `finish`.
 */
export class ToolCallStream<A extends ToolArgs = { [name: string]: Arguments }> {
  /**
   * @throws {TypeError} when `options` has an unknown name or a wrong type, or an unknown format
   *   id, `ids`, `unknown` or `start` value.
   */
  constructor(options?: ToolCallStreamOptions<A>);
  /**
   * Adds `delta` to the text; the events it decided.
   * @throws {ToolCallError} the error `parseMessage` throws on the whole text (a broken call,
   *   positions in UTF-16 units of all the text fed), once it is certain; `json.invalid_unicode`
   *   for a lone surrogate (a high surrogate at the end of `delta` waits for the next piece). After
   *   an error, every call throws it again; after `finish`, `internal`.
   * @throws {TypeError} when `delta` is not a string.
   */
  feed(delta: string): StreamEvent<A>[];
  /**
   * Adds several deltas at once, in one crossing into the module: the events `feed` would give
   * for them one by one, with neighbouring texts of one kind joined.
   * @throws {ToolCallError} as `feed`, positioned in all the text fed.
   * @throws {TypeError} when `deltas` is not an array of strings.
   */
  feedMany(deltas: readonly string[]): StreamEvent<A>[];
  /**
   * The text has ended: the rest of the events.
   * @throws {ToolCallError} as `feed`, for the whole text.
   */
  finish(): StreamEvent<A>[];
}

// ------------------------------------------------------------------------------------------
// Provider responses

/** A provider id: which model API a response came from (and the one `formatResults` writes for). */
export type Provider =
  | 'openai_chat'
  | 'openai_responses'
  | 'anthropic'
  | 'gemini'
  | 'gemini_interactions'
  | 'cohere_v1'
  | 'cohere_v2'
  | 'bedrock'
  | 'ollama';

/** Every provider id, in the core's order. */
export const PROVIDERS: readonly Provider[];
/** Every format id: the tagged (tier 1) formats, then `json` and `python`. */
export const FORMATS: readonly Format[];

/**
 * What the provider functions accept: the response body as a string (JSON text; any other text
 * is a plain-text answer with no calls), as UTF-8 bytes (an `ArrayBuffer` or a view of one such
 * as a `Uint8Array`: error positions, lines and columns then count bytes, and bytes that are not
 * UTF-8 are `json.invalid_utf8`), or the response already decoded (what `JSON.parse` or
 * `await res.json()` returns). A decoded value is read as its `JSON.stringify` text, `bigint`s
 * written as their digits; error positions then refer to that text.
 */
export type ProviderResponse = string | ArrayBuffer | ArrayBufferView | object | number | bigint | boolean | null;

/** One tool call read from a provider response. */
export interface ProviderCall {
  /**
   * The id to send back with the result (Responses API: `call_id`; Bedrock: `toolUseId`), or
   * `null` when the provider gave none: never invented.
   */
  id: string | null;
  name: string;
  /** The arguments, keys in the order written (integers beyond 2^53 - 1 as `bigint`). */
  arguments: { [key: string]: Value };
  /** With `repair: true`, what was mended in its arguments; absent when nothing was. */
  repairs?: Repair[];
}

/** Options of `parseResponse` and `hasToolCalls` (`parseResponse` also takes `ToolsOptions`). */
export interface ParseResponseOptions {
  /** `'auto'` (the default) detects the API; a provider id reads that API's paths only. */
  provider?: Provider | 'auto';
  /**
   * When the response has no structured calls, read its assistant text like `parseToolCalls`
   * (those calls have `id` null). Default `false`.
   */
  textFallback?: boolean;
  /** See `BigintMode`. Default `'bigint'`. */
  bigints?: BigintMode;
}

/**
 * Options of `ResponseStream`: `provider`, and the tools options of `parseResponse`, applied to
 * each call as it ends.
 */
export interface ResponseStreamOptions<A extends ToolArgs = { [name: string]: Arguments }>
  extends ToolsOptions<A>, RepairOptions {
  /** `'auto'` (the default: the first event tells) or a provider id. */
  provider?: Provider | 'auto';
  /** See `BigintMode`. Default `'bigint'`. */
  bigints?: BigintMode;
}

/**
 * A model API's response stream read as it arrives: `feed` each piece of its text (SSE, NDJSON
 * or a JSON list of events, cut anywhere) or each event already decoded, then `finish`. The
 * events are `StreamEvent`s (calls have format `json`); their calls add up to `parseResponse` of
 * the whole recording with the same options. With `tools`, each call is checked as it ends: its
 * `call_end` carries the checked arguments, a call that fails stops the events (`finish` throws
 * what `parseResponse` throws on the whole recording), and with `unknown: 'drop'` a call's events
 * wait for its end, so a dropped call shows nothing.
 */
export class ResponseStream<A extends ToolArgs = { [name: string]: Arguments }> {
  /**
   * @throws {RangeError} for an unknown provider id; {TypeError} for a wrong option, or an
   *   `unknown` value other than `'error'`, `'keep'`, `'drop'`.
   */
  constructor(options?: ResponseStreamOptions<A>);
  /**
   * Adds a piece of the stream's text, or one decoded event; the events it completed.
   * @throws {ToolCallError} `response.error` for an error event (with the API's message), or the
   *   error of a stream that cannot be read; after an error, every call throws it again.
   * @throws {TypeError} when `chunk` is neither a string nor a plain object or array.
   */
  feed(chunk: string | object): StreamEvent<A>[];
  /**
   * The stream has ended: the rest of the events.
   * @throws {ToolCallError} as `feed`; also for a stream that ends inside a call, and (with
   *   `tools`) the error `parseResponse` throws on the whole recording when a call failed them.
   */
  finish(): StreamEvent<A>[];
}

/** The result of running one tool call, for `formatResults`. */
export interface ToolResult {
  /** The call's id (`ProviderCall.id`); most providers require it. */
  id?: string | null;
  /** The tool's name; `gemini` and `ollama` require it. */
  name?: string | null;
  /**
   * What the tool returned: a string or any JSON value (`bigint`s allowed). Where the API wants
   * text, other content becomes its compact JSON.
   */
  content: unknown;
  /** The tool failed (`content` describes the failure). Default `false`. */
  isError?: boolean;
  /** The same as `isError`, in the wire spelling (the fixtures' and Python's); give one. */
  is_error?: boolean;
}

/** A JSON value as `formatResults` returns it (integers beyond 2^53 - 1 as `bigint`). */
export type ResultMessage = { [key: string]: Value };

/**
 * The tool calls in a model API's response, in response order. A response without calls (or
 * plain text, or JSON of no known API) gives `[]`, not an error. With `tools`, a call to a tool
 * not in the list throws `tool_call.unknown_tool` at its name (`unknown: 'keep'` returns it,
 * `'drop'` leaves it out), and arguments that break the tool's schema throw `tool_call.schema`
 * with `path` and the position of the offending value (also inside an `arguments` string).
 * @throws {ToolCallError} malformed JSON (`json.*`, with its position), or a broken call
 *   (`tool_call.invalid_arguments`, `tool_call.ambiguous_arguments`, `tool_call.invalid_name`,
 *   `tool_call.unrecognized`) whose message names the tool and its path in the response;
 *   `response.error` when the response is an error the API returned (its message carries the
 *   API's); `json.invalid_unicode` for a lone surrogate in a response string; in a decoded value,
 *   `json.invalid_number` for NaN or ±Infinity and `json.too_deep` for nesting deeper than 128
 *   or a cycle; `input.too_large` when the input needs more memory than the module can have.
 * @throws {TypeError} `response` is `undefined`, a function, a symbol, an object that is no
 *   decoded JSON value (a fetch `Response` or `Request`: pass `await r.json()`; a `Promise`, a
 *   `Map`, any class instance), or a decoded value holding `undefined` (other than as an object
 *   member, which is left out), a function or a symbol; `provider` is not a string; an unknown
 *   option name or an option of the wrong type.
 * @throws {RangeError} `provider` is neither `'auto'` nor one of `PROVIDERS`.
 */
export function parseResponse<A extends ToolArgs = { [name: string]: Arguments }>(
  response: ProviderResponse,
  options?: ParseResponseOptions & RepairOptions & ToolsOptions<A>,
): ProviderCallOf<A>[];

/** A provider call to one of the tools of `A`, discriminated by `name` (plain `ProviderCall` for the default `A`). */
export type ProviderCallOf<A extends ToolArgs> = string extends keyof A
  ? ProviderCall
  : { [N in keyof A & string]: { id: string | null; name: N; arguments: A[N] } }[keyof A & string];

/**
 * Which API `response` came from, or `null` (plain text, or JSON of no known API).
 * @throws {ToolCallError} text that starts with `{` or `[` but is not strict JSON.
 * @throws {TypeError} as for `parseResponse`.
 */
export function detectProvider(response: ProviderResponse): Provider | null;

/**
 * Whether `response` has tool calls: exactly `parseResponse(response, options).length > 0`,
 * with the same errors.
 */
export function hasToolCalls(response: ProviderResponse, options?: ParseResponseOptions): boolean;

/**
 * The messages (or content blocks, or parts) that carry `results` back to `provider`, in the
 * order given, ready to append to the conversation.
 * @throws {ToolCallError} `result.missing_field` (a result lacks the id or name the provider
 *   requires) or `result.unsupported` (`cohere_v1`: answer with `cohere_v2`), at position 0.
 * @throws {TypeError} `results` is not an array of result objects, or a result has an unknown
 *   key, no `content`, or a field of the wrong type.
 * @throws {RangeError} `provider` is not one of `PROVIDERS` (`'auto'` is not accepted).
 */
export function formatResults(results: readonly ToolResult[], provider: Provider): ResultMessage[];

/** A call as `formatCalls` takes it (the calls of `parseResponse` and `parseMessage` fit). */
export interface CallToFormat {
  id?: string | null;
  name: string;
  arguments: { [key: string]: unknown };
}

/**
 * The assistant message that carries `calls` (and `content` as its text) in `provider`'s wire
 * shape: one message object, or for `openai_responses` and `gemini_interactions` the list of
 * input items. `parseResponse(formatCalls(calls, p), { provider: p })` gives the calls back.
 * @throws {ToolCallError} `result.missing_field` when a call lacks an id the provider requires.
 * @throws {TypeError} `calls` is not an array of call objects, or `content` is not a string.
 * @throws {RangeError} `provider` is not one of `PROVIDERS`.
 */
export function formatCalls(
  calls: readonly CallToFormat[],
  provider: Provider,
  options?: { content?: string | null },
): ResultMessage | ResultMessage[];
/**
 * With `template` and no provider: the calls written as the template's format writes them
 * (`content` first), white space as the template renders it.
 * @throws {ToolCallError} `result.missing_field` when a call lacks an id the format writes.
 */
export function formatCalls(
  calls: readonly CallToFormat[],
  provider: null | undefined,
  options: { template: FormatSpec | FormatSpecDict | string | TokenizerConfig; content?: string | null },
): string;

/** @internal Not part of the API: makes the module panic, for beacon's own tests. */
export function _panicForTesting(): never;

/**
 * @internal Not part of the API: makes allocations of the current WebAssembly instance fail
 * beyond `bytes` in use, for beacon's own tests. Returns the instance's memory size, before.
 */
export function _setMemoryLimitForTesting(bytes: number): number;

/** @internal Not part of the API: the current WebAssembly instance's memory size in bytes. */
export function _memoryBytesForTesting(): number;

/**
 * Where `init` loads the WebAssembly module from: a URL to fetch (a string or a `URL`), a fetch
 * `Response` (or a promise of one), the module's bytes, or a compiled `WebAssembly.Module`. (`URL`,
 * `Response` and `WebAssembly.Module` are typed as `object`, so these declarations need no DOM
 * library.)
 */
export type WasmModuleSource = string | ArrayBuffer | ArrayBufferView | object;

/**
 * Loads the WebAssembly module; by default the `.wasm` next to the package's file. Every entry
 * of the package but one loads it as it is imported, and there this resolves at once;
 * `beacon-toolcall/init` (no top-level await: for CommonJS or classic-script bundles, such as a
 * Web Worker's) loads nothing until this (or `initSync`) is called, and every other function
 * throws until then. Calling it again, once loaded, does nothing. A bundle without
 * `import.meta.url` must pass the source, e.g. the asset `beacon-toolcall/wasm`:
 * `import wasm from 'beacon-toolcall/wasm'; await init({ module_or_path: wasm })`.
 */
export function init(
  source?: { module_or_path?: WasmModuleSource | Promise<WasmModuleSource> } | WasmModuleSource | Promise<WasmModuleSource>,
): Promise<void>;

/**
 * Loads the WebAssembly module synchronously from its bytes or a compiled `WebAssembly.Module`
 * (`source`, or `source.module`); does nothing once it is loaded. See `init`.
 */
export function initSync(source: { module: ArrayBuffer | ArrayBufferView | object } | ArrayBuffer | ArrayBufferView | object): void;
