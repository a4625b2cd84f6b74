import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { computeChecksum, verifyChecksum, type ChecksumObjectLike } from './index.js';

const sample = parse(
  readFileSync(join(import.meta.dirname, '..', 'testdata', 'tengine-ingress-checksum-sample.yaml'), 'utf8'),
) as ChecksumObjectLike & { spec: { ids: string[] } };

function published(
  name: string,
  ids: string[],
  creationTimestamp?: Date | string,
  checksum = computeChecksum(ids),
): ChecksumObjectLike {
  return {
    kind: 'IngressCheckSum',
    metadata: { name, namespace: 'ingress', creationTimestamp },
    spec: { checksum, ids },
  };
}

describe('verifyChecksum', () => {
  it('passes the Tengine sample ids against the sample object', () => {
    const result = verifyChecksum([...sample.spec.ids].reverse(), [sample]);
    expect(result).toMatchObject({
      ok: true,
      checked: true,
      checksum: '1bc5a4a332e9941cd12c3db6946cda9c',
      expected: '1bc5a4a332e9941cd12c3db6946cda9c',
      object: {
        kind: 'IngressCheckSum',
        namespace: 'alibaba-ingress-tao',
        name: 'ingress-checksum-ryayrf909x',
      },
      diff: { localOnly: [], publishedOnly: [] },
    });
    expect(result.message).toContain('265 ids');
  });

  it('is ok but unchecked when no checksum object exists', () => {
    const result = verifyChecksum(['1-1'], []);
    expect(result).toMatchObject({ ok: true, checked: false, object: undefined, expected: undefined });
    expect(result.checksum).toBe(computeChecksum(['1-1']));
    expect(result.message).toMatch(/No checksum object/);
  });

  it('reports both directions of the difference when the checksums differ', () => {
    const result = verifyChecksum(
      ['1-1', '2-2', '3-1'],
      [published('ingress-checksum-a', ['1-1', '2-1', '4-1'])],
    );
    expect(result).toMatchObject({
      ok: false,
      checked: true,
      diff: { localOnly: ['2-2', '3-1'], publishedOnly: ['2-1', '4-1'] },
    });
    expect(result.message).toContain('IngressCheckSum ingress/ingress-checksum-a');
    expect(result.message).toContain('Only here: 2-2, 3-1; only in IngressCheckSum: 2-1, 4-1.');
  });

  it('verifies an empty local set instead of letting it through', () => {
    const mismatch = verifyChecksum([], [published('ingress-checksum-a', ['1-1'])]);
    expect(mismatch).toMatchObject({
      ok: false,
      checked: true,
      diff: { localOnly: [], publishedOnly: ['1-1'] },
    });
    expect(mismatch.checksum).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(verifyChecksum([], [published('ingress-checksum-a', [])]).ok).toBe(true);
  });

  it('compares with the newest object by creationTimestamp when timestamps are Dates', () => {
    const objects = [
      published('ingress-checksum-old', ['1-1'], new Date('2025-01-01T00:00:00Z')),
      published('ingress-checksum-new', ['1-2'], new Date('2025-01-02T00:00:00Z')),
    ];
    expect(verifyChecksum(['1-2'], objects)).toMatchObject({
      ok: true,
      object: { name: 'ingress-checksum-new' },
    });
  });

  it('compares with the newest object when timestamps are JSON strings', () => {
    const objects = [
      published('ingress-checksum-new', ['1-2'], '2025-01-02T00:00:00Z'),
      published('ingress-checksum-old', ['1-1'], '2025-01-01T00:00:00Z'),
    ];
    expect(verifyChecksum(['1-2'], objects)).toMatchObject({
      ok: true,
      object: { name: 'ingress-checksum-new' },
    });
  });

  it('breaks creationTimestamp ties by namespace and name', () => {
    const at = '2025-01-01T00:00:00Z';
    const objects = [
      published('ingress-checksum-b', ['2-1'], at),
      published('ingress-checksum-a', ['1-1'], at),
    ];
    expect(verifyChecksum(['1-1'], objects)).toMatchObject({
      ok: true,
      object: { name: 'ingress-checksum-a' },
    });
    expect(verifyChecksum(['1-1'], [...objects].reverse())).toMatchObject({
      object: { name: 'ingress-checksum-a' },
    });
  });

  it('counts an object without a creationTimestamp as the oldest', () => {
    const objects = [
      published('ingress-checksum-a', ['1-1']),
      published('ingress-checksum-b', ['2-1'], '2025-01-01T00:00:00Z'),
      published('ingress-checksum-c', ['3-1'], 'not a time'),
    ];
    expect(verifyChecksum(['2-1'], objects)).toMatchObject({
      ok: true,
      object: { name: 'ingress-checksum-b' },
    });
  });

  it('fails when only an older object matches, and says so', () => {
    const objects = [
      published('ingress-checksum-old', ['1-1'], '2025-01-01T00:00:00Z'),
      published('ingress-checksum-new', ['1-2'], '2025-01-02T00:00:00Z'),
    ];
    const result = verifyChecksum(['1-1'], objects);
    expect(result).toMatchObject({ ok: false, object: { name: 'ingress-checksum-new' } });
    expect(result.message).toContain('The older IngressCheckSum ingress/ingress-checksum-old matches');
  });

  it('uses the object as it is now when its spec was edited', () => {
    const original = published('ingress-checksum-a', ['1-1'], '2025-01-01T00:00:00Z');
    const edited = { ...original, spec: { checksum: computeChecksum(['1-2']), ids: ['1-2'] } };
    expect(verifyChecksum(['1-2'], [original]).ok).toBe(false);
    expect(verifyChecksum(['1-2'], [edited]).ok).toBe(true);
  });

  it('fails with an explanation when the object has no checksum', () => {
    const object: ChecksumObjectLike = {
      kind: 'SecretCheckSum',
      metadata: { name: 'secret-x' },
      spec: { ids: ['1-1-'] },
    };
    const result = verifyChecksum(['1-1-'], [object]);
    expect(result).toMatchObject({ ok: false, checked: true, expected: undefined });
    expect(result.message).toContain('SecretCheckSum secret-x has no spec.checksum');
  });

  it('explains a mismatch whose ids agree: the object contradicts itself', () => {
    const result = verifyChecksum(['1-1'], [published('ingress-checksum-a', ['1-1'], undefined, 'ABC')]);
    expect(result).toMatchObject({ ok: false, diff: { localOnly: [], publishedOnly: [] } });
    expect(result.message).toContain('does not match its own ids');
  });

  it('shows at most ten ids per side in the message but all of them in the diff', () => {
    const local = Array.from({ length: 25 }, (_, i) => `${i + 100}-1`);
    const result = verifyChecksum(local, [published('ingress-checksum-a', [])]);
    expect(result.diff.localOnly).toHaveLength(25);
    expect(result.message).toContain('(+15 more)');
  });

  it('leaves its inputs as they were', () => {
    const local = ['2-1', '1-1'];
    const objects = [published('ingress-checksum-a', ['3-1', '1-1'])];
    const copy = structuredClone(objects);
    verifyChecksum(local, objects);
    expect(local).toEqual(['2-1', '1-1']);
    expect(objects).toEqual(copy);
  });
});
