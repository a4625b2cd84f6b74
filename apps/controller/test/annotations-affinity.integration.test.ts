/**
 * ingress-nginx's cookie session affinity end to end (local API server, the controller, nginx,
 * real HTTP to two endpoints): the first answer sets the cookie with its session-cookie-*
 * attributes, and requests carrying it stay on one endpoint; persistent cookies name an endpoint,
 * and a failed one is tried again, or left for another with session-cookie-change-on-failure.
 * With a canary (affinity-canary-behavior): sticky keeps a client the canary served on the canary,
 * legacy does not; a client pinned to the main backend stays there either way.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ProbeResponse } from '../src/http-probe.js';
import { findFreePort } from '../src/ports.js';
import { A, annotatedIngress, backendOf, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, ingressManifest, serviceManifests } from './harness.js';

let deadPort: number;

function sticky(host: string, service: string, annotations: Record<string, string>) {
  return annotatedIngress(host, service, { [`${A}affinity`]: 'cookie', ...annotations }, { path: '/app' });
}

/** The canary Ingress of `host`'s /app: `service` (`beta`), for requests with X-Canary: always. */
function canaryOf(host: string, annotations: Record<string, string>, service = 'beta') {
  return annotatedIngress(
    host,
    service,
    { [`${A}canary`]: 'true', [`${A}canary-by-header`]: 'X-Canary', ...annotations },
    { name: `${host}-canary`, path: '/app' },
  );
}

const testCase = useAnnotationsCase({
  config: { podName: 'affinity' },
  backends: ['one', 'two', 'canary'],
  readyHost: 'plain.test',
  objects: async ({ backends }) => {
    deadPort = await findFreePort();
    return [
      ...serviceManifests('pair', [backends.get('one')!, backends.get('two')!]),
      ...serviceManifests('flaky', [backends.get('two')!]),
      ...serviceManifests('beta', [backends.get('canary')!]),
      sticky('canary-sticky.test', 'pair', {}),
      canaryOf('canary-sticky.test', {}),
      sticky('canary-legacy.test', 'pair', {}),
      canaryOf('canary-legacy.test', { [`${A}affinity-canary-behavior`]: 'legacy' }),
      sticky('canary-failover.test', 'pair', {
        [`${A}affinity-mode`]: 'persistent',
        [`${A}session-cookie-change-on-failure`]: 'true',
      }),
      canaryOf('canary-failover.test', {}, 'flaky'),
      endpointSliceManifest('flaky-dead', 'flaky', deadPort),
      sticky('balanced.test', 'pair', {
        [`${A}session-cookie-name`]: 'route',
        [`${A}session-cookie-max-age`]: '3600',
        [`${A}session-cookie-samesite`]: 'Lax',
      }),
      sticky('persistent.test', 'pair', {
        [`${A}affinity-mode`]: 'persistent',
        [`${A}session-cookie-path`]: '/',
        [`${A}session-cookie-domain`]: 'persistent.test',
        [`${A}session-cookie-secure`]: 'true',
        [`${A}session-cookie-expires`]: '600',
      }),
      sticky('failover.test', 'flaky', {
        [`${A}affinity-mode`]: 'persistent',
        [`${A}session-cookie-change-on-failure`]: 'true',
      }),
      sticky('stuck.test', 'flaky', { [`${A}affinity-mode`]: 'persistent' }),
      sticky('samesite.test', 'pair', {
        [`${A}session-cookie-samesite`]: 'None',
        [`${A}session-cookie-conditional-samesite-none`]: 'true',
      }),
      sticky('samesite-always.test', 'pair', { [`${A}session-cookie-samesite`]: 'None' }),
      ingressManifest('plain', { host: 'plain.test', service: 'pair', className: 'nginx' }),
    ];
  },
});

function send(host: string, cookie?: string, userAgent?: string, canary?: string): Promise<ProbeResponse> {
  const headers: Record<string, string> = {};
  if (cookie !== undefined) headers.cookie = cookie;
  if (userAgent !== undefined) headers['user-agent'] = userAgent;
  if (canary !== undefined) headers['x-canary'] = canary;
  return testCase().send(host, { path: '/app/x', headers });
}

function setCookie(response: ProbeResponse): string | undefined {
  return response.headers['set-cookie']?.[0];
}

/** A persistent cookie's value for the endpoint 127.0.0.1:port (the data plane's endpoint token). */
function tokenOf(port: number): string {
  return createHash('md5').update(`127.0.0.1:${port}`).digest('hex').slice(0, 16);
}

describe('affinity cookie (balanced)', () => {
  it('sets the cookie with its attributes, and keeps a session on one endpoint', async () => {
    const first = await send('balanced.test');
    expect(first.status).toBe(200);
    const cookie = setCookie(first)!;
    expect(cookie).toMatch(/^route=[0-9a-f]{16}; Path=\/app; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    const pair = cookie.split(';')[0]!;
    const seen = new Set<string>();
    for (let index = 0; index < 20; index += 1) {
      const response = await send('balanced.test', pair);
      expect(setCookie(response)).toBeUndefined();
      seen.add(backendOf(response));
    }
    expect(seen.size).toBe(1);
  });

  it('spreads new sessions over the endpoints', async () => {
    const seen = new Set<string>();
    for (let index = 0; index < 40; index += 1) seen.add(backendOf(await send('balanced.test')));
    expect([...seen].sort()).toEqual(['one', 'two']);
  });
});

describe('affinity-mode persistent', () => {
  it('names the endpoint in the cookie, with domain, Secure and Expires', async () => {
    const { backends } = testCase();
    const first = await send('persistent.test');
    const cookie = setCookie(first)!;
    const port = backendOf(first) === 'one' ? backends.get('one')!.port : backends.get('two')!.port;
    expect(cookie).toMatch(
      new RegExp(
        `^INGRESSCOOKIE=${tokenOf(port)}; Path=/; Domain=persistent.test; HttpOnly; Expires=[^;]+ GMT; Secure$`,
      ),
    );
    const other = backendOf(first) === 'one' ? 'two' : 'one';
    const pinned = await send('persistent.test', `INGRESSCOOKIE=${tokenOf(backends.get(other)!.port)}`);
    expect(backendOf(pinned)).toBe(other);
  });

  it('tries a failed endpoint again without session-cookie-change-on-failure', async () => {
    expect(backendOf(await send('stuck.test', `INGRESSCOOKIE=${tokenOf(deadPort)}`))).toBe('502');
  });

  it('moves the session and its cookie with session-cookie-change-on-failure', async () => {
    const response = await send('failover.test', `INGRESSCOOKIE=${tokenOf(deadPort)}`);
    expect(backendOf(response)).toBe('two');
    expect(setCookie(response)).toMatch(
      new RegExp(`^INGRESSCOOKIE=${tokenOf(testCase().backends.get('two')!.port)};`),
    );
  });
});

describe('affinity-canary-behavior', () => {
  it('sticky (the default): a client the canary served stays on the canary, whatever the rule says', async () => {
    const first = await send('canary-sticky.test', undefined, undefined, 'always');
    expect(backendOf(first)).toBe('canary');
    const pair = setCookie(first)!.split(';')[0]!;
    expect(pair).toMatch(/^INGRESSCOOKIE=[0-9a-f]{16}\.c$/);
    for (const rule of [undefined, 'never']) {
      const response = await send('canary-sticky.test', pair, undefined, rule);
      expect(backendOf(response)).toBe('canary');
      expect(setCookie(response)).toBeUndefined();
    }
  });

  it('keeps a client pinned to the main backend there, in both modes', async () => {
    for (const host of ['canary-sticky.test', 'canary-legacy.test']) {
      const first = await send(host);
      expect(['one', 'two']).toContain(backendOf(first));
      const pair = setCookie(first)!.split(';')[0]!;
      const response = await send(host, pair, undefined, 'always');
      expect(backendOf(response)).toBe(backendOf(first));
    }
  });

  it('keeps a session moved off a failed canary endpoint on the canary', async () => {
    const response = await send('canary-failover.test', `INGRESSCOOKIE=${tokenOf(deadPort)}.c`);
    expect(backendOf(response)).toBe('two');
    const twoPort = testCase().backends.get('two')!.port;
    expect(setCookie(response)).toMatch(new RegExp(`^INGRESSCOOKIE=${tokenOf(twoPort)}\\.c;`));
  });

  it('legacy: canary requests get no cookie, and the rule decides each request', async () => {
    const first = await send('canary-legacy.test', undefined, undefined, 'always');
    expect(backendOf(first)).toBe('canary');
    expect(setCookie(first)).toBeUndefined();
    // A cookie the canary would have set under sticky does not keep the client there.
    const marked = `INGRESSCOOKIE=${'0'.repeat(16)}.c`;
    expect(backendOf(await send('canary-legacy.test', marked))).not.toBe('canary');
    expect(backendOf(await send('canary-sticky.test', marked))).toBe('canary');
  });
});

describe('session-cookie-conditional-samesite-none', () => {
  const oldChrome =
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.113 Safari/537.36';
  const newChrome =
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

  it('leaves SameSite=None out for a client known to reject it', async () => {
    expect(setCookie(await send('samesite.test', undefined, oldChrome))).not.toContain('SameSite');
    expect(setCookie(await send('samesite.test', undefined, newChrome))).toMatch(
      /; HttpOnly; SameSite=None$/,
    );
    expect(setCookie(await send('samesite-always.test', undefined, oldChrome))).toMatch(/; SameSite=None$/);
  });
});
