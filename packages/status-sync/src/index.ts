export { formatMicroTime } from './micro-time.js';
