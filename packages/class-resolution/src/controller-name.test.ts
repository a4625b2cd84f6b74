import { describe, expect, it } from 'vitest';
import { isValidControllerName } from './index.js';

describe('isValidControllerName', () => {
  it.each(['ingresskit.dev/gateway-controller', 'example.com/a/b', 'a/b'])('accepts %s', (name) => {
    expect(isValidControllerName(name)).toBe(true);
  });

  it.each(['', 'example.com', 'example', 'Example.com/x', 'example.com/', '/path', `a/${'x'.repeat(252)}`])(
    'rejects %j',
    (name) => {
      expect(isValidControllerName(name)).toBe(false);
    },
  );
});
