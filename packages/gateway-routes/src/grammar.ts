/** Checks of the values the Gateway API CRDs constrain; each returns a message, or undefined when valid. */
import { checkPortableRegex, isValidHostname } from '@ingresskit/route-model';

// The Kubernetes name grammars and the locale-free order every translator shares.
export { checkDnsLabel, checkDnsSubdomain, isPortNumber } from '@ingresskit/kube-objects';
export { compareText } from '@ingresskit/route-model';

/** `value` when it is an object (fields still unchecked), else an empty one. */
export function objectOr<T extends object>(value: unknown): Partial<T> {
  return typeof value === 'object' && value !== null ? value : {};
}

/** `value` when it is an array, else an empty one. */
export function arrayOr(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A string field that may be absent: undefined for null, undefined and ''. */
export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Checks a Gateway API hostname: lower case, optionally one leading `*.`, no IP address. */
export function checkHostname(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '*' || !isValidHostname(value)) {
    return 'must be a lower-case DNS name, optionally with a leading "*." label';
  }
  if (/^[0-9.]+$/.test(value) || value.includes(':')) return 'must not be an IP address';
  return undefined;
}

/** Checks a hostname without wildcard (a redirect's or a rewrite's hostname). */
export function checkPreciseHostname(value: unknown): string | undefined {
  const problem = checkHostname(value);
  if (problem !== undefined) return problem;
  return (value as string).startsWith('*.') ? 'must not be a wildcard' : undefined;
}

/** An HTTP header name (RFC 7230 token), as the CRD allows it. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]{1,256}$/;

/** Checks a header name. */
export function checkHeaderName(value: unknown): string | undefined {
  return typeof value === 'string' && HEADER_NAME.test(value)
    ? undefined
    : 'must be an HTTP header name (1-256 token characters)';
}

/** Checks a header or query value: at most 4096 characters, no control characters. */
export function checkHeaderValue(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 4096) return 'must be a string of at most 4096 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return 'must not contain control characters';
  return undefined;
}

/** Characters of a literal path, as the CRD allows them (`%` only before two hex digits). */
const LITERAL_PATH = /^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$/;

/**
 * Checks an Exact or PathPrefix value (and the paths of redirects and rewrites) as the CRD does:
 * absolute, at most 1024 characters, no `//`, `/./`, `/../`, `%2F`, `#`, not ending in `/.` or
 * `/..`. Returns the value percent-decoded, as the data plane compares decoded paths.
 */
export function parseLiteralPath(
  value: unknown,
): { ok: true; path: string } | { ok: false; message: string } {
  if (typeof value !== 'string' || value === '' || value.length > 1024) {
    return { ok: false, message: 'must be a path of 1 to 1024 characters' };
  }
  if (!value.startsWith('/')) return { ok: false, message: 'must start with "/"' };
  if (!LITERAL_PATH.test(value)) {
    return { ok: false, message: "may hold only A-Z a-z 0-9 - / . _ ~ ! $ & ' ( ) * + , ; = : @ and %XX" };
  }
  for (const bad of ['//', '/./', '/../']) {
    if (value.includes(bad)) return { ok: false, message: `must not contain "${bad}"` };
  }
  if (/%2f/i.test(value)) return { ok: false, message: 'must not contain "%2F"' };
  if (value.endsWith('/.') || value.endsWith('/..'))
    return { ok: false, message: 'must not end in "/." or "/.."' };
  let path: string;
  try {
    path = decodeURIComponent(value);
  } catch {
    return { ok: false, message: 'holds an invalid percent-encoding' };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return { ok: false, message: 'must not encode control characters' };
  return { ok: true, path };
}

/** Longest regular expression accepted, as the CRD's path value limit. */
export const MAX_REGEX_LENGTH = 1024;

/**
 * Checks a RegularExpression value: printable ASCII, and in route-model's portable subset (escapes
 * of classes and punctuation, and of `\`; no `(?` group other than `(?:`; compiles). The value is
 * data: it is never spliced into configuration.
 */
export function checkRegex(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > MAX_REGEX_LENGTH) return `must be at most ${MAX_REGEX_LENGTH} characters`;
  if (!/^[\u0020-\u007e]*$/.test(value)) return 'may hold only printable ASCII characters';
  return checkPortableRegex(value, '\\');
}

/** A Gateway API duration (GEP-2257): `1h`, `30s`, `1m30s`, `500ms`; up to four parts. */
const DURATION = /^(?:[0-9]{1,5}(?:h|m|s|ms)){1,4}$/;
const DURATION_PART = /([0-9]{1,5})(h|ms|m|s)/g;
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** Milliseconds of a Gateway API duration, or undefined when it is not one. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value !== 'string' || !DURATION.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(DURATION_PART)) total += Number(amount) * UNIT_MS[unit!]!;
  return total;
}

/** Milliseconds since the epoch of a creationTimestamp; a missing or invalid one is `Infinity`. */
export function toMillis(value: unknown): number {
  const millis =
    value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(millis) ? Number.POSITIVE_INFINITY : millis;
}

/** A generation as a condition's observedGeneration: a non-negative integer, or undefined. */
export function generationOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
