/**
 * ingress-nginx's basic authentication end to end (local API server, the controller, nginx, real
 * HTTP): auth-type basic with an auth-file or auth-map Secret and auth-realm; every htpasswd
 * format the data plane verifies; closed (401 for everyone) for a missing Secret or a hash it
 * cannot verify; a changed or new Secret is served without a reload; the backend never sees the
 * client's credentials.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ProbeResponse } from '../src/http-probe.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import {
  endpointSliceManifest,
  eventually,
  ingressManifest,
  opaqueSecretManifest,
  serviceManifests,
} from './harness.js';

/** Users and the password each hash was made from (openssl passwd, libcrypt, Openwall's bcrypt vector). */
const USERS: [user: string, password: string, hash: string][] = [
  ['apache', 'secret', '$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0'],
  ['sha', 'secret', '{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ='],
  ['ssha', 'secret', '{SSHA}gVK8WC9YyFT1gMsQHTGCgT3sSv5zYWx0'],
  ['bcrypt', 'U*U', '$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
  ['md5', 'pw', '$1$saltsalt$6SNdNaZLKst2LlSm7oPPL1'],
  ['sha256', 'pw', '$5$salt$Oo0nc86Ktkc05wTAggFOZIQJhfxhAZY1mlIogZJN.i.'],
  [
    'sha512',
    'pw',
    '$6$salt$AkOOBO38SQQ8T8Q46KuCONe.8zg41nvCDKDq7pVQd2n2hy8sf8aR3G89VY.57up0eSIa/69odCCcLT4hx7FpW/',
  ],
];

const secret = opaqueSecretManifest;

function htpasswd(
  name: string,
  users: readonly (readonly [string, string, string])[],
): Record<string, unknown> {
  return secret(name, { auth: users.map(([user, , hash]) => `${user}:${hash}`).join('\n') + '\n' });
}

function guarded(host: string, annotations: Record<string, string>) {
  return annotatedIngress(host, 'app', { [`${A}auth-type`]: 'basic', ...annotations });
}

/** A backend answering the headers of the request it got, as JSON. */
const echoHeaders: RequestListener = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(request.headers));
};

const testCase = useAnnotationsCase({
  config: { podName: 'auth' },
  backends: ['app'],
  readyHost: 'open.test',
  objects: async ({ backends, listen }) => [
    ...serviceManifests('app', [backends.get('app')!]),
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', await listen(echoHeaders)),
    annotatedIngress('echo.test', 'echo', { [`${A}auth-type`]: 'basic', [`${A}auth-secret`]: 'staff' }),
    htpasswd('staff', USERS),
    secret('by-user', { alice: '$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0' }),
    htpasswd('unknown-format', [['bob', 'pw', '$9$nothing$we$know']]),
    guarded('file.test', { [`${A}auth-secret`]: 'staff', [`${A}auth-realm`]: 'Staff only' }),
    guarded('map.test', { [`${A}auth-secret`]: 'default/by-user', [`${A}auth-secret-type`]: 'auth-map' }),
    guarded('unknown.test', { [`${A}auth-secret`]: 'unknown-format' }),
    guarded('later.test', { [`${A}auth-secret`]: 'later' }),
    ingressManifest('open', { host: 'open.test', service: 'app', className: 'nginx' }),
  ],
});

function send(host: string, credentials?: string): Promise<ProbeResponse> {
  const headers: Record<string, string> =
    credentials === undefined
      ? {}
      : { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
  return testCase().send(host, { headers });
}

async function statusOf(host: string, credentials?: string): Promise<number> {
  return (await send(host, credentials)).status;
}

describe('auth-type basic with an auth-file Secret', () => {
  it("does not pass the client's credentials on to the backend, as ingress-nginx clears Authorization", async () => {
    const response = await send('echo.test', 'apache:secret');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).not.toHaveProperty('authorization');
  });

  it('asks for credentials in the realm of auth-realm', async () => {
    const response = await send('file.test');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="Staff only"');
  });

  it.each(USERS)('lets %s in with the password of its hash', async (user, password) => {
    expect(await statusOf('file.test', `${user}:${password}`)).toBe(200);
    expect(await statusOf('file.test', `${user}:${password}x`)).toBe(401);
  });

  it('refuses an unknown user', async () => {
    expect(await statusOf('file.test', 'mallory:secret')).toBe(401);
  });
});

describe('auth-secret-type auth-map', () => {
  it('reads one user per key', async () => {
    expect(await statusOf('map.test', 'alice:secret')).toBe(200);
    expect(await statusOf('map.test', 'alice:wrong')).toBe(401);
    expect(await statusOf('map.test')).toBe(401);
  });
});

describe('a Secret that cannot be used', () => {
  it('keeps the route closed when a hash is of an unknown format', async () => {
    expect(await statusOf('unknown.test', 'bob:pw')).toBe(401);
    expect(await statusOf('unknown.test')).toBe(401);
  });

  it('keeps the route closed until the Secret exists, then serves it without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    expect(await statusOf('later.test', 'md5:pw')).toBe(401);
    await server.apply(htpasswd('later', [USERS[4]!]));
    await eventually(async () => expect(await statusOf('later.test', 'md5:pw')).toBe(200));
    await server.apply(htpasswd('later', [USERS[5]!]));
    await eventually(async () => expect(await statusOf('later.test', 'md5:pw')).toBe(401));
    expect(await statusOf('later.test', 'sha256:pw')).toBe(200);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
