import { describe, expect, it } from 'vitest';
import type { Route, RouteTable } from '@ingresskit/route-model';
import { buildConfiguration, InvalidRenderOptionsError, type RenderOptions } from './index.js';
import { createTestHost, createTestOrigin, createTestRoute, createTestTable } from './testing/routes.js';

const options: RenderOptions = { controlSocketPath: '/run/ingresskit/control.sock' };
const forward = (backend: string): Route['action'] => ({
  type: 'forward',
  backends: [{ backend, weight: 1 }],
});

function createTable(routes: Route[] = [createTestRoute('root', { action: forward('app') })]): RouteTable {
  return createTestTable({
    virtualHosts: [createTestHost('a.example.com', routes)],
    backends: [{ id: 'app', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
  });
}

function configHashOf(table: RouteTable): string {
  return buildConfiguration(table, options).configuration.configHash;
}

describe('buildConfiguration', () => {
  it('holds the listeners and the settings, and no user text', () => {
    const { configuration, problems } = buildConfiguration(createTable(), options);
    expect(problems).toEqual([]);
    expect(configuration.listeners).toEqual([
      { port: 80, protocol: 'HTTP', bindPort: 80 },
      { port: 443, protocol: 'HTTPS', bindPort: 443 },
    ]);
    expect(configuration.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(configuration)).not.toContain('a.example.com');
  });

  it('does not change for a new host, path, backend, certificate or policy', () => {
    const base = configHashOf(createTable());
    const changes: RouteTable[] = [
      {
        ...createTable(),
        virtualHosts: [
          ...createTable().virtualHosts,
          createTestHost('b.example.com', [createTestRoute('b', { action: forward('app') })]),
        ],
      },
      createTable([
        createTestRoute('root', { action: forward('app') }),
        createTestRoute('path', {
          match: { path: { type: 'Exact', value: '/x' } },
          action: forward('other'),
        }),
      ]),
      {
        ...createTable(),
        backends: [
          { id: 'app', endpoints: [{ address: '10.0.0.2', port: 81 }] },
          { id: 'new', endpoints: [], externalName: { hostname: '10.1.1.1', port: 80 } },
        ],
      },
      {
        ...createTable(),
        tls: [{ hostname: 'a.example.com', certificate: 'c', origin: createTestOrigin() }],
        certificates: [{ id: 'c', certificatePem: 'x', privateKeyPem: 'y' }],
      },
      createTable([
        createTestRoute('root', {
          action: forward('app'),
          policy: {
            redirectToHttps: { statusCode: 308 },
            allowSources: ['10.0.0.0/8'],
            rewrite: { type: 'ReplaceFullPath', value: '/x' },
            requestHeaders: { set: [{ name: 'a', value: 'b' }] },
            responseHeaders: { set: [{ name: 'a', value: 'b' }] },
            timeouts: { readMs: 5 },
            upstreamHost: 'x',
          },
        }),
      ]),
      {
        ...createTable(),
        listeners: [
          { name: 'renamed', port: 80, protocol: 'HTTP' },
          { name: 'https', port: 443, protocol: 'HTTPS' },
        ],
      },
    ];
    for (const table of changes) expect(configHashOf(table)).toBe(base);
  });

  it('does not change for any directive a route asks for', () => {
    const base = configHashOf(createTable());
    for (const policy of [
      { backendProtocol: 'GRPC' as const },
      { maxBodyBytes: 10 },
      {
        upstreamSettings: {
          bufferSizeBytes: 131072,
          requestBuffering: false,
          retryOn: ['http_502' as const],
        },
      },
      { customErrors: { statuses: [404, 418], backends: ['app'] } },
    ]) {
      expect(configHashOf(createTable([createTestRoute('root', { action: forward('app'), policy })]))).toBe(
        base,
      );
    }
  });

  it('changes for a listener or a setting', () => {
    const base = configHashOf(createTable());
    const changed = [
      configHashOf({ ...createTable(), listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' }] }),
      buildConfiguration(createTable(), { ...options, proxyBodySize: '2m' }).configuration.configHash,
    ];
    expect(new Set([base, ...changed]).size).toBe(3);
  });

  it('maps listener ports to bind ports and leaves out listeners that cannot be rendered', () => {
    const table = createTestTable({
      listeners: [
        { name: 'a', port: 443, protocol: 'HTTPS' },
        { name: 'b', port: 443, protocol: 'HTTP' },
        { name: 'c', port: 70000, protocol: 'HTTP' },
        { name: 'd', port: 80, protocol: 'TCP' as never },
        { name: 'e', port: 8443, protocol: 'HTTP' },
      ],
    });
    const { configuration, problems } = buildConfiguration(table, { ...options, listenPorts: { 443: 8443 } });
    expect(configuration.listeners).toEqual([{ port: 443, protocol: 'HTTPS', bindPort: 8443 }]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'listener b: shares port 8443 with another listener; left out',
      'listener c: needs a name, a port from 1 to 65535 and the protocol HTTP or HTTPS; left out',
      'listener d: needs a name, a port from 1 to 65535 and the protocol HTTP or HTTPS; left out',
      'listener e: shares port 8443 with another listener; left out',
    ]);
  });

  it('reports route and backend problems against their origin', () => {
    const route = createTestRoute('bad', {
      action: forward('app'),
      policy: { allowSources: ['nope'], mirror: { backend: '' } },
      origin: { ...createTestOrigin('shop'), namespace: 'prod', field: 'spec.rules[0]' },
    });
    const table: RouteTable = {
      ...createTable([route]),
      backends: [
        { id: 'dns', endpoints: [], externalName: { hostname: 'api.example.org', port: 443 } },
        { id: 'odd', endpoints: [{ address: 'x', port: 1 }] },
      ],
    };
    const { problems } = buildConfiguration(table, options);
    expect(problems).toEqual([
      {
        object: { kind: 'Ingress', namespace: 'prod', name: 'shop' },
        field: 'spec.rules[0]',
        message:
          'route bad (host a.example.com): policy.allowSources[0] is not an IP address or CIDR; it admits no client',
        severity: 'error',
        value: 'nope',
      },
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('policy.mirror') }),
      expect.objectContaining({
        object: { kind: 'Backend', namespace: '', name: 'dns' },
        message: expect.stringContaining('resolvers'),
      }),
      expect.objectContaining({
        object: { kind: 'Backend', namespace: '', name: 'odd' },
        message: expect.stringContaining('1 endpoint(s)'),
      }),
    ]);
    expect(buildConfiguration(table, { ...options, resolvers: ['10.96.0.10'] }).problems).toHaveLength(3);
  });

  it('reports a table without listeners', () => {
    const { configuration, problems } = buildConfiguration(createTestTable({ listeners: [] }), options);
    expect(configuration.listeners).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({ message: 'the table has no listener; nginx serves nothing' }),
    ]);
  });

  it('throws for bad options, naming the option', () => {
    expect(() => buildConfiguration(createTable(), { ...options, workerConnections: -1 })).toThrow(
      InvalidRenderOptionsError,
    );
  });
});
