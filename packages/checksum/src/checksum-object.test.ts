import { describe, expect, it } from 'vitest';
import {
  buildIngressCheckSum,
  buildSecretCheckSum,
  computeChecksum,
  InvalidChecksumInputError,
  verifyChecksum,
} from './index.js';

const now = new Date('2025-03-04T05:06:07.890Z');

describe('buildIngressCheckSum', () => {
  it('builds a new object with sorted ids, their checksum and the time in whole seconds', () => {
    expect(buildIngressCheckSum(['9-1', '123992-1', '10-1'], { namespace: 'ingress', now })).toEqual({
      apiVersion: 'tengine.taobao.org/v1',
      kind: 'IngressCheckSum',
      metadata: { namespace: 'ingress', generateName: 'ingress-checksum-' },
      spec: {
        checksum: computeChecksum(['10-1', '123992-1', '9-1']),
        ids: ['10-1', '123992-1', '9-1'],
        timestamp: '2025-03-04T05:06:07Z',
      },
    });
  });

  it('uses a fixed name when one is given', () => {
    const object = buildIngressCheckSum([], { namespace: 'ingress', now, name: 'ingress-checksum-1' });
    expect(object.metadata).toEqual({ namespace: 'ingress', name: 'ingress-checksum-1' });
    expect(object.spec.checksum).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it('keeps duplicates so the data plane computes the same checksum', () => {
    const object = buildIngressCheckSum(['5-1', '5-1'], { namespace: 'ingress', now });
    expect(object.spec.ids).toEqual(['5-1', '5-1']);
    expect(verifyChecksum(['5-1', '5-1'], [object]).ok).toBe(true);
    expect(verifyChecksum(['5-1'], [object]).ok).toBe(false);
  });

  it('leaves the input ids as they were', () => {
    const ids = ['9-1', '10-1'];
    buildIngressCheckSum(ids, { namespace: 'ingress', now });
    expect(ids).toEqual(['9-1', '10-1']);
  });

  it('throws InvalidChecksumInputError when the namespace is empty or the time is invalid', () => {
    expect(() => buildIngressCheckSum([], { namespace: '', now })).toThrow(InvalidChecksumInputError);
    const error = (() => {
      try {
        buildIngressCheckSum([], { namespace: 'ingress', now: new Date(Number.NaN) });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidChecksumInputError);
    expect(error).toMatchObject({ name: 'InvalidChecksumInputError', code: 'ERR_CHECKSUM_INVALID_INPUT' });
  });
});

describe('buildSecretCheckSum', () => {
  it('builds a SecretCheckSum that verifies against the same ids', () => {
    const ids = [
      '77-6442-3e3c599315315e2ac55cc28539fa6e126f0355be',
      '118-5792-8c0483a291c2252a455c95084d98ccc2d0e14ae7',
    ];
    const object = buildSecretCheckSum(ids, { namespace: 'ingress', now });
    expect(object).toMatchObject({
      apiVersion: 'tengine.taobao.org/v1',
      kind: 'SecretCheckSum',
      metadata: { namespace: 'ingress', generateName: 'secret-checksum-' },
      spec: { ids: [ids[1], ids[0]] },
    });
    expect(verifyChecksum(ids, [object])).toMatchObject({ ok: true, object: { kind: 'SecretCheckSum' } });
  });
});
