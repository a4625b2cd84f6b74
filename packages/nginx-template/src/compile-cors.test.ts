import { describe, expect, it } from 'vitest';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute: CORS', () => {
  it('compiles CORS origins into one anchored regex and the fixed headers, and refuses bad origins', () => {
    const cors = {
      allowOrigins: ['https://a.example.com', 'http://*.example.org:8080'],
      allowMethods: 'GET, POST',
      allowHeaders: 'Content-Type',
      exposeHeaders: '',
      allowCredentials: true,
      maxAgeSeconds: 60,
    };
    const { entry } = compileRoute(createTestRoute('r', { action: forwardAction, policy: { cors } }));
    expect(entry.policy?.cors).toEqual({
      origin: '^(?:https://a\\.example\\.com|http://[A-Za-z0-9-]+\\.example\\.org:8080)$',
      headers: [
        ['Access-Control-Allow-Credentials', 'true'],
        ['Access-Control-Allow-Methods', 'GET, POST'],
        ['Access-Control-Allow-Headers', 'Content-Type'],
        ['Access-Control-Max-Age', '60'],
      ],
    });
    const any = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { cors: { ...cors, allowOrigins: ['*'] } } }),
    );
    expect(any.entry.policy?.cors?.origin).toBeUndefined();
    for (const allowOrigins of [
      [],
      ['*', 'https://a.example.com'],
      ['https://a.example.com/path'],
      ['https://(a|b).com'],
    ]) {
      const bad = compileRoute(
        createTestRoute('r', { action: forwardAction, policy: { cors: { ...cors, allowOrigins } } }),
      );
      expect(bad.entry.action).toEqual({ type: 'respond', status: 500 });
    }
    const split = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { cors: { ...cors, allowHeaders: 'a\r\nSet-Cookie: x' } },
      }),
    );
    expect(split.entry.action).toEqual({ type: 'respond', status: 500 });
  });

  it("compiles Gateway API's CORS: any-label wildcards, default ports, asked-for and echoed headers, 200", () => {
    const cors = {
      allowOrigins: ['https://*.bar.com', 'http://www.foo.com', 'https://*:8443'],
      allowMethods: 'GET, OPTIONS',
      allowHeaders: '*',
      exposeHeaders: '*',
      allowCredentials: true,
      maxAgeSeconds: 5,
      dialect: 'gateway-api' as const,
    };
    const { entry } = compileRoute(createTestRoute('r', { action: forwardAction, policy: { cors } }));
    expect(entry.policy?.cors).toEqual({
      origin:
        '^(?:https://(?:[A-Za-z0-9-]+\\.)+bar\\.com(?::443)?|http://www\\.foo\\.com(?::80)?|https://[A-Za-z0-9.-]+:8443)$',
      headers: [
        ['Access-Control-Allow-Credentials', 'true'],
        ['Access-Control-Max-Age', '5'],
      ],
      methods: 'GET, OPTIONS',
      allowHeaders: true,
      preflight: 200,
    });
    const origin = new RegExp(entry.policy!.cors!.origin!, 'i');
    expect(
      ['https://a.b.bar.com', 'https://www.bar.com:443', 'http://www.foo.com:80'].map((o) => origin.test(o)),
    ).toEqual([true, true, true]);
    expect(
      ['https://bar.com', 'http://www.foo.com:8080', 'https://x.com:443'].map((o) => origin.test(o)),
    ).toEqual([false, false, false]);
    // Without credentials a `*` is answered as `*`; every origin: `*`, with credentials: echoed.
    const open = compileRoute(
      createTestRoute('r', {
        action: forwardAction,
        policy: { cors: { ...cors, allowOrigins: ['*'], allowCredentials: false } },
      }),
    );
    expect(open.entry.policy?.cors).toMatchObject({ allowHeaders: '*' });
    expect(open.entry.policy?.cors?.echoOrigin).toBeUndefined();
    expect(open.entry.policy?.cors?.headers).toContainEqual(['Access-Control-Expose-Headers', '*']);
    const echoed = compileRoute(
      createTestRoute('r', { action: forwardAction, policy: { cors: { ...cors, allowOrigins: ['*'] } } }),
    );
    expect(echoed.entry.policy?.cors).toMatchObject({ echoOrigin: true });
  });
});
