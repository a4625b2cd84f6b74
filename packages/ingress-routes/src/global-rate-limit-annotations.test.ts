import type { Route } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { parseControllerConfigMap } from './ingress-nginx-configmap.js';
import { translateIngress, type IngressTranslationConfig } from './index.js';
import { ingress, path, secrets } from './testing/fixtures.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(annotations: Record<string, string>) {
  return parseAnnotations(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])));
}

const STORE = {
  host: 'memcached.infra.svc',
  port: 11211,
  timeoutMs: 50,
  idleTimeoutMs: 10_000,
  poolSize: 50,
};
const WITH_STORE: IngressTranslationConfig = { globalRateLimit: { statusCode: 429, store: STORE } };

function translate(annotations: Record<string, string>, config: IngressTranslationConfig = WITH_STORE) {
  const object = ingress(
    'cart',
    { 'a.example.com': [path('/', 'Prefix', 'app'), path('/api', 'Prefix', 'app')] },
    { annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])) },
  );
  return translateIngress(object, secrets(), config);
}

function routesOf(result: ReturnType<typeof translate>): Route[] {
  return result.contribution?.hosts.flatMap((host) => host.routes) ?? [];
}

describe('global-rate-limit annotations (parseAnnotations)', () => {
  it('reads the limit, a window in whole seconds, the key and the ignored CIDRs', () => {
    const { annotations, problems } = parse({
      'global-rate-limit': '100',
      'global-rate-limit-window': '1.9s',
      'global-rate-limit-key': '${remote_addr}-${http_x_api_client}',
      'global-rate-limit-ignored-cidrs': '10.0.0.0/8, 192.168.1.1',
    });
    expect(problems).toEqual([]);
    expect(annotations?.globalRateLimit).toEqual({
      limit: 100,
      windowSeconds: 1,
      key: [
        { type: 'clientAddress' },
        { type: 'text', value: '-' },
        { type: 'header', name: 'x-api-client' },
      ],
      exemptSources: ['10.0.0.0/8', '192.168.1.1'],
    });
  });

  it.each([
    ['global-rate-limit', '-1', 'must be a whole number'],
    ['global-rate-limit', '1e3', 'must be a whole number'],
    ['global-rate-limit-window', '500ms', 'must be from 1s'],
    ['global-rate-limit-window', '337h', 'must be from 1s'],
    ['global-rate-limit-window', '1 minute', 'must be a duration'],
    ['global-rate-limit-key', '$request_body', 'is not supported'],
    ['global-rate-limit-key', '$remote_addr;', 'must be letters'],
    ['global-rate-limit-key', 'client', 'must name at least one variable'],
    ['global-rate-limit-ignored-cidrs', '10.0.0.0/33', 'is not an IPv4 or IPv6 address'],
  ])('leaves the Ingress out when %s is %j', (name, value, message) => {
    const { annotations, problems } = parse({
      'global-rate-limit': '5',
      'global-rate-limit-window': '1m',
      [name]: value,
    });
    expect(annotations).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${P}${name}"]`,
        severity: 'error',
        message: expect.stringContaining(message),
      }),
    ]);
  });

  it('refuses a limit without a window, which ingress-nginx would serve unlimited', () => {
    const { annotations, problems } = parse({ 'global-rate-limit': '5' });
    expect(annotations).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${P}global-rate-limit"]`,
        message: 'annotation "global-rate-limit" needs global-rate-limit-window',
        severity: 'error',
      }),
    ]);
  });

  it('warns that a window, key or ignored CIDRs do nothing without a limit (0 is none)', () => {
    const { annotations, problems } = parse({
      'global-rate-limit': '0',
      'global-rate-limit-window': '1m',
      'global-rate-limit-key': '$host',
      'global-rate-limit-ignored-cidrs': '10.0.0.0/8',
    });
    expect(annotations).toBeDefined();
    expect(problems.map((problem) => [problem.severity, problem.message])).toEqual([
      ['warning', 'annotation "global-rate-limit-window" has no effect without global-rate-limit'],
      ['warning', 'annotation "global-rate-limit-key" has no effect without global-rate-limit'],
      ['warning', 'annotation "global-rate-limit-ignored-cidrs" has no effect without global-rate-limit'],
    ]);
  });
});

describe('global-rate-limit (translateIngress)', () => {
  it('gives every route of the Ingress one limit, keyed by the client address by default', () => {
    const result = translate({ 'global-rate-limit': '10', 'global-rate-limit-window': '1m' });
    expect(result.problems).toEqual([]);
    const routes = routesOf(result);
    expect(routes).toHaveLength(2);
    for (const route of routes) {
      expect(route.policy.globalRateLimit).toEqual({
        scope: 'Ingress/default/cart',
        limit: 10,
        windowSeconds: 60,
        key: [{ type: 'clientAddress' }],
        statusCode: 429,
        store: STORE,
      });
      expect(route.action.type).toBe('forward');
    }
  });

  it("refuses with the ConfigMap's status code", () => {
    const result = translate(
      { 'global-rate-limit': '10', 'global-rate-limit-window': '1m' },
      { globalRateLimit: { statusCode: 503, store: STORE } },
    );
    expect(routesOf(result)[0]?.policy.globalRateLimit?.statusCode).toBe(503);
  });

  it('closes the Ingress without a memcached host, naming the annotation and the ConfigMap key', () => {
    for (const config of [{}, { globalRateLimit: { statusCode: 429 } }]) {
      const result = translate({ 'global-rate-limit': '10', 'global-rate-limit-window': '1m' }, config);
      const routes = routesOf(result);
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        expect(route.action).toEqual({ type: 'respond', statusCode: 503 });
        expect(route.policy.globalRateLimit).toBeUndefined();
      }
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: `metadata.annotations["${P}global-rate-limit"]`,
          severity: 'error',
          message: expect.stringContaining('global-rate-limit-memcached-host, which is not set'),
        }),
      ]);
    }
  });

  it('needs no memcached for a limit of 0', () => {
    const result = translate({ 'global-rate-limit': '0', 'global-rate-limit-window': '1m' }, {});
    expect(routesOf(result)[0]?.action.type).toBe('forward');
    expect(routesOf(result)[0]?.policy.globalRateLimit).toBeUndefined();
  });
});

describe('global-rate-limit-* ConfigMap keys (parseControllerConfigMap)', () => {
  it("has ingress-nginx's defaults and no store without a host", () => {
    expect(parseControllerConfigMap({}).settings.translation.globalRateLimit).toEqual({ statusCode: 429 });
    expect(
      parseControllerConfigMap({ 'global-rate-limit-memcached-port': '11311' }).settings.translation
        .globalRateLimit,
    ).toEqual({ statusCode: 429 });
    expect(
      parseControllerConfigMap({ 'global-rate-limit-memcached-host': 'memcached.infra.svc' }).settings
        .translation.globalRateLimit,
    ).toEqual({ statusCode: 429, store: STORE });
  });

  it('reads every key', () => {
    const { settings, problems } = parseControllerConfigMap({
      'global-rate-limit-memcached-host': '10.0.0.7',
      'global-rate-limit-memcached-port': '11311',
      'global-rate-limit-memcached-connect-timeout': '100',
      'global-rate-limit-memcached-max-idle-timeout': '30000',
      'global-rate-limit-memcached-pool-size': '8',
      'global-rate-limit-status-code': '503',
    });
    expect(problems).toEqual([]);
    expect(settings.translation.globalRateLimit).toEqual({
      statusCode: 503,
      store: { host: '10.0.0.7', port: 11311, timeoutMs: 100, idleTimeoutMs: 30_000, poolSize: 8 },
    });
  });

  it.each([
    ['global-rate-limit-memcached-host', 'memcached:11211'],
    ['global-rate-limit-memcached-host', 'mem cached'],
    ['global-rate-limit-memcached-host', 'evil;x'],
    ['global-rate-limit-memcached-port', '0'],
    ['global-rate-limit-memcached-port', '65536'],
    ['global-rate-limit-memcached-connect-timeout', '0'],
    ['global-rate-limit-memcached-pool-size', '-1'],
    ['global-rate-limit-status-code', '200'],
  ])('reports %s %j as an error and keeps the default', (name, value) => {
    const { problems } = parseControllerConfigMap({ [name]: value });
    expect(problems).toEqual([
      expect.objectContaining({
        field: `data["${name}"]`,
        severity: 'error',
        message: expect.stringContaining('the default stays'),
      }),
    ]);
  });
});
