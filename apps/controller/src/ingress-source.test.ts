import type { IngressTranslator } from '@ingresskit/ingress-routes';
import type { ChangeEvent, Ingress, StoreSnapshot } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { IngressSource } from './ingress-source.js';

const ingress = (name: string): Ingress => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: 'shop', name, resourceVersion: '1' },
  spec: { rules: [{ host: `${name}.example.com` }] },
});

const source = new IngressSource(() => ({ owned: true }) as never, {
  translate: () => undefined,
  forget: () => undefined,
} as unknown as IngressTranslator);
const snapshot = {
  ingressesForSecret: (key: string) => (key === 'shop/tls' ? [ingress('web'), ingress('api')] : []),
} as unknown as StoreSnapshot;
const change = (event: object) => ({ event: event as ChangeEvent, snapshot });

describe('IngressSource.keysOf', () => {
  it('names the Ingress that changed, and nothing for a status write', () => {
    expect(source.keysOf(change({ kind: 'Ingress', type: 'added', key: 'shop/web' }))).toEqual(['shop/web']);
    const before = ingress('web');
    const after = {
      ...before,
      metadata: { ...before.metadata, resourceVersion: '2' },
      status: { loadBalancer: {} },
    };
    expect(
      source.keysOf(
        change({ kind: 'Ingress', type: 'updated', key: 'shop/web', oldObject: before, newObject: after }),
      ),
    ).toEqual([]);
  });

  it('names the Ingresses that reference a Secret, and none for a ConfigMap no translation read', () => {
    expect(source.keysOf(change({ kind: 'Secret', type: 'updated', key: 'shop/tls' }))).toEqual([
      'shop/web',
      'shop/api',
    ]);
    expect(source.keysOf(change({ kind: 'Secret', type: 'updated', key: 'shop/other' }))).toEqual([]);
    expect(source.keysOf(change({ kind: 'ConfigMap', type: 'updated', key: 'shop/headers' }))).toEqual([]);
  });
});
