import type { Route, RouteTable } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import type { RequestSeries } from './request-metrics.js';
import { labelSeriesOf } from './request-series-labels.js';

const controller = {
  controller_namespace: 'ingress',
  controller_class: 'k8s.io/ingress',
  controller_pod: 'pod-1',
};

const route = (id: string, path: string, origin: Route['origin'], action: Route['action']): Route => ({
  id,
  origin,
  match: { path: { type: 'PathPrefix', value: path } },
  action,
  policy: {},
});

const origin = (kind: string, namespace: string, name: string): Route['origin'] => ({
  kind,
  namespace,
  name,
  createdAt: 0,
  index: [],
});

const forward = (...backends: string[]): Route['action'] => ({
  type: 'forward',
  backends: backends.map((backend) => ({ backend, weight: 1 })),
});

// A partial table: only what the labels are read from.
const table = {
  virtualHosts: [
    {
      hostname: 'shop.test',
      routes: [
        route('r-cart', '/cart', origin('Ingress', 'shop', 'cart'), forward('shop/cart:80')),
        route('r-split', '/split', origin('Ingress', 'shop', 'split'), {
          ...forward('shop/main:80'),
          canary: { backends: [{ backend: 'shop/canary:80', weight: 1 }] },
        } as Route['action']),
        route('r-http', '/h', origin('HTTPRoute', 'web', 'h'), forward('web/h:8080')),
      ],
      fallbackRoute: route('r-default', '/', origin('Controller', '', 'default-backend'), forward('x/y:80')),
    },
  ],
} as unknown as RouteTable;

const series = (route: string, backend = '', host = 'shop.test'): RequestSeries => ({
  route,
  status: '200',
  method: 'GET',
  backend,
  host,
  requests: 1,
  histograms: {},
});

const serviceOf = (backend: string) => backend.replace(/^[^/]*\/([^:]*):.*$/, '$1');

describe('labelSeriesOf', () => {
  it("names a series' path, namespace, Ingress and Service, then its host and the controller's labels", () => {
    const labelsOf = labelSeriesOf(table, controller, { serviceOf });
    const labels = labelsOf(series('r-cart'));
    expect(labels).toEqual({
      status: '200',
      method: 'GET',
      path: '/cart',
      namespace: 'shop',
      ingress: 'cart',
      service: 'cart',
      canary: '',
      host: 'shop.test',
      ...controller,
    });
    expect(Object.keys(labels!)).toEqual([
      'status',
      'method',
      'path',
      'namespace',
      'ingress',
      'service',
      'canary',
      'host',
      'controller_namespace',
      'controller_class',
      'controller_pod',
    ]);
  });

  it('names the canary backend a split chose, and leaves the ingress label empty for an HTTPRoute', () => {
    const labelsOf = labelSeriesOf(table, controller, { serviceOf });
    expect(labelsOf(series('r-split', 'shop/canary:80'))).toMatchObject({
      service: 'canary',
      canary: 'shop/canary:80',
    });
    expect(labelsOf(series('r-split'))).toMatchObject({ service: 'main', canary: '' });
    expect(labelsOf(series('r-http'))).toMatchObject({ namespace: 'web', ingress: '', service: 'h' });
  });

  it('labels the service with the backend id when no serviceOf is given', () => {
    expect(labelSeriesOf(table, controller)(series('r-cart'))).toMatchObject({ service: 'shop/cart:80' });
  });

  it('gives empty route labels to requests that matched no route or an unrouted one', () => {
    const labelsOf = labelSeriesOf(table, controller, { serviceOf, unroutedRoutes: new Set(['r-default']) });
    const empty = { path: '', namespace: '', ingress: '', service: '', canary: '' };
    expect(labelsOf(series('', '', 'nowhere.test'))).toMatchObject({ ...empty, host: 'nowhere.test' });
    expect(labelsOf(series('r-default'))).toMatchObject(empty);
  });

  it('leaves out the series of routes no longer served, and of routes the series given do not name', () => {
    expect(labelSeriesOf(table, controller)(series('r-gone'))).toBeUndefined();
    const labelsOf = labelSeriesOf(table, controller, {}, [series('r-cart')]);
    expect(labelsOf(series('r-cart'))).toBeDefined();
    expect(labelsOf(series('r-http'))).toBeUndefined();
  });

  it('drops the host label with perHost false', () => {
    const labels = labelSeriesOf(table, controller, { perHost: false })(series('r-cart'));
    expect(labels).not.toHaveProperty('host');
    expect(labels).toMatchObject(controller);
  });
});
