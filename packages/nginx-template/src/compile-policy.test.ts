import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute: the policy', () => {
  it('compiles policies into the compact forms workers read', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: {
          redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true },
          allowSources: ['10.0.0.0/8', '::1'],
          maxBodyBytes: 100,
          upstreamHost: 'internal:8080',
          requestHeaders: { set: [{ name: 'X-A', value: '1' }], remove: ['X-B'] },
          responseHeaders: { add: [{ name: 'X-C', value: '2' }] },
          timeouts: { connectMs: 1500, readMs: 30000 },
          backendProtocol: 'GRPC',
        },
      }),
    );
    expect(issues).toEqual([]);
    expect(entry.policy).toEqual({
      https: { status: 308, tlsOnly: true },
      allow: [
        ['0a000000', 8],
        ['00000000000000000000000000000001', 128],
      ],
      maxBody: 100,
      host: 'internal:8080',
      request: { remove: ['X-B'], set: [['X-A', '1']] },
      response: { add: [['X-C', '2']] },
      timeouts: [1.5, 0, 30],
    });
    expect(entry).toMatchObject({ profile: 'ik_g_b0_r3', protocol: 'GRPC' });
  });

  it('admits no client through an allowlist entry it cannot parse, and reports it', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { allowSources: ['nonsense'] } }),
    );
    expect(entry.policy?.allow).toEqual([]);
    expect(entry.action.type).toBe('forward');
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.allowSources[0]', severity: 'error', value: 'nonsense' }),
    ]);
  });

  it('compiles a mirror into the backend id the data plane copies requests to', () => {
    const { entry } = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { mirror: { backend: 'm' } } }),
    );
    expect(entry.policy?.mirror).toBe('m');
  });

  it('compiles custom errors and the no-endpoints backend into what the error locations read', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: {
          noEndpointsBackend: 'fallback',
          customErrors: {
            statuses: [404],
            backends: ['errors', 'fallback'],
            headers: [
              { name: 'X-Namespace', value: 'shop' },
              { name: 'Bad Name', value: 'x' },
            ],
          },
        },
      }),
    );
    expect(entry.policy?.emptyBackend).toBe('fallback');
    expect(entry.policy?.errors).toEqual({
      statuses: [404],
      backends: ['errors', 'fallback'],
      headers: [['X-Namespace', 'shop']],
    });
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.customErrors.headers', severity: 'warning' }),
    ]);
  });

  it('leaves out custom errors whose statuses are not 400-599, with a warning', () => {
    const { entry, issues } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { customErrors: { statuses: [200], backends: ['errors'] } },
      }),
    );
    expect(entry.policy?.errors).toBeUndefined();
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.customErrors.statuses', severity: 'warning' }),
    ]);
  });

  it('compiles HSTS into its header value, and leaves out an invalid max-age with a warning', () => {
    const hsts = (value: { maxAgeSeconds: number; includeSubdomains: boolean; preload: boolean }) =>
      compileRoute(createTestRoute('r', { action: forwardAction, policy: { hsts: value } }));
    expect(hsts({ maxAgeSeconds: 600, includeSubdomains: true, preload: true }).entry.policy?.hsts).toBe(
      'max-age=600; includeSubDomains; preload',
    );
    expect(hsts({ maxAgeSeconds: 0, includeSubdomains: false, preload: false }).entry.policy?.hsts).toBe(
      'max-age=0',
    );
    const invalid = hsts({ maxAgeSeconds: -1, includeSubdomains: false, preload: false });
    expect(invalid.entry.policy?.hsts).toBeUndefined();
    expect(invalid.issues).toEqual([
      expect.objectContaining({ field: 'policy.hsts.maxAgeSeconds', severity: 'warning' }),
    ]);
  });

  it('compiles the trailing-slash stripping of an HTTPS redirect', () => {
    const { entry } = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { redirectToHttps: { statusCode: 301, stripTrailingSlash: true } },
      }),
    );
    expect(entry.policy?.https).toEqual({ status: 301, strip: true });
  });

  it('compiles a denylist, and denies every client for an entry it cannot parse, and reports it', () => {
    const denied = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { denySources: ['10.0.0.0/8', '::1'] } }),
    );
    expect(denied.entry.policy?.deny).toEqual([
      ['0a000000', 8],
      ['00000000000000000000000000000001', 128],
    ]);
    const { entry, issues } = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { denySources: ['nonsense'] } }),
    );
    expect(entry.policy?.deny).toEqual([
      ['00000000', 0],
      ['0'.repeat(32), 0],
    ]);
    expect(entry.action.type).toBe('forward');
    expect(issues).toEqual([
      expect.objectContaining({ field: 'policy.denySources[0]', severity: 'error', value: 'nonsense' }),
    ]);
  });
});
