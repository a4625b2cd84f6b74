import { describe, expect, it } from 'vitest';
import type { RouteMatch, SessionAffinity } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

function compileAffinity(sessionAffinity: SessionAffinity, match?: RouteMatch) {
  return compileRoute(
    createTestRoute('r', {
      ...(match ? { match } : {}),
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
      policy: { sessionAffinity },
    }),
  );
}

describe('compileRoute: sessionAffinity', () => {
  it("writes the cookie's fixed attributes, its path defaulting to the route's prefix", () => {
    const { entry, issues } = compileAffinity(
      {
        mode: 'persistent',
        changeOnFailure: true,
        cookie: {
          name: 'route',
          domain: 'a.test',
          maxAgeSeconds: 5,
          sameSite: 'None',
          secure: true,
          expiresSeconds: 9,
        },
      },
      { path: { type: 'PathPrefix', value: '/app/' } },
    );
    expect(issues).toEqual([]);
    expect(entry.policy?.affinity).toEqual({
      name: 'route',
      attributes: '; Path=/app; Domain=a.test; Max-Age=5; HttpOnly; SameSite=None',
      expires: 9,
      secure: true,
      persistent: true,
      change: true,
    });
  });

  it('leaves a conditional SameSite=None to Lua', () => {
    const { entry } = compileAffinity({
      mode: 'balanced',
      cookie: { name: 'c', sameSite: 'None', conditionalSameSiteNone: true },
    });
    expect(entry.policy?.affinity).toEqual({
      name: 'c',
      attributes: '; Path=/; HttpOnly',
      sameSiteNone: true,
    });
  });

  it('uses / as the path of a regular-expression route', () => {
    const { entry } = compileAffinity(
      { mode: 'balanced', cookie: { name: 'c' } },
      { path: { type: 'RegularExpression', value: '^/a' } },
    );
    expect(entry.policy?.affinity?.attributes).toBe('; Path=/; HttpOnly');
  });

  it.each([
    [{ mode: 'balanced', cookie: { name: 'a;b' } }, 'policy.sessionAffinity.cookie.name'],
    [
      { mode: 'balanced', cookie: { name: 'a', path: '/x; Domain=evil' } },
      'policy.sessionAffinity.cookie.path',
    ],
    [{ mode: 'balanced', cookie: { name: 'a', domain: 'x y' } }, 'policy.sessionAffinity.cookie.domain'],
    [{ mode: 'random', cookie: { name: 'a' } }, 'policy.sessionAffinity.mode'],
  ])('answers 500 for an affinity that could break Set-Cookie: %j', (affinity, field) => {
    const { entry, issues } = compileAffinity(affinity as SessionAffinity);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues).toContainEqual(expect.objectContaining({ field }));
  });
});
