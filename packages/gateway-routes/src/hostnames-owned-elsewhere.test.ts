import { describe, expect, it } from 'vitest';
import { lostHostnamesOf, markHostnamesOwnedElsewhere } from './hostnames-owned-elsewhere.js';

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
