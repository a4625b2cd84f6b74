import { describe, expect, it } from 'vitest';
import type { ExternalAuthPolicy } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute } from './testing/routes.js';

function compileExternal(externalAuth: ExternalAuthPolicy) {
  return compileRoute(
    createTestRoute('r', {
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
      policy: { externalAuth },
    }),
  );
}

describe('compileRoute: externalAuth', () => {
  it('gives Lua where kept connections go: the address of an IP host, the port, path and TLS', () => {
    const keepalive = { connections: 4, requests: 100, timeoutSeconds: 30 };
    expect(
      compileExternal({ url: 'https://[::1]/check?a=1', keepalive }).entry.policy?.extAuth?.keepalive,
    ).toEqual({
      size: 4,
      requests: 100,
      timeout: 30,
      address: '::1',
      port: 443,
      path: '/check?a=1',
      tls: true,
    });
    const named = compileExternal({
      url: 'http://auth.example:8080/',
      keepalive: { ...keepalive, shareRequestId: true },
    });
    expect(named.entry.policy?.extAuth?.keepalive).toEqual({
      size: 4,
      requests: 100,
      timeout: 30,
      port: 8080,
      path: '/',
      shareRequestId: true,
    });
  });

  it('closes the route for keep-alive bounds out of range', () => {
    const invalid = compileExternal({
      url: 'http://auth.example/',
      keepalive: { connections: 0, requests: 100, timeoutSeconds: 30 },
    });
    expect(invalid.entry.action).toEqual({ type: 'respond', status: 500 });
    expect(invalid.issues).toEqual([
      expect.objectContaining({ field: 'policy.externalAuth.keepalive', severity: 'error' }),
    ]);
  });

  it('gives Lua the headers set on the check, and closes the route for an invalid one', () => {
    const headers = [
      { name: 'X-Tenant', value: 'shop' },
      { name: 'X-Empty', value: '' },
    ];
    const compiled = compileExternal({ url: 'http://auth.example/', requestHeaders: headers });
    expect(compiled.entry.policy?.extAuth?.set).toEqual([
      ['X-Tenant', 'shop'],
      ['X-Empty', ''],
    ]);
    const invalid = compileExternal({
      url: 'http://auth.example/',
      requestHeaders: [{ name: 'X-Line', value: 'a\r\nInjected: 1' }],
    });
    expect(invalid.entry.action).toEqual({ type: 'respond', status: 500 });
    expect(invalid.issues).toEqual([
      expect.objectContaining({ field: 'policy.externalAuth.requestHeaders', severity: 'error' }),
    ]);
  });

  it('gives Lua the URL, the Host it names, the method (GET by default) and the options', () => {
    expect(compileExternal({ url: 'http://auth.example:8080/check?a=1' }).entry.policy?.extAuth).toEqual({
      url: 'http://auth.example:8080/check?a=1',
      host: 'auth.example',
      method: 'GET',
    });
    const { entry, issues } = compileExternal({
      url: 'https://auth.example/check',
      method: 'POST',
      signin: { url: 'https://$host/start', redirectParam: 'rd' },
      responseHeaders: ['X-User'],
      requestRedirect: 'https://app.example/',
      alwaysSetCookie: true,
    });
    expect(issues).toEqual([]);
    expect(entry.policy?.extAuth).toEqual({
      url: 'https://auth.example/check',
      host: 'auth.example',
      method: 'POST',
      signin: 'https://$host/start',
      param: 'rd',
      headers: ['X-User'],
      redirect: 'https://app.example/',
      alwaysCookie: true,
    });
  });

  it('gives the cache key as text and variables, and seconds by status, the first entry winning', () => {
    const { entry } = compileExternal({
      url: 'http://auth.example/',
      cache: {
        key: [
          { type: 'text', value: 'k' },
          { type: 'header', name: 'Authorization' },
        ],
        durations: [
          { statuses: [200, 401], seconds: 60 },
          { statuses: [200], seconds: 5 },
        ],
      },
    });
    expect(entry.policy?.extAuth?.cache).toEqual({
      key: [
        ['text', 'k'],
        ['var', 'http_authorization'],
      ],
      ttl: { '200': 60, '401': 60 },
    });
  });

  it.each<[string, ExternalAuthPolicy]>([
    [
      'a cache key of text alone, which would share one answer among all clients',
      { url: 'http://auth.example/', cache: { key: [{ type: 'text', value: 'k' }], durations: [] } },
    ],
    ['a URL of another scheme', { url: 'file:///etc/passwd' }],
    ['a URL with a variable', { url: 'http://$host/auth' }],
    ['a URL with a newline', { url: 'http://auth.example/\nx' }],
    ['an unknown method', { url: 'http://auth.example/', method: 'get' }],
    ['a header name with a colon', { url: 'http://auth.example/', responseHeaders: ['X:Y'] }],
    [
      'a sign-in URL with another variable',
      { url: 'http://auth.example/', signin: { url: 'https://$remote_addr/' } },
    ],
    ['a redirect header with a newline', { url: 'http://auth.example/', requestRedirect: 'a\r\nb' }],
  ])('answers 500 rather than serve without the check for %s', (_, externalAuth) => {
    const { entry } = compileExternal(externalAuth);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(entry.policy?.extAuth).toBeUndefined();
  });
});
