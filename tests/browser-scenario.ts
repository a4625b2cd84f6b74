/**
 * Calls of the browser-embeddable packages whose results must not depend on where they run:
 * route-model's README table, with a regex route and a header match added, and requests that
 * exercise each kind of match; class-resolution's decisions and explanations for Ingresses in each
 * situation; checksum's ids, MD5 and verification (`@ingresskit/checksum/pure`). Run in Node and in
 * a browser by tests/browser.integration.test.ts.
 */
import {
  buildIngressCheckSum,
  computeChecksum,
  ingressConfigId,
  verifyChecksum,
} from '@ingresskit/checksum/pure';
import { createIngressClassResolver, explainDecision } from '@ingresskit/class-resolution';
import { checkPortableRegex, createRouteTableBuilder, selectRoute } from '@ingresskit/route-model';

export interface ScenarioResult {
  answers: { path: string; headers: Record<string, string>; route: string | null }[];
  regexChecks: { pattern: string; problem: string | null }[];
  changedHosts: string[];
  classDecisions: { ingress: string; owned: boolean; explanation: string }[];
  checksum: { ids: string[]; checksum: string; verification: unknown };
}

/** Tengine's checksum of three Ingresses, and its verification against a published object missing one. */
function checkChecksum(): ScenarioResult['checksum'] {
  const ingresses = ['shop-27555', 'blog-9', 'api-10'].map((name, index) => ({
    metadata: { name, annotations: { 'nginx.ingress.kubernetes.io/version': String(index + 1) } },
  }));
  const ids = ingresses.flatMap((ingress) => ingressConfigId(ingress).id ?? []);
  const published = buildIngressCheckSum(ids.slice(1), {
    namespace: 'ingress',
    now: new Date('2026-11-23T00:00:00Z'),
  });
  return { ids, checksum: computeChecksum(ids), verification: verifyChecksum(ids, [published]) };
}

const INGRESS_CLASSES = [
  {
    metadata: { name: 'nginx', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
    spec: { controller: 'ingresskit.dev/ingress-controller' },
  },
  { metadata: { name: 'traefik' }, spec: { controller: 'traefik.io/ingress-controller' } },
];

const INGRESSES = [
  { metadata: { namespace: 'shop', name: 'named' }, spec: { ingressClassName: 'nginx' } },
  { metadata: { namespace: 'shop', name: 'theirs' }, spec: { ingressClassName: 'traefik' } },
  { metadata: { namespace: 'shop', name: 'typo' }, spec: { ingressClassName: 'ngnix' } },
  {
    metadata: {
      namespace: 'shop',
      name: 'annotated',
      annotations: { 'kubernetes.io/ingress.class': 'nginx' },
    },
  },
  { metadata: { namespace: 'shop', name: 'classless' }, spec: {} },
];

function decideClasses(): ScenarioResult['classDecisions'] {
  const resolver = createIngressClassResolver(INGRESS_CLASSES, {
    controllerClass: 'ingresskit.dev/ingress-controller',
    ingressClass: 'nginx',
  });
  return INGRESSES.map((ingress) => {
    const decision = resolver.resolve(ingress);
    return {
      ingress: ingress.metadata.name,
      owned: decision.owned,
      explanation: explainDecision(ingress, decision),
    };
  });
}

const REQUESTS: { path: string; headers?: Record<string, string> }[] = [
  { path: '/' },
  { path: '/cart' },
  { path: '/cart/42' },
  { path: '/cartx' },
  { path: '/API/v2/items' },
  { path: '/api/v10/items' },
  { path: '/api/vx' },
  { path: '/beta', headers: { 'x-canary': 'yes' } },
  { path: '/beta', headers: { 'X-Canary': 'no' } },
];

const PATTERNS = ['/api/v[0-9]+', '/[]a]', '/[[:alpha:]]', '/a{70000}', '/(?=x)', '/\\d{2,3}'];

export function runScenario(): ScenarioResult {
  const origin = (index: number) => ({
    kind: 'Demo',
    namespace: 'shop',
    name: 'api',
    createdAt: 0,
    index: [index],
  });
  const forward = (backend: string) => ({ type: 'forward' as const, backends: [{ backend, weight: 1 }] });
  const builder = createRouteTableBuilder({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
  builder.setContribution({
    source: { kind: 'Demo', namespace: 'shop', name: 'api' },
    hosts: [
      {
        hostname: 'shop.example.com',
        routes: [
          {
            id: 'api/cart',
            origin: origin(0),
            match: { path: { type: 'PathPrefix', value: '/cart' } },
            action: forward('shop/cart:80'),
            policy: { timeouts: { readMs: 5000 } },
          },
          {
            id: 'api/versioned',
            origin: origin(1),
            match: { path: { type: 'RegularExpression', value: '^/api/v[0-9]+/', ignoreCase: true } },
            action: forward('shop/api:80'),
            policy: {},
          },
          {
            id: 'api/canary',
            origin: origin(2),
            match: {
              path: { type: 'PathPrefix', value: '/beta' },
              headers: [{ type: 'Exact', name: 'x-canary', value: 'yes' }],
            },
            action: forward('shop/canary:80'),
            policy: {},
          },
        ],
      },
    ],
    tls: [],
  });
  builder.setBackend({ id: 'shop/cart:80', endpoints: [{ address: '10.0.0.7', port: 8080 }] });
  const delta = builder.commit();
  const table = builder.table();
  return {
    answers: REQUESTS.map(({ path, headers = {} }) => {
      const answer = selectRoute(table, {
        listener: 'http',
        host: 'shop.example.com',
        path,
        method: 'GET',
        headers,
      });
      return { path, headers, route: answer.found ? answer.route.id : null };
    }),
    regexChecks: PATTERNS.map((pattern) => ({ pattern, problem: checkPortableRegex(pattern) ?? null })),
    changedHosts: delta.virtualHosts.upsert.map((host) => host.hostname).sort(),
    classDecisions: decideClasses(),
    checksum: checkChecksum(),
  };
}
