import { describe, expect, it } from 'vitest';
import type { BasicAuthPolicy, DigestAuthPolicy } from '@ingresskit/route-model';
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

function compileDigest(digestAuth: DigestAuthPolicy) {
  return compileRoute(
    createTestRoute('r', {
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
      policy: { digestAuth },
    }),
  );
}

describe('compileRoute: digestAuth', () => {
  const HA1 = '0123456789abcdef0123456789abcdef';

  it('maps users to their hashes, the first entry of a user winning', () => {
    const { entry, issues } = compileDigest({
      realm: 'Staff',
      users: [
        { name: 'ann', ha1: HA1 },
        { name: 'ann', ha1: 'f'.repeat(32) },
      ],
    });
    expect(issues).toEqual([]);
    expect(entry.policy?.digest).toEqual({ realm: 'Staff', users: { ann: HA1 } });
    expect(entry.policy?.auth).toBeUndefined();
  });

  it('answers 500 for a realm that would break out of its quotes', () => {
    const { entry } = compileDigest({ realm: 'a", nonce="x', users: [] });
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
  });

  it('leaves out a user whose hash is not 32 lowercase hex digits, so that user cannot get in', () => {
    const { entry, issues } = compileDigest({ realm: '', users: [{ name: 'ann', ha1: HA1.toUpperCase() }] });
    expect(entry.policy?.digest?.users).toEqual({});
    expect(issues).toEqual([expect.objectContaining({ field: 'policy.digestAuth.users[0]' })]);
  });
});
