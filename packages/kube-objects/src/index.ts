export * from './pure.js';
export { checkCertificateStrength } from './certificate-strength.js';
export {
  readTlsSecret,
  tlsSecretContentKey,
  type TlsCertificate,
  type TlsSecretResult,
} from './tls-secret.js';
