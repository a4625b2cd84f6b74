/**
 * ingress-nginx proxy annotations served in Lua, end to end (local API server, the controller,
 * nginx, real HTTP): upstream-hash-by keeps a key on one endpoint, proxy-next-upstream-tries
 * bounds the endpoints one request tries, proxy-redirect-from/-to, proxy-cookie-domain and
 * proxy-cookie-path rewrite the backend's Location and Set-Cookie headers.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../src/ports.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, serviceManifests } from './harness.js';

/** A backend answering 302 to its own name, with two cookies. */
const redirecting: RequestListener = (_request, response) => {
  response.setHeader('location', 'http://internal.local/app/next?x=1');
  response.setHeader('set-cookie', ['a=1; Domain=.Internal.local; Path=/app/sub', 'b=2; path=/other']);
  response.statusCode = 302;
  response.end();
};

const testCase = useAnnotationsCase({
  config: { podName: 'proxy' },
  backends: ['one', 'two'],
  readyHost: 'hash.test',
  objects: async ({ backends, listen }) => [
    ...serviceManifests('pair', [backends.get('one')!, backends.get('two')!]),
    ...serviceManifests('flaky', [backends.get('one')!]),
    endpointSliceManifest('flaky-dead', 'flaky', await findFreePort()),
    ...serviceManifests('redirecting', []),
    endpointSliceManifest('redirecting-1', 'redirecting', await listen(redirecting)),
    annotatedIngress('hash.test', 'pair', { [`${A}upstream-hash-by`]: '$arg_user' }),
    annotatedIngress('one-try.test', 'flaky', { [`${A}proxy-next-upstream-tries`]: '1' }),
    annotatedIngress('tries.test', 'flaky', {}),
    annotatedIngress('rewrite.test', 'redirecting', {
      [`${A}proxy-redirect-from`]: 'http://internal.local/app/',
      [`${A}proxy-redirect-to`]: 'https://public.test/',
      [`${A}proxy-cookie-domain`]: 'internal.local public.test',
      [`${A}proxy-cookie-path`]: '/app/ /',
    }),
    annotatedIngress('plain-redirect.test', 'redirecting', {}),
  ],
});

function send(host: string, path = '/') {
  return testCase().send(host, { path });
}

function answer(host: string, path = '/') {
  return testCase().answer(host, { path });
}

describe('upstream-hash-by', () => {
  it('sends every request with the same key to the same endpoint, and spreads the keys', async () => {
    const chosen = new Set<string>();
    for (let user = 0; user < 16; user += 1) {
      const answers = new Set<string>();
      for (let request = 0; request < 4; request += 1)
        answers.add(await answer('hash.test', `/?user=u${user}`));
      expect(answers.size).toBe(1);
      chosen.add([...answers][0]!);
    }
    expect([...chosen].sort()).toEqual(['one', 'two']);
  });
});

describe('proxy-next-upstream-tries', () => {
  it('tries a second endpoint by default, and only one with "1"', async () => {
    const tried: string[] = [];
    for (let request = 0; request < 4; request += 1) tried.push(await answer('tries.test'));
    expect(tried).toEqual(['one', 'one', 'one', 'one']);
    const once: string[] = [];
    for (let request = 0; request < 4; request += 1) once.push(await answer('one-try.test'));
    expect(once).toContain('502');
    expect(once).toContain('one');
  });
});

describe('proxy-redirect-from/-to, proxy-cookie-domain, proxy-cookie-path', () => {
  it("rewrites the backend's Location and cookies", async () => {
    const response = await send('rewrite.test');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('https://public.test/next?x=1');
    expect(response.headers['set-cookie']).toEqual([
      'a=1; Domain=public.test; Path=/sub',
      'b=2; path=/other',
    ]);
  });

  it('leaves them alone without the annotations', async () => {
    const response = await send('plain-redirect.test');
    expect(response.headers.location).toBe('http://internal.local/app/next?x=1');
    expect(response.headers['set-cookie']).toEqual([
      'a=1; Domain=.Internal.local; Path=/app/sub',
      'b=2; path=/other',
    ]);
  });
});
