import { describe, expect, it } from 'vitest';
import { NamespacePathBudget } from './namespace-path-budget.js';

describe('NamespacePathBudget', () => {
  it('serves the oldest Ingresses first and lets younger ones in that still fit', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/old', 6, 1_000);
    budget.set('team/big', 5, 2_000);
    budget.set('team/small', 4, 3_000);
    budget.set('other/big', 10, 3_000);
    expect(budget.settle().sort()).toEqual(['team/big']);
    expect(budget.refusal('team/old')).toBeUndefined();
    expect(budget.refusal('team/big')).toBe(
      'its 5 paths would take namespace team past the 10 paths this controller serves per namespace (--max-paths-per-namespace; older Ingresses come first); the Ingress is not served',
    );
    expect(budget.refusal('team/small')).toBeUndefined();
    expect(budget.refusal('other/big')).toBeUndefined();
  });

  it('lets a left-out Ingress in when an older one shrinks or goes, and says which moved', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/old', 6, 1_000);
    budget.set('team/young', 6, 2_000);
    budget.settle();
    budget.set('team/old', 4, 1_000);
    expect(budget.settle()).toEqual(['team/young']);
    expect(budget.refusal('team/young')).toBeUndefined();
    budget.set('team/old', 5, 1_000);
    expect(budget.settle()).toEqual(['team/young']);
    budget.delete('team/old');
    expect(budget.settle()).toEqual(['team/young']);
    expect(budget.refusal('team/young')).toBeUndefined();
  });

  it('never lets a new Ingress push an older one out', () => {
    const budget = new NamespacePathBudget(10);
    budget.set('team/b-old', 8, 1_000);
    budget.settle();
    // a-new sorts first by name, but it is younger: age decides, the name only breaks ties.
    budget.set('team/a-new', 8, 2_000);
    expect(budget.settle()).toEqual(['team/a-new']);
    expect(budget.refusal('team/b-old')).toBeUndefined();
  });
});
