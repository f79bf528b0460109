// Runs the shared provider-response fixtures (tests/fixtures/providers/*.json, schema in its
// README) against the beacon-toolcall API: parseResponse (on text and on the decoded value),
// detectProvider and hasToolCalls agreement on every case, and formatResults. Plain ES module:
// the Node tests (providers.test.mjs) and the browser test (tests/browser/test_playground.py,
// in the playground page) use this same file, so both check exactly the same things.

import { diffExact, parseJsonExact, show, utf16Offset } from './fixture-lib.mjs';

// ------------------------------------------------------------------------------------------
// Serialising fixture values (BigInts included) the test's own way, independently of the
// package: `indent` 0 is compact, the text JSON.stringify writes for the same value.

export function toJsonExact(value, indent = 0, depth = 0) {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const pad = indent ? `\n${' '.repeat(indent * (depth + 1))}` : '';
  const end = indent ? `\n${' '.repeat(indent * depth)}` : '';
  const sep = indent ? ': ' : ':';
  const items = Array.isArray(value)
    ? value.map((v) => toJsonExact(v, indent, depth + 1))
    : Object.keys(value).map((k) => `${JSON.stringify(k)}${sep}${toJsonExact(value[k], indent, depth + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return items.length ? `${open}${pad}${items.join(`,${pad}`)}${end}${close}` : `${open}${close}`;
}

// ------------------------------------------------------------------------------------------

/** Runs `fn`, returning `{ value }` or `{ error }`. */
function attempt(fn) {
  try {
    return { value: fn() };
  } catch (error) {
    return { error };
  }
}

const errorSummary = (e) => (e && e.code !== undefined
  ? { code: e.code, position: e.position, line: e.line, column: e.column, message: e.message }
  : { thrown: `${e && e.name}: ${e && e.message}` });

/** Line and column (1-based, UTF-16 units) of the UTF-16 offset `position` in `text`. */
function lineColumn(text, position) {
  const before = text.slice(0, position);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: position - lineStart + 1 };
}

/**
 * Checks an outcome `{ value } | { error }` of parseResponse against the case. `text` is the
 * text the error positions refer to; `position` (UTF-16) is checked when given.
 */
function checkOutcome(beacon, c, got, text, position, label, problems) {
  if (c.expected) {
    if (got.error) {
      problems.push(`${label}: threw ${show(errorSummary(got.error))}`);
      return;
    }
    // The receipts: their codes here; their positions in the case's own text (UTF-16 here).
    const bare = (calls) => calls.map(({ repairs, ...call }) => call);
    const receipts = (calls, at) => calls.map((call) => (call.repairs ?? []).map((r) => [r.code, at(r.position)]));
    const d = diffExact(bare(got.value), bare(c.expected.calls), 'calls');
    if (d) problems.push(`${label}: ${d}`);
    const own = label === 'text' && 'response_text' in c;
    const mine = receipts(got.value, (p) => (own ? p : null));
    const want = receipts(c.expected.calls, (p) => (own ? utf16Offset(text, p) : null));
    const r = diffExact(mine, want, 'receipts');
    if (r) problems.push(`${label}: ${r}`);
    if (got.value.some((call) => call.repairs !== undefined && !call.repairs.length)) problems.push(`${label}: empty repairs`);
    return;
  }
  const want = c.error;
  if (!got.error) {
    problems.push(`${label}: expected ${want.code}, got ${show(got.value)}`);
    return;
  }
  const e = got.error;
  if (!(e instanceof beacon.ToolCallError) || !(e instanceof Error) || e instanceof beacon.NoToolCallFoundError) {
    problems.push(`${label}: expected a ToolCallError, got ${e && e.name}: ${e && e.message}`);
    return;
  }
  if (e.code !== want.code) problems.push(`${label}: code ${e.code}, want ${want.code} (${e.message})`);
  if (want.message_contains !== undefined && !e.message.includes(want.message_contains)) {
    problems.push(`${label}: message ${show(e.message)} does not contain ${show(want.message_contains)}`);
  }
  if (e.path !== want.path) problems.push(`${label}: path ${show(e.path)}, want ${show(want.path)} (${e.message})`);
  if (position !== undefined && e.position !== position) {
    problems.push(`${label}: position ${e.position}, want ${position} (${e.message})`);
  }
  if (!(Number.isInteger(e.position) && e.position >= 0 && e.position <= text.length)) {
    problems.push(`${label}: position ${e.position} is not an index into the text (length ${text.length})`);
    return;
  }
  const at = lineColumn(text, e.position);
  if (e.line !== at.line || e.column !== at.column) {
    problems.push(`${label}: line/column ${e.line}:${e.column}, the position is at ${at.line}:${at.column}`);
  }
  const prefix = `${e.code} at line ${e.line}, column ${e.column}: `;
  if (!e.message.startsWith(prefix)) problems.push(`${label}: message ${show(e.message)} does not start with ${show(prefix)}`);
}

/** Same outcome: equal values, or errors with the same class, code, position and message. */
function sameOutcome(a, b) {
  if (a.error || b.error) {
    return Boolean(a.error && b.error) && a.error.constructor === b.error.constructor
      && show(errorSummary(a.error)) === show(errorSummary(b.error));
  }
  return diffExact(a.value, b.value) === null;
}

const outcomeText = (o) => (o.error ? `threw ${show(errorSummary(o.error))}` : show(o.value));

/**
 * The options of parseResponse the case gives: provider, textFallback, and its tools (compiled
 * into a Tools) with validate and unknown.
 */
function responseOptions(beacon, c) {
  const options = { provider: c.provider ?? 'auto', textFallback: c.text_fallback ?? false };
  if (c.repair) options.repair = true;
  if (c.tools !== undefined) {
    options.tools = new beacon.Tools(c.tools);
    options.validate = c.validate ?? true;
    options.unknown = c.unknown ?? 'error';
  }
  return options;
}

/**
 * parseResponse, hasToolCalls and detectProvider on one form of the response (`input`, a string
 * or a decoded value; `text` is the text errors point into).
 */
function checkForm(beacon, c, input, text, position, label, problems) {
  const { tools, validate, unknown, repair, ...options } = responseOptions(beacon, c);
  const got = attempt(() => beacon.parseResponse(input, { ...options, tools, validate, unknown, repair }));
  checkOutcome(beacon, c, got, text, position, label, problems);

  // hasToolCalls (which takes no tools) is parseResponse being non-empty, or the same error.
  const has = attempt(() => beacon.hasToolCalls(input, options));
  const want = got.error ? got : { value: got.value.length > 0 };
  if (tools === undefined && !repair && !sameOutcome(has, want)) {
    problems.push(`${label}: hasToolCalls ${outcomeText(has)} disagrees with parseResponse (${outcomeText(want)})`);
  }

  // detectProvider: the expected provider; for malformed JSON, parseResponse's error.
  const detected = attempt(() => beacon.detectProvider(input));
  const wantProvider = c.expected ? c.expected.provider : c.error.provider;
  if (wantProvider === undefined) {
    if (!sameOutcome(detected, got)) {
      problems.push(`${label}: detectProvider ${outcomeText(detected)}, want parseResponse's error ${outcomeText(got)}`);
    }
  } else if (detected.error || detected.value !== wantProvider) {
    problems.push(`${label}: detectProvider ${outcomeText(detected)}, want ${show(wantProvider)}`);
  }
  if (!detected.error && detected.value === null && options.provider === 'auto'
      && !got.error && got.value.length > 0) {
    problems.push(`${label}: calls found although no provider was detected`);
  }
  return got;
}

/** A response case: the text form, then the decoded-value form. */
function runResponseCase(beacon, c) {
  const problems = [];
  if (('response' in c) === ('response_text' in c)) return ['a case has exactly one of `response` and `response_text`'];
  if (('expected' in c) === ('error' in c)) return ['a case has exactly one of `expected` and `error`'];
  if (c.error && c.error.position !== undefined && !('response_text' in c)) return ['`position` needs `response_text`'];

  // Text: response_text as given (positions converted from code points to UTF-16), or the
  // response serialised with indentation (any formatting will do).
  const text = 'response_text' in c ? c.response_text : toJsonExact(c.response, 2);
  const position = c.error?.position === undefined ? undefined : utf16Offset(text, c.error.position);
  checkForm(beacon, c, text, text, position, 'text', problems);

  // Decoded value: `response`, or response_text decoded when it is JSON and the case is not about
  // malformed JSON (an error without `provider`). A decoded string would be read as text, so
  // there is no value form of a top-level JSON string.
  let value;
  if ('response' in c) {
    value = c.response;
  } else if (!(c.error && c.error.provider === undefined)) {
    try {
      value = parseJsonExact(c.response_text);
    } catch {
      return problems; // plain text: no value form
    }
    if (typeof value === 'string') return problems;
  } else {
    return problems;
  }
  // Positions of a decoded value refer to its JSON.stringify text: exactly what the text form
  // gives on that text.
  const compact = toJsonExact(value);
  const got = checkForm(beacon, c, value, compact, undefined, 'value', problems);
  const onCompact = attempt(() => beacon.parseResponse(compact, responseOptions(beacon, c)));
  if (!sameOutcome(got, onCompact)) {
    problems.push(`value: ${outcomeText(got)}, but its JSON.stringify text gives ${outcomeText(onCompact)}`);
  }
  return problems;
}

/** A format_results case, with the results as written (`is_error`) and in JS style (`isError`). */
function runResultsCase(beacon, c) {
  const problems = [];
  if (('expected' in c) === ('error' in c)) return ['a case has exactly one of `expected` and `error`'];
  const camel = c.results.map(({ is_error: isError, ...rest }) => (isError === undefined ? rest : { ...rest, isError }));
  for (const [label, results] of [['is_error', c.results], ['isError', camel]]) {
    const got = attempt(() => beacon.formatResults(results, c.provider));
    if (c.expected) {
      if (got.error) {
        problems.push(`${label}: threw ${show(errorSummary(got.error))}`);
        continue;
      }
      const d = diffExact(got.value, c.expected, 'output');
      if (d) problems.push(`${label}: ${d}`);
      continue;
    }
    const e = got.error;
    if (!e) {
      problems.push(`${label}: expected ${c.error.code}, got ${show(got.value)}`);
      continue;
    }
    if (!(e instanceof beacon.ToolCallError)) {
      problems.push(`${label}: expected a ToolCallError, got ${e.name}: ${e.message}`);
      continue;
    }
    const d = diffExact({ code: e.code, position: e.position, line: e.line, column: e.column },
      { code: c.error.code, position: 0, line: 1, column: 1 }, 'error');
    if (d) problems.push(`${label}: ${d} (${e.message})`);
    if (c.error.message_contains !== undefined && !e.message.includes(c.error.message_contains)) {
      problems.push(`${label}: message ${show(e.message)} does not contain ${show(c.error.message_contains)}`);
    }
  }
  return problems;
}

/**
 * Runs one case of the provider fixture file `file` against `beacon` (the module's exports);
 * returns the problems found, as sentences (none: the case passes).
 */
export function runProviderCase(beacon, file, c) {
  return file === 'format_results.json' ? runResultsCase(beacon, c) : runResponseCase(beacon, c);
}
