import { describe, expect, it } from 'vitest';
import { serializeEntry } from './entries.js';
import { createRegistry, requireResource, catchStatus } from './registry-fixtures.js';

describe('Registry', () => {
  describe('events', () => {
    it('serves one stored Event through both core/v1 and events.k8s.io/v1', () => {
      const registry = createRegistry();
      const core = requireResource(registry, '', 'v1', 'events');
      const modern = requireResource(registry, 'events.k8s.io', 'v1', 'events');
      const created = registry.create(modern, 'default', {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: 'e' },
        regarding: { kind: 'Ingress', name: 'a' },
        note: 'synced',
        reason: 'Sync',
        reportingController: 'ingresskit',
        eventTime: '2024-05-01T10:00:00.000000Z',
      });
      expect(registry.get(core, 'default', 'e').object).toMatchObject({
        involvedObject: { kind: 'Ingress', name: 'a' },
        message: 'synced',
      });
      expect(JSON.parse(serializeEntry(created, modern))).toMatchObject({
        apiVersion: 'events.k8s.io/v1',
        note: 'synced',
        regarding: { name: 'a' },
      });
      expect(registry.list(core, 'default', { fieldSelector: 'involvedObject.name=a' }).entries).toHaveLength(
        1,
      );
    });

    it('answers 400 BadRequest for an events.k8s.io Event whose series time has seven fractional digits', () => {
      const registry = createRegistry();
      const modern = requireResource(registry, 'events.k8s.io', 'v1', 'events');
      const status = catchStatus(() =>
        registry.create(modern, 'default', {
          metadata: { name: 'e' },
          eventTime: '2024-05-01T10:00:00.000000Z',
          series: { count: 2, lastObservedTime: '2024-05-01T10:00:00.1234567Z' },
        }),
      );
      expect(status).toMatchObject({
        code: 400,
        reason: 'BadRequest',
        message:
          'Event in version "v1" cannot be handled as a Event: parsing time "2024-05-01T10:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"',
      });
    });
  });
});
