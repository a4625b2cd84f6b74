/**
 * The strict grammars every user-supplied string must match before it may enter the route model.
 * Each check returns `undefined` for a valid value, or a short reason for a problem message.
 * The grammars are deliberately narrower than what Kubernetes accepts where a proxy would read a
 * character specially (quotes, braces, `;`, `#`, `$`, whitespace, backslashes, control bytes):
 * values travel to the data plane as data, but a data plane that ever templates one must not be
 * able to be injected.
 */
import { checkDnsSubdomain, isPortNumber } from '@ingresskit/kube-objects';
import { checkPortableRegex } from '@ingresskit/route-model';
import { isIP } from 'node:net';

/**
 * Checks an Ingress host: an RFC 1123 subdomain, optionally starting with `*.` (one wildcard
 * label). Upper case is refused rather than folded, as the API server does.
 */
export function checkHost(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  const name = value.startsWith('*.') ? value.slice(2) : value;
  if (checkDnsSubdomain(name) !== undefined) {
    return 'must be an RFC 1123 host name, optionally starting with "*."';
  }
  if (isIP(name) !== 0) return 'must be a host name, not an IP address';
  return undefined;
}

/** Checks a host[:port] for the upstream-vhost annotation (no wildcard, port 1-65535). */
export function checkHostWithPort(value: string): string | undefined {
  const match = /^([^:]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return 'must be host or host:port';
  const [, host, port] = match;
  if (host === undefined || host.startsWith('*.') || checkHost(host) !== undefined) {
    return 'must be an RFC 1123 host name, optionally followed by :port';
  }
  if (port !== undefined && !isPortNumber(Number(port))) return 'port must be 1-65535';
  return undefined;
}

/** Longest path accepted; far beyond real routes, small enough to keep configs readable. */
export const MAX_PATH_LENGTH = 1024;

const LITERAL_PATH = /^\/[A-Za-z0-9._~\-/]*$/;

/**
 * Checks a literal (Exact, Prefix or non-regex ImplementationSpecific) path: it starts with `/`
 * and holds only letters, digits and `. _ ~ - /`, like ingress-nginx's strict path validation.
 */
export function checkLiteralPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`;
  if (!LITERAL_PATH.test(value)) return 'must start with "/" and hold only A-Z a-z 0-9 . _ ~ - /';
  return undefined;
}

/** Longest regex path accepted. */
export const MAX_REGEX_LENGTH = 512;

// Characters a regex path may use outside escapes. Absent on purpose: quotes, whitespace, `;`,
// `#`, backticks and anything non-ASCII, so the quoted token can never end early.
const REGEX_CHARS = /^[A-Za-z0-9._~\-/()|^$*+?[\]{},:=!@%&<>]*$/;

/**
 * Checks a regex path (ImplementationSpecific with use-regex): starts with `/`, uses a safe
 * character set, and is in route-model's portable subset (escapes of classes and punctuation only,
 * no `(?` group other than `(?:`, compiles). `\n`, `\t` and `\r` stay out of the escapes because
 * nginx's own string parser would turn them into control bytes before PCRE sees them.
 */
export function checkRegexPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > MAX_REGEX_LENGTH) return `must be at most ${MAX_REGEX_LENGTH} characters`;
  if (!value.startsWith('/')) return 'must start with "/"';
  if (!REGEX_CHARS.test(value.replace(/\\[\s\S]?/g, 'x'))) {
    return 'may hold only A-Z a-z 0-9 and . _ ~ - / ( ) | ^ $ * + ? [ ] { } , : = ! @ % & < > and escapes';
  }
  return checkPortableRegex(value);
}

/**
 * Parses a CIDR (`10.0.0.0/8`, `2001:db8::/32`) or a bare IP; returns the canonical text
 * (bare IPs stay bare), or undefined when invalid.
 */
export function parseCidr(value: string): string | undefined {
  const match = /^([0-9A-Fa-f:.]+)(?:\/(\d{1,3}))?$/.exec(value);
  if (!match) return undefined;
  const [, address, prefix] = match;
  const family = isIP(address ?? '');
  if (family === 0) return undefined;
  if (prefix !== undefined) {
    const bits = Number(prefix);
    if (bits > (family === 4 ? 32 : 128) || String(bits) !== prefix) return undefined;
  }
  return value.toLowerCase();
}

/** Checks an IP address of an endpoint (IPv4 or IPv6, no zone). */
export function isIpAddress(value: unknown): value is string {
  return typeof value === 'string' && isIP(value) !== 0 && !value.includes('%');
}

/** Most CIDRs one annotation may list. */
const MAX_SOURCE_RANGES = 256;

/** A comma-separated list of CIDRs → canonical, unique, sorted; or a reason. */
export function parseCidrList(value: string): string[] | string {
  const entries = value
    .split(',')
    .map((entry) => entry.replace(/^ +| +$/g, ''))
    .filter((entry) => entry !== '');
  if (entries.length === 0) return 'must list at least one CIDR';
  if (entries.length > MAX_SOURCE_RANGES) return `must list at most ${MAX_SOURCE_RANGES} CIDRs`;
  const ranges: string[] = [];
  for (const entry of entries) {
    const range = parseCidr(entry);
    if (range === undefined) return `"${entry}" is not an IPv4 or IPv6 address or CIDR`;
    ranges.push(range);
  }
  return [...new Set(ranges)].sort();
}

// The spellings Go's strconv.ParseBool accepts, with which ingress-nginx reads every boolean
// annotation and ConfigMap value: "tRuE" or "yes" are errors there, so they are here.
const TRUE_SPELLINGS: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_SPELLINGS: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Why a value readBoolean refuses is invalid, for problems. */
export const BOOLEAN_PROBLEM = 'must be "true" or "false" (or 1, t, T, TRUE, True, 0, f, F, FALSE, False)';

/** A boolean as Go's strconv.ParseBool reads it → the boolean; anything else → undefined. */
export function readBoolean(value: string): boolean | undefined {
  return TRUE_SPELLINGS.has(value) ? true : FALSE_SPELLINGS.has(value) ? false : undefined;
}

/** A parser of a boolean value into `T` with `set`: why the value is not a boolean, or undefined. */
export function booleanParser<T>(
  set: (into: T, value: boolean) => void,
): (value: string, into: T) => string | undefined {
  return (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    set(into, on);
    return undefined;
  };
}

/**
 * Whether `value` says `expected` (lower case): the same text without case, or, when `expected`
 * is "true" or "false", any spelling readBoolean reads as that boolean ("0" says "false").
 */
export function saysValue(value: string, expected: string): boolean {
  if (value.toLowerCase() === expected) return true;
  const on = readBoolean(value);
  return on !== undefined && String(on) === expected;
}

/** The entries of a list separated by commas, each trimmed, empty ones left out. */
export function splitCommaList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** A MIME type TYPE/SUBTYPE as nginx.conf may hold it unquoted. */
export const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63}$/;

/** Most MIME types a list key (gzip-types, brotli-types) may hold. */
export const MAX_MIME_TYPES = 100;

/** MIME types separated by spaces, or "*" → the distinct types; else the problem. */
export function readMimeTypeList(value: string): string[] | string {
  const types = value.split(/\s+/).filter((type) => type !== '');
  if (types.length === 0 || types.length > MAX_MIME_TYPES)
    return `must hold from 1 to ${MAX_MIME_TYPES} MIME types separated by spaces`;
  const bad = types.find((type) => type !== '*' && !MIME_TYPE.test(type));
  if (bad !== undefined)
    return `must hold MIME types such as text/css, or "*" (${JSON.stringify(bad)} is not one)`;
  return [...new Set(types)];
}

const FILE_PATH = /^\/[A-Za-z0-9._~+@/-]{1,1023}$/;

/**
 * The problem of a file path a ConfigMap key names for nginx to write (a log), or undefined: an
 * absolute path of a safe alphabet, without `.` or `..` segments, naming a file.
 */
export function checkFilePath(value: string): string | undefined {
  if (!FILE_PATH.test(value) || value.split('/').some((segment) => segment === '..' || segment === '.'))
    return 'must be an absolute file path of A-Z a-z 0-9 . _ ~ + @ - /';
  if (value.endsWith('/')) return 'must name a file, not a directory';
  return undefined;
}
