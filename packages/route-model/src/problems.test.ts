import { describe, expect, it } from 'vitest';
import { createProblemLog, describeValue, formatProblem } from './problems.js';

describe('createProblemLog', () => {
  it('records errors and warnings in order, each with its code, the object, the field and the value shown as data', () => {
    const object = { kind: 'Ingress', namespace: 'shop', name: 'cart' };
    const log = createProblemLog<'invalid-host' | 'unsupported-annotation'>(object);
    log.error('invalid-host', 'spec.rules[0].host', 'must be a DNS name', 'bad host;');
    log.warning('unsupported-annotation', 'metadata.annotations', 'ignored');
    expect(log.problems).toEqual([
      {
        object,
        field: 'spec.rules[0].host',
        message: 'must be a DNS name',
        severity: 'error',
        value: 'bad host;',
        code: 'invalid-host',
      },
      {
        object,
        field: 'metadata.annotations',
        message: 'ignored',
        severity: 'warning',
        code: 'unsupported-annotation',
      },
    ]);
    expect(formatProblem(log.problems[0]!)).toBe('Ingress shop/cart spec.rules[0].host: must be a DNS name');
  });
});

describe('describeValue', () => {
  it('shows strings as they are, other values as JSON, cut to 256 characters', () => {
    expect(describeValue('x')).toBe('x');
    expect(describeValue({ a: 1 })).toBe('{"a":1}');
    expect(describeValue('y'.repeat(300))).toBe(`${'y'.repeat(256)}…`);
    expect(describeValue(undefined)).toBeUndefined();
  });

  it('names the type of a value JSON cannot show instead of throwing', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(describeValue(cycle)).toBe('object');
    expect(describeValue(10n)).toBe('bigint');
  });
});
