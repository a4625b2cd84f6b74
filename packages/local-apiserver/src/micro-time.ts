/** `metav1.MicroTime` as kube-apiserver decodes it: what a real server refuses is refused here. */
import { readPath, type JsonObject } from './objects.js';

/** Go's RFC3339Micro layout, the only form kube-apiserver decodes a `metav1.MicroTime` from. */
export const microTimeLayout = '2006-01-02T15:04:05.000000Z07:00';

const microTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const dateTimePrefix = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?/;

/** True when `value` is a MicroTime string kube-apiserver can decode (exactly 6 fractional digits). */
export function isMicroTime(value: unknown): value is string {
  return typeof value === 'string' && microTimePattern.test(value) && !Number.isNaN(Date.parse(value));
}

/**
 * The error Go's decoder reports for the first MicroTime at `paths` (dotted, in the request's own
 * version) that is present and would not decode, or undefined when all of them decode.
 */
export function findMicroTimeDecodeError(object: JsonObject, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const value = readPath(object, path.split('.'));
    if (value === undefined || value === null || isMicroTime(value)) continue;
    if (typeof value !== 'string') {
      // Go's json.Unmarshal into a string names the JSON type it found.
      const type = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
      return `json: cannot unmarshal ${type} into Go value of type string`;
    }
    return `parsing time ${JSON.stringify(value)} as "${microTimeLayout}": ${describeMismatch(value)}`;
  }
  return undefined;
}

// Like Go's time.Parse: name the unparsed rest and the layout element that should have matched it.
function describeMismatch(text: string): string {
  const prefix = dateTimePrefix.exec(text);
  if (!prefix) return 'not an RFC 3339 date and time';
  const rest = text.slice(prefix[0].length);
  if (prefix[1] === undefined) return `cannot parse ${JSON.stringify(rest)} as ".000000"`;
  if (/^(Z|[+-]\d{2}:\d{2})$/.test(rest)) return 'date or time out of range';
  return `cannot parse ${JSON.stringify(rest)} as "Z07:00"`;
}
