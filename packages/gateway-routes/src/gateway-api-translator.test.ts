import { createRouteTableBuilder, sourceKey } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { createGatewayApiTranslator, type GatewayApiObjects } from './index.js';
import { httpRouteContributions } from './testing/assemble.js';
import {
  config,
  gateway,
  httpListener,
  httpRoute,
  namespaceObject,
  referenceGrant,
  rule,
  service,
} from './testing/fixtures.js';

function snapshot(overrides: Partial<GatewayApiObjects> = {}): GatewayApiObjects {
  return {
    gateways: [gateway('gw', [httpListener()])],
    httpRoutes: [
      httpRoute('a', { rules: [rule(undefined, ['app'])] }, { uid: 'ua', resourceVersion: '1' }),
      httpRoute(
        'b',
        { hostnames: ['b.example.com'], rules: [rule(undefined, ['app'])] },
        { uid: 'ub', resourceVersion: '1' },
      ),
    ],
    services: [service('app', 'default', [80], '10')],
    ...overrides,
  };
}

describe('createGatewayApiTranslator', () => {
  it('reuses the contribution of every route whose inputs did not change', () => {
    const translator = createGatewayApiTranslator(config);
    const first = translator.translate(snapshot());
    expect(translator.lastTranslated).toBe(2);
    const second = translator.translate(snapshot());
    expect(translator.lastTranslated).toBe(0);
    expect(second.routes).toHaveLength(2);
    second.routes.forEach((contribution, index) => expect(contribution).toBe(first.routes[index]));
  });

  it('keeps an unchanged Gateway contribution (TLS claims, isolation fallbacks) the same object', () => {
    const translator = createGatewayApiTranslator(config);
    const objects = snapshot({
      gateways: [gateway('gw', [httpListener('http', { hostname: 'b.example.com' })])],
    });
    const first = translator.translate(objects);
    const gatewayContribution = first.routes.find((contribution) => contribution.source.kind === 'Gateway');
    expect(gatewayContribution).toBeDefined();
    const second = translator.translate(objects);
    expect(second.routes.find((contribution) => contribution.source.kind === 'Gateway')).toBe(
      gatewayContribution,
    );
  });

  it('translates again only the route whose resourceVersion changed', () => {
    const translator = createGatewayApiTranslator(config);
    const first = translator.translate(snapshot());
    const changed = snapshot();
    changed.httpRoutes = [
      changed.httpRoutes[0]!,
      httpRoute(
        'b',
        { hostnames: ['b2.example.com'], rules: [rule(undefined, ['app'])] },
        { uid: 'ub', resourceVersion: '2' },
      ),
    ];
    const second = translator.translate(changed);
    expect(translator.lastTranslated).toBe(1);
    expect(second.routes[0]).toBe(first.routes[0]);
    expect(second.routes[1]!.hosts.map((host) => host.hostname)).toEqual(['b2.example.com']);
  });

  it('translates again the routes of a Service that changed', () => {
    const translator = createGatewayApiTranslator(config);
    translator.translate(snapshot());
    translator.translate(snapshot({ services: [service('app', 'default', [8080], '11')] }));
    expect(translator.lastTranslated).toBe(2);
  });

  it('translates again when a Gateway listener changes how routes attach, not when its generation alone does', () => {
    const translator = createGatewayApiTranslator(config);
    translator.translate(snapshot());
    translator.translate(snapshot({ gateways: [gateway('gw', [httpListener()], { generation: 7 })] }));
    expect(translator.lastTranslated).toBe(0);
    const narrowed = translator.translate(
      snapshot({ gateways: [gateway('gw', [httpListener('http', { hostname: 'b.example.com' })])] }),
    );
    expect(translator.lastTranslated).toBe(2);
    expect(
      httpRouteContributions(narrowed).map((contribution) => contribution.hosts.map((host) => host.hostname)),
    ).toEqual([['b.example.com'], ['b.example.com']]);
  });

  it('translates again when another Gateway takes a hostname on the same port (listener isolation)', () => {
    const translator = createGatewayApiTranslator(config);
    translator.translate(snapshot());
    const other = gateway('other', [httpListener('http', { hostname: 'b.example.com' })]);
    const result = translator.translate(snapshot({ gateways: [gateway('gw', [httpListener()]), other] }));
    expect(translator.lastTranslated).toBe(2);
    expect(httpRouteContributions(result).map((contribution) => contribution.source.name)).toEqual(['a']);
  });

  it('translates again when a ReferenceGrant or namespace label it read changes', () => {
    const translator = createGatewayApiTranslator(config);
    const cross = httpRoute(
      'x',
      { rules: [rule(undefined, [{ name: 'app', namespace: 'shared', port: 80 }])] },
      { uid: 'ux', resourceVersion: '1' },
    );
    const services = [service('app', 'shared', [80], '5')];
    const refused = translator.translate({
      gateways: [gateway('gw', [httpListener()])],
      httpRoutes: [cross],
      services,
    });
    expect(refused.statuses.httpRoutes[0]!.parents[0]!.conditions[1]!.reason).toBe('RefNotPermitted');
    const grant = {
      ...referenceGrant('g', 'shared', { kind: 'HTTPRoute', namespace: 'default' }, { kind: 'Service' }),
    };
    const granted = translator.translate({
      gateways: [gateway('gw', [httpListener()])],
      httpRoutes: [cross],
      services,
      referenceGrants: [{ ...grant, metadata: { ...grant.metadata, resourceVersion: '1' } }],
    });
    expect(translator.lastTranslated).toBe(1);
    expect(granted.statuses.httpRoutes[0]!.parents[0]!.conditions[1]!.reason).toBe('ResolvedRefs');

    const selectorGateway = gateway('gw', [
      httpListener('http', {
        allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { open: 'yes' } } } },
      }),
    ]);
    const labelled = (open: string, version: string) => {
      const namespace = namespaceObject('default', { open });
      return { ...namespace, metadata: { ...namespace.metadata, resourceVersion: version } };
    };
    const objects = (version: string, open: string) => ({
      gateways: [selectorGateway],
      httpRoutes: [snapshot().httpRoutes[0]!],
      services: snapshot().services!,
      namespaces: [labelled(open, version)],
    });
    expect(translator.translate(objects('1', 'yes')).routes).toHaveLength(1);
    expect(translator.translate(objects('1', 'yes')).routes).toHaveLength(1);
    expect(translator.lastTranslated).toBe(0);
    expect(translator.translate(objects('2', 'no')).routes).toHaveLength(0);
    expect(translator.lastTranslated).toBe(1);
  });

  it('lets a builder apply only the contributions that changed', () => {
    const translator = createGatewayApiTranslator(config);
    const builder = createRouteTableBuilder();
    let previous = new Map<string, unknown>();
    const apply = (objects: GatewayApiObjects) => {
      const result = translator.translate(objects);
      const next = new Map(
        result.routes.map((contribution) => [sourceKey(contribution.source), contribution]),
      );
      let changes = 0;
      for (const [key, contribution] of next) {
        if (previous.get(key) !== contribution) {
          builder.setContribution(contribution);
          changes += 1;
        }
      }
      for (const key of previous.keys()) {
        if (!next.has(key)) {
          builder.deleteContribution(key);
          changes += 1;
        }
      }
      previous = next;
      return { delta: builder.commit(), changes };
    };
    expect(apply(snapshot()).changes).toBe(2);
    expect(apply(snapshot()).changes).toBe(0);
    const withoutB = snapshot();
    withoutB.httpRoutes = [withoutB.httpRoutes[0]!];
    const { delta, changes } = apply(withoutB);
    expect(changes).toBe(1);
    expect(delta.virtualHosts.remove).toEqual(['b.example.com']);
    expect(translator.size).toBe(1);
  });
});
