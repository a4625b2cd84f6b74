import { describe, expect, it } from 'vitest';
import { createRegistry, requireResource, catchStatus, collect } from './registry-fixtures.js';

describe('Registry', () => {
  describe('watch', () => {
    it('sends current objects as ADDED for an unset resourceVersion, then live changes', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'a' } });
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, undefined, subscriber);
      registry.create(configmaps, 'default', { metadata: { name: 'b' } });
      registry.patch(configmaps, 'default', 'b', 'merge', { data: { x: 'y' } });
      registry.delete(configmaps, 'default', 'a');
      const rv = String(registry.currentResourceVersion());
      expect(events.map((event) => `${event.type} ${event.name}`)).toEqual([
        'ADDED a',
        'ADDED b',
        'MODIFIED b',
        'DELETED a',
      ]);
      expect(events.at(-1)?.rv).toBe(rv);
    });

    it('replays history after a resourceVersion and refuses one older than the history', () => {
      const registry = createRegistry(2);
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      const start = String(registry.currentResourceVersion());
      registry.create(configmaps, 'default', { metadata: { name: 'a' } });
      const afterA = String(registry.currentResourceVersion());
      registry.create(configmaps, 'default', { metadata: { name: 'b' } });
      registry.create(configmaps, 'default', { metadata: { name: 'c' } });
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, afterA, subscriber);
      expect(events.map((event) => event.name)).toEqual(['b', 'c']);
      expect(
        catchStatus(() => registry.watch(configmaps, start, collect(configmaps, registry).subscriber)),
      ).toMatchObject({
        code: 410,
        reason: 'Expired',
        message: `too old resource version: ${start} (${afterA})`,
      });
    });

    it('turns selector transitions into ADDED and DELETED', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      registry.create(configmaps, 'default', { metadata: { name: 'a', labels: { app: 'x' } } });
      const { events, subscriber } = collect(configmaps, registry, { labelSelector: 'app=web' });
      registry.watch(configmaps, String(registry.currentResourceVersion()), subscriber);
      registry.patch(configmaps, 'default', 'a', 'merge', { metadata: { labels: { app: 'web' } } });
      registry.patch(configmaps, 'default', 'a', 'merge', { data: { k: 'v' } });
      registry.patch(configmaps, 'default', 'a', 'merge', { metadata: { labels: { app: 'other' } } });
      expect(events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(events[2]?.rv).toBe(String(registry.currentResourceVersion()));
    });

    it('ends watches on dropWatches', () => {
      const registry = createRegistry();
      const configmaps = requireResource(registry, '', 'v1', 'configmaps');
      const { events, subscriber } = collect(configmaps, registry);
      registry.watch(configmaps, undefined, subscriber);
      expect(registry.countWatches()).toBe(1);
      expect(registry.dropWatches()).toBe(1);
      expect(events).toEqual([{ type: 'END', name: '', rv: '' }]);
      expect(registry.countWatches()).toBe(0);
    });
  });
});
