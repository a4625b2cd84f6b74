import { describe, expect, it } from 'vitest';
import { A, ingress, path, secrets } from './testing/fixtures.js';
import { translateIngress } from './translate-ingress.js';
import type { ConfigMapLike } from '@ingresskit/kube-objects';
import type { IngressReferences } from './types.js';

const configMaps = new Map<string, ConfigMapLike>();

const references: IngressReferences = {
  ...secrets(),
  configMap: (namespace, name) => configMaps.get(`${namespace}/${name}`),
};

function translateWith(annotations: Record<string, string>) {
  const result = translateIngress(
    ingress(
      'login',
      { 'login.test': [path('/', 'Prefix', 'app')] },
      {
        namespace: 'shop',
        annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${A}${k}`, v])),
      },
    ),
    references,
  );
  return { result, route: result.contribution?.hosts[0]?.routes[0] };
}

function setConfigMap(name: string, data: Record<string, string>, namespace = 'shop') {
  configMaps.set(`${namespace}/${name}`, { metadata: { namespace, name, resourceVersion: '1' }, data });
}

const AUTH = { 'auth-url': 'http://auth.example/check' };

describe('translateIngress with auth-proxy-set-headers', () => {
  it("sets the ConfigMap's entries on the checks, sorted by name, and records the ConfigMap read", () => {
    setConfigMap('auth-headers', { 'X-Tenant': 'shop', 'X-Auth-Mode': 'strict', 'X-Empty': '' });
    const { result, route } = translateWith({ ...AUTH, 'auth-proxy-set-headers': 'auth-headers' });
    expect(result.problems).toEqual([]);
    expect(route?.policy.externalAuth?.requestHeaders).toEqual([
      { name: 'X-Auth-Mode', value: 'strict' },
      { name: 'X-Empty', value: '' },
      { name: 'X-Tenant', value: 'shop' },
    ]);
    expect(route?.action.type).toBe('forward');
    expect(result.references.configMaps).toEqual(['shop/auth-headers']);
    // namespace/name of the Ingress's own namespace is the same ConfigMap.
    const named = translateWith({ ...AUTH, 'auth-proxy-set-headers': 'shop/auth-headers' });
    expect(named.route?.policy.externalAuth?.requestHeaders).toHaveLength(3);
  });

  it('closes the routes (503) with an error when the ConfigMap is missing, and still records it', () => {
    const { result, route } = translateWith({ ...AUTH, 'auth-proxy-set-headers': 'missing' });
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.references.configMaps).toEqual(['shop/missing']);
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${A}auth-proxy-set-headers"]`,
        message: 'auth headers ConfigMap shop/missing not found; every request gets 503',
      }),
    ]);
  });

  it.each([
    [{ X_Under: 'x' }, 'is not a header name'],
    [{ 'X Space': 'x' }, 'is not a header name'],
    [{ Host: 'evil.example' }, 'sets itself'],
    [{ 'X-Ingresskit-Auth-Url': 'http://elsewhere/' }, 'sets itself'],
    [{ 'X-Request-Start': 't=${msec}' }, 'nginx variables are not supported'],
    [{ 'X-Line': 'a\nb' }, 'printable'],
  ])('closes the routes for the entries %j', (data, message) => {
    setConfigMap('bad', data);
    const { result, route } = translateWith({ ...AUTH, 'auth-proxy-set-headers': 'bad' });
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining(message) }),
    ]);
  });

  it('closes the routes for a ConfigMap of another namespace, without reading it', () => {
    setConfigMap('auth-headers', { 'X-Tenant': 'other' }, 'other');
    const { result, route } = translateWith({ ...AUTH, 'auth-proxy-set-headers': 'other/auth-headers' });
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.references.configMaps).toBeUndefined();
    expect(result.problems[0]?.message).toContain('another namespace');
  });

  it('leaves the Ingress out for a value that names no ConfigMap, and warns without auth-url', () => {
    expect(translateWith({ ...AUTH, 'auth-proxy-set-headers': 'a/b/c' }).result.contribution).toBeUndefined();
    const { result, route } = translateWith({ 'auth-proxy-set-headers': 'auth-headers' });
    expect(route?.action.type).toBe('forward');
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: 'annotation "auth-proxy-set-headers" has no effect without auth-url',
      }),
    ]);
  });
});
