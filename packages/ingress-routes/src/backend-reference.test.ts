import { describe, expect, it } from 'vitest';
import { backendIdOf, parseBackendId } from './backend-reference.js';

describe('backendIdOf', () => {
  it('names a Service port namespace/service:port with the port as written', () => {
    expect(backendIdOf('shop', 'cart', 80)).toBe('shop/cart:80');
    expect(backendIdOf('shop', 'cart', 'http')).toBe('shop/cart:http');
  });
});

describe('parseBackendId', () => {
  it.each([
    ['shop', 'cart', 80],
    ['shop', 'cart.v2', 'http'],
    ['a', 'b', 'h2c-1'],
  ])('reads back the reference of backendIdOf(%j, %j, %j)', (namespace, name, port) => {
    expect(parseBackendId(backendIdOf(namespace, name, port))).toEqual({ namespace, name, port });
  });

  it.each(['', 'shop/cart', 'cart:80', 'a/b/c:80', 'a/b:80:90', '/b:80', 'a/:80', 'a/b:'])(
    'returns undefined for %j, which no backendIdOf call makes',
    (id) => {
      expect(parseBackendId(id)).toBeUndefined();
    },
  );
});
