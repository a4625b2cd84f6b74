import { backendIdsOfRoute } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { parseControllerConfigMap } from './ingress-nginx-configmap.js';
import { resolveServiceBackend } from './service-backend.js';
import { hostOf } from './testing/assemble.js';
import { endpointSlice, ingress, path, secrets, service } from './testing/fixtures.js';
import { translateIngress } from './translate-ingress.js';
import type { IngressTranslationConfig } from './types.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function translate(annotations: Record<string, string>, config: IngressTranslationConfig = {}) {
  const object = ingress(
    'cart',
    { 'shop.example.com': [path('/', 'Prefix', 'app', 8080), path('/api', 'Prefix', 'api', 'grpc')] },
    {
      namespace: 'shop',
      annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])),
    },
  );
  return translateIngress(object, secrets(), config);
}

const GLOBAL: IngressTranslationConfig = { defaultBackend: { namespace: 'ops', name: 'errors', port: 80 } };

describe('custom-http-errors and default-backend (translateIngress)', () => {
  it("sends the Ingress's statuses to its default-backend, then to the controller's, naming each route's Service", () => {
    const translation = translate(
      { 'custom-http-errors': '503, 404,404', 'default-backend': 'pages' },
      GLOBAL,
    );
    expect(translation.problems).toEqual([]);
    const [root, api] = hostOf(translation, 'shop.example.com')
      .routes.slice()
      .sort((a, b) => a.id.localeCompare(b.id));
    expect(root!.policy.customErrors).toEqual({
      statuses: [404, 503],
      backends: ['shop/pages:0', 'ops/errors:80'],
      headers: [
        { name: 'X-Namespace', value: 'shop' },
        { name: 'X-Ingress-Name', value: 'cart' },
        { name: 'X-Service-Name', value: 'app' },
        { name: 'X-Service-Port', value: '8080' },
      ],
    });
    expect(api!.policy.customErrors?.headers).toContainEqual({ name: 'X-Service-Port', value: 'grpc' });
    // The route refers to its error backends, so the controller resolves them.
    expect(backendIdsOfRoute(root!)).toEqual([
      'shop/app:8080',
      'shop/pages:0',
      'shop/pages:0',
      'ops/errors:80',
    ]);
    expect(translation.references.services).toContain('shop/pages');
  });

  it('makes default-backend alone the backend of routes whose Service has no endpoints', () => {
    const translation = translate({ 'default-backend': 'pages' });
    const route = hostOf(translation, 'shop.example.com').routes[0]!;
    expect(route.policy.noEndpointsBackend).toBe('shop/pages:0');
    expect(route.policy.customErrors).toBeUndefined();
  });

  it('warns when intercepted answers have no backend, as they then become 404', () => {
    const translation = translate({ 'custom-http-errors': '404' });
    expect(hostOf(translation, 'shop.example.com').routes[0]!.policy.customErrors?.backends).toEqual([]);
    expect(translation.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        field: `metadata.annotations["${P}custom-http-errors"]`,
      }),
    ]);
  });

  it.each([['404,302'], ['600'], ['abc'], [''], ['404;500'], ['404,499']])(
    'leaves the Ingress out for custom-http-errors %j (499: nginx cannot intercept it)',
    (value) => {
      const translation = translate({ 'custom-http-errors': value });
      expect(translation.contribution).toBeUndefined();
      expect(translation.problems).toContainEqual(
        expect.objectContaining({
          severity: 'error',
          field: `metadata.annotations["${P}custom-http-errors"]`,
        }),
      );
    },
  );

  it("lets the backend's own answers through with disable-proxy-intercept-errors", () => {
    const translation = translate(
      { 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'true', 'default-backend': 'pages' },
      GLOBAL,
    );
    expect(translation.problems).toEqual([]);
    const route = hostOf(translation, 'shop.example.com').routes[0]!;
    expect(route.policy.customErrors).toMatchObject({ statuses: [404], passBackendErrors: true });
    const off = translate({ 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'false' }, GLOBAL);
    expect(hostOf(off, 'shop.example.com').routes[0]!.policy.customErrors?.passBackendErrors).toBeUndefined();
  });

  it("warns that disable-proxy-intercept-errors does nothing to the ConfigMap's statuses, which stay intercepted", () => {
    const { settings } = parseControllerConfigMap({ 'custom-http-errors': '404' });
    const config = { ...GLOBAL, annotationDefaults: settings.translation.annotationDefaults };
    const translation = translate({ 'disable-proxy-intercept-errors': 'true' }, config);
    expect(translation.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        field: `metadata.annotations["${P}disable-proxy-intercept-errors"]`,
      }),
    ]);
    const errors = hostOf(translation, 'shop.example.com').routes[0]!.policy.customErrors;
    expect(errors?.statuses).toEqual([404]);
    expect(errors?.passBackendErrors).toBeUndefined();
  });

  it('leaves the Ingress out for a disable-proxy-intercept-errors that is no boolean', () => {
    const translation = translate({ 'custom-http-errors': '404', 'disable-proxy-intercept-errors': 'yes' });
    expect(translation.contribution).toBeUndefined();
    expect(translation.problems).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${P}disable-proxy-intercept-errors"]`,
      }),
    );
  });

  it('leaves the Ingress out for a default-backend that is not a Service name', () => {
    expect(translate({ 'default-backend': 'other/pages' }).contribution).toBeUndefined();
  });

  it("applies the ConfigMap's statuses to Ingresses without the annotation, answered by the controller's default backend only", () => {
    const { settings, problems } = parseControllerConfigMap({ 'custom-http-errors': '404,500' });
    expect(problems).toEqual([]);
    const config = { ...GLOBAL, annotationDefaults: settings.translation.annotationDefaults };
    const withDefault = translate({ 'default-backend': 'pages' }, config);
    expect(hostOf(withDefault, 'shop.example.com').routes[0]!.policy.customErrors).toMatchObject({
      statuses: [404, 500],
      backends: ['ops/errors:80'],
    });
    // The annotation replaces the ConfigMap's list.
    const own = translate({ 'custom-http-errors': '503' }, config);
    expect(hostOf(own, 'shop.example.com').routes[0]!.policy.customErrors?.statuses).toEqual([503]);
  });

  it('refuses a ConfigMap custom-http-errors outside 400-599, keeping the last valid value', () => {
    const { settings, problems } = parseControllerConfigMap(
      { 'custom-http-errors': '301' },
      {
        'custom-http-errors': '404',
      },
    );
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'error', field: 'data["custom-http-errors"]' }),
    ]);
    expect(settings.translation.annotationDefaults.defaultCustomHttpErrors).toEqual([404]);
  });
});

describe('resolveServiceBackend of a default-backend', () => {
  it("resolves the Service's first port", () => {
    const resolved = resolveServiceBackend(
      { namespace: 'default', name: 'pages', port: 0 },
      service('pages', [
        { name: 'web', port: 8080 },
        { name: 'admin', port: 9090 },
      ]),
      [endpointSlice('pages', 3000, ['10.0.0.5'], { portName: 'web' })],
    );
    expect(resolved).toEqual({
      backend: { id: 'default/pages:0', endpoints: [{ address: '10.0.0.5', port: 3000 }] },
    });
    const none = resolveServiceBackend(
      { namespace: 'default', name: 'pages', port: 0 },
      service('pages', []),
      [],
    );
    expect(none.problem).toContain('has no ports');
  });
});
