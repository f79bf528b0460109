// Type declarations for beacon-toolcall.

/**
 * An argument value, as JSON would give it, except that an integer beyond
 * `Number.MAX_SAFE_INTEGER` (2^53 - 1) in magnitude is a `bigint`, so it is never rounded.
 * A number written with a fraction or an exponent is always a `number`.
 */
export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };

/** One tool call. Argument keys are in the order the model wrote them. */
export interface ToolCall {
  name: string;
  arguments: { [key: string]: Value };
}

/** The format ids, in detection order (see the README's formats table). */
export type Format = 'hermes' | 'bracket' | 'mistral' | 'llama' | 'xml_invoke' | 'json' | 'python';

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
  | 'json.unexpected_token'
  | 'json.unexpected_end'
  | 'json.invalid_string'
  | 'json.invalid_escape'
  | 'json.invalid_unicode'
  | 'json.invalid_number'
  | 'json.duplicate_key'
  | 'json.too_deep'
  | 'json.trailing_characters'
  | 'internal';

/**
 * A parse failure. `message` reads `CODE at line L, column C: explanation`.
 * Positions are in UTF-16 code units, so `text[err.position]` is the offending character.
 */
export class ToolCallError extends Error {
  constructor(
    message: string,
    details?: { code: ErrorCode; position: number; line: number; column: number },
  );
  /** Stable error code, e.g. `json.unexpected_token`. */
  code: ErrorCode;
  /** 0-based offset of the offending character in the input, in UTF-16 code units. */
  position: number;
  /** 1-based line number (lines end at `\n`). */
  line: number;
  /** 1-based column, counted in UTF-16 code units. */
  column: number;
}

/** No tool call in the text: `code` is `tool_call.not_found`, `position` is 0. */
export class NoToolCallFoundError extends ToolCallError {}

/**
 * The one tool call in `text`.
 * @throws {NoToolCallFoundError} when there is none.
 * @throws {ToolCallError} when a call is broken, or with code `tool_call.multiple` when there
 *   are several (use `parseToolCalls` for parallel calls).
 * @throws {TypeError} when `text` is not a string.
 */
export function parseToolCall(text: string): ToolCall;

/**
 * Every tool call in `text`, in text order.
 * @throws {NoToolCallFoundError} when there is none.
 * @throws {ToolCallError} when a call is broken.
 * @throws {TypeError} when `text` is not a string.
 */
export function parseToolCalls(text: string, options: { includeFormat: true }): ToolCallWithFormat[];
export function parseToolCalls(text: string, options?: { includeFormat?: boolean }): ToolCall[];
