import { describe, expect, it } from 'vitest';
import { encodeOid, encodeSequence, encodeTime, encodeTlv, encodeUnsignedInteger } from './der.js';

describe('encodeTlv', () => {
  it('uses the short length form below 128 bytes and the long form above', () => {
    expect(encodeTlv(0x04, Buffer.alloc(3)).subarray(0, 2)).toEqual(Buffer.from([0x04, 3]));
    expect(encodeTlv(0x04, Buffer.alloc(200)).subarray(0, 3)).toEqual(Buffer.from([0x04, 0x81, 200]));
    expect(encodeTlv(0x04, Buffer.alloc(300)).subarray(0, 4)).toEqual(Buffer.from([0x04, 0x82, 0x01, 0x2c]));
  });
});

describe('encodeOid', () => {
  it('packs the first two arcs and writes large arcs in base 128', () => {
    expect(encodeOid('1.2.840.10045.4.3.2')).toEqual(
      Buffer.from([0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]),
    );
  });
});

describe('encodeUnsignedInteger', () => {
  it('strips leading zeros and adds one when the top bit is set', () => {
    expect(encodeUnsignedInteger(Buffer.from([0, 0, 5]))).toEqual(Buffer.from([0x02, 1, 5]));
    expect(encodeUnsignedInteger(Buffer.from([0x80]))).toEqual(Buffer.from([0x02, 2, 0, 0x80]));
  });
});

describe('encodeTime', () => {
  it('writes UTCTime until 2049 and GeneralizedTime after', () => {
    expect(encodeTime(new Date(Date.UTC(2030, 0, 2, 3, 4, 5))).toString('latin1')).toBe(
      '\u0017\u000d300102030405Z',
    );
    expect(encodeTime(new Date(Date.UTC(9999, 11, 31, 23, 59, 59))).toString('latin1')).toBe(
      '\u0018\u000f99991231235959Z',
    );
  });
});

describe('encodeSequence', () => {
  it('concatenates its children', () => {
    expect(encodeSequence(Buffer.from([1]), Buffer.from([2]))).toEqual(Buffer.from([0x30, 2, 1, 2]));
  });
});
