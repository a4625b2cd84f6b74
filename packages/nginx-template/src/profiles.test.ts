import { describe, expect, it } from 'vitest';
import { createProfile, DEFAULT_PROFILE, profileOf } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

const forward = forwardAction;

describe('profileOf', () => {
  it('gives the default profile to a forwarding route without protocol or body limit', () => {
    expect(profileOf(createTestRoute('r', { action: forward }))).toEqual(DEFAULT_PROFILE);
    expect(DEFAULT_PROFILE).toEqual({ name: 'ik_http_d', protocol: 'HTTP' });
  });

  it('names the profile from the protocol and the body limit', () => {
    expect(
      profileOf(
        createTestRoute('r', {
          action: forward,
          policy: { backendProtocol: 'GRPCS', maxBodyBytes: 1048576 },
        }),
      ),
    ).toEqual({
      name: 'ik_grpcs_b1048576',
      protocol: 'GRPCS',
      maxBodyBytes: 1048576,
    });
    expect(profileOf(createTestRoute('r', { action: forward, policy: { maxBodyBytes: 0 } }))?.name).toBe(
      'ik_http_b0',
    );
  });

  it('gives no profile to routes that do not forward', () => {
    expect(profileOf(createTestRoute('r', { policy: { backendProtocol: 'HTTPS' } }))).toBeUndefined();
  });

  it('falls back to the defaults when the protocol or the limit is invalid', () => {
    const route = createTestRoute('r', {
      action: forward,
      policy: { backendProtocol: 'FTP' as never, maxBodyBytes: 1.5 },
    });
    expect(profileOf(route)).toEqual(DEFAULT_PROFILE);
    expect(profileOf(createTestRoute('r', { action: forward, policy: { maxBodyBytes: -1 } }))).toEqual(
      DEFAULT_PROFILE,
    );
  });

  it('adds the intercepted statuses of custom errors to HTTP and HTTPS profiles, not to gRPC ones', () => {
    const customErrors = { statuses: [404, 503], backends: ['errors'] };
    expect(profileOf(createTestRoute('r', { action: forward, policy: { customErrors } }))).toEqual({
      name: 'ik_http_d_e404_e503',
      protocol: 'HTTP',
      errorStatuses: [404, 503],
    });
    const grpc = profileOf(
      createTestRoute('r', { action: forward, policy: { customErrors, backendProtocol: 'GRPC' } }),
    );
    expect(grpc?.name).toBe('ik_grpc_d');
  });

  it("makes a profile that only sends nginx's own errors for routes passing backend errors through", () => {
    const customErrors = { statuses: [404], backends: ['errors'], passBackendErrors: true };
    expect(profileOf(createTestRoute('r', { action: forward, policy: { customErrors } }))).toEqual({
      name: 'ik_http_d_e404_p',
      protocol: 'HTTP',
      errorStatuses: [404],
      passBackendErrors: true,
    });
    const none = { statuses: [302], backends: ['errors'], passBackendErrors: true };
    expect(profileOf(createTestRoute('r', { action: forward, policy: { customErrors: none } }))).toEqual(
      DEFAULT_PROFILE,
    );
  });

  it('intercepts nothing for statuses out of order or outside 400-599', () => {
    for (const statuses of [[503, 404], [302], [404, 404], []]) {
      const route = createTestRoute('r', {
        action: forward,
        policy: { customErrors: { statuses, backends: [] } },
      });
      expect(profileOf(route)).toEqual(DEFAULT_PROFILE);
    }
  });
});

describe('createProfile', () => {
  it('makes names nginx can take as named locations', () => {
    expect(createProfile('HTTPS', { maxBodyBytes: 512 }).name).toMatch(/^ik_[a-z]+_b[0-9]+$/);
  });
});
