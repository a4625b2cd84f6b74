import { describe, expect, it } from 'vitest';
import { diffIds } from './index.js';

describe('diffIds', () => {
  it('lists the ids on each side only, sorted by code unit', () => {
    expect(diffIds(['9-1', '10-1', '5-2'], ['5-2', '123992-1', '11-1'])).toEqual({
      localOnly: ['10-1', '9-1'],
      publishedOnly: ['11-1', '123992-1'],
    });
  });

  it('reports nothing when both sides hold the same ids in another order', () => {
    expect(diffIds(['1-1', '2-1'], ['2-1', '1-1'])).toEqual({ localOnly: [], publishedOnly: [] });
  });

  it('counts duplicates, so an extra copy on either side shows up', () => {
    expect(diffIds(['5-1', '5-1', '6-1'], ['5-1', '6-1'])).toEqual({ localOnly: ['5-1'], publishedOnly: [] });
    expect(diffIds(['5-1'], ['5-1', '5-1', '5-1'])).toEqual({ localOnly: [], publishedOnly: ['5-1', '5-1'] });
  });

  it('treats a version bump as one id removed and one added', () => {
    expect(diffIds(['7-2'], ['7-1'])).toEqual({ localOnly: ['7-2'], publishedOnly: ['7-1'] });
  });

  it('handles empty input on either side', () => {
    expect(diffIds([], [])).toEqual({ localOnly: [], publishedOnly: [] });
    expect(diffIds([], ['1-1'])).toEqual({ localOnly: [], publishedOnly: ['1-1'] });
    expect(diffIds(new Set(['1-1']), [])).toEqual({ localOnly: ['1-1'], publishedOnly: [] });
  });

  it('leaves its inputs as they were', () => {
    const local = ['b-1', 'a-1'];
    const published = ['c-1'];
    diffIds(local, published);
    expect(local).toEqual(['b-1', 'a-1']);
    expect(published).toEqual(['c-1']);
  });
});
