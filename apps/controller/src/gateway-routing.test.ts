import { describe, expect, it } from 'vitest';
import type { GatewayApiObjects } from '@ingresskit/gateway-routes';
import type { ChangeEvent, GatewayClass, StoreSnapshot } from '@ingresskit/store';
import { ALL_GATEWAY_API, GatewayRouting, type GatewayApiView } from './gateway-routing.js';

const CONTROLLER = 'ingresskit.dev/gateway-controller';
let version = 0;

function meta(name: string, namespace?: string) {
  version += 1;
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    uid: `uid-${namespace ?? ''}-${name}`,
    resourceVersion: String(version),
    generation: 1,
    creationTimestamp: '2026-01-01T00:00:00Z',
  };
}

function gatewayClass(controllerName = CONTROLLER): GatewayClass {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: meta('ingresskit'),
    spec: { controllerName },
  };
}

function gateway(namespace: string, name: string) {
  return {
    metadata: meta(name, namespace),
    spec: {
      gatewayClassName: 'ingresskit',
      listeners: [
        {
          name: 'http',
          hostname: '*.test',
          port: 80,
          protocol: 'HTTP',
          allowedRoutes: { namespaces: { from: 'All' } },
        },
      ],
    },
  };
}

function route(namespace: string, name: string, gatewayNamespace: string, path = '/') {
  return {
    metadata: meta(name, namespace),
    spec: {
      parentRefs: [{ name: 'edge', namespace: gatewayNamespace }],
      hostnames: [`${name}.test`],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: path } }],
          backendRefs: [{ name: 'web', port: 80 }],
        },
      ],
    },
  };
}

function view(objects: GatewayApiObjects, classes: GatewayClass[] = [gatewayClass()]): GatewayApiView {
  return {
    gatewayClasses: () => classes,
    customResourceDefinitions: () => [],
    configMap: () => undefined,
    gatewayApiObjects: () => objects,
    service: () => undefined,
    endpointSlicesForService: () => [],
  };
}

const now = () => Date.parse('2026-01-01T00:00:00Z');

describe('GatewayRouting', () => {
  it('sets only the contributions that changed, and removes those that went away', () => {
    const routing = new GatewayRouting({ controllerName: CONTROLLER, now });
    const edge = gateway('infra', 'edge');
    const a = route('infra', 'a', 'infra');
    const b = route('infra', 'b', 'infra');
    const first = routing.translate(view({ gateways: [edge], httpRoutes: [a, b] }));
    expect(first.set.map((c) => `${c.source.kind}/${c.source.name}`).sort()).toEqual([
      'Gateway/edge',
      'HTTPRoute/a',
      'HTTPRoute/b',
    ]);
    const changed = routing.translate(
      view({ gateways: [edge], httpRoutes: [a, route('infra', 'b', 'infra', '/v2')] }),
    );
    expect(changed.set.map((c) => c.source.name)).toEqual(['b']);
    expect(routing.lastTranslated).toBe(1);
    const removed = routing.translate(view({ gateways: [edge], httpRoutes: [a] }));
    expect(removed).toEqual({ set: [], removed: ['HTTPRoute/infra/b'] });
  });

  it("gives a route its Gateway's namespace as tenant, none when hosts are shared", () => {
    const objects = { gateways: [gateway('infra', 'edge')], httpRoutes: [route('team', 'a', 'infra')] };
    const owned = new GatewayRouting({ controllerName: CONTROLLER, now }).translate(view(objects));
    expect(owned.set.map((c) => [c.source.kind, c.tenant])).toEqual([
      ['Gateway', 'infra'],
      ['HTTPRoute', 'infra'],
    ]);
    const shared = new GatewayRouting({ controllerName: CONTROLLER, now, allowCrossNamespaceHosts: true });
    expect(shared.translate(view(objects)).set.map((c) => c.tenant)).toEqual([undefined, undefined]);
  });

  it('serves nothing for Gateways of a class that is not ours, and withdraws them when the class changes', () => {
    const routing = new GatewayRouting({ controllerName: CONTROLLER, now });
    const objects = { gateways: [gateway('infra', 'edge')], httpRoutes: [route('infra', 'a', 'infra')] };
    expect(routing.translate(view(objects)).set).toHaveLength(2);
    const after = routing.translate(view(objects, [gatewayClass('example.com/other')]));
    expect(after.set).toEqual([]);
    expect(after.removed.sort()).toEqual(['Gateway/infra/edge', 'HTTPRoute/infra/a']);
    expect(routing.translation.statuses.gateways).toEqual([]);
  });
});

describe('GatewayRouting.keysOf', () => {
  const routing = new GatewayRouting({ controllerName: CONTROLLER, now });
  const snapshot = (gateways: number) =>
    ({
      gateways: { size: gateways },
      httpRoutes: { size: 0 },
      gatewayClasses: { list: () => [] },
    }) as unknown as StoreSnapshot;

  it('names the Gateway or HTTPRoute that changed by its source key, and nothing for a status write', () => {
    const edge = gateway('infra', 'edge');
    const created = {
      kind: 'Gateway',
      type: 'added',
      key: 'infra/edge',
      newObject: edge,
    } as unknown as ChangeEvent;
    expect(routing.keysOf({ event: created, snapshot: snapshot(1) })).toEqual(['Gateway/infra/edge']);
    const before = route('team', 'a', 'infra');
    const statusOnly = {
      kind: 'HTTPRoute',
      type: 'updated',
      key: 'team/a',
      oldObject: before,
      newObject: { ...before, status: { parents: [] } },
    } as unknown as ChangeEvent;
    expect(routing.keysOf({ event: statusOnly, snapshot: snapshot(1) })).toEqual([]);
  });

  it('answers every Gateway API object for what all of them read, while there is one to translate', () => {
    const secret = { kind: 'Secret', type: 'updated', key: 'infra/tls' } as unknown as ChangeEvent;
    expect(routing.keysOf({ event: secret, snapshot: snapshot(0) })).toEqual([]);
    expect(routing.keysOf({ event: secret, snapshot: snapshot(1) })).toEqual([ALL_GATEWAY_API]);
  });
});
