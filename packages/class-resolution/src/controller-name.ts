// Gateway API `GatewayController` grammar: a DNS-subdomain domain, a slash, then a non-empty path
// (gateway-api apis/v1/gatewayclass_types.go, v1.6.1).
const CONTROLLER_NAME_PATTERN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;
const MAX_CONTROLLER_NAME_LENGTH = 253;

/** True when `name` is a valid Gateway API controllerName, e.g. `ingresskit.dev/gateway-controller`. */
export function isValidControllerName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_CONTROLLER_NAME_LENGTH && CONTROLLER_NAME_PATTERN.test(name);
}
