/**
 * Gateways and HTTPRoutes served end to end: the Gateway API CRDs installed in the local API
 * server, one controller with real nginx, real HTTP to small backends, and the statuses read back
 * from the API server. Each `describe` ports the scenario of the upstream conformance test it is
 * named after (behaviour only). One difference from upstream: every Gateway of a controller
 * shares one nginx and so one address, and two Gateways listening on port 80 without hostnames
 * would conflict; each scenario's Gateway listens on hostnames of its own.
 */
import { NetworkingV1Api } from '@kubernetes/client-node';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/commands/index.js';
import { resolveControllerConfig } from '../src/config.js';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { defaultFlags } from '../src/flags.js';
import { probe } from '../src/http-probe.js';
import {
  api,
  answer,
  APP,
  applyGatewayAndRoute,
  backendRef,
  backends,
  condition,
  CONTROLLER_NAME,
  controller,
  expectAnswers,
  expectRouteConditions,
  gateway,
  GROUP,
  httpListener,
  httpRoute,
  INFRA,
  parentStatus,
  readGateway,
  readRoute,
  rule,
  send,
  server,
  useGatewayApiCase,
  WEB,
  type Condition,
} from './gateway-api.js';
import {
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  presentedCertificate,
  serviceManifests,
  startController,
  tlsSecretManifest,
} from './harness.js';

useGatewayApiCase();

describe('GatewayClass', () => {
  it('is accepted and lists the features this controller serves, as the conformance suite reads them', async () => {
    await eventually(async () => {
      const gatewayClass = (await api().getClusterCustomObject({
        group: GROUP,
        version: 'v1',
        plural: 'gatewayclasses',
        name: 'ingresskit',
      })) as { status?: { conditions?: Condition[]; supportedFeatures?: { name: string }[] } };
      expect(condition(gatewayClass.status?.conditions, 'Accepted')?.status).toBe('True');
      const names = gatewayClass.status?.supportedFeatures?.map(({ name }) => name) ?? [];
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(
        expect.arrayContaining([
          'Gateway',
          'HTTPRoute',
          'HTTPRouteCORS',
          'HTTPRouteRequestTimeout',
          'ReferenceGrant',
        ]),
      );
      expect(names).not.toContain('GRPCRoute');
    });
  });
});

describe('HTTPRouteSimpleSameNamespace', () => {
  it('serves a route attached to a Gateway of its namespace and reports both as accepted and programmed', async () => {
    await applyGatewayAndRoute('same-namespace', '*.same.test', 'gateway-conformance-infra-test', [
      rule('infra-backend-v1'),
    ]);
    await expectAnswers([
      ['a.same.test', '/', 'infra-backend-v1'],
      ['a.b.same.test', '/any/path', 'infra-backend-v1'],
      ['same.test', '/', '404'],
    ]);
    await expectRouteConditions(INFRA, 'gateway-conformance-infra-test', 'same-namespace', {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'True/ResolvedRefs',
    });
    await eventually(async () => {
      const object = await readGateway(INFRA, 'same-namespace');
      expect(condition(object.status?.conditions, 'Accepted')).toMatchObject({
        status: 'True',
        observedGeneration: object.metadata.generation,
      });
      expect(condition(object.status?.conditions, 'Programmed')).toMatchObject({
        status: 'True',
        reason: 'Programmed',
      });
      expect(object.status?.addresses).toEqual([{ type: 'IPAddress', value: '10.0.0.1' }]);
      expect(object.status?.listeners?.[0]).toMatchObject({ name: 'http', attachedRoutes: 1 });
    });
  });
});

describe('HTTPRouteInvalidCrossNamespaceParentRef', () => {
  it('refuses a route of another namespace on a listener that allows its own namespace only', async () => {
    await server.apply(
      httpRoute(
        'intruder',
        {
          parentRefs: [{ name: 'same-namespace', namespace: INFRA }],
          hostnames: ['intruder.same.test'],
          rules: [rule('web-backend')],
        },
        WEB,
      ),
    );
    await expectRouteConditions(WEB, 'intruder', 'same-namespace', {
      Accepted: 'False/NotAllowedByListeners',
    });
    expect(await answer('intruder.same.test')).toBe('infra-backend-v1');
  });
});

describe('HTTPRouteMatching', () => {
  it('sends each request to the rule whose path and header match it best', async () => {
    await applyGatewayAndRoute('matching', 'matching.test', 'matching', [
      rule('infra-backend-v1', { path: { type: 'PathPrefix', value: '/' } }),
      rule('infra-backend-v2', { path: { type: 'PathPrefix', value: '/v2' } }),
      rule('infra-backend-v2', { headers: [{ name: 'version', value: 'two' }] }),
      rule('infra-backend-v3', {
        path: { type: 'Exact', value: '/exact' },
        headers: [{ name: 'version', value: 'three' }],
      }),
    ]);
    await expectAnswers([
      ['matching.test', '/', 'infra-backend-v1'],
      ['matching.test', '/example', 'infra-backend-v1'],
      ['matching.test', '/v2', 'infra-backend-v2'],
      ['matching.test', '/v2/example', 'infra-backend-v2'],
      // Path prefixes match whole segments.
      ['matching.test', '/v2example', 'infra-backend-v1'],
      ['matching.test', '/', 'infra-backend-v2', { version: 'two' }],
      ['matching.test', '/exact', 'infra-backend-v3', { version: 'three' }],
      ['matching.test', '/exact/more', 'infra-backend-v1', { version: 'three' }],
    ]);
  });
});

describe('HTTPRouteExactPathMatching', () => {
  it('matches an Exact path only as written', async () => {
    await applyGatewayAndRoute('exact', 'exact.test', 'exact-matching', [
      rule('infra-backend-v1', { path: { type: 'Exact', value: '/one' } }),
      rule('infra-backend-v2', { path: { type: 'Exact', value: '/two' } }),
    ]);
    await expectAnswers([
      ['exact.test', '/one', 'infra-backend-v1'],
      ['exact.test', '/two', 'infra-backend-v2'],
      ['exact.test', '/one/example', '404'],
      ['exact.test', '/two/', '404'],
      ['exact.test', '/', '404'],
    ]);
  });
});

describe('HTTPRouteQueryParamMatching', () => {
  it('matches query parameters exactly, and every condition of a match', async () => {
    await applyGatewayAndRoute('query', 'query.test', 'query-param-matching', [
      rule('infra-backend-v1', { queryParams: [{ name: 'animal', value: 'whale' }] }),
      rule('infra-backend-v2', {
        queryParams: [
          { name: 'animal', value: 'dolphin' },
          { name: 'color', value: 'blue' },
        ],
      }),
    ]);
    await expectAnswers([
      ['query.test', '/?animal=whale', 'infra-backend-v1'],
      ['query.test', '/path?animal=whale&other=1', 'infra-backend-v1'],
      ['query.test', '/?animal=dolphin&color=blue', 'infra-backend-v2'],
      ['query.test', '/?animal=dolphin', '404'],
      ['query.test', '/?animal=Whale', '404'],
      ['query.test', '/', '404'],
    ]);
  });
});

describe('HTTPRouteHTTPSListener', () => {
  it('serves a route on a Gateway HTTPS listener with the certificate of its Secret, on the HTTPS port', async () => {
    await server.apply([
      tlsSecretManifest('tls-listener', 'secure.test', INFRA),
      gateway('https', [
        {
          name: 'https',
          port: 443,
          protocol: 'HTTPS',
          hostname: 'secure.test',
          tls: { mode: 'Terminate', certificateRefs: [{ name: 'tls-listener' }] },
        },
      ]),
      httpRoute('https-listener', {
        parentRefs: [{ name: 'https' }],
        rules: [rule('infra-backend-v2')],
      }),
    ]);
    await eventually(async () => {
      const response = await send('secure.test', '/', undefined, true);
      expect(`${response.status} ${response.body.split(':')[0]}`).toBe('200 infra-backend-v2');
      expect((await presentedCertificate(controller, 'secure.test')).subject.CN).toBe('secure.test');
    });
    // The listener is HTTPS only: the plain-HTTP port does not serve the host.
    expect(await answer('secure.test')).toBe('404');
    await expectRouteConditions(INFRA, 'https-listener', 'https', { Accepted: 'True/Accepted' });
  });
});

describe('HTTPRouteHeaderMatching', () => {
  it('matches header names case-insensitively, values exactly, and every condition of a match', async () => {
    await applyGatewayAndRoute('headers', 'headers.test', 'headers', [
      rule('infra-backend-v1', { headers: [{ name: 'Version', value: 'one' }] }),
      rule('infra-backend-v2', {
        headers: [
          { name: 'version', value: 'two' },
          { name: 'color', value: 'orange' },
        ],
      }),
      rule(
        'infra-backend-v3',
        { headers: [{ name: 'color', value: 'blue' }] },
        { headers: [{ name: 'color', value: 'green' }] },
      ),
    ]);
    await expectAnswers([
      ['headers.test', '/', 'infra-backend-v1', { version: 'one' }],
      ['headers.test', '/', 'infra-backend-v1', { VERSION: 'one' }],
      ['headers.test', '/', '404', { version: 'One' }],
      ['headers.test', '/', 'infra-backend-v2', { version: 'two', color: 'orange' }],
      ['headers.test', '/', '404', { version: 'two' }],
      ['headers.test', '/', 'infra-backend-v3', { color: 'blue' }],
      ['headers.test', '/', 'infra-backend-v3', { color: 'green' }],
      ['headers.test', '/', '404', { color: 'red' }],
      ['headers.test', '/', '404'],
    ]);
  });
});

describe('HTTPRouteHostnameIntersection', () => {
  it('serves the intersection of route and listener hostnames and nothing else', async () => {
    await server.apply([
      gateway('intersection', [
        httpListener('listener-1', 'very.specific.test'),
        httpListener('listener-2', '*.wildcard.test'),
        httpListener('listener-3', '*.anotherwildcard.test'),
      ]),
      httpRoute('specific-host-matches-listener-specific-host', {
        parentRefs: [{ name: 'intersection' }],
        hostnames: ['non.matching.test', '*.nonmatchingwildcard.test', 'very.specific.test'],
        rules: [rule('infra-backend-v1', { path: { type: 'PathPrefix', value: '/s1' } })],
      }),
      httpRoute('specific-host-matches-listener-wildcard-host', {
        parentRefs: [{ name: 'intersection' }],
        hostnames: [
          'non.matching.test',
          'wildcard.test',
          'foo.wildcard.test',
          'bar.wildcard.test',
          'foo.bar.wildcard.test',
        ],
        rules: [rule('infra-backend-v2', { path: { type: 'PathPrefix', value: '/s2' } })],
      }),
      httpRoute('wildcard-host-matches-listener-specific-host', {
        parentRefs: [{ name: 'intersection' }],
        hostnames: ['non.matching.test', '*.specific.test'],
        rules: [rule('infra-backend-v3', { path: { type: 'PathPrefix', value: '/s3' } })],
      }),
      httpRoute('wildcard-host-matches-listener-wildcard-host', {
        parentRefs: [{ name: 'intersection' }],
        hostnames: ['*.anotherwildcard.test'],
        rules: [rule('infra-backend-v1', { path: { type: 'PathPrefix', value: '/s4' } })],
      }),
      httpRoute('no-intersecting-hosts', {
        parentRefs: [{ name: 'intersection' }],
        hostnames: ['specific.but.wrong.test', 'wildcard.io'],
        rules: [rule('infra-backend-v2')],
      }),
    ]);
    await expectAnswers([
      ['very.specific.test', '/s1', 'infra-backend-v1'],
      ['non.matching.test', '/s1', '404'],
      ['foo.nonmatchingwildcard.test', '/s1', '404'],
      ['foo.wildcard.test', '/s2', 'infra-backend-v2'],
      ['bar.wildcard.test', '/s2', 'infra-backend-v2'],
      ['foo.bar.wildcard.test', '/s2', 'infra-backend-v2'],
      ['wildcard.test', '/s2', '404'],
      ['very.specific.test', '/s3', 'infra-backend-v3'],
      ['other.specific.test', '/s3', '404'],
      ['foo.anotherwildcard.test', '/s4', 'infra-backend-v1'],
      ['foo.bar.anotherwildcard.test', '/s4', 'infra-backend-v1'],
      ['anotherwildcard.test', '/s4', '404'],
      ['specific.but.wrong.test', '/', '404'],
    ]);
    await expectRouteConditions(INFRA, 'no-intersecting-hosts', 'intersection', {
      Accepted: 'False/NoMatchingListenerHostname',
    });
  });
});

describe('HTTPRouteCrossNamespace', () => {
  it('attaches a route of a namespace the listener selector admits, and only such a route', async () => {
    await server.apply([
      gateway('backend-namespaces', [
        httpListener('http', '*.cross.test', {
          namespaces: { from: 'Selector', selector: { matchLabels: { 'gateway-conformance': 'backend' } } },
        }),
      ]),
      httpRoute(
        'cross-namespace',
        {
          parentRefs: [{ name: 'backend-namespaces', namespace: INFRA }],
          hostnames: ['web.cross.test'],
          rules: [rule('web-backend')],
        },
        WEB,
      ),
      httpRoute(
        'not-selected',
        {
          parentRefs: [{ name: 'backend-namespaces', namespace: INFRA }],
          hostnames: ['app.cross.test'],
          rules: [rule('app-backend')],
        },
        APP,
      ),
    ]);
    await expectAnswers([
      ['web.cross.test', '/', 'web-backend'],
      ['app.cross.test', '/', '404'],
    ]);
    await expectRouteConditions(WEB, 'cross-namespace', 'backend-namespaces', {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'True/ResolvedRefs',
    });
    await expectRouteConditions(APP, 'not-selected', 'backend-namespaces', {
      Accepted: 'False/NotAllowedByListeners',
    });
    // Labelling the namespace admits its route: the selector reads Namespace labels live.
    await server.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: APP, labels: { 'gateway-conformance': 'backend' } },
    });
    await expectAnswers([['app.cross.test', '/', 'web-backend']]);
    await expectRouteConditions(APP, 'not-selected', 'backend-namespaces', { Accepted: 'True/Accepted' });
  });
});

describe('HTTPRouteReferenceGrant', () => {
  const grant = {
    apiVersion: `${GROUP}/v1beta1`,
    kind: 'ReferenceGrant',
    metadata: { name: 'reference-grant', namespace: WEB },
    spec: {
      from: [{ group: GROUP, kind: 'HTTPRoute', namespace: INFRA }],
      to: [{ group: '', kind: 'Service', name: 'web-backend' }],
    },
  };

  it('answers 500 with RefNotPermitted for a backend in another namespace without a ReferenceGrant', async () => {
    await applyGatewayAndRoute('grants', 'grant.test', 'reference-grant', [
      { backendRefs: [backendRef('web-backend', { namespace: WEB })] },
    ]);
    await expectAnswers([['grant.test', '/', '500']]);
    await expectRouteConditions(INFRA, 'reference-grant', 'grants', {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'False/RefNotPermitted',
    });
  });

  it('serves the backend once a ReferenceGrant allows it, and refuses it again when the grant goes', async () => {
    await server.apply(grant);
    await expectAnswers([['grant.test', '/', 'web-backend']]);
    await expectRouteConditions(INFRA, 'reference-grant', 'grants', { ResolvedRefs: 'True/ResolvedRefs' });
    await api().deleteNamespacedCustomObject({
      group: GROUP,
      version: 'v1beta1',
      plural: 'referencegrants',
      namespace: WEB,
      name: 'reference-grant',
    });
    await expectAnswers([['grant.test', '/', '500']]);
    await expectRouteConditions(INFRA, 'reference-grant', 'grants', {
      ResolvedRefs: 'False/RefNotPermitted',
    });
  });
});

describe('HTTPRouteRedirectHostAndStatus', () => {
  it('redirects to another host with the status code asked for (302 by default)', async () => {
    await applyGatewayAndRoute('redirect', 'redirect.test', 'redirect-host-and-status', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/hostname-redirect' } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'example.org' } }],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/host-and-status' } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'example.org', statusCode: 301 } }],
      },
    ]);
    // Without a scheme or port, the Location keeps the port the request came in on: nginx's own,
    // a free port here, 80 when the controller listens on the Gateway's port (the deployment).
    const port = `:${controller.config.httpPort}`;
    await eventually(async () => {
      const plain = await send('redirect.test', '/hostname-redirect');
      expect({ status: plain.status, location: plain.headers.location }).toEqual({
        status: 302,
        location: `http://example.org${port}/hostname-redirect`,
      });
      const moved = await send('redirect.test', '/host-and-status');
      expect({ status: moved.status, location: moved.headers.location }).toEqual({
        status: 301,
        location: `http://example.org${port}/host-and-status`,
      });
    });
  });
});

describe('HTTPRouteRewritePath', () => {
  it('replaces the matched prefix or the full path before the request reaches the backend', async () => {
    await applyGatewayAndRoute('rewrite', 'rewrite.test', 'rewrite-path', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/prefix/one' } }],
        filters: [
          {
            type: 'URLRewrite',
            urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/one' } },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/strip-prefix' } }],
        filters: [
          {
            type: 'URLRewrite',
            urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/full/one' } }],
        filters: [
          {
            type: 'URLRewrite',
            urlRewrite: { path: { type: 'ReplaceFullPath', replaceFullPath: '/one' } },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    const seen = async (path: string) => (await send('rewrite.test', path)).body.trim();
    await eventually(async () => {
      expect(await seen('/prefix/one/two')).toBe('infra-backend-v1: GET rewrite.test/one/two');
      expect(await seen('/prefix/one')).toBe('infra-backend-v1: GET rewrite.test/one');
      expect(await seen('/strip-prefix/three')).toBe('infra-backend-v1: GET rewrite.test/three');
      expect(await seen('/full/one/two')).toBe('infra-backend-v1: GET rewrite.test/one');
      expect(await seen('/full/one?q=1')).toBe('infra-backend-v1: GET rewrite.test/one?q=1');
    });
  });
});

describe('HTTPRouteWeight', () => {
  it('splits 2,000 requests by backend weight within 5 % (weight 0 gets none)', async () => {
    await applyGatewayAndRoute('weight', 'weight.test', 'weighted-backends', [
      {
        backendRefs: [
          backendRef('infra-backend-v1', { weight: 70 }),
          backendRef('infra-backend-v2', { weight: 30 }),
          backendRef('infra-backend-v3', { weight: 0 }),
        ],
      },
    ]);
    await expectAnswers([['weight.test', '/', 'infra-backend-v1']]).catch(() =>
      expectAnswers([['weight.test', '/', 'infra-backend-v2']]),
    );
    const counts = new Map<string, number>();
    const total = 2_000;
    for (let batch = 0; batch < total / 50; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => answer('weight.test')));
      for (const name of answers) counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const share = (name: string) => (counts.get(name) ?? 0) / total;
    expect([...counts.keys()].sort()).toEqual(['infra-backend-v1', 'infra-backend-v2']);
    expect(Math.abs(share('infra-backend-v1') - 0.7)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(share('infra-backend-v2') - 0.3)).toBeLessThanOrEqual(0.05);
  });
});

describe('HTTPRouteMethodMatching', () => {
  it('sends each method to the rule that names it', async () => {
    await applyGatewayAndRoute('method', 'method.test', 'method-matching', [
      rule('infra-backend-v1', { method: 'POST' }),
      rule('infra-backend-v2', { method: 'GET' }),
    ]);
    const answerTo = async (method: string) => {
      const response = await probe({ port: controller.config.httpPort, host: 'method.test', method });
      return response.status === 200 ? response.body.split(':')[0] : String(response.status);
    };
    await eventually(async () => {
      expect([await answerTo('POST'), await answerTo('GET'), await answerTo('HEAD')]).toEqual([
        'infra-backend-v1',
        'infra-backend-v2',
        '404',
      ]);
    });
  });
});

describe('HTTPRouteListenerHostnameMatching', () => {
  it('serves each route only on the hostnames of the listener it names', async () => {
    await server.apply([
      gateway('listener-hostnames', [
        httpListener('listener-1', 'bar.test'),
        httpListener('listener-2', 'foo.bar.test'),
        httpListener('listener-3', '*.bar.test'),
        httpListener('listener-4', '*.foo.test'),
      ]),
      ...[
        ['backend-v1', 'listener-1', 'infra-backend-v1'],
        ['backend-v2', 'listener-2', 'infra-backend-v2'],
        ['backend-v3', 'listener-3', 'infra-backend-v3'],
        ['backend-v3-foo', 'listener-4', 'infra-backend-v3'],
      ].map(([name, sectionName, backend]) =>
        httpRoute(name!, {
          parentRefs: [{ name: 'listener-hostnames', sectionName }],
          rules: [rule(backend!)],
        }),
      ),
    ]);
    await expectAnswers([
      ['bar.test', '/', 'infra-backend-v1'],
      ['foo.bar.test', '/', 'infra-backend-v2'],
      ['baz.bar.test', '/', 'infra-backend-v3'],
      ['boo.bar.test', '/', 'infra-backend-v3'],
      ['multiple.prefixes.bar.test', '/', 'infra-backend-v3'],
      ['multiple.prefixes.foo.test', '/', 'infra-backend-v3'],
      ['x.foo.test', '/', 'infra-backend-v3'],
      ['foo.test', '/', '404'],
      ['no.matching.host', '/', '404'],
    ]);
  });
});

describe('HTTPRouteRedirectScheme', () => {
  it('redirects to https on the default port of the scheme', async () => {
    await applyGatewayAndRoute('redirect-scheme', 'scheme.test', 'redirect-scheme', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/scheme' } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/scheme-and-host' } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', hostname: 'example.org' } }],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/scheme-and-port' } }],
        filters: [
          { type: 'RequestRedirect', requestRedirect: { scheme: 'https', port: 8443, statusCode: 301 } },
        ],
      },
    ]);
    await eventually(async () => {
      const locations = await Promise.all(
        ['/scheme', '/scheme-and-host', '/scheme-and-port'].map(async (path) => {
          const response = await send('scheme.test', path);
          return `${response.status} ${response.headers.location}`;
        }),
      );
      expect(locations).toEqual([
        '302 https://scheme.test/scheme',
        '302 https://example.org/scheme-and-host',
        '301 https://scheme.test:8443/scheme-and-port',
      ]);
    });
  });
});

describe('HTTPRouteCORS', () => {
  const cors = (
    path: string,
    method: string,
    headers: Record<string, string>,
  ): Promise<[number, Record<string, string | undefined>]> =>
    probe({ port: controller.config.httpPort, host: 'cors.test', path, method, headers }).then((response) => [
      response.status,
      Object.fromEntries(
        Object.entries(response.headers)
          .filter(([name]) => name.startsWith('access-control-'))
          .map(([name, value]) => [name, String(value).replace(/\s/g, '')]),
      ),
    ]);
  const preflight = (origin: string, method: string, headers?: string) => ({
    Origin: origin,
    'Access-Control-Request-Method': method,
    ...(headers === undefined ? {} : { 'Access-Control-Request-Headers': headers }),
  });

  it('answers preflights from allowed origins with the filter headers, and nothing to other origins', async () => {
    await applyGatewayAndRoute('cors', 'cors.test', 'cors', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/cors-1' } }],
        filters: [
          {
            type: 'CORS',
            cors: {
              allowOrigins: ['https://www.foo.com', 'https://*.bar.com'],
              allowMethods: ['GET', 'OPTIONS'],
              allowHeaders: ['x-header-1', 'x-header-2'],
              exposeHeaders: ['x-header-3', 'x-header-4'],
              allowCredentials: true,
              maxAge: 3600,
            },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/cors-2' } }],
        filters: [{ type: 'CORS', cors: { allowOrigins: ['https://www.foo.com'], allowMethods: ['*'] } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/cors-wildcard-origin' } }],
        filters: [{ type: 'CORS', cors: { allowOrigins: ['*'], allowMethods: ['PUT'] } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/cors-wildcard-methods-headers' } }],
        filters: [
          {
            type: 'CORS',
            cors: { allowOrigins: ['*'], allowMethods: ['*'], allowHeaders: ['*'], allowCredentials: true },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    const allowed = {
      'access-control-allow-methods': 'GET,OPTIONS',
      'access-control-allow-headers': 'x-header-1,x-header-2',
      'access-control-expose-headers': 'x-header-3,x-header-4',
      'access-control-max-age': '3600',
      'access-control-allow-credentials': 'true',
    };
    await eventually(async () => {
      expect(
        await cors('/cors-1', 'OPTIONS', preflight('https://www.foo.com', 'GET', 'x-header-1, x-header-2')),
      ).toEqual([200, { 'access-control-allow-origin': 'https://www.foo.com', ...allowed }]);
    });
    // `*.` stands for any number of labels in Gateway API (one in ingress-nginx).
    for (const origin of ['https://www.bar.com', 'https://xpto.www.bar.com'])
      expect(await cors('/cors-1', 'OPTIONS', preflight(origin, 'GET', 'x-header-1, x-header-2'))).toEqual([
        200,
        { 'access-control-allow-origin': origin, ...allowed },
      ]);
    const refused = await cors('/cors-1', 'OPTIONS', preflight('https://foobar.com', 'GET'));
    expect(refused[1]['access-control-allow-origin']).toBeUndefined();
    // A simple request: the allowed Origin is echoed on the backend's answer.
    expect((await cors('/cors-1', 'GET', { Origin: 'https://www.bar.com' }))[1]).toMatchObject({
      'access-control-allow-origin': 'https://www.bar.com',
    });
    expect((await cors('/cors-1', 'GET', { Origin: 'https://foobar.com' }))[1]).toEqual({});
    // allowMethods `*` without credentials: `*`, and no Allow-Credentials.
    expect(await cors('/cors-2', 'OPTIONS', preflight('https://www.foo.com', 'POST'))).toEqual([
      200,
      {
        'access-control-allow-origin': 'https://www.foo.com',
        'access-control-allow-methods': '*',
        'access-control-max-age': '5',
      },
    ]);
    // Every origin without credentials: `*`, on preflights and on responses.
    expect(
      await cors('/cors-wildcard-origin', 'OPTIONS', preflight('https://foobar.com:12345', 'PUT')),
    ).toEqual([
      200,
      {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'PUT',
        'access-control-max-age': '5',
      },
    ]);
    expect((await cors('/cors-wildcard-origin', 'PUT', { Origin: 'https://foobar.com' }))[1]).toMatchObject({
      'access-control-allow-origin': '*',
    });
    // With credentials a `*` is never sent: the request's own origin, method and headers are.
    expect(
      await cors(
        '/cors-wildcard-methods-headers',
        'OPTIONS',
        preflight('https://other.foo.com', 'PUT', 'x-header-1, x-header-2'),
      ),
    ).toEqual([
      200,
      {
        'access-control-allow-origin': 'https://other.foo.com',
        'access-control-allow-methods': 'PUT',
        'access-control-allow-headers': 'x-header-1,x-header-2',
        'access-control-allow-credentials': 'true',
        'access-control-max-age': '5',
      },
    ]);
    expect(
      (
        await cors('/cors-wildcard-methods-headers', 'GET', {
          Origin: 'https://other.foo.com',
          Authorization: 'Bearer test',
        })
      )[1],
    ).toMatchObject({
      'access-control-allow-origin': 'https://other.foo.com',
      'access-control-allow-credentials': 'true',
    });
    await expectRouteConditions(INFRA, 'cors', 'cors', {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'True/ResolvedRefs',
    });
  });
});

describe('HTTPRouteRedirectPath', () => {
  it('replaces the matched prefix or the full path in the Location', async () => {
    await applyGatewayAndRoute('redirect-path', 'redirect-path.test', 'redirect-path', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/original-prefix' } }],
        filters: [
          {
            type: 'RequestRedirect',
            requestRedirect: {
              scheme: 'http',
              path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/replacement-prefix' },
            },
          },
        ],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/full' } }],
        filters: [
          {
            type: 'RequestRedirect',
            requestRedirect: {
              scheme: 'http',
              path: { type: 'ReplaceFullPath', replaceFullPath: '/full-path-replacement' },
            },
          },
        ],
      },
    ]);
    await eventually(async () => {
      const location = async (path: string) => (await send('redirect-path.test', path)).headers.location;
      expect(await location('/original-prefix/lemon')).toBe(
        'http://redirect-path.test/replacement-prefix/lemon',
      );
      expect(await location('/full/path/original')).toBe('http://redirect-path.test/full-path-replacement');
    });
  });
});

describe('HTTPRouteRewriteHost', () => {
  it('sends the rewritten Host to the backend', async () => {
    await applyGatewayAndRoute('host-rewrite', 'rewrite.host.test', 'host-rewrite', [
      {
        filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'one.example.org' } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    await eventually(async () =>
      expect((await send('rewrite.host.test', '/path')).body.trim()).toBe(
        'infra-backend-v1: GET one.example.org/path',
      ),
    );
  });
});

describe('HTTPRouteResponseHeaderModifier', () => {
  it('sets, adds and removes response headers', async () => {
    await applyGatewayAndRoute('response-headers', 'response-headers.test', 'response-header-modifier', [
      {
        filters: [
          {
            type: 'ResponseHeaderModifier',
            responseHeaderModifier: {
              set: [{ name: 'X-Header-Set', value: 'set-overwrites-values' }],
              add: [{ name: 'X-Header-Add', value: 'add-appends-values' }],
              remove: ['X-Demo-Backend'],
            },
          },
        ],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    await eventually(async () => {
      const { status, headers } = await send('response-headers.test');
      expect({
        status,
        set: headers['x-header-set'],
        add: headers['x-header-add'],
        removed: headers['x-demo-backend'],
      }).toEqual({
        status: 200,
        set: 'set-overwrites-values',
        add: 'add-appends-values',
        removed: undefined,
      });
    });
  });
});

describe('HTTPRouteRequestHeaderModifier', () => {
  it('sets, adds and removes request headers before the backend sees them', async () => {
    // A backend that answers with the request headers it received, as upstream's echo server does.
    const echo = createServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(request.headersDistinct));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const port = (echo.address() as AddressInfo).port;
    try {
      await server.apply(
        serviceManifests('echo-headers', [{ name: 'echo-headers', port } as DemoBackend], INFRA),
      );
      await applyGatewayAndRoute('request-headers', 'request-headers.test', 'request-header-modifier', [
        {
          filters: [
            {
              type: 'RequestHeaderModifier',
              requestHeaderModifier: {
                set: [{ name: 'X-Header-Set', value: 'set-overwrites-values' }],
                add: [{ name: 'X-Header-Add', value: 'add-appends-values' }],
                remove: ['X-Header-Remove'],
              },
            },
          ],
          backendRefs: [backendRef('echo-headers')],
        },
      ]);
      await eventually(async () => {
        const { status, body } = await send('request-headers.test', '/', {
          'X-Header-Set': 'some-other-value',
          'X-Header-Add': 'something',
          'X-Header-Remove': 'val',
        });
        expect(status).toBe(200);
        const seen = JSON.parse(body) as Record<string, string[] | undefined>;
        expect({
          set: seen['x-header-set'],
          add: seen['x-header-add'],
          removed: seen['x-header-remove'],
        }).toEqual({
          set: ['set-overwrites-values'],
          add: ['something', 'add-appends-values'],
          removed: undefined,
        });
      });
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()));
    }
  });
});

/**
 * Starts a backend that answers 200 after the delay its `delay` query parameter asks for (`1s`,
 * `250ms`), as upstream's echo server does, with a Service `delayed` in the infra namespace; returns
 * a function that stops it.
 */
async function startDelayedBackend(): Promise<() => Promise<void>> {
  const backend = createServer((request, response) => {
    const delay = /[?&]delay=(\d+)(ms|s)\b/.exec(request.url ?? '');
    const ms = delay === null ? 0 : Number(delay[1]) * (delay[2] === 's' ? 1000 : 1);
    const timer = setTimeout(() => response.end('delayed: answered'), ms);
    response.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const port = (backend.address() as AddressInfo).port;
  await server.apply(serviceManifests('delayed', [{ name: 'delayed', port } as DemoBackend], INFRA));
  return () =>
    new Promise<void>((resolve) => {
      backend.closeAllConnections();
      backend.close(() => resolve());
    });
}

/** A rule for the PathPrefix `path` to the delayed backend, with `timeouts`. */
function timedRule(path: string, timeouts: Record<string, string>): Record<string, unknown> {
  return { ...rule('delayed', { path: { type: 'PathPrefix', value: path } }), timeouts };
}

/**
 * A timeout scenario: a Gateway `name` for `name.test` and an HTTPRoute `route` with a rule for
 * `/<path>` limited by `field` to 500ms and one for `/<disabled>` with `0s`, against the delayed
 * backend: a quick answer is served, a 1 s one gets 504, and without a limit it is served.
 */
async function expectTimeoutScenario(
  name: string,
  route: string,
  field: 'request' | 'backendRequest',
  path: string,
  disabled: string,
): Promise<void> {
  const stop = await startDelayedBackend();
  try {
    const host = `${name}.test`;
    await applyGatewayAndRoute(name, host, route, [
      timedRule(`/${path}`, { [field]: '500ms' }),
      timedRule(`/${disabled}`, { [field]: '0s' }),
    ]);
    await expectRouteConditions(INFRA, route, name, {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'True/ResolvedRefs',
    });
    await expectAnswers([
      [host, `/${path}`, 'delayed'],
      [host, `/${path}?delay=1s`, '504'],
      [host, `/${disabled}?delay=1s`, 'delayed'],
    ]);
  } finally {
    await stop();
  }
}

describe('HTTPRouteTimeoutRequest', () => {
  it('answers 504 when the backend does not answer within the request timeout, and waits without one', async () => {
    await expectTimeoutScenario(
      'request-timeout',
      'request-timeout',
      'request',
      'request-timeout',
      'disable-request-timeout',
    );
  });
});

describe('HTTPRouteTimeoutBackendRequest', () => {
  it('answers 504 when the backend does not answer within the backend request timeout', async () => {
    await expectTimeoutScenario(
      'backend-timeout',
      'backend-request-timeout',
      'backendRequest',
      'backend-timeout',
      'disabled-backend-timeout',
    );
  });
});

describe('GatewayObservedGenerationBump', () => {
  it('reports the new generation after a spec change, keeping transition times of unchanged conditions', async () => {
    await server.apply(gateway('gateway-observed-generation-bump', [httpListener('http', 'bump.test')]));
    const first = await eventually(async () => {
      const object = await readGateway(INFRA, 'gateway-observed-generation-bump');
      const accepted = condition(object.status?.conditions, 'Accepted');
      expect(accepted).toMatchObject({ status: 'True', observedGeneration: object.metadata.generation });
      expect(condition(object.status?.conditions, 'Programmed')?.status).toBe('True');
      return { generation: object.metadata.generation!, acceptedAt: accepted!.lastTransitionTime };
    });
    await server.apply(
      gateway('gateway-observed-generation-bump', [
        httpListener('http', 'bump.test'),
        httpListener('second', 'second.bump.test'),
      ]),
    );
    await eventually(async () => {
      const object = await readGateway(INFRA, 'gateway-observed-generation-bump');
      expect(object.metadata.generation).toBeGreaterThan(first.generation);
      for (const type of ['Accepted', 'Programmed']) {
        expect(condition(object.status?.conditions, type)).toMatchObject({
          status: 'True',
          observedGeneration: object.metadata.generation,
        });
      }
      expect(condition(object.status?.conditions, 'Accepted')?.lastTransitionTime).toBe(first.acceptedAt);
      expect(object.status?.listeners?.map((listener) => listener.name)).toEqual(['http', 'second']);
      for (const listener of object.status?.listeners ?? [])
        expect(condition(listener.conditions, 'Accepted')?.observedGeneration).toBe(
          object.metadata.generation,
        );
    });
  });
});

describe('a deleted Gateway', () => {
  it('stops serving its routes and removes our entries from their status', async () => {
    await expectAnswers([['exact.test', '/one', 'infra-backend-v1']]);
    await api().deleteNamespacedCustomObject({
      group: GROUP,
      version: 'v1',
      plural: 'gateways',
      namespace: INFRA,
      name: 'exact',
    });
    await expectAnswers([['exact.test', '/one', '404']]);
    await eventually(async () => {
      const parents = (await readRoute(INFRA, 'exact-matching')).status?.parents ?? [];
      expect(parents.filter((parent) => parent.controllerName === CONTROLLER_NAME)).toEqual([]);
    });
  });
});

describe('a route change', () => {
  it('is served without an nginx reload', async () => {
    await applyGatewayAndRoute('reload-free', 'reload-free.test', 'reload-free', [rule('infra-backend-v1')]);
    await expectAnswers([['reload-free.test', '/', 'infra-backend-v1']]);
    await expectRouteConditions(INFRA, 'reload-free', 'reload-free', { Accepted: 'True/Accepted' });
    // Statuses the change does not alter: the next publish must not write them again.
    const untouched = async () => [
      (await readGateway(INFRA, 'reload-free')).metadata.resourceVersion,
      (await readRoute(INFRA, 'gateway-conformance-infra-test')).metadata.resourceVersion,
    ];
    await eventually(async () =>
      expect(
        condition((await readGateway(INFRA, 'reload-free')).status?.conditions, 'Programmed')?.status,
      ).toBe('True'),
    );
    const versionsBefore = await untouched();
    const before = {
      workers: await controller.dataPlane.workerPids(),
      reloads: controller.dataPlane.reloadCount,
    };
    const translatedBefore = controller.gatewayRouting!.lastTranslated;
    await server.apply(
      httpRoute('reload-free', {
        parentRefs: [{ name: 'reload-free' }],
        rules: [
          rule('infra-backend-v1'),
          rule('infra-backend-v2', { path: { type: 'PathPrefix', value: '/new' } }),
        ],
      }),
    );
    await expectAnswers([
      ['reload-free.test', '/new', 'infra-backend-v2'],
      ['reload-free.test', '/', 'infra-backend-v1'],
    ]);
    expect({
      workers: await controller.dataPlane.workerPids(),
      reloads: controller.dataPlane.reloadCount,
    }).toEqual(before);
    // Only the changed route was translated again, not every route of the cluster.
    expect(translatedBefore).toBeLessThanOrEqual(1);
    expect(controller.gatewayRouting!.lastTranslated).toBe(1);
    // Its status follows the new generation; statuses that did not change are not written.
    await expectRouteConditions(INFRA, 'reload-free', 'reload-free', { Accepted: 'True/Accepted' });
    expect(await untouched()).toEqual(versionsBefore);
  });
});

/**
 * `/explain?httproute=` of the running controller and `ingresskit explain httproute` (in this
 * process, against the same API server) tell the same: the route's parent conditions, its route
 * not served, and the host ownership problem. `explain gateway` lists the listener's route.
 */
async function expectExplained(key: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${controller.healthzPort}/explain?httproute=${key}`);
  expect(response.status).toBe(200);
  const served = (await response.json()) as {
    parents: { parentRef: string; conditions: Condition[] }[];
    routes: { hostname: string; served: boolean }[];
    problems: { field: string; message: string }[];
  };
  expect(served.parents.map(({ parentRef }) => parentRef)).toEqual(['Gateway evil/evil']);
  expect(served.parents[0]!.conditions.map(({ type, status }) => `${type}=${status}`)).toEqual([
    'Accepted=True',
    'ResolvedRefs=True',
    'PartiallyInvalid=True',
  ]);
  expect(served.routes).toEqual([expect.objectContaining({ hostname: 'shop.test', served: false })]);
  expect(served.problems.map(({ message }) => message).join('\n')).toContain(
    'host shop.test belongs to namespace shop',
  );

  const kubeconfig = await server.writeKubeconfig();
  let text = '';
  const io = {
    stdout: (chunk: string) => (text += chunk),
    stderr: (chunk: string) => (text += chunk),
    env: {},
    signal: new AbortController().signal,
    cwd: process.cwd(),
  };
  const flags = [`--kubeconfig=${kubeconfig}`, `--gateway-controller-name=${CONTROLLER_NAME}`];
  expect(await runCli(['explain', 'httproute', key, ...flags], io)).toBe(0);
  expect(text).toContain('Parent Gateway evil/evil:');
  expect(text).toContain('PartiallyInvalid: True (HostnameOwnedElsewhere)');
  expect(text).toMatch(
    /http:\/\/shop\.test\/admin \(PathPrefix\) → evil\/evil:80 \(0 endpoints\) \[not served\]/,
  );
  text = '';
  expect(await runCli(['explain', 'gateway', 'evil/evil', ...flags], io)).toBe(0);
  expect(text).toContain('Listener http: 1 attached route(s)');
  expect(await runCli(['explain', 'httproute', 'evil/nothing', ...flags], io)).toBe(1);
}

describe('host ownership', () => {
  it('keeps an HTTPRoute of another namespace off a host an older Ingress serves', async () => {
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'evil' } },
      ingressClassManifest('nginx'),
      ...serviceManifests('shop', [backends.get('shop')!], 'shop'),
      ingressManifest('shop', { host: 'shop.test', service: 'shop', className: 'nginx', namespace: 'shop' }),
    ]);
    await expectAnswers([['shop.test', '/admin', 'shop']]);
    // creationTimestamp has second precision: let the Ingress be older (a tie goes by namespace).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await server.apply([
      ...serviceManifests('evil', [backends.get('infra-backend-v3')!], 'evil'),
      gateway('evil', [httpListener('http')], 'evil'),
      httpRoute(
        'takeover',
        {
          parentRefs: [{ name: 'evil' }],
          hostnames: ['shop.test'],
          rules: [rule('evil', { path: { type: 'PathPrefix', value: '/admin' } })],
        },
        'evil',
      ),
    ]);
    // The route is accepted by its own Gateway, and yet the host stays with the Ingress's
    // namespace, which its status says.
    await expectRouteConditions('evil', 'takeover', 'evil', {
      Accepted: 'True/Accepted',
      PartiallyInvalid: 'True/HostnameOwnedElsewhere',
    });
    const { conditions } = await parentStatus('evil', 'takeover', 'evil');
    expect(condition(conditions, 'PartiallyInvalid')?.message).toContain(
      'host shop.test belongs to namespace shop, whose Ingress shop/shop is the oldest to name it',
    );
    await expectAnswers([
      ['shop.test', '/admin', 'shop'],
      ['shop.test', '/', 'shop'],
    ]);
    await expectExplained('evil/takeover');
    // Like an Ingress problem, the loss is an Event on the route (the leader writes them).
    await eventually(async () => {
      await controller.events.flush();
      const events = await listEvents(server.kubeConfig(), 'evil');
      const onRoute = events.filter(
        (event) => event.regarding?.kind === 'HTTPRoute' && event.regarding.name === 'takeover',
      );
      expect(onRoute.map((event) => `${event.reason}: ${event.note ?? ''}`)).toEqual([
        expect.stringMatching(/^InvalidConfiguration: spec: host shop.test belongs to namespace shop/),
      ]);
      expect(onRoute[0]?.regarding?.uid).toBeTruthy();
    });
    // The Ingress goes: the route takes the host, and its status says nothing is left out.
    await server
      .kubeConfig()
      .makeApiClient(NetworkingV1Api)
      .deleteNamespacedIngress({ name: 'shop', namespace: 'shop' });
    await expectAnswers([['shop.test', '/admin', 'infra-backend-v3']]);
    await eventually(async () => {
      const parent = await parentStatus('evil', 'takeover', 'evil');
      expect(condition(parent.conditions, 'PartiallyInvalid')).toBeUndefined();
    });
  });
});

describe('backend address policy', () => {
  let guarded: Controller;

  beforeAll(async () => {
    // The production policy: no loopback backends (the other controller here allows them). A
    // follower (same Lease), so only the first controller writes statuses.
    const strict = await startController(server, {
      gatewayControllerName: CONTROLLER_NAME,
      podName: 'gateway-api-strict',
      backendAddressPolicy: resolveControllerConfig(defaultFlags(), {}).backendAddressPolicy,
    });
    guarded = strict;
  });

  afterAll(async () => {
    await guarded?.stop();
  });

  it("keeps an HTTPRoute from reaching the controller's own endpoints", async () => {
    await server.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prober' } },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'controller', namespace: 'prober' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'controller-1',
          namespace: 'prober',
          labels: { 'kubernetes.io/service-name': 'controller' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: guarded.healthzPort }],
      },
      gateway('prober', [httpListener('http', 'prober.test', { namespaces: { from: 'All' } })], 'prober'),
      httpRoute('healthz', { parentRefs: [{ name: 'prober' }], rules: [rule('controller')] }, 'prober'),
    ]);
    await eventually(async () => {
      const response = await probe({ port: guarded.config.httpPort, host: 'prober.test', path: '/metrics' });
      expect(response.status).toBe(503);
      expect(response.body).not.toContain('ingresskit_');
    });
  });
});

describe('regex budget', () => {
  it('keeps an HTTPRoute whose regex conditions would pass --max-regex-matches-per-request off its host', async () => {
    // Each header regex is one match per request: 17 of them pass the default budget of 16.
    const rules = Array.from({ length: 17 }, (_, index) =>
      rule('infra-backend-v1', {
        headers: [{ type: 'RegularExpression', name: 'version', value: `v${index}` }],
      }),
    );
    await applyGatewayAndRoute('regex-budget', 'regex-budget.test', 'regex-budget', rules);
    await expectRouteConditions(INFRA, 'regex-budget', 'regex-budget', {
      PartiallyInvalid: 'True/HostLimitExceeded',
    });
    await expectAnswers([['regex-budget.test', '/', '404', { version: 'v1' }]]);
    await applyGatewayAndRoute('regex-budget', 'regex-budget.test', 'regex-budget', rules.slice(1));
    await expectAnswers([['regex-budget.test', '/', 'infra-backend-v1', { version: 'v1' }]]);
  });
});
