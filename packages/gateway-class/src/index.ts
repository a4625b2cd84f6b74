export { GATEWAY_EXISTS_FINALIZER, withGatewayExistsFinalizer } from './finalizer.js';
