/**
 * Quotes a string as one nginx configuration token, or returns undefined when it cannot be made
 * safe: control characters (newline, NUL, …) have no escape in nginx's parser, and `$` would start
 * a variable, so values holding them never reach nginx.conf.
 */
export function quoteNginxString(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f$]/.test(value)) return undefined;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
