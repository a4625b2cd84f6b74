import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import {
  DEFAULT_TRANSLATION,
  INGRESS_NGINX_CONFIGMAP_KEYS,
  parseControllerConfigMap,
} from './ingress-nginx-configmap.js';
import { DEFAULT_HSTS } from './route-policy.js';

describe('INGRESS_NGINX_CONFIGMAP_KEYS', () => {
  it('names each key once, sorted, and says of each what is done with it', () => {
    const names = INGRESS_NGINX_CONFIGMAP_KEYS.map((key) => key.name);
    expect(names).toEqual([...new Set(names)].sort());
    for (const key of INGRESS_NGINX_CONFIGMAP_KEYS)
      expect([key.applied, key.unsupported].filter((entry) => entry !== undefined)).toHaveLength(1);
    expect(names.length).toBeGreaterThan(180);
  });
});

describe('parseControllerConfigMap', () => {
  it('reads live keys as annotation defaults and reload keys as nginx.conf settings', () => {
    const { settings, values, problems } = parseControllerConfigMap({
      'ssl-redirect': 'false',
      'proxy-read-timeout': '120',
      'worker-processes': '2',
      'max-worker-connections': '0',
      'worker-shutdown-timeout': '30s',
      'proxy-body-size': '8m',
      'disable-access-log': 'true',
      'upstream-keepalive-timeout': '2m',
      'upstream-keepalive-requests': '100',
      'allow-snippet-annotations': 'false',
      'use-gzip': 'false',
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      translation: {
        annotationDefaults: { sslRedirect: false, readTimeoutSeconds: 120 },
        hsts: DEFAULT_HSTS,
        globalRateLimit: { statusCode: 429 },
      },
      nginx: {
        workerProcesses: 2,
        workerShutdownTimeoutSeconds: 30,
        proxyBodySize: '8m',
        accessLog: false,
        upstreamKeepalive: { timeoutSeconds: 120, requests: 100 },
      },
    });
    expect(Object.keys(values)).toHaveLength(10);
  });

  it('keeps the last valid value of a key whose new value is invalid, and says so', () => {
    const first = parseControllerConfigMap({ 'proxy-read-timeout': '90', 'worker-processes': '2' });
    const second = parseControllerConfigMap(
      { 'proxy-read-timeout': 'soon', 'worker-processes': 'many' },
      first.values,
    );
    expect(second.settings).toEqual({
      translation: {
        annotationDefaults: { readTimeoutSeconds: 90 },
        hsts: DEFAULT_HSTS,
        globalRateLimit: { statusCode: 429 },
      },
      nginx: { workerProcesses: 2 },
    });
    expect(second.problems).toEqual([
      expect.objectContaining({
        field: 'data["proxy-read-timeout"]',
        severity: 'error',
        message: expect.stringContaining('the last valid value "90" stays'),
      }),
      expect.objectContaining({ field: 'data["worker-processes"]', severity: 'error' }),
    ]);
    expect(parseControllerConfigMap({ 'proxy-read-timeout': 'soon' }).problems[0]?.message).toContain(
      'the default stays',
    );
  });

  it('reports what it does not apply: protections and raw configuration as errors, the rest as warnings', () => {
    const { problems, settings } = parseControllerConfigMap({
      'http-snippet': 'server { }',
      'whitelist-source-range': '10.0.0.0/8',
      'enable-modsecurity': 'true',
      'gzip-level': '5',
      'no-such-key': 'x',
      'allow-snippet-annotations': 'true',
      'worker-processes': '2\nuser root;',
    });
    expect(settings).toEqual({ translation: DEFAULT_TRANSLATION, nginx: {} });
    expect(problems.map(({ field, severity }) => `${field} ${severity}`)).toEqual([
      'data["allow-snippet-annotations"] error',
      'data["enable-modsecurity"] error',
      'data["gzip-level"] warning',
      'data["http-snippet"] error',
      'data["no-such-key"] warning',
      'data["whitelist-source-range"] error',
      'data["worker-processes"] error',
    ]);
  });
});

describe('HSTS keys', () => {
  it("send ingress-nginx's HSTS by default, changed or turned off by the keys", () => {
    expect(parseControllerConfigMap({}).settings.translation.hsts).toEqual({
      maxAgeSeconds: 31_536_000,
      includeSubdomains: true,
      preload: false,
    });
    expect(
      parseControllerConfigMap({
        'hsts-max-age': '600',
        'hsts-include-subdomains': 'false',
        'hsts-preload': 'true',
      }).settings.translation.hsts,
    ).toEqual({ maxAgeSeconds: 600, includeSubdomains: false, preload: true });
    expect(
      parseControllerConfigMap({ hsts: 'false', 'hsts-max-age': '600' }).settings.translation.hsts,
    ).toBeUndefined();
    expect(parseControllerConfigMap({ 'hsts-max-age': 'forever' }).problems[0]?.field).toBe(
      'data["hsts-max-age"]',
    );
  });
});

describe('annotation defaults', () => {
  it('apply to an Ingress without the annotation, and the annotation wins over them', () => {
    const defaults = { sslRedirect: false, readTimeoutSeconds: 120 };
    expect(parseAnnotations({}, undefined, defaults).annotations).toMatchObject(defaults);
    expect(
      parseAnnotations({ 'nginx.ingress.kubernetes.io/proxy-read-timeout': '5' }, undefined, defaults)
        .annotations,
    ).toMatchObject({ sslRedirect: false, readTimeoutSeconds: 5 });
  });
});
