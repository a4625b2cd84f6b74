import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { DetailedPeerCertificate } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { countIntermediates, readTrustAnchors, refuseBackend } from './tls-relay-verification.js';

/** A certificate of testdata/chains (made by its make-chains.sh), PEM. */
function pemOf(name: string): string {
  return readFileSync(new URL(`../testdata/chains/${name}.pem`, import.meta.url), 'utf8');
}

/**
 * `names` as getPeerCertificate(true) gives them (Node 22 and 24): one object per element, even
 * for the same certificate twice, each linked to the next; the last linked to itself when Node
 * found it self-issued (`self-link`), else to nothing (`open`).
 */
function nodeChain(names: string[], end: 'self-link' | 'open'): DetailedPeerCertificate {
  const elements = names.map((name): Record<string, unknown> => {
    const certificate = new X509Certificate(pemOf(name));
    return { raw: certificate.raw, fingerprint256: certificate.fingerprint256 };
  });
  elements.forEach((element, index) => {
    const issuer = elements[index + 1];
    if (issuer !== undefined) element.issuerCertificate = issuer;
    else if (end === 'self-link') element.issuerCertificate = element;
  });
  return elements[0] as unknown as DetailedPeerCertificate;
}

const root = readTrustAnchors(pemOf('root'));

describe('countIntermediates', () => {
  it('counts none for a self-signed certificate that is its own CA, however Node links it', () => {
    const ownCa = readTrustAnchors(pemOf('self-signed'));
    // Without keyCertSign, Node adds the CA certificates' copy of it twice and no self-link.
    expect(countIntermediates(nodeChain(['self-signed', 'self-signed', 'self-signed'], 'open'), ownCa)).toBe(
      0,
    );
    expect(countIntermediates(nodeChain(['self-signed'], 'self-link'), ownCa)).toBe(0);
    // A self-signed CA certificate used as the backend's: Node links it to itself.
    expect(countIntermediates(nodeChain(['root'], 'self-link'), root)).toBe(0);
  });

  it('counts none for a certificate the trusted CA signed, whether or not the backend sends the root', () => {
    expect(countIntermediates(nodeChain(['leaf', 'root'], 'self-link'), root)).toBe(0);
  });

  it('counts the intermediates between the certificate and the root', () => {
    expect(countIntermediates(nodeChain(['chained', 'first', 'root'], 'self-link'), root)).toBe(1);
    expect(countIntermediates(nodeChain(['deep', 'second', 'first', 'root'], 'self-link'), root)).toBe(2);
  });

  it('ends the chain at a copy of the root another CA signed, as OpenSSL takes the trusted root instead', () => {
    expect(countIntermediates(nodeChain(['chained', 'first', 'root-cross'], 'open'), root)).toBe(1);
    expect(
      countIntermediates(nodeChain(['chained', 'first', 'root-cross', 'other-root'], 'self-link'), root),
    ).toBe(1);
  });

  it('counts a trusted CA certificate that is not self-signed as an intermediate, as OpenSSL does', () => {
    const rootAndFirst = readTrustAnchors(pemOf('root') + pemOf('first'));
    expect(countIntermediates(nodeChain(['chained', 'first', 'root'], 'self-link'), rootAndFirst)).toBe(1);
  });

  it('counts every certificate after the backend’s when none is an anchor', () => {
    const other = readTrustAnchors(pemOf('other-root'));
    expect(countIntermediates(nodeChain(['chained', 'first', 'root'], 'self-link'), other)).toBe(2);
    expect(countIntermediates(nodeChain(['chained', 'first'], 'open'), other)).toBe(1);
  });

  it('reads an empty certificate (no peer) as none', () => {
    expect(countIntermediates({} as DetailedPeerCertificate, root)).toBe(0);
  });
});

describe('readTrustAnchors', () => {
  it('takes the self-signed certificates of a bundle and skips what does not parse', () => {
    const bundle = readTrustAnchors(
      `${pemOf('first')}-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n${pemOf('root')}`,
    );
    expect(bundle.includes(new X509Certificate(pemOf('root')))).toBe(true);
    expect(bundle.includes(new X509Certificate(pemOf('root-cross')))).toBe(true);
    expect(bundle.includes(new X509Certificate(pemOf('first')))).toBe(false);
    expect(bundle.includes(new X509Certificate(pemOf('other-root')))).toBe(false);
  });
});

describe('refuseBackend', () => {
  const verify = { name: 'backend.internal', depth: 1, anchors: root };

  it('refuses a chain its CA certificates do not verify', () => {
    expect(
      refuseBackend(verify, {
        authorized: false,
        authorizationError: 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
        peer: nodeChain(['leaf'], 'open'),
      }),
    ).toBe('certificate verify error: UNABLE_TO_GET_ISSUER_CERT_LOCALLY');
  });

  it('refuses more intermediates than the depth, as nginx with OpenSSL counts them', () => {
    const oneIntermediate = nodeChain(['chained', 'first', 'root'], 'self-link');
    const twoIntermediates = nodeChain(['deep', 'second', 'first', 'root'], 'self-link');
    expect(refuseBackend({ ...verify, depth: 0 }, { authorized: true, peer: oneIntermediate })).toBe(
      'certificate chain too long: 1 intermediate certificates, at most 0',
    );
    expect(refuseBackend(verify, { authorized: true, peer: oneIntermediate })).toBeUndefined();
    expect(refuseBackend(verify, { authorized: true, peer: twoIntermediates })).toBe(
      'certificate chain too long: 2 intermediate certificates, at most 1',
    );
    expect(
      refuseBackend({ ...verify, depth: 2 }, { authorized: true, peer: twoIntermediates }),
    ).toBeUndefined();
  });

  it('takes a self-signed certificate that is its own CA at depth 0', () => {
    const ownCa = { ...verify, depth: 0, anchors: readTrustAnchors(pemOf('self-signed')) };
    const peer = nodeChain(['self-signed', 'self-signed', 'self-signed'], 'open');
    expect(refuseBackend(ownCa, { authorized: true, peer })).toBeUndefined();
  });

  it('refuses a certificate that does not name the server', () => {
    const peer = nodeChain(['leaf', 'root'], 'self-link');
    expect(refuseBackend(verify, { authorized: true, peer })).toBeUndefined();
    expect(refuseBackend({ ...verify, name: 'other.internal' }, { authorized: true, peer })).toBe(
      'certificate does not name other.internal',
    );
  });

  it('refuses a backend without a certificate or with one it cannot read', () => {
    expect(refuseBackend(verify, { authorized: true, peer: {} as DetailedPeerCertificate })).toBe(
      'no certificate',
    );
    const unreadable = { raw: Buffer.from('not a certificate') } as unknown as DetailedPeerCertificate;
    expect(refuseBackend(verify, { authorized: true, peer: unreadable })).toMatch(
      /^certificate unreadable: /,
    );
  });
});
