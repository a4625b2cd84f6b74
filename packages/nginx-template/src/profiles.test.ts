import { describe, expect, it } from 'vitest';
import type { Route } from '@ingresskit/route-model';
import {
  createProfileCatalogue,
  DEFAULT_CATALOGUE,
  DEFAULT_PROFILE,
  DEFAULT_PROFILES,
  INTERCEPTABLE_STATUSES,
  profileOf,
} from './index.js';
import { isValidErrorStatuses } from './profiles.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

const forward = forwardAction;

function profileNameOf(policy: Route['policy']): string | undefined {
  return profileOf(createTestRoute('r', { action: forward, policy }))?.name;
}

const PROFILES = DEFAULT_CATALOGUE.profiles;

describe('createProfileCatalogue', () => {
  it('is a fixed catalogue of unique names nginx can take as named locations', () => {
    const names = PROFILES.map((profile) => profile.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^ik_(?:p_q[01]s[01]v1[01]|g)_b\d+_r\d+$/);
    // proxy: 2 request buffering x 2 response buffering x 2 HTTP versions x 4 buffers x 3 retries; gRPC: 4 x 3.
    expect(names).toHaveLength(96 + 12);
    expect(names).toEqual([...names].sort());
    expect(createProfileCatalogue()).toBe(DEFAULT_CATALOGUE);
  });

  it('holds the defaults of both families', () => {
    expect(PROFILES).toContainEqual(DEFAULT_PROFILES.proxy);
    expect(PROFILES).toContainEqual(DEFAULT_PROFILES.grpc);
    expect(DEFAULT_PROFILE.name).toBe('ik_p_q1s1v11_b0_r3');
  });

  it("adds the operator's retry set and drops buffer sizes the operator's default holds", () => {
    const catalogue = createProfileCatalogue({
      headerBufferBytes: 32768,
      retryOn: ['error', 'timeout', 'http_503'],
    });
    expect(catalogue.headerBuffers).toEqual([0, 131072, 1048576]);
    expect(catalogue.retrySets).toEqual([3, 115, 127, 35]);
    expect(catalogue.defaults.proxy.name).toBe('ik_p_q1s1v11_b0_r35');
    expect(catalogue.profiles).toHaveLength(8 * 3 * 4 + 3 * 4);
  });
});

describe('profileOf', () => {
  it('gives the default profile to a forwarding route that sets no directive', () => {
    expect(profileOf(createTestRoute('r', { action: forward }))).toEqual(DEFAULT_PROFILE);
  });

  it('gives no profile to routes that do not forward', () => {
    expect(profileOf(createTestRoute('r', { policy: { backendProtocol: 'HTTPS' } }))).toBeUndefined();
  });

  it('takes HTTP and HTTPS to proxy profiles, gRPC to grpc ones', () => {
    expect(profileNameOf({ backendProtocol: 'HTTPS' })).toBe('ik_p_q1s1v11_b0_r3');
    expect(profileNameOf({ backendProtocol: 'GRPCS' })).toBe('ik_g_b0_r3');
  });

  it('keeps body limits, timeouts and other numbers a tenant chooses out of the profile', () => {
    for (const maxBodyBytes of [0, 1, 3001 * 1024, 1024 ** 4]) {
      expect(profileNameOf({ maxBodyBytes })).toBe(DEFAULT_PROFILE.name);
    }
    expect(profileNameOf({ upstreamSettings: { retryTimeoutSeconds: 7, buffersNumber: 9 } })).toBe(
      DEFAULT_PROFILE.name,
    );
  });

  it('takes buffering and the HTTP version as written', () => {
    expect(
      profileNameOf({
        upstreamSettings: { requestBuffering: false, responseBuffering: false, httpVersion: '1.0' },
      }),
    ).toBe('ik_p_q0s0v10_b0_r3');
  });

  it('rounds a header buffer up to the next class, and takes the largest for more', () => {
    expect(profileNameOf({ upstreamSettings: { bufferSizeBytes: 8192 } })).toBe('ik_p_q1s1v11_b16384_r3');
    expect(profileNameOf({ upstreamSettings: { bufferSizeBytes: 131072 } })).toBe('ik_p_q1s1v11_b131072_r3');
    expect(profileNameOf({ upstreamSettings: { bufferSizeBytes: 262144 } })).toBe('ik_p_q1s1v11_b1048576_r3');
    // Out of range counts as absent.
    expect(profileNameOf({ upstreamSettings: { bufferSizeBytes: 512 } })).toBe(DEFAULT_PROFILE.name);
  });

  it('retries on the largest set within what the route asks for, never on an answer it did not list', () => {
    expect(
      profileNameOf({
        upstreamSettings: { retryOn: ['error', 'timeout', 'http_502', 'http_503', 'http_504'] },
      }),
    ).toBe('ik_p_q1s1v11_b0_r115');
    const all = [
      'error',
      'timeout',
      'invalid_header',
      'http_500',
      'http_502',
      'http_503',
      'http_504',
    ] as const;
    expect(profileNameOf({ upstreamSettings: { retryOn: [...all, 'http_404'] } })).toBe(
      'ik_p_q1s1v11_b0_r127',
    );
    expect(profileNameOf({ upstreamSettings: { retryOn: ['error', 'http_502'] } })).toBe(
      'ik_p_q1s1v11_b0_r3',
    );
    expect(profileNameOf({ upstreamSettings: { retryOn: [] } })).toBe('ik_p_q1s1v11_b0_r3');
  });

  it('gives every route one of the catalogue, whatever its values', () => {
    const names = new Set(PROFILES.map((profile) => profile.name));
    for (let size = 0; size < 80; size++) {
      const name = profileNameOf({
        maxBodyBytes: 3001 * 1024 + size,
        customErrors: { statuses: [400 + size], backends: ['e'] },
        upstreamSettings: { bufferSizeBytes: 1024 + size * 997, retryTimeoutSeconds: size },
      });
      expect(names.has(name!)).toBe(true);
    }
  });
});

describe('isValidErrorStatuses', () => {
  it('takes ascending unique statuses nginx can intercept', () => {
    expect(isValidErrorStatuses([404, 503])).toBe(true);
    for (const statuses of [[503, 404], [302], [404, 404], [], [499], [404, 499]]) {
      expect(isValidErrorStatuses(statuses)).toBe(false);
    }
  });

  it('leaves 499 out of the statuses nginx can intercept', () => {
    expect(INTERCEPTABLE_STATUSES).toHaveLength(199);
    expect(INTERCEPTABLE_STATUSES).not.toContain(499);
  });
});

describe('createProfileCatalogue with retry-non-idempotent', () => {
  it('gives every fixed retry set its non_idempotent variant, so routes keep the condition', () => {
    const catalogue = createProfileCatalogue({ retryOn: ['error', 'timeout', 'non_idempotent'] });
    const gateway = ['error', 'timeout', 'http_502', 'http_503', 'http_504', 'non_idempotent'] as const;
    const route = createTestRoute('r', {
      action: forward,
      policy: { upstreamSettings: { retryOn: [...gateway] } },
    });
    expect(profileOf(route, catalogue)?.retry).toBe(115 | 1024);
    expect(catalogue.defaults.proxy.retry).toBe(3 | 1024);
  });
});
