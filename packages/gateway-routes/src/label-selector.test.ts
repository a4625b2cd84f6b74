import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from './index.js';

function matches(selector: unknown, labels: Record<string, string>): boolean {
  const parsed = parseLabelSelector(selector);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.matches(labels);
}

describe('parseLabelSelector', () => {
  it('ANDs matchLabels and matchExpressions', () => {
    const selector = {
      matchLabels: { team: 'a' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'staging'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    expect(matches(selector, { team: 'a', env: 'prod' })).toBe(true);
    expect(matches(selector, { team: 'a', env: 'dev' })).toBe(false);
    expect(matches(selector, { team: 'a', env: 'prod', legacy: '' })).toBe(false);
    expect(matches(selector, { env: 'prod' })).toBe(false);
  });

  it('supports NotIn and Exists', () => {
    expect(matches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, {})).toBe(
      true,
    );
    expect(matches({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }, { env: 'x' })).toBe(true);
    expect(matches({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }, {})).toBe(false);
  });

  it('matches everything with an empty selector', () => {
    expect(matches({}, { any: 'thing' })).toBe(true);
  });

  it('refuses unknown operators and malformed entries', () => {
    expect(parseLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }).ok).toBe(
      false,
    );
    expect(parseLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }).ok).toBe(
      false,
    );
    expect(parseLabelSelector({ matchLabels: { a: 1 } }).ok).toBe(false);
    expect(parseLabelSelector(null).ok).toBe(false);
  });
});
