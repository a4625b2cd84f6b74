import { describe, expect, it } from 'vitest';
import type { KubeObject } from './objects.js';
import { applyServerSide, fieldsToPaths, pathsToFields } from './server-side-apply.js';

const base = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  ignoresStatus: false,
  force: false,
  now: '2024-01-01T00:00:00Z',
};

function intent(data: Record<string, string>, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', ...(labels ? { labels } : {}) },
    data,
  };
}

describe('applyServerSide', () => {
  it('creates the object and records the manager when nothing exists', () => {
    const outcome = applyServerSide({
      ...base,
      current: undefined,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    expect(outcome).toEqual({
      applied: true,
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'c',
          managedFields: [
            {
              manager: 'alice',
              operation: 'Apply',
              apiVersion: 'v1',
              time: '2024-01-01T00:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:a': {} } },
            },
          ],
        },
        data: { a: '1' },
      },
    });
  });

  it('reports a conflict when another manager owns a field with a different value', () => {
    const first = applyServerSide({
      ...base,
      current: undefined,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    if (!first.applied) throw new Error('first apply failed');
    const second = applyServerSide({
      ...base,
      current: first.object,
      intent: intent({ a: '2' }),
      manager: 'bob',
    });
    expect(second).toEqual({ applied: false, conflicts: [{ manager: 'alice', field: '.data.a' }] });
  });

  it('shares ownership when the value is the same, and moves it when forced', () => {
    const first = applyServerSide({
      ...base,
      current: undefined,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    if (!first.applied) throw new Error('first apply failed');
    const same = applyServerSide({
      ...base,
      current: first.object,
      intent: intent({ a: '1' }),
      manager: 'bob',
    });
    expect(same.applied).toBe(true);
    const forced = applyServerSide({
      ...base,
      force: true,
      current: first.object,
      intent: intent({ a: '2' }),
      manager: 'bob',
    });
    if (!forced.applied) throw new Error('forced apply failed');
    expect(forced.object.data).toEqual({ a: '2' });
    expect(forced.object.metadata.managedFields?.map((entry) => entry.manager)).toEqual(['bob']);
  });

  it('removes fields the manager stopped applying when nobody else owns them', () => {
    const first = applyServerSide({
      ...base,
      current: undefined,
      intent: intent({ a: '1', b: '2' }, { x: 'y' }),
      manager: 'alice',
    });
    if (!first.applied) throw new Error('first apply failed');
    const second = applyServerSide({
      ...base,
      current: first.object,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    if (!second.applied) throw new Error('second apply failed');
    expect(second.object.data).toEqual({ a: '1' });
    expect(second.object.metadata.labels).toBeUndefined();
  });

  it('keeps the managedFields entry (and its time) when a re-apply changes nothing', () => {
    const first = applyServerSide({
      ...base,
      current: undefined,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    if (!first.applied) throw new Error('first apply failed');
    const again = applyServerSide({
      ...base,
      now: '2030-01-01T00:00:00Z',
      current: first.object,
      intent: intent({ a: '1' }),
      manager: 'alice',
    });
    expect(again).toEqual(first);
  });

  it('ignores status on the main endpoint when the resource has a status subresource', () => {
    const withStatus = { ...intent({ a: '1' }), status: { phase: 'x' } };
    const outcome = applyServerSide({
      ...base,
      ignoresStatus: true,
      current: undefined,
      intent: withStatus,
      manager: 'alice',
    });
    if (!outcome.applied) throw new Error('apply failed');
    expect(outcome.object.status).toBeUndefined();
  });
});

describe('pathsToFields', () => {
  it('round-trips through fieldsToPaths', () => {
    const paths = [
      ['spec', 'a'],
      ['spec', 'b', 'c'],
      ['metadata', 'labels', 'x'],
    ];
    const fields = pathsToFields(paths);
    expect(fields).toEqual({
      'f:spec': { 'f:a': {}, 'f:b': { 'f:c': {} } },
      'f:metadata': { 'f:labels': { 'f:x': {} } },
    });
    expect(fieldsToPaths(fields)).toEqual(paths);
  });

  it('treats a list with keyed items as one owned field', () => {
    expect(fieldsToPaths({ 'f:spec': { 'f:rules': { 'k:{"host":"a"}': {}, '.': {} } } })).toEqual([
      ['spec', 'rules'],
    ]);
  });
});
