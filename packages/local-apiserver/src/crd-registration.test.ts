import { describe, expect, it } from 'vitest';
import { serializeEntry } from './entries.js';
import { createRegistry, requireResource, catchStatus, crd } from './registry-fixtures.js';

describe('Registry', () => {
  describe('custom resource definitions', () => {
    it('serves every served version of a CRD from one storage and stops when it is deleted', () => {
      const registry = createRegistry();
      const crds = requireResource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      const twoVersions = {
        ...crd,
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'widgets', kind: 'Widget' },
          versions: [
            { name: 'v1beta1', served: true, storage: false },
            { name: 'v1', served: true, storage: true },
          ],
        },
      };
      const stored = registry.create(crds, undefined, twoVersions);
      expect(stored.object.status).toMatchObject({
        acceptedNames: { plural: 'widgets', kind: 'Widget', listKind: 'WidgetList' },
        storedVersions: ['v1'],
      });
      const v1 = requireResource(registry, 'example.com', 'v1', 'widgets');
      const beta = requireResource(registry, 'example.com', 'v1beta1', 'widgets');
      const created = registry.create(beta, undefined, {
        apiVersion: 'example.com/v1beta1',
        kind: 'Widget',
        metadata: { name: 'w' },
      });
      expect(created.object.apiVersion).toBe('example.com/v1');
      expect(JSON.parse(serializeEntry(created, beta)).apiVersion).toBe('example.com/v1beta1');
      expect(registry.get(v1, undefined, 'w').object.metadata.name).toBe('w');
      registry.delete(crds, undefined, 'widgets.example.com');
      expect(registry.findResource('example.com', 'v1', 'widgets')).toBeUndefined();
    });

    it('rejects a CRD whose name does not match its names and group', () => {
      const registry = createRegistry();
      const crds = requireResource(registry, 'apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
      expect(
        catchStatus(() =>
          registry.create(crds, undefined, { ...crd, metadata: { name: 'wrong.example.com' } }),
        ),
      ).toMatchObject({
        code: 422,
        details: { causes: [{ field: 'metadata.name' }] },
      });
    });
  });
});
