import { describe, expect, it } from 'vitest';
import { isOwnGatewayClass, type GatewayClassLike } from './index.js';

const controllerName = 'ingresskit.dev/gateway-controller';

describe('isOwnGatewayClass', () => {
  it.each<[string, GatewayClassLike, boolean]>([
    ['owns a class naming exactly our controller', { spec: { controllerName } }, true],
    ['ignores a class of another controller', { spec: { controllerName: 'example.net/gateway' } }, false],
    ['compares case-sensitively', { spec: { controllerName: 'ingresskit.dev/Gateway-Controller' } }, false],
    ['does not trim', { spec: { controllerName: `${controllerName} ` } }, false],
    ['ignores a class without spec', { metadata: { name: 'x' } }, false],
    ['ignores a class with a null spec', { spec: null }, false],
    ['ignores a class with an empty controllerName', { spec: { controllerName: '' } }, false],
  ])('%s', (_title, gatewayClass, expected) => {
    expect(isOwnGatewayClass(gatewayClass, controllerName)).toBe(expected);
  });

  it('never owns a class for an empty controller name', () => {
    expect(isOwnGatewayClass({ spec: { controllerName: '' } }, '')).toBe(false);
  });
});
