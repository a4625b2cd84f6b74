/**
 * Backend TLS (route-model backendTls) from route to nginx.conf: the profile it makes, the route
 * data, closed routes, and a rendered nginx.conf with its CA file that passes `nginx -t`.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BackendTlsPolicy, Route } from '@ingresskit/route-model';
import { backendTlsDirectivesOf } from './backend-tls.js';
import { buildConfiguration } from './build-configuration.js';
import { compileRoute } from './compile-route.js';
import { renderNginxConf } from './render.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import { createNginxPrefix, testNginxConf } from './testing/nginx-process.js';
import {
  createListeners,
  createTestHost,
  createTestRoute,
  createTestTable,
  forwardAction,
} from './testing/routes.js';

const CA = createSelfSignedCertificate({ commonName: 'Backend CA' }).certificatePem;
const CLIENT = createSelfSignedCertificate({ commonName: 'gateway' });

function policy(overrides: Partial<BackendTlsPolicy> = {}): BackendTlsPolicy {
  return {
    caCertificatesPem: CA,
    verify: true,
    depth: 2,
    protocols: ['TLSv1.3', 'TLSv1.2'],
    ciphers: 'HIGH:!aNULL',
    serverName: 'backend.internal',
    sendServerName: true,
    clientCertificate: { certificatePem: CLIENT.certificatePem, privateKeyPem: CLIENT.privateKeyPem },
    ...overrides,
  };
}

function tlsRoute(
  id: string,
  backendTls: BackendTlsPolicy,
  backendProtocol: 'HTTPS' | 'GRPCS' | 'HTTP' = 'HTTPS',
): Route {
  return createTestRoute(id, { action: forwardAction, policy: { backendProtocol, backendTls } });
}

describe('backendTlsDirectivesOf', () => {
  it('names the CA file by its content and sorts the protocols', () => {
    const directives = backendTlsDirectivesOf(policy());
    expect(directives).toMatchObject({
      verify: true,
      depth: 2,
      protocols: 'TLSv1.2 TLSv1.3',
      ciphers: 'HIGH:!aNULL',
      sendServerName: true,
      clientCertificate: true,
      trustedCertificatePath: expect.stringMatching(/^certs\/backend-ca-[0-9a-f]{64}\.pem$/),
    });
  });

  it.each([
    ['verification without CA certificates', { caCertificatesPem: '' }],
    ['an unknown protocol', { protocols: ['TLSv1'] as unknown as BackendTlsPolicy['protocols'] }],
    ['no protocol', { protocols: [] }],
    ['a cipher list outside the grammar', { ciphers: 'HIGH; evil' }],
    ['a depth out of range', { depth: 0 }],
  ])('is closed for %s', (_, overrides) => {
    expect(backendTlsDirectivesOf(policy(overrides))).toBe('closed');
  });
});

describe('compileRoute with backendTls', () => {
  it('carries the server name and client certificate as route data', () => {
    const { entry } = compileRoute(tlsRoute('r', policy()));
    expect(entry.profile).toBe('ik_p_q1s1v11_b0_r3');
    expect(entry.policy?.backendTls).toEqual({
      name: 'backend.internal',
      cert: CLIENT.certificatePem,
      key: CLIENT.privateKeyPem,
    });
  });

  it('answers 503 for a policy that cannot be served, never plain TLS', () => {
    const { entry, issues } = compileRoute(tlsRoute('r', policy({ caCertificatesPem: '' })));
    expect(entry.action).toEqual({ type: 'respond', status: 503 });
    expect(entry.profile).toBeUndefined();
    expect(issues).toContainEqual(expect.objectContaining({ severity: 'error', field: 'policy.backendTls' }));
  });

  it('leaves a plain-HTTP backend as it was', () => {
    const { entry } = compileRoute(tlsRoute('r', policy(), 'HTTP'));
    expect(entry.profile).toBe('ik_p_q1s1v11_b0_r3');
    expect(entry.policy?.backendTls).toBeUndefined();
  });
});
