import { describe, expect, it } from 'vitest';
import { viewOfObjects, type ClusterView } from './cluster-view.js';
import type { EventReport } from './events.js';
import { L4Services, type L4Config } from './l4-services.js';
import { createLogger } from './logger.js';
import { toClusterObjects } from './manifests.js';
import type { StreamService } from '@ingresskit/nginx-template';

const config: L4Config = {
  sslPassthrough: false,
  httpsPort: 443,
  sslPassthroughProxyPort: 442,
  tcpServicesConfigMap: 'ingress/tcp',
  udpServicesConfigMap: undefined,
  reservedPorts: [80, 443],
  annotationPrefix: 'nginx.ingress.kubernetes.io',
  allowCrossNamespaceHosts: false,
  backendAddressPolicy: {
    allowExternalName: true,
    allowLocalAddresses: false,
    forbiddenAddresses: new Set(),
  },
};

function viewWith(data: Record<string, string>): ClusterView {
  return {
    ...viewOfObjects(toClusterObjects([])),
    configMap: (key) =>
      key === 'ingress/tcp'
        ? ({ metadata: { namespace: 'ingress', name: 'tcp', uid: 'u' }, data } as never)
        : undefined,
  };
}

function create(isLeader: () => boolean, l4Config: L4Config = config) {
  const events: EventReport[] = [];
  const given: StreamService[][] = [];
  const l4 = new L4Services(l4Config, {
    dataPlane: { setStreamServices: (services) => given.push(services) },
    recorder: { record: (event) => events.push(event) },
    logger: createLogger({ level: 'silent' }),
    isLeader,
    isOwned: () => true,
  });
  return { l4, events, given };
}

describe('L4Services', () => {
  it('records an Event once per problem while it holds, and all of them again for a new leader', () => {
    let leader = false;
    const { l4, events } = create(() => leader);
    const view = viewWith({ '80': 'default/web:80' });
    l4.sync(view);
    expect(events).toEqual([]);
    leader = true;
    l4.becameLeader();
    expect(events.map((event) => event.note)).toEqual([
      `TCP service "80": port 80 is one of the controller's own listeners; not served`,
    ]);
    l4.sync(view);
    expect(events).toHaveLength(1);
    l4.sync(viewWith({}));
    l4.sync(view);
    expect(events).toHaveLength(2);
  });

  it('hands the data plane the stream services only when they change', () => {
    const { l4, given } = create(() => true);
    expect(l4.sync(viewWith({})).streamServicesChanged).toBe(false);
    expect(given).toEqual([]);
  });

  it('finds its ConfigMaps and annotated Ingresses relevant, and other objects not', () => {
    const { l4 } = create(() => true);
    expect(l4.isRelevant({ kind: 'ConfigMap', type: 'updated', key: 'ingress/tcp' })).toBe(true);
    expect(l4.isRelevant({ kind: 'ConfigMap', type: 'updated', key: 'ingress/other' })).toBe(false);
    expect(l4.isRelevant({ kind: 'Service', type: 'updated', key: 'default/web' })).toBe(false);
    const annotated = {
      metadata: {
        name: 'a',
        namespace: 'default',
        annotations: { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' },
      },
    };
    expect(
      l4.isRelevant({ kind: 'Ingress', type: 'deleted', key: 'default/a', oldObject: annotated as never }),
    ).toBe(true);
    const withStatus = { ...annotated, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } };
    expect(
      l4.isRelevant({
        kind: 'Ingress',
        type: 'updated',
        key: 'default/a',
        oldObject: annotated as never,
        newObject: withStatus as never,
      }),
    ).toBe(false);
    expect(
      l4.isRelevant({
        kind: 'Ingress',
        type: 'added',
        key: 'default/b',
        newObject: { metadata: { name: 'b' } } as never,
      }),
    ).toBe(false);
  });
  it('reads the view again only after a relevant event or a change of Ingresses', () => {
    const { l4 } = create(() => true);
    let reads = 0;
    const base = viewWith({ '8080': 'default/web:80' });
    const view: ClusterView = { ...base, configMap: (key) => (reads++, base.configMap(key)) };
    const readsOf = (changed: { ingresses: boolean }) => {
      const before = reads;
      l4.sync(view, changed);
      return reads - before;
    };
    expect(readsOf({ ingresses: false })).toBeGreaterThan(0);
    // Endpoint moves of Services it does not serve: nothing to read again.
    expect(readsOf({ ingresses: false })).toBe(0);
    expect(readsOf({ ingresses: true })).toBeGreaterThan(0);
    expect(l4.isRelevant({ kind: 'ConfigMap', type: 'updated', key: 'ingress/tcp' })).toBe(true);
    expect(readsOf({ ingresses: false })).toBeGreaterThan(0);
  });

  it('walks every Ingress once, then keeps the annotated ones from change events', () => {
    const { l4 } = create(() => true);
    const annotated = (name: string) => ({
      metadata: {
        name,
        namespace: 'default',
        annotations: { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' },
      },
      spec: { rules: [{ host: `${name}.test` }] },
    });
    const base = viewOfObjects(toClusterObjects([]));
    const ingresses = new Map<string, unknown>([['default/a', annotated('a')]]);
    let walks = 0;
    const read: string[] = [];
    const view: ClusterView = {
      ...base,
      ingressKeys: () => (walks++, ingresses.keys()),
      ingress: (key) => (read.push(key), ingresses.get(key) as never),
    };
    l4.sync(view);
    expect(walks).toBe(1);
    ingresses.set('default/b', annotated('b'));
    ingresses.set('default/plain', { metadata: { name: 'plain', namespace: 'default' } });
    l4.isRelevant({ kind: 'Ingress', type: 'added', key: 'default/b', newObject: annotated('b') as never });
    l4.isRelevant({
      kind: 'Ingress',
      type: 'added',
      key: 'default/plain',
      newObject: { metadata: { name: 'plain', namespace: 'default' } } as never,
    });
    read.length = 0;
    l4.sync(view, { ingresses: true });
    expect(walks).toBe(1);
    expect(new Set(read)).toEqual(new Set(['default/a', 'default/b']));
  });

  it("counts the stream services' ports as its own: no stream or passthrough backend may loop into them", () => {
    const local = {
      ...config,
      backendAddressPolicy: { ...config.backendAddressPolicy, allowLocalAddresses: true },
    };
    const { l4, events, given } = create(() => true, local);
    const objects = viewOfObjects(
      toClusterObjects([
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'loop', namespace: 'default' },
          spec: { ports: [{ port: 80 }] },
        },
        {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            name: 'loop-1',
            namespace: 'default',
            labels: { 'kubernetes.io/service-name': 'loop' },
          },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['127.0.0.1'] }],
          ports: [{ port: 9000 }],
        },
      ] as never),
    );
    const streams = viewWith({ '9000': 'default/loop:80', ' 9001 ': 'x' });
    const view: ClusterView = { ...objects, configMap: (key) => streams.configMap(key) };
    expect([...l4.ownPorts(view)].sort((a, b) => a - b)).toEqual([80, 443, 9000, 9001]);
    l4.sync(view);
    expect(given.at(-1)?.[0]?.endpoints).toEqual([]);
    expect(events.map((event) => event.note)).toContain(
      'TCP service "9000": EndpointSlices of Service default/loop name addresses a backend may not point at, left out: 127.0.0.1:9000 is a port of the gateway itself',
    );
  });
});
