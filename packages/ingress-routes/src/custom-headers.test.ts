import { describe, expect, it } from 'vitest';
import type { ConfigMapLike } from '@ingresskit/kube-objects';
import { A, ingress, path, secrets } from './testing/fixtures.js';
import { translateIngress } from './translate-ingress.js';
import { isReferencedObjectProblem } from './translate-tls.js';
import type { IngressReferences } from './types.js';

const configMaps = new Map<string, ConfigMapLike>();

const references: IngressReferences = {
  ...secrets(),
  configMap: (namespace, name) => configMaps.get(`${namespace}/${name}`),
};

const ALLOWED = ['X-Frame-Options', 'content-security-policy', 'X-Custom_Header'];

function translateWith(value: string, allowedResponseHeaders: readonly string[] = ALLOWED) {
  const result = translateIngress(
    ingress(
      'web',
      { 'web.test': [path('/', 'Prefix', 'app')] },
      { namespace: 'shop', annotations: { [`${A}custom-headers`]: value } },
    ),
    references,
    { allowedResponseHeaders },
  );
  return { result, route: result.contribution?.hosts[0]?.routes[0] };
}

function setConfigMap(name: string, data: Record<string, string>, namespace = 'shop') {
  configMaps.set(`${namespace}/${name}`, { metadata: { namespace, name, resourceVersion: '1' }, data });
}

const FIELD = `metadata.annotations["${A}custom-headers"]`;

describe('translateIngress with custom-headers', () => {
  it("sets the ConfigMap's headers on every response and records the ConfigMap read", () => {
    setConfigMap('headers', {
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'self'",
      'X-Custom_Header': '',
    });
    const { result, route } = translateWith('headers');
    expect(result.problems).toEqual([]);
    expect(route?.action.type).toBe('forward');
    expect(route?.policy.responseHeaders).toEqual({
      set: [
        { name: 'Content-Security-Policy', value: "default-src 'self'" },
        { name: 'X-Custom_Header', value: '' },
        { name: 'X-Frame-Options', value: 'DENY' },
      ],
    });
    expect(result.references.configMaps).toEqual(['shop/headers']);
    expect(translateWith('shop/headers').route?.policy.responseHeaders?.set).toHaveLength(3);
  });

  it('closes the routes (503) when a header is not in global-allowed-response-headers', () => {
    setConfigMap('extra', { 'X-Frame-Options': 'DENY', 'X-Powered-By': 'us' });
    const { result, route } = translateWith('extra');
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(route?.policy.responseHeaders).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: FIELD,
        message:
          "custom headers ConfigMap shop/extra holds X-Powered-By, not allowed by the controller ConfigMap's global-allowed-response-headers; every request gets 503",
      }),
    ]);
    expect(translateWith('extra', []).route?.action).toEqual({ type: 'respond', statusCode: 503 });
  });

  it.each([
    ['missing', 'custom headers ConfigMap shop/missing not found; every request gets 503'],
    ['other/headers', 'other/headers is of another namespace, which an Ingress may not use'],
  ])('closes the routes (503) with an error for %s', (value, message) => {
    setConfigMap('headers', { 'X-Frame-Options': 'DENY' }, 'other');
    const { result, route } = translateWith(value);
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'error', field: FIELD, message: expect.stringContaining(message) }),
    ]);
    // The ConfigMap may come next: an admission review only warns.
    expect(isReferencedObjectProblem(result.problems[0]!)).toBe(true);
  });

  it.each([
    [{ 'X-Frame-Options': 'a\r\nSet-Cookie: x=1' }, 'printable'],
    [{ 'X-Frame-Options': '$host' }, 'nginx variables are not supported'],
    [{ 'X Frame': 'DENY' }, 'is not a header name'],
    [{ 'Content-Length': '0' }, 'frames the response'],
  ])('closes the routes for the entries %j', (data, message) => {
    setConfigMap('bad', data);
    const { result, route } = translateWith('bad', [...ALLOWED, 'Content-Length']);
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining(message) }),
    ]);
  });

  it('leaves the Ingress out when the annotation names no ConfigMap', () => {
    const { result } = translateWith('a/b/c');
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: FIELD,
        message: expect.stringContaining('NAMESPACE/NAME'),
      }),
    ]);
  });
});

describe('translateIngress with the controller ConfigMap headers', () => {
  const headers = {
    response: [
      { name: 'X-Frame-Options', value: 'SAMEORIGIN' },
      { name: 'X-Served-By', value: 'edge' },
    ],
    request: [{ name: 'X-Team', value: 'web' }],
  };

  function translateWithHeaders(annotations: Record<string, string>) {
    const result = translateIngress(
      ingress('web', { 'web.test': [path('/', 'Prefix', 'app')] }, { namespace: 'shop', annotations }),
      references,
      { allowedResponseHeaders: ALLOWED, headers },
    );
    return result.contribution?.hosts[0]?.routes[0]?.policy;
  }

  it('sets add-headers on every response and proxy-set-headers on every request', () => {
    const policy = translateWithHeaders({});
    expect(policy?.responseHeaders).toEqual({ set: headers.response });
    expect(policy?.requestHeaders).toEqual({ set: headers.request });
  });

  it("lets the Ingress's custom-headers and x-forwarded-prefix win over them by name", () => {
    setConfigMap('deny', { 'x-frame-options': 'DENY' });
    const policy = translateWithHeaders({
      [`${A}custom-headers`]: 'deny',
      [`${A}x-forwarded-prefix`]: '/web',
    });
    expect(policy?.responseHeaders).toEqual({
      set: [
        { name: 'X-Served-By', value: 'edge' },
        { name: 'x-frame-options', value: 'DENY' },
      ],
    });
    expect(policy?.requestHeaders).toEqual({
      set: [
        { name: 'X-Team', value: 'web' },
        { name: 'X-Forwarded-Prefix', value: '/web' },
      ],
    });
  });
});

describe('translateIngress with limit status codes', () => {
  function limitsOf(limitStatusCodes?: { requests: number; connections: number }) {
    const result = translateIngress(
      ingress(
        'web',
        { 'web.test': [path('/', 'Prefix', 'app')] },
        { namespace: 'shop', annotations: { [`${A}limit-rps`]: '5', [`${A}limit-connections`]: '2' } },
      ),
      references,
      limitStatusCodes === undefined ? {} : { limitStatusCodes },
    );
    return result.contribution?.hosts[0]?.routes[0]?.policy.clientLimits;
  }

  it('refuses with 503 by default, else with the ConfigMap statuses of rates and connections', () => {
    expect(limitsOf()).toMatchObject({ statusCode: 503 });
    expect(limitsOf()?.connectionsStatusCode).toBeUndefined();
    expect(limitsOf({ requests: 429, connections: 503 })).toMatchObject({
      statusCode: 429,
      connectionsStatusCode: 503,
    });
    expect(limitsOf({ requests: 429, connections: 429 })?.connectionsStatusCode).toBeUndefined();
  });
});
