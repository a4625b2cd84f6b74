import { describe, expect, it } from 'vitest';
import type { KubeObject } from './objects.js';
import { shapeParsedObject } from './normalize.js';
import { resourceTypes, type ResourceKind } from './resources.js';
import { shapeSecretWithoutData } from './secret-data.js';
import { type ChangeEvent, StoreState } from './state.js';

let nextVersion = 1;

function make(
  kind: ResourceKind,
  key: string,
  body: Record<string, unknown> = {},
  extraMeta = {},
): KubeObject {
  const [namespace, name] = key.includes('/') ? key.split('/') : [undefined, key];
  const raw = {
    ...body,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      resourceVersion: String(nextVersion++),
      ...extraMeta,
    },
  };
  return shapeParsedObject(raw, resourceTypes[kind])!;
}

function ingress(
  key: string,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeObject {
  return make('Ingress', key, { spec }, annotations ? { annotations } : {});
}

function gateway(key: string, className: string, certificateRefs: Record<string, string>[]): KubeObject {
  return make('Gateway', key, {
    spec: {
      gatewayClassName: className,
      listeners: [{ name: 'https', protocol: 'HTTPS', port: 443, tls: { certificateRefs } }],
    },
  });
}

function rawSecret(key: string, resourceVersion: string): unknown {
  const [namespace, name] = key.split('/');
  return {
    metadata: { name, namespace, resourceVersion },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': 'AAAA' },
  };
}

function backend(service: string) {
  return { service: { name: service, port: { number: 80 } } };
}

function summarize(events: ChangeEvent[]): string[] {
  return events.map((event) => `${event.type} ${event.kind} ${event.key}`);
}

describe('StoreState', () => {
  it('records one event per real change and ignores an unchanged resourceVersion', () => {
    const state = new StoreState();
    const service = make('Service', 'shop/web');
    state.upsert('Service', service);
    state.upsert('Service', service);
    const changed = make('Service', 'shop/web', { spec: { type: 'ClusterIP' } });
    state.upsert('Service', changed);
    state.remove('Service', changed);
    state.remove('Service', changed);
    const events = state.takeEvents();
    expect(summarize(events)).toEqual([
      'added Service shop/web',
      'updated Service shop/web',
      'deleted Service shop/web',
    ]);
    expect(events[1]).toMatchObject({ oldObject: service, newObject: changed });
    expect(events[2]).toMatchObject({ oldObject: changed });
  });

  it('turns a complete list into deletes, adds and updates only for what differs', () => {
    const state = new StoreState();
    const kept = make('ConfigMap', 'a/kept');
    const changed = make('ConfigMap', 'a/changed');
    state.replace('ConfigMap', [kept, changed, make('ConfigMap', 'a/gone')]);
    state.takeEvents();
    const changedAgain = make('ConfigMap', 'a/changed');
    state.replace('ConfigMap', [kept, changedAgain, make('ConfigMap', 'a/new')]);
    expect(summarize(state.takeEvents())).toEqual([
      'deleted ConfigMap a/gone',
      'updated ConfigMap a/changed',
      'added ConfigMap a/new',
    ]);
  });

  it('limits a relist to its namespace when one is given', () => {
    const state = new StoreState();
    state.replace('Service', [make('Service', 'a/one')], 'a');
    state.replace('Service', [make('Service', 'b/two')], 'b');
    state.replace('Service', [], 'a');
    expect([...state.snapshot().services.keys()]).toEqual(['b/two']);
  });

  it('keeps old snapshots unchanged and returns the same snapshot while nothing changes', () => {
    const state = new StoreState();
    state.upsert('Service', make('Service', 'a/one'));
    const first = state.snapshot();
    expect(state.snapshot()).toBe(first);
    state.upsert('Service', make('Service', 'a/two'));
    state.remove('Service', make('Service', 'a/one'));
    const second = state.snapshot();
    expect(second.version).toBeGreaterThan(first.version);
    expect(first.services.list().map((s) => s.metadata.name)).toEqual(['one']);
    expect(second.services.list().map((s) => s.metadata.name)).toEqual(['two']);
  });

  it('shares the map of a kind that did not change between snapshots', () => {
    const state = new StoreState();
    state.upsert('Service', make('Service', 'a/one'));
    const first = state.snapshot();
    state.upsert('ConfigMap', make('ConfigMap', 'a/cm'));
    const second = state.snapshot();
    expect(second.services).toBe(first.services);
    expect(second.configMaps).not.toBe(first.configMaps);
  });

  it('groups EndpointSlices by the service-name label and follows relabelling', () => {
    const state = new StoreState();
    const label = (service: string) => ({ labels: { 'kubernetes.io/service-name': service } });
    state.upsert('EndpointSlice', make('EndpointSlice', 'shop/web-1', {}, label('web')));
    state.upsert('EndpointSlice', make('EndpointSlice', 'shop/web-2', {}, label('web')));
    state.upsert('EndpointSlice', make('EndpointSlice', 'other/web-3', {}, label('web')));
    const before = state.snapshot();
    expect(before.endpointSlicesForService('shop/web').map((s) => s.metadata.name)).toEqual([
      'web-1',
      'web-2',
    ]);
    state.upsert('EndpointSlice', make('EndpointSlice', 'shop/web-2', {}, label('api')));
    const after = state.snapshot();
    expect(after.endpointSlicesForService('shop/web').map((s) => s.metadata.name)).toEqual(['web-1']);
    expect(after.endpointSlicesForService('shop/api').map((s) => s.metadata.name)).toEqual(['web-2']);
    expect(before.endpointSlicesForService('shop/web')).toHaveLength(2);
  });

  it('indexes the Secrets, Services and IngressClasses an Ingress references', () => {
    const state = new StoreState();
    state.upsert(
      'Ingress',
      ingress(
        'shop/front',
        {
          ingressClassName: 'nginx',
          defaultBackend: backend('fallback'),
          tls: [{ hosts: ['a.example'], secretName: 'a-tls' }],
          rules: [
            {
              host: 'a.example',
              http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('web') }] },
            },
          ],
        },
        { 'kubernetes.io/ingress.class': 'legacy' },
      ),
    );
    const snapshot = state.snapshot();
    const names = (list: readonly KubeObject[]) => list.map((object) => object.metadata.name);
    expect(names(snapshot.ingressesForSecret('shop/a-tls'))).toEqual(['front']);
    expect(names(snapshot.ingressesForService('shop/web'))).toEqual(['front']);
    expect(names(snapshot.ingressesForService('shop/fallback'))).toEqual(['front']);
    expect(names(snapshot.ingressesForIngressClass('nginx'))).toEqual(['front']);
    expect(names(snapshot.ingressesForIngressClass('legacy'))).toEqual(['front']);
    expect(snapshot.ingressesForService('other/web')).toEqual([]);

    state.upsert('Ingress', ingress('shop/front', { ingressClassName: 'other' }));
    const after = state.snapshot();
    expect(after.ingressesForService('shop/web')).toEqual([]);
    expect(after.ingressesForIngressClass('nginx')).toEqual([]);
    expect(names(after.ingressesForIngressClass('other'))).toEqual(['front']);
  });

  it('keeps a Secret of any type only while an Ingress references it, the others by key and version', () => {
    const state = new StoreState();
    state.upsert(
      'Secret',
      make('Secret', 'shop/cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'AAAA' } }),
    );
    state.upsert('Secret', make('Secret', 'shop/auth', { type: 'Opaque' }));
    expect(state.snapshot().secrets.size).toBe(0);
    expect(state.takeEvents()).toEqual([]);
    expect(state.secretStats()).toEqual({ held: 0, heldDataChars: 0, notHeld: 2 });

    state.upsert('Ingress', ingress('shop/front', { tls: [{ secretName: 'cert' }] }));
    state.upsert('Ingress', ingress('shop/back', {}, { 'nginx.ingress.kubernetes.io/auth-secret': 'auth' }));
    const requests = state.takeFetchRequests();
    expect(requests.map((request) => request.key)).toEqual(['shop/cert', 'shop/auth']);
    state.applyFetchedSecret(
      requests[0]!,
      make('Secret', 'shop/cert', {
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': 'AAAA', 'tls.key': 'BB==' },
      }),
    );
    state.applyFetchedSecret(requests[1]!, make('Secret', 'shop/auth', { type: 'Opaque' }));
    expect(summarize(state.takeEvents())).toEqual([
      'added Ingress shop/front',
      'added Ingress shop/back',
      'added Secret shop/cert',
      'added Secret shop/auth',
    ]);
    expect(state.secretStats()).toEqual({ held: 2, heldDataChars: 8, notHeld: 0 });

    state.remove('Ingress', make('Ingress', 'shop/front'));
    expect(summarize(state.takeEvents())).toEqual(['deleted Ingress shop/front', 'deleted Secret shop/cert']);
    expect(state.secretStats()).toEqual({ held: 1, heldDataChars: 0, notHeld: 1 });
  });

  it('reads a Secret shaped without its data once something references it', () => {
    const state = new StoreState();
    state.upsert('Secret', shapeSecretWithoutData(rawSecret('shop/cert', '7'))!);
    expect(state.secretStats()).toEqual({ held: 0, heldDataChars: 0, notHeld: 1 });
    state.upsert('Ingress', ingress('shop/front', { tls: [{ secretName: 'cert' }] }));
    const [request] = state.takeFetchRequests();
    expect(request?.key).toBe('shop/cert');
    const whole = make('Secret', 'shop/cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': 'AAAA' } });
    state.applyFetchedSecret(request!, whole);
    expect(state.snapshot().secrets.get('shop/cert')).toBe(whole);

    // A newer version shaped without its data (the reference came after its event was read): the
    // version held keeps serving while the new one is read.
    state.upsert('Secret', shapeSecretWithoutData(rawSecret('shop/cert', '1000'))!);
    expect(state.takeFetchRequests().map((next) => next.key)).toEqual(['shop/cert']);
    expect(state.snapshot().secrets.get('shop/cert')).toBe(whole);
    // The same version as the one held is nothing to read.
    state.upsert('Secret', shapeSecretWithoutData(rawSecret('shop/cert', whole.metadata.resourceVersion))!);
    expect(state.takeFetchRequests()).toEqual([]);
  });

  it('keeps no Secret for an Ingress or Gateway of another controller, until its class goes away', () => {
    const state = new StoreState({
      isForeignClass: (ownerClass) =>
        ownerClass.kind === 'IngressClass'
          ? ownerClass.object.spec?.controller !== 'ours'
          : ownerClass.object.spec?.controllerName !== 'ours',
    });
    state.upsert('IngressClass', make('IngressClass', 'theirs', { spec: { controller: 'theirs' } }));
    state.upsert('GatewayClass', make('GatewayClass', 'theirs', { spec: { controllerName: 'theirs' } }));
    for (const name of ['a', 'b', 'c', 'd']) state.upsert('Secret', make('Secret', `shop/${name}`));
    state.upsert(
      'Ingress',
      ingress('shop/theirs', { ingressClassName: 'theirs', tls: [{ secretName: 'a' }] }),
    );
    state.upsert('Gateway', gateway('shop/theirs', 'theirs', [{ name: 'b' }]));
    // No class at all, or one that does not exist yet: it may be ours.
    state.upsert('Ingress', ingress('shop/unclassed', { tls: [{ secretName: 'c' }] }));
    state.upsert('Ingress', ingress('shop/later', { ingressClassName: 'later', tls: [{ secretName: 'd' }] }));
    const first = state.takeFetchRequests();
    expect(first.map((request) => request.key)).toEqual(['shop/c', 'shop/d']);

    state.remove('IngressClass', make('IngressClass', 'theirs'));
    state.remove('GatewayClass', make('GatewayClass', 'theirs'));
    expect(state.takeFetchRequests().map((request) => request.key)).toEqual(['shop/a', 'shop/b']);

    // The class created later is another controller's: its Ingress's Secret is let go.
    state.applyFetchedSecret(first[1]!, make('Secret', 'shop/d'));
    state.takeEvents();
    state.upsert('IngressClass', make('IngressClass', 'later', { spec: { controller: 'theirs' } }));
    expect(summarize(state.takeEvents())).toEqual(['added IngressClass later', 'deleted Secret shop/d']);
    // An Ingress moved to a class of ours keeps its Secret again.
    state.upsert('Ingress', ingress('shop/later', { ingressClassName: 'nginx', tls: [{ secretName: 'd' }] }));
    expect(state.takeFetchRequests().map((request) => request.key)).toEqual(['shop/d']);
  });

  it("keeps the Secrets of a Gateway's listeners, in its namespace or the one a ref names", () => {
    const state = new StoreState();
    state.upsert('Secret', make('Secret', 'shop/cert'));
    state.upsert('Secret', make('Secret', 'certs/shared'));
    state.upsert('Secret', make('Secret', 'shop/config'));
    state.upsert(
      'Gateway',
      gateway('shop/web', 'ours', [
        { name: 'cert' },
        { name: 'shared', namespace: 'certs' },
        { name: 'config', kind: 'ConfigMap' },
      ]),
    );
    expect(state.takeFetchRequests().map((request) => request.key)).toEqual(['certs/shared', 'shop/cert']);
  });

  it('keeps the Secrets setKeptSecrets names while they are named, and reads one seen before', () => {
    const state = new StoreState();
    state.upsert('Secret', make('Secret', 'infra/dhparam', { type: 'Opaque' }));
    expect(state.snapshot().secrets.has('infra/dhparam')).toBe(false);

    expect(state.setKeptSecrets(['infra/dhparam', 'infra/later'])).toEqual(['infra/dhparam']);
    const requests = state.takeFetchRequests();
    expect(requests).toEqual([{ key: 'infra/dhparam', token: expect.any(Number) }]);
    state.applyFetchedSecret(requests[0]!, make('Secret', 'infra/dhparam', { type: 'Opaque' }));
    state.upsert('Secret', make('Secret', 'infra/later', { type: 'Opaque' }));
    expect(summarize(state.takeEvents())).toEqual(['added Secret infra/dhparam', 'added Secret infra/later']);

    state.setKeptSecrets(['infra/later']);
    expect(summarize(state.takeEvents())).toEqual(['deleted Secret infra/dhparam']);
    expect(state.takeFetchRequests()).toEqual([]);
    expect([...state.snapshot().secrets.keys()]).toEqual(['infra/later']);
  });

  it('drops a Secret read that an event for the same Secret overtook', () => {
    const state = new StoreState();
    state.upsert('Secret', make('Secret', 'shop/auth', { type: 'Opaque' }));
    state.upsert('Ingress', ingress('shop/front', { tls: [{ secretName: 'auth' }] }));
    const [request] = state.takeFetchRequests();
    const fromWatch = make('Secret', 'shop/auth', { type: 'Opaque', data: { v: 'Mg==' } });
    state.upsert('Secret', fromWatch);
    expect(state.isFetchWanted(request!)).toBe(false);
    state.applyFetchedSecret(request!, make('Secret', 'shop/auth', { type: 'Opaque' }));
    expect(state.snapshot().secrets.get('shop/auth')).toBe(fromWatch);
  });

  it('keeps referenced Opaque Secrets from a list applied after the Ingresses', () => {
    const state = new StoreState();
    state.replace('Ingress', [ingress('shop/front', { tls: [{ secretName: 'legacy-cert' }] })]);
    state.replace('Secret', [
      make('Secret', 'shop/legacy-cert', { type: 'Opaque' }),
      make('Secret', 'shop/x'),
    ]);
    expect([...state.snapshot().secrets.keys()]).toEqual(['shop/legacy-cert']);
    expect(state.takeFetchRequests()).toEqual([]);
  });

  it('indexes Gateways by GatewayClass and tracks available kinds', () => {
    const state = new StoreState();
    state.setAvailable('Gateway', true);
    state.upsert('Gateway', make('Gateway', 'infra/gw', { spec: { gatewayClassName: 'ingresskit' } }));
    const snapshot = state.snapshot();
    expect(snapshot.gatewaysForGatewayClass('ingresskit').map((g) => g.metadata.name)).toEqual(['gw']);
    expect(snapshot.isAvailable('Gateway')).toBe(true);
    state.setAvailable('Gateway', false);
    state.clear('Gateway');
    const after = state.snapshot();
    expect(after.isAvailable('Gateway')).toBe(false);
    expect(after.gatewaysForGatewayClass('ingresskit')).toEqual([]);
    expect(snapshot.isAvailable('Gateway')).toBe(true);
  });

  it('hands out frozen objects', () => {
    const state = new StoreState();
    state.upsert('ConfigMap', make('ConfigMap', 'a/cm', { data: { k: 'v' } }));
    const stored = state.snapshot().configMaps.get('a/cm')!;
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored.data)).toBe(true);
  });
});

describe('StoreState namespaceSelector', () => {
  const selected = () =>
    new StoreState({
      namespaceSelector: {
        requirements: [{ key: 'team', operator: 'equals', value: 'a' }],
        kinds: new Set<ResourceKind>(['Ingress', 'Secret']),
      },
    });
  const namespace = (name: string, labels: Record<string, string>) => make('Namespace', name, {}, { labels });

  it('holds objects back until their namespace matches, then adds them', () => {
    const state = selected();
    state.upsert('Ingress', ingress('shop/front', { defaultBackend: backend('web') }));
    state.upsert('Service', make('Service', 'shop/web'));
    expect(summarize(state.takeEvents())).toEqual(['added Service shop/web']);

    state.upsert('Namespace', namespace('shop', { team: 'a' }));
    expect(summarize(state.takeEvents())).toEqual(['added Namespace shop', 'added Ingress shop/front']);
    expect(state.snapshot().ingressesForService('shop/web')).toHaveLength(1);
  });

  it('deletes the objects of a namespace that stops matching and forgets those deleted meanwhile', () => {
    const state = selected();
    state.upsert('Namespace', namespace('shop', { team: 'a' }));
    const front = ingress('shop/front', { defaultBackend: backend('web'), tls: [{ secretName: 'cert' }] });
    state.upsert('Ingress', front);
    state.upsert('Secret', make('Secret', 'shop/cert', { type: 'kubernetes.io/tls' }));
    state.takeEvents();

    state.upsert('Namespace', namespace('shop', { team: 'b' }));
    expect(summarize(state.takeEvents())).toEqual([
      'updated Namespace shop',
      'deleted Ingress shop/front',
      'deleted Secret shop/cert',
    ]);
    state.remove('Ingress', front);
    state.replace('Secret', []);
    state.upsert('Namespace', namespace('shop', { team: 'a' }));
    expect(summarize(state.takeEvents())).toEqual(['updated Namespace shop']);
    expect(state.snapshot().ingresses.size).toBe(0);
    expect(state.snapshot().secrets.size).toBe(0);
  });
});
