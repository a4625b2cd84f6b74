import { describe, expect, it } from 'vitest';
import { fromEventsV1, toEventsV1 } from './event-conversion.js';
import type { KubeObject } from './objects.js';

describe('toEventsV1', () => {
  it('renames the core fields and round-trips through fromEventsV1', () => {
    const core: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Ingress', name: 'a' },
      message: 'hello',
      reason: 'Sync',
      type: 'Normal',
      count: 3,
      source: { component: 'ingresskit' },
      reportingComponent: 'ingresskit.dev/controller',
    };
    const view = toEventsV1(core);
    expect(view).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: core.metadata,
      reason: 'Sync',
      type: 'Normal',
      regarding: { kind: 'Ingress', name: 'a' },
      note: 'hello',
      reportingController: 'ingresskit.dev/controller',
      deprecatedSource: { component: 'ingresskit' },
      deprecatedCount: 3,
    });
    expect(fromEventsV1(view)).toEqual(core);
  });
});
