import { describe, expect, it } from 'vitest';
import { NamespaceDataBudget, type ObjectData } from './namespace-data-budget.js';

const KiB = 1024;

function data(own: number, shared: Record<string, number> = {}): ObjectData {
  return { own, shared: new Map(Object.entries(shared)) };
}

/** A budget of 4000 KiB: 3000 KiB handed out. */
function createBudget(namespaceShare = 1): NamespaceDataBudget {
  return new NamespaceDataBudget({ capacityBytes: 4000 * KiB, namespaceShare });
}

function leftOut(budget: NamespaceDataBudget, keys: string[]): string[] {
  return keys.filter((key) => budget.refusal(key) !== undefined);
}

describe('NamespaceDataBudget', () => {
  it('serves the oldest objects of a namespace first, and younger ones that still fit', () => {
    const budget = createBudget();
    budget.set('t/c', 't', 3, data(1000 * KiB));
    budget.set('t/a', 't', 1, data(1500 * KiB));
    budget.set('t/b', 't', 2, data(1000 * KiB));
    budget.set('t/d', 't', 4, data(400 * KiB));
    budget.settle();
    expect(leftOut(budget, ['t/a', 't/b', 't/c', 't/d'])).toEqual(['t/c']);
    expect(budget.refusal('t/c')).toMatch(
      /take 1000 KiB of nginx's shared memory, which would take namespace t past its part of it: 2\.9 MiB of the 3\.9 MiB --lua-shared-dict-size/,
    );
    // Deleting an older one lets the younger one in.
    budget.delete('t/a');
    expect(budget.settle().sort()).toEqual(['t/c']);
    expect(leftOut(budget, ['t/b', 't/c', 't/d'])).toEqual([]);
  });

  it('counts a policy or certificate once per namespace, whoever names it first', () => {
    const budget = createBudget();
    const shared = { 'cert:x': 1000 * KiB, 'policy:p': 500 * KiB };
    for (const index of [1, 2, 3, 4]) budget.set(`t/i${index}`, 't', index, data(300 * KiB, shared));
    budget.settle();
    // 1500 + 4 × 300 fits in 3000; another certificate would not.
    expect(leftOut(budget, ['t/i1', 't/i2', 't/i3', 't/i4'])).toEqual([]);
    budget.set('t/i5', 't', 5, data(100 * KiB, { 'cert:y': 1000 * KiB }));
    expect(budget.settle()).toEqual(['t/i5']);
    expect(budget.refusal('t/i5')).toBeDefined();
  });

  it('never cuts a namespace within its equal part, however much another one asks for', () => {
    const budget = createBudget();
    budget.set('victim/old', 'victim', 1, data(100 * KiB));
    for (let index = 0; index < 40; index++) budget.set(`t/i${index}`, 't', index, data(100 * KiB));
    budget.settle();
    expect(budget.refusal('victim/old')).toBeUndefined();
    // The victim's new object, younger than all of the tenant's, still gets in: the tenant's
    // youngest make room.
    budget.set('victim/new', 'victim', 100, data(200 * KiB));
    expect(budget.settle()).toEqual(['t/i27', 't/i28']);
    expect(budget.refusal('victim/new')).toBeUndefined();
    expect(
      leftOut(
        budget,
        Array.from({ length: 40 }, (_, index) => `t/i${index}`),
      ),
    ).toHaveLength(40 - 27);
  });

  it('keeps one namespace within its share of the dict even when no other needs any', () => {
    const budget = createBudget(0.5);
    for (let index = 0; index < 20; index++) budget.set(`t/i${index}`, 't', index, data(100 * KiB));
    budget.settle();
    expect(
      leftOut(
        budget,
        Array.from({ length: 20 }, (_, index) => `t/i${index}`),
      ),
    ).toHaveLength(20 - 15);
  });

  it('moves an object to its new namespace, and forgets an empty namespace', () => {
    const budget = createBudget(0.5);
    budget.set('k', 'a', 1, data(2000 * KiB));
    budget.settle();
    expect(budget.refusal('k')).toMatch(/namespace a past/);
    budget.set('k', 'b', 1, data(100 * KiB));
    budget.settle();
    expect(budget.refusal('k')).toBeUndefined();
    budget.delete('k');
    expect(budget.settle()).toEqual([]);
    expect(budget.refusal('k')).toBeUndefined();
  });
});

describe('NamespaceDataBudget, kept as objects change', () => {
  it('says an object left out fits once it shrinks, and counts a shared entry until its last object goes', () => {
    const budget = createBudget();
    budget.set('t/a', 't', 1, data(2000 * KiB, { 'policy:p': 500 * KiB }));
    budget.set('t/b', 't', 2, data(600 * KiB, { 'policy:p': 500 * KiB }));
    budget.settle();
    expect(leftOut(budget, ['t/a', 't/b'])).toEqual(['t/b']);
    budget.set('t/b', 't', 2, data(100 * KiB, { 'policy:p': 500 * KiB }));
    expect(budget.settle()).toEqual(['t/b']);
    expect(leftOut(budget, ['t/a', 't/b'])).toEqual([]);
    // The policy stays counted while t/b names it: 100 + 500 + 2500 KiB is past the 3000 handed out.
    budget.delete('t/a');
    budget.set('t/c', 't', 3, data(2500 * KiB));
    budget.settle();
    expect(leftOut(budget, ['t/b', 't/c'])).toEqual(['t/c']);
    budget.delete('t/b');
    expect(budget.settle()).toEqual(['t/c']);
  });
});
