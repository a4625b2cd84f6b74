import { describe, expect, it } from 'vitest';
import { DEFAULT_TRANSLATION, parseControllerConfigMap } from './ingress-nginx-configmap.js';
import { translateIngress } from './translate-ingress.js';
import { A, ingress, opaqueSecret, path, secrets, translateShop } from './testing/fixtures.js';
import type { IngressTranslationConfig } from './types.js';

const APR1 = '$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0';

/** The translation config a controller ConfigMap with `data` makes, and its problems. */
function configOf(data: Record<string, string>, previous?: Record<string, string>) {
  const parsed = parseControllerConfigMap(data, previous);
  const { annotationDefaults, globalAuth } = parsed.settings.translation;
  const config: IngressTranslationConfig = {
    annotationDefaults,
    ...(globalAuth === undefined ? {} : { globalAuth }),
  };
  return { config, parsed };
}

/** The policy of Ingress `shop`'s route with `annotations` under the ConfigMap `data`. */
function policyWith(data: Record<string, string>, annotations: Record<string, string> = {}) {
  const { config, parsed } = configOf(data);
  expect(parsed.problems).toEqual([]);
  const { result, route } = translateShop(annotations, config);
  expect(result.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  return route!.policy;
}

/** Each key with a good value, the policy field it sets, an annotation value and what that sets. */
const CASES: [key: string, value: string, expected: object, annotation: string, overridden: object][] = [
  [
    'proxy-buffering',
    'off',
    { upstreamSettings: { responseBuffering: false } },
    'on',
    { upstreamSettings: { responseBuffering: true } },
  ],
  [
    'proxy-request-buffering',
    'off',
    { upstreamSettings: { requestBuffering: false } },
    'on',
    { upstreamSettings: { requestBuffering: true } },
  ],
  [
    'proxy-http-version',
    '1.0',
    { upstreamSettings: { httpVersion: '1.0' } },
    '1.1',
    { upstreamSettings: { httpVersion: '1.1' } },
  ],
  [
    'proxy-buffer-size',
    '16k',
    { upstreamSettings: { bufferSizeBytes: 16384 } },
    '8k',
    { upstreamSettings: { bufferSizeBytes: 8192 } },
  ],
  [
    'proxy-buffers-number',
    '8',
    { upstreamSettings: { buffersNumber: 8 } },
    '4',
    { upstreamSettings: { buffersNumber: 4 } },
  ],
  [
    'client-body-buffer-size',
    '64k',
    { upstreamSettings: { requestBodyBufferBytes: 65536 } },
    '1k',
    { upstreamSettings: { requestBodyBufferBytes: 1024 } },
  ],
  [
    'proxy-max-temp-file-size',
    '0',
    { upstreamSettings: { maxTempFileBytes: 0 } },
    '2m',
    { upstreamSettings: { maxTempFileBytes: 2097152 } },
  ],
  [
    'proxy-next-upstream',
    'error http_502',
    { upstreamSettings: { retryOn: ['error', 'http_502'] } },
    'off',
    { upstreamSettings: { retryOn: [] } },
  ],
  [
    'proxy-busy-buffers-size',
    '8k',
    { upstreamSettings: { busyBuffersBytes: 8192 } },
    '6k',
    { upstreamSettings: { busyBuffersBytes: 6144 } },
  ],
  [
    'proxy-next-upstream-timeout',
    '10',
    { upstreamSettings: { retryTimeoutSeconds: 10 } },
    '3',
    { upstreamSettings: { retryTimeoutSeconds: 3 } },
  ],
  ['proxy-next-upstream-tries', '5', { upstreamTries: 5 }, '1', { upstreamTries: 1 }],
  [
    'proxy-cookie-domain',
    'backend.local shop.test',
    { cookieDomainRewrite: { from: 'backend.local', to: 'shop.test' } },
    'a.local b.test',
    { cookieDomainRewrite: { from: 'a.local', to: 'b.test' } },
  ],
  [
    'proxy-cookie-path',
    '/app /',
    { cookiePathRewrite: { from: '/app', to: '/' } },
    '/x /y',
    { cookiePathRewrite: { from: '/x', to: '/y' } },
  ],
];

/** Each key with a value its annotation's grammar refuses. */
const BAD: [key: string, value: string][] = [
  ['proxy-buffering', 'yes'],
  ['proxy-request-buffering', 'true'],
  ['proxy-http-version', '2'],
  ['proxy-buffer-size', '4 k'],
  ['proxy-buffers-number', '2'],
  ['proxy-busy-buffers-size', '100'],
  ['client-body-buffer-size', '2m'],
  ['proxy-max-temp-file-size', '10k'],
  ['proxy-next-upstream', 'error sometimes'],
  ['proxy-next-upstream-timeout', '-1'],
  ['proxy-next-upstream-tries', '101'],
  ['proxy-cookie-domain', 'one'],
  ['proxy-cookie-path', '/a $uri'],
  ['proxy-redirect-from', '~^/x'],
  ['proxy-redirect-to', 'a b'],
  ['service-upstream', 'maybe'],
  ['retry-non-idempotent', 'yes'],
  ['http-redirect-code', '303'],
  ['no-tls-redirect-locations', 'acme'],
  ['no-auth-locations', '/a,/b c'],
];

describe('parseControllerConfigMap with the proxy defaults', () => {
  it.each(CASES)('gives routes without the annotation %s %j', (key, value, expected) => {
    expect(policyWith({ [key]: value })).toMatchObject(expected);
  });

  it.each(CASES)(
    'lets the annotation %s win over the ConfigMap',
    (key, value, _expected, annotation, overridden) => {
      expect(policyWith({ [key]: value }, { [key]: annotation })).toMatchObject(overridden);
    },
  );

  it.each(BAD)('refuses %s %j with the annotation grammar, keeping the last valid value', (key, value) => {
    const first = parseControllerConfigMap({ [key]: CASES.find(([name]) => name === key)?.[1] ?? 'true' });
    const { parsed } = configOf({ [key]: value }, first.values);
    // proxy-redirect-from or -to alone is warned about too.
    const errors = parsed.problems.filter((problem) => problem.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ field: `data["${key}"]`, severity: 'error', value });
    expect(parsed.values).toEqual(first.values);
  });

  it('merges several keys into one set of upstream settings, each annotation overriding its own', () => {
    const policy = policyWith(
      { 'proxy-buffering': 'off', 'proxy-buffer-size': '16k', 'proxy-next-upstream-timeout': '5' },
      { 'proxy-buffer-size': '8k' },
    );
    expect(policy.upstreamSettings).toEqual({
      responseBuffering: false,
      bufferSizeBytes: 8192,
      retryTimeoutSeconds: 5,
    });
    // The defaults stay as the ConfigMap said for the next Ingress.
    expect(policyWith({ 'proxy-buffer-size': '16k' }).upstreamSettings).toEqual({ bufferSizeBytes: 16384 });
  });

  it('applies proxy-busy-buffers-size only where it fits the buffers, with a warning else', () => {
    const { parsed } = configOf({ 'proxy-busy-buffers-size': '16k' });
    expect(parsed.problems).toMatchObject([
      { field: 'data["proxy-busy-buffers-size"]', severity: 'warning' },
    ]);
    expect(parsed.settings.translation.annotationDefaults).toEqual({});
    const fits = configOf({ 'proxy-busy-buffers-size': '16k', 'proxy-buffers-number': '8' });
    expect(fits.parsed.problems).toEqual([]);
    // An Ingress with fewer buffers gets a warning on its annotation and nginx's default.
    const { result, route } = translateShop({ 'proxy-buffers-number': '4' }, fits.config);
    expect(route?.policy.upstreamSettings).toEqual({ buffersNumber: 4 });
    expect(result.problems).toMatchObject([
      {
        field: 'metadata.annotations["nginx.ingress.kubernetes.io/proxy-busy-buffers-size"]',
        severity: 'warning',
      },
    ]);
  });

  it('keeps load-balance beside the proxy keys it shares `proxy` with', () => {
    const { parsed } = configOf({ 'load-balance': 'ewma', 'proxy-next-upstream-tries': '2' });
    expect(parsed.settings.translation.annotationDefaults.proxy).toEqual({
      loadBalancing: 'ewma',
      upstreamTries: 2,
    });
  });

  it('rewrites Location with proxy-redirect-from and -to together, and warns about one alone', () => {
    expect(policyWith({ 'proxy-redirect-from': 'http://a.local/', 'proxy-redirect-to': '/' })).toMatchObject({
      locationRewrite: { from: 'http://a.local/', to: '/' },
    });
    const { parsed, config } = configOf({ 'proxy-redirect-from': 'http://a.local/' });
    expect(parsed.problems).toEqual([
      {
        field: 'data["proxy-redirect-from"]',
        message: '"proxy-redirect-from" is not applied without proxy-redirect-to',
        severity: 'warning',
      },
    ]);
    const { result, route } = translateShop({ 'proxy-redirect-to': '/x' }, config);
    expect(route?.policy.locationRewrite).toBeUndefined();
    expect(result.problems.map((problem) => problem.severity)).toEqual(['warning']);
  });

  it('sends routes to the Service cluster IP with service-upstream, unless the annotation says "false"', () => {
    const backendOf = (annotations: Record<string, string>) => {
      const { config } = configOf({ 'service-upstream': 'true' });
      const { route } = translateShop(annotations, config);
      return route?.action.type === 'forward' ? route.action.backends[0]!.backend : undefined;
    };
    expect(backendOf({})).not.toEqual(backendOf({ 'service-upstream': 'false' }));
    expect(backendOf({ 'service-upstream': 'false' })).toBe('default/app:80');
  });

  it('adds non_idempotent to every retry condition with retry-non-idempotent, not to "off"', () => {
    expect(policyWith({ 'retry-non-idempotent': 'true' }).upstreamSettings).toEqual({
      retryOn: ['error', 'timeout', 'non_idempotent'],
    });
    expect(
      policyWith({ 'retry-non-idempotent': 'true' }, { 'proxy-next-upstream': 'http_502' }).upstreamSettings,
    ).toEqual({ retryOn: ['http_502', 'non_idempotent'] });
    expect(
      policyWith({ 'retry-non-idempotent': 'true' }, { 'proxy-next-upstream': 'off' }).upstreamSettings,
    ).toEqual({ retryOn: [] });
    expect(policyWith({ 'retry-non-idempotent': 'false' }).upstreamSettings).toBeUndefined();
  });

  it('gives nginx the operator retry set with non_idempotent when retry-non-idempotent is "true"', () => {
    const retryOf = (data: Record<string, string>) =>
      configOf(data).parsed.settings.nginx.upstreamDefaults?.retryOn;
    expect(retryOf({ 'retry-non-idempotent': 'true' })).toEqual(['error', 'timeout', 'non_idempotent']);
    expect(retryOf({ 'retry-non-idempotent': 'true', 'proxy-next-upstream': 'error http_503' })).toEqual([
      'error',
      'http_503',
      'non_idempotent',
    ]);
    expect(retryOf({ 'proxy-next-upstream': 'error http_503' })).toEqual(['error', 'http_503']);
  });

  it('answers the HTTPS and www redirects with http-redirect-code (308 without it)', () => {
    expect(policyWith({}, { 'force-ssl-redirect': 'true' }).redirectToHttps?.statusCode).toBe(308);
    expect(
      policyWith({ 'http-redirect-code': '301' }, { 'force-ssl-redirect': 'true' }).redirectToHttps
        ?.statusCode,
    ).toBe(301);
    const { config } = configOf({ 'http-redirect-code': '302' });
    const { result } = translateShop({ 'from-to-www-redirect': 'true' }, config);
    const www = result.contribution?.hosts.find((host) => host.hostname === 'www.shop.test');
    expect(www?.fallback).toMatchObject({ action: { redirect: { hostname: 'shop.test', statusCode: 302 } } });
  });

  it('reads no-tls-redirect-locations and no-auth-locations as trimmed path prefixes', () => {
    const { parsed } = configOf({
      'no-tls-redirect-locations': ' /.well-known/acme-challenge , /public,',
      'no-auth-locations': '',
    });
    expect(parsed.settings.translation.annotationDefaults).toEqual({
      noTlsRedirectLocations: ['/.well-known/acme-challenge', '/public'],
      noAuthLocations: [],
    });
  });

  it('changes nothing without the keys', () => {
    expect(parseControllerConfigMap({}).settings.translation).toEqual(DEFAULT_TRANSLATION);
  });
});

describe('translateIngress with no-tls-redirect-locations and no-auth-locations', () => {
  const ACME = '/.well-known/acme-challenge/token-1';

  /** The policies of the paths `/` and ACME of an Ingress with `annotations` under ConfigMap `data`. */
  function policiesWith(
    data: Record<string, string>,
    annotations: Record<string, string>,
    paths = ['/', ACME],
  ) {
    const { config } = configOf(data);
    const result = translateIngress(
      ingress(
        'shop',
        { 'shop.test': paths.map((value) => path(value, 'Prefix', 'app')) },
        { annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${A}${k}`, v])) },
      ),
      secrets(opaqueSecret('staff', { auth: `ann:${APR1}\n` })),
      config,
    );
    expect(result.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    const routes = result.contribution!.hosts[0]!.routes;
    return paths.map((value) => routes.find((route) => route.match.path?.value === value)!.policy);
  }

  it('never redirects /.well-known/acme-challenge to HTTPS by default, as ingress-nginx', () => {
    const [root, acme] = policiesWith({}, { 'force-ssl-redirect': 'true' });
    expect(root!.redirectToHttps).toBeDefined();
    expect(acme!.redirectToHttps).toBeUndefined();
  });

  it('exempts the prefixes no-tls-redirect-locations names instead, or none with ""', () => {
    const [root, acme, open] = policiesWith(
      { 'no-tls-redirect-locations': '/open' },
      { 'force-ssl-redirect': 'true' },
      ['/', ACME, '/open/x'],
    );
    expect(root!.redirectToHttps).toBeDefined();
    expect(acme!.redirectToHttps).toBeDefined();
    expect(open!.redirectToHttps).toBeUndefined();
    const [, none] = policiesWith({ 'no-tls-redirect-locations': '' }, { 'force-ssl-redirect': 'true' });
    expect(none!.redirectToHttps).toBeDefined();
  });

  it('asks for no basic auth, auth-url or global-auth-url on /.well-known/acme-challenge by default', () => {
    const basic = policiesWith(
      {},
      {
        'auth-type': 'basic',
        'auth-secret': 'staff',
        satisfy: 'any',
        'allowlist-source-range': '10.0.0.0/8',
      },
    );
    expect(basic[0]).toMatchObject({ basicAuth: { users: [{ name: 'ann' }] }, satisfy: 'any' });
    expect(basic[1]).not.toHaveProperty('basicAuth');
    expect(basic[1]).not.toHaveProperty('satisfy');
    // An allowlist is no authentication: it still holds.
    expect(basic[1]!.allowSources).toEqual(['10.0.0.0/8']);
    const external = policiesWith({}, { 'auth-url': 'https://auth.example/check' });
    expect(external[0]!.externalAuth).toBeDefined();
    expect(external[1]!.externalAuth).toBeUndefined();
    const global = policiesWith({ 'global-auth-url': 'https://auth.example/check' }, {});
    expect(global[0]!.externalAuth).toBeDefined();
    expect(global[1]!.externalAuth).toBeUndefined();
  });

  it('exempts the prefixes no-auth-locations names instead, or none with ""', () => {
    const [, acme, open] = policiesWith(
      { 'global-auth-url': 'https://auth.example/check', 'no-auth-locations': '/open' },
      {},
      ['/', ACME, '/open/x'],
    );
    expect(acme!.externalAuth).toBeDefined();
    expect(open!.externalAuth).toBeUndefined();
    const [, none] = policiesWith(
      { 'global-auth-url': 'https://auth.example/check', 'no-auth-locations': '' },
      {},
    );
    expect(none!.externalAuth).toBeDefined();
  });
});
