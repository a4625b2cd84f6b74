import { describe, expect, it } from 'vitest';
import {
  lostHostnamesOf,
  markHostnamesOwnedElsewhere,
  markListenersOwnedElsewhere,
} from './hostnames-owned-elsewhere.js';
import type { ConditionDraft, GatewayStatusEntry } from './types.js';

const CONTROLLER = 'ingresskit.dev/gateway-controller';

describe('lostHostnamesOf and markHostnamesOwnedElsewhere', () => {
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

  it('marks a route that lost a hostname to a host limit HostLimitExceeded, with the reason', () => {
    const limited = [
      {
        type: 'host-limit-exceeded' as const,
        source: { kind: 'HTTPRoute', namespace: 'evil', name: 'many' },
        hostname: 'evil.test',
        reason: 'its regex paths would need 20 regex matches',
      },
    ];
    const lost = lostHostnamesOf(limited);
    expect(lost).toEqual(
      new Map([
        ['evil/many', [{ hostname: 'evil.test', limit: 'its regex paths would need 20 regex matches' }]],
      ]),
    );
    const [many] = markHostnamesOwnedElsewhere(
      [
        {
          namespace: 'evil',
          name: 'many',
          parents: [{ parentRef, controllerName: CONTROLLER, conditions: [accepted] }],
        },
      ],
      lost,
    );
    expect(many?.parents[0]?.conditions[1]).toEqual({
      type: 'PartiallyInvalid',
      status: 'True',
      reason: 'HostLimitExceeded',
      message:
        "host evil.test: its regex paths would need 20 regex matches; older routes of the host keep theirs, and this route's rules for it are not served",
      observedGeneration: 3,
    });
  });
});

describe('markListenersOwnedElsewhere', () => {
  const wildcardOwner = { kind: 'Gateway', namespace: 'shop', name: 'edge' };
  const notes = [
    {
      type: 'host-owned-elsewhere' as const,
      source: { kind: 'Gateway', namespace: 'evil', name: 'gw' },
      hostname: 'pay.apps.test',
      owner: { tenant: 'shop', source: wildcardOwner, via: '*.apps.test' },
    },
  ];
  const condition = (type: string, status: 'True' | 'False', reason: string): ConditionDraft => ({
    type,
    status,
    reason,
    message: reason,
    observedGeneration: 2,
  });
  const listener = (name: string, ready: boolean) => ({
    name,
    supportedKinds: [],
    attachedRoutes: 1,
    conditions: [
      condition('Accepted', 'True', 'Accepted'),
      condition('Conflicted', 'False', 'NoConflicts'),
      condition('ResolvedRefs', 'True', 'ResolvedRefs'),
      ready ? condition('Programmed', 'False', 'Pending') : condition('Programmed', 'False', 'Invalid'),
    ],
  });
  const entry = (names: [string, string | undefined, boolean][]): GatewayStatusEntry => ({
    namespace: 'evil',
    name: 'gw',
    status: {
      conditions: [condition('Accepted', 'True', 'Accepted'), condition('Programmed', 'False', 'Pending')],
      listeners: names.map(([name, , ready]) => listener(name, ready)),
    },
    listenerHostnames: names.map(([, hostname]) => hostname),
  });
  const summary = (conditions: readonly ConditionDraft[]) =>
    Object.fromEntries(conditions.map(({ type, status, reason }) => [type, `${status} ${reason}`]));

  it('marks the listeners of a lost hostname Conflicted and not programmed, naming the owner', () => {
    const [marked] = markListenersOwnedElsewhere(
      [
        entry([
          ['pay', 'pay.apps.test', true],
          ['other', 'other.test', true],
          ['any', undefined, true],
        ]),
      ],
      lostHostnamesOf(notes, 'Gateway'),
    );
    const [pay, other] = marked!.status.listeners;
    expect(summary(pay!.conditions)).toEqual({
      Accepted: 'True Accepted',
      Conflicted: 'True HostnameConflict',
      ResolvedRefs: 'True ResolvedRefs',
      Programmed: 'False Invalid',
    });
    expect(pay!.conditions.find(({ type }) => type === 'Conflicted')).toMatchObject({
      observedGeneration: 2,
      message:
        'host pay.apps.test belongs to namespace shop, whose Gateway shop/edge is the oldest to name it (through its wildcard *.apps.test); this listener serves nothing for it (--allow-cross-namespace-hosts)',
    });
    expect(other).toEqual(listener('other', true));
    expect(summary(marked!.status.conditions)).toEqual({
      Accepted: 'True ListenersNotValid',
      Programmed: 'False Pending',
    });
    expect(marked!.status.conditions[0]!.message).toMatch(
      /^listeners other, any are accepted; not valid: pay \(host pay/,
    );
  });

  it('leaves the Gateway unaccepted when no listener is left, and entries without losses as they are', () => {
    const lone = entry([['pay', 'pay.apps.test', true]]);
    const untouched = { ...entry([['pay', 'pay.apps.test', true]]), name: 'fine' };
    const [marked, same] = markListenersOwnedElsewhere([lone, untouched], lostHostnamesOf(notes, 'Gateway'));
    expect(summary(marked!.status.conditions)).toEqual({
      Accepted: 'False ListenersNotValid',
      Programmed: 'False Invalid',
    });
    expect(same).toBe(untouched);
    // A listener already invalid keeps its own reasons.
    const [invalid] = markListenersOwnedElsewhere(
      [entry([['pay', 'pay.apps.test', false]])],
      lostHostnamesOf(notes, 'Gateway'),
    );
    expect(summary(invalid!.status.listeners[0]!.conditions).Conflicted).toBe('False NoConflicts');
  });
});
