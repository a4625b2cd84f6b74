import { describe, expect, it } from 'vitest';
import {
  buildConfiguration,
  createCertificateCache,
  type ConfigurationInput,
  type Location,
  type SecretLike,
  type Server,
} from './index.js';
import {
  A,
  endpointSlice,
  externalService,
  ingress,
  path,
  readTlsFixture,
  service,
  tlsSecret,
} from './testing/fixtures.js';

function build(input: Partial<ConfigurationInput> & Pick<ConfigurationInput, 'ingresses'>, now?: number) {
  return buildConfiguration(
    { services: [service('app'), service('other')], ...input },
    now === undefined ? {} : { now },
  );
}

function serverOf(result: ReturnType<typeof build>, host: string): Server {
  const server = result.configuration.servers.find((candidate) => candidate.host === host);
  if (!server) throw new Error(`no server ${host}`);
  return server;
}

function routes(server: Server): string[] {
  return server.locations.map(
    (location) => `${location.match} ${location.path} -> ${describeTarget(location)}`,
  );
}

function describeTarget(location: Location): string {
  return location.target.kind === 'backend' ? location.target.backend : String(location.target.status);
}

describe('buildConfiguration', () => {
  describe('path types', () => {
    it('renders Prefix /foo as an exact /foo and a prefix /foo/ so /foobar does not match', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/foo', 'Prefix', 'app')] })],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'exact /foo -> default/app:80',
        'prefix /foo/ -> default/app:80',
        'prefix / -> 404',
      ]);
    });

    it('ignores a trailing slash of a Prefix path, as the Ingress spec says', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/foo/', 'Prefix', 'app')] })],
      });
      expect(routes(serverOf(result, 'a.example.com')).slice(0, 2)).toEqual([
        'exact /foo -> default/app:80',
        'prefix /foo/ -> default/app:80',
      ]);
    });

    it('renders Prefix / as the root location, leaving no fallback', () => {
      const result = build({ ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })] });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual(['prefix / -> default/app:80']);
    });

    it('renders Exact as an exact location only', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/foo', 'Exact', 'app')] })],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'exact /foo -> default/app:80',
        'prefix / -> 404',
      ]);
    });

    it('renders ImplementationSpecific as a plain nginx prefix without use-regex', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/foo', 'ImplementationSpecific', 'app')] })],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'prefix /foo -> default/app:80',
        'prefix / -> 404',
      ]);
    });

    it('renders ImplementationSpecific as an anchored regex with use-regex', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/api/v[0-9]+', 'ImplementationSpecific', 'app')] },
            {
              annotations: { [`${A}use-regex`]: 'true' },
            },
          ),
        ],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'prefix / -> 404',
        'regex ^/api/v[0-9]+ -> default/app:80',
      ]);
    });

    it('keeps Exact and Prefix paths literal even with use-regex', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/a.b', 'Exact', 'app')] },
            { annotations: { [`${A}use-regex`]: 'true' } },
          ),
        ],
      });
      expect(routes(serverOf(result, 'a.example.com'))[0]).toBe('exact /a.b -> default/app:80');
    });

    it('treats a missing path as /', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path(undefined, 'Prefix', 'app')] })],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual(['prefix / -> default/app:80']);
    });

    it('orders exact, then prefixes longest first, then regexes longest first', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            {
              'a.example.com': [
                path('/a', 'Prefix', 'app'),
                path('/a/b/c', 'Prefix', 'app'),
                path('/z', 'Exact', 'app'),
                path('/x+', 'ImplementationSpecific', 'app'),
                path('/x/y+', 'ImplementationSpecific', 'app'),
              ],
            },
            { annotations: { [`${A}use-regex`]: 'true' } },
          ),
        ],
      });
      expect(serverOf(result, 'a.example.com').locations.map((l) => `${l.match} ${l.path}`)).toEqual([
        'exact /a',
        'exact /a/b/c',
        'exact /z',
        'prefix /a/b/c/',
        'prefix /a/',
        'prefix /',
        'regex ^/x/y+',
        'regex ^/x+',
      ]);
    });

    it('reports a missing or unknown pathType and leaves only that path out', () => {
      const result = build({
        ingresses: [
          ingress('a', {
            'a.example.com': [
              path('/x', undefined, 'app'),
              path('/y', 'Glob', 'app'),
              path('/z', 'Exact', 'app'),
            ],
          }),
        ],
      });
      expect(result.problems.map((p) => p.field)).toEqual([
        'spec.rules[0].http.paths[0].pathType',
        'spec.rules[0].http.paths[1].pathType',
      ]);
      expect(routes(serverOf(result, 'a.example.com'))[0]).toBe('exact /z -> default/app:80');
    });
  });

  describe('conflicts', () => {
    it('gives the same host and path to the oldest Ingress and reports the younger', () => {
      const result = build({
        ingresses: [
          ingress(
            'young',
            { 'a.example.com': [path('/x', 'Prefix', 'other')] },
            { created: '2024-02-01T00:00:00Z' },
          ),
          ingress(
            'old',
            { 'a.example.com': [path('/x', 'Prefix', 'app')] },
            { created: '2024-01-01T00:00:00Z' },
          ),
        ],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toContain('prefix /x/ -> default/app:80');
      expect(result.problems).toEqual([
        expect.objectContaining({
          object: { kind: 'Ingress', namespace: 'default', name: 'young' },
          field: 'spec.rules[0].http.paths[0]',
          severity: 'error',
          message: expect.stringContaining('older Ingress default/old'),
        }),
      ]);
    });

    it('breaks creation-time ties by namespace, then name', () => {
      const result = build({
        ingresses: [
          ingress('b', { 'a.example.com': [path('/x', 'Exact', 'other')] }),
          ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }),
        ],
      });
      expect(routes(serverOf(result, 'a.example.com'))[0]).toBe('exact /x -> default/app:80');
      expect(result.problems[0]?.object.name).toBe('b');
    });

    it('accepts Date creation timestamps as listed objects carry them', () => {
      const old = ingress('z-old', { 'a.example.com': [path('/x', 'Exact', 'app')] });
      (old.metadata as { creationTimestamp: unknown }).creationTimestamp = new Date('2023-01-01T00:00:00Z');
      const result = build({
        ingresses: [ingress('a-new', { 'a.example.com': [path('/x', 'Exact', 'other')] }), old],
      });
      expect(routes(serverOf(result, 'a.example.com'))[0]).toBe('exact /x -> default/app:80');
    });

    it('lets an Exact path win the exact location over an older Prefix path, without a problem', () => {
      const result = build({
        ingresses: [
          ingress(
            'old',
            { 'a.example.com': [path('/x', 'Prefix', 'app')] },
            { created: '2024-01-01T00:00:00Z' },
          ),
          ingress(
            'new',
            { 'a.example.com': [path('/x', 'Exact', 'other')] },
            { created: '2024-02-01T00:00:00Z' },
          ),
        ],
      });
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'exact /x -> default/other:80',
        'prefix /x/ -> default/app:80',
        'prefix / -> 404',
      ]);
      expect(result.problems).toEqual([]);
    });

    it('treats Prefix /x and ImplementationSpecific /x/ as the same location', () => {
      const result = build({
        ingresses: [
          ingress('a', {
            'a.example.com': [path('/x', 'Prefix', 'app'), path('/x/', 'ImplementationSpecific', 'other')],
          }),
        ],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[1]',
          message: expect.stringContaining('earlier path of this Ingress'),
        }),
      ]);
    });

    it('keeps paths of different hosts apart', () => {
      const result = build({
        ingresses: [
          ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }),
          ingress('b', { 'b.example.com': [path('/x', 'Exact', 'other')] }),
        ],
      });
      expect(result.problems).toEqual([]);
      expect(result.configuration.servers.map((s) => s.host)).toEqual(['a.example.com', 'b.example.com']);
    });
  });

  describe('hosts', () => {
    it('puts rules without a host into the catch-all server', () => {
      const result = build({ ingresses: [ingress('a', { '': [path('/x', 'Exact', 'app')] })] });
      expect(result.configuration.servers).toEqual([]);
      expect(routes(result.configuration.defaultServer)).toEqual([
        'exact /x -> default/app:80',
        'prefix / -> 404',
      ]);
    });

    it('accepts a one-label wildcard host', () => {
      const result = build({ ingresses: [ingress('a', { '*.example.com': [path('/', 'Prefix', 'app')] })] });
      expect(result.configuration.servers.map((s) => s.host)).toEqual(['*.example.com']);
    });

    it.each([
      'UPPER.example.com',
      'a..b',
      '-a.example.com',
      'a_b.example.com',
      '*.*.example.com',
      'a.*.example.com',
      '10.0.0.1',
      'exa mple.com',
      'a.example.com;',
      'a"b',
      'é.example.com',
      `${'a'.repeat(64)}.example.com`,
    ])('reports the invalid host %j and serves the rest of the Ingress', (host) => {
      const result = build({
        ingresses: [
          ingress('a', {
            [host]: [path('/', 'Prefix', 'app')],
            'ok.example.com': [path('/', 'Prefix', 'app')],
          }),
        ],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({ field: 'spec.rules[0].host', severity: 'error', value: host }),
      ]);
      expect(result.configuration.servers.map((s) => s.host)).toEqual(['ok.example.com']);
    });

    it.each([
      '/a b',
      '/a;b',
      '/a{b}',
      '/a"b',
      '/a$b',
      '/a#b',
      '/a\nb',
      '/a\\b',
      'relative',
      '/ä',
      `/${'a'.repeat(1024)}`,
    ])('reports the invalid literal path %j', (value) => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path(value, 'Prefix', 'app')] })],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({ field: 'spec.rules[0].http.paths[0].path', severity: 'error' }),
      ]);
    });

    it.each([
      '/a(',
      '/a)',
      '/(?i)a',
      '/(?=x)',
      '/\\1',
      '/a"',
      '/a b',
      '/a\n',
      '/a;b',
      '/a{2,1}',
      'x',
      '/\\n',
    ])('reports the invalid regex path %j', (value) => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path(value, 'ImplementationSpecific', 'app')] },
            { annotations: { [`${A}use-regex`]: 'true' } },
          ),
        ],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({ field: 'spec.rules[0].http.paths[0].path', severity: 'error' }),
      ]);
    });
  });

  describe('backends', () => {
    it('resolves a port by name and by number to the same backend', () => {
      const result = build({
        ingresses: [
          ingress('a', {
            'a.example.com': [path('/x', 'Exact', 'app', 'http'), path('/y', 'Exact', 'app', 80)],
          }),
        ],
        endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1'])],
      });
      expect(result.configuration.backends).toEqual([
        {
          name: 'default/app:80',
          service: { namespace: 'default', name: 'app' },
          port: 80,
          endpoints: [{ address: '10.0.0.1', port: 8080 }],
        },
      ]);
    });

    it('keeps only ready, non-terminating endpoints of the matching slice port, sorted and unique', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })],
        services: [
          service('app', [
            { name: 'http', port: 80 },
            { name: 'metrics', port: 9090 },
          ]),
        ],
        endpointSlices: [
          endpointSlice('app', 8080, [
            '10.0.0.3',
            { address: '10.0.0.1' },
            { address: '10.0.0.9', ready: false },
            { address: '10.0.0.8', ready: true, terminating: true },
            '10.0.0.3',
            'not-an-ip',
          ]),
          endpointSlice('app', 8080, ['10.0.0.2'], { name: 'app-def' }),
          endpointSlice('app', 9999, ['10.0.0.7'], { name: 'app-metrics', portName: 'metrics' }),
          endpointSlice('app', 8080, ['fd00::1'], { name: 'app-v6', addressType: 'IPv6' }),
          endpointSlice('app', 8080, ['app.internal'], { name: 'app-fqdn', addressType: 'FQDN' }),
          endpointSlice('other', 8080, ['10.9.9.9'], { name: 'other-1' }),
        ],
      });
      expect(result.configuration.backends[0]?.endpoints).toEqual([
        { address: '10.0.0.1', port: 8080 },
        { address: '10.0.0.2', port: 8080 },
        { address: '10.0.0.3', port: 8080 },
        { address: 'fd00::1', port: 8080 },
      ]);
    });

    it('accepts EndpointSlices grouped by namespace/service and Services keyed by namespace/name', () => {
      const result = buildConfiguration({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })],
        services: new Map([['default/app', service('app')]]),
        endpointSlices: new Map([['default/app', [endpointSlice('app', 8080, ['10.0.0.1'])]]]),
      });
      expect(result.configuration.backends[0]?.endpoints).toEqual([{ address: '10.0.0.1', port: 8080 }]);
    });

    it('reports a missing Service and still owns the path, answering 503 until it exists', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'ghost')] })],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[0].backend.service',
          message: expect.stringContaining('not found'),
        }),
      ]);
      expect(result.configuration.backends).toEqual([
        {
          name: 'default/ghost:80',
          service: { namespace: 'default', name: 'ghost' },
          port: 80,
          endpoints: [],
        },
      ]);
    });

    it('reports a port the Service does not have', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app', 'grpc')] })],
      });
      expect(result.problems[0]?.message).toContain('no port named "grpc"');
      expect(result.configuration.backends[0]?.endpoints).toEqual([]);
    });

    it('proxies ExternalName Services to their host instead of balancing them', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'ext', 443)] })],
        services: [externalService('ext', 'api.example.org')],
      });
      expect(result.problems).toEqual([]);
      expect(result.configuration.backends).toEqual([
        {
          name: 'default/ext:443',
          service: { namespace: 'default', name: 'ext' },
          port: 443,
          externalName: 'api.example.org',
          endpoints: [],
        },
      ]);
    });

    it('resolves a named port of an ExternalName Service from its ports', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'ext', 'http')] })],
        services: [externalService('ext', 'api.example.org', 8443)],
      });
      expect(result.configuration.backends[0]).toMatchObject({ name: 'default/ext:8443', port: 8443 });
    });

    it.each(['bad host', 'a;b', '-x', ''])('reports the invalid externalName %j', (externalName) => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'ext', 443)] })],
        services: [externalService('ext', externalName)],
      });
      expect(result.problems[0]?.message).toContain('invalid spec.externalName');
      expect(result.configuration.backends[0]?.externalName).toBeUndefined();
    });

    it.each([
      [{ service: { name: 'app', port: {} } }, 'exactly one of number or name'],
      [{ service: { name: 'app', port: { number: 80, name: 'http' } } }, 'exactly one of number or name'],
      [{ service: { name: 'app', port: { number: 0 } } }, '1-65535'],
      [{ service: { name: 'app', port: { number: 70000 } } }, '1-65535'],
      [{ service: { name: 'app', port: { name: 'a"b' } } }, 'IANA service name'],
      [{ service: { name: 'App;', port: { number: 80 } } }, 'RFC 1123 label'],
      [{ resource: { kind: 'Bucket', name: 'x' } }, 'resource backends'],
      [{}, 'backend.service is required'],
      ['nonsense', 'must be an object'],
    ])('reports the invalid backend %j', (backend, message) => {
      const result = build({
        ingresses: [
          ingress('a', {
            'a.example.com': [{ path: '/', pathType: 'Prefix', backend }, path('/ok', 'Exact', 'app')],
          }),
        ],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({ message: expect.stringContaining(message) }),
      ]);
      expect(routes(serverOf(result, 'a.example.com'))).toEqual([
        'exact /ok -> default/app:80',
        'prefix / -> 404',
      ]);
    });
  });

  describe('default backends', () => {
    it('answers 404 from the catch-all and unmatched paths without a default backend', () => {
      const result = build({ ingresses: [] });
      expect(routes(result.configuration.defaultServer)).toEqual(['prefix / -> 404']);
    });

    it('sends unmatched requests to the controller default backend', () => {
      const result = build({
        ingresses: [ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] })],
        services: [service('app'), service('fallback', [{ port: 8080 }], 'system')],
        defaultBackend: { namespace: 'system', name: 'fallback', port: 8080 },
      });
      expect(routes(result.configuration.defaultServer)).toEqual(['prefix / -> system/fallback:8080']);
      expect(routes(serverOf(result, 'a.example.com'))).toContain('prefix / -> system/fallback:8080');
    });

    it('uses spec.defaultBackend for its own hosts and, for the oldest Ingress, the catch-all', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/x', 'Exact', 'app')] },
            { defaultBackend: { service: 'other', port: 80 } },
          ),
          ingress(
            'b',
            { 'b.example.com': [path('/x', 'Exact', 'app')] },
            { defaultBackend: { service: 'app', port: 'http' }, created: '2025-01-01T00:00:00Z' },
          ),
        ],
      });
      expect(routes(result.configuration.defaultServer)).toEqual(['prefix / -> default/other:80']);
      expect(routes(serverOf(result, 'a.example.com'))).toContain('prefix / -> default/other:80');
      expect(routes(serverOf(result, 'b.example.com'))).toContain('prefix / -> default/app:80');
      expect(result.problems).toEqual([
        expect.objectContaining({
          object: expect.objectContaining({ name: 'b' }),
          field: 'spec.defaultBackend',
          severity: 'warning',
        }),
      ]);
    });

    it('reports an invalid controller default backend and falls back to 404', () => {
      const result = build({ ingresses: [], defaultBackend: { namespace: 'Bad NS', name: 'x', port: 80 } });
      expect(result.problems[0]).toMatchObject({ object: { kind: 'Service' }, field: 'defaultBackend' });
      expect(routes(result.configuration.defaultServer)).toEqual(['prefix / -> 404']);
    });
  });

  describe('TLS', () => {
    it('references a validated certificate by a content-hash file name', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
          ),
        ],
        secrets: [tlsSecret('cert', 'secure')],
      });
      expect(result.problems).toEqual([]);
      const [certificate] = result.configuration.certificates;
      expect(certificate?.fileName).toMatch(/^[0-9a-f]{32}\.pem$/);
      expect(certificate?.pem).toContain('-----BEGIN CERTIFICATE-----');
      expect(certificate?.pem).toContain('-----BEGIN PRIVATE KEY-----');
      expect(certificate?.secrets).toEqual([{ namespace: 'default', name: 'cert' }]);
      expect(serverOf(result, 'secure.example.com').tls).toEqual({
        certificate: certificate?.fileName,
        secret: { namespace: 'default', name: 'cert' },
      });
    });

    it('applies a TLS entry without hosts to every host of its Ingress', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ secretName: 'cert' }] },
          ),
        ],
        secrets: [tlsSecret('cert', 'secure')],
      });
      expect(serverOf(result, 'secure.example.com').tls).toBeDefined();
    });

    it('redirects to HTTPS on TLS hosts by default, and not when ssl-redirect is false', () => {
      const tls = [{ hosts: ['secure.example.com'], secretName: 'cert' }];
      const on = build({
        ingresses: [ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }, { tls })],
        secrets: [tlsSecret('cert', 'secure')],
      });
      const off = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls, annotations: { [`${A}ssl-redirect`]: 'false' } },
          ),
        ],
        secrets: [tlsSecret('cert', 'secure')],
      });
      expect(serverOf(on, 'secure.example.com').locations[0]?.sslRedirect).toBe(true);
      expect(serverOf(off, 'secure.example.com').locations[0]?.sslRedirect).toBe(false);
    });

    it('redirects without TLS only with force-ssl-redirect', () => {
      const plain = build({ ingresses: [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })] });
      const forced = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}force-ssl-redirect`]: 'true' } },
          ),
        ],
      });
      expect(serverOf(plain, 'a.example.com').locations[0]?.sslRedirect).toBe(false);
      expect(serverOf(forced, 'a.example.com').locations[0]?.sslRedirect).toBe(true);
    });

    it.each([
      ['a missing Secret', undefined, 'not found'],
      [
        'a Secret without tls.key',
        { metadata: { namespace: 'default', name: 'cert' }, data: { 'tls.crt': 'eA==' } },
        'must hold tls.crt and tls.key',
      ],
      [
        'non-base64 data',
        { metadata: { namespace: 'default', name: 'cert' }, data: { 'tls.crt': '!!', 'tls.key': '!!' } },
        'base64',
      ],
      [
        'stringData that is not text',
        {
          metadata: { namespace: 'default', name: 'cert' },
          stringData: { 'tls.crt': 5, 'tls.key': readTlsFixture('secure.key') } as never,
        },
        'text in stringData',
      ],
      [
        'a Secret with neither data nor stringData',
        { metadata: { namespace: 'default', name: 'cert' }, type: 'kubernetes.io/tls' },
        'has no data',
      ],
      ['text that is no PEM', tlsSecret('cert', { crt: 'hello', key: 'world' }), 'no PEM certificate'],
      [
        'a corrupt certificate',
        tlsSecret('cert', {
          crt: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
          key: readTlsFixture('secure.key'),
        }),
        'not a valid X.509 certificate',
      ],
      [
        'a corrupt key',
        tlsSecret('cert', { crt: readTlsFixture('secure.crt'), key: 'nope' }),
        'not an unencrypted PEM private key',
      ],
      [
        'a key of another certificate',
        tlsSecret('cert', { crt: readTlsFixture('secure.crt'), key: readTlsFixture('other.key') }),
        'does not match',
      ],
    ])('reports %s and serves the host without TLS', (_what, secret, message) => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
          ),
        ],
        secrets: secret === undefined ? [] : [secret],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.tls[0].secretName',
          severity: 'error',
          message: expect.stringContaining(message),
        }),
      ]);
      expect(serverOf(result, 'secure.example.com').tls).toBeUndefined();
      expect(result.configuration.certificates).toEqual([]);
      expect(serverOf(result, 'secure.example.com').locations[0]?.sslRedirect).toBe(false);
    });

    it('reads stringData as the API server does: plain text, winning over data for the same key', () => {
      const tlsIngress = ingress(
        'a',
        { 'secure.example.com': [path('/', 'Prefix', 'app')] },
        { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
      );
      const fromData = build({ ingresses: [tlsIngress], secrets: [tlsSecret('cert', 'secure')] });
      const plain = { 'tls.crt': readTlsFixture('secure.crt'), 'tls.key': readTlsFixture('secure.key') };
      const metadata = { namespace: 'default', name: 'cert' };
      const encodedOther = tlsSecret('cert', 'other').data;
      const inputs: Record<string, SecretLike> = {
        'stringData only': { metadata, stringData: plain },
        'stringData over other data': { metadata, data: encodedOther, stringData: plain },
        'one key in each': {
          metadata,
          data: { 'tls.crt': tlsSecret('cert', 'secure').data!['tls.crt']! },
          stringData: { 'tls.key': plain['tls.key'] },
        },
      };
      expect(fromData.problems).toEqual([]);
      for (const [what, secret] of Object.entries(inputs)) {
        const result = build({ ingresses: [tlsIngress], secrets: [secret] });
        expect(result.problems, what).toEqual([]);
        expect(result.configuration.certificates, what).toEqual(fromData.configuration.certificates);
      }
      const cache = createCertificateCache();
      const viaCache = buildConfiguration(
        { ingresses: [tlsIngress], services: [service('app')], secrets: [inputs['stringData only']!] },
        { certificateCache: cache },
      );
      expect(viaCache.configuration.certificates).toEqual(fromData.configuration.certificates);
      // The same characters in data (base64) and in stringData (text) are different content.
      const swapped = buildConfiguration(
        {
          ingresses: [tlsIngress],
          services: [service('app')],
          secrets: [{ metadata, data: plain }],
        },
        { certificateCache: cache },
      );
      expect(swapped.configuration.certificates).toEqual([]);
    });

    it('warns when the certificate does not cover the host, and still uses it', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
          ),
        ],
        secrets: [tlsSecret('cert', 'other')],
      });
      expect(result.problems).toEqual([
        expect.objectContaining({
          severity: 'warning',
          message: expect.stringContaining('does not cover host secure.example.com'),
        }),
      ]);
      expect(serverOf(result, 'secure.example.com').tls).toBeDefined();
    });

    it('checks a wildcard host against a wildcard certificate', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { '*.wild.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['*.wild.example.com'], secretName: 'cert' }] },
          ),
        ],
        secrets: [tlsSecret('cert', 'wildcard')],
      });
      expect(result.problems).toEqual([]);
    });

    it('warns about an expired certificate when given the time', () => {
      const input = {
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
          ),
        ],
        secrets: [tlsSecret('cert', 'secure')],
      };
      expect(build(input, Date.parse('2030-01-01T00:00:00Z')).problems).toEqual([]);
      expect(build(input, Date.parse('2200-01-01T00:00:00Z')).problems).toEqual([
        expect.objectContaining({ severity: 'warning', message: expect.stringContaining('expired') }),
      ]);
    });

    it('uses the oldest Ingress TLS entry for a host and warns the others', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/a', 'Exact', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'one' }] },
          ),
          ingress(
            'b',
            { 'secure.example.com': [path('/b', 'Exact', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'two' }], created: '2025-01-01T00:00:00Z' },
          ),
        ],
        secrets: [tlsSecret('one', 'secure'), tlsSecret('two', 'other')],
      });
      expect(serverOf(result, 'secure.example.com').tls?.secret.name).toBe('one');
      expect(result.problems).toEqual([
        expect.objectContaining({ object: expect.objectContaining({ name: 'b' }), severity: 'warning' }),
      ]);
    });

    it('shares one file between Secrets with the same content', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'one' }] },
          ),
          ingress(
            'b',
            { 'secure2.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure2.example.com'], secretName: 'two' }] },
          ),
        ],
        secrets: [tlsSecret('one', 'secure'), tlsSecret('two', 'secure')],
      });
      expect(result.configuration.certificates).toHaveLength(1);
      expect(result.configuration.certificates[0]?.secrets.map((s) => s.name)).toEqual(['one', 'two']);
    });
  });

  describe('certificate cache', () => {
    it('gives the same result with a cache, parses each content once and forgets unused entries', () => {
      const input = {
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'one' }] },
          ),
          ingress(
            'b',
            { 'other.example.com': [path('/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['other.example.com'], secretName: 'two' }] },
          ),
        ],
        secrets: [tlsSecret('one', 'secure'), tlsSecret('two', 'other')],
      };
      const cache = createCertificateCache();
      const cached = buildConfiguration(
        { ...input, services: [service('app')] },
        { certificateCache: cache },
      );
      expect(cached).toEqual(build(input));
      expect(cache.size).toBe(2);
      expect(
        buildConfiguration({ ...input, services: [service('app')] }, { certificateCache: cache }),
      ).toEqual(cached);
      buildConfiguration(
        { ...input, ingresses: input.ingresses.slice(0, 1), services: [service('app')] },
        { certificateCache: cache },
      );
      expect(cache.size).toBe(1);
    });
  });

  describe('annotations', () => {
    it('applies rewrite-target to a Prefix path by replacing the matched prefix', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/api', 'Prefix', 'app')] },
            { annotations: { [`${A}rewrite-target`]: '/' } },
          ),
        ],
      });
      expect(serverOf(result, 'a.example.com').locations[0]?.rewrite).toEqual({
        pattern: '^/api/?(.*)$',
        replacement: '/$1',
      });
    });

    it('applies rewrite-target with captures to a regex path', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/api(/|$)(.*)', 'ImplementationSpecific', 'app')] },
            {
              annotations: { [`${A}rewrite-target`]: '/$2', [`${A}use-regex`]: 'true' },
            },
          ),
        ],
      });
      expect(serverOf(result, 'a.example.com').locations.at(-1)?.rewrite).toEqual({
        pattern: '(?i)^/api(/|$)(.*)',
        replacement: '/$2',
      });
    });

    it('copies proxy settings, protocol, allowlist and vhost into every location of the Ingress', () => {
      const result = build({
        ingresses: [
          ingress(
            'a',
            { 'a.example.com': [path('/x', 'Exact', 'app')] },
            {
              annotations: {
                [`${A}proxy-connect-timeout`]: '3',
                [`${A}proxy-read-timeout`]: '120',
                [`${A}proxy-send-timeout`]: '30',
                [`${A}proxy-body-size`]: '8M',
                [`${A}backend-protocol`]: 'grpc',
                [`${A}whitelist-source-range`]: '10.0.0.0/8, 192.168.1.1',
                [`${A}upstream-vhost`]: 'internal.example.com:8080',
              },
            },
          ),
        ],
      });
      const location = serverOf(result, 'a.example.com').locations[0];
      expect(location?.proxy).toEqual({
        protocol: 'GRPC',
        connectTimeoutSeconds: 3,
        readTimeoutSeconds: 120,
        sendTimeoutSeconds: 30,
        bodySize: '8m',
        upstreamVhost: 'internal.example.com:8080',
      });
      expect(location?.allowSourceRanges).toEqual(['10.0.0.0/8', '192.168.1.1']);
      // The fallback of a host without spec.defaultBackend keeps the defaults.
      expect(serverOf(result, 'a.example.com').locations[1]?.proxy).toEqual({ protocol: 'HTTP' });
    });

    it('leaves out only the Ingress with an invalid annotation and names the annotation and value', () => {
      const result = build({
        ingresses: [
          ingress(
            'bad',
            { 'bad.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}proxy-read-timeout`]: '60;evil' } },
          ),
          ingress('good', { 'good.example.com': [path('/', 'Prefix', 'app')] }),
        ],
      });
      expect(result.configuration.servers.map((s) => s.host)).toEqual(['good.example.com']);
      expect(result.problems).toEqual([
        {
          object: { kind: 'Ingress', namespace: 'default', name: 'bad' },
          field: `metadata.annotations["${A}proxy-read-timeout"]`,
          message: expect.stringContaining('proxy-read-timeout'),
          severity: 'error',
          value: '60;evil',
        },
      ]);
    });

    it('honours a custom annotation prefix', () => {
      const result = buildConfiguration(
        {
          ingresses: [
            ingress(
              'a',
              { 'a.example.com': [path('/', 'Prefix', 'app')] },
              { annotations: { 'example.com/proxy-body-size': '2m', [`${A}proxy-body-size`]: 'junk' } },
            ),
          ],
          services: [service('app')],
        },
        { annotationPrefix: 'example.com' },
      );
      expect(result.problems).toEqual([]);
      expect(serverOf(result, 'a.example.com').locations[0]?.proxy.bodySize).toBe('2m');
    });
  });

  describe('robustness', () => {
    it.each([
      ['null', null],
      ['a string', 'ingress'],
      ['no metadata', { spec: {} }],
      ['a bad namespace', { metadata: { namespace: 'Bad_NS', name: 'x' } }],
      ['a bad name', { metadata: { namespace: 'default', name: 'x;y' } }],
      ['rules not a list', { metadata: { namespace: 'default', name: 'x' }, spec: { rules: 'all' } }],
      ['a rule that is null', { metadata: { namespace: 'default', name: 'x' }, spec: { rules: [null] } }],
      [
        'paths not a list',
        {
          metadata: { namespace: 'default', name: 'x' },
          spec: { rules: [{ host: 'x.example.com', http: { paths: 3 } }] },
        },
      ],
      ['tls not a list', { metadata: { namespace: 'default', name: 'x' }, spec: { tls: {} } }],
      ['a tls entry that is null', { metadata: { namespace: 'default', name: 'x' }, spec: { tls: [null] } }],
      ['annotations that are a list', { metadata: { namespace: 'default', name: 'x', annotations: ['a'] } }],
      [
        'an annotation that is a number',
        { metadata: { namespace: 'default', name: 'x', annotations: { [`${A}use-regex`]: 1 } } },
      ],
    ])('never throws for an Ingress with %s, and still serves the others', (_what, broken) => {
      const result = build({
        ingresses: [broken as never, ingress('good', { 'good.example.com': [path('/', 'Prefix', 'app')] })],
      });
      expect(result.configuration.servers.map((s) => s.host)).toContain('good.example.com');
    });

    it('reports an Ingress given twice once and uses the first', () => {
      const result = build({
        ingresses: [
          ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }),
          ingress('a', { 'b.example.com': [path('/', 'Prefix', 'app')] }),
        ],
      });
      expect(result.configuration.servers.map((s) => s.host)).toEqual(['a.example.com']);
      expect(result.problems).toEqual([
        expect.objectContaining({ severity: 'warning', message: expect.stringContaining('more than once') }),
      ]);
    });

    it('builds the same model, in the same order, whatever order the input comes in', () => {
      const objects = [
        ingress('a', {
          'b.example.com': [path('/x', 'Prefix', 'app')],
          'a.example.com': [path('/y', 'Exact', 'other')],
        }),
        ingress('b', { 'c.example.com': [path('/', 'Prefix', 'app')] }, { created: '2023-06-01T00:00:00Z' }),
      ];
      const slices = [
        endpointSlice('app', 8080, ['10.0.0.2', '10.0.0.1']),
        endpointSlice('other', 8080, ['10.0.1.1'], { name: 'o' }),
      ];
      const forward = build({ ingresses: objects, endpointSlices: slices });
      const backward = build({ ingresses: [...objects].reverse(), endpointSlices: [...slices].reverse() });
      expect(JSON.stringify(backward)).toBe(JSON.stringify(forward));
      expect(forward.configuration.checksum).toMatch(/^[0-9a-f]{64}$/);
    });

    it('does not change its input', () => {
      const input = {
        ingresses: [
          ingress(
            'a',
            { 'secure.example.com': [path('/x/', 'Prefix', 'app')] },
            { tls: [{ hosts: ['secure.example.com'], secretName: 'cert' }] },
          ),
        ],
        services: [service('app')],
        endpointSlices: [endpointSlice('app', 8080, ['10.0.0.2', '10.0.0.1'])],
        secrets: [tlsSecret('cert', 'secure')],
      };
      const before = JSON.stringify(input);
      build(input);
      expect(JSON.stringify(input)).toBe(before);
    });

    it('keeps endpoints out of the checksum', () => {
      const ingresses = [ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] })];
      const one = build({ ingresses, endpointSlices: [endpointSlice('app', 8080, ['10.0.0.1'])] });
      const two = build({ ingresses, endpointSlices: [endpointSlice('app', 8080, ['10.0.0.2'])] });
      expect(two.configuration.checksum).toBe(one.configuration.checksum);
    });
  });
});
