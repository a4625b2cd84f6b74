export { normalizeObject } from './normalize.js';
