/**
 * The controller ConfigMap keys that size and shape nginx's http and server level (header
 * buffers and timeouts, HTTP/2, TLS sessions, hash tables, workers, brotli, listen addresses,
 * the error log): their catalogue entries, and each read strictly into numbers, sizes and
 * enumerations, so that no ConfigMap text reaches nginx.conf as it was written.
 */
import {
  BOOLEAN_PROBLEM,
  checkFilePath,
  isIpAddress,
  MIME_TYPE,
  readBoolean,
  readMimeTypeList,
} from './grammar.js';
import type { IngressNginxConfigKey } from './configmap-key.js';
import {
  HTTP_WHOLE_NUMBER_RANGES as RANGES,
  isInRange,
  type HttpOptions,
  type HttpWholeNumber,
  type WholeRange,
} from '@ingresskit/nginx-settings';

/**
 * The http-level nginx.conf settings these keys set (HttpOptions, as nginx-template renders them)
 * and the listen addresses and error log some of them move; absent fields keep the defaults.
 */
export interface ConfigMapHttpSettings extends HttpOptions {
  /** bind-address: the IP addresses to listen on instead of all. */
  bindAddresses?: string[];
  disableIpv6?: boolean;
  /** error-log-path: an absolute file path; absent means nginx's stderr, read by the controller. */
  errorLogPath?: string;
}

const SIZE = /^([1-9][0-9]{0,9})([kKmMgG]?)$/;
const UNIT: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
const TIME = /^([1-9][0-9]{0,6})(ms|s|m|h|d)?$/;
const TIME_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
const CPU_MASK = '[01]{1,64}';
const CPU_AFFINITY = new RegExp(`^(?:auto(?: ${CPU_MASK})?|${CPU_MASK}(?: ${CPU_MASK}){0,1023})$`);
/**
 * What gzip-disable may hold: letters, digits, spaces and the regular expression punctuation
 * `. _ - / ( ) [ ] \ * + ? ^ |`; no `$`, `;`, quotes or braces, so the
 * value is one quoted token (the quoting escapes `\`) that nginx reads literally.
 */
const GZIP_DISABLE = /^[A-Za-z0-9 ._/()[\]\\*+?^|-]{1,256}$/;
/** error-log-path values that name nginx's stderr, which the controller reads already. */
const STDERR_PATHS = ['/dev/stderr', '/var/log/nginx/error.log'];

const KIB = 1024;
const MIB = 1024 ** 2;

/** `bytes` in nginx's size syntax, in the largest unit that divides it. */
function formatSize(bytes: number): string {
  if (bytes % MIB === 0) return `${bytes / MIB}m`;
  return bytes % KIB === 0 ? `${bytes / KIB}k` : String(bytes);
}

function readSize(value: string, min: number, max: number, say: string): string | { size: string } {
  const match = SIZE.exec(value);
  const bytes = match === null ? Number.NaN : Number(match[1]) * UNIT[match[2]!.toLowerCase()]!;
  return bytes >= min && bytes <= max
    ? { size: value }
    : `must be a size such as ${say}, from ${formatSize(min)} to ${formatSize(max)}`;
}

function readWhole(value: string, range: WholeRange): number | string {
  const number = /^[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN;
  return isInRange(number, range) ? number : `must be a whole number from ${range.min} to ${range.max}`;
}

/** Seconds as ingress-nginx reads these keys (a whole number), or with nginx's `s`. */
function readSeconds(range: WholeRange): (value: string) => number | string {
  return (value) => {
    const number = /^[0-9]{1,6}s?$/.test(value) ? Number.parseInt(value, 10) : Number.NaN;
    return isInRange(number, range)
      ? number
      : `must be whole seconds from ${range.min} to ${range.max}, such as 60`;
  };
}

function readTime(value: string): string | { time: string } {
  const match = TIME.exec(value);
  const seconds = match === null ? Number.NaN : Number(match[1]) * TIME_SECONDS[match[2] ?? 's']!;
  return seconds >= 1 && seconds <= 7 * 86400
    ? { time: value }
    : 'must be an nginx time such as 10m, 600s or 1h, from 1 s to 7d';
}

function readTicketKey(value: string): string | { key: string } {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value))
    return 'must be base64 (such as the output of `openssl rand 80 | openssl enc -A -base64`)';
  const bytes = Buffer.from(value, 'base64').length;
  if (bytes !== 48 && bytes !== 80) return `must hold 48 or 80 bytes (it holds ${bytes})`;
  return { key: value };
}

function readAddresses(value: string): string[] | string {
  const addresses = value
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  const bad = addresses.find((address) => !isIpAddress(address));
  if (bad !== undefined) return `holds ${JSON.stringify(bad)}, which is not an IP address`;
  if (addresses.length > 64) return 'must hold at most 64 addresses';
  return [...new Set(addresses)];
}

function readErrorLogPath(value: string): string | { path?: string } {
  if (STDERR_PATHS.includes(value)) return {};
  const problem = checkFilePath(value);
  return problem === undefined ? { path: value } : `${problem}, or /dev/stderr`;
}

type Reader = (value: string, into: ConfigMapHttpSettings) => string | undefined;

/** A key's reader: `parse` gives the value or why it is invalid; `set` keeps a valid one. */
function reader<T>(
  parse: (value: string) => T | string,
  set: (into: ConfigMapHttpSettings, value: T) => void,
): Reader {
  return (value, into) => {
    const parsed = parse(value);
    if (typeof parsed === 'string') return parsed;
    set(into, parsed);
    return undefined;
  };
}

function flag(set: (into: ConfigMapHttpSettings, on: boolean) => void): Reader {
  return reader((value) => readBoolean(value) ?? BOOLEAN_PROBLEM, set);
}

/** The reader of a key that sets the whole-number option `name`, held to its range. */
function wholeOption(name: Exclude<HttpWholeNumber, 'largeClientHeaderBuffers.number'>): Reader {
  const range = RANGES[name];
  return reader(
    (value) => readWhole(value, range),
    (into, n) => (into[name] = n),
  );
}

function size(
  min: number,
  max: number,
  say: string,
  set: (into: ConfigMapHttpSettings, size: string) => void,
): Reader {
  return reader(
    (value) => readSize(value, min, max, say),
    (into, { size }) => set(into, size),
  );
}

/** How each key is read into ConfigMapHttpSettings: the reason it is invalid, or undefined. */
export const HTTP_SETTINGS_KEYS: Readonly<Record<string, Reader>> = {
  'client-header-buffer-size': size(64, MIB, '1k', (into, s) => (into.clientHeaderBufferSize = s)),
  'large-client-header-buffers': reader(
    (value) => {
      const match = /^([0-9]{1,4}) +(\S+)$/.exec(value.trim());
      const number = match === null ? Number.NaN : Number(match[1]);
      const parsed = match === null ? '' : readSize(match[2]!, KIB, MIB, '8k');
      const buffers = RANGES['largeClientHeaderBuffers.number'];
      if (!isInRange(number, buffers) || typeof parsed === 'string')
        return `must be a number of buffers from ${buffers.min} to ${buffers.max} and a size from 1k to 1m, such as "4 8k"`;
      return { number, size: parsed.size };
    },
    (into, buffers) => (into.largeClientHeaderBuffers = buffers),
  ),
  'client-header-timeout': reader(
    readSeconds(RANGES.clientHeaderTimeoutSeconds),
    (into, n) => (into.clientHeaderTimeoutSeconds = n),
  ),
  'client-body-timeout': reader(
    readSeconds(RANGES.clientBodyTimeoutSeconds),
    (into, n) => (into.clientBodyTimeoutSeconds = n),
  ),
  'use-http2': flag((into, on) => (into.http2 = on)),
  'http2-max-concurrent-streams': wholeOption('http2MaxConcurrentStreams'),
  'ssl-session-cache': flag((into, on) => (into.sslSessionCache = on)),
  'ssl-session-cache-size': size(64 * KIB, 1024 * MIB, '10m', (into, s) => (into.sslSessionCacheSize = s)),
  'ssl-session-timeout': reader(readTime, (into, { time }) => (into.sslSessionTimeout = time)),
  'ssl-session-tickets': flag((into, on) => (into.sslSessionTickets = on)),
  'ssl-session-ticket-key': reader(readTicketKey, (into, { key }) => (into.sslSessionTicketKey = key)),
  // nginx sends TLS records of at most 16k whatever the buffer.
  'ssl-buffer-size': size(512, 16 * KIB, '4k', (into, s) => (into.sslBufferSize = s)),
  'enable-underscores-in-headers': flag((into, on) => (into.underscoresInHeaders = on)),
  'ignore-invalid-headers': flag((into, on) => (into.ignoreInvalidHeaders = on)),
  'server-name-hash-bucket-size': wholeOption('serverNamesHashBucketSize'),
  'server-name-hash-max-size': wholeOption('serverNamesHashMaxSize'),
  'proxy-headers-hash-bucket-size': wholeOption('proxyHeadersHashBucketSize'),
  'proxy-headers-hash-max-size': wholeOption('proxyHeadersHashMaxSize'),
  'variables-hash-bucket-size': wholeOption('variablesHashBucketSize'),
  'variables-hash-max-size': wholeOption('variablesHashMaxSize'),
  'map-hash-bucket-size': wholeOption('mapHashBucketSize'),
  'reuse-port': flag((into, on) => (into.reusePort = on)),
  'worker-cpu-affinity': reader(
    (value) => {
      const affinity = value.trim().replace(/\s+/g, ' ');
      return affinity === '' || CPU_AFFINITY.test(affinity)
        ? { affinity }
        : 'must be "", "auto", "auto" and a CPU mask, or CPU masks of 0 and 1 separated by spaces, such as "0001 0010"';
    },
    (into, { affinity }) => (into.workerCpuAffinity = affinity),
  ),
  'max-worker-open-files': wholeOption('maxWorkerOpenFiles'),
  'enable-multi-accept': flag((into, on) => (into.multiAccept = on)),
  'default-type': reader(
    (value) =>
      MIME_TYPE.test(value) ? { type: value } : 'must be a MIME type TYPE/SUBTYPE, such as text/html',
    (into, { type }) => (into.defaultType = type),
  ),
  'gzip-disable': reader(
    (value) => {
      if (!GZIP_DISABLE.test(value))
        return 'must be "msie6" or a regular expression of A-Z a-z 0-9, spaces and . _ - / ( ) [ ] \\ * + ? ^ | (at most 256 characters)';
      try {
        new RegExp(value);
      } catch {
        return 'is not a valid regular expression';
      }
      return { pattern: value };
    },
    (into, { pattern }) => (into.gzipDisable = pattern),
  ),
  'enable-brotli': flag((into, on) => (into.brotli = on)),
  'brotli-level': wholeOption('brotliLevel'),
  'brotli-min-length': wholeOption('brotliMinLength'),
  'brotli-types': reader(readMimeTypeList, (into, types) => (into.brotliTypes = types)),
  'bind-address': reader(readAddresses, (into, addresses) => (into.bindAddresses = addresses)),
  'disable-ipv6': flag((into, on) => (into.disableIpv6 = on)),
  'error-log-path': reader(readErrorLogPath, (into, { path }) => {
    if (path === undefined) delete into.errorLogPath;
    else into.errorLogPath = path;
  }),
};

/** Where a key is read differently from ingress-nginx, how. */
const HTTP_SETTINGS_DIFFERENCES: Readonly<Record<string, string>> = {
  'ssl-session-ticket-key':
    'base64 of 48 or 80 bytes, written to a file of the data plane (mode 0600) that nginx.conf names; any other value is refused with an error and the last valid key stays (ingress-nginx logs a warning)',
  'reuse-port':
    '"false" by default here (ingress-nginx: "true"): with SO_REUSEPORT a second nginx bound to the same port would silently take a share of the connections instead of failing to start; "true" adds reuseport to every listener',
  'max-worker-open-files':
    '"0" (the default) leaves the limit of open files nginx starts with (ingress-nginx: the system\'s limit less 1024)',
  'default-type':
    'a MIME type TYPE/SUBTYPE, the type of responses nginx makes without one; application/octet-stream while unset (ingress-nginx: text/html)',
  'gzip-disable':
    '"msie6", or one regular expression of A-Z a-z 0-9, spaces and . _ - / ( ) [ ] \\ * + ? ^ | (at most 256), matched against User-Agent while use-gzip is "true"',
  'enable-brotli':
    'with Debian\'s brotli filter module (libnginx-mod-http-brotli-filter), loaded only while it is "true"; brotli-types defaults to ingress-nginx\'s list',
  'bind-address':
    'IPv4 and IPv6 addresses separated by commas, listened on instead of every address; an entry that is no IP address refuses the whole value (ingress-nginx leaves it out). An address nginx cannot bind fails nginx -t, and the running nginx.conf stays',
  'disable-ipv6':
    'IPv4 only while unset, as without the key (ingress-nginx listens on IPv6 too): "false" adds [::] (every IPv6 address) where nginx listens on every address; "true" leaves the IPv6 addresses of bind-address out',
  'error-log-path':
    "/dev/stderr and /var/log/nginx/error.log (ingress-nginx's default, a link to stderr) are nginx's stderr, which the controller logs; any other absolute file path of A-Z a-z 0-9 . _ ~ + @ - / is a file nginx writes, and the controller no longer sees those lines",
  'server-name-hash-bucket-size':
    "nginx's default while unset (ingress-nginx sizes it for its longest server name; nginx.conf names no server here)",
};

/** The catalogue entries of these keys, all applied by reloading nginx. */
export const HTTP_SETTINGS_CONFIG_KEYS: IngressNginxConfigKey[] = Object.keys(HTTP_SETTINGS_KEYS).map(
  (name): IngressNginxConfigKey => {
    const difference = HTTP_SETTINGS_DIFFERENCES[name];
    return difference === undefined ? { name, applied: 'reload' } : { name, applied: 'reload', difference };
  },
);

const OBSOLETE = (directive: string, instead: string) =>
  ({
    severity: 'warning',
    reason: `nginx made ${directive} obsolete in 1.19.7 (it warns and ignores it) and ingress-nginx deprecated the key: use ${instead}`,
  }) as const;

/** The HTTP/2 keys whose nginx directive is obsolete: reported, never rendered. */
export const OBSOLETE_HTTP2_CONFIG_KEYS: IngressNginxConfigKey[] = [
  {
    name: 'http2-max-field-size',
    unsupported: OBSOLETE('http2_max_field_size', 'large-client-header-buffers'),
    sameAs: [''],
  },
  {
    name: 'http2-max-header-size',
    unsupported: OBSOLETE('http2_max_header_size', 'large-client-header-buffers'),
    sameAs: [''],
  },
  {
    name: 'http2-max-requests',
    unsupported: OBSOLETE('http2_max_requests', 'keep-alive-requests'),
    sameAs: ['0'],
  },
];
