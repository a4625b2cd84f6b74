import { describe, expect, it } from 'vitest';
import type { BasicAuthPolicy } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

function compileAuth(basicAuth: BasicAuthPolicy) {
  return compileRoute(
    createTestRoute('r', {
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
      policy: { basicAuth },
    }),
  );
}

describe('compileRoute: basicAuth', () => {
  it('maps users to hashes, the first entry of a user winning as in nginx', () => {
    const { entry, issues } = compileAuth({
      realm: 'Staff',
      users: [
        { name: 'ann', hash: '{PLAIN}a' },
        { name: 'ann', hash: '{PLAIN}b' },
        { name: 'bob', hash: '{PLAIN}c' },
      ],
    });
    expect(issues).toEqual([]);
    expect(entry.policy?.auth).toEqual({ realm: 'Staff', users: { ann: '{PLAIN}a', bob: '{PLAIN}c' } });
  });

  it('answers 500 for a realm that would break out of its quotes', () => {
    const { entry } = compileAuth({ realm: 'a" , Basic realm="b', users: [] });
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
  });

  it('leaves out a user it cannot read, so that user cannot get in', () => {
    const { entry, issues } = compileAuth({ realm: '', users: [{ name: 'ann', hash: 'x\ny' }] });
    expect(entry.policy?.auth?.users).toEqual({});
    expect(issues).toEqual([expect.objectContaining({ field: 'policy.basicAuth.users[0]' })]);
  });
});
