export * from './pure.js';
export { secretConfigId, type SecretLike } from './secret-config-id.js';
export type { SecretDataLike } from './certificate.js';
