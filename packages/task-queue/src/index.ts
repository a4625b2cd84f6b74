export { objectKey, splitObjectKey, type ObjectWithMetadata } from './keys.js';
