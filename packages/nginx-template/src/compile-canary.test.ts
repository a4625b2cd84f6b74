import { describe, expect, it } from 'vitest';
import type { CanarySplit } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

function compileCanary(canary: CanarySplit) {
  return compileRoute(
    createTestRoute('r', { action: { type: 'forward', backends: [{ backend: 'main', weight: 1 }], canary } }),
  );
}

const backends = [{ backend: 'beta', weight: 1 }];

describe('compileRoute: a canary', () => {
  it("names nginx's variables of the header and the cookie, and keeps the weights", () => {
    const { entry, issues } = compileCanary({
      header: { name: 'X-Canary-Env', pattern: '^qa$' },
      cookie: 'beta.user',
      weight: 5,
      weightTotal: 1000,
      backends,
    });
    expect(issues).toEqual([]);
    expect(entry.action).toEqual({
      type: 'forward',
      members: [{ backend: 'main', upto: 1 }],
      total: 1,
      canary: {
        members: [{ backend: 'beta', upto: 1 }],
        total: 1,
        header: ['http_x_canary_env', 'pattern', '^qa$'],
        cookie: 'cookie_beta.user',
        weight: 5,
        weightTotal: 1000,
      },
    });
  });

  it('tells Lua when canary requests get no session affinity (legacy), and nothing for sticky', () => {
    const legacy = compileCanary({ weight: 0, weightTotal: 100, backends, affinity: 'legacy' });
    expect(legacy.entry.action).toMatchObject({ canary: { legacyAffinity: true } });
    const sticky = compileCanary({ weight: 0, weightTotal: 100, backends, affinity: 'sticky' });
    expect(sticky.issues).toEqual([]);
    expect(sticky.entry.action).not.toHaveProperty('canary.legacyAffinity');
  });

  it.each([
    [{ weight: 2, weightTotal: 1, backends }, 'action.canary.weight'],
    [{ weight: 0, weightTotal: 0, backends }, 'action.canary.weightTotal'],
    [{ weight: 0, weightTotal: 100, backends: [] }, 'action.canary.backends'],
    [{ header: { name: 'X Y' }, weight: 0, weightTotal: 100, backends }, 'action.canary.header.name'],
    [
      { header: { name: 'X', value: 'a\r\nb' }, weight: 0, weightTotal: 100, backends },
      'action.canary.header.value',
    ],
    [{ cookie: 'a;b', weight: 0, weightTotal: 100, backends }, 'action.canary.cookie'],
  ])('answers 500 for a canary it cannot read: %j', (canary, field) => {
    const { entry, issues } = compileCanary(canary);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues).toContainEqual(expect.objectContaining({ severity: 'error', field }));
  });
});
