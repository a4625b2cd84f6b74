import { describe, expect, it } from 'vitest';
import { createRouteTableBuilder } from './builder.js';
import { assembleWithinLimit, type HostLimit } from './host-limit.js';
import { createContribution, createForwardRoute, createOrigin } from './testing.js';
import type { AssemblyNote, RouteContribution, VirtualHost } from './types.js';

function ingress(name: string, createdAt: number, hostname: string, count: number): RouteContribution {
  const origin = createOrigin(name, createdAt);
  return createContribution(origin, [
    {
      hostname,
      routes: Array.from({ length: count }, (_, index) =>
        createForwardRoute(`${name}/p${index}`, `/${name}/${index}`, `default/${name}:80`, {
          origin: createOrigin(name, createdAt, [0, index]),
        }),
      ),
    },
  ]);
}

/** At most `most` routes per host. */
function atMost(most: number): HostLimit {
  return (virtualHost: VirtualHost) =>
    virtualHost.routes.length > most ? `holds ${virtualHost.routes.length} routes` : undefined;
}

function limitNotes(notes: AssemblyNote[]): string[] {
  return notes.flatMap((note) =>
    note.type === 'host-limit-exceeded' ? [`${note.source.name}@${note.hostname}: ${note.reason}`] : [],
  );
}

describe('assembleWithinLimit', () => {
  it('assembles once and leaves nothing out within the limit', () => {
    const contributions = [ingress('a', 1, 'h.test', 2), ingress('b', 2, 'h.test', 2)].map((c) => ({
      source: c.source,
      host: c.hosts[0]!,
    }));
    const assembled = assembleWithinLimit('h.test', contributions, undefined, atMost(4));
    expect(assembled.virtualHost?.routes).toHaveLength(4);
    expect(assembled.notes).toEqual([]);
  });

  it('admits sources oldest first, leaving out each that would pass the limit and admitting younger ones that fit', () => {
    const contributions = [
      ingress('young', 4, 'h.test', 1),
      ingress('big', 2, 'h.test', 3),
      ingress('old', 1, 'h.test', 2),
      ingress('mid', 3, 'h.test', 2),
    ].map((c) => ({ source: c.source, host: c.hosts[0]! }));
    const assembled = assembleWithinLimit('h.test', contributions, undefined, atMost(4));
    expect(assembled.virtualHost?.routes.map((route) => route.origin.name).sort()).toEqual([
      'mid',
      'mid',
      'old',
      'old',
    ]);
    expect(limitNotes(assembled.notes)).toEqual([
      'big@h.test: holds 5 routes',
      'young@h.test: holds 5 routes',
    ]);
  });
});

describe('createRouteTableBuilder hostLimit', () => {
  it('keeps the older Ingress when a younger one would pass the limit, and lets it in once there is room', () => {
    const builder = createRouteTableBuilder({ hostLimit: atMost(3) });
    builder.setContribution(ingress('old', 1, 'h.test', 2));
    builder.setContribution(ingress('new', 2, 'h.test', 2));
    builder.commit();
    expect(builder.virtualHost('h.test')?.routes.map((route) => route.id)).toEqual(['old/p0', 'old/p1']);
    expect(limitNotes(builder.notes())).toEqual(['new@h.test: holds 4 routes']);
    builder.setContribution(ingress('old', 1, 'h.test', 1));
    builder.commit();
    expect(builder.virtualHost('h.test')?.routes).toHaveLength(3);
    expect(builder.notes()).toEqual([]);
  });

  it('previews what a contribution would get without changing the table', () => {
    const builder = createRouteTableBuilder({ hostLimit: atMost(3) });
    builder.setContribution(ingress('old', 1, 'h.test', 2));
    builder.commit();
    // An object not created yet has no creation time: it counts as the youngest.
    const candidate = ingress('candidate', Number.NaN, 'h.test', 2);
    expect(limitNotes(builder.previewHostLimit(candidate))).toEqual(['candidate@h.test: holds 4 routes']);
    expect(builder.previewHostLimit(ingress('small', Number.NaN, 'h.test', 1))).toEqual([]);
    // Its own current version does not count twice.
    expect(builder.previewHostLimit(ingress('old', 1, 'h.test', 3))).toEqual([]);
    expect(builder.virtualHost('h.test')?.routes).toHaveLength(2);
    expect(createRouteTableBuilder().previewHostLimit(candidate)).toEqual([]);
  });
});
