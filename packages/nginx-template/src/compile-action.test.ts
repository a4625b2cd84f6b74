import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

describe('compileRoute: the action', () => {
  it('accumulates weights, drops zero weights and keeps members without a backend as statuses', () => {
    const { entry } = compileRoute(
      createTestRoute('r', {
        action: {
          type: 'forward',
          backends: [
            { backend: 'a', weight: 3 },
            { backend: 'z', weight: 0 },
            { weight: 2 },
            { weight: 5, statusCode: 503 },
          ],
        },
      }),
    );
    expect(entry.action).toEqual({
      type: 'forward',
      members: [
        { backend: 'a', upto: 3 },
        { status: 500, upto: 5 },
        { status: 503, upto: 10 },
      ],
      total: 10,
    });
  });

  it('compiles a redirect query that replaces the request query, and refuses one that needs escaping', () => {
    const redirect = (query: string) =>
      compileRoute(
        createTestRoute('r', { action: { type: 'redirect', redirect: { statusCode: 302, query } } }),
      );
    expect(redirect('a=1&b=%2F').entry.action).toEqual({ type: 'redirect', status: 302, query: 'a=1&b=%2F' });
    expect(redirect('').entry.action).toEqual({ type: 'redirect', status: 302, query: '' });
    for (const bad of ['a b', 'a=%zz', 'a\r\nSet-Cookie: x', 'a#b', 'a="x"']) {
      const compiled = redirect(bad);
      expect(compiled.entry.action).toEqual({ type: 'respond', status: 500 });
      expect(compiled.issues).toEqual([
        expect.objectContaining({ field: 'action.redirect.query', severity: 'error' }),
      ]);
    }
  });
});
