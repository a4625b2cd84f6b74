import { describe, expect, it } from 'vitest';
import { backendIdOf, parseBackendId } from './backend-reference.js';
import { resolveServiceBackend } from './service-backend.js';
import { A, endpointSlice, ingress, path, secrets } from './testing/fixtures.js';
import { translateIngress } from './translate-ingress.js';

const withClusterIp = (clusterIP: unknown) => ({
  metadata: { namespace: 'default', name: 'app' },
  spec: { type: 'ClusterIP', clusterIP, ports: [{ name: 'http', port: 80 }] },
});

describe('service-upstream', () => {
  it('names a backend of the cluster IP apart from the endpoints of the same port', () => {
    expect(backendIdOf('shop', 'cart', 80, true)).toBe('shop/cart:80@cluster-ip');
    expect(parseBackendId('shop/cart:80@cluster-ip')).toEqual({
      namespace: 'shop',
      name: 'cart',
      port: 80,
      viaClusterIp: true,
    });
  });

  it('makes every path of the Ingress use the cluster-IP backend', () => {
    const result = translateIngress(
      ingress(
        'a',
        { 'a.test': [path('/', 'Prefix', 'app')] },
        { annotations: { [`${A}service-upstream`]: 'true' } },
      ),
      secrets(),
    );
    const route = result.contribution!.hosts[0]!.routes[0]!;
    expect(route.action).toEqual({
      type: 'forward',
      backends: [{ backend: 'default/app:80@cluster-ip', weight: 1 }],
    });
  });

  it("resolves to the Service's cluster IP and port, not its endpoints", () => {
    const { backend, problem } = resolveServiceBackend(
      { namespace: 'default', name: 'app', port: 'http', viaClusterIp: true },
      withClusterIp('10.96.0.10'),
      [endpointSlice('app', 8080, ['10.0.0.1'])],
    );
    expect(problem).toBeUndefined();
    expect(backend).toEqual({
      id: 'default/app:http@cluster-ip',
      endpoints: [{ address: '10.96.0.10', port: 80 }],
    });
  });

  it.each(['None', undefined])(
    'answers 503 with a problem for a Service without a cluster IP (%j)',
    (clusterIP) => {
      const { backend, problem } = resolveServiceBackend(
        { namespace: 'default', name: 'app', port: 80, viaClusterIp: true },
        withClusterIp(clusterIP),
        [],
      );
      expect(backend.endpoints).toEqual([]);
      expect(problem).toContain('no cluster IP');
    },
  );
});
