import { describe, expect, it } from 'vitest';
import { translateCorsFilter } from './cors-filter.js';
import { InvalidRule } from './invalid-rule.js';

const FIELD = 'spec.rules[0].filters[0].cors';

describe('translateCorsFilter', () => {
  it('becomes a Gateway API CorsPolicy: lists joined, maxAge 5 s unless set, credentials only when true', () => {
    expect(
      translateCorsFilter(
        {
          allowOrigins: ['https://www.foo.com', 'https://*.bar.com'],
          allowMethods: ['GET', 'OPTIONS'],
          allowHeaders: ['x-header-1', 'x-header-2'],
          exposeHeaders: ['x-header-3'],
          allowCredentials: true,
          maxAge: 3600,
        },
        FIELD,
      ),
    ).toEqual({
      allowOrigins: ['https://www.foo.com', 'https://*.bar.com'],
      allowMethods: 'GET, OPTIONS',
      allowHeaders: 'x-header-1, x-header-2',
      exposeHeaders: 'x-header-3',
      allowCredentials: true,
      maxAgeSeconds: 3600,
      dialect: 'gateway-api',
    });
    expect(translateCorsFilter({ allowOrigins: ['*'], allowMethods: ['*'] }, FIELD)).toMatchObject({
      allowOrigins: ['*'],
      allowMethods: '*',
      allowHeaders: '',
      allowCredentials: false,
      maxAgeSeconds: 5,
    });
  });

  it('allows no origin when none is listed: no policy, so no CORS headers', () => {
    expect(translateCorsFilter({ allowMethods: ['GET'] }, FIELD)).toBeUndefined();
    expect(translateCorsFilter(undefined, FIELD)).toBeUndefined();
  });

  it('refuses what the CRD does not allow, naming the field', () => {
    const refusal = (raw: unknown) => {
      try {
        translateCorsFilter(raw, FIELD);
      } catch (error) {
        if (error instanceof InvalidRule) return [error.field, error.message];
        throw error;
      }
      return undefined;
    };
    expect(refusal({ allowOrigins: ['https://a.com/path'] })).toEqual([
      `${FIELD}.allowOrigins[0]`,
      expect.stringContaining('http(s)://host[:port]'),
    ]);
    expect(refusal({ allowOrigins: ['*', 'https://a.com'] })).toEqual([
      `${FIELD}.allowOrigins`,
      'cannot hold "*" beside other items',
    ]);
    expect(refusal({ allowOrigins: ['*'], allowMethods: ['FETCH'] })?.[0]).toBe(`${FIELD}.allowMethods[0]`);
    expect(refusal({ allowOrigins: ['*'], allowHeaders: ['bad header'] })?.[0]).toBe(
      `${FIELD}.allowHeaders[0]`,
    );
    expect(refusal({ allowOrigins: ['*'], maxAge: 0 })?.[0]).toBe(`${FIELD}.maxAge`);
    expect(refusal({ allowOrigins: ['*'], allowCredentials: 'yes' })?.[0]).toBe(`${FIELD}.allowCredentials`);
    expect(refusal({ allowOrigins: 'https://a.com' })?.[0]).toBe(`${FIELD}.allowOrigins`);
  });
});
