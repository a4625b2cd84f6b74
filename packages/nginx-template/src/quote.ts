/**
 * Quoting for nginx.conf tokens. Every string the template writes goes through one of these, even
 * though only validated option values are ever rendered, so a mistake elsewhere still cannot end
 * a token early: inside double quotes nginx reads `;`, `{`, `}`, `#` and spaces literally, and
 * `\"`/`\\` are the only escapes we emit.
 */

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

function wrap(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * Quotes a string as one nginx configuration token, or returns undefined when it cannot be made
 * safe: control characters (newline, NUL, …) have no escape in nginx's parser, and `$` would start
 * a variable, so values holding them never reach nginx.conf.
 */
export function quoteNginxString(value: string): string | undefined {
  if (CONTROL.test(value) || value.includes('$')) return undefined;
  return wrap(value);
}

/**
 * Quotes an argument of a directive that never expands variables in it, such as
 * `lua_package_path` (where `$prefix` is the nginx prefix). Undefined when it holds control
 * characters.
 */
export function quoteNginxLiteral(value: string): string | undefined {
  if (CONTROL.test(value)) return undefined;
  return wrap(value);
}
