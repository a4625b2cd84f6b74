import { describe, expect, it } from 'vitest';
import { isDefaultIngressClass, pickDefaultIngressClass } from './index.js';
import { jsonShape, ours, shapes, traefik, type ClassFixture } from '../test/shapes.js';

const at = (name: string, created: string | undefined, isDefault = 'true'): ClassFixture => ({
  name,
  controller: ours,
  isDefault,
  ...(created === undefined ? {} : { created }),
});

describe('pickDefaultIngressClass', () => {
  describe.each(shapes)('with $name objects', (shape) => {
    const pick = (...fixtures: ClassFixture[]) =>
      pickDefaultIngressClass(fixtures.map((fixture) => shape.ingressClass(fixture)))?.metadata?.name;

    it.each<[string, ClassFixture[], string | undefined]>([
      ['returns undefined when no class is marked default', [{ name: 'a', controller: ours }], undefined],
      ['returns undefined for an empty list', [], undefined],
      ['picks the only default class', [at('a', '2024-01-01T00:00:00Z')], 'a'],
      [
        'picks the newest creationTimestamp',
        [
          at('old', '2024-01-01T00:00:00Z'),
          at('new', '2024-06-01T00:00:00Z'),
          at('mid', '2024-03-01T00:00:00Z'),
        ],
        'new',
      ],
      [
        'breaks a timestamp tie by the lower name',
        [at('b', '2024-01-01T00:00:00Z'), at('a', '2024-01-01T00:00:00Z')],
        'a',
      ],
      [
        'compares instants, not text, across time zones',
        [at('b', '2024-12-04T11:35:34+08:00'), at('a', '2024-12-04T03:35:34Z')],
        'a',
      ],
      [
        'counts a missing timestamp as the oldest',
        [at('a', undefined), at('z', '2000-01-01T00:00:00Z')],
        'z',
      ],
      [
        'counts an invalid timestamp as the oldest',
        [at('a', 'not a time'), at('z', '2000-01-01T00:00:00Z')],
        'z',
      ],
      [
        'breaks a tie between invalid timestamps by the lower name',
        [at('b', 'bad'), at('a', undefined)],
        'a',
      ],
      [
        'ignores classes marked "True"',
        [at('a', '2030-01-01T00:00:00Z', 'True'), at('b', '2020-01-01T00:00:00Z')],
        'b',
      ],
      ['ignores classes marked "false"', [at('a', '2030-01-01T00:00:00Z', 'false')], undefined],
      ['ignores classes marked with an empty value', [at('a', '2030-01-01T00:00:00Z', '')], undefined],
      ['ignores classes marked " true"', [at('a', '2030-01-01T00:00:00Z', ' true')], undefined],
    ])('%s', (_title, fixtures, expected) => {
      expect(pick(...fixtures)).toBe(expected);
    });

    it('does not depend on the order of the list', () => {
      const fixtures = [at('c', '2024-01-01T00:00:00Z'), at('a', '2024-01-01T00:00:00Z'), at('b', 'bad')];
      const orders = [
        [0, 1, 2],
        [2, 1, 0],
        [1, 2, 0],
        [1, 0, 2],
      ];
      for (const order of orders) expect(pick(...order.map((index) => fixtures[index]!))).toBe('a');
    });

    it('returns the very object it was given', () => {
      const classes = [shape.ingressClass(at('a', '2024-01-01T00:00:00Z'))];
      expect(pickDefaultIngressClass(classes)).toBe(classes[0]);
    });
  });

  it('uses sub-millisecond digits of string timestamps', () => {
    const classes = [
      jsonShape.ingressClass(at('a', '2024-01-01T00:00:00.000001Z')),
      jsonShape.ingressClass(at('b', '2024-01-01T00:00:00.000002Z')),
    ];
    expect(pickDefaultIngressClass(classes)?.metadata?.name).toBe('b');
  });

  it('treats a Date and the same instant as a string as a tie', () => {
    const classes = [
      {
        metadata: {
          name: 'b',
          creationTimestamp: new Date('2024-01-01T00:00:00Z'),
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
      },
      {
        metadata: {
          name: 'a',
          creationTimestamp: '2024-01-01T00:00:00Z',
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
      },
    ];
    expect(pickDefaultIngressClass(classes)?.metadata?.name).toBe('a');
  });

  it('skips a default class without a name', () => {
    const classes = [
      {
        metadata: {
          creationTimestamp: '2030-01-01T00:00:00Z',
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
      },
      jsonShape.ingressClass(at('a', '2020-01-01T00:00:00Z')),
    ];
    expect(pickDefaultIngressClass(classes)?.metadata?.name).toBe('a');
  });
});

describe('isDefaultIngressClass', () => {
  it.each(shapes)('accepts exactly the string "true" with $name objects', (shape) => {
    expect(
      isDefaultIngressClass(shape.ingressClass({ name: 'a', controller: traefik, isDefault: 'true' })),
    ).toBe(true);
    for (const value of ['True', 'TRUE', '1', 'yes', 'true ', '']) {
      expect(isDefaultIngressClass(shape.ingressClass({ name: 'a', isDefault: value }))).toBe(false);
    }
    expect(isDefaultIngressClass(shape.ingressClass({ name: 'a' }))).toBe(false);
  });

  it('rejects an unquoted YAML boolean', () => {
    const parsed = {
      metadata: { annotations: { 'ingressclass.kubernetes.io/is-default-class': true } },
    } as never;
    expect(isDefaultIngressClass(parsed)).toBe(false);
  });
});
