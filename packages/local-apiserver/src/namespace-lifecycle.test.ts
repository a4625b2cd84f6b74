import { describe, expect, it } from 'vitest';
import { createRegistry, requireResource, catchStatus } from './registry-fixtures.js';

describe('Registry', () => {
  describe('namespaces', () => {
    it('empties a namespace, then removes it', () => {
      const registry = createRegistry();
      const namespaces = requireResource(registry, '', 'v1', 'namespaces');
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      registry.create(namespaces, undefined, { metadata: { name: 'team' } });
      registry.create(configmaps, 'team', { metadata: { name: 'c' } });
      registry.create(configmaps, 'team', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
      const result = registry.delete(namespaces, undefined, 'team');
      expect(result.entry.object.status).toEqual({ phase: 'Terminating' });
      expect(
        catchStatus(() => registry.create(configmaps, 'team', { metadata: { name: 'new' } })),
      ).toMatchObject({ code: 403, reason: 'Forbidden' });
      expect(registry.list(configmaps, 'team').entries.map((entry) => entry.object.metadata.name)).toEqual([
        'held',
      ]);
      registry.patch(configmaps, 'team', 'held', 'merge', { metadata: { finalizers: null } });
      expect(registry.find(namespaces, undefined, 'team')).toBeUndefined();
    });
  });
});
