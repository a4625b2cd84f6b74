/**
 * The controller's HTTP server on the healthz port: `/healthz` (200 once the first sync has been
 * applied and nginx serves, 503 before), `/livez` (200 while the process answers), `/metrics`
 * (Prometheus text, the request metrics written as they render; `?name=METRIC`, repeatable, for
 * only those metrics) and `/explain?ingress=NAMESPACE/NAME` (JSON: the class decision, its
 * explanation, the routes nginx serves for the Ingress, and its problems), or `?gateway=` and
 * `?httproute=` for Gateway API objects (their statuses, routes and problems).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { IngressExplanation } from './explain.js';
import { listen, type ListeningServer } from './listen.js';
import type { Logger } from './logger.js';
import { writeChunks, type StreamedMetrics } from './streamed-metrics.js';

/** What the server serves; each handler reads the controller's current state. */
export interface HttpServerOptions {
  port: number;
  /** Undefined for all interfaces. */
  host?: string | undefined;
  /** Undefined when ready, else the reason it is not. */
  notReadyReason: () => string | undefined;
  registry: Registry;
  /** Served after the registry's metrics, in chunks: the request metrics, when counted. */
  streamedMetrics?: StreamedMetrics | undefined;
  explain: (key: string) => IngressExplanation;
  /** Explains a Gateway or an HTTPRoute; undefined when Gateway API is not served. */
  explainGatewayApi?: ((kind: 'gateway' | 'httproute', key: string) => { found: boolean }) | undefined;
  logger: Logger;
}

/** A listening server. */
export type HttpServer = ListeningServer;

const OBJECT_KEY = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Starts the server; rejects when the port cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const server = createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      options.logger.error({ err: error, url: request.url }, 'HTTP handler failed');
      if (!response.headersSent) send(response, 500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });
  return listen(server, options.port, options.host);
}

async function handle(
  options: HttpServerOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    send(response, 405, 'text/plain', 'use GET\n');
    return;
  }
  switch (url.pathname) {
    case '/healthz': {
      const reason = options.notReadyReason();
      if (reason === undefined) send(response, 200, 'text/plain', 'ok\n');
      else send(response, 503, 'text/plain', `not ready: ${reason}\n`);
      return;
    }
    case '/livez':
      send(response, 200, 'text/plain', 'ok\n');
      return;
    case '/metrics':
      await sendMetrics(options, url, response);
      return;
    case '/explain': {
      const kind = (['gateway', 'httproute'] as const).find((name) => url.searchParams.has(name));
      const key = url.searchParams.get(kind ?? 'ingress') ?? '';
      if (!OBJECT_KEY.test(key)) {
        sendJson(response, 400, { error: 'pass ?ingress=, ?gateway= or ?httproute=NAMESPACE/NAME' });
        return;
      }
      if (kind !== undefined && options.explainGatewayApi === undefined) {
        sendJson(response, 404, {
          error: 'Gateway API is not served (--gateway-controller-name is not set)',
        });
        return;
      }
      const explanation = kind === undefined ? options.explain(key) : options.explainGatewayApi!(kind, key);
      sendJson(response, explanation.found ? 200 : 404, explanation);
      return;
    }
    default:
      send(
        response,
        404,
        'text/plain',
        'not found: try /healthz, /metrics or /explain?ingress=NAMESPACE/NAME (or ?gateway=, ?httproute=)\n',
      );
  }
}

/**
 * The registry's text, then the streamed metrics' chunks as they render; or only the metrics
 * `?name=` names: reading one counter then costs no scrape of nginx's request series, which grow
 * with every route that takes traffic. Both are read before the status line, so a failed read
 * still answers 500.
 */
async function sendMetrics(options: HttpServerOptions, url: URL, response: ServerResponse): Promise<void> {
  const names = url.searchParams.getAll('name');
  const wanted = names.length === 0 ? undefined : new Set(names);
  const [text, chunks] = await Promise.all([
    registryText(options.registry, wanted),
    streamedChunks(options.streamedMetrics, wanted),
  ]);
  response.writeHead(200, { 'content-type': options.registry.contentType, 'cache-control': 'no-store' });
  if ((await writeChunks(response, [text])) && (await writeChunks(response, chunks))) response.end();
}

/** The registry's text, or that of the metrics in `names` it has. */
async function registryText(registry: Registry, names: ReadonlySet<string> | undefined): Promise<string> {
  if (names === undefined) return registry.metrics();
  const known = [...names].filter((name) => registry.getSingleMetric(name) !== undefined);
  const texts = await Promise.all(known.map((name) => registry.getSingleMetricAsString(name)));
  return texts.map((text) => `${text}\n`).join('');
}

/** The streamed metrics' chunks, or those of the metrics in `names` they serve (no read when none). */
async function streamedChunks(
  metrics: StreamedMetrics | undefined,
  names: ReadonlySet<string> | undefined,
): Promise<Iterable<string>> {
  if (metrics === undefined) return [];
  if (names === undefined) return metrics.read();
  const served = new Set(metrics.names.filter((name) => names.has(name)));
  return served.size === 0 ? [] : metrics.read(served);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  response.end(body);
}
