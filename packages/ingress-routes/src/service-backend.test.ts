import { describe, expect, it } from 'vitest';
import { resolveServiceBackend } from './service-backend.js';
import { deepFreeze, endpointSlice, externalService, service } from './testing/fixtures.js';
import type { EndpointSliceLike } from '@ingresskit/kube-objects';

const app = { namespace: 'default', name: 'app' };

describe('resolveServiceBackend', () => {
  it('resolves a port by name and by number to the same endpoints, each under the id routes use', () => {
    const slices = [endpointSlice('app', 8080, ['10.0.0.1'])];
    const byName = resolveServiceBackend({ ...app, port: 'http' }, service('app'), slices);
    const byNumber = resolveServiceBackend({ ...app, port: 80 }, service('app'), slices);
    expect(byName).toEqual({
      backend: { id: 'default/app:http', endpoints: [{ address: '10.0.0.1', port: 8080 }] },
    });
    expect(byNumber).toEqual({
      backend: { id: 'default/app:80', endpoints: [{ address: '10.0.0.1', port: 8080 }] },
    });
  });

  it('keeps only ready, non-terminating endpoints of the matching slice port, sorted and unique', () => {
    const result = resolveServiceBackend(
      { ...app, port: 80 },
      service('app', [
        { name: 'http', port: 80 },
        { name: 'metrics', port: 9090 },
      ]),
      [
        endpointSlice('app', 8080, [
          '10.0.0.3',
          { address: '10.0.0.1' },
          { address: '10.0.0.9', ready: false },
          { address: '10.0.0.8', ready: true, terminating: true },
          '10.0.0.3',
          'not-an-ip',
        ]),
        endpointSlice('app', 8080, ['10.0.0.2'], { name: 'app-def' }),
        endpointSlice('app', 9999, ['10.0.0.7'], { name: 'app-metrics', portName: 'metrics' }),
        endpointSlice('app', 8080, ['fd00::1'], { name: 'app-v6', addressType: 'IPv6' }),
        endpointSlice('app', 8080, ['app.internal'], { name: 'app-fqdn', addressType: 'FQDN' }),
      ],
    );
    expect(result.problem).toBeUndefined();
    expect(result.backend.endpoints).toEqual([
      { address: '10.0.0.1', port: 8080 },
      { address: '10.0.0.2', port: 8080 },
      { address: '10.0.0.3', port: 8080 },
      { address: 'fd00::1', port: 8080 },
    ]);
  });

  it('ignores slices of other Services and other namespaces, so passing more slices is safe', () => {
    const result = resolveServiceBackend({ ...app, port: 80 }, service('app'), [
      endpointSlice('other', 8080, ['10.9.9.9'], { name: 'other-1' }),
      endpointSlice('app', 8080, ['10.8.8.8'], { name: 'app-elsewhere', namespace: 'elsewhere' }),
      endpointSlice('app', 8080, ['10.0.0.1']),
    ]);
    expect(result.backend.endpoints).toEqual([{ address: '10.0.0.1', port: 8080 }]);
  });

  it('matches slice ports by protocol too', () => {
    const udp = deepFreeze({
      metadata: { namespace: 'default', name: 'app-udp', labels: { 'kubernetes.io/service-name': 'app' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'UDP' }],
      endpoints: [{ addresses: ['10.0.0.5'] }],
    });
    expect(resolveServiceBackend({ ...app, port: 80 }, service('app'), [udp]).backend.endpoints).toEqual([]);
  });

  it('reports a missing Service and gives a backend without endpoints, answering 503 until it exists', () => {
    expect(resolveServiceBackend({ namespace: 'default', name: 'ghost', port: 80 }, undefined, [])).toEqual({
      backend: { id: 'default/ghost:80', endpoints: [] },
      problem: 'Service default/ghost not found; requests get 503 until it exists',
      problemCode: 'service-not-found',
    });
  });

  it.each([
    ['grpc', 'Service default/app has no port named "grpc"; requests get 503'],
    [8080, 'Service default/app has no port 8080; requests get 503'],
  ])('reports a port %j the Service does not have', (port, problem) => {
    const slices = [endpointSlice('app', 8080, ['10.0.0.1'])];
    expect(resolveServiceBackend({ ...app, port }, service('app'), slices)).toEqual({
      backend: { id: `default/app:${port}`, endpoints: [] },
      problem,
      problemCode: 'service-port-not-found',
    });
  });

  it('sends an ExternalName Service to its host instead of balancing endpoints', () => {
    expect(
      resolveServiceBackend(
        { namespace: 'default', name: 'ext', port: 443 },
        externalService('ext', 'api.example.org'),
        [],
      ),
    ).toEqual({
      backend: {
        id: 'default/ext:443',
        endpoints: [],
        externalName: { hostname: 'api.example.org', port: 443 },
      },
    });
  });

  it('resolves a named port of an ExternalName Service from its ports, keeping the id as written', () => {
    const result = resolveServiceBackend(
      { namespace: 'default', name: 'ext', port: 'http' },
      externalService('ext', 'api.example.org', 8443),
      [],
    );
    expect(result.backend).toEqual({
      id: 'default/ext:http',
      endpoints: [],
      externalName: { hostname: 'api.example.org', port: 8443 },
    });
  });

  it('reports a named port an ExternalName Service does not list', () => {
    const result = resolveServiceBackend(
      { namespace: 'default', name: 'ext', port: 'https' },
      externalService('ext', 'api.example.org'),
      [],
    );
    expect(result).toEqual({
      backend: { id: 'default/ext:https', endpoints: [] },
      problem: 'Service default/ext has no port named "https"; requests get 503',
      problemCode: 'service-port-not-found',
    });
  });

  it.each(['bad host', 'a;b', '-x', '', 'API.example.org'])(
    'reports the invalid externalName %j',
    (externalName) => {
      const result = resolveServiceBackend(
        { namespace: 'default', name: 'ext', port: 443 },
        externalService('ext', externalName),
        [],
      );
      expect(result.problem).toBe('Service default/ext has an invalid spec.externalName; requests get 503');
      expect(result.backend).toEqual({ id: 'default/ext:443', endpoints: [] });
    },
  );

  it('never throws for broken Services and slices', () => {
    const broken = [
      null,
      { ports: 'x' },
      { addressType: 'IPv4', ports: [null], endpoints: [null, { addresses: [null] }] },
    ];
    const withLabels = broken.map((slice) =>
      slice === null
        ? null
        : { ...slice, metadata: { namespace: 'default', labels: { 'kubernetes.io/service-name': 'app' } } },
    );
    for (const svc of [{}, { spec: null }, { spec: { ports: 'x' } }, { spec: { ports: [null] } }]) {
      const result = resolveServiceBackend(
        { ...app, port: 80 },
        svc as never,
        withLabels as unknown as EndpointSliceLike[],
      );
      expect(result.backend).toEqual({ id: 'default/app:80', endpoints: [] });
      expect(result.problem).toContain('has no port 80');
    }
    const slices = [
      ...withLabels,
      'text',
      5,
      endpointSlice('app', 8080, ['10.0.0.1']),
    ] as unknown as EndpointSliceLike[];
    expect(resolveServiceBackend({ ...app, port: 80 }, service('app'), slices)).toEqual({
      backend: { id: 'default/app:80', endpoints: [{ address: '10.0.0.1', port: 8080 }] },
    });
  });
});
