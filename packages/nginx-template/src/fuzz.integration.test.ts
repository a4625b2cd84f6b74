/**
 * Fuzz: hostile strings (quotes, braces, `;`, newlines, `$`, NUL, unicode, nginx and Lua
 * syntax, template syntax) in every user-text field of a route table, backend TLS settings too. nginx.conf must be byte
 * for byte the one of the same table without them (user text never reaches it), it must pass
 * `nginx -t`, and a running nginx must take the data: entries it refuses come back as a 422
 * naming their route (or key), and once those are left out, it serves the good routes next to
 * the hostile ones. Deterministic: a seeded generator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Route, RouteTable, VirtualHost } from '@ingresskit/route-model';
import {
  buildConfiguration,
  createSelfSignedCertificate,
  renderNginxConf,
  type DataPlaneRejection,
} from './index.js';
import { listDirectivePaths, parseNginxConf } from './testing/nginx-conf-parser.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestOrigin,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { createRandom } from './testing/random.js';

const ATOMS = [
  '"',
  "'",
  '{',
  '}',
  ';',
  '\n',
  '\r',
  '\t',
  ' ',
  '$',
  '${x}',
  '$host',
  '\u0000',
  '#',
  '\\',
  '\\"',
  '`',
  'é',
  '😀',
  '\ud800',
  '\udc00',
  '\u202e',
  '\u00a0',
  '*',
  '~',
  '(',
  ')',
  '|',
  '^',
  '[',
  ']',
  '?',
  '%',
  '%00',
  '&',
  '<',
  '>',
  '@',
  ':',
  ',',
  '=',
  '!',
  '/',
  '.',
  '-',
  '_',
  '{{',
  '}}',
  '{{{x}}}',
  'load_module',
  '_by_lua',
  'server',
  'location',
  ']]',
  '--[[',
  'end',
  'return',
  'include',
  '..',
  '//',
  '\\u0000',
];

const PAYLOADS = [
  'x"; } server { listen 9999; } #',
  '";load_module /tmp/evil.so;#',
  '\nallow all;\n',
  '/ok\n}\nserver { listen 1; }\n',
  '$(reboot)',
  '{{evil}}',
  '{{{evil}}}',
  '/a" { return 200 pwned; } location "/b',
  '/(?{evil})',
  '(unclosed',
  '[z-a]',
  '\\',
  '/\u0000',
  '\r\nSet-Cookie: x=1',
  '/' + 'a'.repeat(3000),
  '"]] os.execute("id") --[["',
  'content_by_lua_block { os.execute("id") }',
  '__proto__',
  'constructor',
  '',
  '😀\ud800',
  '10.0.0.0/8\ndeny all',
];

function createHostile(random: () => number): string {
  if (random() < 0.3) return PAYLOADS[Math.floor(random() * PAYLOADS.length)]!;
  const parts: string[] = [random() < 0.5 ? '/' : ''];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    parts.push(
      random() < 0.6
        ? ATOMS[Math.floor(random() * ATOMS.length)]!
        : 'abc'.slice(0, 1 + Math.floor(random() * 3)),
    );
  }
  return parts.join('');
}

const ROUTE_FIELDS = [
  'hostname',
  'routeId',
  'originName',
  'originNamespace',
  'originKind',
  'originField',
  'exactPath',
  'prefixPath',
  'regexPath',
  'method',
  'headerName',
  'headerValue',
  'headerRegex',
  'queryName',
  'queryValue',
  'queryRegex',
  'routeListener',
  'backendRef',
  'memberStatus',
  'redirectHostname',
  'redirectPath',
  'rewriteFull',
  'rewritePrefix',
  'rewritePattern',
  'rewriteReplacement',
  'requestHeaderName',
  'requestHeaderValue',
  'responseHeaderName',
  'responseHeaderValue',
  'removeHeader',
  'upstreamHost',
  'allowSource',
  'respondBody',
  'backendProtocol',
  'maxBodyBytes',
  'timeout',
  'mirror',
  'backendTlsCa',
  'backendTlsCiphers',
  'backendTlsServerName',
  'backendTlsClientCertificate',
] as const;
const TABLE_FIELDS = [
  'listenerName',
  'backendId',
  'endpointAddress',
  'externalName',
  'certificateId',
  'certificatePem',
  'tlsHostname',
] as const;
type Field = (typeof ROUTE_FIELDS)[number] | (typeof TABLE_FIELDS)[number];
const FIELDS: readonly Field[] = [...ROUTE_FIELDS, ...TABLE_FIELDS];

const certificate = createSelfSignedCertificate({ commonName: 'good.example.com' });

/** A route with one hostile field (cast where the field is typed narrowly: hostile input is untyped). */
function createHostileRoute(index: number, field: Field, value: string): { host: VirtualHost; route: Route } {
  const v = value as never;
  const route = createTestRoute(field === 'routeId' ? value : `fuzz-${index}`, {
    action: { type: 'forward', backends: [{ backend: field === 'backendRef' ? value : 'app', weight: 1 }] },
  });
  const path = route.match;
  if (field === 'originName') route.origin.name = value;
  if (field === 'originNamespace') route.origin.namespace = value;
  if (field === 'originKind') route.origin.kind = value;
  if (field === 'originField') route.origin.field = value;
  if (field === 'exactPath') path.path = { type: 'Exact', value };
  if (field === 'prefixPath') path.path = { type: 'PathPrefix', value };
  if (field === 'regexPath') path.path = { type: 'RegularExpression', value };
  if (field === 'method') path.method = value;
  if (field === 'headerName') path.headers = [{ name: value, type: 'Exact', value: 'x' }];
  if (field === 'headerValue') path.headers = [{ name: 'x-h', type: 'Exact', value }];
  if (field === 'headerRegex') path.headers = [{ name: 'x-h', type: 'RegularExpression', value }];
  if (field === 'queryName') path.queryParams = [{ name: value, type: 'Exact', value: 'x' }];
  if (field === 'queryValue') path.queryParams = [{ name: 'q', type: 'Exact', value }];
  if (field === 'queryRegex') path.queryParams = [{ name: 'q', type: 'RegularExpression', value }];
  if (field === 'routeListener') route.listeners = [value];
  if (field === 'memberStatus') route.action = { type: 'forward', backends: [{ weight: 1, statusCode: v }] };
  if (field === 'redirectHostname')
    route.action = { type: 'redirect', redirect: { statusCode: 302, hostname: value } };
  if (field === 'redirectPath')
    route.action = {
      type: 'redirect',
      redirect: { statusCode: 302, path: { type: 'ReplaceFullPath', value } },
    };
  if (field === 'rewriteFull') route.policy.rewrite = { type: 'ReplaceFullPath', value };
  if (field === 'rewritePrefix') route.policy.rewrite = { type: 'ReplacePrefixMatch', value };
  if (field === 'rewritePattern')
    route.policy.rewrite = { type: 'RegexReplace', pattern: value, replacement: '/$1' };
  if (field === 'rewriteReplacement')
    route.policy.rewrite = { type: 'RegexReplace', pattern: '^/(.*)', replacement: value };
  if (field === 'requestHeaderName') route.policy.requestHeaders = { set: [{ name: value, value: 'x' }] };
  if (field === 'requestHeaderValue') route.policy.requestHeaders = { add: [{ name: 'x-a', value }] };
  if (field === 'responseHeaderName') route.policy.responseHeaders = { add: [{ name: value, value: 'x' }] };
  if (field === 'responseHeaderValue') route.policy.responseHeaders = { set: [{ name: 'x-a', value }] };
  if (field === 'removeHeader') route.policy.requestHeaders = { remove: [value] };
  if (field === 'upstreamHost') route.policy.upstreamHost = value;
  if (field === 'allowSource') route.policy.allowSources = [value];
  if (field === 'respondBody') route.action = { type: 'respond', statusCode: 200, body: value };
  if (field === 'backendProtocol') route.policy.backendProtocol = v;
  if (field === 'maxBodyBytes') route.policy.maxBodyBytes = v;
  if (field === 'timeout') route.policy.timeouts = { readMs: v };
  if (field === 'mirror') route.policy.mirror = { backend: value };
  if (field.startsWith('backendTls')) {
    // No relay socket listens here: a backend that does not exist answers 503 before any connect.
    route.action = { type: 'forward', backends: [{ backend: 'nowhere', weight: 1 }] };
    route.policy.backendProtocol = 'HTTPS';
    route.policy.backendTls = {
      caCertificatesPem: field === 'backendTlsCa' ? value : certificate.certificatePem,
      verify: true,
      depth: 1,
      protocols: ['TLSv1.2'],
      ciphers: field === 'backendTlsCiphers' ? value : 'DEFAULT',
      serverName: field === 'backendTlsServerName' ? value : 'backend.internal',
      sendServerName: true,
    };
    if (field === 'backendTlsClientCertificate')
      route.policy.backendTls.clientCertificate = { certificatePem: value, privateKeyPem: value };
  }
  const host: VirtualHost = {
    hostname: field === 'hostname' ? value : `h${index}.example.com`,
    hostnameMatch: 'exact',
    routes: [route],
  };
  return { host, route };
}

let ports: { http: number; https: number };

function createBaseTable(listenerName = 'http'): RouteTable {
  return {
    listeners: [
      ...createListeners(ports).filter((listener) => listener.name !== 'http'),
      { name: listenerName, port: ports.http, protocol: 'HTTP' },
    ],
    virtualHosts: [
      {
        hostname: 'good.example.com',
        hostnameMatch: 'exact',
        routes: [
          createTestRoute('good', {
            match: { path: { type: 'PathPrefix', value: '/' } },
            action: { type: 'respond', statusCode: 200, body: 'good' },
          }),
        ],
      },
    ],
    tls: [{ hostname: 'good.example.com', certificate: 'good-cert', origin: createTestOrigin() }],
    certificates: [{ id: 'good-cert', ...certificate }],
    backends: [{ id: 'app', endpoints: [{ address: '127.0.0.1', port: 9 }] }],
  };
}

function createHostileTable(batch: { field: Field; value: string }[]): RouteTable {
  const table = createBaseTable();
  batch.forEach(({ field, value }, index) => {
    const { host } = createHostileRoute(index, field, value);
    table.virtualHosts.push(host);
    if (field === 'listenerName') table.listeners = createBaseTable(value).listeners;
    if (field === 'backendId')
      table.backends.push({ id: value, endpoints: [{ address: '127.0.0.1', port: 9 }] });
    if (field === 'endpointAddress')
      table.backends.push({ id: `b${index}`, endpoints: [{ address: value, port: 80 }] });
    if (field === 'externalName')
      table.backends.push({ id: `x${index}`, endpoints: [], externalName: { hostname: value, port: 80 } });
    if (field === 'certificateId') {
      table.certificates.push({ id: value, ...certificate });
      table.tls.push({ hostname: `c${index}.example.com`, certificate: value, origin: createTestOrigin() });
    }
    if (field === 'certificatePem')
      table.certificates.push({ id: `pem${index}`, certificatePem: value, privateKeyPem: value });
    if (field === 'tlsHostname')
      table.tls.push({ hostname: value, certificate: 'good-cert', origin: createTestOrigin() });
  });
  return table;
}

let plane: DataPlane;
let cleanConf: string;
let refusals = 0;
const renderOptions = () => ({
  controlSocketPath: plane.prefix.socketPath,
  listenAddresses: ['127.0.0.1'],
  workerProcesses: 1,
  workerConnections: 1024,
  exposeRouteId: true,
});

beforeAll(async () => {
  ports = await allocateListenerPorts();
  plane = await startDataPlane({ table: createBaseTable(), ports, workers: 1 });
  cleanConf = renderNginxConf(buildConfiguration(createBaseTable(), renderOptions()).configuration);
});

afterAll(async () => {
  await plane?.stop();
});

async function checkBatch(batch: { field: Field; value: string }[], label: string): Promise<void> {
  const table = createHostileTable(batch);
  let conf = '';
  expect(
    () => (conf = renderNginxConf(buildConfiguration(table, renderOptions()).configuration)),
    label,
  ).not.toThrow();
  expect(conf === cleanConf, `${label}: nginx.conf changed`).toBe(true);

  const first = await plane.push(table);
  let accepted = first;
  if (first.status === 422) {
    refusals++;
    const rejected = (first.json as DataPlaneRejection).rejected;
    for (const entry of rejected) {
      // Only what a route or a certificate can get wrong is refused, and it is named.
      expect(
        entry.routeId !== undefined || entry.key.startsWith('cert:'),
        `${label}: ${JSON.stringify(entry)}`,
      ).toBe(true);
    }
    accepted = await plane.push(table, {
      excludeRoutes: rejected.flatMap((entry) => (entry.routeId === undefined ? [] : [entry.routeId])),
      excludeKeys: rejected.filter((entry) => entry.routeId === undefined).map((entry) => entry.key),
    });
  }
  expect(accepted.status, `${label}: ${first.status} then ${JSON.stringify(accepted.json)}`).toBe(201);
  const good = await plane.request({ host: 'good.example.com', path: '/anything' });
  expect(good, label).toMatchObject({ status: 200, body: 'good' });
  const tls = await plane.request({ host: 'good.example.com', path: '/', tls: true });
  expect(tls, label).toMatchObject({ status: 200, peerCommonName: 'good.example.com' });
  for (let index = 0; index < batch.length; index++) {
    const response = await plane.request({ host: `h${index}.example.com`, path: '/x' });
    expect(
      response.status,
      `${label}: h${index} ${batch[index]!.field}=${JSON.stringify(batch[index]!.value)}`,
    ).not.toBe(0);
  }
}

describe('hostile route tables (fuzz, nginx)', () => {
  it('renders the router hook into nginx.conf and reports hostile values as problems', () => {
    const tree = parseNginxConf(cleanConf);
    expect(listDirectivePaths(tree)).toContain('http/server/location/rewrite_by_lua_block');
    const table = createHostileTable(
      FIELDS.map((field, index) => ({ field, value: PAYLOADS[index % PAYLOADS.length]! })),
    );
    const { problems } = buildConfiguration(table, renderOptions());
    expect(problems.length).toBeGreaterThan(5);
  });

  it('puts every fixed payload into every field, keeping nginx.conf and serving the good routes', async () => {
    for (const field of FIELDS) {
      await checkBatch(
        PAYLOADS.map((value) => ({ field, value })),
        `payloads in ${field}`,
      );
    }
  });

  it.each([1, 2, 3, 4])('survives 120 generated hostile values (seed %i)', async (seed) => {
    const random = createRandom(seed);
    const batch = Array.from({ length: 120 }, () => ({
      field: FIELDS[Math.floor(random() * FIELDS.length)]!,
      value: createHostile(random),
    }));
    await checkBatch(batch, `seed ${seed}`);
  });

  it('leaves no error of its own in the log: nginx logged nothing worse than a refused entry', async () => {
    expect(refusals).toBeGreaterThan(3);
    const log = await plane.nginx.errorLog();
    expect(log).not.toMatch(/\[(alert|crit|emerg)\]/);
    expect(log).not.toMatch(/lua entry thread aborted|runtime error/);
  });
});
