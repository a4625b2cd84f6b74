import { describe, expect, it } from 'vitest';
import { intersectHostnames } from './index.js';

describe('intersectHostnames', () => {
  it.each([
    [undefined, [], ['*']],
    [undefined, ['b.example.com', 'a.example.com'], ['a.example.com', 'b.example.com']],
    ['a.example.com', [], ['a.example.com']],
    ['a.example.com', ['a.example.com', 'b.example.com'], ['a.example.com']],
    ['a.example.com', ['*.example.com'], ['a.example.com']],
    ['a.example.com', ['*.com'], ['a.example.com']],
    [
      '*.example.com',
      ['a.example.com', 'a.b.example.com', 'example.com'],
      ['a.b.example.com', 'a.example.com'],
    ],
    ['*.example.com', ['*.example.com'], ['*.example.com']],
    ['*.example.com', ['*.a.example.com'], ['*.a.example.com']],
    ['*.a.example.com', ['*.example.com'], ['*.a.example.com']],
    ['*.example.com', ['*.example.org', 'example.net'], []],
    ['a.example.com', ['*.a.example.com'], []],
  ] as const)('listener %s with route hostnames %j gives %j', (listener, route, expected) => {
    expect(intersectHostnames(listener, route)).toEqual(expected);
  });
});
