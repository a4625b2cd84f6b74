import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeChunks } from './streamed-metrics.js';

/** A writable that takes a chunk only when `release` is called, and whose buffer holds one byte. */
function heldWritable() {
  const written: string[] = [];
  const pending: (() => void)[] = [];
  const output = new Writable({
    highWaterMark: 1,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      written.push(chunk);
      pending.push(callback);
    },
  });
  return { output, written, release: () => pending.shift()?.() };
}

describe('writeChunks', () => {
  it('writes the next chunk only after the output drained', async () => {
    const { output, written, release } = heldWritable();
    let pulled = 0;
    function* chunks() {
      for (const chunk of ['a', 'b', 'c']) {
        pulled++;
        yield chunk;
      }
    }
    const done = writeChunks(output, chunks());
    await new Promise((resolve) => setImmediate(resolve));
    expect([written, pulled]).toEqual([['a'], 1]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect([written, pulled]).toEqual([['a', 'b'], 2]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await done).toBe(true);
    expect(written).toEqual(['a', 'b', 'c']);
  });

  it('stops, answering false, when the output closes while it waits', async () => {
    const { output, written } = heldWritable();
    let isFinished = false;
    function* chunks() {
      try {
        yield 'a';
        yield 'b';
      } finally {
        isFinished = true;
      }
    }
    const done = writeChunks(output, chunks());
    await new Promise((resolve) => setImmediate(resolve));
    output.destroy();
    expect(await done).toBe(false);
    expect(written).toEqual(['a']);
    expect(isFinished).toBe(true);
  });
});
