import { describe, expect, it } from 'vitest';
import { createRouteTableBuilder } from './builder.js';
import { createContribution, createForwardRoute, createOrigin } from './testing.js';
import type { CanaryRule, RouteContribution } from './types.js';

const rule: CanaryRule = { header: { name: 'X-Canary' }, weight: 10, weightTotal: 100 };

function main(name: string, createdAt: number, path = '/', namespace = 'default'): RouteContribution {
  const origin = createOrigin(name, createdAt, [0, 0], { namespace });
  return createContribution(origin, [
    {
      hostname: 'shop.test',
      routes: [createForwardRoute(`${name}/p0`, path, `${namespace}/${name}:80`, { origin })],
    },
  ]);
}

function canary(name: string, createdAt: number, path = '/', namespace = 'default'): RouteContribution {
  const origin = createOrigin(name, createdAt, [0, 0], { namespace });
  const route = createForwardRoute(`${name}/p0`, path, `${namespace}/${name}:80`, { origin });
  return createContribution(origin, [{ hostname: 'shop.test', routes: [], canaries: [{ route, rule }] }]);
}

describe('createRouteTableBuilder with canaries', () => {
  it('attaches a canary to the route of another source in its namespace with the same match', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(main('main', 1));
    builder.setContribution(canary('beta', 2));
    builder.commit();
    const [route] = builder.virtualHost('shop.test')!.routes;
    expect(route?.id).toBe('main/p0');
    expect(route?.action).toEqual({
      type: 'forward',
      backends: [{ backend: 'default/main:80', weight: 1 }],
      canary: { ...rule, backends: [{ backend: 'default/beta:80', weight: 1 }] },
    });
    expect(builder.notes()).toEqual([]);
    expect(builder.backendReferences().has('default/beta:80')).toBe(true);
  });

  it('notes a canary without a main route of its namespace, and makes no host of it alone', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(canary('alone', 1));
    builder.commit();
    expect(builder.virtualHost('shop.test')).toBeUndefined();
    builder.setContribution(main('main', 2, '/', 'victim'));
    builder.setContribution(canary('other-path', 3, '/cart'));
    builder.commit();
    expect(builder.virtualHost('shop.test')!.routes[0]!.action).not.toHaveProperty('canary');
    expect(builder.notes().map((note) => [note.type, note.source.name])).toEqual([
      ['canary-unmatched', 'alone'],
      ['canary-unmatched', 'other-path'],
    ]);
  });

  it('gives a route to its oldest canary and notes the younger', () => {
    const builder = createRouteTableBuilder();
    builder.setContribution(main('main', 1));
    builder.setContribution(canary('young', 3));
    builder.setContribution(canary('old', 2));
    builder.commit();
    const action = builder.virtualHost('shop.test')!.routes[0]!.action;
    expect(action.type === 'forward' && action.canary?.backends).toEqual([
      { backend: 'default/old:80', weight: 1 },
    ]);
    expect(builder.notes()).toEqual([
      expect.objectContaining({ type: 'canary-unmatched', by: expect.anything() }),
    ]);
  });
});
