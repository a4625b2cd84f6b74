import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Ingress, V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ingressConfigId, secretConfigId, type IngressLike, type SecretLike } from './index.js';

const tls = join(import.meta.dirname, '..', 'testdata', 'tls');
const read = (file: string) => readFileSync(join(tls, file), 'utf8');
const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

// Self-signed certificates generated once with `openssl req -x509 -newkey ec ...`; the expected
// values were computed independently with `openssl x509 -in <file> -outform der | sha1sum`.
const shopCrt = read('shop.crt');
const shopKey = read('shop.key');
const caCrt = read('ca.crt');
const caKey = read('ca.key');
const shopSha1 = '1a8eb2a1c81cae9d07f19b1d5ba752c2685bef73';
const caSha1 = 'e0f964d16626cf92b17bc62d79ccfca6fb289529';

function ingress(
  name: string | undefined,
  version?: string,
  prefix = 'nginx.ingress.kubernetes.io',
): IngressLike {
  return {
    metadata: {
      name,
      namespace: 'shop',
      annotations: version === undefined ? {} : { [`${prefix}/version`]: version },
    },
  };
}

function secret(name: string, version: string | undefined, data: Record<string, string>): SecretLike {
  return {
    metadata: {
      name,
      namespace: 'shop',
      annotations: version === undefined ? undefined : { 'nginx.ingress.kubernetes.io/version': version },
    },
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, base64(value)])),
  };
}

describe('ingressConfigId', () => {
  it('joins the name suffix and the version when both are integers', () => {
    expect(ingressConfigId(ingress('alibaba-taobao-com-27555', '1'))).toEqual({ id: '27555-1' });
  });

  it('accepts a typed client object', () => {
    const typed: V1Ingress = {
      metadata: {
        name: 'alibaba-dt-com-123992',
        annotations: { 'nginx.ingress.kubernetes.io/version': '1' },
      },
    };
    expect(ingressConfigId(typed).id).toBe('123992-1');
  });

  it('reads the version under a configured annotation prefix', () => {
    const custom = ingress('web-7', '3', 'example.com');
    expect(ingressConfigId(custom, { annotationPrefix: 'example.com' })).toEqual({ id: '7-3' });
    expect(ingressConfigId(custom)).toMatchObject({ id: undefined, reason: 'no-version' });
  });

  it('prints both numbers the way Go does when they have signs or leading zeros', () => {
    expect(ingressConfigId(ingress('foo-007', '+02')).id).toBe('7-2');
    expect(ingressConfigId(ingress('foo-5', '-1')).id).toBe('5--1');
    expect(ingressConfigId(ingress('foo-9223372036854775807', '1')).id).toBe('9223372036854775807-1');
  });

  it('uses the number after the last dash when the name has several', () => {
    expect(ingressConfigId(ingress('a-1-b-22', '4')).id).toBe('22-4');
    expect(ingressConfigId(ingress('a--5', '4')).id).toBe('5-4');
  });

  it('skips with no-version when the annotation is missing', () => {
    const result = ingressConfigId(ingress('web-1'));
    expect(result).toEqual({
      id: undefined,
      reason: 'no-version',
      message: expect.stringContaining('Ingress shop/web-1'),
    });
    expect(result.id === undefined && result.message).toContain('nginx.ingress.kubernetes.io/version');
    expect(ingressConfigId({})).toMatchObject({ id: undefined, reason: 'no-version' });
  });

  it('skips with invalid-version when the version is not a Go integer', () => {
    for (const version of ['1.0', 'v1', ' 1', '1 ', '', '0x10', '1_000', '9223372036854775808']) {
      expect(ingressConfigId(ingress('web-1', version))).toMatchObject({
        id: undefined,
        reason: 'invalid-version',
      });
    }
  });

  it('skips with zero-version when the version is 0 in any spelling', () => {
    for (const version of ['0', '-0', '+000']) {
      const result = ingressConfigId(ingress('web-1', version));
      expect(result).toMatchObject({ id: undefined, reason: 'zero-version' });
    }
  });

  it('skips with no-numeric-suffix when the name has no dash', () => {
    expect(ingressConfigId(ingress('web', '1'))).toEqual({
      id: undefined,
      reason: 'no-numeric-suffix',
      message: expect.stringContaining('Ingress shop/web '),
    });
  });

  it('skips with no-numeric-suffix when the text after the last dash is not an integer', () => {
    for (const name of ['web-abc', 'web-1a', 'web-12-x', 'web-99999999999999999999']) {
      expect(ingressConfigId(ingress(name, '1'))).toMatchObject({
        id: undefined,
        reason: 'no-numeric-suffix',
      });
    }
  });

  it('skips with no-numeric-suffix when the object has no name', () => {
    expect(ingressConfigId(ingress(undefined, '1'))).toMatchObject({
      id: undefined,
      reason: 'no-numeric-suffix',
      message: expect.stringContaining('(unnamed)'),
    });
  });

  it('checks the version before the name, as Tengine does', () => {
    expect(ingressConfigId(ingress('web', '0'))).toMatchObject({ reason: 'zero-version' });
  });

  it('leaves the object as it was', () => {
    const input = ingress('web-1', '2');
    const copy = structuredClone(input);
    ingressConfigId(input);
    expect(input).toEqual(copy);
  });
});

describe('secretConfigId', () => {
  it('appends the sha1 of the leaf certificate DER when tls.crt and tls.key are in data', () => {
    const result = secretConfigId(
      secret('alibaba-com-ecc-118', '5792', { 'tls.crt': shopCrt, 'tls.key': shopKey }),
    );
    expect(result).toEqual({ id: `118-5792-${shopSha1}`, certificate: 'leaf' });
  });

  it('reads stringData, which wins over data like on the API server', () => {
    const typed: V1Secret = {
      metadata: { name: 'cert-4', annotations: { 'nginx.ingress.kubernetes.io/version': '2' } },
      data: { 'tls.crt': base64(caCrt), 'tls.key': base64(caKey) },
      stringData: { 'tls.crt': shopCrt, 'tls.key': shopKey },
    };
    expect(secretConfigId(typed).id).toBe(`4-2-${shopSha1}`);
  });

  it('hashes only the first certificate when tls.crt holds a chain', () => {
    const chain = secret('cert-4', '2', { 'tls.crt': `${shopCrt}${caCrt}`, 'tls.key': shopKey });
    expect(secretConfigId(chain).id).toBe(`4-2-${shopSha1}`);
    const reversed = secret('cert-4', '2', { 'tls.crt': `${caCrt}${shopCrt}`, 'tls.key': caKey });
    expect(secretConfigId(reversed).id).toBe(`4-2-${caSha1}`);
  });

  it('keeps a CA-only Secret with an empty sha1, as Tengine does', () => {
    expect(secretConfigId(secret('client-ca-9', '1', { 'ca.crt': caCrt }))).toEqual({
      id: '9-1-',
      certificate: 'ca-only',
    });
  });

  it('accepts a valid ca.crt next to the key pair', () => {
    const withCa = secret('cert-4', '2', { 'tls.crt': shopCrt, 'tls.key': shopKey, 'ca.crt': caCrt });
    expect(secretConfigId(withCa).id).toBe(`4-2-${shopSha1}`);
  });

  it('skips with no-certificate when the Secret holds no certificate', () => {
    expect(secretConfigId(secret('basic-auth-3', '1', { auth: 'user:hash' }))).toEqual({
      id: undefined,
      reason: 'no-certificate',
      message: expect.stringContaining('Secret shop/basic-auth-3'),
    });
    expect(secretConfigId(secret('lone-cert-3', '1', { 'tls.crt': shopCrt }))).toMatchObject({
      reason: 'no-certificate',
    });
  });

  it('skips with invalid-certificate when tls.crt does not parse', () => {
    const cases = [
      { 'tls.crt': 'not a certificate', 'tls.key': shopKey },
      { 'tls.crt': '', 'tls.key': shopKey },
      { 'tls.crt': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', 'tls.key': shopKey },
      // Tengine requires the first PEM block of tls.crt to be the certificate.
      { 'tls.crt': `${shopKey}${shopCrt}`, 'tls.key': shopKey },
    ];
    for (const data of cases) {
      expect(secretConfigId(secret('cert-4', '2', data))).toMatchObject({
        id: undefined,
        reason: 'invalid-certificate',
      });
    }
  });

  it('skips with invalid-certificate when ca.crt does not parse', () => {
    expect(secretConfigId(secret('client-ca-9', '1', { 'ca.crt': 'garbage' }))).toMatchObject({
      reason: 'invalid-certificate',
    });
    const badCa = { 'tls.crt': shopCrt, 'tls.key': shopKey, 'ca.crt': 'garbage' };
    expect(secretConfigId(secret('cert-4', '2', badCa))).toMatchObject({ reason: 'invalid-certificate' });
  });

  it('skips with invalid-key-pair when the key does not match or does not parse', () => {
    expect(secretConfigId(secret('cert-4', '2', { 'tls.crt': shopCrt, 'tls.key': caKey }))).toMatchObject({
      id: undefined,
      reason: 'invalid-key-pair',
    });
    expect(secretConfigId(secret('cert-4', '2', { 'tls.crt': shopCrt, 'tls.key': 'nope' }))).toMatchObject({
      reason: 'invalid-key-pair',
    });
  });

  it('applies the Ingress skip rules before looking at the certificate', () => {
    const pair = { 'tls.crt': shopCrt, 'tls.key': shopKey };
    expect(secretConfigId(secret('cert-4', undefined, pair))).toMatchObject({ reason: 'no-version' });
    expect(secretConfigId(secret('cert-4', 'x', pair))).toMatchObject({ reason: 'invalid-version' });
    expect(secretConfigId(secret('cert-4', '0', pair))).toMatchObject({ reason: 'zero-version' });
    expect(secretConfigId(secret('cert', '1', pair))).toMatchObject({ reason: 'no-numeric-suffix' });
    expect(secretConfigId(secret('cert', undefined, { auth: 'x' }))).toMatchObject({ reason: 'no-version' });
  });

  it('reads the version under a configured prefix, such as the one in the Tengine docs sample', () => {
    const docs: SecretLike = {
      metadata: { name: 'alibaba-com-ecc-118', annotations: { 'fs.ingress.alibaba/version': '5792' } },
      stringData: { 'tls.crt': shopCrt, 'tls.key': shopKey },
    };
    expect(secretConfigId(docs)).toMatchObject({ reason: 'no-version' });
    expect(secretConfigId(docs, { annotationPrefix: 'fs.ingress.alibaba' }).id).toBe(`118-5792-${shopSha1}`);
  });
});
