import { describe, expect, it } from 'vitest';
import { parseAnnotations } from './annotations.js';
import { createRoutePolicy } from './route-policy.js';
import { DEFAULT_ANNOTATION_PREFIX } from './annotation-types.js';

const P = `${DEFAULT_ANNOTATION_PREFIX}/`;

function parse(annotations: Record<string, string>) {
  return parseAnnotations(Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}${k}`, v])));
}

function limitsOf(annotations: Record<string, string>) {
  const { annotations: parsed, problems } = parse(annotations);
  expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  return createRoutePolicy(parsed!, 'Ingress/shop/cart').clientLimits;
}

describe('limit annotations (parseAnnotations → createRoutePolicy)', () => {
  it('limits rates with ingress-nginx default burst multiplier 5, rpm before rps, refused with 503', () => {
    expect(limitsOf({ 'limit-rps': '10', 'limit-rpm': '300' })).toEqual({
      scope: 'Ingress/shop/cart',
      statusCode: 503,
      rates: [
        { rate: 300, per: 'minute', burst: 1500 },
        { rate: 10, per: 'second', burst: 50 },
      ],
    });
  });

  it('multiplies the burst by limit-burst-multiplier', () => {
    expect(limitsOf({ 'limit-rps': '4', 'limit-burst-multiplier': '2' })?.rates).toEqual([
      { rate: 4, per: 'second', burst: 8 },
    ]);
  });

  it('limits connections and exempts limit-allowlist, which wins over limit-whitelist', () => {
    expect(
      limitsOf({
        'limit-connections': '3',
        'limit-whitelist': '192.168.0.0/16',
        'limit-allowlist': '10.0.0.0/8, 127.0.0.1',
      }),
    ).toEqual({
      scope: 'Ingress/shop/cart',
      statusCode: 503,
      connections: 3,
      exemptSources: ['10.0.0.0/8', '127.0.0.1'],
    });
  });

  it('sets no limit for 0, ingress-nginx "no limit"', () => {
    expect(limitsOf({ 'limit-rps': '0', 'limit-connections': '0' })).toBeUndefined();
  });

  it('warns that limit-burst-multiplier and limit-allowlist do nothing without a limit', () => {
    const { annotations, problems } = parse({
      'limit-burst-multiplier': '3',
      'limit-allowlist': '10.0.0.0/8',
    });
    expect(annotations).toBeDefined();
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        message: expect.stringContaining('"limit-burst-multiplier"'),
      }),
      expect.objectContaining({ severity: 'warning', message: expect.stringContaining('"limit-allowlist"') }),
    ]);
  });

  it.each([
    ['limit-rps', '-1'],
    ['limit-rps', '1.5'],
    ['limit-rps', '5r/s'],
    ['limit-rps', '01'],
    ['limit-rpm', '10000000'],
    ['limit-connections', 'many'],
    ['limit-burst-multiplier', '0'],
    ['limit-burst-multiplier', '1001'],
    ['limit-allowlist', '10.0.0.0/33'],
    ['limit-whitelist', 'everyone'],
  ])('leaves the Ingress out for %s: %j, naming the annotation', (name, value) => {
    const { annotations, problems } = parse({ 'limit-rps': '5', [name]: value });
    expect(annotations).toBeUndefined();
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        field: `metadata.annotations["${P}${name}"]`,
        message: expect.stringContaining(`"${name}"`),
      }),
    ]);
  });
});
