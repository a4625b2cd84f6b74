import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { computeChecksum } from './index.js';

const testdata = join(import.meta.dirname, '..', 'testdata');

function readSampleIds(file: string): string[] {
  const sample = parse(readFileSync(join(testdata, file), 'utf8')) as { spec: { ids: string[] } };
  return sample.spec.ids;
}

describe('computeChecksum', () => {
  it('reproduces the 265-id IngressCheckSum sample from the Tengine design article', () => {
    const ids = readSampleIds('tengine-ingress-checksum-sample.yaml');
    expect(ids).toHaveLength(265);
    expect(computeChecksum(ids)).toBe('1bc5a4a332e9941cd12c3db6946cda9c');
  });

  it('reproduces the 26-id SecretCheckSum sample from the Tengine documentation', () => {
    const ids = readSampleIds('tengine-secret-checksum-sample.yaml');
    expect(ids).toHaveLength(26);
    expect(computeChecksum(ids)).toBe('50d00d896e16a82a5fe3e9b741abf04e');
  });

  it('gives the same checksum whatever order the ids come in', () => {
    const ids = readSampleIds('tengine-ingress-checksum-sample.yaml');
    expect(computeChecksum([...ids].reverse())).toBe('1bc5a4a332e9941cd12c3db6946cda9c');
    expect(computeChecksum(new Set(ids))).toBe('1bc5a4a332e9941cd12c3db6946cda9c');
  });

  it('matches the Tengine vector for two ids given in any order', () => {
    expect(computeChecksum(['27524-1', '123992-1'])).toBe('294560cb5ddc0f5b4ad1fde6916622c0');
    expect(computeChecksum(['27555-1'])).toBe('7d7a726c234679a45c2ef794fb9675f1');
  });

  it('sorts by code unit, not numerically or by locale, when ids differ in length', () => {
    // md5("10-1,123992-1,9-1"), computed with md5sum: the order Go's sort.Strings gives.
    expect(computeChecksum(['9-1', '123992-1', '10-1'])).toBe(computeChecksum(['10-1', '123992-1', '9-1']));
    expect(computeChecksum(['9-1', '123992-1', '10-1'])).toBe('923e36bbbaad41e57fe15ea32cb8d619');
    expect(computeChecksum(['9-1', '10-1'])).not.toBe(computeChecksum([]));
  });

  it('keeps duplicate ids, as Tengine does', () => {
    expect(computeChecksum(['5-1', '5-1'])).toBe('5312cc9a720030fef31e2365b46cb17b');
    expect(computeChecksum(['5-1', '5-1'])).not.toBe(computeChecksum(['5-1']));
  });

  it('hashes the empty string when there are no ids', () => {
    expect(computeChecksum([])).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it('leaves the input array as it was', () => {
    const ids = ['9-1', '10-1'];
    computeChecksum(ids);
    expect(ids).toEqual(['9-1', '10-1']);
  });
});
