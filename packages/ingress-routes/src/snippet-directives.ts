/**
 * translateSnippet: a configuration-snippet, when the operator allows its directives, as request
 * and response header changes of the route model. The snippet travels as data and never reaches
 * nginx.conf; only the header directives below are understood, with literal values.
 */
import type { HeaderModifier } from '@ingresskit/route-model';
import { createRequestHeaderGrammar, isLiteralHeaderValue, type HeaderGrammar } from './configmap-headers.js';
import { RESPONSE_HEADERS } from './custom-headers.js';
import { quoteSnippetText, tokenizeDirectives, type SnippetDirective } from './nginx-directive-tokens.js';
import type { SnippetHeaders } from './annotation-parts.js';

/** The directives a snippet may hold, once the operator allows them: the ones we can translate. */
export const SNIPPET_DIRECTIVES = [
  'add_header',
  'more_clear_headers',
  'more_clear_input_headers',
  'more_set_headers',
  'more_set_input_headers',
  'proxy_hide_header',
  'proxy_set_header',
] as const;

/** One directive of SNIPPET_DIRECTIVES. */
export type SnippetDirectiveName = (typeof SNIPPET_DIRECTIVES)[number];

/** Most headers one snippet may change on each side. */
const MAX_HEADERS = 64;

/** Headers of the request sent on that the gateway sets itself (as the ConfigMap's proxy-set-headers). */
const REQUEST_HEADERS = createRequestHeaderGrammar(
  ['x-forwarded-host', 'x-forwarded-port', 'x-forwarded-proto', 'x-forwarded-scheme'],
  'is a header the gateway sets itself',
);

const KNOWN: ReadonlySet<string> = new Set(SNIPPET_DIRECTIVES);

/** Whether `name` is a directive translateSnippet understands. */
export function isSnippetDirective(name: string): name is SnippetDirectiveName {
  return KNOWN.has(name);
}

/**
 * What one header change does, in the order written: `set` replaces every value, `add` appends
 * one, `clear` removes the header and what the snippet set before, `hide` removes only the
 * backend's header (nginx's proxy_hide_header leaves add_header's values alone).
 */
type HeaderChange =
  { op: 'set' | 'add'; name: string; value: string } | { op: 'clear' | 'hide'; name: string };

interface HeaderState {
  name: string;
  remove: boolean;
  set?: string;
  add: string[];
}

/** The header changes applied in order, as a route-model modifier (remove, then set, then add). */
function reduceChanges(changes: readonly HeaderChange[]): HeaderModifier | undefined {
  const states = new Map<string, HeaderState>();
  for (const change of changes) {
    const key = change.name.toLowerCase();
    const state = states.get(key) ?? { name: change.name, remove: false, add: [] };
    state.name = change.name;
    if (change.op === 'set') {
      state.set = change.value;
      state.add = [];
    } else if (change.op === 'add') state.add.push(change.value);
    else {
      state.remove = true;
      if (change.op === 'clear') {
        delete state.set;
        state.add = [];
      }
    }
    states.set(key, state);
  }
  const modifier: HeaderModifier = {};
  const all = [...states.values()];
  const remove = all.filter((state) => state.remove).map((state) => state.name);
  const set = all.flatMap((state) =>
    state.set === undefined ? [] : [{ name: state.name, value: state.set }],
  );
  const add = all.flatMap((state) => state.add.map((value) => ({ name: state.name, value })));
  if (remove.length > 0) modifier.remove = remove;
  if (set.length > 0) modifier.set = set;
  if (add.length > 0) modifier.add = add;
  return Object.keys(modifier).length === 0 ? undefined : modifier;
}

/** Why `name` cannot be a header of `grammar`, or undefined. */
function checkName(name: string, grammar: HeaderGrammar): string | undefined {
  if (name.includes('*')) return `${quoteSnippetText(name)}: wildcards are not supported, name each header`;
  if (!grammar.name.test(name)) return `${quoteSnippetText(name)} is not a header name (${grammar.nameRule})`;
  const reserved = grammar.reserved(name.toLowerCase());
  return reserved === undefined ? undefined : `${quoteSnippetText(name)} ${reserved}`;
}

/** Why `value` cannot be sent as written, or undefined. */
function checkValue(name: string, value: string): string | undefined {
  if (value.includes('$'))
    return `the value of "${name}" holds "$": nginx variables are not supported, values are literal text`;
  if (!isLiteralHeaderValue(value))
    return `the value of "${name}" must be at most 2048 printable ASCII characters`;
  return undefined;
}

/** `Name: value` arguments of more_set_headers / more_set_input_headers; `Name:` or `Name` clears. */
function readSetArgs(args: readonly string[], grammar: HeaderGrammar): HeaderChange[] | string {
  if (args.length === 0) return 'needs at least one "Name: value"';
  const changes: HeaderChange[] = [];
  for (const arg of args) {
    if (arg.startsWith('-'))
      return `option ${quoteSnippetText(arg)} is not supported (its headers would hold for every status and type)`;
    const colon = arg.indexOf(':');
    const name = colon === -1 ? arg : arg.slice(0, colon);
    const value = colon === -1 ? '' : arg.slice(colon + 1).replace(/^[ \t]+/, '');
    const problem = checkName(name, grammar) ?? checkValue(name, value);
    if (problem !== undefined) return problem;
    changes.push(value === '' ? { op: 'clear', name } : { op: 'set', name, value });
  }
  return changes;
}

/** Header-name arguments of more_clear_headers / more_clear_input_headers. */
function readClearArgs(args: readonly string[], grammar: HeaderGrammar): HeaderChange[] | string {
  if (args.length === 0) return 'needs at least one header name';
  const changes: HeaderChange[] = [];
  for (const name of args) {
    if (name.startsWith('-')) return `option ${quoteSnippetText(name)} is not supported`;
    const problem = checkName(name, grammar);
    if (problem !== undefined) return problem;
    changes.push({ op: 'clear', name });
  }
  return changes;
}

/** The header changes of one allowed directive, by side, or why it cannot be translated. */
function translateDirective(
  name: SnippetDirectiveName,
  args: readonly string[],
): { side: 'request' | 'response'; changes: HeaderChange[] } | string {
  const within = (changes: HeaderChange[] | string, side: 'request' | 'response') =>
    typeof changes === 'string' ? changes : { side, changes };
  switch (name) {
    case 'more_set_headers':
      return within(readSetArgs(args, RESPONSE_HEADERS), 'response');
    case 'more_clear_headers':
      return within(readClearArgs(args, RESPONSE_HEADERS), 'response');
    case 'more_set_input_headers':
      return within(readSetArgs(args, REQUEST_HEADERS), 'request');
    case 'more_clear_input_headers':
      return within(readClearArgs(args, REQUEST_HEADERS), 'request');
    case 'add_header': {
      if (args.length < 2 || args.length > 3 || (args.length === 3 && args[2] !== 'always'))
        return 'takes a name, a value and optionally "always"';
      const [header, value] = args as [string, string];
      const problem = checkName(header, RESPONSE_HEADERS) ?? checkValue(header, value);
      if (problem !== undefined) return problem;
      // nginx adds nothing for an empty value.
      return { side: 'response', changes: value === '' ? [] : [{ op: 'add', name: header, value }] };
    }
    case 'proxy_set_header': {
      if (args.length !== 2) return 'takes a name and a value';
      const [header, value] = args as [string, string];
      const problem = checkName(header, REQUEST_HEADERS) ?? checkValue(header, value);
      if (problem !== undefined) return problem;
      // nginx does not send a header whose proxy_set_header value is empty.
      return {
        side: 'request',
        changes: [value === '' ? { op: 'clear', name: header } : { op: 'set', name: header, value }],
      };
    }
    case 'proxy_hide_header': {
      if (args.length !== 1) return 'takes one header name';
      const problem = checkName(args[0]!, RESPONSE_HEADERS);
      return problem ?? { side: 'response', changes: [{ op: 'hide', name: args[0]! }] };
    }
  }
}

/** Where a problem of `directive` is: its line and name. */
function at(directive: SnippetDirective): string {
  return `line ${directive.line}, directive "${directive.name}"`;
}

/**
 * The header changes of `text`, or why it cannot be served. Every directive must be one of
 * SNIPPET_DIRECTIVES and in `allowed`, with literal arguments (no `$`); later directives win
 * over earlier ones for the same header, as nginx applies them in order. Never throws.
 */
export function translateSnippet(
  text: string,
  allowed: ReadonlySet<string>,
): { headers: SnippetHeaders } | { problem: string } {
  const tokens = tokenizeDirectives(text);
  if ('problem' in tokens) return tokens;
  const request: HeaderChange[] = [];
  const response: HeaderChange[] = [];
  for (const directive of tokens.directives) {
    if (!isSnippetDirective(directive.name)) {
      return {
        problem: `${at(directive)}: it is not one of the directives this controller translates (${SNIPPET_DIRECTIVES.join(', ')})`,
      };
    }
    if (!allowed.has(directive.name))
      return {
        problem: `${at(directive)}: it is not allowed by the controller's --allow-snippet-directives`,
      };
    const translated = translateDirective(directive.name, directive.args);
    if (typeof translated === 'string') return { problem: `${at(directive)}: ${translated}` };
    const changes = translated.side === 'request' ? request : response;
    changes.push(...translated.changes);
    if (changes.length > MAX_HEADERS)
      return { problem: `${at(directive)}: more than ${MAX_HEADERS} ${translated.side} header changes` };
  }
  const headers: SnippetHeaders = {};
  const requestHeaders = reduceChanges(request);
  const responseHeaders = reduceChanges(response);
  if (requestHeaders !== undefined) headers.request = requestHeaders;
  if (responseHeaders !== undefined) headers.response = responseHeaders;
  return { headers };
}
