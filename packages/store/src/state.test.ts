import { describe, expect, it } from 'vitest';
import type { KubeObject } from './objects.js';
import { shapeParsedObject } from './normalize.js';
import { resourceTypes, type ResourceKind } from './resources.js';
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

  it('keeps TLS Secrets always and other Secrets only while an Ingress references them', () => {
    const state = new StoreState();
    state.upsert('Secret', make('Secret', 'shop/cert', { type: 'kubernetes.io/tls' }));
    state.upsert('Secret', make('Secret', 'shop/auth', { type: 'Opaque' }));
    expect([...state.snapshot().secrets.keys()]).toEqual(['shop/cert']);
    state.takeEvents();

    state.upsert('Ingress', ingress('shop/front', {}, { 'nginx.ingress.kubernetes.io/auth-secret': 'auth' }));
    const requests = state.takeFetchRequests();
    expect(requests).toEqual([{ key: 'shop/auth', token: expect.any(Number) }]);
    state.applyFetchedSecret(requests[0]!, make('Secret', 'shop/auth', { type: 'Opaque' }));
    expect(summarize(state.takeEvents())).toEqual(['added Ingress shop/front', 'added Secret shop/auth']);

    state.remove('Ingress', make('Ingress', 'shop/front'));
    expect(summarize(state.takeEvents())).toEqual(['deleted Ingress shop/front', 'deleted Secret shop/auth']);
    expect(state.snapshot().secrets.has('shop/cert')).toBe(true);
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
    const front = ingress('shop/front', { defaultBackend: backend('web') });
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
