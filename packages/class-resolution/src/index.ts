export { isValidControllerName } from './controller-name.js';
