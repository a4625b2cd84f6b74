/**
 * More upstream HTTPRoute conformance scenarios, ported as in gateway-api.integration.test.ts:
 * references that cannot be resolved, parentRefs that match no listener, rules without backends,
 * precedence across routes and path order, redirect status codes and ports, mirroring, several
 * Gateways, listener ports, Service types and generation bumps. Each `describe` is named after its upstream test; the code and
 * manifests are our own, each scenario on hostnames of its own.
 */
import { describe, expect, it } from 'vitest';
import {
  answer,
  applyGatewayAndRoute,
  backendRef,
  backends,
  controller,
  expectAnswers,
  expectRouteConditions,
  gateway,
  httpListener,
  httpRoute,
  INFRA,
  readGateway,
  readRoute,
  send,
  server,
  useGatewayApiCase,
  WEB,
} from './gateway-api.js';
import { eventually } from './harness.js';
import { openWebSocket, startLongLivedBackend } from './long-lived.js';

useGatewayApiCase();

/** Upstream tests of one backendRef that cannot be served: the route is accepted, answers 500 and says why. */
const UNSERVABLE_BACKENDS: [test: string, name: string, ref: Record<string, unknown>, reason: string][] = [
  [
    'HTTPRouteInvalidNonExistentBackendRef',
    'nonexistent-backend',
    backendRef('nonexistent'),
    'BackendNotFound',
  ],
  [
    'HTTPRouteInvalidBackendRefUnknownKind',
    'unknown-kind',
    backendRef('infra-backend-v1', { group: 'unknownkind.example.com', kind: 'NonExistent' }),
    'InvalidKind',
  ],
  [
    'HTTPRouteInvalidCrossNamespaceBackendRef',
    'cross-backend',
    backendRef('web-backend', { namespace: WEB }),
    'RefNotPermitted',
  ],
];

for (const [test, name, ref, reason] of UNSERVABLE_BACKENDS) {
  describe(test, () => {
    it(`accepts the route, answers 500 and reports ${reason}`, async () => {
      await applyGatewayAndRoute(name, `${name}.test`, name, [{ backendRefs: [ref] }]);
      await expectRouteConditions(INFRA, name, name, {
        Accepted: 'True/Accepted',
        ResolvedRefs: `False/${reason}`,
      });
      await expectAnswers([[`${name}.test`, '/', '500']]);
    });
  });
}

/** Waits until no parent of the route is Accepted, and ours says why with `reason`. */
async function expectNotAccepted(route: string, gatewayName: string, reason: string): Promise<void> {
  await expectRouteConditions(INFRA, route, gatewayName, { Accepted: `False/${reason}` });
  const parents = (await readRoute(INFRA, route)).status?.parents ?? [];
  expect(
    parents.filter((parent) => parent.conditions.some((c) => c.type === 'Accepted' && c.status === 'True')),
  ).toEqual([]);
}

describe('HTTPRouteInvalidParentRefNotMatchingSectionName', () => {
  it('is not accepted (NoMatchingParent) when no listener has its sectionName', async () => {
    await server.apply([
      gateway('section-name', [httpListener('http', 'section-name.test')]),
      httpRoute('section-name', {
        parentRefs: [{ name: 'section-name', namespace: INFRA, port: 80, sectionName: 'http1' }],
        rules: [{ backendRefs: [backendRef('infra-backend-v1')] }],
      }),
    ]);
    await expectNotAccepted('section-name', 'section-name', 'NoMatchingParent');
    await expectAnswers([['section-name.test', '/', '404']]);
  });
});

describe('HTTPRouteInvalidParentRefNotMatchingListenerPort', () => {
  it('is not accepted (NoMatchingParent) when no listener has its port', async () => {
    await server.apply([
      gateway('listener-port', [httpListener('http', 'listener-port.test')]),
      httpRoute('listener-port', {
        parentRefs: [{ name: 'listener-port', namespace: INFRA, port: 81 }],
        rules: [{ backendRefs: [backendRef('infra-backend-v1')] }],
      }),
    ]);
    await expectNotAccepted('listener-port', 'listener-port', 'NoMatchingParent');
    await expectAnswers([['listener-port.test', '/', '404']]);
  });
});

describe('HTTPRouteInvalidParentRefSectionNameNotMatchingPort', () => {
  it('is not accepted (NoMatchingParent) when the listener of its sectionName has another port', async () => {
    await server.apply([
      gateway('section-port', [
        httpListener('http', 'section-port.test', {
          namespaces: { from: 'All' },
          kinds: [{ kind: 'HTTPRoute' }],
        }),
      ]),
      httpRoute('section-port', {
        parentRefs: [{ name: 'section-port', namespace: INFRA, sectionName: 'http', port: 81 }],
        rules: [{ backendRefs: [backendRef('infra-backend-v1')] }],
      }),
    ]);
    await expectNotAccepted('section-port', 'section-port', 'NoMatchingParent');
  });
});

describe('HTTPRouteNoBackendRefs', () => {
  it('answers 500 for rules without backendRefs, omitted or empty, and serves the others', async () => {
    await applyGatewayAndRoute('no-backends', 'no-backends.test', 'no-backends', [
      { matches: [{ path: { type: 'Exact', value: '/omitted-no-forward' } }] },
      { matches: [{ path: { type: 'Exact', value: '/empty-no-forward' } }], backendRefs: [] },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/' } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    await expectAnswers([
      ['no-backends.test', '/forward', 'infra-backend-v1'],
      ['no-backends.test', '/omitted-no-forward', '500'],
      ['no-backends.test', '/empty-no-forward', '500'],
    ]);
    await expectRouteConditions(INFRA, 'no-backends', 'no-backends', { Accepted: 'True/Accepted' });
  });
});

describe('HTTPRouteMatchingAcrossRoutes', () => {
  it('ranks the matches of several routes on one hostname together', async () => {
    const listeners = [httpListener('http', 'across.test'), httpListener('net', 'across.example.net')];
    await server.apply([
      gateway('across', listeners),
      httpRoute('across-part1', {
        parentRefs: [{ name: 'across' }],
        hostnames: ['across.test', 'across.example.net'],
        rules: [
          {
            matches: [
              { path: { type: 'PathPrefix', value: '/' } },
              { headers: [{ name: 'version', value: 'one' }] },
            ],
            backendRefs: [backendRef('infra-backend-v1')],
          },
        ],
      }),
      httpRoute('across-part2', {
        parentRefs: [{ name: 'across' }],
        hostnames: ['across.test'],
        rules: [
          {
            matches: [
              { path: { type: 'PathPrefix', value: '/v2' } },
              { headers: [{ name: 'version', value: 'two' }] },
            ],
            backendRefs: [backendRef('infra-backend-v2')],
          },
        ],
      }),
    ]);
    await expectAnswers([
      ['across.test', '/', 'infra-backend-v1'],
      ['across.test', '/example', 'infra-backend-v1'],
      ['across.example.net', '/example', 'infra-backend-v1'],
      ['across.test', '/example', 'infra-backend-v1', { Version: 'one' }],
      ['across.test', '/v2', 'infra-backend-v2'],
      ['across.example.net', '/v2', 'infra-backend-v1'],
      ['across.test', '/v2/example', 'infra-backend-v2'],
      ['across.test', '/', 'infra-backend-v2', { Version: 'two' }],
    ]);
  });
});

describe('HTTPRoutePathMatchOrder', () => {
  it('prefers Exact to PathPrefix and the longest prefix, whatever the rule order', async () => {
    const exact = (value: string, backend: string) => ({
      matches: [{ path: { type: 'Exact', value } }],
      backendRefs: [backendRef(backend)],
    });
    const prefix = (value: string, backend: string) => ({
      matches: [{ path: { type: 'PathPrefix', value } }],
      backendRefs: [backendRef(backend)],
    });
    await applyGatewayAndRoute('path-order', 'path-order.test', 'path-order', [
      exact('/match', 'infra-backend-v1'),
      exact('/match/exact', 'infra-backend-v2'),
      exact('/match/exact/one', 'infra-backend-v3'),
      prefix('/match/', 'infra-backend-v3'),
      prefix('/match/prefix/', 'infra-backend-v1'),
      prefix('/match/prefix/one', 'infra-backend-v2'),
    ]);
    await expectAnswers([
      ['path-order.test', '/match/exact/one', 'infra-backend-v3'],
      ['path-order.test', '/match/exact', 'infra-backend-v2'],
      ['path-order.test', '/match', 'infra-backend-v1'],
      ['path-order.test', '/match/prefix/one/any', 'infra-backend-v2'],
      ['path-order.test', '/match/prefix/any', 'infra-backend-v1'],
      ['path-order.test', '/match/any', 'infra-backend-v3'],
    ]);
  });
});

/** `status location` of a GET through nginx. */
async function redirectOf(host: string, path: string): Promise<string> {
  const response = await send(host, path);
  return `${response.status} ${response.headers.location}`;
}

describe('HTTPRoute303Redirect, HTTPRoute307Redirect, HTTPRoute308Redirect', () => {
  it('redirects with the status code the filter names', async () => {
    await applyGatewayAndRoute(
      'redirect-codes',
      'redirect-codes.test',
      'redirect-codes',
      [303, 307, 308].map((statusCode) => ({
        matches: [{ path: { type: 'PathPrefix', value: `/code-${statusCode}` } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { statusCode, hostname: 'example.org' } }],
      })),
    );
    await eventually(async () => {
      expect(
        await Promise.all(
          ['/code-303', '/code-307', '/code-308'].map((path) => redirectOf('redirect-codes.test', path)),
        ),
      ).toEqual([
        expect.stringMatching(/^303 http:\/\/example\.org(:\d+)?\/code-303$/),
        expect.stringMatching(/^307 http:\/\/example\.org(:\d+)?\/code-307$/),
        expect.stringMatching(/^308 http:\/\/example\.org(:\d+)?\/code-308$/),
      ]);
    });
  });
});

describe('HTTPRouteRedirectPort', () => {
  it('redirects to the port the filter names, with its hostname and status', async () => {
    const redirect = (value: string, requestRedirect: Record<string, unknown>) => ({
      matches: [{ path: { type: 'PathPrefix', value } }],
      filters: [{ type: 'RequestRedirect', requestRedirect }],
    });
    await applyGatewayAndRoute('redirect-port', 'redirect-port.test', 'redirect-port', [
      redirect('/port', { port: 8083 }),
      redirect('/port-and-host', { hostname: 'example.org', port: 8083 }),
      redirect('/port-and-status', { port: 8083, statusCode: 301 }),
      redirect('/port-and-host-and-status', { port: 8083, hostname: 'example.org', statusCode: 302 }),
    ]);
    await eventually(async () => {
      expect(
        await Promise.all(
          ['/port', '/port-and-host', '/port-and-status', '/port-and-host-and-status'].map((path) =>
            redirectOf('redirect-port.test', path),
          ),
        ),
      ).toEqual([
        '302 http://redirect-port.test:8083/port',
        '302 http://example.org:8083/port-and-host',
        '301 http://redirect-port.test:8083/port-and-status',
        '302 http://example.org:8083/port-and-host-and-status',
      ]);
    });
  });
});

describe('HTTPRouteRedirectPortAndScheme', () => {
  it("leaves out the scheme's default port and keeps any other", async () => {
    const redirect = (value: string, requestRedirect: Record<string, unknown>) => ({
      matches: [{ path: { type: 'PathPrefix', value } }],
      filters: [
        { type: 'RequestRedirect', requestRedirect: { hostname: 'example.org', ...requestRedirect } },
      ],
    });
    await applyGatewayAndRoute('redirect-port-scheme', 'redirect-port-scheme.test', 'redirect-port-scheme', [
      redirect('/scheme-nil-and-port-80', { port: 80 }),
      redirect('/scheme-nil-and-port-8080', { port: 8080 }),
      redirect('/scheme-https-and-port-nil', { scheme: 'https' }),
      redirect('/scheme-https-and-port-443', { scheme: 'https', port: 443 }),
      redirect('/scheme-https-and-port-8443', { scheme: 'https', port: 8443 }),
    ]);
    const paths = [
      '/scheme-nil-and-port-80',
      '/scheme-nil-and-port-8080',
      '/scheme-https-and-port-nil',
      '/scheme-https-and-port-443',
      '/scheme-https-and-port-8443',
    ];
    await eventually(async () => {
      expect(await Promise.all(paths.map((path) => redirectOf('redirect-port-scheme.test', path)))).toEqual([
        '302 http://example.org/scheme-nil-and-port-80',
        '302 http://example.org:8080/scheme-nil-and-port-8080',
        '302 https://example.org/scheme-https-and-port-nil',
        '302 https://example.org/scheme-https-and-port-443',
        '302 https://example.org:8443/scheme-https-and-port-8443',
      ]);
    });
  });
});

describe('HTTPRouteObservedGenerationBump', () => {
  it('reports the new generation in every condition after a spec change', async () => {
    await applyGatewayAndRoute('generation-bump', 'generation-bump.test', 'generation-bump', [
      { backendRefs: [backendRef('infra-backend-v1')] },
    ]);
    await expectRouteConditions(INFRA, 'generation-bump', 'generation-bump', { Accepted: 'True/Accepted' });
    const before = (await readRoute(INFRA, 'generation-bump')).metadata.generation!;
    await server.apply([
      httpRoute('generation-bump', {
        parentRefs: [{ name: 'generation-bump' }],
        rules: [{ backendRefs: [backendRef('infra-backend-v2')] }],
      }),
    ]);
    await eventually(async () => {
      const route = await readRoute(INFRA, 'generation-bump');
      expect(route.metadata.generation).toBe(before + 1);
      const conditions = route.status?.parents?.[0]?.conditions ?? [];
      expect(conditions.length).toBeGreaterThan(0);
      for (const condition of conditions) expect(condition.observedGeneration).toBe(before + 1);
    });
    await expectAnswers([['generation-bump.test', '/', 'infra-backend-v2']]);
  });
});

describe('HTTPRouteMultipleGateways', () => {
  it('serves a route attached to two Gateways on both, beside routes of each one alone', async () => {
    await server.apply([
      gateway('multi-same', [httpListener('http', 'multi-same.test')]),
      gateway('multi-all', [httpListener('http', 'multi-all.test', { namespaces: { from: 'All' } })]),
      httpRoute('multi-shared', {
        parentRefs: [{ name: 'multi-same' }, { name: 'multi-all' }],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/shared' } }],
            backendRefs: [backendRef('infra-backend-v1')],
          },
        ],
      }),
      httpRoute('multi-same-dedicated', {
        parentRefs: [{ name: 'multi-same' }],
        rules: [{ backendRefs: [backendRef('infra-backend-v2')] }],
      }),
      httpRoute('multi-all-dedicated', {
        parentRefs: [{ name: 'multi-all' }],
        rules: [{ backendRefs: [backendRef('infra-backend-v3')] }],
      }),
    ]);
    await expectAnswers([
      ['multi-same.test', '/shared', 'infra-backend-v1'],
      ['multi-same.test', '/', 'infra-backend-v2'],
      ['multi-all.test', '/shared', 'infra-backend-v1'],
      ['multi-all.test', '/', 'infra-backend-v3'],
    ]);
    for (const name of ['multi-same', 'multi-all'])
      await expectRouteConditions(INFRA, 'multi-shared', name, { Accepted: 'True/Accepted' });
  });
});

describe('HTTPRouteDisallowedKind', () => {
  it('is not accepted by a listener that takes other route kinds, which counts no route', async () => {
    await server.apply([
      gateway('tlsroutes-only', [
        {
          name: 'tls',
          port: 443,
          protocol: 'TLS',
          hostname: 'disallowed.test',
          tls: { mode: 'Passthrough' },
          allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TLSRoute' }] },
        },
      ]),
      httpRoute('disallowed-kind', {
        parentRefs: [{ name: 'tlsroutes-only', namespace: INFRA }],
        rules: [{ backendRefs: [backendRef('infra-backend-v1')] }],
      }),
    ]);
    await expectNotAccepted('disallowed-kind', 'tlsroutes-only', 'NotAllowedByListeners');
    await expectRouteConditions(INFRA, 'disallowed-kind', 'tlsroutes-only', {
      ResolvedRefs: 'True/ResolvedRefs',
    });
    await eventually(async () => {
      const listeners = (await readGateway(INFRA, 'tlsroutes-only')).status?.listeners ?? [];
      expect(listeners.map((listener) => listener.attachedRoutes)).toEqual([0]);
    });
  });
});

describe('HTTPRouteInvalidReferenceGrant', () => {
  it('answers 500 with RefNotPermitted when no ReferenceGrant covers the Service exactly', async () => {
    const grant = (
      name: string,
      namespace: string,
      from: Record<string, string>,
      to: Record<string, string>,
    ) => ({
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      metadata: { name, namespace },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: INFRA, ...from }],
        to: [{ group: '', kind: 'Service', name: 'web-backend', ...to }],
      },
    });
    await server.apply([
      grant('wrong-namespace', INFRA, {}, {}),
      grant('wrong-from-group', WEB, { group: 'not-the-group.example.com' }, {}),
      grant('wrong-from-kind', WEB, { kind: 'Gateway' }, {}),
      grant('wrong-from-namespace', WEB, { namespace: 'not-the-namespace' }, {}),
      grant('wrong-to-group', WEB, {}, { group: 'not-the-group.example.com' }),
      grant('wrong-to-kind', WEB, {}, { kind: 'Secret' }),
      grant('wrong-to-name', WEB, {}, { name: 'not-the-service' }),
    ]);
    await applyGatewayAndRoute('invalid-grant', 'invalid-grant.test', 'invalid-grant', [
      { backendRefs: [backendRef('web-backend', { namespace: WEB })] },
    ]);
    await expectRouteConditions(INFRA, 'invalid-grant', 'invalid-grant', {
      Accepted: 'True/Accepted',
      ResolvedRefs: 'False/RefNotPermitted',
    });
    await expectAnswers([['invalid-grant.test', '/', '500']]);
  });
});

describe('HTTPRouteServiceTypes', () => {
  it('reaches Services with manual EndpointSlices and headless Services alike', async () => {
    const port = backends.get('infra-backend-v1')!.port;
    const service = (name: string, headless: boolean) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: INFRA },
      spec: {
        ...(headless ? { clusterIP: 'None' } : {}),
        ports: [{ name: 'first-port', port: 8080, targetPort: 3000 }],
      },
    });
    const slice = (service: string) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${service}-ip4`,
        namespace: INFRA,
        labels: { 'kubernetes.io/service-name': service },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
      ports: [{ name: 'first-port', port }],
    });
    await server.apply([
      service('manual-endpointslices', false),
      slice('manual-endpointslices'),
      service('headless-manual-endpointslices', true),
      slice('headless-manual-endpointslices'),
    ]);
    const exact = (path: string, backend: string) => ({
      matches: [{ path: { type: 'Exact', value: path } }],
      backendRefs: [{ name: backend, port: 8080 }],
    });
    await applyGatewayAndRoute('service-types', 'service-types.test', 'service-types', [
      exact('/manual-endpointslices', 'manual-endpointslices'),
      exact('/headless-manual-endpointslices', 'headless-manual-endpointslices'),
    ]);
    await expectAnswers([
      ['service-types.test', '/manual-endpointslices', 'infra-backend-v1'],
      ['service-types.test', '/headless-manual-endpointslices', 'infra-backend-v1'],
    ]);
  });
});

describe('HTTPRouteBackendProtocolWebSocket', () => {
  it('carries a WebSocket to a Service port of appProtocol kubernetes.io/ws', async () => {
    const backend = await startLongLivedBackend();
    try {
      await server.apply([
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'websocket', namespace: INFRA },
          spec: { ports: [{ name: 'ws', port: 8082, appProtocol: 'kubernetes.io/ws', targetPort: 3000 }] },
        },
        {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: {
            name: 'websocket-1',
            namespace: INFRA,
            labels: { 'kubernetes.io/service-name': 'websocket' },
          },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
          ports: [{ name: 'ws', port: backend.port, appProtocol: 'kubernetes.io/ws' }],
        },
      ]);
      await applyGatewayAndRoute('websocket', 'websocket.test', 'websocket', [
        { backendRefs: [{ name: 'websocket', port: 8082 }] },
      ]);
      const socket = await eventually(() =>
        openWebSocket(controller.config.httpPort, 'websocket.test', '/ws'),
      );
      try {
        expect(await socket.exchange('hello')).toBe('echo: hello');
        expect(await socket.exchange('again')).toBe('echo: again');
      } finally {
        socket.close();
      }
    } finally {
      await backend.stop();
    }
  });
});

describe('HTTPRouteNamedRule', () => {
  it('serves named and unnamed rules alike', async () => {
    await applyGatewayAndRoute('named-rule', 'named-rule.test', 'named-rule', [
      {
        name: 'named-rule',
        matches: [{ path: { type: 'PathPrefix', value: '/named' } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
      {
        matches: [{ path: { type: 'PathPrefix', value: '/unnamed' } }],
        backendRefs: [backendRef('infra-backend-v2')],
      },
    ]);
    await expectAnswers([
      ['named-rule.test', '/named', 'infra-backend-v1'],
      ['named-rule.test', '/unnamed', 'infra-backend-v2'],
    ]);
    await expectRouteConditions(INFRA, 'named-rule', 'named-rule', { Accepted: 'True/Accepted' });
  });
});

describe('HTTPRouteRequestMirror', () => {
  it('copies each request to the mirror backend and answers with the main one', async () => {
    await applyGatewayAndRoute('mirror', 'mirror.test', 'mirror', [
      {
        matches: [{ path: { type: 'PathPrefix', value: '/mirror' } }],
        filters: [{ type: 'RequestMirror', requestMirror: { backendRef: backendRef('infra-backend-v3') } }],
        backendRefs: [backendRef('infra-backend-v1')],
      },
    ]);
    await expectAnswers([['mirror.test', '/mirror', 'infra-backend-v1']]);
    const mirror = backends.get('infra-backend-v3')!;
    // Copies of the requests above may still be on their way: wait until none arrives for 300 ms.
    let settled = -1;
    await eventually(async () => {
      const count = mirror.requests();
      const unchanged = count === settled;
      settled = count;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(unchanged && mirror.requests() === count).toBe(true);
    });
    const before = mirror.requests();
    for (let sent = 0; sent < 5; sent++)
      expect(await answer('mirror.test', '/mirror')).toBe('infra-backend-v1');
    await eventually(() => expect(mirror.requests() - before).toBe(5));
  });
});
