import type { CustomObject, EndpointSlice, Ingress, IngressClass, Service } from '@ingresskit/store';
import { describe, expect, it } from 'vitest';
import { explainIngress, formatExplanation, formatRoute } from './explain.js';
import { planSync, type ClusterObjects } from './sync-plan.js';

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

const options = { classConfig: {}, checksumEnabled: false, now: Date.UTC(2026, 0, 2) };

describe('explainIngress', () => {
  it('lists the routes and the decision when the Ingress is ours', () => {
    const plan = planSync(
      objects([ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
      options,
    );
    const explanation = explainIngress(plan, 'shop/cart');
    expect(explanation).toMatchObject({
      ingress: 'shop/cart',
      found: true,
      owned: true,
      decision: { className: 'nginx', via: 'ingressClassName' },
      routesFrom: 'planned',
      problems: [],
    });
    expect(explanation.routes).toEqual([
      {
        host: 'shop.example.com',
        path: '/',
        pathType: 'Prefix',
        backend: 'shop/web:80',
        endpoints: 2,
        tls: false,
      },
    ]);
    expect(explanation.explanation).toContain('Ingress shop/cart is served as class "nginx"');
  });

  it('says whose it is and has no routes when another controller owns the class', () => {
    const plan = planSync(
      objects([ingress('other', { className: 'traefik', host: 'other.example.com' })]),
      options,
    );
    const explanation = explainIngress(plan, 'shop/other');
    expect(explanation.owned).toBe(false);
    expect(explanation.decision).toMatchObject({
      reason: 'class-other-controller',
      controller: 'traefik.io/ingress-controller',
    });
    expect(explanation.routes).toEqual([]);
    expect(explanation.explanation).toContain('traefik.io/ingress-controller');
  });

  it('serves a class-less Ingress through the default class when the default is ours', () => {
    const plan = planSync(objects([ingress('legacy', { host: 'legacy.example.com' })]), options);
    expect(explainIngress(plan, 'shop/legacy').decision).toMatchObject({
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
    const plan = planSync(
      objects([broken, ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
      options,
    );
    const explanation = explainIngress(plan, 'shop/broken');
    expect(explanation.owned).toBe(true);
    expect(explanation.routes).toEqual([]);
    expect(explanation.problems).toHaveLength(1);
    expect(explanation.problems[0]).toMatchObject({ severity: 'error', value: 'forever' });
    expect(explainIngress(plan, 'shop/cart').routes).toHaveLength(1);
  });

  it('answers not found when the Ingress does not exist', () => {
    const plan = planSync(objects([]), options);
    expect(explainIngress(plan, 'shop/ghost')).toMatchObject({ found: false, owned: false, routes: [] });
  });

  it('takes the routes from the running configuration when one is given', () => {
    const before = planSync(objects([]), options);
    const after = planSync(
      objects([ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
      options,
    );
    const explanation = explainIngress(after, 'shop/cart', before.build.configuration);
    expect(explanation.routesFrom).toBe('running');
    expect(explanation.routes).toEqual([]);
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
    const plan = planSync(objects([versioned], [published]), { ...options, checksumEnabled: true });
    expect(plan.checksum).toMatchObject({
      ok: false,
      ids: ['7-2'],
      diff: { localOnly: ['7-2'], publishedOnly: ['7-1'] },
    });
    expect(explainIngress(plan, 'shop/cart-7').checksum?.ok).toBe(false);
  });
});

describe('formatExplanation', () => {
  it('prints the decision, the routes and the problems as text', () => {
    const broken = ingress('broken', {
      className: 'nginx',
      host: 'broken.example.com',
      annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': 'forever' },
    });
    const plan = planSync(
      objects([broken, ingress('cart', { className: 'nginx', host: 'shop.example.com' })]),
      options,
    );
    const served = formatExplanation(explainIngress(plan, 'shop/cart'));
    expect(served).toContain('Ingress shop/cart\n  Owned:       yes, as class "nginx" (ingressClassName)');
    expect(served).toContain('http://shop.example.com/ (Prefix) → shop/web:80 (2 endpoints)');
    expect(served).toContain('Problems:    none');
    const text = formatExplanation(explainIngress(plan, 'shop/broken'));
    expect(text).toMatch(
      /error: metadata\.annotations\["nginx\.ingress\.kubernetes\.io\/proxy-read-timeout"\]: .*\(value "forever"\)/,
    );
    expect(formatExplanation(explainIngress(plan, 'shop/ghost'))).toContain('does not exist');
  });
});

describe('formatRoute', () => {
  it('shows a status answer instead of a backend when the location returns one', () => {
    expect(
      formatRoute({
        host: 'a.example.com',
        path: '/x',
        pathType: 'Exact',
        backend: '503',
        endpoints: 0,
        tls: true,
      }),
    ).toBe('https://a.example.com/x (Exact) answers 503');
  });
});
