export { quoteNginxString } from './quote.js';
