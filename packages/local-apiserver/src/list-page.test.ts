import { describe, expect, it } from 'vitest';
import { createRegistry, requireResource, catchStatus } from './registry-fixtures.js';

describe('Registry', () => {
  describe('list', () => {
    function seed(count: number) {
      const registry = createRegistry(1000);
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      for (let i = 0; i < count; i++) {
        registry.create(configmaps, i % 2 === 0 ? 'default' : 'kube-system', {
          metadata: { name: `c${String(i).padStart(2, '0')}`, labels: { even: String(i % 2 === 0) } },
        });
      }
      return { registry, configmaps };
    }

    it('pages with limit and continue, keeping the first page resourceVersion and a consistent view', () => {
      const { registry, configmaps } = seed(10);
      const first = registry.list(configmaps, undefined, { limit: 4 });
      expect(first.entries.map((entry) => entry.key)).toEqual([
        'default/c00',
        'default/c02',
        'default/c04',
        'default/c06',
      ]);
      expect(first.remainingItemCount).toBe(6);
      registry.delete(configmaps, 'default', 'c08');
      const second = registry.list(configmaps, undefined, { limit: 4, continue: first.continueToken });
      expect(second.resourceVersion).toBe(first.resourceVersion);
      expect(second.entries.map((entry) => entry.key)).toEqual([
        'default/c08',
        'kube-system/c01',
        'kube-system/c03',
        'kube-system/c05',
      ]);
      const third = registry.list(configmaps, undefined, { limit: 4, continue: second.continueToken });
      expect(third.entries.map((entry) => entry.key)).toEqual(['kube-system/c07', 'kube-system/c09']);
      expect(third.continueToken).toBeUndefined();
    });

    it('filters by namespace and selectors and omits remainingItemCount with selectors', () => {
      const { registry, configmaps } = seed(10);
      const page = registry.list(configmaps, 'kube-system', {
        labelSelector: 'even=false',
        fieldSelector: 'metadata.name!=c01',
        limit: 2,
      });
      expect(page.entries.map((entry) => entry.object.metadata.name)).toEqual(['c03', 'c05']);
      expect(page.remainingItemCount).toBeUndefined();
      expect(page.continueToken).toBeDefined();
      expect(
        catchStatus(() => registry.list(configmaps, undefined, { fieldSelector: 'data.a=1' })),
      ).toMatchObject({
        code: 400,
        message: 'field label not supported: data.a',
      });
    });

    it('serves an exact resourceVersion from history, 410 when it is gone and 504 when it is in the future', () => {
      const { registry, configmaps } = seed(3);
      const rv = registry.currentResourceVersion();
      registry.delete(configmaps, 'default', 'c00');
      const exact = registry.list(configmaps, undefined, {
        resourceVersion: String(rv),
        resourceVersionMatch: 'Exact',
      });
      expect(exact.entries.map((entry) => entry.key)).toEqual([
        'default/c00',
        'default/c02',
        'kube-system/c01',
      ]);
      expect(exact.resourceVersion).toBe(rv);
      expect(registry.list(configmaps, undefined, { resourceVersion: String(rv) }).entries).toHaveLength(2);
      expect(
        catchStatus(() => registry.list(configmaps, undefined, { resourceVersion: '999999' })),
      ).toMatchObject({ code: 504, reason: 'Timeout' });
      registry.expireHistory();
      expect(
        catchStatus(() =>
          registry.list(configmaps, undefined, {
            resourceVersion: String(rv),
            resourceVersionMatch: 'Exact',
          }),
        ),
      ).toMatchObject({ code: 410, reason: 'Expired' });
      expect(
        catchStatus(() => registry.list(configmaps, undefined, { resourceVersionMatch: 'Exact' })),
      ).toMatchObject({ code: 422 });
      expect(catchStatus(() => registry.list(configmaps, undefined, { continue: 'garbage!' }))).toMatchObject(
        {
          code: 400,
        },
      );
    });
  });
});
