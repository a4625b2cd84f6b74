import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_ADDRESS_POLICY, type BackendAddressPolicy } from '@ingresskit/route-model';
import { parseControllerConfigMap } from './ingress-nginx-configmap.js';
import { A, translateShop } from './testing/fixtures.js';
import type { IngressTranslationConfig } from './types.js';

const LOCAL: BackendAddressPolicy = { ...DEFAULT_BACKEND_ADDRESS_POLICY, allowLocalAddresses: true };

/** The translation config a controller ConfigMap with `data` makes. */
function configOf(data: Record<string, string>, previous?: Record<string, string>): IngressTranslationConfig {
  const { translation } = parseControllerConfigMap(data, previous).settings;
  return translation.globalAuth === undefined ? {} : { globalAuth: translation.globalAuth };
}

/** The first route of Ingress `shop` with `annotations`, translated with `config`, and its external auth. */
function translateWith(annotations: Record<string, string>, config: IngressTranslationConfig) {
  const { result, route } = translateShop(annotations, config);
  return { result, route, auth: route?.policy.externalAuth };
}

const GLOBAL = { 'global-auth-url': 'https://auth.example/oauth2/auth' };

describe('parseControllerConfigMap with global-auth-*', () => {
  it('reads every key as its auth-* annotation into one policy', () => {
    const { settings, problems, values } = parseControllerConfigMap({
      ...GLOBAL,
      'global-auth-method': 'POST',
      'global-auth-signin': 'https://auth.example/oauth2/start?app=shop',
      'global-auth-signin-redirect-param': 'return_to',
      'global-auth-response-headers': 'X-Auth-Request-User, X-Auth-Request-Email',
      'global-auth-request-redirect': 'https://shop.test/after',
      'global-auth-cache-key': '$http_authorization',
      'global-auth-cache-duration': '200 10m, 401 1m',
      'global-auth-always-set-cookie': 'True',
    });
    expect(problems).toEqual([]);
    expect(settings.translation.globalAuth).toEqual({
      policy: {
        url: 'https://auth.example/oauth2/auth',
        method: 'POST',
        signin: { url: 'https://auth.example/oauth2/start?app=shop', redirectParam: 'return_to' },
        responseHeaders: ['X-Auth-Request-User', 'X-Auth-Request-Email'],
        requestRedirect: 'https://shop.test/after',
        alwaysSetCookie: true,
        cache: {
          key: [{ type: 'header', name: 'authorization' }],
          durations: [
            { statuses: [200], seconds: 600 },
            { statuses: [401], seconds: 60 },
          ],
        },
      },
    });
    expect(values['global-auth-url']).toBe('https://auth.example/oauth2/auth');
  });

  it('has no global auth without global-auth-url or with it empty, and warns of the keys that then do nothing', () => {
    expect(parseControllerConfigMap({}).settings.translation.globalAuth).toBeUndefined();
    const empty = parseControllerConfigMap({ 'global-auth-url': '', 'global-auth-method': '' });
    expect(empty.settings.translation.globalAuth).toBeUndefined();
    expect(empty.problems).toEqual([]);
    const alone = parseControllerConfigMap({ 'global-auth-method': 'POST' });
    expect(alone.settings.translation.globalAuth).toBeUndefined();
    expect(alone.problems).toEqual([
      {
        field: 'data["global-auth-method"]',
        message: '"global-auth-method" has no effect without global-auth-url',
        severity: 'warning',
      },
    ]);
  });

  it('closes the routes it would protect when global-auth-url is invalid and no valid value came before', () => {
    const { settings, problems } = parseControllerConfigMap({ 'global-auth-url': 'ftp://auth.example/' });
    expect(settings.translation.globalAuth).toEqual({ problem: 'global-auth-url is not valid' });
    expect(problems).toEqual([
      expect.objectContaining({
        field: 'data["global-auth-url"]',
        severity: 'error',
        message: expect.stringContaining('every Ingress route it would protect answers 503'),
      }),
    ]);
  });

  it('keeps the last valid global-auth-url when a new value is invalid', () => {
    const first = parseControllerConfigMap(GLOBAL);
    const { settings, problems } = parseControllerConfigMap(
      { 'global-auth-url': 'http://auth.example/$host' },
      first.values,
    );
    expect(settings.translation.globalAuth).toEqual({ policy: { url: GLOBAL['global-auth-url'] } });
    expect(problems).toEqual([
      expect.objectContaining({ message: expect.stringContaining('the last valid value') }),
    ]);
  });

  it('falls back to the default of another invalid key, which protects no less', () => {
    const { settings, problems } = parseControllerConfigMap({
      ...GLOBAL,
      'global-auth-method': 'get',
      'global-auth-always-set-cookie': 'yes',
    });
    expect(settings.translation.globalAuth).toEqual({ policy: { url: GLOBAL['global-auth-url'] } });
    expect(problems.map((problem) => problem.field)).toEqual([
      'data["global-auth-always-set-cookie"]',
      'data["global-auth-method"]',
    ]);
  });

  it('still refuses global-auth-snippet, and applies no-auth-locations', () => {
    const { problems } = parseControllerConfigMap({
      ...GLOBAL,
      'global-auth-snippet': 'proxy_set_header X-A b;',
      'no-auth-locations': '/public',
    });
    expect(problems.map(({ field, severity }) => `${field} ${severity}`)).toEqual([
      'data["global-auth-snippet"] error',
    ]);
  });
});

describe('translateIngress with the ConfigMap global-auth-url', () => {
  it('gives the routes of an Ingress without auth-url the global policy', () => {
    const { auth, result } = translateWith({}, configOf({ ...GLOBAL, 'global-auth-method': 'POST' }));
    expect(result.problems).toEqual([]);
    expect(auth).toEqual({ url: GLOBAL['global-auth-url'], method: 'POST' });
  });

  it('leaves an Ingress that says enable-global-auth "false" (in any ParseBool spelling) open', () => {
    for (const value of ['false', '0', 'F'])
      expect(translateWith({ 'enable-global-auth': value }, configOf(GLOBAL)).auth).toBeUndefined();
    expect(translateWith({ 'enable-global-auth': 'true' }, configOf(GLOBAL)).auth).toBeDefined();
  });

  it("uses an Ingress's own auth-url and auth-* annotations instead", () => {
    const { auth } = translateWith(
      { 'auth-url': 'http://own.example/check', 'auth-response-headers': 'X-Own' },
      configOf({ ...GLOBAL, 'global-auth-response-headers': 'X-Global' }),
    );
    expect(auth).toEqual({ url: 'http://own.example/check', responseHeaders: ['X-Own'] });
  });

  it('does not give the global policy the auth-proxy-set-headers of an Ingress without auth-url', () => {
    const { auth, result } = translateWith({ 'auth-proxy-set-headers': 'auth-headers' }, configOf(GLOBAL));
    expect(auth).toEqual({ url: GLOBAL['global-auth-url'] });
    expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
  });

  it('answers 503 with an error while global-auth-url is invalid, unless the Ingress opts out', () => {
    const config = configOf({ 'global-auth-url': 'not a url' });
    const { route, auth, result } = translateWith({}, config);
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(auth).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${A}enable-global-auth"]`,
        message: expect.stringContaining('global-auth-url is not valid; every request gets 503'),
      }),
    ]);
    expect(translateWith({ 'enable-global-auth': 'false' }, config).route?.action).toMatchObject({
      type: 'forward',
    });
  });

  it('answers 503 with an error when global-auth-url names an address a backend may not have', () => {
    const config = configOf({ 'global-auth-url': 'http://127.0.0.1:9000/check' });
    const { route, result } = translateWith({}, config);
    expect(route?.action).toEqual({ type: 'respond', statusCode: 503 });
    expect(result.problems).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining('may not point there') }),
    ]);
    const allowed = translateWith({}, { ...config, authAddressPolicy: LOCAL });
    expect(allowed.auth).toEqual({ url: 'http://127.0.0.1:9000/check' });
  });

  it('leaves a canary Ingress alone: the main Ingress decides for its requests', () => {
    const { result } = translateWith(
      { canary: 'true', 'canary-weight': '10' },
      configOf({ 'global-auth-url': '-' }),
    );
    expect(result.problems).toEqual([]);
    expect(result.contribution?.hosts[0]?.canaries?.[0]?.route.policy).toEqual({});
  });
});
