import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { A, ingress, path, secrets } from './testing/fixtures.js';
import { translateIngress } from './translate-ingress.js';

function parse(annotations: Record<string, string>) {
  return parseAnnotations(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${A}${k}`, v])));
}

describe('canary annotations (parseAnnotations)', () => {
  it('makes the rule from the header, its value, the cookie and the weight out of 100 by default', () => {
    const { annotations, problems } = parse({
      canary: 'true',
      'canary-by-header': 'X-Canary',
      'canary-by-header-value': 'yes please',
      'canary-by-cookie': 'beta',
      'canary-weight': '20',
    });
    expect(problems).toEqual([]);
    expect(annotations?.canary).toEqual({
      header: { name: 'X-Canary', value: 'yes please' },
      cookie: 'beta',
      weight: 20,
      weightTotal: 100,
    });
  });

  it('ignores the pattern beside a value, as ingress-nginx does, with a warning', () => {
    const { annotations, problems } = parse({
      canary: 'true',
      'canary-by-header': 'X-Env',
      'canary-by-header-value': 'qa',
      'canary-by-header-pattern': '^dev$',
    });
    expect(annotations?.canary?.header).toEqual({ name: 'X-Env', value: 'qa' });
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('is ignored') }),
    ]);
  });

  it('keeps a pattern when there is no value', () => {
    expect(
      parse({ canary: 'true', 'canary-by-header': 'X-Env', 'canary-by-header-pattern': '^(qa|dev)$' })
        .annotations?.canary?.header,
    ).toEqual({
      name: 'X-Env',
      pattern: '^(qa|dev)$',
    });
  });

  it('reads affinity-canary-behavior on the canary: legacy in the rule, sticky as the default', () => {
    expect(
      parse({ canary: 'true', 'affinity-canary-behavior': 'legacy' }).annotations?.canary?.affinity,
    ).toBe('legacy');
    const sticky = parse({ canary: 'true', 'affinity-canary-behavior': 'sticky' });
    expect(sticky.problems).toEqual([]);
    expect(sticky.annotations?.canary?.affinity).toBeUndefined();
    const main = parse({ 'affinity-canary-behavior': 'legacy' });
    expect(main.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        field: `metadata.annotations["${A}affinity-canary-behavior"]`,
      }),
    ]);
  });

  it('warns that canary-* do nothing without canary "true"', () => {
    const { annotations, problems } = parse({ canary: 'false', 'canary-weight': '50' });
    expect(annotations?.canary).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({ severity: 'warning', field: `metadata.annotations["${A}canary-weight"]` }),
    ]);
  });

  it.each([
    [{ 'canary-by-header': 'X Canary' }, 'canary-by-header'],
    [{ 'canary-by-header': 'X-Env', 'canary-by-header-pattern': '(?=x)' }, 'canary-by-header-pattern'],
    [{ 'canary-by-cookie': 'a=b' }, 'canary-by-cookie'],
    [{ 'canary-weight': '-1' }, 'canary-weight'],
    [{ 'canary-weight': '101' }, 'canary-weight'],
    [{ 'canary-weight': '5', 'canary-weight-total': '0' }, 'canary-weight-total'],
    [{ 'affinity-canary-behavior': 'Legacy' }, 'affinity-canary-behavior'],
  ])('leaves the Ingress out for %j, naming %s', (extra, name) => {
    const { annotations, problems } = parse({ canary: 'true', ...extra });
    expect(annotations).toBeUndefined();
    expect(problems).toContainEqual(
      expect.objectContaining({ severity: 'error', field: `metadata.annotations["${A}${name}"]` }),
    );
  });
});

describe('translateIngress of a canary Ingress', () => {
  it('contributes its paths as canaries only, without its other annotations, hosts or certificates', () => {
    const result = translateIngress(
      ingress(
        'beta',
        { 'shop.test': [path('/cart', 'Prefix', 'cart-beta')] },
        {
          annotations: {
            [`${A}canary`]: 'true',
            [`${A}canary-weight`]: '10',
            [`${A}rewrite-target`]: '/other',
            [`${A}whitelist-source-range`]: '10.0.0.0/8',
          },
          tls: [{ hosts: ['shop.test'], secretName: 'tls' }],
        },
      ),
      secrets(),
    );
    const contribution = result.contribution!;
    expect(contribution.tls).toEqual([]);
    expect(contribution.hosts).toEqual([
      {
        hostname: 'shop.test',
        routes: [],
        canaries: [
          {
            route: expect.objectContaining({
              match: { path: { type: 'PathPrefix', value: '/cart' } },
              action: { type: 'forward', backends: [{ backend: 'default/cart-beta:80', weight: 1 }] },
              policy: {},
            }),
            rule: { weight: 10, weightTotal: 100 },
          },
        ],
      },
    ]);
  });
});
