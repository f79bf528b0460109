// Runs the ```js examples of Markdown pages against the built package, as doctests: an example is
// run as the body of an async function, its `import … from 'beacon-toolcall'` line taken from the
// package under test, and each `// → VALUE` comment checks what the line before it gave:
//
//   expr;                    // the line before is an expression statement: its value
//   const x = expr;          // a declaration: the value of x
//   … console.log(a, b) …    // code that logs since the last check (a try/catch, say): what it logged
//   // → VALUE               // util.inspect of that, on one line; `...` matches anything
//
// Two spaces and a parenthesis end the value (`// → 14   (UTF-16 units)` checks `14`). An example
// may use a few names it does not define, for what a reader's program has (EXAMPLE_ENV): the model's
// tokens, a place to send chunks, a fetch response.

import { inspect } from 'node:util';

/** The ```js blocks of a Markdown text, as `{ code, line }` (line: 1-based, of the fence). */
export function jsBlocks(markdown) {
  const out = [];
  const re = /^```js\n([\s\S]*?)^```$/gm;
  let m;
  while ((m = re.exec(markdown))) out.push({ code: m[1], line: markdown.slice(0, m.index).split('\n').length });
  return out;
}

const ANTHROPIC_RESPONSE = {
  id: 'msg_01', type: 'message', role: 'assistant', stop_reason: 'tool_use',
  content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }],
};

/** Names an example may use without defining them (each only where the example does not). */
export const EXAMPLE_ENV = {
  modelTokens: () => ['Let me check', '.\n<tool', '_call>\n{"name": "get_weather", ', '"arguments": {"city": "Pa', 'ris"}}\n</tool_call>', '<|im_end|>'],
  send: () => () => {},
  res: () => ({ json: async () => ANTHROPIC_RESPONSE, text: async () => JSON.stringify(ANTHROPIC_RESPONSE) }),
};

const show = (v) => inspect(v, { depth: Infinity, breakLength: Infinity, compact: true, maxArrayLength: Infinity, maxStringLength: Infinity });
const squash = (s) => s.replace(/\s+/g, ' ').trim();

function matches(actual, expected) {
  const pattern = squash(expected).split('...').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(squash(actual));
}

/** The example's code, rewritten to check its `// →` comments (see the top of this file). */
export function instrument(code, exportNames) {
  const lines = code.split('\n');
  const out = [];
  let checks = 0;
  let lastCheck = 0;   // index in `out` after the last check
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const imp = /^import\s*\{([^}]*)\}\s*from\s*'beacon-toolcall';/.exec(line);
    if (imp) {
      const names = imp[1].split(',').map((s) => s.trim()).filter(Boolean);
      for (const n of names) if (!exportNames.includes(n)) throw new Error(`the example imports ${n}, which the package does not export`);
      out.push(`const { ${names.join(', ')} } = __beacon;`);
      continue;
    }
    const arrow = /^(\s*)\/\/ → (.*)$/.exec(line);
    if (!arrow) {
      out.push(line);
      continue;
    }
    const expected = JSON.stringify(arrow[2].replace(/\s{2,}\(.*\)\s*$/, ''));
    let j = out.length - 1;
    while (j >= 0 && out[j].trim() === '') j--;
    const before = out[j] ?? '';
    checks++;
    const sinceLastCheck = out.slice(lastCheck);
    if (sinceLastCheck.some((l) => l.includes('console.log('))) {
      out.push(`${arrow[1]}__checkLog(${expected}, ${i + 1});`);
      lastCheck = out.length;
      continue;
    }
    const decl = /^(\s*)(const|let|var)\s+([A-Za-z_$][\w$]*)\s*=.*;\s*(\/\/.*)?$/.exec(before);
    if (decl) {
      out.push(`${arrow[1]}__check(${decl[3]}, ${expected}, ${i + 1});`);
      lastCheck = out.length;
      continue;
    }
    const stmt = /^(\s*)(.*?);\s*(\/\/.*)?$/.exec(before);
    if (!stmt || /^(if|for|while|try|return|throw|const|let|var|function)\b/.test(stmt[2]) || stmt[2].endsWith('}')) {
      throw new Error(`line ${i + 1}: a \`// →\` comment must follow an expression statement, a declaration or a console.log: ${before}`);
    }
    out[j] = `${stmt[1]}__check((${stmt[2]}), ${expected}, ${i + 1});${stmt[3] ? ` ${stmt[3]}` : ''}`;
    lastCheck = out.length;
  }
  return { code: out.join('\n'), checks };
}

/** Runs one example against the package `beacon`; returns the number of `// →` checks it made. */
export async function runExample(beacon, code) {
  const { code: body, checks } = instrument(code, Object.keys(beacon));
  const logs = [];
  let seen = 0;
  let ran = 0;
  const fakeConsole = {
    ...console,
    log: (...args) => logs.push(args.map((a) => (typeof a === 'string' ? a : show(a))).join(' ')),
  };
  const __check = (value, expected, line) => {
    ran++;
    if (!matches(show(value), expected)) throw new Error(`line ${line}: got ${show(value)}, the example says ${expected}`);
  };
  const __checkLog = (expected, line) => {
    ran++;
    const got = logs.slice(seen).join('\n');
    seen = logs.length;
    if (!matches(got, expected)) throw new Error(`line ${line}: logged ${JSON.stringify(got)}, the example says ${expected}`);
  };
  const envNames = Object.keys(EXAMPLE_ENV).filter(
    (n) => new RegExp(`\\b${n}\\b`).test(body) && !new RegExp(`\\b(const|let|var|function)\\s+${n}\\b`).test(body),
  );
  const AsyncFunction = (async () => {}).constructor;
  const fn = new AsyncFunction('__beacon', '__check', '__checkLog', 'console', ...envNames, body);
  await fn(beacon, __check, __checkLog, fakeConsole, ...envNames.map((n) => EXAMPLE_ENV[n]()));
  if (ran !== checks) throw new Error(`${checks - ran} of the example's ${checks} \`// →\` checks never ran`);
  return checks;
}
