import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { md5Hex } from './md5.js';

describe('md5Hex', () => {
  it.each([
    ['', 'd41d8cd98f00b204e9800998ecf8427e'],
    ['a', '0cc175b9c0f1b6a831c399e269772661'],
    ['abc', '900150983cd24fb0d6963f7d28e17f72'],
    ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
    [
      '12345678901234567890123456789012345678901234567890123456789012345678901234567890',
      '57edf4a22be3c955ac49da2e2107b67a',
    ],
  ])('gives the RFC 1321 test vector for %j', (text, digest) => {
    expect(md5Hex(text)).toBe(digest);
  });

  it("agrees with Node's MD5 on every length around the 64-byte block edges and on non-ASCII text", () => {
    const texts = [
      ...Array.from({ length: 200 }, (_, length) => 'x'.repeat(length)),
      'é',
      '😀,27555-1,9-1',
      '10-1,123992-1,9-1',
      'a'.repeat(100_000),
    ];
    for (const text of texts) {
      expect(md5Hex(text), `length ${text.length}`).toBe(
        createHash('md5').update(text, 'utf8').digest('hex'),
      );
    }
  });
});
