import { afterEach, describe, expect, it } from 'vitest';
import {
  configMap,
  coreFixture,
  createHarness,
  endpointSlice,
  expectConverged,
  gateway,
  gatewayClass,
  type Harness,
  httpRoute,
  ingress,
  ingressCheckSum,
  ingressClass,
  namespace,
  optionalCrdsYaml,
  referenceGrant,
  secret,
  secretCheckSum,
  service,
  waitFor,
} from '../test/harness.js';
import { StoreStoppedError } from './errors.js';
import type { StoreOptions } from './store-options.js';

let harness: Harness | undefined;

async function setUp(options: StoreOptions = {}, seed?: object[] | string): Promise<Harness> {
  harness = await createHarness(options, seed);
  return harness;
}

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

describe('createStore', () => {
  it('lists every kind, including optional kinds whose CRDs exist, before start() resolves', async () => {
    const h = await setUp({}, optionalCrdsYaml);
    await h.apply([
      ...coreFixture('shop'),
      gatewayClass('ingresskit'),
      gateway('shop', 'edge', 'ingresskit'),
      httpRoute('shop', 'web', 'edge'),
      referenceGrant('shop', 'from-infra', 'infra'),
      ingressCheckSum('shop', 'ingress-checksum-1', 'abc'),
      secretCheckSum('shop', 'secret-checksum-1', 'def'),
    ]);
    let synced = 0;
    h.store.on('synced', () => synced++);
    expect(h.store.hasSynced()).toBe(false);
    await h.store.start();
    expect(h.store.hasSynced()).toBe(true);
    expect(synced).toBe(1);

    const snapshot = h.store.snapshot();
    expect(snapshot.ingresses.size).toBe(1);
    expect(snapshot.gateways.get('shop/edge')?.spec?.gatewayClassName).toBe('ingresskit');
    expect(snapshot.httpRoutes.get('shop/web')?.spec?.parentRefs).toEqual([{ name: 'edge' }]);
    // Served as v1beta1, the one version every Gateway API release has.
    expect(snapshot.referenceGrants.get('shop/from-infra')?.apiVersion).toBe(
      'gateway.networking.k8s.io/v1beta1',
    );
    // Namespaces are opt-in.
    expect(snapshot.isAvailable('Namespace')).toBe(false);
    expect(snapshot.ingressCheckSums.has('shop/ingress-checksum-1')).toBe(true);
    expect(snapshot.secretCheckSums.has('shop/secret-checksum-1')).toBe(true);
    expect(
      snapshot.customResourceDefinitions.get('gateways.gateway.networking.k8s.io')?.metadata.annotations,
    ).toEqual(expect.objectContaining({ 'gateway.networking.k8s.io/bundle-version': 'v1.6.1' }));
    // One shape whatever the path: apiVersion/kind set, string timestamps, frozen.
    const stored = snapshot.ingresses.get('shop/front')!;
    expect(stored.apiVersion).toBe('networking.k8s.io/v1');
    expect(stored.kind).toBe('Ingress');
    expect(typeof stored.metadata.creationTimestamp).toBe('string');
    expect(Object.isFrozen(stored.spec)).toBe(true);
    // Indexes.
    expect(snapshot.ingressesForService('shop/web').map((i) => i.metadata.name)).toEqual(['front']);
    expect(snapshot.ingressesForSecret('shop/cert').map((i) => i.metadata.name)).toEqual(['front']);
    expect(snapshot.ingressesForIngressClass('shop-class').map((i) => i.metadata.name)).toEqual(['front']);
    expect(snapshot.endpointSlicesForService('shop/web').map((s) => s.metadata.name)).toEqual(['web-abc']);
    expect(snapshot.gatewaysForGatewayClass('ingresskit').map((g) => g.metadata.name)).toEqual(['edge']);
    // Secrets: TLS and referenced kept, the unreferenced Opaque one left out.
    expect([...snapshot.secrets.keys()].sort()).toEqual(['shop/auth', 'shop/cert']);
    await expectConverged(h);
    expect(h.errors).toEqual([]);
  });

  it('follows adds, updates and deletes of every kind with one event each', async () => {
    const h = await setUp({}, optionalCrdsYaml);
    await h.apply(namespace('shop'));
    await h.store.start();
    const created = [
      ...coreFixture('shop').slice(1),
      gatewayClass('ingresskit'),
      gateway('shop', 'edge', 'ingresskit'),
      httpRoute('shop', 'web', 'edge'),
      referenceGrant('shop', 'from-infra', 'infra'),
      ingressCheckSum('shop', 'ics-1', 'abc'),
      secretCheckSum('shop', 'scs-1', 'def'),
    ];
    await h.apply(created);
    await expectConverged(h);

    await h.apply([
      ingress('shop', 'front', { className: 'shop-class', tlsSecret: 'cert', service: 'api' }),
      // spec.controller is immutable, as in Kubernetes: the update marks the class the default.
      {
        ...ingressClass('shop-class'),
        metadata: {
          name: 'shop-class',
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
      },
      service('shop', 'web', { tier: 'front' }),
      endpointSlice('shop', 'web-abc', 'web', ['10.0.0.1', '10.0.0.2']),
      secret('shop', 'cert', 'kubernetes.io/tls', 'bmV3'),
      configMap('shop', 'settings', { 'proxy-body-size': '8m' }),
      gatewayClass('ingresskit', 'ingresskit.dev/other'),
      gateway('shop', 'edge', 'other'),
      httpRoute('shop', 'web', 'other'),
      referenceGrant('shop', 'from-infra', 'elsewhere'),
      ingressCheckSum('shop', 'ics-1', 'changed'),
      secretCheckSum('shop', 'scs-1', 'changed'),
    ]);
    await expectConverged(h);
    // The auth Secret lost its last reference (annotation removed) and left the snapshot.
    expect(h.store.snapshot().secrets.has('shop/auth')).toBe(false);

    for (const [kind, key] of [
      ['Ingress', 'shop/front'],
      ['IngressClass', 'shop-class'],
      ['Service', 'shop/web'],
      ['EndpointSlice', 'shop/web-abc'],
      ['Secret', 'shop/cert'],
      ['ConfigMap', 'shop/settings'],
      ['Gateway', 'shop/edge'],
      ['GatewayClass', 'ingresskit'],
      ['HTTPRoute', 'shop/web'],
      ['ReferenceGrant', 'shop/from-infra'],
      ['IngressCheckSum', 'shop/ics-1'],
      ['SecretCheckSum', 'shop/scs-1'],
    ] as const) {
      await h.remove(kind, key);
    }
    await expectConverged(h);
    for (const kind of [
      'Ingress',
      'IngressClass',
      'Service',
      'EndpointSlice',
      'ConfigMap',
      'Gateway',
      'GatewayClass',
      'HTTPRoute',
      'ReferenceGrant',
      'IngressCheckSum',
      'SecretCheckSum',
    ] as const) {
      expect({ kind, added: h.recorder.count(kind, 'added') }).toEqual({ kind, added: 1 });
      expect({ kind, updated: h.recorder.count(kind, 'updated') }).toEqual({ kind, updated: 1 });
      expect({ kind, deleted: h.recorder.count(kind, 'deleted') }).toEqual({ kind, deleted: 1 });
    }
  });

  it('emits nothing for a write that changes nothing', async () => {
    const h = await setUp({}, [namespace('shop'), configMap('shop', 'settings', { a: '1' })]);
    await h.store.start();
    const before = h.recorder.events.length;
    await h.apply(configMap('shop', 'settings', { a: '1' }));
    await h.apply(configMap('shop', 'marker', { b: '2' }));
    await waitFor(() => h.store.snapshot().configMaps.has('shop/marker'), 'the marker ConfigMap');
    expect(h.recorder.events.slice(before).map((event) => event.key)).toEqual(['shop/marker']);
  });

  it('deletes an object whose labels stop matching the selector and adds it back when they match again', async () => {
    const options: StoreOptions = { labelSelectors: { Service: 'team=a', ConfigMap: 'team in (a,b)' } };
    const h = await setUp(options, [
      namespace('shop'),
      service('shop', 'matching', { team: 'a' }),
      service('shop', 'other', { team: 'b' }),
      configMap('shop', 'cm', {}, { team: 'b' }),
    ]);
    await h.store.start();
    expect([...h.store.snapshot().services.keys()]).toEqual(['shop/matching']);
    await h.apply([service('shop', 'matching', { team: 'b' }), configMap('shop', 'cm', {}, { team: 'c' })]);
    await waitFor(() => h.store.snapshot().services.size === 0, 'the relabelled Service to leave');
    await waitFor(() => h.store.snapshot().configMaps.size === 0, 'the relabelled ConfigMap to leave');
    expect(h.recorder.count('Service', 'deleted')).toBe(1);
    expect(h.recorder.count('ConfigMap', 'deleted')).toBe(1);
    await h.apply(service('shop', 'matching', { team: 'a' }));
    await waitFor(() => h.store.snapshot().services.has('shop/matching'), 'the Service to match again');
    expect(h.recorder.count('Service', 'added')).toBe(2);
    await expectConverged(h);
  });

  it('mirrors only the chosen namespaces and kinds', async () => {
    const options: StoreOptions = { namespaces: ['a', 'b'], kinds: ['Service', 'ConfigMap', 'IngressClass'] };
    const h = await setUp(options, [
      namespace('a'),
      namespace('b'),
      namespace('c'),
      service('a', 'one'),
      service('b', 'two'),
      service('c', 'three'),
      ingressClass('nginx'),
      ingress('a', 'ignored'),
    ]);
    await h.store.start();
    await h.apply([service('c', 'four'), service('b', 'five'), configMap('a', 'cm', {})]);
    await expectConverged(h);
    const snapshot = h.store.snapshot();
    expect([...snapshot.services.keys()].sort()).toEqual(['a/one', 'b/five', 'b/two']);
    expect(snapshot.isAvailable('Ingress')).toBe(false);
    expect(snapshot.ingresses.size).toBe(0);
    expect(
      h.store
        .status()
        .map((status) => `${status.kind}:${status.namespace ?? '*'}`)
        .sort(),
    ).toEqual(['ConfigMap:a', 'ConfigMap:b', 'IngressClass:*', 'Service:a', 'Service:b']);
  });

  it('adds a Secret of any type when an Ingress starts referencing it and drops it when the reference goes', async () => {
    const h = await setUp({}, [
      namespace('shop'),
      secret('shop', 'basic-auth'),
      secret('shop', 'cert', 'kubernetes.io/tls'),
    ]);
    await h.store.start();
    expect([...h.store.snapshot().secrets.keys()]).toEqual([]);
    expect(h.store.secretStats()).toEqual({ held: 0, heldDataChars: 0, notHeld: 2 });

    await h.apply(
      ingress('shop', 'front', {
        tlsSecret: 'cert',
        annotations: { 'nginx.ingress.kubernetes.io/auth-secret': 'basic-auth' },
      }),
    );
    await waitFor(() => h.store.snapshot().secrets.has('shop/basic-auth'), 'the referenced Secret');
    await waitFor(() => h.store.snapshot().secrets.has('shop/cert'), 'the referenced TLS Secret');
    await h.apply(secret('shop', 'basic-auth', 'Opaque', 'Y2hhbmdlZA=='));
    await expectConverged(h);
    expect(h.store.snapshot().secrets.get('shop/basic-auth')?.data?.value).toBe('Y2hhbmdlZA==');

    await h.remove('Ingress', 'shop/front');
    await waitFor(
      () => !h.store.snapshot().secrets.has('shop/basic-auth'),
      'the unreferenced Secret to leave',
    );
    await expectConverged(h);
    expect(h.recorder.count('Secret', 'deleted')).toBe(2);
    expect(h.store.secretStats()).toEqual({ held: 0, heldDataChars: 0, notHeld: 2 });
    expect(h.errors).toEqual([]);
  });

  it('lists Secrets by their metadata and reads whole only those referenced, before start() resolves', async () => {
    const big = Buffer.alloc(64 * 1024, 1).toString('base64');
    const h = await setUp({}, [
      namespace('shop'),
      ingress('shop', 'front', { tlsSecret: 'cert' }),
      secret('shop', 'cert', 'kubernetes.io/tls'),
      ...Array.from({ length: 20 }, (_, index) =>
        secret('shop', `unreferenced-${index}`, 'kubernetes.io/tls', big),
      ),
    ]);
    await h.store.start();
    expect([...h.store.snapshot().secrets.keys()]).toEqual(['shop/cert']);
    expect(h.store.snapshot().secrets.get('shop/cert')?.data).toBeDefined();
    expect(h.store.secretStats()).toMatchObject({ held: 1, notHeld: 20 });
    expect(h.store.secretStats().heldDataChars).toBeLessThan(1024);
    const secretLists = h.requests.filter(
      (request) => request.op === 'list' && request.path.endsWith('/secrets'),
    );
    // Pages of metadata, then one read of the referenced Secret by its name.
    expect(secretLists.filter((request) => request.fieldSelector === undefined).length).toBeGreaterThan(1);
    expect(
      secretLists
        .filter((request) => request.fieldSelector === undefined)
        .every((request) => request.metadataOnly),
    ).toBe(true);
    expect(secretLists.filter((request) => request.fieldSelector !== undefined)).toEqual([
      expect.objectContaining({ fieldSelector: 'metadata.name=cert', resourceVersion: expect.any(String) }),
    ]);

    // Created while the store runs, an unreferenced Secret is known by its version only; one that
    // becomes referenced is read once.
    await h.apply(secret('shop', 'later', 'kubernetes.io/tls', big));
    await waitFor(() => h.store.secretStats().notHeld === 21, 'the later Secret to be seen');
    expect(h.store.secretStats().heldDataChars).toBeLessThan(1024);
    await h.apply(ingress('shop', 'late', { tlsSecret: 'later' }));
    await waitFor(() => h.store.snapshot().secrets.get('shop/later')?.data !== undefined, 'the later Secret');
    await expectConverged(h);
    expect(h.errors).toEqual([]);

    // A Secret the store does not hold can still be read on demand (an admission review does).
    expect((await h.store.readSecret('shop/unreferenced-3'))?.data?.['tls.crt']).toBe(big);
    expect(h.store.snapshot().secrets.has('shop/unreferenced-3')).toBe(false);
    expect(await h.store.readSecret('shop/missing')).toBeUndefined();
  });

  it('reads a namespace whose Secrets are mostly referenced with one list, not one read each', async () => {
    const big = Buffer.alloc(64 * 1024, 2).toString('base64');
    const h = await setUp({}, [
      namespace('shop'),
      ...Array.from({ length: 12 }, (_, index) => [
        secret('shop', `cert-${index}`, 'kubernetes.io/tls'),
        ingress('shop', `front-${index}`, { tlsSecret: `cert-${index}` }),
      ]).flat(),
      secret('shop', 'unreferenced-a', 'kubernetes.io/tls', big),
      secret('shop', 'unreferenced-b', 'kubernetes.io/tls', big),
    ]);
    await h.store.start();
    expect(h.store.secretStats()).toMatchObject({ held: 12, notHeld: 2 });
    expect(h.store.snapshot().secrets.get('shop/cert-11')?.data).toBeDefined();
    const reads = h.requests.filter(
      (request) =>
        request.op === 'list' && request.path.endsWith('/secrets') && request.metadataOnly !== true,
    );
    expect(reads).toEqual([
      expect.objectContaining({
        path: '/api/v1/namespaces/shop/secrets',
        resourceVersion: expect.any(String),
      }),
    ]);
    expect(h.store.secretStats().heldDataChars).toBeLessThan(64 * 1024);
    await expectConverged(h);
    expect(h.errors).toEqual([]);
  });

  it('mirrors Namespaces with their labels when they are asked for', async () => {
    const h = await setUp({ kinds: ['Namespace', 'Service'] });
    await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { tier: 'a' } } });
    await h.store.start();
    expect(h.store.snapshot().namespaces.get('shop')?.metadata.labels).toMatchObject({ tier: 'a' });
    await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { tier: 'b' } } });
    await waitFor(
      () => h.store.snapshot().namespaces.get('shop')?.metadata.labels?.tier === 'b',
      'the relabelled Namespace',
    );
    await expectConverged(h);
  });

  it('starts an optional kind when its CRD appears and deletes its objects when the CRD goes', async () => {
    const h = await setUp({}, [namespace('infra')]);
    const availability: string[] = [];
    h.store.on('availability', (change) => availability.push(`${change.kind}:${change.available}`));
    await h.store.start();
    expect(h.store.snapshot().isAvailable('Gateway')).toBe(false);
    expect(h.errors).toEqual([]);

    await h.apply(optionalCrdsYaml);
    await h.apply([gatewayClass('ingresskit'), gateway('infra', 'edge', 'ingresskit')]);
    await waitFor(() => h.store.snapshot().gateways.has('infra/edge'), 'the Gateway after its CRD appeared');
    await waitFor(() => h.store.snapshot().gatewayClasses.has('ingresskit'), 'the GatewayClass');
    await expectConverged(h);

    await h.remove('CustomResourceDefinition', 'gateways.gateway.networking.k8s.io');
    await waitFor(() => !h.store.snapshot().isAvailable('Gateway'), 'the Gateway kind to go away');
    expect(h.store.snapshot().gateways.size).toBe(0);
    expect(h.recorder.count('Gateway', 'deleted')).toBe(1);
    await expectConverged(h);
    expect(availability).toEqual(
      expect.arrayContaining(['Gateway:true', 'GatewayClass:true', 'Gateway:false']),
    );
    expect(h.errors).toEqual([]);
  });

  it('starts without optional kinds when listing CRDs is forbidden and adds them once it is allowed', async () => {
    const h = await setUp({}, optionalCrdsYaml);
    await h.apply(gatewayClass('ingresskit'));
    h.server.faults.failNext(8, 403, { match: { path: 'customresourcedefinitions', watch: false } });
    await h.store.start();
    expect(h.store.snapshot().isAvailable('GatewayClass')).toBe(false);
    expect(h.errors.some((error) => (error as { statusCode?: number }).statusCode === 403)).toBe(true);
    await waitFor(
      () => h.store.snapshot().gatewayClasses.has('ingresskit'),
      'the GatewayClass once CRDs can be listed',
    );
    await expectConverged(h);
  });

  it('stops for good: no events after stop(), and start() after stop() rejects', async () => {
    const h = await setUp({}, [namespace('shop')]);
    await h.store.start();
    await h.store.stop();
    expect(h.store.status().every((status) => status.phase === 'stopped')).toBe(true);
    // Watch requests sent just before stop() may still reach the server; they are aborted on arrival.
    await waitFor(() => h.server.stats().activeWatches === 0, 'every watch to close');
    const requests = h.server.stats().requests;
    await h.apply(configMap('shop', 'late', {}));
    await h.server.faults.pause();
    await h.server.faults.resume();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.recorder.events.some((event) => event.key === 'shop/late')).toBe(false);
    expect(h.server.stats().requests).toBe(requests);
    expect(h.server.stats().activeWatches).toBe(0);
    await expect(h.store.start()).rejects.toBeInstanceOf(StoreStoppedError);
  });

  it('rejects a pending start() when stopped before the first sync', async () => {
    const h = await setUp();
    await h.server.faults.pause();
    const starting = h.store.start();
    await waitFor(() => h.errors.length > 0, 'a failed list');
    await h.store.stop();
    await expect(starting).rejects.toBeInstanceOf(StoreStoppedError);
    await h.server.faults.resume();
  });

  it('keeps delivering events to other listeners when one throws, and reports the throw', async () => {
    const h = await setUp({}, [namespace('shop')]);
    h.store.on('change', () => {
      throw new Error('listener bug');
    });
    const seen: string[] = [];
    h.store.on('change', (event) => seen.push(event.key));
    await h.store.start();
    await h.apply(configMap('shop', 'cm', {}));
    await waitFor(() => seen.includes('shop/cm'), 'the second listener');
    expect(h.errors.some((error) => error.name === 'ListenerError')).toBe(true);
    await expectConverged(h);
  });
});
