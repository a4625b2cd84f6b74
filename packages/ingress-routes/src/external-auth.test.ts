import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_ADDRESS_POLICY, type BackendAddressPolicy } from '@ingresskit/route-model';
import { A, translateShop } from './testing/fixtures.js';
import type { IngressTranslationConfig } from './types.js';

function translateWith(annotations: Record<string, string>, config: IngressTranslationConfig = {}) {
  const { result, route } = translateShop(annotations, config);
  return { result, auth: route?.policy.externalAuth };
}

function errorsOf(annotations: Record<string, string>, config?: IngressTranslationConfig) {
  const { result } = translateWith(annotations, config);
  expect(result.contribution).toBeUndefined();
  return result.problems.filter((problem) => problem.severity === 'error');
}

const LOCAL: BackendAddressPolicy = {
  ...DEFAULT_BACKEND_ADDRESS_POLICY,
  allowLocalAddresses: true,
  ownPorts: new Set([80, 10254]),
};

describe('translateIngress with auth-url', () => {
  it('gives every route the external auth policy of the annotations', () => {
    const { auth, result } = translateWith({
      'auth-url': 'https://auth.example/oauth2/auth?x=1',
      'auth-method': 'POST',
      'auth-signin': 'https://auth.example/oauth2/start',
      'auth-response-headers': 'X-Auth-Request-User, X-Auth-Request-Email,X-Auth-Request-User',
      'auth-request-redirect': 'https://shop.test/after',
      'auth-always-set-cookie': 'true',
    });
    expect(result.problems).toEqual([]);
    expect(auth).toEqual({
      url: 'https://auth.example/oauth2/auth?x=1',
      method: 'POST',
      signin: { url: 'https://auth.example/oauth2/start', redirectParam: 'rd' },
      responseHeaders: ['X-Auth-Request-User', 'X-Auth-Request-Email'],
      requestRedirect: 'https://shop.test/after',
      alwaysSetCookie: true,
    });
  });

  it('adds the original URL in auth-signin-redirect-param unless the sign-in URL already sets it', () => {
    expect(
      translateWith({
        'auth-url': 'http://auth.example/',
        'auth-signin': 'https://login.example/?return_to=$escaped_request_uri',
        'auth-signin-redirect-param': 'return_to',
      }).auth?.signin,
    ).toEqual({ url: 'https://login.example/?return_to=$escaped_request_uri' });
    expect(
      translateWith({ 'auth-url': 'http://auth.example/', 'auth-signin': 'https://$host/start?rd=' }).auth
        ?.signin,
    ).toEqual({ url: 'https://$host/start?rd=', redirectParam: 'rd' });
  });

  it.each([
    ['auth-url', 'ftp://auth.example/', 'must be an http or https URL'],
    ['auth-url', '/relative', 'must be an absolute http or https URL'],
    ['auth-url', 'http://user:pw@auth.example/', 'must not hold credentials'],
    ['auth-url', 'http://auth.example/#x', 'must not hold a fragment'],
    ['auth-url', 'http://$host/auth', 'nginx variables are not supported'],
    ['auth-url', 'http://auth.example/a b', 'without spaces'],
    ['auth-method', 'get', 'must be one of GET'],
    ['auth-method', 'PROPFIND', 'must be one of GET'],
    ['auth-response-headers', 'X-Ok, X:Bad', '"X:Bad" is not a header name'],
    ['auth-response-headers', ' , ', 'at least one header name'],
    ['auth-signin', 'https://$remote_addr/start', 'may hold only the variables'],
    ['auth-signin', 'javascript:alert(1)', 'must be an http or https URL'],
    ['auth-signin-redirect-param', 'r&d', 'must be a query parameter name'],
    ['auth-request-redirect', 'https://x/$uri', 'nginx variables are not supported'],
    ['auth-always-set-cookie', 'yes', 'must be "true" or "false"'],
  ])('leaves the Ingress out for %s %j, naming the annotation', (name, value, message) => {
    const errors = errorsOf({ 'auth-url': 'http://auth.example/', [name]: value });
    expect(errors).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${A}${name}"]`,
        message: expect.stringContaining(message),
      }),
    ]);
  });

  it.each([
    ['http://127.0.0.1:9000/', 'is a loopback address'],
    ['http://[::1]:9000/', 'is a loopback address'],
    ['http://localhost/', 'is a loopback name'],
    ['http://169.254.169.254/latest/meta-data', 'is a link-local address'],
    ['http://0x7f.1/', 'is a loopback address'],
    ['http://0.0.0.0:8080/', 'is an unspecified address'],
    ['http://UNIX:81/var/lib/ingresskit/relay/x', 'reads unix: as a unix socket'],
  ])('refuses %s by default, as a backend there would be', (url, message) => {
    expect(errorsOf({ 'auth-url': url })).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${A}auth-url"]`,
        message: expect.stringContaining(message),
      }),
    ]);
  });

  it('allows loopback when local backends are allowed, but never the gateway own ports or link-local', () => {
    expect(
      translateWith({ 'auth-url': 'http://127.0.0.1:9000/' }, { authAddressPolicy: LOCAL }).auth,
    ).toBeDefined();
    expect(errorsOf({ 'auth-url': 'http://127.0.0.1:10254/metrics' }, { authAddressPolicy: LOCAL })).toEqual([
      expect.objectContaining({ message: expect.stringContaining('is a port of the gateway itself') }),
    ]);
    expect(errorsOf({ 'auth-url': 'http://127.0.0.1/' }, { authAddressPolicy: LOCAL })).toEqual([
      expect.objectContaining({ message: expect.stringContaining('is a port of the gateway itself') }),
    ]);
    expect(errorsOf({ 'auth-url': 'http://169.254.169.254/' }, { authAddressPolicy: LOCAL })).toHaveLength(1);
  });

  it("refuses the gateway pod's own addresses", () => {
    const policy = { ...DEFAULT_BACKEND_ADDRESS_POLICY, forbiddenAddresses: new Set(['10.1.2.3']) };
    expect(errorsOf({ 'auth-url': 'http://10.1.2.3:8080/' }, { authAddressPolicy: policy })).toEqual([
      expect.objectContaining({ message: expect.stringContaining("gateway's own pod") }),
    ]);
  });

  it('warns that the other external auth annotations do nothing without auth-url', () => {
    const { result, auth } = translateWith({
      'auth-method': 'POST',
      'auth-signin': 'https://login.example/',
    });
    expect(auth).toBeUndefined();
    expect(result.contribution).toBeDefined();
    expect(result.problems.map((problem) => [problem.severity, problem.message])).toEqual([
      ['warning', 'annotation "auth-method" has no effect without auth-url'],
      ['warning', 'annotation "auth-signin" has no effect without auth-url'],
    ]);
  });

  it("keeps answers by auth-cache-key, for auth-cache-duration or ingress-nginx's default", () => {
    expect(
      translateWith({ 'auth-url': 'http://auth.example/', 'auth-cache-key': '$http_authorization' }).auth
        ?.cache,
    ).toEqual({
      key: [{ type: 'header', name: 'authorization' }],
      durations: [{ statuses: [200, 202, 401], seconds: 300 }],
    });
    expect(
      translateWith({
        'auth-url': 'http://auth.example/',
        'auth-cache-key': 'k-$cookie_session',
        'auth-cache-duration': '200 202 1h 30m, 401 5s,10m',
      }).auth?.cache,
    ).toEqual({
      key: [
        { type: 'text', value: 'k-' },
        { type: 'cookie', name: 'session' },
      ],
      durations: [
        { statuses: [200, 202], seconds: 5400 },
        { statuses: [401], seconds: 5 },
        { statuses: [200, 301, 302], seconds: 600 },
      ],
    });
  });

  it.each([
    ['auth-cache-key', 'constant', 'must name at least one variable'],
    ['auth-cache-key', '$remote_user', 'is not supported'],
    ['auth-cache-duration', '200 any 5m', '"any" is not a status code or a time'],
    ['auth-cache-duration', '200', 'needs a time'],
    ['auth-cache-duration', '200 8d', 'at most 7d'],
  ])('leaves the Ingress out for %s %j', (name, value, message) => {
    expect(
      errorsOf({ 'auth-url': 'http://auth.example/', 'auth-cache-key': '$http_x', [name]: value }),
    ).toEqual([expect.objectContaining({ message: expect.stringContaining(message) })]);
  });

  it("keeps connections with auth-keepalive, with ingress-nginx's defaults of 1000 requests and 60 seconds", () => {
    const { result, auth } = translateWith({ 'auth-url': 'http://auth.example/', 'auth-keepalive': '10' });
    expect(result.problems).toEqual([]);
    expect(auth?.keepalive).toEqual({ connections: 10, requests: 1000, timeoutSeconds: 60 });
    const set = translateWith({
      'auth-url': 'http://auth.example/',
      'auth-keepalive': '2',
      'auth-keepalive-requests': '5',
      'auth-keepalive-timeout': '7',
      'auth-keepalive-share-vars': 'true',
    });
    expect(set.result.problems).toEqual([]);
    expect(set.auth?.keepalive).toEqual({
      connections: 2,
      requests: 5,
      timeoutSeconds: 7,
      shareRequestId: true,
    });
  });

  it('warns of keep-alive settings without auth-keepalive above 0, and keeps no connections', () => {
    const { result, auth } = translateWith({
      'auth-url': 'http://auth.example/',
      'auth-keepalive': '0',
      'auth-keepalive-timeout': '7',
      'auth-keepalive-share-vars': 'true',
    });
    expect(auth?.keepalive).toBeUndefined();
    expect(result.problems.map(({ severity, field }) => [severity, field])).toEqual([
      ['warning', `metadata.annotations["${A}auth-keepalive-timeout"]`],
      ['warning', `metadata.annotations["${A}auth-keepalive-share-vars"]`],
    ]);
    const withoutUrl = translateWith({ 'auth-keepalive': '4' });
    expect(withoutUrl.result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining('has no effect without auth-url'),
      }),
    ]);
  });

  it.each([['auth-keepalive-requests'], ['auth-keepalive-timeout']])(
    'turns keep-alive off with a warning for %s of 0 or less, as ingress-nginx',
    (name) => {
      const { result, auth } = translateWith({
        'auth-url': 'http://auth.example/',
        'auth-keepalive': '4',
        [name]: '0',
      });
      expect(result.contribution).toBeDefined();
      expect(auth?.keepalive).toBeUndefined();
      expect(result.problems).toEqual([
        expect.objectContaining({ severity: 'warning', field: `metadata.annotations["${A}${name}"]` }),
      ]);
    },
  );

  it.each([
    ['auth-keepalive', 'ten'],
    ['auth-keepalive', '-1'],
    ['auth-keepalive', '1025'],
    ['auth-keepalive-requests', '1.5'],
    ['auth-keepalive-timeout', '3601'],
    ['auth-keepalive-share-vars', 'yes'],
  ])('leaves the Ingress out for %s %j', (name, value) => {
    const errors = errorsOf({ 'auth-url': 'http://auth.example/', 'auth-keepalive': '4', [name]: value });
    expect(errors).toEqual([expect.objectContaining({ field: `metadata.annotations["${A}${name}"]` })]);
  });
});
