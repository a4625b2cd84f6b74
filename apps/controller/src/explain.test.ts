import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import type { CustomObject, EndpointSlice, Ingress, IngressClass, Secret, Service } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { viewOfObjects, type ClusterObjects } from './cluster-view.js';
import { ChecksumGate } from './checksum-gate.js';
import { explainIngress, formatExplanation, formatRoute, type ExplainedRoute } from './explain.js';
import { routeAll } from './ingress-routing.js';

const ours: IngressClass = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: {
    name: 'nginx',
    resourceVersion: '1',
    annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
  },
  spec: { controller: 'ingresskit.dev/ingress-controller' },
};
const theirs: IngressClass = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'traefik', resourceVersion: '2' },
  spec: { controller: 'traefik.io/ingress-controller' },
};

function ingress(
  name: string,
  options: { className?: string; host: string; annotations?: Record<string, string> },
): Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: 'shop',
      resourceVersion: '10',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      ...(options.className ? { ingressClassName: options.className } : {}),
      rules: [
        {
          host: options.host,
          http: {
            paths: [
              { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
  };
}

const service: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '3' },
  spec: { ports: [{ port: 80, targetPort: 8080 }] },
};
const slice: EndpointSlice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: 'web-abc',
    namespace: 'shop',
    resourceVersion: '4',
    labels: { 'kubernetes.io/service-name': 'web' },
  },
  addressType: 'IPv4',
  endpoints: [
    { addresses: ['10.0.0.1'], conditions: { ready: true } },
    { addresses: ['10.0.0.2'], conditions: { ready: true } },
  ],
  ports: [{ port: 8080 }],
};

function objects(ingresses: Ingress[], checksums: CustomObject[] = []): ClusterObjects {
  return {
    ingresses,
    ingressClasses: [ours, theirs],
    services: [service],
    endpointSlices: [slice],
    secrets: [],
    ingressCheckSums: checksums,
  };
}

const listeners = [
  { name: 'http', port: 80, protocol: 'HTTP' as const },
  { name: 'https', port: 443, protocol: 'HTTPS' as const },
];

function route(clusterObjects: ClusterObjects) {
  return routeAll(viewOfObjects(clusterObjects), {
    classConfig: {},
    listeners,
    now: () => Date.UTC(2026, 0, 2),
  });
}

describe('explainIngress', () => {
  it('lists the routes and the decision when the Ingress is ours', () => {
    const routing = route(objects([ingress('cart', { className: 'nginx', host: 'shop.example.com' })]));
    const explanation = explainIngress(routing, 'shop/cart');
    expect(explanation).toMatchObject({
      ingress: 'shop/cart',
      found: true,
      owned: true,
      decision: { className: 'nginx', via: 'ingressClassName' },
      problems: [],
    });
    expect(explanation.routes).toEqual([
      expect.objectContaining({
        hostname: 'shop.example.com',
        isFallback: false,
        served: true,
        backends: [{ id: 'shop/web:80', endpoints: 2 }],
        tls: false,
      }),
    ]);
    expect(explanation.routes[0]?.route).toMatchObject({
      id: 'Ingress/shop/cart/r0/p0',
      match: { path: { type: 'PathPrefix', value: '/' } },
      action: { type: 'forward', backends: [{ backend: 'shop/web:80', weight: 1 }] },
    });
    expect(explanation.explanation).toContain('Ingress shop/cart is served as class "nginx"');
  });

  it('lists the route of spec.defaultBackend, the fallback of its hosts and of unknown hosts', () => {
    const plain = ingress('cart', { className: 'nginx', host: 'shop.example.com' });
    const defaultBackend = { service: { name: 'web', port: { number: 80 } } };
    const cart: Ingress = { ...plain, spec: { ...plain.spec, defaultBackend } };
    const explanation = explainIngress(route(objects([cart])), 'shop/cart');
    const fallbacks = explanation.routes.filter((explained) => explained.isFallback);
    expect(fallbacks.map(({ hostname }) => hostname)).toEqual(['*', 'shop.example.com']);
    for (const fallback of fallbacks) {
      expect(fallback).toMatchObject({ served: true, backends: [{ id: 'shop/web:80', endpoints: 2 }] });
      expect(fallback.route.origin.field).toBe('spec.defaultBackend');
    }
  });

  it('says whose it is and has no routes when another controller owns the class', () => {
    const routing = route(objects([ingress('other', { className: 'traefik', host: 'other.example.com' })]));
    const explanation = explainIngress(routing, 'shop/other');
    expect(explanation.owned).toBe(false);
    expect(explanation.decision).toMatchObject({
      reason: 'class-other-controller',
      controller: 'traefik.io/ingress-controller',
    });
    expect(explanation.routes).toEqual([]);
    expect(explanation.explanation).toContain('traefik.io/ingress-controller');
  });

  it('serves a class-less Ingress through the default class when the default is ours', () => {
    const routing = route(objects([ingress('legacy', { host: 'legacy.example.com' })]));
    expect(explainIngress(routing, 'shop/legacy').decision).toMatchObject({
      via: 'default-class',
      className: 'nginx',
    });
  });

  it('reports the problem and no routes when an annotation value is invalid', () => {
    const broken = ingress('broken', {
      className: 'nginx',
      host: 'broken.example.com',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': 'forever' },
    });
    const routing = route(
      objects([broken, ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
    );
    const explanation = explainIngress(routing, 'shop/broken');
    expect(explanation.owned).toBe(true);
    expect(explanation.routes).toEqual([]);
    expect(explanation.problems).toHaveLength(1);
    expect(explanation.problems[0]).toMatchObject({ severity: 'error', value: 'forever' });
    expect(explainIngress(routing, 'shop/cart').routes).toHaveLength(1);
  });

  it('answers not found when the Ingress does not exist', () => {
    expect(explainIngress(route(objects([])), 'shop/ghost')).toMatchObject({
      found: false,
      owned: false,
      routes: [],
    });
  });

  it('marks a route an older Ingress already serves as not served, and reports it', () => {
    const older = ingress('first', { className: 'nginx', host: 'shop.example.com' });
    const younger = {
      ...ingress('second', { className: 'nginx', host: 'shop.example.com' }),
      metadata: { ...older.metadata, name: 'second', creationTimestamp: '2026-01-02T00:00:00Z' },
    };
    const routing = route(objects([older, younger]));
    const explanation = explainIngress(routing, 'shop/second');
    expect(explanation.routes.map((entry) => entry.served)).toEqual([false]);
    expect(explanation.problems).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('already served by the older Ingress shop/first'),
      }),
    ]);
    expect(explainIngress(routing, 'shop/first').routes.map((entry) => entry.served)).toEqual([true]);
  });

  it('reports a certificate the data plane refused on the Ingress that claims it, until it is taken back', () => {
    const { certificatePem, privateKeyPem } = createSelfSignedCertificate({ commonName: 'shop.example.com' });
    const secret: Secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shop-tls', namespace: 'shop', resourceVersion: '5' },
      type: 'kubernetes.io/tls',
      data: {
        'tls.crt': Buffer.from(certificatePem).toString('base64'),
        'tls.key': Buffer.from(privateKeyPem).toString('base64'),
      },
    };
    const plain = ingress('secure', { className: 'nginx', host: 'shop.example.com' });
    const secure: Ingress = {
      ...plain,
      spec: { ...plain.spec, tls: [{ hosts: ['shop.example.com'], secretName: 'shop-tls' }] },
    };
    const routing = route({
      ...objects([secure, ingress('plain', { className: 'nginx', host: 'a.test' })]),
      secrets: [secret],
    });
    routing.takeAffectedIngresses();
    const [claim] = routing.contributionOf('shop/secure')!.tls;

    routing.routingTable.setRefusedCertificates(new Map([[claim!.certificate.id, 'ee key too small']]));
    expect([...routing.takeAffectedIngresses()]).toEqual(['shop/secure']);
    expect(routing.problemsOf('shop/secure')).toEqual([
      expect.objectContaining({
        field: 'spec.tls[0]',
        message:
          'nginx refused the certificate for shop.example.com (ee key too small); the host is served with the default certificate',
        severity: 'error',
      }),
    ]);
    expect(routing.problemsOf('shop/plain')).toEqual([]);

    routing.routingTable.setRefusedCertificates(new Map([[claim!.certificate.id, 'ee key too small']]));
    expect(routing.takeAffectedIngresses().size).toBe(0);
    routing.routingTable.setRefusedCertificates(new Map());
    expect([...routing.takeAffectedIngresses()]).toEqual(['shop/secure']);
    expect(routing.problemsOf('shop/secure')).toEqual([]);
  });

  it('carries the checksum verdict when the gate is on', () => {
    const published: CustomObject = {
      apiVersion: 'tengine.taobao.org/v1',
      kind: 'IngressCheckSum',
      metadata: {
        name: 'ingress-checksum-a',
        namespace: 'shop',
        resourceVersion: '5',
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: { checksum: 'not-it', ids: ['7-1'] },
    };
    const versioned = ingress('cart-7', {
      className: 'nginx',
      host: 'shop.example.com',
      annotations: { 'nginx.ingress.kubernetes.io/version': '2' },
    });
    const routing = route(objects([versioned], [published]));
    const gate = new ChecksumGate();
    gate.update('shop/cart-7', versioned);
    const checksum = gate.verify([published]);
    expect(checksum).toMatchObject({
      ok: false,
      ids: ['7-2'],
      diff: { localOnly: ['7-2'], publishedOnly: ['7-1'] },
    });
    expect(explainIngress(routing, 'shop/cart-7', checksum).checksum?.ok).toBe(false);
  });
});

describe('formatExplanation', () => {
  it('prints the decision, the routes and the problems as text', () => {
    const broken = ingress('broken', {
      className: 'nginx',
      host: 'broken.example.com',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': 'forever' },
    });
    const routing = route(
      objects([broken, ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
    );
    const served = formatExplanation(explainIngress(routing, 'shop/cart'));
    expect(served).toContain('Ingress shop/cart\n  Owned:       yes, as class "nginx" (ingressClassName)');
    expect(served).toContain('http://shop.example.com/ (PathPrefix) → shop/web:80 (2 endpoints)');
    expect(served).toContain('Problems:    none');
    const text = formatExplanation(explainIngress(routing, 'shop/broken'));
    expect(text).toMatch(
      /error: metadata\.annotations\["nginx\.ingress\.kubernetes\.io\/proxy-read-timeout"\]: .*\(value "forever"\)/,
    );
    expect(formatExplanation(explainIngress(routing, 'shop/ghost'))).toContain('does not exist');
  });
});

describe('formatRoute', () => {
  const base: ExplainedRoute = {
    hostname: 'a.example.com',
    route: {
      id: 'Ingress/shop/a/r0/p0',
      origin: { kind: 'Ingress', namespace: 'shop', name: 'a', createdAt: 0, index: [0, 0] },
      match: { path: { type: 'Exact', value: '/x' }, method: 'GET' },
      action: { type: 'respond', statusCode: 503 },
      policy: {},
    },
    isFallback: false,
    served: true,
    backends: [],
    tls: true,
  };

  it('shows a status answer instead of a backend when the route answers itself', () => {
    expect(formatRoute(base)).toBe('https://a.example.com/x (Exact, GET) answers 503');
  });

  it('marks a route that is not served, and a default backend', () => {
    expect(formatRoute({ ...base, served: false })).toBe(
      'https://a.example.com/x (Exact, GET) answers 503 [not served]',
    );
    const fallback: ExplainedRoute = {
      ...base,
      isFallback: true,
      tls: false,
      route: { ...base.route, action: { type: 'forward', backends: [{ backend: 'shop/d:80', weight: 1 }] } },
      backends: [{ id: 'shop/d:80', endpoints: 1 }],
    };
    expect(formatRoute(fallback)).toBe('http://a.example.com (default backend) → shop/d:80 (1 endpoint)');
  });
});
