/**
 * ingress-nginx's request metrics through real nginx: requests are counted per Ingress, path,
 * Service, status, method and host, with the histograms' buckets adding up; the labels come
 * from the route table; requests matching no route and made-up methods cannot add series; and
 * --enable-metrics=false turns it all off. The controller metrics ingress-nginx's alerts read
 * (reload success, leader, certificate expiry) are there under its names too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe } from '../src/http-probe.js';
import {
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

beforeAll(async () => {
  backends = await startBackends('alpha', 'beta');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ...serviceManifests('beta', [backends.get('beta')!]),
    ingressManifest('shop', { host: 'shop.test', service: 'alpha', className: 'nginx', path: '/cart' }),
    ingressManifest('blog', { host: 'blog.test', service: 'beta', className: 'nginx' }),
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
});

afterAll(async () => {
  await controller?.stop();
  await quiet?.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
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
      expect(valueOf(text, `${name}_sum`, labels), histogram).toBeGreaterThan(0);
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
});
