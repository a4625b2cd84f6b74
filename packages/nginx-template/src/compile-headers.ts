/**
 * HeaderModifier → the headers entry the Lua router applies to a request or a response. A name or
 * value that could split a message makes the route answer 500.
 */
import type { HeaderModifier } from '@ingresskit/route-model';
import type { HeadersEntry } from './data-entries.js';

/** What compiling reports: a fatal error, by field. */
export interface HeaderIssues {
  error(field: string, message: string, value?: unknown): undefined;
}

// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Field values: visible characters, spaces and tabs; CR, LF and NUL would split or end a header.
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const FIELD_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/;

/** Whether `value` is a header name nginx and Lua can set safely. */
export function isHeaderName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && TOKEN.test(value);
}

/** Whether `value` is a header value that cannot split a message. */
export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 8192 && FIELD_VALUE.test(value);
}

/** Compiles a header modifier at `field`; undefined when nothing valid is left to change. */
export function compileHeaders(
  modifier: HeaderModifier,
  field: string,
  out: HeaderIssues,
): HeadersEntry | undefined {
  const entry: HeadersEntry = {};
  const remove = (modifier.remove ?? []).filter((name, index) => {
    if (isHeaderName(name)) return true;
    out.error(`${field}.remove[${index}]`, 'is not a valid header name', name);
    return false;
  });
  if (remove.length > 0) entry.remove = remove;
  for (const kind of ['set', 'add'] as const) {
    const pairs: [string, string][] = [];
    (modifier[kind] ?? []).forEach((header, index) => {
      if (!isHeaderName(header?.name))
        out.error(`${field}.${kind}[${index}].name`, 'is not a valid header name', header?.name);
      else if (!isHeaderValue(header.value)) {
        out.error(
          `${field}.${kind}[${index}].value`,
          'holds control characters (CR, LF, NUL...)',
          header.value,
        );
      } else pairs.push([header.name, header.value]);
    });
    if (pairs.length > 0) entry[kind] = pairs;
  }
  return Object.keys(entry).length === 0 ? undefined : entry;
}
