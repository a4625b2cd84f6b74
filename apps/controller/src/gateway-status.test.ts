import { describe, expect, it } from 'vitest';
import type { GatewayStatusDraft, RouteParentStatusDraft } from '@ingresskit/gateway-routes';
import {
  lostHostnamesOf,
  markHostnamesOwnedElsewhere,
  mergeGatewayStatus,
  mergeRouteParents,
  toGatewayAddresses,
} from './gateway-status.js';

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
  const addresses = toGatewayAddresses([{ ip: '10.0.0.1' }, { hostname: 'lb.example.com' }]);

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

describe('routes that lost hostnames to host ownership', () => {
  const owner = { kind: 'Ingress', namespace: 'shop', name: 'store' };
  const notes = [
    {
      type: 'host-owned-elsewhere' as const,
      source: { kind: 'HTTPRoute', namespace: 'evil', name: 'grab' },
      hostname: 'shop.test',
      owner: { tenant: 'shop', source: owner },
    },
    {
      type: 'host-owned-elsewhere' as const,
      source: { kind: 'Ingress', namespace: 'evil', name: 'ing' },
      hostname: 'shop.test',
      owner: { tenant: 'shop', source: owner },
    },
  ];
  const accepted = {
    type: 'Accepted',
    status: 'True' as const,
    reason: 'Accepted',
    message: 'ok',
    observedGeneration: 3,
  };
  const parentRef = { group: 'gateway.networking.k8s.io', kind: 'Gateway', namespace: 'evil', name: 'edge' };

  it('finds the HTTPRoutes among the notes, by route', () => {
    expect(lostHostnamesOf(notes)).toEqual(
      new Map([['evil/grab', [{ hostname: 'shop.test', owner, tenant: 'shop' }]]]),
    );
  });

  it('marks every parent of such a route PartiallyInvalid, after its own invalid rules, and leaves the others', () => {
    const entries = [
      {
        namespace: 'evil',
        name: 'grab',
        parents: [{ parentRef, controllerName: CONTROLLER, conditions: [accepted] }],
      },
      {
        namespace: 'evil',
        name: 'fine',
        parents: [{ parentRef, controllerName: CONTROLLER, conditions: [accepted] }],
      },
    ];
    const [grab, fine] = markHostnamesOwnedElsewhere(entries, lostHostnamesOf(notes));
    expect(fine).toBe(entries[1]);
    expect(grab?.parents[0]?.conditions).toEqual([
      accepted,
      {
        type: 'PartiallyInvalid',
        status: 'True',
        reason: 'HostnameOwnedElsewhere',
        message:
          "host shop.test belongs to namespace shop, whose Ingress shop/store is the oldest to name it; this route's rules for it are not served (--allow-cross-namespace-hosts)",
        observedGeneration: 3,
      },
    ]);
    const invalid = {
      type: 'PartiallyInvalid',
      status: 'True' as const,
      reason: 'UnsupportedValue',
      message: 'rules left out: r1',
    };
    const both = markHostnamesOwnedElsewhere(
      [
        {
          ...entries[0]!,
          parents: [{ parentRef, controllerName: CONTROLLER, conditions: [accepted, invalid] }],
        },
      ],
      lostHostnamesOf(notes),
    );
    expect(both[0]?.parents[0]?.conditions[1]).toMatchObject({
      reason: 'UnsupportedValue',
      message: expect.stringMatching(/^rules left out: r1; host shop.test belongs/),
    });
  });
});
