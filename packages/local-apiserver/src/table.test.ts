import { describe, expect, it } from 'vitest';
import { formatAge, wantsTable } from './table.js';

describe('formatAge', () => {
  it.each([
    [5, '5s'],
    [119, '119s'],
    [125, '2m5s'],
    [600, '10m'],
    [3 * 3600 + 60, '3h1m'],
    [30 * 3600, '30h'],
    [3 * 86400 + 3600, '3d1h'],
    [20 * 86400, '20d'],
  ])('%i seconds reads %s', (seconds, text) => {
    expect(formatAge(seconds)).toBe(text);
  });
});

describe('wantsTable', () => {
  it('recognises the Accept header kubectl get sends', () => {
    expect(
      wantsTable(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe(true);
    expect(wantsTable('application/json, */*')).toBe(false);
    expect(wantsTable(undefined)).toBe(false);
  });
});
