import { rewritePath, type Route, type RouteAction } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import {
  formatProblem,
  translateGatewayApi,
  type GatewayApiObjects,
  type GatewayLike,
  type HTTPRouteLike,
} from './index.js';
import {
  answer,
  assemble,
  httpRouteContributions,
  listenerStatus,
  routeConditions,
  routeFor,
} from './testing/assemble.js';
import {
  CONTROLLER,
  config,
  gateway,
  httpListener,
  httpRoute,
  httpsListener,
  namespaceObject,
  parent,
  pathMatch,
  referenceGrant,
  rule,
  service,
  tlsSecret,
} from './testing/fixtures.js';

const defaultGateway = gateway('gw', [httpListener()]);
const defaultServices = ['app', 'app-1', 'app-2', 'app-3', 'v1', 'v2', 'v3'].map((name) => service(name));

function translate(
  routes: HTTPRouteLike[],
  objects: Partial<GatewayApiObjects> & { gateways?: GatewayLike[] } = {},
) {
  return translateGatewayApi(
    {
      gateways: objects.gateways ?? [defaultGateway],
      httpRoutes: routes,
      services: [...defaultServices, ...(objects.services ?? [])],
      secrets: objects.secrets ?? [],
      referenceGrants: objects.referenceGrants ?? [],
      namespaces: objects.namespaces ?? [],
    },
    config,
  );
}

function actionOf(route: Route): RouteAction {
  return route.action;
}

describe('translateGatewayApi', () => {
  describe('attachment (HTTPRouteSimpleSameNamespace)', () => {
    it('serves a route attached to a Gateway listener and reports it Accepted with resolved refs', () => {
      const result = translate([httpRoute('web', { rules: [rule(undefined, ['app'])] })]);
      const table = assemble(result);
      expect(answer(table, 'anything.example.com', '/any/path')).toBe('web/r0/m0');
      expect(routeConditions(result, 'web')).toEqual({
        Accepted: 'True Accepted',
        ResolvedRefs: 'True ResolvedRefs',
      });
      const status = result.statuses.httpRoutes[0]!;
      expect(status.parents[0]!.controllerName).toBe(CONTROLLER);
      expect(status.parents[0]!.parentRef).toEqual({
        group: 'gateway.networking.k8s.io',
        kind: 'Gateway',
        namespace: 'infra',
        name: 'gw',
      });
      expect(listenerStatus(result, 'http').attachedRoutes).toBe(1);
      expect(result.problems).toEqual([]);
    });

    it('keys contributions by source so a builder replaces exactly one route', () => {
      const result = translate([
        httpRoute('b', { rules: [rule(undefined)] }),
        httpRoute('a', { rules: [rule(undefined)] }),
      ]);
      expect(
        result.routes.map((route) => `${route.source.kind}/${route.source.namespace}/${route.source.name}`),
      ).toEqual(['HTTPRoute/default/a', 'HTTPRoute/default/b']);
    });

    it('writes no status for parentRefs to Gateways that are not ours', () => {
      const result = translate([httpRoute('web', { parentRefs: [parent('foreign')] })], {
        gateways: [defaultGateway, gateway('foreign', [httpListener()], { className: 'someone-else' })],
      });
      expect(result.statuses.httpRoutes).toEqual([]);
      expect(result.statuses.gateways.map((entry) => entry.name)).toEqual(['gw']);
      expect(httpRouteContributions(result)).toEqual([]);
    });

    it('ignores parentRefs of other kinds (a mesh Service) and serves the Gateway parent', () => {
      const result = translate([
        httpRoute('web', {
          parentRefs: [{ group: '', kind: 'Service', name: 'mesh' }, parent()],
          rules: [rule(undefined)],
        }),
      ]);
      expect(result.statuses.httpRoutes[0]!.parents).toHaveLength(1);
      expect(answer(assemble(result), 'a.example.com', '/')).toBe('web/r0/m0');
    });

    it('counts a route once per listener in attachedRoutes, and not when it is refused', () => {
      const result = translate(
        [
          httpRoute('one', { hostnames: ['a.example.com'] }),
          httpRoute('two', { parentRefs: [parent('gw'), parent('gw', { sectionName: 'http' })] }),
          httpRoute('three', { hostnames: ['other.org'] }),
        ],
        { gateways: [gateway('gw', [httpListener('http', { hostname: '*.example.com' })])] },
      );
      expect(listenerStatus(result, 'http').attachedRoutes).toBe(2);
      expect(routeConditions(result, 'three').Accepted).toBe('False NoMatchingListenerHostname');
    });
  });

  describe('HTTPRouteHostnameIntersection', () => {
    const gateways = [
      gateway('gw', [
        httpListener('wildcard', { hostname: '*.example.com' }),
        httpListener('exact', { hostname: 'specific.example.net' }),
      ]),
    ];

    it('serves only the route hostnames the listener hostname covers', () => {
      const result = translate(
        [
          httpRoute('web', {
            parentRefs: [parent('gw', { sectionName: 'wildcard' })],
            hostnames: ['very.specific.example.com', 'other.org'],
          }),
        ],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'very.specific.example.com', '/')).toBe('web/r0/m0');
      expect(answer(table, 'other.org', '/')).toBe('404');
      expect(answer(table, 'else.example.com', '/')).toBe('404');
      expect(httpRouteContributions(result)[0]!.hosts.map((host) => host.hostname)).toEqual([
        'very.specific.example.com',
      ]);
    });

    it('narrows a route wildcard to the listener exact hostname', () => {
      const result = translate(
        [
          httpRoute('web', {
            parentRefs: [parent('gw', { sectionName: 'exact' })],
            hostnames: ['*.example.net'],
          }),
        ],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'specific.example.net', '/')).toBe('web/r0/m0');
      expect(answer(table, 'other.example.net', '/')).toBe('404');
    });

    it('takes the listener hostname when the route has none', () => {
      const result = translate(
        [httpRoute('web', { parentRefs: [parent('gw', { sectionName: 'wildcard' })] })],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'a.b.example.com', '/')).toBe('web/r0/m0');
      expect(answer(table, 'example.com', '/')).toBe('404');
    });

    it('refuses a route sharing no hostname with NoMatchingListenerHostname and serves nothing', () => {
      const result = translate([httpRoute('web', { hostnames: ['nowhere.org'] })], { gateways });
      expect(routeConditions(result, 'web')).toEqual({
        Accepted: 'False NoMatchingListenerHostname',
        ResolvedRefs: 'True ResolvedRefs',
      });
      expect(httpRouteContributions(result)).toEqual([]);
    });

    it('never turns a route whose hostnames are all invalid into a catch-all', () => {
      const result = translate([httpRoute('web', { hostnames: ['Not_A_Host', '10.0.0.1'] })]);
      expect(httpRouteContributions(result)).toEqual([]);
      expect(routeConditions(result, 'web').Accepted).toBe('False NoMatchingListenerHostname');
      expect(result.problems.map((problem) => problem.field)).toEqual([
        'spec.hostnames[0]',
        'spec.hostnames[1]',
      ]);
    });
  });

  describe('HTTPRouteListenerHostnameMatching', () => {
    it('sends each hostname to the routes of the listener that covers it most specifically', () => {
      const gateways = [
        gateway('gw', [
          httpListener('listener-1', { hostname: 'bar.com' }),
          httpListener('listener-2', { hostname: 'foo.bar.com' }),
          httpListener('listener-3', { hostname: '*.bar.com' }),
          httpListener('listener-4', { hostname: '*.foo.com' }),
        ]),
      ];
      const result = translate(
        [
          httpRoute('v1', {
            parentRefs: [parent('gw', { sectionName: 'listener-1' })],
            rules: [rule(undefined, ['v1'])],
          }),
          httpRoute('v2', {
            parentRefs: [parent('gw', { sectionName: 'listener-2' })],
            rules: [rule(undefined, ['v2'])],
          }),
          httpRoute('v3', {
            parentRefs: [
              parent('gw', { sectionName: 'listener-3' }),
              parent('gw', { sectionName: 'listener-4' }),
            ],
            rules: [rule(undefined, ['v3'])],
          }),
        ],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'bar.com', '/')).toBe('v1/r0/m0');
      expect(answer(table, 'foo.bar.com', '/')).toBe('v2/r0/m0');
      expect(answer(table, 'baz.bar.com', '/')).toBe('v3/r0/m0');
      expect(answer(table, 'boo.bar.com', '/')).toBe('v3/r0/m0');
      expect(answer(table, 'multiple.prefixes.bar.com', '/')).toBe('v3/r0/m0');
      expect(answer(table, 'bar.foo.com', '/')).toBe('v3/r0/m0');
      expect(answer(table, 'foo.com', '/')).toBe('404');
      expect(answer(table, 'no.matching.host', '/')).toBe('404');
    });
  });

  describe('GatewayHTTPListenerIsolation', () => {
    const gateways = [
      gateway('gw', [
        httpListener('empty-hostname'),
        httpListener('wildcard-example-com', { hostname: '*.example.com' }),
        httpListener('wildcard-foo-example-com', { hostname: '*.foo.example.com' }),
        httpListener('abc-foo-example-com', { hostname: 'abc.foo.example.com' }),
      ]),
    ];
    const attached = (name: string, sectionName: string, path: string) =>
      httpRoute(name, {
        parentRefs: [parent('gw', { sectionName })],
        hostnames: ['bar.com', '*.example.com', '*.foo.example.com', 'abc.foo.example.com'],
        rules: [rule([pathMatch(path)])],
      });

    it('serves a request only with the routes of the most specific listener that covers its host', () => {
      const result = translate(
        [
          attached('empty', 'empty-hostname', '/empty-hostname'),
          attached('wildcard', 'wildcard-example-com', '/wildcard-example-com'),
          attached('wildcard-foo', 'wildcard-foo-example-com', '/wildcard-foo-example-com'),
          attached('abc-foo', 'abc-foo-example-com', '/abc-foo-example-com'),
        ],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'bar.com', '/empty-hostname')).toBe('empty/r0/m0');
      expect(answer(table, 'bar.com', '/wildcard-example-com')).toBe('404');
      expect(answer(table, 'bar.example.com', '/wildcard-example-com')).toBe('wildcard/r0/m0');
      expect(answer(table, 'bar.example.com', '/empty-hostname')).toBe('404');
      expect(answer(table, 'bar.foo.example.com', '/wildcard-foo-example-com')).toBe('wildcard-foo/r0/m0');
      expect(answer(table, 'bar.foo.example.com', '/wildcard-example-com')).toBe('404');
      expect(answer(table, 'abc.foo.example.com', '/abc-foo-example-com')).toBe('abc-foo/r0/m0');
      expect(answer(table, 'abc.foo.example.com', '/wildcard-foo-example-com')).toBe('404');
      expect(answer(table, 'abc.foo.example.com', '/empty-hostname')).toBe('404');
    });

    it('keeps a tenant route on a wildcard listener out of a hostname another Gateway listens for', () => {
      const shared = gateway('shared', [httpListener('http', { hostname: '*.example.com' })], {
        created: '2025-01-01T00:00:00Z',
      });
      const admin = gateway('admin', [
        httpListener('http', {
          hostname: 'admin.example.com',
          allowedRoutes: { namespaces: { from: 'Same' } },
        }),
      ]);
      const result = translate(
        [
          httpRoute('hijack', {
            parentRefs: [parent('shared')],
            hostnames: ['admin.example.com', 'shop.example.com'],
            rules: [rule([pathMatch('/')])],
          }),
          httpRoute(
            'console',
            { parentRefs: [parent('admin')], rules: [rule([pathMatch('/console')])] },
            { namespace: 'infra' },
          ),
        ],
        { gateways: [shared, admin], services: [service('app', 'infra')] },
      );
      const table = assemble(result);
      expect(answer(table, 'shop.example.com', '/')).toBe('hijack/r0/m0');
      expect(answer(table, 'admin.example.com', '/console')).toBe('console/r0/m0');
      expect(answer(table, 'admin.example.com', '/')).toBe('404');
    });

    it('isolates listeners within a namespace only with isolateListenersByNamespace (host ownership decides across)', () => {
      const wild = gateway('wild', [httpListener('http', { hostname: '*.example.com' })], {
        namespace: 'shop',
      });
      const grab = gateway('grab', [httpListener('http', { hostname: 'pay.example.com' })], {
        namespace: 'evil',
      });
      const objects = {
        gateways: [wild, grab],
        httpRoutes: [
          httpRoute(
            'pay',
            {
              parentRefs: [parent('wild', { namespace: 'shop' })],
              hostnames: ['pay.example.com'],
              rules: [rule(undefined)],
            },
            { namespace: 'shop' },
          ),
        ],
        services: [service('app', 'shop')],
      };
      const hostnamesOf = (isolateListenersByNamespace: boolean) =>
        translateGatewayApi(objects, { ...config, isolateListenersByNamespace })
          .routes.find(({ source }) => source.kind === 'HTTPRoute')
          ?.hosts.map(({ hostname }) => hostname);
      expect(hostnamesOf(true)).toEqual(['pay.example.com']);
      expect(hostnamesOf(false)).toBeUndefined();
    });
  });

  describe('HTTPRouteMatchingAcrossRoutes (precedence)', () => {
    it('prefers more header conditions across routes for the same path', () => {
      const result = translate([
        httpRoute('first', {
          hostnames: ['example.com'],
          rules: [rule([pathMatch('/')], ['app-1']), rule([pathMatch('/v2')], ['app-2'])],
        }),
        httpRoute(
          'second',
          {
            hostnames: ['example.com'],
            rules: [
              rule(
                [pathMatch('/v2', 'PathPrefix', { headers: [{ name: 'version', value: 'two' }] })],
                ['app-3'],
              ),
            ],
          },
          { created: '2026-02-01T00:00:00Z' },
        ),
      ]);
      const table = assemble(result);
      expect(answer(table, 'example.com', '/')).toBe('first/r0/m0');
      expect(answer(table, 'example.com', '/v2')).toBe('first/r1/m0');
      expect(answer(table, 'example.com', '/v2/x', { headers: { Version: 'two' } })).toBe('second/r0/m0');
      expect(answer(table, 'example.com', '/v2x')).toBe('first/r0/m0');
    });

    it('orders exact path, longest prefix, method, headers, query parameters', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule([pathMatch('/a')]),
            rule([pathMatch('/a/b')]),
            rule([pathMatch('/a/b', 'Exact')]),
            rule([pathMatch('/a', 'PathPrefix', { method: 'POST' })]),
            rule([
              pathMatch('/a', 'PathPrefix', {
                headers: [
                  { name: 'x', value: '1' },
                  { name: 'y', value: '2' },
                ],
              }),
            ]),
            rule([pathMatch('/a', 'PathPrefix', { queryParams: [{ name: 'q', value: '1' }] })]),
          ],
        }),
      ]);
      const table = assemble(result);
      expect(answer(table, 'h.example.com', '/a/b')).toBe('web/r2/m0');
      expect(answer(table, 'h.example.com', '/a/b/c')).toBe('web/r1/m0');
      const all = { method: 'POST', headers: { x: '1', y: '2' }, query: { q: '1' } };
      expect(answer(table, 'h.example.com', '/a/z', all)).toBe('web/r3/m0');
      expect(answer(table, 'h.example.com', '/a/z', { ...all, method: 'GET' })).toBe('web/r4/m0');
      expect(answer(table, 'h.example.com', '/a/z', { query: { q: '1' }, headers: { x: '1' } })).toBe(
        'web/r5/m0',
      );
      expect(answer(table, 'h.example.com', '/a/z')).toBe('web/r0/m0');
    });

    it('breaks ties by the oldest route, then namespace/name, then rule order', () => {
      const older = httpRoute(
        'zeta',
        { rules: [rule([pathMatch('/same')], ['v1'])] },
        { created: '2025-06-01T00:00:00Z' },
      );
      const newer = httpRoute(
        'alpha',
        { rules: [rule([pathMatch('/same')], ['v2'])] },
        { created: '2026-06-01T00:00:00Z' },
      );
      expect(answer(assemble(translate([newer, older])), 'h.example.com', '/same')).toBe('zeta/r0/m0');

      const sameAgeA = httpRoute('b-route', { rules: [rule([pathMatch('/same')])] }, { namespace: 'a-team' });
      const sameAgeB = httpRoute('a-route', { rules: [rule([pathMatch('/same')])] }, { namespace: 'b-team' });
      const services = [service('app', 'a-team'), service('app', 'b-team')];
      expect(answer(assemble(translate([sameAgeB, sameAgeA], { services })), 'h.example.com', '/same')).toBe(
        'b-route/r0/m0',
      );

      const twoRules = httpRoute('web', {
        rules: [rule([pathMatch('/same')], ['v1']), rule([pathMatch('/same')], ['v2'])],
      });
      expect(answer(assemble(translate([twoRules])), 'h.example.com', '/same')).toBe('web/r0/m0');
    });
  });

  describe('HTTPRouteHeaderMatching', () => {
    const route = httpRoute('web', {
      rules: [
        rule([{ headers: [{ name: 'Version', value: 'one' }] }], ['v1']),
        rule(
          [
            {
              headers: [
                { name: 'version', value: 'two' },
                { name: 'color', value: 'orange' },
              ],
            },
          ],
          ['v2'],
        ),
        rule([{ headers: [{ type: 'RegularExpression', name: 'color', value: 'bl(ue|ack)' }] }], ['v3']),
      ],
    });

    it('matches header names case-insensitively and values exactly', () => {
      const table = assemble(translate([route]));
      expect(answer(table, 'h.example.com', '/', { headers: { version: 'one' } })).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/', { headers: { VERSION: 'one' } })).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/', { headers: { version: 'One' } })).toBe('404');
      expect(answer(table, 'h.example.com', '/', { headers: { version: 'two', color: 'orange' } })).toBe(
        'web/r1/m0',
      );
      expect(answer(table, 'h.example.com', '/', { headers: { version: 'two' } })).toBe('404');
    });

    it('matches a RegularExpression against the whole value', () => {
      const table = assemble(translate([route]));
      expect(answer(table, 'h.example.com', '/', { headers: { color: 'blue' } })).toBe('web/r2/m0');
      expect(answer(table, 'h.example.com', '/', { headers: { color: 'black' } })).toBe('web/r2/m0');
      expect(answer(table, 'h.example.com', '/', { headers: { color: 'navyblue' } })).toBe('404');
    });

    it('keeps only the first of two conditions on the same header name', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule([
              {
                headers: [
                  { name: 'x', value: 'a' },
                  { name: 'X', value: 'b' },
                ],
              },
            ]),
          ],
        }),
      ]);
      expect(answer(assemble(result), 'h.example.com', '/', { headers: { x: 'a' } })).toBe('web/r0/m0');
      expect(result.problems).toMatchObject([
        { severity: 'warning', field: 'spec.rules[0].matches[0].headers[1].name' },
      ]);
    });
  });

  describe('HTTPRouteQueryParamMatching', () => {
    it('matches query parameters exactly or by expression, names case-sensitively', () => {
      const table = assemble(
        translate([
          httpRoute('web', {
            rules: [
              rule([{ queryParams: [{ name: 'animal', value: 'whale' }] }], ['v1']),
              rule([{ queryParams: [{ type: 'RegularExpression', name: 'id', value: '[0-9]+' }] }], ['v2']),
            ],
          }),
        ]),
      );
      expect(answer(table, 'h.example.com', '/', { query: { animal: 'whale' } })).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/', { query: { Animal: 'whale' } })).toBe('404');
      expect(answer(table, 'h.example.com', '/', { query: { id: '42' } })).toBe('web/r1/m0');
      expect(answer(table, 'h.example.com', '/', { query: { id: '42a' } })).toBe('404');
    });
  });

  describe('HTTPRouteMethodMatching', () => {
    it('sends each method to its rule and falls through for the others', () => {
      const table = assemble(
        translate([
          httpRoute('web', {
            rules: [rule([{ method: 'POST' }], ['v1']), rule([{ method: 'GET' }], ['v2'])],
          }),
        ]),
      );
      expect(answer(table, 'h.example.com', '/', { method: 'POST' })).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/', { method: 'GET' })).toBe('web/r1/m0');
      expect(answer(table, 'h.example.com', '/', { method: 'PUT' })).toBe('404');
    });
  });

  describe('paths', () => {
    it('matches PathPrefix element-wise and Exact character for character', () => {
      const table = assemble(
        translate([
          httpRoute('web', {
            rules: [rule([pathMatch('/foo')], ['v1']), rule([pathMatch('/bar', 'Exact')], ['v2'])],
          }),
        ]),
      );
      expect(answer(table, 'h.example.com', '/foo/x')).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/foobar')).toBe('404');
      expect(answer(table, 'h.example.com', '/bar')).toBe('web/r1/m0');
      expect(answer(table, 'h.example.com', '/bar/')).toBe('404');
    });

    it('keeps a RegularExpression as data matched against the whole path', () => {
      const result = translate([
        httpRoute('web', { rules: [rule([pathMatch('/v[0-9]+', 'RegularExpression')])] }),
      ]);
      const table = assemble(result);
      expect(answer(table, 'h.example.com', '/v12')).toBe('web/r0/m0');
      expect(answer(table, 'h.example.com', '/v12/x')).toBe('404');
      expect(answer(table, 'h.example.com', '/x/v12')).toBe('404');
      expect(result.routes[0]!.hosts[0]!.routes[0]!.match.path).toEqual({
        type: 'RegularExpression',
        value: '^(?:/v[0-9]+)$',
      });
    });

    it('decodes percent-escapes of a literal path, as the data plane compares decoded paths', () => {
      const table = assemble(
        translate([httpRoute('web', { rules: [rule([pathMatch('/caf%C3%A9', 'Exact')])] })]),
      );
      expect(answer(table, 'h.example.com', '/café')).toBe('web/r0/m0');
    });
  });

  describe('HTTPRouteInvalid* (bad input becomes status and problems)', () => {
    it('leaves out an invalid rule, serves the others and reports PartiallyInvalid', () => {
      const result = translate([
        httpRoute('web', { rules: [rule([pathMatch('/ok')]), rule([pathMatch('/foo//bar')])] }),
      ]);
      const table = assemble(result);
      expect(answer(table, 'h.example.com', '/ok')).toBe('web/r0/m0');
      expect(routeConditions(result, 'web')).toEqual({
        Accepted: 'True Accepted',
        ResolvedRefs: 'True ResolvedRefs',
        PartiallyInvalid: 'True UnsupportedValue',
      });
      expect(result.problems.map(formatProblem)).toEqual([
        'HTTPRoute default/web spec.rules[1].matches[0].path.value: must not contain "//"; the rule is not served',
      ]);
      expect(result.problems[0]!.value).toBe('/foo//bar');
    });

    it('reports Accepted False UnsupportedValue when no rule can be served', () => {
      const result = translate([
        httpRoute('web', {
          rules: [rule([pathMatch('(?=look)ahead', 'RegularExpression')]), rule([{ method: 'BREW' }])],
        }),
      ]);
      expect(httpRouteContributions(result)).toEqual([]);
      expect(routeConditions(result, 'web').Accepted).toBe('False UnsupportedValue');
      expect(listenerStatus(result, 'http').attachedRoutes).toBe(0);
    });

    it('answers 500 on the matches of a rule with an unsupported filter, so nothing falls through', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule([pathMatch('/ext')], ['app'], {
              filters: [{ type: 'ExtensionRef', extensionRef: { group: 'x', kind: 'Y', name: 'z' } }],
            }),
            rule([pathMatch('/private')], ['app'], {
              filters: [{ type: 'ExternalAuth', externalAuth: { protocol: 'HTTP' } }],
            }),
            rule([pathMatch('/')]),
          ],
        }),
      ]);
      const table = assemble(result);
      expect(actionOf(routeFor(table, 'h.example.com', '/ext/x'))).toEqual({
        type: 'respond',
        statusCode: 500,
      });
      expect(actionOf(routeFor(table, 'h.example.com', '/private'))).toEqual({
        type: 'respond',
        statusCode: 500,
      });
      expect(answer(table, 'h.example.com', '/other')).toBe('web/r2/m0');
      expect(routeConditions(result, 'web')).toMatchObject({
        Accepted: 'True Accepted',
        PartiallyInvalid: 'True UnsupportedValue',
      });
      expect(result.problems.map((problem) => problem.field)).toEqual([
        'spec.rules[0].filters[0].type',
        'spec.rules[1].filters[0].type',
      ]);
    });

    it('reports NoMatchingParent for a sectionName or port no listener has (HTTPRouteInvalidParentRefNotMatchingSectionName)', () => {
      const result = translate([
        httpRoute('by-name', { parentRefs: [parent('gw', { sectionName: 'nope' })] }),
        httpRoute('by-port', { parentRefs: [parent('gw', { port: 8080 })] }),
      ]);
      expect(routeConditions(result, 'by-name').Accepted).toBe('False NoMatchingParent');
      expect(routeConditions(result, 'by-port').Accepted).toBe('False NoMatchingParent');
      expect(httpRouteContributions(result)).toEqual([]);
    });

    it('reports BackendNotFound for a missing Service and answers 500 for its share', () => {
      const result = translate([
        httpRoute('web', { rules: [rule(undefined, ['missing:80:1', 'app:80:1'])] }),
      ]);
      expect(routeConditions(result, 'web')).toEqual({
        Accepted: 'True Accepted',
        ResolvedRefs: 'False BackendNotFound',
      });
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'forward',
        backends: [
          { weight: 1, statusCode: 500 },
          { backend: 'default/app:80', weight: 1 },
        ],
      });
    });

    it('reports BackendNotFound for a port the Service does not have', () => {
      const result = translate([httpRoute('web', { rules: [rule(undefined, ['app:8080'])] })]);
      expect(routeConditions(result, 'web').ResolvedRefs).toBe('False BackendNotFound');
    });

    it('reports InvalidKind for a backend that is not a Service (HTTPRouteInvalidBackendRefUnknownKind)', () => {
      const result = translate([
        httpRoute('web', {
          rules: [rule(undefined, [{ group: 'unknown.example.com', kind: 'Bucket', name: 'b' }])],
        }),
      ]);
      expect(routeConditions(result, 'web').ResolvedRefs).toBe('False InvalidKind');
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'forward',
        backends: [{ weight: 1, statusCode: 500 }],
      });
    });

    it('answers 500 for a rule without backendRefs', () => {
      const result = translate([httpRoute('web', { rules: [{ matches: [pathMatch('/')] }] })]);
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'respond',
        statusCode: 500,
      });
    });

    it('never throws for malformed or hostile objects', () => {
      const hostile = new Proxy(
        {},
        {
          get(_, key) {
            if (key === 'metadata') return { name: 'evil', namespace: 'default' };
            throw new Error('boom');
          },
        },
      ) as HTTPRouteLike;
      const broken = [
        hostile,
        { metadata: { name: 'x', namespace: 'default' }, spec: 'nonsense' },
        {
          metadata: { name: 'y', namespace: 'default' },
          spec: { parentRefs: [parent()], rules: [null, 7, { matches: 'x' }] },
        },
        { metadata: null },
        null,
      ] as unknown as HTTPRouteLike[];
      const result = translate([...broken, httpRoute('fine', { rules: [rule(undefined)] })]);
      expect(answer(assemble(result), 'h.example.com', '/')).toBe('fine/r0/m0');
      expect(result.problems.some((problem) => problem.object.name === 'evil')).toBe(true);
    });
  });

  describe('allowedRoutes (HTTPRouteCrossNamespace, hostile tenants)', () => {
    it('attaches routes of the Gateway namespace only when from is Same', () => {
      const gateways = [
        gateway('gw', [httpListener('http', { allowedRoutes: { namespaces: { from: 'Same' } } })]),
      ];
      const result = translate(
        [
          httpRoute('tenant', { parentRefs: [parent('gw', { sectionName: 'http' })] }),
          httpRoute('infra-route', {}, { namespace: 'infra' }),
        ],
        { gateways, services: [service('app', 'infra')] },
      );
      expect(routeConditions(result, 'tenant').Accepted).toBe('False NotAllowedByListeners');
      expect(routeConditions(result, 'infra-route', 0, 'infra').Accepted).toBe('True Accepted');
      expect(result.routes.map((route) => route.source.name)).toEqual(['infra-route']);
    });

    it('attaches routes from namespaces whose labels the selector matches', () => {
      const gateways = [
        gateway('gw', [
          httpListener('http', {
            allowedRoutes: {
              namespaces: { from: 'Selector', selector: { matchLabels: { shared: 'true' } } },
            },
          }),
        ]),
      ];
      const result = translate(
        [
          httpRoute('ok', {}, { namespace: 'team-a' }),
          httpRoute('no', {}, { namespace: 'team-b' }),
          httpRoute('gone', {}, { namespace: 'team-c' }),
        ],
        {
          gateways,
          namespaces: [
            namespaceObject('team-a', { shared: 'true' }),
            namespaceObject('team-b', { shared: 'false' }),
          ],
          services: ['team-a', 'team-b', 'team-c'].map((namespace) => service('app', namespace)),
        },
      );
      expect(routeConditions(result, 'ok', 0, 'team-a').Accepted).toBe('True Accepted');
      expect(routeConditions(result, 'no', 0, 'team-b').Accepted).toBe('False NotAllowedByListeners');
      expect(routeConditions(result, 'gone', 0, 'team-c').Accepted).toBe('False NotAllowedByListeners');
    });

    it('does not let a route take a listener that excludes it, even by sectionName', () => {
      const gateways = [
        gateway('gw', [
          httpListener('public', { hostname: 'public.example.com' }),
          httpListener('admin', {
            hostname: 'admin.example.com',
            allowedRoutes: { namespaces: { from: 'Same' } },
          }),
        ]),
      ];
      const result = translate(
        [
          httpRoute('grab', {
            parentRefs: [parent('gw')],
            hostnames: ['admin.example.com', 'public.example.com'],
          }),
        ],
        { gateways },
      );
      const table = assemble(result);
      expect(answer(table, 'public.example.com', '/')).toBe('grab/r0/m0');
      expect(answer(table, 'admin.example.com', '/')).toBe('404');
    });

    it('attaches nothing to a listener that allows only other route kinds', () => {
      const gateways = [
        gateway('gw', [httpListener('http', { allowedRoutes: { kinds: [{ kind: 'GRPCRoute' }] } })]),
      ];
      const result = translate([httpRoute('web', {})], { gateways });
      expect(routeConditions(result, 'web').Accepted).toBe('False NotAllowedByListeners');
      expect(listenerStatus(result, 'http').supportedKinds).toEqual([]);
    });
  });

  describe('HTTPRouteReferenceGrant (cross-namespace backends)', () => {
    const crossRoute = httpRoute('web', {
      rules: [rule(undefined, [{ name: 'app', namespace: 'backends', port: 80 }])],
    });
    const services = [service('app', 'backends')];

    it('refuses a backend in another namespace without a ReferenceGrant (RefNotPermitted, 500)', () => {
      const result = translate([crossRoute], { services });
      expect(routeConditions(result, 'web')).toEqual({
        Accepted: 'True Accepted',
        ResolvedRefs: 'False RefNotPermitted',
      });
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'forward',
        backends: [{ weight: 1, statusCode: 500 }],
      });
    });

    it('forwards to it when a ReferenceGrant in its namespace allows HTTPRoutes of ours', () => {
      const grant = referenceGrant(
        'allow',
        'backends',
        { kind: 'HTTPRoute', namespace: 'default' },
        { kind: 'Service' },
      );
      const result = translate([crossRoute], { services, referenceGrants: [grant] });
      expect(routeConditions(result, 'web').ResolvedRefs).toBe('True ResolvedRefs');
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'forward',
        backends: [{ backend: 'backends/app:80', weight: 1 }],
      });
    });

    it('refuses it when the grant names another Service, another namespace, or lives elsewhere', () => {
      const grants = [
        referenceGrant(
          'other-name',
          'backends',
          { kind: 'HTTPRoute', namespace: 'default' },
          { kind: 'Service', name: 'other' },
        ),
        referenceGrant(
          'other-ns',
          'backends',
          { kind: 'HTTPRoute', namespace: 'elsewhere' },
          { kind: 'Service' },
        ),
        referenceGrant(
          'wrong-place',
          'default',
          { kind: 'HTTPRoute', namespace: 'default' },
          { kind: 'Service' },
        ),
      ];
      const result = translate([crossRoute], { services, referenceGrants: grants });
      expect(routeConditions(result, 'web').ResolvedRefs).toBe('False RefNotPermitted');
    });
  });

  describe('HTTPRouteWeight', () => {
    it('carries weights, including 0, into the backend group', () => {
      const result = translate([
        httpRoute('web', { rules: [rule(undefined, ['v1:80:70', 'v2:80:30', 'v3:80:0'])] }),
      ]);
      expect(actionOf(routeFor(assemble(result), 'h.example.com', '/'))).toEqual({
        type: 'forward',
        backends: [
          { backend: 'default/v1:80', weight: 70 },
          { backend: 'default/v2:80', weight: 30 },
          { backend: 'default/v3:80', weight: 0 },
        ],
      });
    });

    it('keeps a group whose weights are all 0, which route-model answers with 500', () => {
      const result = translate([httpRoute('web', { rules: [rule(undefined, ['v1:80:0'])] })]);
      const action = actionOf(routeFor(assemble(result), 'h.example.com', '/'));
      expect(action.type === 'forward' && action.backends.every((member) => member.weight === 0)).toBe(true);
    });

    it('refuses a negative weight for its rule', () => {
      const result = translate([httpRoute('web', { rules: [rule(undefined, ['v1:80:-1'])] })]);
      expect(routeConditions(result, 'web').Accepted).toBe('False UnsupportedValue');
    });
  });

  describe('HTTPRouteRedirect*', () => {
    function redirectOf(requestRedirect: Record<string, unknown>, matches = [pathMatch('/')]) {
      const result = translate([
        httpRoute('web', { rules: [{ matches, filters: [{ type: 'RequestRedirect', requestRedirect }] }] }),
      ]);
      return {
        result,
        action:
          result.routes[0] === undefined
            ? undefined
            : actionOf(routeFor(assemble(result), 'h.example.com', '/')),
      };
    }

    it('redirects to a hostname with a status code (HTTPRouteRedirectHostAndStatus)', () => {
      expect(redirectOf({ hostname: 'example.org', statusCode: 301 }).action).toEqual({
        type: 'redirect',
        redirect: { hostname: 'example.org', statusCode: 301 },
      });
    });

    it('defaults the status code to 302 and keeps scheme and port (HTTPRouteRedirectScheme, HTTPRouteRedirectPort)', () => {
      expect(redirectOf({ scheme: 'https' }).action).toEqual({
        type: 'redirect',
        redirect: { scheme: 'https', statusCode: 302 },
      });
      expect(redirectOf({ port: 8083 }).action).toEqual({
        type: 'redirect',
        redirect: { port: 8083, statusCode: 302 },
      });
    });

    it('replaces the full path or the matched prefix (HTTPRouteRedirectPath)', () => {
      expect(redirectOf({ path: { type: 'ReplaceFullPath', replaceFullPath: '/full' } }).action).toEqual({
        type: 'redirect',
        redirect: { path: { type: 'ReplaceFullPath', value: '/full' }, statusCode: 302 },
      });
      expect(redirectOf({ path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/new' } }).action).toEqual(
        {
          type: 'redirect',
          redirect: { path: { type: 'ReplacePrefixMatch', value: '/new' }, statusCode: 302 },
        },
      );
    });

    it('refuses ReplacePrefixMatch on an Exact match and an unsupported status code', () => {
      const prefixOnExact = redirectOf({ path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/x' } }, [
        pathMatch('/a', 'Exact'),
      ]);
      expect(routeConditions(prefixOnExact.result, 'web').Accepted).toBe('False UnsupportedValue');
      const status = redirectOf({ statusCode: 305 });
      expect(routeConditions(status.result, 'web').Accepted).toBe('False UnsupportedValue');
      expect(status.result.problems[0]!.field).toBe('spec.rules[0].filters[0].requestRedirect.statusCode');
    });
  });

  describe('HTTPRouteRewritePath and HTTPRouteRewriteHost', () => {
    it('rewrites the matched prefix and the Host header sent upstream', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule([pathMatch('/prefix/one')], ['app'], {
              filters: [
                {
                  type: 'URLRewrite',
                  urlRewrite: {
                    hostname: 'upstream.internal',
                    path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/one' },
                  },
                },
              ],
            }),
            rule([pathMatch('/strip')], ['app'], {
              filters: [
                {
                  type: 'URLRewrite',
                  urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } },
                },
              ],
            }),
            rule([pathMatch('/full')], ['app'], {
              filters: [
                {
                  type: 'URLRewrite',
                  urlRewrite: { path: { type: 'ReplaceFullPath', replaceFullPath: '/one' } },
                },
              ],
            }),
          ],
        }),
      ]);
      const table = assemble(result);
      const upstreamPath = (path: string) => {
        const route = routeFor(table, 'h.example.com', path);
        return rewritePath(route.policy.rewrite!, path, route.match.path.value);
      };
      expect(upstreamPath('/prefix/one/two')).toBe('/one/two');
      expect(upstreamPath('/prefix/one')).toBe('/one');
      expect(upstreamPath('/strip/x/y')).toBe('/x/y');
      expect(upstreamPath('/full/any/thing')).toBe('/one');
      expect(routeFor(table, 'h.example.com', '/prefix/one').policy.upstreamHost).toBe('upstream.internal');
    });

    it('refuses a rule that both redirects and rewrites', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            {
              filters: [
                { type: 'RequestRedirect', requestRedirect: { hostname: 'a.example.com' } },
                { type: 'URLRewrite', urlRewrite: { hostname: 'b.example.com' } },
              ],
            },
          ],
        }),
      ]);
      expect(routeConditions(result, 'web').Accepted).toBe('False UnsupportedValue');
    });
  });

  describe('header modifiers, mirror and timeouts', () => {
    it('turns RequestHeaderModifier and ResponseHeaderModifier into the route policy', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule(undefined, ['app'], {
              filters: [
                {
                  type: 'RequestHeaderModifier',
                  requestHeaderModifier: {
                    set: [{ name: 'X-Set', value: 'a' }],
                    add: [{ name: 'X-Add', value: 'b' }],
                    remove: ['X-Drop'],
                  },
                },
                {
                  type: 'ResponseHeaderModifier',
                  responseHeaderModifier: { set: [{ name: 'X-Resp', value: 'c' }] },
                },
              ],
            }),
          ],
        }),
      ]);
      expect(routeFor(assemble(result), 'h.example.com', '/').policy).toEqual({
        requestHeaders: {
          set: [{ name: 'X-Set', value: 'a' }],
          add: [{ name: 'X-Add', value: 'b' }],
          remove: ['X-Drop'],
        },
        responseHeaders: { set: [{ name: 'X-Resp', value: 'c' }] },
      });
    });

    it('refuses a header value with a line break', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule(undefined, ['app'], {
              filters: [
                {
                  type: 'RequestHeaderModifier',
                  requestHeaderModifier: { set: [{ name: 'X', value: 'a\r\nInjected: 1' }] },
                },
              ],
            }),
          ],
        }),
      ]);
      expect(httpRouteContributions(result)).toEqual([]);
      expect(result.problems[0]!.field).toBe('spec.rules[0].filters[0].requestHeaderModifier.set[0].value');
    });

    it('mirrors requests to a Service the route may use', () => {
      const result = translate([
        httpRoute('web', {
          rules: [
            rule(undefined, ['app'], {
              filters: [{ type: 'RequestMirror', requestMirror: { backendRef: { name: 'v2', port: 80 } } }],
            }),
          ],
        }),
      ]);
      expect(routeFor(assemble(result), 'h.example.com', '/').policy.mirror).toEqual({
        backend: 'default/v2:80',
      });
    });

    it('carries request and backendRequest timeouts in milliseconds', () => {
      const result = translate([
        httpRoute('web', {
          rules: [rule(undefined, ['app'], { timeouts: { request: '1m30s', backendRequest: '500ms' } })],
        }),
      ]);
      expect(routeFor(assemble(result), 'h.example.com', '/').policy.timeouts).toEqual({
        requestMs: 90_000,
        backendRequestMs: 500,
      });
    });

    it('refuses a backendRequest timeout longer than the request timeout', () => {
      const result = translate([
        httpRoute('web', {
          rules: [rule(undefined, ['app'], { timeouts: { request: '1s', backendRequest: '2s' } })],
        }),
      ]);
      expect(routeConditions(result, 'web').Accepted).toBe('False UnsupportedValue');
    });
  });

  describe('HTTPS listeners', () => {
    it('claims the listener certificate for its hostname and serves routes on the https listener', () => {
      const gateways = [
        gateway('gw', [
          httpListener('http', { hostname: 'secure.example.com' }),
          httpsListener('https', ['cert'], { hostname: 'secure.example.com' }),
        ]),
      ];
      const result = translate([httpRoute('web', {})], { gateways, secrets: [tlsSecret('cert')] });
      const table = assemble(result);
      expect(answer(table, 'secure.example.com', '/', { listener: 'https' })).toBe('web/r0/m0');
      expect(answer(table, 'secure.example.com', '/', { listener: 'http' })).toBe('web/r0/m0');
      expect(table.table().tls.map((binding) => binding.hostname)).toEqual(['secure.example.com']);
      expect(routeFor(table, 'secure.example.com', '/').listeners).toEqual(['http', 'https']);
    });

    it('claims the certificate of a listener without hostname for the hostnames its routes serve', () => {
      const gateways = [gateway('gw', [httpsListener('https', ['cert'])])];
      const result = translate(
        [
          httpRoute('web', { hostnames: ['secure.example.com'] }),
          httpRoute('any', { rules: [rule([pathMatch('/any')])] }),
        ],
        {
          gateways,
          secrets: [tlsSecret('cert')],
        },
      );
      expect(
        assemble(result)
          .table()
          .tls.map((binding) => binding.hostname),
      ).toEqual(['secure.example.com']);
    });

    it('serves nothing on an HTTPS listener whose certificate cannot be used, but counts its routes', () => {
      const gateways = [gateway('gw', [httpsListener('https', ['missing'])])];
      const result = translate([httpRoute('web', {})], { gateways });
      expect(httpRouteContributions(result)).toEqual([]);
      // Attachment depends on allowedRoutes and parentRefs only (GatewayWithAttachedRoutes).
      expect(routeConditions(result, 'web').Accepted).toBe('True Accepted');
      expect(result.statuses.gateways[0]!.status.listeners[0]!.attachedRoutes).toBe(1);
    });
  });

  describe('observedGeneration (GatewayObservedGenerationBump)', () => {
    it('writes the generation of each object into its conditions', () => {
      const before = translate([httpRoute('web', {}, { generation: 4 })], {
        gateways: [gateway('gw', [httpListener()], { generation: 1 })],
      });
      const after = translate([httpRoute('web', {}, { generation: 5 })], {
        gateways: [gateway('gw', [httpListener()], { generation: 2 })],
      });
      const generations = (result: typeof before) => ({
        gateway: result.statuses.gateways[0]!.status.conditions.map(
          (condition) => condition.observedGeneration,
        ),
        listener: result.statuses.gateways[0]!.status.listeners[0]!.conditions.map(
          (condition) => condition.observedGeneration,
        ),
        route: result.statuses.httpRoutes[0]!.parents[0]!.conditions.map(
          (condition) => condition.observedGeneration,
        ),
      });
      expect(generations(before)).toEqual({ gateway: [1, 1], listener: [1, 1, 1, 1], route: [4, 4] });
      expect(generations(after)).toEqual({ gateway: [2, 2], listener: [2, 2, 2, 2], route: [5, 5] });
    });
  });
});
