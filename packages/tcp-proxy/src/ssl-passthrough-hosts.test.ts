import { describe, expect, it } from 'vitest';
import { resolvePassthroughHosts, type PassthroughHostsOptions } from './ssl-passthrough-hosts.js';

const PREFIX = 'nginx.ingress.kubernetes.io';

function ingress(namespace: string, name: string, created: string, host: string, passthrough = 'true') {
  return {
    metadata: {
      namespace,
      name,
      creationTimestamp: created,
      annotations: { [`${PREFIX}/ssl-passthrough`]: passthrough },
    },
    spec: {
      rules: [
        {
          host,
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'app', port: { number: 443 } } } },
            ],
          },
        },
      ],
    },
  };
}

function viewOf(ingresses: ReturnType<typeof ingress>[]) {
  const byKey = new Map(ingresses.map((item) => [`${item.metadata.namespace}/${item.metadata.name}`, item]));
  return {
    ingress: (key: string) => byKey.get(key) as never,
    ingressKeys: () => byKey.keys(),
    service: (key: string) =>
      ({
        metadata: { namespace: key.split('/')[0], name: 'app' },
        spec: { ports: [{ port: 443 }] },
      }) as never,
    endpointSlicesForService: (key: string) =>
      [
        {
          metadata: {
            namespace: key.split('/')[0],
            name: 'app-1',
            labels: { 'kubernetes.io/service-name': 'app' },
          },
          addressType: 'IPv4',
          endpoints: [{ addresses: [key.startsWith('a/') ? '10.0.0.1' : '10.0.0.2'] }],
          ports: [{ port: 8443 }],
        },
      ] as never,
  };
}

const options: PassthroughHostsOptions = {
  enabled: true,
  annotationPrefix: PREFIX,
  policy: { allowExternalName: true, allowLocalAddresses: false, forbiddenAddresses: new Set() },
  allowCrossNamespaceHosts: false,
  isOwned: () => true,
};

describe('resolvePassthroughHosts', () => {
  it('passes a host through to the endpoints of its path / backend', () => {
    const resolution = resolvePassthroughHosts(
      viewOf([ingress('a', 'x', '2024-01-01T00:00:00Z', 'Secure.Example.com')]),
      options,
    );
    expect(resolution.hosts).toEqual(
      new Map([['secure.example.com', [{ address: '10.0.0.1', port: 8443 }]]]),
    );
    expect(resolution.problems.get('a/x')).toEqual([]);
  });

  it('keeps a host for the oldest Ingress: another namespace cannot take it', () => {
    const resolution = resolvePassthroughHosts(
      viewOf([
        ingress('b', 'late', '2024-02-01T00:00:00Z', 'secure.example.com'),
        ingress('a', 'early', '2024-01-01T00:00:00Z', 'secure.example.com'),
      ]),
      options,
    );
    expect(resolution.hosts.get('secure.example.com')).toEqual([{ address: '10.0.0.1', port: 8443 }]);
    expect(resolution.problems.get('b/late')![0]).toMatchObject({
      severity: 'error',
      field: 'spec.rules[0].host',
    });
  });

  it('refuses a host another namespace holds with HTTP routes', () => {
    const resolution = resolvePassthroughHosts(
      viewOf([ingress('b', 'x', '2024-01-01T00:00:00Z', 'shop.example.com')]),
      {
        ...options,
        hostOwnershipProblems: (object) => [
          {
            object,
            field: 'spec.rules',
            severity: 'error',
            message: 'host shop.example.com belongs to namespace a',
          },
        ],
      },
    );
    expect(resolution.hosts.size).toBe(0);
    expect(resolution.problems.get('b/x')![0]!.message).toBe(
      'host shop.example.com belongs to namespace a; not passed through',
    );
  });

  it('only reports the annotation without --enable-ssl-passthrough, and ignores Ingresses of other classes', () => {
    const view = viewOf([ingress('a', 'x', '2024-01-01T00:00:00Z', 'secure.example.com')]);
    const off = resolvePassthroughHosts(view, { ...options, enabled: false });
    expect(off.hosts.size).toBe(0);
    expect(off.problems.get('a/x')![0]!.message).toContain('has no effect without --enable-ssl-passthrough');
    expect(resolvePassthroughHosts(view, { ...options, isOwned: () => false }).problems.size).toBe(0);
  });

  it('reads the annotation as ingress-nginx (Go booleans), reporting other values', () => {
    const view = viewOf([ingress('a', 'x', '2024-01-01T00:00:00Z', 'secure.example.com', 'yes')]);
    const resolution = resolvePassthroughHosts(view, options);
    expect(resolution.hosts.size).toBe(0);
    expect(resolution.problems.get('a/x')![0]!.message).toContain('not true or false');
    expect(
      resolvePassthroughHosts(viewOf([ingress('a', 'x', '2024', 'h.example.com', 'True')]), options).hosts
        .size,
    ).toBe(1);
  });
});
