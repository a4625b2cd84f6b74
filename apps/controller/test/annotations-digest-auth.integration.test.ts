/**
 * ingress-nginx's digest authentication end to end (local API server, the controller, nginx, real
 * HTTP): auth-type digest with an htdigest auth-file or an auth-map Secret and auth-realm, answered
 * by a Digest client written here from each 401 challenge and by curl; nonces that are tampered
 * with, replayed, too old or used up; hostile Authorization headers; closed (401 for everyone) for
 * a missing Secret; a changed Secret is served without a reload.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ProbeResponse } from '../src/http-probe.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, opaqueSecretManifest, serviceManifests } from './harness.js';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** An htdigest line: user:realm:MD5(user:realm:password). */
const line = (user: string, realm: string, password: string) =>
  `${user}:${realm}:${md5(`${user}:${realm}:${password}`)}`;

const STAFF = [line('ann', 'Staff', 'secret'), line('eve', 'Other', 'pw'), line('bob', 'Staff', 'pw')];

/** The backend: the headers of the request it got, as JSON. */
const echo: RequestListener = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(request.headers));
};

const secret = opaqueSecretManifest;
const htdigest = (name: string, lines: string[]) => secret(name, { auth: lines.join('\n') + '\n' });

function guarded(host: string, annotations: Record<string, string>) {
  return annotatedIngress(host, 'echo', { [`${A}auth-type`]: 'digest', ...annotations });
}

const testCase = useAnnotationsCase({
  config: { podName: 'digest-auth' },
  readyHost: 'open.test',
  objects: async ({ listen }) => [
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', await listen(echo)),
    htdigest('staff', STAFF),
    secret('by-user', { zed: `Staff:${md5('zed:Staff:pw')}` }),
    guarded('digest.test', { [`${A}auth-secret`]: 'staff', [`${A}auth-realm`]: 'Staff' }),
    guarded('other.test', { [`${A}auth-secret`]: 'staff', [`${A}auth-realm`]: 'Other' }),
    guarded('map.test', {
      [`${A}auth-secret`]: 'by-user',
      [`${A}auth-secret-type`]: 'auth-map',
      [`${A}auth-realm`]: 'Staff',
    }),
    guarded('missing.test', { [`${A}auth-secret`]: 'absent', [`${A}auth-realm`]: 'Staff' }),
    guarded('later.test', { [`${A}auth-secret`]: 'later', [`${A}auth-realm`]: 'Staff' }),
    annotatedIngress('open.test', 'echo', {}),
  ],
});

/** The parameters of a Digest challenge. */
type Challenge = Record<string, string>;

function parseChallenge(header: string | string[] | undefined): Challenge {
  expect(typeof header).toBe('string');
  expect(header).toMatch(/^Digest /);
  const params: Challenge = {};
  for (const [, name, quoted, token] of (header as string).matchAll(/(\w+)=(?:"([^"]*)"|([^\s,]+))/g)) {
    params[name!] = quoted ?? token!;
  }
  return params;
}

interface Answer {
  user: string;
  password: string;
  /** Absent: the challenge's. */
  realm?: string;
  path?: string;
  /** Absent: 1. */
  nc?: number;
  /** Absent: the challenge's. */
  nonce?: string;
  /** The URI the answer names; absent: `path`. */
  uri?: string;
}

/** An Authorization header answering `challenge` (RFC 7616, MD5, qop=auth). */
function answer(challenge: Challenge, options: Answer): string {
  const { user, password, realm = challenge.realm!, path = '/', nc = 1, nonce = challenge.nonce! } = options;
  const uri = options.uri ?? path;
  const count = nc.toString(16).padStart(8, '0');
  const cnonce = md5(`${Math.random()}`).slice(0, 16);
  const ha1 = md5(`${user}:${realm}:${password}`);
  const response = md5(`${ha1}:${nonce}:${count}:${cnonce}:auth:${md5(`GET:${uri}`)}`);
  return (
    `Digest username="${user}", realm="${realm}", nonce="${nonce}", uri="${uri}", algorithm=MD5, ` +
    `qop=auth, nc=${count}, cnonce="${cnonce}", response="${response}", opaque="${challenge.opaque}"`
  );
}

function send(host: string, authorization?: string, path = '/'): Promise<ProbeResponse> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  return testCase().send(host, { path, headers });
}

async function challengeOf(host: string, path = '/'): Promise<Challenge> {
  const response = await send(host, undefined, path);
  expect(response.status).toBe(401);
  return parseChallenge(response.headers['www-authenticate']);
}

/** The status of a request answering a fresh challenge of `host`. */
async function statusOf(host: string, options: Answer): Promise<number> {
  const challenge = await challengeOf(host, options.path);
  return (await send(host, answer(challenge, options), options.path)).status;
}

describe('auth-type digest with an auth-file Secret', () => {
  it('challenges with a fresh nonce in the realm of auth-realm', async () => {
    const first = await send('digest.test');
    expect(first.status).toBe(401);
    expect(first.headers['www-authenticate']).toMatch(
      /^Digest realm="Staff", qop="auth", nonce="[0-9a-f]{56}", opaque="[0-9a-f]{32}", algorithm=MD5$/,
    );
    const second = parseChallenge((await send('digest.test')).headers['www-authenticate']);
    expect(second.nonce).not.toBe(parseChallenge(first.headers['www-authenticate']).nonce);
  });

  it('lets a user of the realm in, and the backend does not see the Authorization header', async () => {
    const challenge = await challengeOf('digest.test', '/a?b=c');
    const response = await send(
      'digest.test',
      answer(challenge, { user: 'ann', password: 'secret', path: '/a?b=c' }),
      '/a?b=c',
    );
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).not.toHaveProperty('authorization');
    expect(await statusOf('digest.test', { user: 'bob', password: 'pw' })).toBe(200);
  });

  it('refuses a wrong password, an unknown user and a user of another realm', async () => {
    for (const options of [
      { user: 'ann', password: 'wrong' },
      { user: 'mallory', password: 'secret' },
      { user: 'eve', password: 'pw' },
      { user: 'eve', password: 'pw', realm: 'Other' },
    ]) {
      const challenge = await challengeOf('digest.test');
      const response = await send('digest.test', answer(challenge, options));
      expect(response.status, JSON.stringify(options)).toBe(401);
      expect(parseChallenge(response.headers['www-authenticate']).stale).toBeUndefined();
    }
    // The same Secret under the Ingress of realm Other lets eve in, and only her.
    expect(await statusOf('other.test', { user: 'eve', password: 'pw' })).toBe(200);
    expect(await statusOf('other.test', { user: 'ann', password: 'secret' })).toBe(401);
  });

  it('refuses a tampered nonce, an answer for another URI, and a replayed nc', async () => {
    const challenge = await challengeOf('digest.test');
    const nonce = challenge.nonce!;
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === '0' ? '1' : '0') + text.slice(at + 1);
    for (const tampered of [flip(nonce, 0), flip(nonce, 20), flip(nonce, 55), nonce.slice(0, 55)]) {
      const header = answer(challenge, { user: 'ann', password: 'secret', nonce: tampered });
      expect((await send('digest.test', header)).status).toBe(401);
    }
    const elsewhere = answer(challenge, { user: 'ann', password: 'secret', uri: '/other' });
    expect((await send('digest.test', elsewhere)).status).toBe(401);
    const once = answer(challenge, { user: 'ann', password: 'secret' });
    expect((await send('digest.test', once)).status).toBe(200);
    const replayed = await send('digest.test', once);
    expect(replayed.status).toBe(401);
    expect(parseChallenge(replayed.headers['www-authenticate']).stale).toBeUndefined();
    expect(
      (await send('digest.test', answer(challenge, { user: 'ann', password: 'secret', nc: 2 }))).status,
    ).toBe(200);
  });

  it('answers stale=true for a used-up nonce, and a fresh nonce lets the client in again', async () => {
    const challenge = await challengeOf('digest.test');
    const used = await send('digest.test', answer(challenge, { user: 'ann', password: 'secret', nc: 21 }));
    expect(used.status).toBe(401);
    const renewed = parseChallenge(used.headers['www-authenticate']);
    expect(renewed.stale).toBe('true');
    expect(renewed.nonce).not.toBe(challenge.nonce);
    expect((await send('digest.test', answer(renewed, { user: 'ann', password: 'secret' }))).status).toBe(
      200,
    );
    // A wrong password never learns that its nonce is stale.
    const wrong = await send('digest.test', answer(challenge, { user: 'ann', password: 'x', nc: 21 }));
    expect(parseChallenge(wrong.headers['www-authenticate']).stale).toBeUndefined();
  });

  it('answers stale=true once a nonce has served its 10 seconds', async () => {
    const challenge = await challengeOf('digest.test');
    expect((await send('digest.test', answer(challenge, { user: 'ann', password: 'secret' }))).status).toBe(
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const expired = await send('digest.test', answer(challenge, { user: 'ann', password: 'secret', nc: 2 }));
    expect(expired.status).toBe(401);
    expect(parseChallenge(expired.headers['www-authenticate']).stale).toBe('true');
  });

  it('refuses hostile Authorization headers with 401', async () => {
    const challenge = await challengeOf('digest.test');
    const right = answer(challenge, { user: 'ann', password: 'secret' });
    const hostile = [
      'Digest',
      'Digest ,,,, ,',
      'Digest username="ann',
      'Digest username="ann\\',
      `${right}, username="ann"`,
      right.replace('qop=auth', 'qop=auth-int'),
      right.replace('algorithm=MD5', 'algorithm=SHA-256'),
      right.replace(/opaque="[^"]*"/, 'opaque="x"'),
      right.replace(/response="[^"]*"/, 'response='),
      `Digest ${'a="\\"",'.repeat(1000)}`,
      `Digest username="${'"'.repeat(5000)}`,
      `Digest username=${'x'.repeat(7000)}`,
      `Basic ${Buffer.from('ann:secret').toString('base64')}`,
    ];
    for (const header of hostile) {
      expect((await send('digest.test', header)).status, header.slice(0, 60)).toBe(401);
    }
    // Quoted-string escapes are read: the same answer with an escaped username still lets ann in.
    expect((await send('digest.test', right.replace('username="ann"', 'username="a\\nn"'))).status).toBe(200);
  });
});

describe('curl as the Digest client', () => {
  const run = promisify(execFile);

  async function curlStatus(credentials: string): Promise<string> {
    const port = testCase().controller.config.httpPort;
    const { stdout } = await run('curl', [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '--digest',
      '-u',
      credentials,
      '--resolve',
      `digest.test:${port}:127.0.0.1`,
      `http://digest.test:${port}/path?q=1`,
    ]);
    return stdout;
  }

  it('gets in with the right password and not with a wrong one', async () => {
    expect(await curlStatus('ann:secret')).toBe('200');
    expect(await curlStatus('ann:wrong')).toBe('401');
  });
});

describe('auth-secret-type auth-map', () => {
  it('reads realm:hash per user key', async () => {
    expect(await statusOf('map.test', { user: 'zed', password: 'pw' })).toBe(200);
    expect(await statusOf('map.test', { user: 'zed', password: 'wrong' })).toBe(401);
  });
});

describe('a Secret that cannot be used', () => {
  it('keeps the route closed for a missing Secret, with an error naming it on auth-secret', async () => {
    expect(await statusOf('missing.test', { user: 'ann', password: 'secret' })).toBe(401);
    expect(testCase().controller.routing.problemsOf('default/missing.test')).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${A}auth-secret"]`,
        message: expect.stringContaining('default/absent not found'),
      }),
    );
  });

  it('keeps the route closed until the Secret exists, then follows its changes without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    expect(await statusOf('later.test', { user: 'ann', password: 'secret' })).toBe(401);
    await server.apply(htdigest('later', [line('ann', 'Staff', 'secret')]));
    await eventually(async () =>
      expect(await statusOf('later.test', { user: 'ann', password: 'secret' })).toBe(200),
    );
    await server.apply(htdigest('later', [line('ann', 'Staff', 'changed')]));
    await eventually(async () =>
      expect(await statusOf('later.test', { user: 'ann', password: 'secret' })).toBe(401),
    );
    expect(await statusOf('later.test', { user: 'ann', password: 'changed' })).toBe(200);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
  });
});
