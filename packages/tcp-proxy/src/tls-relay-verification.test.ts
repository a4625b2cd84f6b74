import { describe, expect, it } from 'vitest';
import type { DetailedPeerCertificate } from 'node:tls';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { countIntermediates, refuseBackend } from './tls-relay-verification.js';

/** A chain as getPeerCertificate(true) gives it: `length` certificates, the last self-issued when `anchored`. */
function chain(length: number, anchored = true, raw?: Buffer): DetailedPeerCertificate {
  const certificates: Record<string, unknown>[] = Array.from({ length }, (_, index) => ({
    subject: { CN: `c${index}` },
  }));
  certificates.forEach((certificate, index) => {
    const issuer = certificates[index + 1];
    if (issuer !== undefined) certificate.issuerCertificate = issuer;
    else if (anchored) certificate.issuerCertificate = certificate;
  });
  if (raw !== undefined) certificates[0]!.raw = raw;
  return certificates[0] as unknown as DetailedPeerCertificate;
}

const BACKEND = createSelfSignedCertificate({ commonName: 'backend.internal' }).certificatePem;
const RAW = Buffer.from(BACKEND.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

describe('countIntermediates', () => {
  it('counts the certificates between the backend and the trust anchor', () => {
    expect(countIntermediates(chain(1))).toBe(0);
    expect(countIntermediates(chain(2))).toBe(0);
    expect(countIntermediates(chain(3))).toBe(1);
    expect(countIntermediates(chain(5))).toBe(3);
  });

  it('counts every issuer when no anchor was found', () => {
    expect(countIntermediates(chain(3, false))).toBe(2);
  });

  it('reads an empty certificate (no peer) as none', () => {
    expect(countIntermediates({} as DetailedPeerCertificate)).toBe(0);
  });
});

describe('refuseBackend', () => {
  const verify = { name: 'backend.internal', depth: 1 };

  it('refuses a chain its CA certificates do not verify', () => {
    expect(
      refuseBackend(verify, {
        authorized: false,
        authorizationError: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        peer: chain(2, true, RAW),
      }),
    ).toBe('certificate verify error: UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
  });

  it('refuses more intermediates than the depth, as OpenSSL counts them', () => {
    expect(refuseBackend(verify, { authorized: true, peer: chain(3, true, RAW) })).toBeUndefined();
    expect(refuseBackend(verify, { authorized: true, peer: chain(4, true, RAW) })).toMatch(
      /chain too long: 2 intermediate certificates, at most 1/,
    );
  });

  it('refuses a certificate that does not name the server', () => {
    expect(refuseBackend(verify, { authorized: true, peer: chain(1, true, RAW) })).toBeUndefined();
    expect(
      refuseBackend({ ...verify, name: 'other.internal' }, { authorized: true, peer: chain(1, true, RAW) }),
    ).toBe('certificate does not name other.internal');
  });
});
