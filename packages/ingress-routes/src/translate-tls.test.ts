import { describe, expect, it } from 'vitest';
import { tlsSecretNameOf } from './translate-tls.js';

const origin = (kind: string, field: string, index: number[]) => ({
  kind,
  namespace: 'shop',
  name: 'cart',
  createdAt: 0,
  index,
  field,
});
const ingress = {
  metadata: { name: 'cart', namespace: 'shop' },
  spec: { tls: [{ secretName: 'first' }, { hosts: ['b.test'], secretName: 'second' }] },
};

describe('tlsSecretNameOf', () => {
  it("names the Secret of the TLS entry a claim's origin points at", () => {
    expect(tlsSecretNameOf(ingress, origin('Ingress', 'spec.tls[1]', [1]))).toBe('second');
    expect(tlsSecretNameOf(ingress, origin('Ingress', 'spec.tls[0]', [0]))).toBe('first');
  });

  it('is undefined for another kind of origin, a route of the Ingress, or an entry that is gone', () => {
    expect(tlsSecretNameOf(ingress, origin('Gateway', 'spec.tls[1]', [1]))).toBeUndefined();
    expect(
      tlsSecretNameOf(ingress, origin('Ingress', 'spec.rules[1].http.paths[0]', [1, 0])),
    ).toBeUndefined();
    expect(tlsSecretNameOf(ingress, origin('Ingress', 'spec.tls[2]', [2]))).toBeUndefined();
    expect(tlsSecretNameOf(undefined, origin('Ingress', 'spec.tls[0]', [0]))).toBeUndefined();
  });
});
