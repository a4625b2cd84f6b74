import { describe, expect, it } from 'vitest';
import { namespacedKey, objectKey, splitObjectKey } from './index.js';

describe('objectKey', () => {
  it('joins namespace and name for namespaced objects', () => {
    expect(objectKey({ metadata: { namespace: 'shop', name: 'web' } })).toBe('shop/web');
  });

  it('uses the bare name for cluster-scoped objects', () => {
    expect(objectKey({ metadata: { name: 'nginx' } })).toBe('nginx');
  });

  it('throws when the object has no name', () => {
    expect(() => objectKey({ metadata: {} })).toThrow(/metadata\.name/);
  });
});

describe('namespacedKey', () => {
  it('is the bare name when the namespace is empty or undefined', () => {
    expect(namespacedKey(undefined, 'nginx')).toBe('nginx');
    expect(namespacedKey('', 'nginx')).toBe('nginx');
    expect(namespacedKey('shop', 'web')).toBe('shop/web');
  });
});

describe('splitObjectKey', () => {
  it('round-trips keys made by objectKey', () => {
    expect(splitObjectKey('shop/web')).toEqual({ namespace: 'shop', name: 'web' });
    expect(splitObjectKey('nginx')).toEqual({ namespace: undefined, name: 'nginx' });
  });
});
