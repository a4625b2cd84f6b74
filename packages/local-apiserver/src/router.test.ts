import { describe, expect, it } from 'vitest';
import { parseRoute } from './router.js';

describe('parseRoute', () => {
  it.each([
    ['/version', { type: 'version' }],
    ['/api', { type: 'apiVersions' }],
    ['/apis', { type: 'apiGroupList' }],
    ['/apis/networking.k8s.io', { type: 'apiGroup', group: 'networking.k8s.io' }],
    ['/api/v1', { type: 'resourceList', group: '', version: 'v1' }],
    ['/apis/networking.k8s.io/v1', { type: 'resourceList', group: 'networking.k8s.io', version: 'v1' }],
    ['/openapi/v3', { type: 'openapiV3', path: '' }],
    ['/openapi/v3/apis/networking.k8s.io/v1', { type: 'openapiV3', path: 'apis/networking.k8s.io/v1' }],
    ['/healthz', { type: 'health' }],
    ['/nope', { type: 'unknown' }],
  ])('maps %s', (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });

  it.each([
    ['/api/v1/pods', { plural: 'pods', namespace: undefined, name: undefined, subresource: undefined }],
    ['/api/v1/namespaces/ns/pods', { plural: 'pods', namespace: 'ns', name: undefined }],
    [
      '/api/v1/namespaces/ns/pods/p/status',
      { plural: 'pods', namespace: 'ns', name: 'p', subresource: 'status' },
    ],
    ['/api/v1/namespaces/ns', { plural: 'namespaces', namespace: undefined, name: 'ns' }],
    ['/api/v1/namespaces/ns/status', { plural: 'namespaces', name: 'ns', subresource: 'status' }],
    ['/api/v1/namespaces', { plural: 'namespaces', name: undefined }],
    ['/apis/networking.k8s.io/v1/ingressclasses/c', { plural: 'ingressclasses', name: 'c' }],
    ['/api/v1/watch/namespaces/ns/pods', { plural: 'pods', namespace: 'ns', isLegacyWatch: true }],
  ])('maps the resource path %s', (path, expected) => {
    expect(parseRoute(path)).toMatchObject({ type: 'resource', ...expected });
  });

  it('rejects paths with extra segments', () => {
    expect(parseRoute('/api/v1/namespaces/ns/pods/p/status/extra')).toEqual({ type: 'unknown' });
  });
});
