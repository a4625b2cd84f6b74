import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SecretLike } from '@ingresskit/kube-objects';
import { isReferencedObjectProblem } from './translate-tls.js';
import { translateIngress } from './translate-ingress.js';
import {
  A,
  ingress,
  opaqueSecret,
  path,
  readTlsFixture,
  secrets,
  translateAnnotated,
} from './testing/fixtures.js';

/** Any certificate does as a CA here; the translation writes it back in canonical PEM. */
const CA = new X509Certificate(
  readFileSync(new URL('../testdata/tls/other.crt', import.meta.url)),
).toString();
const CLIENT = { 'tls.crt': readTlsFixture('secure.crt'), 'tls.key': readTlsFixture('secure.key') };

function translateWith(annotations: Record<string, string>, ...list: SecretLike[]) {
  const { result, policy } = translateAnnotated({ 'backend-protocol': 'HTTPS', ...annotations }, ...list);
  return { result, tls: policy?.backendTls };
}

describe('translateIngress with proxy-ssl-secret', () => {
  it('reads ca.crt with ingress-nginx defaults: no verification, TLSv1.2, DEFAULT ciphers, no SNI', () => {
    const { result, tls } = translateWith(
      { 'proxy-ssl-secret': 'default/backend' },
      opaqueSecret('backend', { 'ca.crt': CA }),
    );
    expect(result.problems).toEqual([]);
    expect(tls).toEqual({
      caCertificatesPem: CA,
      verify: false,
      depth: 1,
      protocols: ['TLSv1.2'],
      ciphers: 'DEFAULT',
      sendServerName: false,
    });
    expect(result.references.secrets).toEqual(['default/backend']);
  });

  it('carries every proxy-ssl setting and the client certificate of tls.crt and tls.key', () => {
    const { tls } = translateWith(
      {
        'proxy-ssl-secret': 'backend',
        'proxy-ssl-verify': 'on',
        'proxy-ssl-verify-depth': '2',
        'proxy-ssl-protocols': 'TLSv1.3 TLSv1.2',
        'proxy-ssl-ciphers': 'HIGH:!aNULL',
        'proxy-ssl-name': 'backend.internal',
        'proxy-ssl-server-name': 'on',
      },
      opaqueSecret('backend', { 'ca.crt': CA, ...CLIENT }),
    );
    expect(tls).toMatchObject({
      caCertificatesPem: CA,
      verify: true,
      depth: 2,
      protocols: ['TLSv1.2', 'TLSv1.3'],
      ciphers: 'HIGH:!aNULL',
      serverName: 'backend.internal',
      sendServerName: true,
      clientCertificate: {
        certificatePem: expect.stringContaining('BEGIN CERTIFICATE'),
        privateKeyPem: expect.stringContaining('BEGIN PRIVATE KEY'),
      },
    });
  });

  it.each([
    ['a missing Secret', [], 'default/backend not found'],
    ['no ca.crt', [opaqueSecret('backend', CLIENT)], 'no key "ca.crt"'],
    [
      'a tls.key without its tls.crt',
      [opaqueSecret('backend', { 'ca.crt': CA, 'tls.key': CLIENT['tls.key'] })],
      'must hold tls.crt and tls.key',
    ],
  ])(
    'closes the routes (verification without a CA) with a referenced-object error for %s',
    (_, list, message) => {
      const { result, tls } = translateWith({ 'proxy-ssl-secret': 'backend' }, ...list);
      expect(tls).toMatchObject({ caCertificatesPem: '', verify: true });
      const [problem] = result.problems;
      expect(problem).toMatchObject({
        severity: 'error',
        field: `metadata.annotations["${A}proxy-ssl-secret"]`,
      });
      expect(problem?.message).toContain(message);
      expect(problem?.message).toContain('gets 503');
      expect(isReferencedObjectProblem(problem!)).toBe(true);
    },
  );

  it.each([
    ['proxy-ssl-verify', 'yes'],
    ['proxy-ssl-verify-depth', 'deep'],
    ['proxy-ssl-protocols', 'TLSv1 TLSv1.2'],
    ['proxy-ssl-ciphers', 'HIGH; include /etc/passwd'],
    ['proxy-ssl-ciphers', 'NO-SUCH-CIPHER'],
    ['proxy-ssl-ciphers', 'TLS_AES_128_GCM_SHA256'],
    ['proxy-ssl-name', 'not a name'],
    ['proxy-ssl-server-name', 'true'],
  ])('leaves the Ingress out for %s %j', (name, value) => {
    const { result } = translateWith(
      { 'proxy-ssl-secret': 'backend', [name]: value },
      opaqueSecret('backend', { 'ca.crt': CA }),
    );
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toContainEqual(
      expect.objectContaining({ field: `metadata.annotations["${A}${name}"]`, severity: 'error' }),
    );
  });

  it('warns that proxy-ssl-* do nothing without proxy-ssl-secret, or towards a plain-HTTP backend', () => {
    expect(translateWith({ 'proxy-ssl-verify': 'on' }).result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: 'annotation "proxy-ssl-verify" has no effect without proxy-ssl-secret',
      }),
    ]);
    const plain = translateWith(
      { 'backend-protocol': 'HTTP', 'proxy-ssl-secret': 'backend' },
      opaqueSecret('backend', { 'ca.crt': CA }),
    );
    expect(plain.result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining('without backend-protocol HTTPS or GRPCS'),
      }),
    ]);
  });

  it('needs proxy-ssl-name to verify the backend of a wildcard or catch-all host', () => {
    const translate = (hosts: string[], annotations: Record<string, string> = {}) =>
      translateIngress(
        ingress('shop', Object.fromEntries(hosts.map((host) => [host, [path('/', 'Prefix', 'app')]])), {
          annotations: Object.fromEntries(
            Object.entries({
              'backend-protocol': 'HTTPS',
              'proxy-ssl-secret': 'backend',
              'proxy-ssl-verify': 'on',
              ...annotations,
            }).map(([name, value]) => [`${A}${name}`, value]),
          ),
        }),
        secrets(opaqueSecret('backend', { 'ca.crt': CA })),
      ).problems ?? [];
    expect(translate(['*.shop.test', 'shop.test'])).toEqual([
      expect.objectContaining({
        field: `metadata.annotations["${A}proxy-ssl-name"]`,
        severity: 'error',
        message: expect.stringContaining('*.shop.test'),
      }),
    ]);
    expect(translate(['shop.test'])).toEqual([]);
    expect(translate(['*.shop.test'], { 'proxy-ssl-name': 'backend.internal' })).toEqual([]);
    expect(translate(['*.shop.test'], { 'upstream-vhost': 'backend.internal' })).toEqual([]);
  });
});
