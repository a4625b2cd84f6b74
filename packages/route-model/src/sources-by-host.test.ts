import { describe, expect, it } from 'vitest';
import { SourcesByHost } from './sources-by-host.js';

describe('SourcesByHost', () => {
  it('keeps the sources of each hostname in the order they were first set', () => {
    const index = new SourcesByHost<number>();
    index.set('a.example', 'Ingress/ns/one', 1);
    index.set('a.example', 'Ingress/ns/two', 2);
    index.set('a.example', 'Ingress/ns/one', 10);
    index.set('b.example', 'Ingress/ns/three', 3);
    expect(index.sources('a.example')).toEqual([
      ['Ingress/ns/one', 10],
      ['Ingress/ns/two', 2],
    ]);
    expect(index.get('a.example', 'Ingress/ns/two')).toBe(2);
    expect(index.get('b.example', 'Ingress/ns/one')).toBeUndefined();
    expect([...index.hostnames()]).toEqual(['a.example', 'b.example']);
  });

  it('forgets a hostname with its last source, and answers for a lone one after a delete', () => {
    const index = new SourcesByHost<string>();
    index.set('a.example', 'one', 'x');
    index.set('a.example', 'two', 'y');
    index.delete('a.example', 'one');
    expect(index.sources('a.example')).toEqual([['two', 'y']]);
    expect(index.get('a.example', 'two')).toBe('y');
    index.delete('a.example', 'other');
    expect(index.sources('a.example')).toEqual([['two', 'y']]);
    index.delete('a.example', 'two');
    expect(index.sources('a.example')).toEqual([]);
    expect([...index.hostnames()]).toEqual([]);
    index.delete('never.example', 'two');
    expect(index.get('never.example', 'two')).toBeUndefined();
  });
});
