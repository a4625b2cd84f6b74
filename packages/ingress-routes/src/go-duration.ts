/** Go's time.ParseDuration, which ingress-nginx's flags and annotations are read with, in seconds. */

/**
 * Seconds per unit. The micro signs (U+00B5 and U+03BC) are escapes: one character above ASCII in
 * the bundled controller makes V8 keep its whole source as a two-byte string.
 */
const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  '\u00b5s': 1e-6,
  '\u03bcs': 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};
const DURATION_PART = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/gy;

/**
 * A duration as Go's time.ParseDuration reads it (`1m`, `10s`, `1h30m`, `1.5m`, `500ms`), in
 * seconds; undefined when it is not one. No sign: a negative duration means nothing here.
 */
export function parseGoDuration(value: string): number | undefined {
  if (value === '0') return 0;
  if (value === '' || value.length > 64) return undefined;
  DURATION_PART.lastIndex = 0;
  let seconds = 0;
  let end = 0;
  for (let match = DURATION_PART.exec(value); match !== null; match = DURATION_PART.exec(value)) {
    seconds += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
    end = DURATION_PART.lastIndex;
  }
  return end === value.length ? seconds : undefined;
}
