/**
 * ingress-nginx's request metrics through real nginx: requests are counted per Ingress, path,
 * Service, status, method and host, with the histograms' buckets adding up; the labels come
 * from the route table; requests matching no route and made-up methods cannot add series; and
 * --enable-metrics=false turns it all off. Upstream times land in their buckets: a backend that
 * answers its headers late, one whose TLS handshake is held. nginx's processes and counters are
 * there as ingress-nginx's nginx_process_* metrics. The controller metrics ingress-nginx's alerts
 * read (reload success, leader, certificate expiry) are there under its names too. Its metric
 * flags: custom buckets, --metrics-per-host=false (no host label, every request counted),
 * --exclude-socket-metrics, and --metrics-per-undefined-host (wildcard and unknown hosts counted
 * under the host the client sent).
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createConnection, createServer as createTcpServer, type AddressInfo, type Server } from 'node:net';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { parseRunFlags } from '../src/flags.js';
import { probe } from '../src/http-probe.js';
import { resolveRequestMetricsOptions } from '../src/request-metrics-options.js';
import {
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  presentedCertificate,
  startBackends,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
let controller: Controller;
let quiet: Controller;
let custom: Controller;
let undefinedHosts: Controller;
const servers: (Server | HttpServer)[] = [];

/** How long the slow backend holds its response headers, and the TLS backend its handshake. */
const HEADER_DELAY_MS = 300;
const HANDSHAKE_DELAY_MS = 150;

async function listen(server: Server | HttpServer): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A backend that sends its response headers after HEADER_DELAY_MS. */
function startSlowBackend(): Promise<number> {
  return listen(
    createHttpServer((_request, response) => {
      setTimeout(() => response.end('slow'), HEADER_DELAY_MS);
    }),
  );
}

/**
 * An HTTPS backend whose clients wait HANDSHAKE_DELAY_MS for the TLS handshake: bytes reach it
 * through a relay that holds them that long. nginx counts the handshake in $upstream_connect_time.
 */
async function startHeldHandshakeBackend(): Promise<number> {
  const { certificatePem, privateKeyPem } = createSelfSignedCertificate({ commonName: 'held.test' });
  const tlsPort = await listen(
    createHttpsServer({ cert: certificatePem, key: privateKeyPem }, (_request, response) =>
      response.end('held'),
    ),
  );
  return listen(
    createTcpServer((client) => {
      client.pause();
      setTimeout(() => {
        const upstream = createConnection(tlsPort, '127.0.0.1');
        client.pipe(upstream).pipe(client);
        client.resume();
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      }, HANDSHAKE_DELAY_MS);
    }),
  );
}

beforeAll(async () => {
  backends = await startBackends('alpha', 'beta');
  const slowPort = await startSlowBackend();
  const heldPort = await startHeldHandshakeBackend();
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    ...serviceManifests('slow', []),
    endpointSliceManifest('slow-1', 'slow', slowPort),
    ingressManifest('slow', { host: 'slow.test', service: 'slow', className: 'nginx' }),
    ...serviceManifests('held', []),
    endpointSliceManifest('held-1', 'held', heldPort),
    ingressManifest('held', {
      host: 'held.test',
      service: 'held',
      className: 'nginx',
      annotations: { 'nginx.ingress.kubernetes.io/backend-protocol': 'HTTPS' },
    }),
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ...serviceManifests('beta', [backends.get('beta')!]),
    ingressManifest('shop', { host: 'shop.test', service: 'alpha', className: 'nginx', path: '/cart' }),
    ingressManifest('blog', { host: 'blog.test', service: 'beta', className: 'nginx' }),
    ingressManifest('wild', { host: '*.wild.test', service: 'beta', className: 'nginx' }),
    tlsSecretManifest('secure-tls', 'secure.test'),
    {
      ...ingressManifest('secure', { host: 'secure.test', service: 'alpha', className: 'nginx' }),
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }],
        rules: [
          {
            host: 'secure.test',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'alpha', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
  ]);
  controller = await startController(server, { podName: 'metrics-a' });
  quiet = await startController(server, { podName: 'metrics-b', requestMetrics: false });
  const metricFlags = (...argv: string[]) => resolveRequestMetricsOptions(parseRunFlags(argv, {}));
  custom = await startController(server, {
    podName: 'metrics-c',
    requestMetricsOptions: metricFlags(
      '--time-buckets=0.25,0.75,30',
      '--length-buckets=64,65536',
      '--metrics-per-host=false',
      '--exclude-socket-metrics=nginx_ingress_controller_response_size,connect_duration_seconds',
    ),
  });
  undefinedHosts = await startController(server, {
    podName: 'metrics-d',
    requestMetricsOptions: metricFlags('--metrics-per-undefined-host'),
  });
});

afterAll(async () => {
  await controller?.stop();
  await quiet?.stop();
  await custom?.stop();
  await undefinedHosts?.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  for (const each of servers) each.close();
});

async function scrape(of: Controller): Promise<string> {
  return (await fetch(`http://127.0.0.1:${of.healthzPort}/metrics`)).text();
}

/** The value of the one line of `metric` whose labels include all of `labels`. */
function valueOf(text: string, metric: string, labels: Record<string, string>): number | undefined {
  const lines = text
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`))
    .filter((line) => Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`)));
  if (lines.length > 1) throw new Error(`${lines.length} lines of ${metric} match ${JSON.stringify(labels)}`);
  return lines.length === 0 ? undefined : Number(lines[0]!.slice(lines[0]!.lastIndexOf(' ') + 1));
}

const send = (of: Controller, host: string, path: string, method = 'GET') =>
  probe({ port: of.config.httpPort, host, path, method });

describe('request metrics under ingress-nginx names', () => {
  it('counts requests per Ingress, path, Service, status, method and host, with histograms that add up', async () => {
    for (let i = 0; i < 3; i++) expect((await send(controller, 'shop.test', '/cart/items')).status).toBe(200);
    expect((await send(controller, 'shop.test', '/cart', 'POST')).status).toBe(200);
    expect((await send(controller, 'blog.test', '/post')).status).toBe(200);
    // Matches no route (404): not counted, as ingress-nginx does not count undefined hosts.
    expect((await send(controller, 'unknown.test', '/')).status).toBe(404);
    const shop = {
      ingress: 'shop',
      namespace: 'default',
      path: '/cart',
      service: 'alpha',
      host: 'shop.test',
      status: '200',
    };
    await eventually(async () => {
      const text = await scrape(controller);
      expect(valueOf(text, 'nginx_ingress_controller_requests', { ...shop, method: 'GET' })).toBe(3);
    });
    const text = await scrape(controller);
    expect(valueOf(text, 'nginx_ingress_controller_requests', { ...shop, method: 'POST' })).toBe(1);
    expect(
      valueOf(text, 'nginx_ingress_controller_requests', {
        ingress: 'blog',
        path: '/',
        service: 'beta',
        method: 'GET',
      }),
    ).toBe(1);
    expect(text).not.toContain('unknown.test');
    // The controller's own labels, as ingress-nginx sets them.
    expect(text).toMatch(
      /nginx_ingress_controller_requests\{[^}]*controller_namespace="ingresskit",controller_class="ingresskit.dev\/ingress-controller",controller_pod="metrics-a"\} 3/,
    );
    for (const histogram of [
      'request_duration_seconds',
      'response_duration_seconds',
      'request_size',
      'response_size',
    ]) {
      const name = `nginx_ingress_controller_${histogram}`;
      const labels = { ...shop, method: 'GET' };
      expect(valueOf(text, `${name}_count`, labels), histogram).toBe(3);
      expect(valueOf(text, `${name}_bucket`, { ...labels, le: '+Inf' }), histogram).toBe(3);
      // nginx times in milliseconds: three local requests may all take 0.000 s (the delayed
      // backend below checks durations); sizes are never 0.
      const sum = valueOf(text, `${name}_sum`, labels);
      if (histogram.endsWith('_seconds')) expect(sum, histogram).toBeGreaterThanOrEqual(0);
      else expect(sum, histogram).toBeGreaterThan(0);
    }
    // Cumulative, as Prometheus reads them: ten bounds (10 to 100 bytes) and +Inf.
    const buckets = text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('nginx_ingress_controller_request_size_bucket{') &&
          line.includes('method="GET"') &&
          line.includes('ingress="shop"'),
      )
      .map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
    expect(buckets).toHaveLength(11);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
  });

  it('observes upstream header and connect times in their buckets, and bytes_sent in its own', async () => {
    for (let i = 0; i < 3; i++) expect((await send(controller, 'slow.test', '/wait')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await send(controller, 'held.test', '/')).status).toBe(200);
    const slow = {
      ingress: 'slow',
      namespace: 'default',
      path: '/',
      service: 'slow',
      status: '200',
      method: 'GET',
    };
    const held = { ...slow, ingress: 'held', service: 'held' };
    const name = (histogram: string) => `nginx_ingress_controller_${histogram}`;
    let text = '';
    await eventually(async () => {
      text = await scrape(controller);
      expect(valueOf(text, name('header_duration_seconds_count'), slow)).toBe(3);
      expect(valueOf(text, name('connect_duration_seconds_count'), held)).toBe(2);
    });
    const bucket = (histogram: string, labels: Record<string, string>, le: string) =>
      valueOf(text, name(`${histogram}_bucket`), { ...labels, le });
    // Headers come after 300 ms: above the 0.25 s bound (a timer never fires early), within 2.5 s.
    expect(bucket('header_duration_seconds', slow, '0.25')).toBe(0);
    expect(bucket('header_duration_seconds', slow, '2.5')).toBe(3);
    expect(valueOf(text, name('header_duration_seconds_sum'), slow)).toBeGreaterThanOrEqual(
      (3 * HEADER_DELAY_MS) / 1000,
    );
    expect(valueOf(text, name('connect_duration_seconds_count'), slow)).toBe(3);
    // A held handshake is part of the connect time; the second request may reuse the connection.
    expect(valueOf(text, name('connect_duration_seconds_sum'), held)).toBeGreaterThanOrEqual(
      HANDSHAKE_DELAY_MS / 1000,
    );
    expect(bucket('connect_duration_seconds', held, '0.1')).toBeLessThanOrEqual(1);
    expect(bucket('connect_duration_seconds', held, '+Inf')).toBe(2);
    expect(valueOf(text, name('header_duration_seconds_count'), held)).toBe(2);
    // bytes_sent: the same bytes as response_size, in ingress-nginx's size buckets (10 to 10^7).
    // A response with nginx's headers is between 100 and 1000 bytes.
    expect(bucket('bytes_sent', slow, '100')).toBe(0);
    expect(bucket('bytes_sent', slow, '1000')).toBe(3);
    expect(bucket('bytes_sent', slow, '10000000')).toBe(3);
    expect(valueOf(text, name('bytes_sent_sum'), slow)).toBe(valueOf(text, name('response_size_sum'), slow));
  });

  it("shows nginx's processes and counters as ingress-nginx's nginx_process_* metrics", async () => {
    const own = { controller_namespace: 'ingresskit', controller_pod: 'metrics-a' };
    const metric = (text: string, name: string, labels: Record<string, string> = {}) =>
      valueOf(text, `nginx_ingress_controller_nginx_process_${name}`, { ...own, ...labels });
    const workers = await controller.dataPlane.workerPids();
    expect(workers.length).toBeGreaterThan(0);
    const before = await scrape(controller);
    expect(metric(before, 'num_procs')).toBe(workers.length + 1);
    const resident = metric(before, 'resident_memory_bytes')!;
    expect(resident).toBeGreaterThan(1024 * 1024);
    expect(metric(before, 'virtual_memory_bytes')).toBeGreaterThan(resident);
    const startedAt = metric(before, 'oldest_start_time_seconds')!;
    expect(startedAt).toBeLessThanOrEqual(Date.now() / 1000);
    expect(startedAt).toBeGreaterThan(Date.now() / 1000 - 600);
    const cpuBefore = metric(before, 'cpu_seconds_total')!;
    expect(cpuBefore).toBeGreaterThan(0);
    expect(metric(before, 'read_bytes_total')).toBeGreaterThanOrEqual(0);
    expect(metric(before, 'write_bytes_total')).toBeGreaterThanOrEqual(0);
    // The read of the counters is itself an open connection.
    expect(metric(before, 'connections', { state: 'active' })).toBeGreaterThanOrEqual(1);
    expect(metric(before, 'connections', { state: 'writing' })).toBeGreaterThanOrEqual(1);
    expect(metric(before, 'connections', { state: 'reading' })).toBeGreaterThanOrEqual(0);
    expect(metric(before, 'connections', { state: 'waiting' })).toBeGreaterThanOrEqual(0);
    const accepted = metric(before, 'connections_total', { state: 'accepted' })!;
    expect(accepted).toBeGreaterThan(0);
    expect(metric(before, 'connections_total', { state: 'handled' })).toBe(accepted);

    const requestsBefore = metric(before, 'requests_total')!;
    for (let i = 0; i < 5; i++) expect((await send(controller, 'blog.test', '/count')).status).toBe(200);
    // A scrape shares one read with those of the second before it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = await scrape(controller);
    // nginx counts every request, the controller's own on the control socket too: the scrapes'
    // reads and a data check every 5 s.
    const sent = metric(after, 'requests_total')! - requestsBefore;
    expect(sent).toBeGreaterThanOrEqual(5);
    expect(sent).toBeLessThanOrEqual(5 + 6);
    expect(metric(after, 'cpu_seconds_total')).toBeGreaterThanOrEqual(cpuBefore);
  });

  it('counts a made-up method as OTHER, so clients cannot add series without end', async () => {
    for (const method of ['FROB', 'BLORP', 'ZAP']) await send(controller, 'blog.test', '/', method);
    await eventually(async () => {
      const text = await scrape(controller);
      expect(
        valueOf(text, 'nginx_ingress_controller_requests', { ingress: 'blog', method: 'OTHER' }),
      ).toBeGreaterThanOrEqual(3);
      expect(text).not.toContain('method="FROB"');
    });
  });

  it('counts nothing with --enable-metrics=false', async () => {
    expect((await send(quiet, 'shop.test', '/cart')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const text = await scrape(quiet);
    expect(text).not.toContain('nginx_ingress_controller_requests');
    expect(text).not.toContain('nginx_ingress_controller_nginx_process_');
    expect(text).toContain('ingresskit_syncs_total');
  });

  it("serves the controller metrics ingress-nginx's alerts read, certificate expiry included", async () => {
    const text = await scrape(controller);
    const own = { controller_namespace: 'ingresskit', controller_pod: 'metrics-a' };
    expect(valueOf(text, 'nginx_ingress_controller_config_last_reload_successful', own)).toBe(1);
    expect(valueOf(text, 'nginx_ingress_controller_success', own)).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'nginx_ingress_controller_errors', own)).toBe(0);
    expect(valueOf(text, 'nginx_ingress_controller_build_info', own)).toBe(1);
    const presented = await presentedCertificate(controller, 'secure.test');
    const expiry = valueOf(text, 'nginx_ingress_controller_ssl_expire_time_seconds', {
      host: 'secure.test',
      secret_name: 'secure-tls',
      namespace: 'ingresskit',
    });
    expect(expiry).toBe(Math.floor(Date.parse(presented.valid_to) / 1000));
    expect(text).toContain(`identifier="-${BigInt(`0x${presented.serialNumber}`).toString()}"`);
  });

  it('counts a defined host whose path matches no route under empty route labels, but not a wildcard host', async () => {
    expect((await send(controller, 'shop.test', '/elsewhere')).status).toBe(404);
    expect((await send(controller, 'a.wild.test', '/')).status).toBe(200);
    const unrouted = { ingress: '', service: '', path: '', host: 'shop.test', status: '404', method: 'GET' };
    await eventually(async () => {
      const text = await scrape(controller);
      expect(valueOf(text, 'nginx_ingress_controller_requests', unrouted)).toBe(1);
    });
    const text = await scrape(controller);
    // ingress-nginx counts only hosts an Ingress names: a wildcard's hosts are the client's word.
    expect(text).not.toContain('wild.test');
    expect(text).not.toContain('ingress="wild"');
  });

  it('counts wildcard and unknown hosts under the host sent, with --metrics-per-undefined-host', async () => {
    expect((await send(undefinedHosts, 'a.wild.test', '/')).status).toBe(200);
    expect((await send(undefinedHosts, 'unknown.test', '/x')).status).toBe(404);
    await eventually(async () => {
      const text = await scrape(undefinedHosts);
      expect(
        valueOf(text, 'nginx_ingress_controller_requests', {
          ingress: 'wild',
          service: 'beta',
          host: 'a.wild.test',
        }),
      ).toBe(1);
      expect(
        valueOf(text, 'nginx_ingress_controller_requests', {
          ingress: '',
          host: 'unknown.test',
          status: '404',
        }),
      ).toBe(1);
    });
  });

  it('uses the buckets given, drops the host label and leaves out excluded metrics, with the metric flags', async () => {
    for (let i = 0; i < 2; i++) expect((await send(custom, 'slow.test', '/wait')).status).toBe(200);
    expect((await send(custom, 'a.wild.test', '/')).status).toBe(200);
    expect((await send(custom, 'unknown.test', '/')).status).toBe(404);
    const slow = { ingress: 'slow', service: 'slow', status: '200', method: 'GET' };
    let text = '';
    await eventually(async () => {
      text = await scrape(custom);
      expect(valueOf(text, 'nginx_ingress_controller_requests', slow)).toBe(2);
      expect(valueOf(text, 'nginx_ingress_controller_requests', { ingress: '', status: '404' })).toBe(1);
    });
    // Without the host label every request counts: the wildcard's and the unknown host's too, but
    // not the controller's own on nginx's control socket (its scrapes answer 200).
    expect(
      valueOf(text, 'nginx_ingress_controller_requests', { ingress: '', status: '200' }),
    ).toBeUndefined();
    expect(valueOf(text, 'nginx_ingress_controller_requests', { ingress: 'wild', status: '200' })).toBe(1);
    const requestLines = text
      .split('\n')
      .filter((line) => /^nginx_ingress_controller_(requests|[a-z_]+_(bucket|sum|count))\{/.test(line));
    expect(requestLines.length).toBeGreaterThan(0);
    expect(requestLines.filter((line) => line.includes('host='))).toEqual([]);
    // The header arrives after 300 ms: above 0.25, within 0.75, in the bounds given.
    const bucket = (le: string) =>
      valueOf(text, 'nginx_ingress_controller_header_duration_seconds_bucket', { ...slow, le });
    expect(bucket('0.25')).toBe(0);
    expect(bucket('0.75')).toBe(2);
    expect(bucket('30')).toBe(2);
    expect(bucket('+Inf')).toBe(2);
    expect(bucket('0.5')).toBeUndefined();
    const sizeBounds = text
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('nginx_ingress_controller_request_size_bucket{') && line.includes('ingress="slow"'),
      )
      .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    expect(sizeBounds).toEqual(['64', '65536', '+Inf']);
    expect(text).not.toContain('nginx_ingress_controller_response_size');
    expect(text).not.toContain('nginx_ingress_controller_connect_duration_seconds');
    // bytes_sent keeps ingress-nginx's size buckets (not given).
    expect(valueOf(text, 'nginx_ingress_controller_bytes_sent_bucket', { ...slow, le: '10000000' })).toBe(2);
  });
});
