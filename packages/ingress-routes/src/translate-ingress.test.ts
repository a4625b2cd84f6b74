import { rewritePath, type PathRewrite, type Route } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import {
  createCertificateCache,
  isReferencedObjectProblem,
  translateIngress,
  type IngressLike,
  type IngressReferences,
  type IngressTranslationConfig,
  type SecretLike,
} from './index.js';
import { answer, assemble, describeRoutes, hostOf } from './testing/assemble.js';
import { A, deepFreeze, ingress, path, readTlsFixture, secrets, tlsSecret } from './testing/fixtures.js';

function translate(
  object: IngressLike,
  references: IngressReferences = secrets(),
  config: IngressTranslationConfig = {},
) {
  return translateIngress(object, references, config);
}

function routesOf(result: ReturnType<typeof translate>, hostname: string): string[] {
  return describeRoutes(hostOf(result, hostname));
}

function onlyRoute(result: ReturnType<typeof translate>): Route {
  const routes = result.contribution?.hosts.flatMap((host) => host.routes) ?? [];
  expect(routes).toHaveLength(1);
  return routes[0]!;
}

/** Applies a route's rewrite to `path` the way route-model's reference says. */
function rewrite(route: Route, requestPath: string): string {
  const modifier: PathRewrite | undefined = route.policy.rewrite;
  return modifier === undefined ? requestPath : rewritePath(modifier, requestPath, route.match.path.value);
}

const secureTls = [{ hosts: ['secure.example.com'], secretName: 'cert' }];

describe('translateIngress', () => {
  describe('path types', () => {
    it('matches Prefix /foo element-wise, so /foobar does not match', () => {
      const result = translate(ingress('a', { 'a.example.com': [path('/foo', 'Prefix', 'app')] }));
      expect(routesOf(result, 'a.example.com')).toEqual(['PathPrefix /foo -> default/app:80']);
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/foo')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/foo/bar')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/foobar')).toBe('404');
    });

    it('ignores a trailing slash of a Prefix path, as the Ingress spec says', () => {
      const table = assemble([
        translate(ingress('a', { 'a.example.com': [path('/foo/', 'Prefix', 'app')] })),
      ]);
      expect(answer(table, 'a.example.com', '/foo')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/foo/x')).toBe('Ingress/default/a/r0/p0');
    });

    it('serves every path with Prefix /', () => {
      const table = assemble([translate(ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }))]);
      expect(answer(table, 'a.example.com', '/')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/any/thing')).toBe('Ingress/default/a/r0/p0');
    });

    it('matches an Exact path character for character', () => {
      const result = translate(ingress('a', { 'a.example.com': [path('/foo', 'Exact', 'app')] }));
      expect(routesOf(result, 'a.example.com')).toEqual(['Exact /foo -> default/app:80']);
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/foo')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/foo/')).toBe('404');
    });

    it('treats ImplementationSpecific as an element-wise Prefix without use-regex, as ingress-nginx does', () => {
      const result = translate(
        ingress('a', { 'a.example.com': [path('/foo', 'ImplementationSpecific', 'app')] }),
      );
      expect(routesOf(result, 'a.example.com')).toEqual(['PathPrefix /foo -> default/app:80']);
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/foo/x')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/foobar')).toBe('404');
    });

    it('makes ImplementationSpecific a case-insensitive regex anchored at the start with use-regex', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/api/v[0-9]+', 'ImplementationSpecific', 'app')] },
          { annotations: { [`${A}use-regex`]: 'true' } },
        ),
      );
      expect(onlyRoute(result).match.path).toEqual({
        type: 'RegularExpression',
        value: '^/api/v[0-9]+',
        ignoreCase: true,
      });
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/API/V2/users')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.example.com', '/x/api/v1')).toBe('404');
    });

    it('keeps Exact and Prefix paths literal even with use-regex', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/a.b', 'Exact', 'app'), path('/c.d', 'Prefix', 'app')] },
          { annotations: { [`${A}use-regex`]: 'true' } },
        ),
      );
      expect(routesOf(result, 'a.example.com')).toEqual([
        'Exact /a.b -> default/app:80',
        'PathPrefix /c.d -> default/app:80',
      ]);
    });

    it('treats a missing or empty path as /', () => {
      const result = translate(
        ingress('a', { 'a.example.com': [path(undefined, 'Prefix', 'app'), path('', 'Exact', 'other')] }),
      );
      expect(routesOf(result, 'a.example.com')).toEqual([
        'PathPrefix / -> default/app:80',
        'Exact / -> default/other:80',
      ]);
    });

    it('names each route by its rule and path and records its origin', () => {
      const result = translate(
        ingress(
          'shop',
          {
            'a.example.com': [path('/x', 'Exact', 'app')],
            'b.example.com': [path('/y', 'Exact', 'app'), path('/z', 'Prefix', 'app')],
          },
          { namespace: 'team', created: '2024-05-06T07:08:09Z' },
        ),
      );
      const route = hostOf(result, 'b.example.com').routes[1]!;
      expect(route.id).toBe('Ingress/team/shop/r1/p1');
      expect(route.origin).toEqual({
        kind: 'Ingress',
        namespace: 'team',
        name: 'shop',
        createdAt: Date.parse('2024-05-06T07:08:09Z'),
        index: [1, 1],
        field: 'spec.rules[1].http.paths[1]',
        path: '/z',
        service: 'app',
        servicePort: '80',
      });
      expect(result.contribution?.source).toEqual({ kind: 'Ingress', namespace: 'team', name: 'shop' });
    });

    it('records the path and Service port as written in the origin, for the access log', () => {
      const result = translate(
        ingress(
          'shop',
          {
            'a.example.com': [
              path('/api/', 'Prefix', 'api', 'http'),
              path('/v[0-9]+/.*', 'ImplementationSpecific', 'app', 8080),
              path(undefined, 'Prefix', 'app'),
            ],
          },
          {
            annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true' },
            defaultBackend: { service: 'fallback', port: 'web' },
          },
        ),
      );
      const [api, regex, empty] = hostOf(result, 'a.example.com').routes.map((route) => route.origin);
      // ingress-nginx's $service_port is the port's name when the Ingress names it, and an empty path is "/".
      expect([api?.path, api?.service, api?.servicePort]).toEqual(['/api/', 'api', 'http']);
      expect([regex?.path, regex?.service, regex?.servicePort]).toEqual(['/v[0-9]+/.*', 'app', '8080']);
      expect(empty?.path).toBe('/');
      const fallback = hostOf(result, 'a.example.com').fallback;
      expect(
        typeof fallback === 'object' && [
          fallback.origin.path,
          fallback.origin.service,
          fallback.origin.servicePort,
        ],
      ).toEqual(['/', 'fallback', 'web']);
    });

    it('ranks an Ingress without a valid creationTimestamp after every dated one', () => {
      for (const created of ['yesterday', new Date('nonsense')]) {
        const route = onlyRoute(
          translate(ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }, { created })),
        );
        expect(route.origin.createdAt).toBe(Number.POSITIVE_INFINITY);
      }
    });

    it('reports a missing or unknown pathType and leaves only that path out', () => {
      const result = translate(
        ingress('a', {
          'a.example.com': [
            path('/x', undefined, 'app'),
            path('/y', 'Glob', 'app'),
            path('/z', 'Exact', 'app'),
          ],
        }),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[0].pathType',
          message: 'pathType must be Exact, Prefix or ImplementationSpecific',
          severity: 'error',
        }),
        expect.objectContaining({ field: 'spec.rules[0].http.paths[1].pathType', value: 'Glob' }),
      ]);
      expect(routesOf(result, 'a.example.com')).toEqual(['Exact /z -> default/app:80']);
      expect(hostOf(result, 'a.example.com').routes[0]?.id).toBe('Ingress/default/a/r0/p2');
    });

    it('orders exact paths, then regexes, then prefixes longest first once assembled', () => {
      const table = assemble([
        translate(
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
        ),
      ]);
      expect(table.virtualHost('a.example.com')?.routes.map((route) => route.match.path.value)).toEqual([
        '/z',
        '^/x/y+',
        '^/x+',
        '/a/b/c',
        '/a',
      ]);
    });
  });

  describe('hosts', () => {
    it('puts rules without a host on the catch-all hostname *', () => {
      const result = translate(ingress('a', { '': [path('/x', 'Exact', 'app')] }));
      expect(result.contribution?.hosts).toEqual([
        expect.objectContaining({
          hostname: '*',
          routes: [expect.objectContaining({ id: 'Ingress/default/a/r0/p0' })],
        }),
      ]);
      expect(hostOf(result, '*').wildcard).toBeUndefined();
      expect(answer(assemble([result]), 'anything.example.org', '/x')).toBe('Ingress/default/a/r0/p0');
    });

    it('matches one label with a *. host', () => {
      const result = translate(ingress('a', { '*.example.com': [path('/', 'Prefix', 'app')] }));
      expect(hostOf(result, '*.example.com').wildcard).toBe('one-label');
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'a.b.example.com', '/')).toBe('404');
      expect(answer(table, 'example.com', '/')).toBe('404');
    });

    it('merges the rules of one host into one host contribution, and sorts hosts by name', () => {
      const object = deepFreeze({
        metadata: { namespace: 'default', name: 'a' },
        spec: {
          rules: [
            { host: 'b.example.com', http: { paths: [path('/x', 'Exact', 'app')] } },
            { host: 'a.example.com', http: { paths: [path('/y', 'Exact', 'app')] } },
            { host: 'b.example.com', http: { paths: [path('/z', 'Exact', 'app')] } },
          ],
        },
      });
      const result = translate(object);
      expect(result.contribution?.hosts.map((host) => host.hostname)).toEqual([
        'a.example.com',
        'b.example.com',
      ]);
      expect(hostOf(result, 'b.example.com').routes.map((route) => route.id)).toEqual([
        'Ingress/default/a/r0/p0',
        'Ingress/default/a/r2/p0',
      ]);
    });

    it('serves a rule without http as a host with its fallback only', () => {
      const object = deepFreeze({
        metadata: { namespace: 'default', name: 'a' },
        spec: { rules: [{ host: 'a.example.com' }] },
      });
      expect(translate(object as IngressLike).contribution?.hosts).toEqual([
        { hostname: 'a.example.com', routes: [], fallback: 'table-default' },
      ]);
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
      const result = translate(
        ingress('a', {
          [host]: [path('/', 'Prefix', 'app')],
          'ok.example.com': [path('/', 'Prefix', 'app')],
        }),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({ field: 'spec.rules[0].host', severity: 'error', value: host }),
      ]);
      expect(result.contribution?.hosts.map((entry) => entry.hostname)).toEqual(['ok.example.com']);
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
      const result = translate(
        ingress('a', { 'a.example.com': [path(value, 'Prefix', 'app'), path('/ok', 'Exact', 'app')] }),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[0].path',
          severity: 'error',
          message: expect.stringMatching(/^path /),
        }),
      ]);
      expect(routesOf(result, 'a.example.com')).toEqual(['Exact /ok -> default/app:80']);
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
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path(value, 'ImplementationSpecific', 'app')] },
          { annotations: { [`${A}use-regex`]: 'true' } },
        ),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[0].path',
          severity: 'error',
          message: expect.stringMatching(/^regex path /),
        }),
      ]);
      expect(hostOf(result, 'a.example.com').routes).toEqual([]);
    });
  });

  describe('backends', () => {
    it('forwards each path to the backend id of its Service port, the port as written', () => {
      const result = translate(
        ingress('a', {
          'a.example.com': [path('/x', 'Exact', 'app', 'http'), path('/y', 'Exact', 'app', 80)],
        }),
      );
      expect(hostOf(result, 'a.example.com').routes.map((route) => route.action)).toEqual([
        { type: 'forward', backends: [{ backend: 'default/app:http', weight: 1 }] },
        { type: 'forward', backends: [{ backend: 'default/app:80', weight: 1 }] },
      ]);
    });

    it('lists the Services its routes use, sorted and once each, and not those of paths left out', () => {
      const result = translate(
        ingress(
          'a',
          {
            'a.example.com': [
              path('/x', 'Exact', 'zeta'),
              path('/y', 'Exact', 'alpha'),
              path('/z', 'Exact', 'zeta', 'http'),
              path('/bad path', 'Exact', 'dropped'),
            ],
          },
          { defaultBackend: { service: 'fallback', port: 80 } },
        ),
      );
      expect(result.references.services).toEqual(['default/alpha', 'default/fallback', 'default/zeta']);
    });

    it.each([
      [{ service: { name: 'app', port: {} } }, 'exactly one of number or name'],
      [{ service: { name: 'app', port: { number: 80, name: 'http' } } }, 'exactly one of number or name'],
      [{ service: { name: 'app', port: { number: 0 } } }, '1-65535'],
      [{ service: { name: 'app', port: { number: 70000 } } }, '1-65535'],
      [{ service: { name: 'app', port: { name: 'a"b' } } }, 'IANA service name'],
      [{ service: { name: 'App;', port: { number: 80 } } }, 'RFC 1123 label'],
      [{ resource: { kind: 'Bucket', name: 'x' } }, 'resource backends are not supported'],
      [{}, 'backend.service is required'],
      ['nonsense', 'must be an object'],
    ])('reports the invalid backend %j and leaves only that path out', (backend, message) => {
      const result = translate(
        ingress('a', {
          'a.example.com': [{ path: '/', pathType: 'Prefix', backend }, path('/ok', 'Exact', 'app')],
        }),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[0].backend',
          severity: 'error',
          message: expect.stringContaining(message),
        }),
      ]);
      expect(routesOf(result, 'a.example.com')).toEqual(['Exact /ok -> default/app:80']);
      expect(result.references.services).toEqual(['default/app']);
    });
  });

  describe('default backends', () => {
    it('gives the hosts of its rules the table default when there is no spec.defaultBackend', () => {
      const result = translate(ingress('a', { 'a.example.com': [path('/x', 'Exact', 'app')] }));
      expect(result.contribution?.hosts.map((host) => [host.hostname, host.fallback])).toEqual([
        ['a.example.com', 'table-default'],
      ]);
    });

    it('answers what no path matches, on its hosts and the catch-all, with spec.defaultBackend', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/x', 'Exact', 'app')] },
          { defaultBackend: { service: 'other', port: 'http' } },
        ),
      );
      const fallback = hostOf(result, 'a.example.com').fallback as Route;
      expect(fallback).toMatchObject({
        id: 'Ingress/default/a/default-backend',
        origin: { kind: 'Ingress', namespace: 'default', name: 'a', index: [], field: 'spec.defaultBackend' },
        action: { type: 'forward', backends: [{ backend: 'default/other:http', weight: 1 }] },
      });
      expect(hostOf(result, '*')).toEqual({ hostname: '*', routes: [], fallback });
      const table = assemble([result]);
      expect(answer(table, 'a.example.com', '/y')).toBe('fallback Ingress/default/a/default-backend');
      expect(answer(table, 'elsewhere.example.org', '/')).toBe('fallback Ingress/default/a/default-backend');
    });

    it('serves an Ingress with only spec.defaultBackend on the catch-all', () => {
      const object = deepFreeze({
        metadata: { namespace: 'default', name: 'a' },
        spec: { defaultBackend: { service: { name: 'app', port: { number: 80 } } } },
      });
      const result = translate(object);
      expect(result.contribution?.hosts.map((host) => host.hostname)).toEqual(['*']);
      expect(result.problems).toEqual([]);
    });

    it('keeps the table default for its hosts when spec.defaultBackend is invalid, and reports it', () => {
      const object = deepFreeze({
        metadata: { namespace: 'default', name: 'a' },
        spec: {
          defaultBackend: { resource: { kind: 'Bucket', name: 'x' } },
          rules: [{ host: 'a.example.com', http: { paths: [path('/', 'Prefix', 'app')] } }],
        },
      });
      const result = translate(object);
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.defaultBackend',
          message: 'resource backends are not supported',
        }),
      ]);
      expect(result.contribution?.hosts).toEqual([
        expect.objectContaining({ hostname: 'a.example.com', fallback: 'table-default' }),
      ]);
    });
  });

  describe('TLS', () => {
    it('claims each TLS host with the certificate of its Secret, identified by a content hash', () => {
      const result = translate(
        ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }, { tls: secureTls }),
        secrets(tlsSecret('cert', 'secure')),
      );
      expect(result.problems).toEqual([]);
      const [claim] = result.contribution?.tls ?? [];
      expect(claim).toEqual({
        hostname: 'secure.example.com',
        certificate: {
          id: expect.stringMatching(/^[0-9a-f]{64}$/),
          certificatePem: expect.stringMatching(
            /^-----BEGIN CERTIFICATE-----\n[\s\S]*-----END CERTIFICATE-----\n$/,
          ),
          privateKeyPem: expect.stringMatching(
            /^-----BEGIN PRIVATE KEY-----\n[\s\S]*-----END PRIVATE KEY-----\n$/,
          ),
          notAfter: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        origin: {
          kind: 'Ingress',
          namespace: 'default',
          name: 'a',
          createdAt: Date.parse('2024-01-01T00:00:00Z'),
          index: [0],
          field: 'spec.tls[0]',
        },
      });
      expect(result.references.secrets).toEqual(['default/cert']);
      expect(assemble([result]).table().tls).toEqual([
        expect.objectContaining({ hostname: 'secure.example.com', certificate: claim?.certificate.id }),
      ]);
    });

    it('applies a TLS entry without hosts to every named host of its Ingress, not to the catch-all', () => {
      const result = translate(
        ingress(
          'a',
          {
            'secure.example.com': [path('/', 'Prefix', 'app')],
            '': [path('/x', 'Exact', 'app')],
          },
          { tls: [{ secretName: 'cert' }] },
        ),
        secrets(tlsSecret('cert', 'secure')),
      );
      expect(result.contribution?.tls.map((claim) => [claim.hostname, claim.origin.field])).toEqual([
        ['secure.example.com', 'spec.tls[0]'],
      ]);
    });

    it('redirects plain HTTP to HTTPS on hosts with TLS by default, and not with ssl-redirect "false"', () => {
      const on = translate(ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }));
      const off = translate(
        ingress(
          'a',
          { 'secure.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}ssl-redirect`]: 'false' } },
        ),
      );
      expect(onlyRoute(on).policy.redirectToHttps).toEqual({
        statusCode: 308,
        onlyIfHostHasTls: true,
        stripTrailingSlash: true,
      });
      expect(onlyRoute(off).policy.redirectToHttps).toBeUndefined();
    });

    it('redirects every host to HTTPS with force-ssl-redirect, TLS or not', () => {
      const forced = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}force-ssl-redirect`]: 'true', [`${A}ssl-redirect`]: 'false' } },
        ),
      );
      expect(onlyRoute(forced).policy.redirectToHttps).toEqual({ statusCode: 308, stripTrailingSlash: true });
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
    ])('reports %s and claims no TLS for the host, which is served without it', (_what, secret, message) => {
      const result = translate(
        ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }, { tls: secureTls }),
        secret === undefined ? secrets() : secrets(deepFreeze(secret)),
      );
      expect(result.problems).toEqual([
        {
          object: { kind: 'Ingress', namespace: 'default', name: 'a' },
          field: 'spec.tls[0].secretName',
          severity: 'error',
          message: expect.stringMatching(
            new RegExp(`^TLS Secret default/cert: .*${message}.*; its hosts are served without TLS$`),
          ),
          code: 'tls-secret-unusable',
        },
      ]);
      expect(result.contribution?.tls).toEqual([]);
      expect(routesOf(result, 'secure.example.com')).toEqual(['PathPrefix / -> default/app:80']);
      // The Secret was read: when it is fixed, the Ingress must be translated again.
      expect(result.references.secrets).toEqual(['default/cert']);
    });

    it('reports an invalid secretName without looking it up', () => {
      const references = secrets();
      const result = translate(
        ingress(
          'a',
          { 'secure.example.com': [path('/', 'Prefix', 'app')] },
          { tls: [{ secretName: '../x' }] },
        ),
        references,
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.tls[0].secretName',
          value: '../x',
          message: expect.stringMatching(/^secretName /),
        }),
      ]);
      expect(references.lookups).toEqual([]);
      expect(result.references.secrets).toEqual([]);
    });

    it('reports an invalid TLS host and claims the valid ones', () => {
      const result = translate(
        ingress(
          'a',
          { 'secure.example.com': [path('/', 'Prefix', 'app')] },
          { tls: [{ hosts: ['Bad Host', 'secure.example.com'], secretName: 'cert' }] },
        ),
        secrets(tlsSecret('cert', 'secure')),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({ field: 'spec.tls[0].hosts[0]', severity: 'error', value: 'Bad Host' }),
      ]);
      expect(result.contribution?.tls.map((claim) => claim.hostname)).toEqual(['secure.example.com']);
    });

    it('claims a TLS host the Ingress has no rule for, as the Ingress names it', () => {
      const result = translate(
        ingress('a', { 'a.example.com': [path('/', 'Prefix', 'app')] }, { tls: secureTls }),
        secrets(tlsSecret('cert', 'secure')),
      );
      expect(result.contribution?.tls.map((claim) => claim.hostname)).toEqual(['secure.example.com']);
    });

    it('reads stringData as the API server does: plain text, winning over data for the same key', () => {
      const tlsIngress = ingress(
        'a',
        { 'secure.example.com': [path('/', 'Prefix', 'app')] },
        { tls: secureTls },
      );
      const fromData = translate(tlsIngress, secrets(tlsSecret('cert', 'secure')));
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
        const result = translate(tlsIngress, secrets(deepFreeze(secret)));
        expect(result.problems, what).toEqual([]);
        expect(result.contribution?.tls, what).toEqual(fromData.contribution?.tls);
      }
      const cache = createCertificateCache();
      const viaCache = translate(tlsIngress, secrets(inputs['stringData only']!), {
        certificateCache: cache,
      });
      expect(viaCache.contribution?.tls).toEqual(fromData.contribution?.tls);
      // The same characters in data (base64) and in stringData (text) are different content.
      const swapped = translate(tlsIngress, secrets(deepFreeze({ metadata, data: plain })), {
        certificateCache: cache,
      });
      expect(swapped.contribution?.tls).toEqual([]);
    });

    it('warns when the certificate does not cover the host, and still claims it', () => {
      const result = translate(
        ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }, { tls: secureTls }),
        secrets(tlsSecret('cert', 'other')),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.tls[0].hosts[0]',
          severity: 'warning',
          message: 'the certificate in Secret default/cert does not cover host secure.example.com',
        }),
      ]);
      expect(result.contribution?.tls).toHaveLength(1);
    });

    it('checks a wildcard host against a wildcard certificate', () => {
      const wildcard = ingress(
        'a',
        { '*.wild.example.com': [path('/', 'Prefix', 'app')] },
        { tls: [{ hosts: ['*.wild.example.com'], secretName: 'cert' }] },
      );
      expect(translate(wildcard, secrets(tlsSecret('cert', 'wildcard'))).problems).toEqual([]);
      expect(translate(wildcard, secrets(tlsSecret('cert', 'secure'))).problems).toEqual([
        expect.objectContaining({
          severity: 'warning',
          message: expect.stringContaining('does not cover host *.wild.example.com'),
        }),
      ]);
    });

    it('warns about an expired certificate when given the time', () => {
      const object = ingress('a', { 'secure.example.com': [path('/', 'Prefix', 'app')] }, { tls: secureTls });
      const references = secrets(tlsSecret('cert', 'secure'));
      expect(translate(object, references, { now: Date.parse('2030-01-01T00:00:00Z') }).problems).toEqual([]);
      const expired = translate(object, references, { now: Date.parse('2200-01-01T00:00:00Z') });
      expect(expired.problems).toEqual([
        expect.objectContaining({
          field: 'spec.tls[0].secretName',
          severity: 'warning',
          message: expect.stringMatching(/^the certificate in Secret default\/cert expired on \d{4}-/),
        }),
      ]);
      expect(expired.contribution?.tls).toHaveLength(1);
    });

    it('gives Secrets with the same content the same certificate id', () => {
      const result = translate(
        ingress(
          'a',
          {
            'secure.example.com': [path('/', 'Prefix', 'app')],
            'secure2.example.com': [path('/', 'Prefix', 'app')],
          },
          {
            tls: [
              { hosts: ['secure.example.com'], secretName: 'one' },
              { hosts: ['secure2.example.com'], secretName: 'two' },
            ],
          },
        ),
        secrets(tlsSecret('one', 'secure'), tlsSecret('two', 'secure')),
      );
      const ids = result.contribution?.tls.map((claim) => claim.certificate.id);
      expect(ids).toHaveLength(2);
      expect(ids?.[0]).toBe(ids?.[1]);
      expect(result.references.secrets).toEqual(['default/one', 'default/two']);
    });
  });

  describe('annotations', () => {
    it('answers every route and the default backend with the permanent-redirect, never with an HTTPS redirect first', () => {
      const result = translate(
        ingress(
          'a',
          { 'secure.example.com': [path('/', 'Prefix', 'app'), path('/x', 'Exact', 'app')] },
          {
            tls: secureTls,
            defaultBackend: { service: 'app', port: 80 },
            annotations: { [`${A}permanent-redirect`]: 'https://new.example.com$request_uri' },
          },
        ),
        secrets(tlsSecret('cert', 'secure')),
      );
      const routes = hostOf(result, 'secure.example.com').routes;
      expect(routes).toHaveLength(2);
      for (const route of [...routes, hostOf(result, 'secure.example.com').fallback as Route]) {
        expect(route.action).toEqual({
          type: 'redirect',
          redirect: { statusCode: 301, scheme: 'https', hostname: 'new.example.com' },
        });
        expect(route.policy.redirectToHttps).toBeUndefined();
      }
    });

    it('redirects to a fixed URL without the request query with temporal-redirect and its code', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            {
              annotations: {
                [`${A}temporal-redirect`]: 'http://b.example.com:8080/landing?from=a',
                [`${A}temporal-redirect-code`]: '307',
              },
            },
          ),
        ),
      );
      expect(route.action).toEqual({
        type: 'redirect',
        redirect: {
          statusCode: 307,
          scheme: 'http',
          hostname: 'b.example.com',
          port: 8080,
          path: { type: 'ReplaceFullPath', value: '/landing' },
          query: 'from=a',
        },
      });
    });

    it('adds an app-root route per host that redirects exactly / with 302 and no query, before the HTTPS redirect', () => {
      const result = translate(
        ingress(
          'a',
          {
            'secure.example.com': [path('/', 'Prefix', 'app')],
            'b.example.com': [path('/b', 'Prefix', 'app')],
          },
          { tls: secureTls, annotations: { [`${A}app-root`]: '/app1' } },
        ),
        secrets(tlsSecret('cert', 'secure')),
      );
      for (const hostname of ['secure.example.com', 'b.example.com']) {
        const appRoot = hostOf(result, hostname).routes.find((route) => route.id.endsWith('/app-root'));
        expect(appRoot).toMatchObject({
          match: { path: { type: 'Exact', value: '/' } },
          action: {
            type: 'redirect',
            redirect: { statusCode: 302, path: { type: 'ReplaceFullPath', value: '/app1' }, query: '' },
          },
          origin: { field: `metadata.annotations["${A}app-root"]` },
        });
        expect(appRoot?.policy.redirectToHttps).toBeUndefined();
      }
      const table = assemble([result]);
      expect(answer(table, 'secure.example.com', '/')).toBe('Ingress/default/a/r0/app-root');
      expect(answer(table, 'secure.example.com', '/x')).toBe('Ingress/default/a/r0/p0');
      expect(answer(table, 'b.example.com', '/')).toBe('Ingress/default/a/r1/app-root');
    });

    it('gives every route the CORS policy of enable-cors', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            {
              annotations: {
                [`${A}enable-cors`]: 'true',
                [`${A}cors-allow-origin`]: 'https://app.example.com',
              },
            },
          ),
        ),
      );
      expect(route.policy.cors).toMatchObject({
        allowOrigins: ['https://app.example.com'],
        maxAgeSeconds: 1728000,
      });
    });

    it('serves the routes of the first host under each server-alias, as copies with their own ids', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/x', 'Prefix', 'app')], 'b.example.com': [path('/y', 'Prefix', 'app')] },
          { annotations: { [`${A}server-alias`]: 'alias.example.com, b.example.com' } },
        ),
      );
      expect(routesOf(result, 'alias.example.com')).toEqual(['PathPrefix /x -> default/app:80']);
      expect(routesOf(result, 'b.example.com')).toEqual(['PathPrefix /y -> default/app:80']);
      const alias = hostOf(result, 'alias.example.com').routes[0]!;
      expect(alias.id).toBe('Ingress/default/a/r0/p0/alias/alias.example.com');
      expect(alias.policy).not.toBe(hostOf(result, 'a.example.com').routes[0]!.policy);
      const table = assemble([result]);
      expect(answer(table, 'alias.example.com', '/x/1')).toBe(
        'Ingress/default/a/r0/p0/alias/alias.example.com',
      );
    });

    it('redirects the www. or bare counterpart of each host with 308 when the Ingress does not name it', () => {
      const result = translate(
        ingress(
          'a',
          {
            'example.com': [path('/', 'Prefix', 'app')],
            'www.shop.example.com': [path('/', 'Prefix', 'app')],
            'api.example.com': [path('/', 'Prefix', 'app')],
            'www.api.example.com': [path('/', 'Prefix', 'app')],
            '*.wild.example.com': [path('/', 'Prefix', 'app')],
          },
          { annotations: { [`${A}from-to-www-redirect`]: 'true' } },
        ),
      );
      const hostnames = result.contribution?.hosts.map((host) => host.hostname);
      expect(hostnames).toEqual([
        '*.wild.example.com',
        'api.example.com',
        'example.com',
        'shop.example.com',
        'www.api.example.com',
        'www.example.com',
        'www.shop.example.com',
      ]);
      expect(hostOf(result, 'www.example.com').fallback).toMatchObject({
        action: { type: 'redirect', redirect: { hostname: 'example.com', statusCode: 308 } },
        origin: { field: `metadata.annotations["${A}from-to-www-redirect"]` },
      });
      expect(hostOf(result, 'shop.example.com').fallback).toMatchObject({
        action: { type: 'redirect', redirect: { hostname: 'www.shop.example.com' } },
      });
      expect(hostOf(result, 'www.api.example.com').routes).toHaveLength(1);
    });

    it('keeps the trailing slash in the HTTPS redirect with preserve-trailing-slash', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}preserve-trailing-slash`]: 'true', [`${A}force-ssl-redirect`]: 'true' } },
          ),
        ),
      );
      expect(route.policy.redirectToHttps).toEqual({ statusCode: 308 });
    });

    it('sends x-forwarded-prefix upstream as the X-Forwarded-Prefix header', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}x-forwarded-prefix`]: '/api' } },
          ),
        ),
      );
      expect(route.policy.requestHeaders).toEqual({ set: [{ name: 'X-Forwarded-Prefix', value: '/api' }] });
    });

    it('replaces the matched prefix of a Prefix or ImplementationSpecific path with a literal rewrite-target', () => {
      const result = translate(
        ingress(
          'a',
          {
            'a.example.com': [path('/api', 'Prefix', 'app'), path('/impl', 'ImplementationSpecific', 'app')],
          },
          { annotations: { [`${A}rewrite-target`]: '/' } },
        ),
      );
      const [prefix, implementationSpecific] = hostOf(result, 'a.example.com').routes;
      expect(prefix?.policy.rewrite).toEqual({ type: 'ReplacePrefixMatch', value: '/' });
      expect(implementationSpecific?.policy.rewrite).toEqual({ type: 'ReplacePrefixMatch', value: '/' });
      expect(rewrite(prefix!, '/api')).toBe('/');
      expect(rewrite(prefix!, '/api/x/y')).toBe('/x/y');
      expect(rewrite(implementationSpecific!, '/impl/x')).toBe('/x');
    });

    it('puts a literal rewrite-target in front of the rest of a prefix path', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/api', 'Prefix', 'app')] },
            { annotations: { [`${A}rewrite-target`]: '/v2' } },
          ),
        ),
      );
      expect(rewrite(route, '/api')).toBe('/v2');
      expect(rewrite(route, '/api/users')).toBe('/v2/users');
    });

    it('replaces the whole path of an Exact path with a literal rewrite-target', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/exact', 'Exact', 'app')] },
            { annotations: { [`${A}rewrite-target`]: '/new' } },
          ),
        ),
      );
      expect(route.policy.rewrite).toEqual({ type: 'ReplaceFullPath', value: '/new' });
    });

    it('substitutes what a regex path matched with rewrite-target and its captures, ignoring case as the match does', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/api(/|$)(.*)', 'ImplementationSpecific', 'app')] },
            { annotations: { [`${A}rewrite-target`]: '/$2', [`${A}use-regex`]: 'true' } },
          ),
        ),
      );
      expect(route.policy.rewrite).toEqual({
        type: 'RegexReplace',
        pattern: '^/api(/|$)(.*)',
        replacement: '/$2',
        ignoreCase: true,
      });
      expect(rewrite(route, '/api/users/1')).toBe('/users/1');
      expect(rewrite(route, '/API/users')).toBe('/users');
      expect(rewrite(route, '/api')).toBe('/');
    });

    it('reports rewrite-target captures on a literal path and leaves only that path out', () => {
      const result = translate(
        ingress(
          'a',
          {
            'a.example.com': [
              path('/api(/|$)(.*)', 'ImplementationSpecific', 'app'),
              path('/plain', 'Prefix', 'app'),
              path('/exact', 'Exact', 'app'),
            ],
          },
          { annotations: { [`${A}rewrite-target`]: '/$2', [`${A}use-regex`]: 'true' } },
        ),
      );
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec.rules[0].http.paths[1].pathType',
          severity: 'error',
          value: 'Prefix',
          message: expect.stringContaining('capture references'),
        }),
        expect.objectContaining({ field: 'spec.rules[0].http.paths[2].pathType', value: 'Exact' }),
      ]);
      expect(routesOf(result, 'a.example.com')).toEqual([
        'RegularExpression ^/api(/|$)(.*) -> default/app:80',
      ]);
    });

    it('gives every route of the Ingress, and its default backend, the policy of its annotations', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/x', 'Exact', 'app'), path('/y', 'Prefix', 'app')] },
          {
            defaultBackend: { service: 'fallback', port: 80 },
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
      );
      const expected = {
        redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true, stripTrailingSlash: true },
        allowSources: ['10.0.0.0/8', '192.168.1.1'],
        maxBodyBytes: 8 * 1024 * 1024,
        upstreamHost: 'internal.example.com:8080',
        timeouts: { connectMs: 3000, readMs: 120_000, sendMs: 30_000 },
        backendProtocol: 'GRPC',
      };
      const host = hostOf(result, 'a.example.com');
      expect(host.routes.map((route) => route.policy)).toEqual([expected, expected]);
      expect((host.fallback as Route).policy).toEqual(expected);
      // The routes of an Ingress share one frozen policy: changing it throws instead of changing
      // every route.
      expect(host.routes[0]?.policy).toBe(host.routes[1]?.policy);
      expect(Object.isFrozen(host.routes[0]?.policy)).toBe(true);
    });

    it('leaves the default backend without the rewrite of the paths', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/api', 'Prefix', 'app')] },
          { defaultBackend: { service: 'fallback', port: 80 }, annotations: { [`${A}rewrite-target`]: '/' } },
        ),
      );
      expect((hostOf(result, 'a.example.com').fallback as Route).policy.rewrite).toBeUndefined();
    });

    it('sets only what the annotations change from the defaults', () => {
      const route = onlyRoute(
        translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}backend-protocol`]: 'HTTP' } },
          ),
        ),
      );
      expect(route.policy).toEqual({
        redirectToHttps: { statusCode: 308, onlyIfHostHasTls: true, stripTrailingSlash: true },
      });
    });

    it('leaves out the whole Ingress with an invalid annotation and names the annotation and value', () => {
      const result = translate(
        ingress(
          'bad',
          { 'bad.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}proxy-read-timeout`]: '60;evil' } },
        ),
      );
      expect(result).toEqual({
        contribution: undefined,
        problems: [
          {
            object: { kind: 'Ingress', namespace: 'default', name: 'bad' },
            field: `metadata.annotations["${A}proxy-read-timeout"]`,
            message: 'annotation "proxy-read-timeout" must be whole seconds from 1 to 86400',
            severity: 'error',
            value: '60;evil',
            code: 'invalid-annotation',
          },
        ],
        references: { secrets: [], services: [] },
      });
    });

    it('serves the Ingress with a warning for an unsupported annotation that cannot widen access', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}enable-opentelemetry`]: 'true' } },
        ),
      );
      expect(result.problems).toEqual([expect.objectContaining({ severity: 'warning' })]);
      expect(result.contribution).toBeDefined();
    });

    it('leaves out the Ingress for a refused unsupported annotation', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { [`${A}configuration-snippet`]: 'x' } },
        ),
      );
      expect(result.contribution).toBeUndefined();
      expect(result.problems).toEqual([expect.objectContaining({ severity: 'error' })]);
    });

    it.each(['limit-rate', 'global-rate-limit', 'enable-modsecurity', 'secure-verify-ca-secret'])(
      'leaves out the Ingress with %s rather than serve it unprotected',
      (name) => {
        const result = translate(
          ingress(
            'a',
            { 'a.example.com': [path('/', 'Prefix', 'app')] },
            { annotations: { [`${A}${name}`]: 'on' } },
          ),
        );
        expect(result.contribution).toBeUndefined();
        expect(result.problems).toEqual([
          expect.objectContaining({ severity: 'error', field: `metadata.annotations["${A}${name}"]` }),
        ]);
      },
    );

    it('honours a custom annotation prefix', () => {
      const result = translate(
        ingress(
          'a',
          { 'a.example.com': [path('/', 'Prefix', 'app')] },
          { annotations: { 'example.com/proxy-body-size': '2m', [`${A}proxy-body-size`]: 'junk' } },
        ),
        secrets(),
        { annotationPrefix: 'example.com' },
      );
      expect(result.problems).toEqual([]);
      expect(onlyRoute(result).policy.maxBodyBytes).toBe(2 * 1024 * 1024);
    });
  });

  describe('robustness', () => {
    it.each([
      ['null', null, 'metadata.namespace'],
      ['a string', 'ingress', 'metadata.namespace'],
      ['no metadata', { spec: {} }, 'metadata.namespace'],
      ['a bad namespace', { metadata: { namespace: 'Bad_NS', name: 'x' } }, 'metadata.namespace'],
      ['a bad name', { metadata: { namespace: 'default', name: 'x;y' } }, 'metadata.name'],
      [
        'annotations that are a list',
        { metadata: { namespace: 'default', name: 'x', annotations: ['a'] } },
        'metadata.annotations',
      ],
      [
        'an annotation that is a number',
        { metadata: { namespace: 'default', name: 'x', annotations: { [`${A}use-regex`]: 1 } } },
        `metadata.annotations["${A}use-regex"]`,
      ],
    ])('leaves out an Ingress with %s, with an error', (_what, broken, field) => {
      const result = translate(deepFreeze(broken) as never);
      expect(result.contribution).toBeUndefined();
      expect(result.problems).toEqual([expect.objectContaining({ field, severity: 'error' })]);
      expect(result.references).toEqual({ secrets: [], services: [] });
    });

    it.each([
      ['rules not a list', { rules: 'all' }, 'spec.rules'],
      ['a rule that is null', { rules: [null] }, undefined],
      [
        'paths not a list',
        { rules: [{ host: 'x.example.com', http: { paths: 3 } }] },
        'spec.rules[0].http.paths',
      ],
      [
        'a path that is null',
        { rules: [{ host: 'x.example.com', http: { paths: [null] } }] },
        'spec.rules[0].http.paths[0].pathType',
      ],
      ['tls not a list', { tls: {} }, 'spec.tls'],
      ['a tls entry that is null', { tls: [null] }, 'spec.tls[0].secretName'],
      ['a spec that is a number', 7, undefined],
    ])('serves what it can of an Ingress with %s and reports the rest', (_what, spec, field) => {
      const result = translate(deepFreeze({ metadata: { namespace: 'default', name: 'x' }, spec }) as never);
      expect(result.contribution).toBeDefined();
      expect(result.problems).toEqual(
        field === undefined ? [] : [expect.objectContaining({ field, severity: 'error' })],
      );
    });

    it('names the object of a problem even when its name is not a string', () => {
      const result = translate(deepFreeze({ metadata: { namespace: 'default', name: 42 } }) as never);
      expect(result.problems[0]?.object).toEqual({ kind: 'Ingress', namespace: 'default', name: '42' });
    });

    it('leaves out, instead of half serving, an Ingress whose fields throw when read', () => {
      const hostile = {
        metadata: { namespace: 'default', name: 'x' },
        spec: {
          get rules(): never {
            throw new Error('boom');
          },
        },
      };
      const result = translate(hostile);
      expect(result.contribution).toBeUndefined();
      expect(result.problems).toEqual([
        expect.objectContaining({
          field: 'spec',
          severity: 'error',
          message: 'could not be read: boom; the Ingress is not served',
        }),
      ]);
    });

    it('translates the same input to the same output', () => {
      const object = ingress(
        'a',
        {
          'b.example.com': [path('/x', 'Prefix', 'app')],
          'a.example.com': [path('/y', 'Exact', 'other')],
          '': [path('/z', 'Exact', 'other')],
        },
        { tls: [{ secretName: 'cert' }], defaultBackend: { service: 'app', port: 80 } },
      );
      const references = secrets(tlsSecret('cert', 'secure'));
      const first = translate(object, references);
      expect(JSON.stringify(translate(object, references))).toBe(JSON.stringify(first));
      expect(first.contribution?.hosts.map((host) => host.hostname)).toEqual([
        '*',
        'a.example.com',
        'b.example.com',
      ]);
      expect(first.contribution?.tls.map((claim) => claim.hostname)).toEqual([
        'a.example.com',
        'b.example.com',
      ]);
    });

    it('does not change its input', () => {
      const object = ingress(
        'a',
        { 'secure.example.com': [path('/x/', 'Prefix', 'app')] },
        {
          tls: secureTls,
          defaultBackend: { service: 'app', port: 80 },
          annotations: { [`${A}rewrite-target`]: '/' },
        },
      );
      const secret = tlsSecret('cert', 'secure');
      const before = JSON.stringify([object, secret]);
      // The fixtures are deep-frozen: a write would throw, and the catch-all would report it.
      const result = translate(object, secrets(secret));
      expect(result.problems).toEqual([]);
      expect(JSON.stringify([object, secret])).toBe(before);
    });
  });
});

describe('maxPathsPerIngress', () => {
  const huge = {
    metadata: { namespace: 'tenant', name: 'huge', uid: 'u', resourceVersion: '1' },
    spec: {
      rules: ['a.example.com', 'b.example.com'].map((host) => ({
        host,
        http: {
          paths: ['/one', '/two'].map((path) => ({
            path,
            pathType: 'Prefix',
            backend: { service: { name: 'app', port: { number: 80 } } },
          })),
        },
      })),
    },
  };
  const noSecrets = { secret: () => undefined };

  it('leaves out, whole, an Ingress with more paths over all its rules than the limit, saying so', () => {
    const result = translateIngress(huge, noSecrets, { maxPathsPerIngress: 3 });
    expect(result.contribution).toBeUndefined();
    expect(result.problems).toEqual([
      expect.objectContaining({
        field: 'spec.rules',
        severity: 'error',
        message: 'has 4 paths, more than the 3 this controller serves per Ingress; the Ingress is not served',
      }),
    ]);
  });

  it('serves an Ingress at the limit, and any Ingress when the limit is 0 or unset', () => {
    for (const maxPathsPerIngress of [4, 0, undefined]) {
      const config = maxPathsPerIngress === undefined ? {} : { maxPathsPerIngress };
      const result = translateIngress(huge, noSecrets, config);
      expect(result.contribution?.hosts.flatMap((host) => host.routes)).toHaveLength(4);
    }
  });
});

describe('isReferencedObjectProblem', () => {
  it("tells a TLS Secret's problems from the Ingress's own", () => {
    const withTls = {
      metadata: { namespace: 'shop', name: 'web' },
      spec: {
        tls: [{ hosts: ['a.example.com'], secretName: 'later' }],
        rules: [{ host: 'a.example.com', http: { paths: [] } }],
      },
    };
    const { problems } = translateIngress(withTls, { secret: () => undefined });
    expect(problems.filter(isReferencedObjectProblem).map((problem) => problem.field)).toEqual([
      'spec.tls[0].secretName',
    ]);
    const own = translateIngress(
      { metadata: { namespace: 'shop', name: 'web' }, spec: { tls: [{ secretName: 'Not_A_Name' }] } },
      { secret: () => undefined },
    );
    expect(own.problems.some((problem) => problem.field === 'spec.tls[0].secretName')).toBe(true);
    expect(own.problems.filter(isReferencedObjectProblem)).toEqual([]);
  });
});
