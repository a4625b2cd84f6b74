export { computeChecksum } from './compute.js';
