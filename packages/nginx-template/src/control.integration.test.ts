/**
 * The control endpoint through real nginx: what it refuses (and that a refused push stores
 * nothing), full pushes that delete, a worker far behind the change log, and a full shared dict.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffRouteTables, type Route, type RouteTable, type VirtualHost } from '@ingresskit/route-model';
import {
  createDataPlaneUpdate,
  createSelfSignedCertificate,
  DIGEST_ENDPOINT_PATH,
  type DataPlaneAccepted,
  type DataPlaneDigest,
  type DataPlaneRejection,
} from './index.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';

let ports: { http: number; https: number };
let plane: DataPlane;

function respondHost(hostname: string, routes: Route[]): VirtualHost {
  return { hostname, hostnameMatch: 'exact', routes };
}

function createTable(virtualHosts: VirtualHost[], extra: Partial<RouteTable> = {}): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts,
    tls: [],
    certificates: [],
    backends: [],
    ...extra,
  };
}

const good = createTestRoute('good', { match: { path: { type: 'PathPrefix', value: '/good' } } });
const badPath = createTestRoute('bad-path', {
  match: { path: { type: 'RegularExpression', value: '^/(unclosed' } },
});
const badHeader = createTestRoute('bad-header', {
  match: {
    path: { type: 'Exact', value: '/h' },
    headers: [{ name: 'x', type: 'RegularExpression', value: '[z-a]' }],
  },
});
const badRewrite = createTestRoute('bad-rewrite', {
  match: { path: { type: 'PathPrefix', value: '/rw' } },
  action: { type: 'forward', backends: [{ backend: 'none', weight: 1 }] },
  policy: { rewrite: { type: 'RegexReplace', pattern: '(?<', replacement: '/' } },
});
// JavaScript refuses this lookbehind-free PCRE feature; PCRE accepts it, and that is what counts.
const pcreOnly = createTestRoute('pcre-only', {
  match: { path: { type: 'RegularExpression', value: '^/possessive/a++$' } },
});

async function body(hostname: string, path: string): Promise<string> {
  const response = await plane.request({ host: hostname, path });
  return response.status === 200 ? response.body : `status ${response.status}`;
}

beforeAll(async () => {
  ports = await allocateListenerPorts();
  plane = await startDataPlane({
    table: createTable([]),
    ports,
    workers: 1,
    render: { sharedDictSize: '1m' },
  });
});

afterAll(async () => {
  await plane?.stop();
});

describe('POST /configuration/data', () => {
  it('answers 400 for a body that is not an update, and 405 for other methods', async () => {
    for (const raw of [
      '',
      'not json',
      '"text"',
      '{"set": 3}',
      '{"delete": {"a": 1}}',
      '{"full": "yes"}',
      '{"set": {}, "extra": 1}',
    ]) {
      expect((await plane.pushRaw(raw)).status, raw).toBe(400);
    }
    expect((await plane.status()).version).toBe(0);
    const { sendControlRequest } = await import('./testing/nginx-process.js');
    expect((await sendControlRequest(plane.prefix.socketPath, 'GET', '/configuration/data')).status).toBe(
      405,
    );
    expect((await sendControlRequest(plane.prefix.socketPath, 'GET', '/elsewhere')).status).toBe(404);
  });

  it('refuses every route whose regex PCRE cannot compile, names them, and stores nothing', async () => {
    const table = createTable([
      respondHost('mixed.example.com', [good, badPath, badHeader, badRewrite, pcreOnly]),
      respondHost('fine.example.com', [good]),
    ]);
    const versionBefore = (await plane.status()).version;
    const refused = await plane.push(table);
    expect(refused.status).toBe(422);
    const rejected = (refused.json as DataPlaneRejection).rejected;
    expect(rejected.map((entry) => [entry.key, entry.routeId])).toEqual([
      ['host:mixed.example.com', 'bad-header'],
      ['host:mixed.example.com', 'bad-path'],
      ['host:mixed.example.com', 'bad-rewrite'],
    ]);
    expect(rejected[1]!.message).toContain('^/(unclosed');
    expect((await plane.status()).version).toBe(versionBefore);
    expect(await body('fine.example.com', '/good')).toBe('status 503');

    const accepted = await plane.push(table, { excludeRoutes: rejected.map((entry) => entry.routeId!) });
    expect(accepted.status).toBe(201);
    expect(await body('mixed.example.com', '/good')).toBe('good');
    expect(await body('mixed.example.com', '/possessive/aaa')).toBe('pcre-only');
    expect(await body('fine.example.com', '/good')).toBe('good');
  });

  it('refuses annotation policies and canaries of the wrong shape', async () => {
    const GLOBAL_LIMIT = {
      scope: 's',
      limit: 1,
      window: 60,
      status: 429,
      key: [['var', 'remote_addr']],
      store: ['127.0.0.1', 11211, 50, 10_000, 5],
    };
    const broken: Record<string, unknown>[] = [
      { limits: { scope: 'a\nb', status: 503, conn: 1 } },
      { limits: { scope: 's', status: 503 } },
      { glimit: { ...GLOBAL_LIMIT, store: ['mc\r\nflush_all', 11211, 50, 10_000, 5] } },
      { glimit: { ...GLOBAL_LIMIT, store: ['127.0.0.1', 0, 50, 10_000, 5] } },
      { glimit: { ...GLOBAL_LIMIT, key: [] } },
      { glimit: { ...GLOBAL_LIMIT, window: 0 } },
      { auth: { realm: 'a"b', users: {} } },
      { digest: { realm: 'a"b', users: {} } },
      { digest: { realm: 'r', users: { ann: '{PLAIN}secret' } } },
      { affinity: { name: 'a;b', attributes: '; HttpOnly' } },
      { hash: [['var', 'request_uri; evil']] },
      { location: ['/a', '/b\r\nX: 1'] },
      { connection: 'close\r\nX: 1' },
      { extAuth: { url: 'file:///etc/passwd', host: 'x', method: 'GET' } },
      { extAuth: { url: 'http://a.example/\r\nX: 1', host: 'a.example', method: 'GET' } },
      { extAuth: { url: 'http://$host/', host: 'a.example', method: 'GET' } },
      { extAuth: { url: 'http://a.example/', host: 'a.example', method: 'GET;' } },
      { extAuth: { url: 'http://a.example/', host: 'a.example', method: 'GET', headers: ['X: 1'] } },
      {
        extAuth: {
          url: 'http://a.example/',
          host: 'a.example',
          method: 'GET',
          signin: 'https://$remote_addr/',
        },
      },
      { extAuth: { url: 'http://a.example/', host: 'a.example', method: 'GET', param: 'rd' } },
      {
        extAuth: {
          ...{ url: 'http://a.example/', host: 'a.example', method: 'GET' },
          cache: { key: [['text', 'k']], ttl: { '200': 5 } },
        },
      },
      {
        extAuth: {
          ...{ url: 'http://a.example/', host: 'a.example', method: 'GET' },
          cache: { key: [['var', 'http_x']], ttl: { '200': 0 } },
        },
      },
    ];
    const hostnames = broken.map((_, index) => `policy${index}.example.com`);
    const update = JSON.parse(
      createDataPlaneUpdate(createTable(hostnames.map((hostname) => respondHost(hostname, [good]))), {
        full: false,
      }),
    ) as { set: Record<string, { routes: Record<string, unknown>[] }> };
    broken.forEach((policy, index) => (update.set[`host:${hostnames[index]}`]!.routes[0]!.policy = policy));
    const canaryHost = 'canary.example.com';
    update.set[`host:${canaryHost}`] = structuredClone(update.set[`host:${hostnames[0]}`]!);
    update.set[`host:${canaryHost}`]!.routes[0] = {
      ...update.set[`host:${canaryHost}`]!.routes[0]!,
      policy: undefined,
      profile: 'ik_p_q1s1v11_b0_r3',
      protocol: 'HTTP',
      action: {
        type: 'forward',
        members: [{ backend: 'b', upto: 1 }],
        total: 1,
        canary: { members: [], total: 0, weight: 1, weightTotal: 100 },
      },
    };
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    const keys = (refused.json as DataPlaneRejection).rejected.map((entry) => entry.key);
    expect(keys).toEqual([`host:${canaryHost}`, ...hostnames.map((hostname) => `host:${hostname}`)].sort());
  });

  it('checks a shared policy once for the routes naming it, and refuses those naming one it refuses or lacks', async () => {
    const shared = createTestRoute('shared', { policy: { maxBodyBytes: 5 } });
    const update = JSON.parse(
      createDataPlaneUpdate(createTable([respondHost('shared.example.com', [shared])]), { full: false }),
    ) as { set: Record<string, { routes?: { sharedPolicy?: string }[]; cors?: unknown }> };
    const [policyKey] = Object.keys(update.set).filter((key) => key.startsWith('policy:'));
    const id = policyKey!.slice('policy:'.length);
    expect(update.set['host:shared.example.com']!.routes![0]!.sharedPolicy).toBe(id);
    const broken = structuredClone(update);
    broken.set[policyKey!] = { cors: { origin: '(?<', headers: [] } };
    const refused = await plane.pushRaw(JSON.stringify(broken));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual([
      {
        key: 'host:shared.example.com',
        routeId: 'shared',
        message: expect.stringContaining(`its policy ${id} is refused`),
      },
      { key: policyKey, message: expect.stringContaining('policy.cors.origin does not compile') },
    ]);
    const missing = structuredClone(update);
    delete missing.set[policyKey!];
    const lacking = await plane.pushRaw(JSON.stringify(missing));
    expect(lacking.status).toBe(422);
    expect((lacking.json as DataPlaneRejection).rejected).toEqual([
      {
        key: 'host:shared.example.com',
        routeId: 'shared',
        message: `names policy ${id}, which is neither pushed nor stored`,
      },
    ]);
    // Once stored, a later push may name it without carrying it again.
    expect((await plane.pushRaw(JSON.stringify(update))).status).toBe(201);
    expect((await plane.pushRaw(JSON.stringify(missing))).status).toBe(201);
    expect(
      (await plane.request({ host: 'shared.example.com', path: '/', method: 'POST', body: 'too large' }))
        .status,
    ).toBe(413);
  });

  it("refuses a mirroring route without the operator's profile when its mirror is in its shared policy", async () => {
    const mirrored = createTestRoute('mirrored', {
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
      policy: { mirror: { backend: 'shadow' } },
    });
    const update = JSON.parse(
      createDataPlaneUpdate(createTable([respondHost('mirror.example.com', [mirrored])]), { full: false }),
    ) as {
      set: Record<string, { routes?: { sharedPolicy?: string; profile?: string; policy?: unknown }[] }>;
    };
    const route = update.set['host:mirror.example.com']!.routes![0]!;
    expect(route.policy).toBeUndefined();
    expect(update.set[`policy:${route.sharedPolicy}`]).toEqual({ mirror: 'shadow' });
    expect((await plane.pushRaw(JSON.stringify(update))).status).toBe(201);
    // A profile of the catalogue, but not the operator's: nginx.conf has no mirroring location for it.
    route.profile = 'ik_p_q0s1v11_b0_r3';
    const refusal = [
      {
        key: 'host:mirror.example.com',
        routeId: 'mirrored',
        message: expect.stringContaining(
          "a mirroring route must have the profile of the operator's directives",
        ),
      },
    ];
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual(refusal);
    // The same when the policy is stored already and the push does not carry it.
    delete update.set[`policy:${route.sharedPolicy}`];
    const stored = await plane.pushRaw(JSON.stringify(update));
    expect(stored.status).toBe(422);
    expect((stored.json as DataPlaneRejection).rejected).toEqual(refusal);
  });

  it('refuses a route whose origin is not five strings', async () => {
    const hostnames = ['origin0.example.com', 'origin1.example.com', 'origin2.example.com'];
    const update = JSON.parse(
      createDataPlaneUpdate(createTable(hostnames.map((hostname) => respondHost(hostname, [good]))), {
        full: false,
      }),
    ) as { set: Record<string, { routes: Record<string, unknown>[] }> };
    const origins = [['ns', 'name', 'svc', '80'], ['ns', 'name', 'svc', 80, '/'], 'ns/name'];
    origins.forEach((origin, index) => (update.set[`host:${hostnames[index]}`]!.routes[0]!.origin = origin));
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual(
      hostnames.map((hostname) => ({
        key: `host:${hostname}`,
        routeId: 'good',
        message: expect.stringContaining('origin'),
      })),
    );
  });

  it('refuses entries of the wrong shape and certificates that do not parse', async () => {
    const certificate = createSelfSignedCertificate({ commonName: 'x.example.com' });
    const update = JSON.parse(
      createDataPlaneUpdate(
        createTable([respondHost('shape.example.com', [good])], {
          certificates: [
            { id: 'broken', certificatePem: 'not a pem', privateKeyPem: certificate.privateKeyPem },
            {
              id: 'swapped',
              certificatePem: certificate.certificatePem,
              privateKeyPem: certificate.certificatePem,
            },
          ],
          backends: [{ id: 'b', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
        }),
        { full: false },
      ),
    ) as { set: Record<string, Record<string, unknown>> };
    const host = update.set['host:shape.example.com'] as { routes: { action: unknown }[] };
    host.routes[0]!.action = { type: 'teleport' };
    update.set['backend:b'] = { endpoints: [['10.0.0.1; evil', 80]] };
    update.set['unknown:key'] = {};
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual([
      { key: 'backend:b', message: expect.stringContaining('endpoints[1]') },
      { key: 'cert:broken', message: expect.stringContaining('certificate cannot be parsed') },
      { key: 'cert:swapped', message: expect.stringContaining('private key cannot be parsed') },
      { key: 'host:shape.example.com', routeId: 'good', message: expect.stringContaining('action.type') },
      { key: 'unknown:key', message: 'unknown key' },
    ]);
  });

  it('refuses an ExternalName or auth-url naming a unix socket and a relay id that could be a path', async () => {
    const relayed = createTestRoute('relayed', {
      action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] },
    });
    const update = JSON.parse(
      createDataPlaneUpdate(createTable([respondHost('relay.example.com', [relayed])]), { full: false }),
    ) as { set: Record<string, unknown> };
    const host = update.set['host:relay.example.com'] as { routes: { policy?: unknown }[] };
    host.routes[0]!.policy = { relay: '../../control/ingres' };
    const authed = structuredClone(host.routes[0]!) as { id: string; policy: unknown };
    authed.id = 'authed';
    authed.policy = { extAuth: { url: 'http://unix:81/x', host: 'unix', method: 'GET' } };
    host.routes.push(authed);
    update.set['backend:unix'] = { endpoints: [], external: 'Unix:443' };
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual([
      { key: 'backend:unix', message: expect.stringContaining('unix socket') },
      { key: 'host:relay.example.com', routeId: 'authed', message: expect.stringContaining('unix socket') },
      { key: 'host:relay.example.com', routeId: 'relayed', message: expect.stringContaining('relay id') },
    ]);
  });

  it("refuses a route that would speak TLS to the relay's plain-text socket, its relay its own or shared", async () => {
    const route = (id: string) =>
      createTestRoute(id, { action: { type: 'forward', backends: [{ backend: 'b', weight: 1 }] } });
    const update = JSON.parse(
      createDataPlaneUpdate(
        createTable([respondHost('tls-relay.example.com', [route('own'), route('shared'), route('plain')])]),
        { full: false },
      ),
    ) as { set: Record<string, unknown> };
    const host = update.set['host:tls-relay.example.com'] as {
      routes: { policy?: unknown; sharedPolicy?: string; protocol?: string }[];
    };
    const [own, shared, plain] = host.routes;
    own!.protocol = 'HTTPS';
    own!.policy = { relay: '0123456789abcdef0123' };
    shared!.protocol = 'HTTPS';
    shared!.sharedPolicy = 'ab12';
    update.set['policy:ab12'] = { relay: '0123456789abcdef0123' };
    plain!.policy = { relay: '0123456789abcdef0123' };
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual([
      { key: 'host:tls-relay.example.com', routeId: 'own', message: expect.stringContaining('HTTP or GRPC') },
      {
        key: 'host:tls-relay.example.com',
        routeId: 'shared',
        message: expect.stringContaining('HTTP or GRPC'),
      },
    ]);
  });

  it('refuses a host whose client certificate policy has a CA or subject pattern nginx cannot use', async () => {
    const ca = createSelfSignedCertificate({ commonName: 'Client CA' }).certificatePem;
    const guarded = (hostname: string) =>
      respondHost(hostname, [
        createTestRoute(`${hostname}-route`, {
          policy: { clientCertificate: { caCertificatesPem: ca, verify: 'on', depth: 1 } },
        }),
      ]);
    const update = JSON.parse(
      createDataPlaneUpdate(
        createTable(['ca.example.com', 'cn.example.com', 'ok.example.com'].map(guarded)),
        {
          full: false,
        },
      ),
    ) as { set: Record<string, { clientCert: Record<string, unknown> }> };
    update.set['host:ca.example.com']!.clientCert.ca = ca.replace(/[A-Za-z]{8}\n/, 'AAAAAAAA\n');
    // PCRE refuses a group name used twice; the push must not store what a handshake cannot use.
    update.set['host:cn.example.com']!.clientCert.subject = 'CN=(?<n>a)(?<n>b)';
    const refused = await plane.pushRaw(JSON.stringify(update));
    expect(refused.status).toBe(422);
    expect((refused.json as DataPlaneRejection).rejected).toEqual([
      { key: 'host:ca.example.com', message: expect.stringContaining('clientCert.ca cannot be parsed') },
      { key: 'host:cn.example.com', message: expect.stringContaining('clientCert.subject does not compile') },
    ]);
  });

  it('deletes what a full push leaves out, and only what a delta removes', async () => {
    const both = createTable([
      respondHost('one.example.com', [good]),
      respondHost('two.example.com', [good]),
    ]);
    expect((await plane.push(both)).status).toBe(201);
    expect(await body('two.example.com', '/good')).toBe('good');
    const onlyOne = createTable([respondHost('one.example.com', [good])]);
    expect((await plane.push(onlyOne)).status).toBe(201);
    expect(await body('two.example.com', '/good')).toBe('status 404');
    expect(await body('mixed.example.com', '/good')).toBe('status 404');
    expect((await plane.push(diffRouteTables(onlyOne, both))).status).toBe(201);
    expect(await body('two.example.com', '/good')).toBe('good');
    expect((await plane.push(diffRouteTables(both, onlyOne))).status).toBe(201);
    expect(await body('two.example.com', '/good')).toBe('status 404');
    expect(await body('one.example.com', '/good')).toBe('good');
  });

  it('rebuilds a worker that missed more pushes than the change log keeps', async () => {
    let table = createTable([respondHost('one.example.com', [good])]);
    expect((await plane.push(table)).status).toBe(201);
    expect(await body('one.example.com', '/good')).toBe('good');
    // One worker, no requests in between: it is 300 versions behind when the next request comes.
    for (let generation = 0; generation < 300; generation++) {
      const next = createTable([
        respondHost('one.example.com', [
          createTestRoute(`g${generation}`, { match: { path: { type: 'PathPrefix', value: '/good' } } }),
        ]),
        ...(generation === 5 ? [respondHost('transient.example.com', [good])] : []),
      ]);
      expect((await plane.push(diffRouteTables(table, next))).status).toBe(201);
      table = next;
    }
    expect(await body('one.example.com', '/good')).toBe('g299');
    expect(await body('transient.example.com', '/good')).toBe('status 404');
  });

  it('serves a full push that changes more than a thousand keys, which workers apply by rebuilding', async () => {
    const many = (count: number) =>
      createTable(
        Array.from({ length: count }, (_, index) =>
          respondHost(`m${index}.example.com`, [
            createTestRoute(`m${index}`, { match: { path: { type: 'PathPrefix', value: '/' } } }),
          ]),
        ),
      );
    expect((await plane.push(many(1200))).status).toBe(201);
    expect(await body('m1199.example.com', '/')).toBe('m1199');
    expect((await plane.push(many(10))).status).toBe(201);
    expect(await body('m9.example.com', '/')).toBe('m9');
    expect(await body('m10.example.com', '/')).toBe('status 404');
    expect(await body('m1199.example.com', '/')).toBe('status 404');
  });

  it('answers 507 when the shared dict is full and keeps serving what it had', async () => {
    const base = createTable([respondHost('one.example.com', [good])]);
    expect((await plane.push(base)).status).toBe(201);
    let table = base;
    let status = 201;
    let json: unknown;
    for (let index = 0; index < 12 && status === 201; index++) {
      const next = createTable([
        ...table.virtualHosts,
        respondHost(`big${index}.example.com`, [
          createTestRoute(`big${index}`, {
            action: { type: 'respond', statusCode: 200, body: 'x'.repeat(200_000) },
          }),
        ]),
      ]);
      ({ status, json } = await plane.push(diffRouteTables(table, next)));
      if (status === 201) table = next;
    }
    expect(status).toBe(507);
    expect(JSON.stringify(json)).toContain('sharedDictSize');
    expect(await body('one.example.com', '/good')).toBe('good');
    expect((await body('big0.example.com', '/')).length).toBe(200_000);
    expect((await plane.push(base)).status).toBe(201);
    expect(await body('big0.example.com', '/')).toBe('status 404');
  });
});

describe('the content digest', () => {
  async function digest(): Promise<DataPlaneDigest> {
    const { sendControlRequest } = await import('./testing/nginx-process.js');
    const response = await sendControlRequest(plane.prefix.socketPath, 'GET', DIGEST_ENDPOINT_PATH);
    expect(response.status).toBe(200);
    return response.json as DataPlaneDigest;
  }

  async function accepted(change: Parameters<DataPlane['push']>[0]): Promise<DataPlaneAccepted> {
    const response = await plane.push(change);
    expect(response.status).toBe(201);
    return response.json as DataPlaneAccepted;
  }

  it('chains the pushes, agrees with the stored entries, and depends on the content only', async () => {
    const one = createTable([respondHost('one.example.com', [good])]);
    const both = createTable([
      respondHost('one.example.com', [good]),
      respondHost('two.example.com', [good]),
    ]);
    const first = await accepted(one);
    const second = await accepted(diffRouteTables(one, both));
    expect(second).toMatchObject({ previousVersion: first.version, previousDigest: first.digest });
    expect(second.digest).not.toBe(first.digest);
    expect(await digest()).toMatchObject({
      version: second.version,
      digest: second.digest,
      stored: second.digest,
    });
    // Back to `one` by a delta, then again by a full push: the same content has the same digest.
    const back = await accepted(diffRouteTables(both, one));
    expect(back.digest).toBe(first.digest);
    const again = await accepted(one);
    expect(again).toMatchObject({ digest: first.digest, stored: 0, deleted: 0 });
    expect((await digest()).digest).toBe(first.digest);
  });

  it('shows an entry changed behind the pushes', async () => {
    const one = createTable([respondHost('one.example.com', [good])]);
    const pushed = await accepted(one);
    // What a write that died half-way, or one that bypassed the control endpoint, leaves behind.
    await plane.tamper('host:one.example.com', '{"tampered":true}');
    const after = await digest();
    expect(after.stored).toBe(pushed.digest);
    expect(after.digest).not.toBe(pushed.digest);
  });
});
