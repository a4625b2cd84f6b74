import { describe, expect, it } from 'vitest';
import { mergeGatewayStatus, mergeRouteParents, type GatewayStatusAddress } from './status-merge.js';
import type { GatewayStatusDraft, RouteParentStatusDraft } from './types.js';

const T1 = '2026-01-01T00:00:00Z';
const T2 = '2026-01-02T00:00:00Z';
const CONTROLLER = 'ingresskit.dev/gateway-controller';

function gatewayDraft(programmed: 'True' | 'False', generation = 1): GatewayStatusDraft {
  return {
    conditions: [
      { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'ok', observedGeneration: generation },
      {
        type: 'Programmed',
        status: programmed,
        reason: 'Programmed',
        message: 'ok',
        observedGeneration: generation,
      },
    ],
    listeners: [
      {
        name: 'http',
        supportedKinds: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' }],
        attachedRoutes: 1,
        conditions: [
          {
            type: 'Accepted',
            status: 'True',
            reason: 'Accepted',
            message: 'ok',
            observedGeneration: generation,
          },
        ],
      },
    ],
  };
}

describe('mergeGatewayStatus', () => {
  const addresses: GatewayStatusAddress[] = [
    { type: 'IPAddress', value: '10.0.0.1' },
    { type: 'Hostname', value: 'lb.example.com' },
  ];

  it('stamps lastTransitionTime and the addresses on a Gateway without status', () => {
    const status = mergeGatewayStatus(undefined, gatewayDraft('True'), addresses, T1);
    expect(status?.addresses).toEqual([
      { type: 'IPAddress', value: '10.0.0.1' },
      { type: 'Hostname', value: 'lb.example.com' },
    ]);
    expect(status?.conditions.map((c) => c.lastTransitionTime)).toEqual([T1, T1]);
    expect(status?.listeners[0]?.conditions[0]?.lastTransitionTime).toBe(T1);
  });

  it('returns undefined when the Gateway already has this status, whatever the time', () => {
    const written = mergeGatewayStatus(undefined, gatewayDraft('True'), addresses, T1);
    expect(mergeGatewayStatus(JSON.parse(JSON.stringify(written)), gatewayDraft('True'), addresses, T2)).toBe(
      undefined,
    );
  });

  it('moves lastTransitionTime only for conditions whose status changed', () => {
    const written = mergeGatewayStatus(undefined, gatewayDraft('False'), addresses, T1);
    const next = mergeGatewayStatus(written, gatewayDraft('True', 2), addresses, T2);
    expect(next?.conditions.map((c) => [c.type, c.lastTransitionTime, c.observedGeneration])).toEqual([
      ['Accepted', T1, 2],
      ['Programmed', T2, 2],
    ]);
  });

  it('keeps conditions of other types and drops listeners no longer in the spec', () => {
    const current = {
      conditions: [{ type: 'Example', status: 'True', reason: 'Other', message: '', lastTransitionTime: T1 }],
      listeners: [{ name: 'gone', attachedRoutes: 0, supportedKinds: [], conditions: [] }],
    };
    const next = mergeGatewayStatus(current, gatewayDraft('True'), [], T2);
    expect(next?.conditions.map((c) => c.type)).toEqual(['Example', 'Accepted', 'Programmed']);
    expect(next?.listeners.map((listener) => listener.name)).toEqual(['http']);
    expect(next).not.toHaveProperty('addresses');
  });
});

describe('mergeRouteParents', () => {
  const draft: RouteParentStatusDraft = {
    parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'infra', name: 'edge' },
    controllerName: CONTROLLER,
    conditions: [
      { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'ok', observedGeneration: 1 },
    ],
  };
  const theirs = {
    parentRef: { name: 'other' },
    controllerName: 'example.com/other',
    conditions: [
      { type: 'Accepted', status: 'True', reason: 'Accepted', message: '', lastTransitionTime: T1 },
    ],
  };

  it("leaves other controllers' entries alone and replaces ours", () => {
    const stale = { ...draft, parentRef: { ...draft.parentRef, name: 'old' }, conditions: [] };
    const parents = mergeRouteParents({ parents: [theirs, stale] }, [draft], CONTROLLER, T2);
    expect(parents?.map((entry) => [entry.controllerName, entry.parentRef.name])).toEqual([
      ['example.com/other', 'other'],
      [CONTROLLER, 'edge'],
    ]);
  });

  it('returns undefined when the route already has these parents, and keeps the transition time', () => {
    const first = mergeRouteParents({ parents: [theirs] }, [draft], CONTROLLER, T1);
    const again = JSON.parse(JSON.stringify({ parents: first })) as unknown;
    expect(mergeRouteParents(again, [draft], CONTROLLER, T2)).toBe(undefined);
    const bumped = mergeRouteParents(
      again,
      [{ ...draft, conditions: [{ ...draft.conditions[0]!, observedGeneration: 2 }] }],
      CONTROLLER,
      T2,
    );
    expect(bumped?.[1]?.conditions[0]).toMatchObject({ observedGeneration: 2, lastTransitionTime: T1 });
  });

  it('drops a condition of ours the draft no longer has (PartiallyInvalid once the route is fixed)', () => {
    const invalid = {
      ...draft,
      conditions: [
        ...draft.conditions,
        {
          type: 'PartiallyInvalid',
          status: 'True' as const,
          reason: 'UnsupportedValue',
          message: 'rules left out',
        },
      ],
    };
    const before = mergeRouteParents({ parents: [] }, [invalid], CONTROLLER, T1);
    const fixed = mergeRouteParents({ parents: before }, [draft], CONTROLLER, T2);
    expect(fixed?.[0]?.conditions.map(({ type }) => type)).toEqual(['Accepted']);
  });
});
