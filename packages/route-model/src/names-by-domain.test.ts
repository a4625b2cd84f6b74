import { describe, expect, it } from 'vitest';
import { NamesByDomain, parentDomainOf } from './names-by-domain.js';

describe('NamesByDomain', () => {
  it('finds the names one label under a domain, and every name below it', () => {
    const names = new NamesByDomain();
    for (const hostname of ['a.shop.test', '*.shop.test', 'x.a.shop.test', '*.b.c.shop.test', 'other.test'])
      names.add(hostname);
    names.add('a.shop.test');
    expect(names.childrenOf('shop.test').sort()).toEqual(['*.shop.test', 'a.shop.test']);
    expect(names.descendantsOf('shop.test').sort()).toEqual([
      '*.b.c.shop.test',
      '*.shop.test',
      'a.shop.test',
      'x.a.shop.test',
    ]);
    expect(names.descendantsOf('test').length).toBe(5);
    expect(names.childrenOf('nothing.test')).toEqual([]);
  });

  it('forgets a domain with the last name below it, and keeps the others', () => {
    const names = new NamesByDomain();
    names.add('x.a.shop.test');
    names.add('y.a.shop.test');
    names.add('b.shop.test');
    names.delete('x.a.shop.test');
    expect(names.descendantsOf('shop.test').sort()).toEqual(['b.shop.test', 'y.a.shop.test']);
    names.delete('y.a.shop.test');
    names.delete('y.a.shop.test');
    expect(names.descendantsOf('shop.test')).toEqual(['b.shop.test']);
    names.delete('b.shop.test');
    expect(names.descendantsOf('test')).toEqual([]);
  });

  it('ignores names without a parent domain', () => {
    const names = new NamesByDomain();
    names.add('*');
    names.add('localhost');
    names.delete('localhost');
    expect(parentDomainOf('localhost')).toBeUndefined();
    expect(parentDomainOf('*.shop.test')).toBe('shop.test');
    expect(names.descendantsOf('')).toEqual([]);
  });
});
