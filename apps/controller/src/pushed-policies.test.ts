import type { DataPlaneUpdate, HostEntry, SharedPolicyId } from '@ingresskit/nginx-template';
import { describe, expect, it } from 'vitest';
import { PushedPolicies } from './pushed-policies.js';

/** A host entry whose routes name these shared policies. */
function host(...ids: string[]): HostEntry {
  return {
    match: 'exact',
    routes: ids.map((id, index) => ({
      id: `r${index}`,
      kind: 'prefix',
      path: '/',
      action: { type: 'respond', status: 200 },
      sharedPolicy: id as SharedPolicyId,
    })),
    exact: {},
    prefix: {},
    regex: [],
  };
}

function push(policies: PushedPolicies, update: DataPlaneUpdate, full = false): string[] {
  policies.prepare(update, full);
  policies.commit();
  return update.delete;
}

describe('PushedPolicies', () => {
  it('deletes a policy once no host names it, and not before', () => {
    const policies = new PushedPolicies();
    push(policies, { set: { 'host:a': host('p1', 'p2'), 'host:b': host('p1') }, delete: [] }, true);
    expect(policies.size).toBe(2);
    // b still names p1; a's new version names p3 instead of p2.
    expect(push(policies, { set: { 'host:a': host('p3') }, delete: [] })).toEqual(['policy:p2']);
    expect(push(policies, { set: {}, delete: ['host:b'] })).toEqual(['host:b', 'policy:p1']);
    expect(policies.size).toBe(1);
  });

  it('keeps a policy another host of the same push starts naming', () => {
    const policies = new PushedPolicies();
    push(policies, { set: { 'host:a': host('p1') }, delete: [] }, true);
    expect(push(policies, { set: { 'host:b': host('p1') }, delete: ['host:a'] })).toEqual(['host:a']);
    expect(policies.size).toBe(1);
  });

  it('counts nothing of a push that was prepared but not applied', () => {
    const policies = new PushedPolicies();
    push(policies, { set: { 'host:a': host('p1') }, delete: [] }, true);
    policies.prepare({ set: { 'host:a': host('p2') }, delete: [] }, false);
    // The push failed; the next one starts from what nginx holds.
    expect(push(policies, { set: {}, delete: ['host:a'] })).toEqual(['host:a', 'policy:p1']);
  });

  it('starts over with a full push, which deletes what it does not carry itself', () => {
    const policies = new PushedPolicies();
    push(policies, { set: { 'host:a': host('p1') }, delete: [] }, true);
    expect(push(policies, { set: { 'host:b': host('p2') }, delete: [] }, true)).toEqual([]);
    expect(push(policies, { set: {}, delete: ['host:b'] })).toEqual(['host:b', 'policy:p2']);
    expect(policies.size).toBe(0);
  });
});
