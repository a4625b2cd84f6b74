/**
 * Finding: a tenant aimed routes at the controller itself. An ExternalName Service `127.0.0.1`
 * with nginx's status port let them read and rewrite every namespace's backends; the same trick
 * reached the health port's `/metrics` and `/explain` (other namespaces' Ingresses), and an
 * ExternalName `169.254.169.254` reached the cloud metadata service.
 *
 * Now nginx's control endpoint is a unix socket (no port to name), and a backend may not be the
 * controller's own ports, nginx's own listeners (a loop), or a link-local address: each such
 * route answers 503 and the tenant's Ingress gets an Event naming the Service and field.
 */
import { describe, expect, it } from 'vitest';
import { request } from '../harness.js';
import {
  expectVictimsUnharmed,
  useSecurityCase,
  TENANT,
  expectTenantEvent,
  tenantExternalNameService,
  tenantIngress,
} from './tenant.js';

const testCase = useSecurityCase('own-endpoints');

describe("a tenant aiming routes at the controller's own endpoints", () => {
  it('gets 503 and an Event for every one, while the victims keep being served', async () => {
    const { controller, cluster } = testCase();
    const { healthzPort, httpPort } = controller.config;
    const traffic = testCase().probeVictims();
    await cluster.server.apply([
      tenantExternalNameService('health', '127.0.0.1', healthzPort),
      tenantIngress('metrics', {
        host: 'metrics.mallory.test',
        service: 'health',
        port: healthzPort,
        path: '/metrics',
      }),
      tenantIngress('explain', {
        host: 'explain.mallory.test',
        service: 'health',
        port: healthzPort,
        path: '/explain',
      }),
      // nginx proxying to itself: each request would open another, until workers run out.
      tenantExternalNameService('loop', 'localhost', httpPort),
      tenantIngress('loop', { host: 'loop.mallory.test', service: 'loop', port: httpPort }),
      tenantExternalNameService('metadata', '169.254.169.254', 80),
      tenantIngress('metadata', { host: 'metadata.mallory.test', service: 'metadata' }),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'sliced', namespace: TENANT },
        spec: { ports: [{ name: 'http', port: 80 }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'sliced-1', namespace: TENANT, labels: { 'kubernetes.io/service-name': 'sliced' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1', '169.254.169.254'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: healthzPort }],
      },
      tenantIngress('sliced', { host: 'sliced.mallory.test', service: 'sliced', path: '/metrics' }),
    ]);

    const own = `is a port of the gateway itself`;
    await expectTenantEvent(testCase(), 'metrics', `spec.externalName: 127.0.0.1:${healthzPort} ${own}`);
    await expectTenantEvent(testCase(), 'explain', `127.0.0.1:${healthzPort} ${own}`);
    await expectTenantEvent(testCase(), 'loop', `localhost:${httpPort} ${own}`);
    await expectTenantEvent(testCase(), 'metadata', '169.254.169.254 is a link-local address');
    await expectTenantEvent(testCase(), 'sliced', `127.0.0.1:${healthzPort} ${own}`);
    await expectTenantEvent(testCase(), 'sliced', '169.254.169.254 is a link-local address');

    for (const [host, path] of [
      ['metrics.mallory.test', '/metrics'],
      ['explain.mallory.test', '/explain?ingress=default/steady-1'],
      ['loop.mallory.test', '/'],
      ['metadata.mallory.test', '/latest/meta-data/'],
      ['sliced.mallory.test', '/metrics'],
    ] as const) {
      const response = await request(controller, host, path);
      expect({ host, status: response.status }).toEqual({ host, status: 503 });
      expect(response.body).not.toContain('ingresskit_');
      expect(response.body).not.toContain('steady-1');
    }
    await expectVictimsUnharmed(traffic, "routes at the controller's endpoints");
  });

  it('finds no TCP port of the data plane but its HTTP and HTTPS listeners', () => {
    const { controller } = testCase();
    const listens = [...(controller.dataPlane.nginxConf ?? '').matchAll(/^\s*listen\s+([^;]+);/gm)].map(
      (match) => match[1]!.split(/\s+/)[0]!.replaceAll('"', ''),
    );
    const ports = listens
      .filter((address) => !address.startsWith('unix:'))
      .map((address) => address.split(':').pop());
    expect(new Set(ports)).toEqual(
      new Set([String(controller.config.httpPort), String(controller.config.httpsPort)]),
    );
    expect(listens.some((address) => address.startsWith('unix:'))).toBe(true);
  });
});
