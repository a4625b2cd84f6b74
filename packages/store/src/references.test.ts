import { describe, expect, it } from 'vitest';
import { toStoredObject } from './normalize.js';
import type { EndpointSlice, Ingress } from './objects.js';
import { extractIngressReferences, serviceKeyOfEndpointSlice } from './references.js';

function ingress(spec: object, annotations: Record<string, string> = {}): Ingress {
  return toStoredObject(
    { metadata: { name: 'front', namespace: 'shop', annotations }, spec },
    'Ingress',
  ) as Ingress;
}

describe('extractIngressReferences', () => {
  it('collects Secrets, Services and classes once each, sorted', () => {
    const references = extractIngressReferences(
      ingress(
        {
          ingressClassName: 'nginx',
          defaultBackend: { service: { name: 'fallback', port: { number: 80 } } },
          tls: [{ secretName: 'b-cert' }, { secretName: 'a-cert' }, { secretName: 'b-cert' }],
          rules: [
            { http: { paths: [{ path: '/', backend: { service: { name: 'web' } } }] } },
            { http: { paths: [{ path: '/x', backend: { resource: { kind: 'Bucket', name: 'b' } } }] } },
            { http: { paths: [{ path: '/y', backend: { service: { name: 'web' } } }] } },
          ],
        },
        {
          'kubernetes.io/ingress.class': 'legacy',
          'nginx.ingress.kubernetes.io/auth-secret': 'other/basic',
          'nginx.ingress.kubernetes.io/auth-tls-secret': 'ca',
          'nginx.ingress.kubernetes.io/proxy-ssl-secret': 'a/b/c',
        },
      ),
    );
    expect(references).toEqual({
      secrets: ['other/basic', 'shop/a-cert', 'shop/b-cert', 'shop/ca'],
      services: ['shop/fallback', 'shop/web'],
      ingressClasses: ['legacy', 'nginx'],
    });
  });

  it('returns nothing for an Ingress without a spec', () => {
    expect(extractIngressReferences(ingress({}), [])).toEqual({
      secrets: [],
      services: [],
      ingressClasses: [],
    });
  });
});

describe('serviceKeyOfEndpointSlice', () => {
  it('reads the service-name label and ignores slices without it', () => {
    const labelled = toStoredObject(
      { metadata: { name: 'web-1', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } } },
      'EndpointSlice',
    ) as EndpointSlice;
    const bare = toStoredObject(
      { metadata: { name: 'x', namespace: 'shop' } },
      'EndpointSlice',
    ) as EndpointSlice;
    expect(serviceKeyOfEndpointSlice(labelled)).toBe('shop/web');
    expect(serviceKeyOfEndpointSlice(bare)).toBeUndefined();
  });
});
