/** One HTTP(S) request to 127.0.0.1 with a chosen Host (and TLS server name), read in full. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What a probe got back. */
export interface ProbeResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Options of {@link probe}. */
export interface ProbeOptions {
  port: number;
  /** The Host header, and the SNI name with `tls`. */
  host: string;
  path?: string;
  tls?: boolean;
  /** GET by default. */
  method?: string;
  /** More request headers (Host and Connection are set by the probe). */
  headers?: Record<string, string>;
  /** A request body, sent as it is (with Content-Length, unless `headers` says chunked). */
  body?: string;
  /** Default 5 s. */
  timeoutMs?: number;
}

/** Sends a request (GET unless told) through `127.0.0.1:port` as `host` would be reached; no keep-alive, certificates not verified. */
export function probe(options: ProbeOptions): Promise<ProbeResponse> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1',
      port: options.port,
      path: options.path ?? '/',
      method: options.method ?? 'GET',
      headers: { ...options.headers, host: options.host, connection: 'close' },
      agent: false as const,
    };
    const onResponse = (response: IncomingMessage) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
      response.on('error', reject);
    };
    const request = options.tls
      ? httpsRequest({ ...common, servername: options.host, rejectUnauthorized: false }, onResponse)
      : httpRequest(common, onResponse);
    request.setTimeout(options.timeoutMs ?? 5_000, () =>
      request.destroy(new Error(`no answer within ${options.timeoutMs ?? 5_000} ms`)),
    );
    request.on('error', reject);
    request.end(options.body);
  });
}
