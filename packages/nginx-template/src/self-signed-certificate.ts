/**
 * A self-signed certificate for nginx's default certificate (served to TLS clients whose server
 * name has no binding), made with node:crypto alone so the controller needs no external tool.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import {
  encodeBitString,
  encodeBoolean,
  encodeExplicit,
  encodeImplicit,
  encodeOctetString,
  encodeOid,
  encodeSequence,
  encodeSet,
  encodeTime,
  encodeUnsignedInteger,
  encodeUtf8String,
} from './der.js';

/** Options of createSelfSignedCertificate. */
export interface SelfSignedCertificateOptions {
  /** Subject and issuer CN (and the DNS subjectAltName when it is a host name); default `ingresskit-default`. */
  commonName?: string;
  /**
   * The current time in milliseconds: the certificate is valid from an hour before it for ten
   * years. Without it the validity is fixed (1970 to 9999, RFC 5280's "no expiry"), so the result
   * does not depend on the clock.
   */
  now?: number;
}

/** A certificate and its private key, PEM. */
export interface SelfSignedCertificate {
  certificatePem: string;
  /** PKCS #8, unencrypted. */
  privateKeyPem: string;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extendedKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  subjectAltName: '2.5.29.17',
};

const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

function encodeExtension(oid: string, critical: boolean, value: Buffer): Buffer {
  return encodeSequence(encodeOid(oid), ...(critical ? [encodeBoolean(true)] : []), encodeOctetString(value));
}

function toPem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * Creates an EC P-256 key and a self-signed X.509 v3 certificate for it (ECDSA with SHA-256,
 * a random 128-bit serial, CA:FALSE, digitalSignature, serverAuth). Random by nature: each call
 * gives a new key.
 */
export function createSelfSignedCertificate(
  options: SelfSignedCertificateOptions = {},
): SelfSignedCertificate {
  const commonName = options.commonName ?? 'ingresskit-default';
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = encodeSequence(
    encodeSet(encodeSequence(encodeOid(OID.commonName), encodeUtf8String(commonName))),
  );
  const algorithm = encodeSequence(encodeOid(OID.ecdsaWithSha256));
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // a positive INTEGER of at most 20 bytes
  const notBefore = options.now === undefined ? new Date(0) : new Date(options.now - 3_600_000);
  const notAfter =
    options.now === undefined
      ? new Date(Date.UTC(9999, 11, 31, 23, 59, 59))
      : new Date(options.now + 10 * 365.25 * 86_400_000);
  const extensions = [
    encodeExtension(OID.basicConstraints, true, encodeSequence()),
    // digitalSignature only: bit 0 of the KeyUsage BIT STRING, with 7 unused bits.
    encodeExtension(OID.keyUsage, true, Buffer.from([0x03, 0x02, 0x07, 0x80])),
    encodeExtension(OID.extendedKeyUsage, false, encodeSequence(encodeOid(OID.serverAuth))),
  ];
  if (DNS_NAME.test(commonName) && isIP(commonName) === 0) {
    extensions.push(
      encodeExtension(
        OID.subjectAltName,
        false,
        encodeSequence(encodeImplicit(2, Buffer.from(commonName, 'ascii'))),
      ),
    );
  }
  const tbs = encodeSequence(
    encodeExplicit(0, encodeUnsignedInteger(Buffer.from([2]))),
    encodeUnsignedInteger(serial),
    algorithm,
    name,
    encodeSequence(encodeTime(notBefore), encodeTime(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    encodeExplicit(3, encodeSequence(...extensions)),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const certificate = encodeSequence(tbs, algorithm, encodeBitString(signature));
  return {
    certificatePem: toPem('CERTIFICATE', certificate),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  };
}
