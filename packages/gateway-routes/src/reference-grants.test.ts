import { describe, expect, it } from 'vitest';
import { isReferenceAllowed } from './index.js';
import { referenceGrant } from './testing/fixtures.js';

const from = { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'apps' };
const to = { group: '', kind: 'Service', namespace: 'shared', name: 'db' };

describe('isReferenceAllowed', () => {
  it('allows any reference within one namespace', () => {
    expect(isReferenceAllowed(from, { ...to, namespace: 'apps' }, [])).toBe(true);
  });

  it('allows a cross-namespace reference a grant in the target namespace lists', () => {
    expect(
      isReferenceAllowed(from, to, [
        referenceGrant('g', 'shared', { kind: 'HTTPRoute', namespace: 'apps' }, { kind: 'Service' }),
      ]),
    ).toBe(true);
    expect(
      isReferenceAllowed(from, to, [
        referenceGrant(
          'g',
          'shared',
          { kind: 'HTTPRoute', namespace: 'apps' },
          { kind: 'Service', name: 'db' },
        ),
      ]),
    ).toBe(true);
  });

  it('refuses when the grant is for another kind, namespace or name, or lives in another namespace', () => {
    const grants = [
      referenceGrant('kind', 'shared', { kind: 'GRPCRoute', namespace: 'apps' }, { kind: 'Service' }),
      referenceGrant('ns', 'shared', { kind: 'HTTPRoute', namespace: 'other' }, { kind: 'Service' }),
      referenceGrant(
        'name',
        'shared',
        { kind: 'HTTPRoute', namespace: 'apps' },
        { kind: 'Service', name: 'cache' },
      ),
      referenceGrant('to-kind', 'shared', { kind: 'HTTPRoute', namespace: 'apps' }, { kind: 'Secret' }),
      referenceGrant('elsewhere', 'apps', { kind: 'HTTPRoute', namespace: 'apps' }, { kind: 'Service' }),
    ];
    expect(isReferenceAllowed(from, to, grants)).toBe(false);
  });
});
