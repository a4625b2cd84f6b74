import { describe, expect, it } from 'vitest';
import { parseStreamServiceEntry, resolveStreamServices } from './stream-services.js';

const policy = { allowExternalName: true, allowLocalAddresses: false, forbiddenAddresses: new Set<string>() };

function viewWith(data: Record<string, string>, services: Record<string, unknown>[] = []) {
  return {
    configMap: (key: string) =>
      key === 'ingress/tcp'
        ? ({ metadata: { namespace: 'ingress', name: 'tcp' }, data } as never)
        : undefined,
    service: (key: string) =>
      services.find((service) => `default/${(service.metadata as { name: string }).name}` === key) as never,
    endpointSlicesForService: () =>
      [
        {
          metadata: { namespace: 'default', name: 'db-1', labels: { 'kubernetes.io/service-name': 'db' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['10.0.0.7'], conditions: { ready: true } }],
          ports: [{ name: 'sql', port: 5432, protocol: 'TCP' }],
        },
      ] as never,
  };
}

const db = { metadata: { name: 'db', namespace: 'default' }, spec: { ports: [{ name: 'sql', port: 5432 }] } };

describe('parseStreamServiceEntry', () => {
  it('reads ingress-nginx entries: a port number or name, and the two PROXY sides', () => {
    expect(parseStreamServiceEntry('9000', 'default/db:5432')).toEqual({
      port: 9000,
      namespace: 'default',
      service: 'db',
      servicePort: 5432,
      decodeProxyProtocol: false,
      encodeProxyProtocol: false,
    });
    expect(parseStreamServiceEntry('9000', 'default/db:sql::PROXY')).toMatchObject({
      servicePort: 'sql',
      decodeProxyProtocol: false,
      encodeProxyProtocol: true,
    });
    expect(parseStreamServiceEntry('9000', 'default/db:sql:proxy')).toMatchObject({
      decodeProxyProtocol: true,
    });
  });

  it.each([
    ['0', 'default/db:1'],
    ['65536', 'default/db:1'],
    ['09', 'default/db:1'],
    ['9000', 'db:1'],
    ['9000', 'default/db'],
    ['9000', 'default/db:1:PROXY:PROXY:PROXY'],
    ['9000', 'default/Db:1'],
    ['9000', 'default/db:1:TLS'],
    ['9000', 'default/db:"1;"'],
  ])('refuses %s: %s', (key, value) => {
    expect(typeof parseStreamServiceEntry(key, value)).toBe('string');
  });
});

describe('resolveStreamServices', () => {
  it('serves good entries and names the key of each bad one', () => {
    const resolution = resolveStreamServices(
      viewWith({ '9000': 'default/db:sql', '80': 'default/db:5432', '9001': 'default/db:5433', x: 'y' }, [
        db,
      ]),
      [{ protocol: 'TCP', configMap: 'ingress/tcp' }],
      { reservedPorts: new Set([80]), policy },
    );
    expect(resolution.services).toEqual([
      {
        protocol: 'TCP',
        port: 9000,
        endpoints: [{ address: '10.0.0.7', port: 5432 }],
        decodeProxyProtocol: false,
        encodeProxyProtocol: false,
        // The port as the entry writes it: ingress-nginx's $proxy_upstream_name is tcp-default-db-sql.
        source: { namespace: 'default', service: 'db', port: 'sql' },
      },
    ]);
    expect(resolution.problems.map((problem) => problem.key).sort()).toEqual(['80', '9001', 'x']);
    expect(resolution.serviceKeys).toEqual(new Set(['default/db']));
  });

  it('refuses a UDP entry on a TCP port of the Service, and PROXY on UDP', () => {
    const resolution = resolveStreamServices(
      {
        ...viewWith({}),
        configMap: () => ({ metadata: {}, data: { '53': 'default/db:5432:PROXY' } }),
        service: () => db,
      },
      [{ protocol: 'UDP', configMap: 'ingress/udp' }],
      { reservedPorts: new Set(), policy },
    );
    expect(resolution.services).toEqual([]);
    expect(resolution.problems[0]!.message).toContain('is TCP, not UDP');
  });
});
