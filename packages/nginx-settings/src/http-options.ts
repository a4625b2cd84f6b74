/**
 * The http-level settings an operator tunes (ingress-nginx's ConfigMap keys of the same meaning):
 * header buffers and timeouts, HTTP/2, TLS sessions, hash sizes, workers, default type, brotli.
 * Declared once here: ingress-routes reads them from a controller ConfigMap, nginx-template
 * checks and renders them, and both hold their whole numbers to the same ranges.
 */

/** The http-level settings; every field optional, absent ones keep the defaults (ingress-nginx's). */
export interface HttpOptions {
  /** client_header_buffer_size (client-header-buffer-size), an nginx size; default nginx's (1k). */
  clientHeaderBufferSize?: string;
  /** large_client_header_buffers: `number` buffers of `size` each; default nginx's (4 8k). */
  largeClientHeaderBuffers?: { number: number; size: string };
  /** client_header_timeout in seconds; default nginx's (60). */
  clientHeaderTimeoutSeconds?: number;
  /** client_body_timeout in seconds; default nginx's (60). */
  clientBodyTimeoutSeconds?: number;
  /** use-http2: offer HTTP/2 by ALPN on HTTPS listeners; default true. */
  http2?: boolean;
  /** Default nginx's (128). */
  http2MaxConcurrentStreams?: number;
  /** A shared session cache of sslSessionCacheSize; default true. */
  sslSessionCache?: boolean;
  /** An nginx size; default `10m`. */
  sslSessionCacheSize?: string;
  /** An nginx time; default `10m`. */
  sslSessionTimeout?: string;
  /** Default false. */
  sslSessionTickets?: boolean;
  /** Base64 (standard alphabet) of the 48 or 80 bytes tickets are encrypted with; default a key per nginx start. */
  sslSessionTicketKey?: string;
  /** An nginx size; default `4k`. */
  sslBufferSize?: string;
  /** Default false. */
  underscoresInHeaders?: boolean;
  /** Default true. */
  ignoreInvalidHeaders?: boolean;
  /** Default nginx's. */
  serverNamesHashBucketSize?: number;
  /** Default 1024. */
  serverNamesHashMaxSize?: number;
  /** Default nginx's (64, 512). */
  proxyHeadersHashBucketSize?: number;
  proxyHeadersHashMaxSize?: number;
  /** Default 256 and 2048. */
  variablesHashBucketSize?: number;
  variablesHashMaxSize?: number;
  /** Default nginx's. */
  mapHashBucketSize?: number;
  /** Add reuseport to every listener; default false. */
  reusePort?: boolean;
  /** worker_cpu_affinity: `auto`, `auto MASK` or masks of 0 and 1, separated by single spaces; `` or absent: none. */
  workerCpuAffinity?: string;
  /** worker_rlimit_nofile; 0 (default) leaves the limit nginx starts with. */
  maxWorkerOpenFiles?: number;
  /** Default true. */
  multiAccept?: boolean;
  /** A MIME type TYPE/SUBTYPE; default `application/octet-stream`. */
  defaultType?: string;
  /** gzip_disable: `msie6` or a regular expression of a restricted alphabet; none by default. */
  gzipDisable?: string;
  /** Compress with brotli (nginx's brotli filter module); default false. */
  brotli?: boolean;
  /** Default 4. */
  brotliLevel?: number;
  /** Default 20. */
  brotliMinLength?: number;
  /** MIME types, or `*`; default ingress-nginx's list. */
  brotliTypes?: string[];
}

/** A whole number's bounds, both included. */
export interface WholeRange {
  readonly min: number;
  readonly max: number;
}

/** The HttpOptions fields that are whole numbers, and `largeClientHeaderBuffers.number`. */
export type HttpWholeNumber =
  | Extract<
      {
        [Name in keyof HttpOptions]-?: NonNullable<HttpOptions[Name]> extends number ? Name : never;
      }[keyof HttpOptions],
      string
    >
  | 'largeClientHeaderBuffers.number';

/** What nginx takes of each whole number (and what ingress-nginx's ConfigMap may say). */
export const HTTP_WHOLE_NUMBER_RANGES: Readonly<Record<HttpWholeNumber, WholeRange>> = Object.freeze({
  clientHeaderTimeoutSeconds: { min: 1, max: 86_400 },
  clientBodyTimeoutSeconds: { min: 1, max: 86_400 },
  http2MaxConcurrentStreams: { min: 1, max: 65_535 },
  'largeClientHeaderBuffers.number': { min: 1, max: 1024 },
  serverNamesHashBucketSize: { min: 32, max: 65_536 },
  serverNamesHashMaxSize: { min: 1, max: 1_048_576 },
  proxyHeadersHashBucketSize: { min: 32, max: 65_536 },
  proxyHeadersHashMaxSize: { min: 1, max: 1_048_576 },
  variablesHashBucketSize: { min: 32, max: 65_536 },
  variablesHashMaxSize: { min: 1, max: 1_048_576 },
  mapHashBucketSize: { min: 32, max: 65_536 },
  maxWorkerOpenFiles: { min: 0, max: 10_000_000 },
  brotliLevel: { min: 0, max: 11 },
  brotliMinLength: { min: 0, max: 1_000_000_000 },
});

/** Whether `value` is a whole number within `range`. */
export function isInRange(value: unknown, range: WholeRange): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= range.min && value <= range.max;
}
