import { describe, expect, it } from 'vitest';
import type { ClientCertificatePolicy } from '@ingresskit/route-model';
import { compileHostClientCertificate } from './compile-client-certificate.js';
import { createSelfSignedCertificate } from './self-signed-certificate.js';
import { createTestHost, createTestOrigin, createTestRoute } from './testing/routes.js';

const CA = createSelfSignedCertificate({ commonName: 'Client CA' }).certificatePem;
const OTHER_CA = createSelfSignedCertificate({ commonName: 'Other CA' }).certificatePem;

function routeWith(id: string, createdAt: number, clientCertificate?: ClientCertificatePolicy) {
  return createTestRoute(id, {
    origin: createTestOrigin(id, createdAt),
    policy: clientCertificate === undefined ? {} : { clientCertificate },
  });
}

describe('compileHostClientCertificate', () => {
  it('is undefined for a host none of whose routes asks for client certificates', () => {
    expect(compileHostClientCertificate(createTestHost('a.test', [routeWith('r', 1)]))).toBeUndefined();
  });

  it('takes the policy of the oldest route that has one, for the whole host', () => {
    const older = routeWith('older', 1, {
      caCertificatesPem: CA,
      verify: 'optional',
      depth: 2,
      errorPage: '/denied',
      passCertificate: true,
      subjectPattern: 'CN=a',
    });
    const newer = routeWith('newer', 5, { caCertificatesPem: OTHER_CA, verify: 'on', depth: 1 });
    const entry = compileHostClientCertificate(
      createTestHost('a.test', [routeWith('open', 0), newer], older),
    );
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      ca: CA,
      verify: 'optional',
      depth: 2,
      errorPage: '/denied',
      pass: true,
      subject: 'CN=a',
    });
  });

  it('gives another id when the CA changes, so sessions are verified again', () => {
    const entryOf = (ca: string) =>
      compileHostClientCertificate(
        createTestHost('a.test', [routeWith('r', 1, { caCertificatesPem: ca, verify: 'on', depth: 1 })]),
      );
    expect(entryOf(CA)?.id).toBe(entryOf(CA)?.id);
    expect(entryOf(CA)?.id).not.toBe(entryOf(OTHER_CA)?.id);
  });

  it.each([
    ['no CA', { caCertificatesPem: '', verify: 'on', depth: 1 }],
    ['a CA that is not PEM', { caCertificatesPem: 'nope', verify: 'on', depth: 1 }],
    ['an unknown mode', { caCertificatesPem: CA, verify: 'off', depth: 1 }],
    ['a depth out of range', { caCertificatesPem: CA, verify: 'on', depth: 0 }],
    ['an error page that is no URL', { caCertificatesPem: CA, verify: 'on', depth: 1, errorPage: 'x\r\ny' }],
  ])('closes the host (no CA) for %s', (_, policy) => {
    const entry = compileHostClientCertificate(
      createTestHost('a.test', [routeWith('r', 1, policy as ClientCertificatePolicy)]),
    );
    expect(entry).toEqual({ id: expect.any(String), ca: '', verify: 'on', depth: 1 });
  });
});
