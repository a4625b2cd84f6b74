import { describe, expect, it } from 'vitest';
import { PatchError } from './errors.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, parsePatchContentType } from './patch.js';

const ingress = {
  metadata: { name: 'a', annotations: { 'kubernetes.io/ingress.class': 'nginx' }, finalizers: ['a/x'] },
  spec: { rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }] },
};

describe('applyJsonPatch', () => {
  it('applies add, replace, remove, move, copy and test without touching the input', () => {
    const before = JSON.stringify(ingress);
    const result = applyJsonPatch(ingress, [
      { op: 'test', path: '/metadata/name', value: 'a' },
      { op: 'add', path: '/metadata/labels', value: { app: 'web' } },
      { op: 'replace', path: '/spec/rules/0/host', value: 'c.example.com' },
      { op: 'remove', path: '/metadata/annotations/kubernetes.io~1ingress.class' },
      { op: 'copy', from: '/spec/rules/1', path: '/spec/rules/-' },
      { op: 'move', from: '/metadata/labels', path: '/metadata/extra' },
    ]);
    expect(result).toEqual({
      metadata: { name: 'a', annotations: {}, finalizers: ['a/x'], extra: { app: 'web' } },
      spec: { rules: [{ host: 'c.example.com' }, { host: 'b.example.com' }, { host: 'b.example.com' }] },
    });
    expect(JSON.stringify(ingress)).toBe(before);
  });

  it('inserts into arrays at an index when the index is within bounds', () => {
    expect(applyJsonPatch({ a: [1, 3] }, [{ op: 'add', path: '/a/1', value: 2 }])).toEqual({ a: [1, 2, 3] });
  });

  it.each([
    [[{ op: 'remove', path: '/spec/missing' }], 422],
    [[{ op: 'replace', path: '/nope/deeper', value: 1 }], 422],
    [[{ op: 'test', path: '/metadata/name', value: 'b' }], 422],
    [[{ op: 'add', path: '/spec/rules/9', value: {} }], 422],
    [[{ op: 'frobnicate', path: '/a' }], 400],
    [[{ op: 'add', path: '/a' }], 400],
    [{ op: 'add' }, 400],
  ])('fails %j with HTTP %i', (operations, code) => {
    try {
      applyJsonPatch(ingress, operations);
      expect.unreachable('the patch should fail');
    } catch (error) {
      expect(error).toBeInstanceOf(PatchError);
      expect((error as PatchError).httpCode).toBe(code);
    }
  });
});

describe('applyMergePatch', () => {
  it('merges objects, deletes null keys and replaces arrays whole', () => {
    const result = applyMergePatch(ingress, {
      metadata: { annotations: { 'kubernetes.io/ingress.class': null, b: '1' }, finalizers: [] },
      spec: { rules: [{ host: 'z.example.com' }] },
    });
    expect(result).toEqual({
      metadata: { name: 'a', annotations: { b: '1' }, finalizers: [] },
      spec: { rules: [{ host: 'z.example.com' }] },
    });
  });

  it('replaces the document when the patch is not an object', () => {
    expect(applyMergePatch({ a: 1 }, [1])).toEqual([1]);
  });
});

describe('applyStrategicMergePatch', () => {
  const keys = { 'metadata.finalizers': '', 'spec.containers': 'name', 'spec.containers.env': 'name' };
  const pod = {
    metadata: { finalizers: ['a/x', 'b/y'] },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] },
        { name: 'sidecar', image: 'side:1' },
      ],
      tolerations: [{ key: 't' }],
    },
  };

  it('merges finalizers as a set, so a replacing list cannot remove one', () => {
    const result = applyStrategicMergePatch(pod, { metadata: { finalizers: ['c/z'] } }, keys) as typeof pod;
    expect(result.metadata.finalizers).toEqual(['a/x', 'b/y', 'c/z']);
  });

  it('removes primitives named by $deleteFromPrimitiveList', () => {
    const result = applyStrategicMergePatch(
      pod,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a/x'] } },
      keys,
    );
    expect(result).toMatchObject({ metadata: { finalizers: ['b/y'] } });
  });

  it('merges keyed lists by their merge key and appends new items', () => {
    const result = applyStrategicMergePatch(
      pod,
      {
        spec: {
          containers: [
            { name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }] },
            { name: 'new', image: 'n:1' },
          ],
        },
      },
      keys,
    ) as typeof pod;
    expect(result.spec.containers).toEqual([
      {
        name: 'app',
        image: 'app:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      { name: 'sidecar', image: 'side:1' },
      { name: 'new', image: 'n:1' },
    ]);
  });

  it('honours $patch: delete on list items and $patch: replace on objects', () => {
    const result = applyStrategicMergePatch(
      pod,
      { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }], $patch: 'replace' } },
      keys,
    );
    expect(result).toEqual({ metadata: pod.metadata, spec: { containers: [{ name: 'sidecar' }] } });
    const deleted = applyStrategicMergePatch(
      pod,
      { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } },
      keys,
    ) as typeof pod;
    expect(deleted.spec.containers.map((container) => container.name)).toEqual(['app']);
  });

  it('replaces lists without a merge key atomically and orders by $setElementOrder', () => {
    const result = applyStrategicMergePatch(
      pod,
      {
        spec: {
          tolerations: [{ key: 'u' }],
          '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
        },
      },
      keys,
    ) as typeof pod;
    expect(result.spec.tolerations).toEqual([{ key: 'u' }]);
    expect(result.spec.containers.map((container) => container.name)).toEqual(['sidecar', 'app']);
  });

  it('drops keys outside $retainKeys and deletes null values', () => {
    const result = applyStrategicMergePatch(
      { spec: { a: 1, b: 2, c: 3 } },
      { spec: { $retainKeys: ['a', 'b'], b: null } },
      {},
    );
    expect(result).toEqual({ spec: { a: 1 } });
  });
});

describe('parsePatchContentType', () => {
  it.each([
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json; charset=utf-8', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/apply-patch+yaml', 'apply'],
    ['application/json', undefined],
    [undefined, undefined],
  ])('maps %j to %j', (header, kind) => {
    expect(parsePatchContentType(header)).toBe(kind);
  });
});
