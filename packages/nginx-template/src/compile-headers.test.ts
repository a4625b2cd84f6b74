import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute: header changes', () => {
  it('makes a route answer 500 when a header change could split a message', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { responseHeaders: { set: [{ name: 'X-A', value: 'a\r\nSet-Cookie: x' }] } },
      }),
    );
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(entry.policy).toBeUndefined();
    expect(entry.profile).toBeUndefined();
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.responseHeaders.set[0].value', severity: 'error' }),
    ]);
  });
});
