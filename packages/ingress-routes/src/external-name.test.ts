import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_ADDRESS_POLICY } from '@ingresskit/route-model';
import { pinExternalName } from './external-name.js';

const policy = DEFAULT_BACKEND_ADDRESS_POLICY;
const external = {
  id: 'tenant/api:443',
  endpoints: [],
  externalName: { hostname: 'api.example.com', port: 443 },
};

describe('pinExternalName', () => {
  it('pins the name to the addresses it resolved to, sorted and without repeats', () => {
    const pinned = pinExternalName(
      external,
      { addresses: ['203.0.113.9', '198.51.100.7', '203.0.113.9'] },
      policy,
    );
    expect(pinned).toEqual({
      backend: {
        ...external,
        endpoints: [
          { address: '198.51.100.7', port: 443 },
          { address: '203.0.113.9', port: 443 },
        ],
      },
    });
  });

  it('leaves out the addresses the policy refuses, and says so', () => {
    const pinned = pinExternalName(external, { addresses: ['127.0.0.1', '198.51.100.7'] }, policy);
    expect(pinned.backend.endpoints).toEqual([{ address: '198.51.100.7', port: 443 }]);
    expect(pinned.problem).toBe(
      'spec.externalName api.example.com resolves to addresses a backend may not point at (127.0.0.1 is a loopback address); the other addresses are used',
    );
    expect(pinned.problemCode).toBe('backend-address-refused');
  });

  it('gives no target when every address is refused, the name does not resolve, or is not resolved yet', () => {
    const rebound = pinExternalName(external, { addresses: ['169.254.169.254'] }, policy);
    expect(rebound.backend).toEqual({ id: 'tenant/api:443', endpoints: [] });
    expect(rebound.problem).toContain('169.254.169.254 is a link-local address); requests get 503');
    const missing = pinExternalName(external, { error: 'ENOTFOUND' }, policy);
    expect(missing).toEqual({
      backend: { id: 'tenant/api:443', endpoints: [] },
      problem: 'spec.externalName api.example.com does not resolve (ENOTFOUND); requests get 503',
      problemCode: 'external-name-unresolved',
    });
    expect(rebound.problemCode).toBe('backend-address-refused');
    expect(pinExternalName(external, undefined, policy).problem).toContain('is not resolved yet');
  });

  it('pins an IP literal to itself without resolving, and leaves other backends alone', () => {
    const literal = { ...external, externalName: { hostname: '198.51.100.7', port: 443 } };
    expect(pinExternalName(literal, undefined, policy).backend.endpoints).toEqual([
      { address: '198.51.100.7', port: 443 },
    ]);
    const balanced = { id: 'tenant/web:80', endpoints: [{ address: '10.0.0.1', port: 8080 }] };
    expect(pinExternalName(balanced, undefined, policy)).toEqual({ backend: balanced });
  });
});
