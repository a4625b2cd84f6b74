import { createFakeClock } from '@ingresskit/task-queue';
import { describe, expect, it } from 'vitest';
import { ExternalNames, type ExternalNamesOptions } from './external-names.js';
import type { LookupName } from './system-lookup.js';

/**
 * A lookup whose answers the test gives: each call waits until the test settles it, or, when it
 * `stopsWhenAsked`, until its signal aborts (as the system lookup cancels its queries).
 */
function createControlledLookup(stopsWhenAsked = false) {
  const calls: { hostname: string; signal: AbortSignal; settle: (addresses: string[] | Error) => void }[] =
    [];
  const lookup: LookupName = (hostname, { signal }) =>
    new Promise((resolve, reject) => {
      const settle = (answer: string[] | Error) =>
        answer instanceof Error ? reject(answer) : resolve(answer);
      calls.push({ hostname, signal, settle });
      if (stopsWhenAsked)
        signal.addEventListener('abort', () =>
          settle(Object.assign(new Error('stopped'), { code: 'ECANCELLED' })),
        );
    });
  const pending = (hostname?: string) =>
    calls.filter((call) => hostname === undefined || call.hostname === hostname);
  return { lookup, calls, pending };
}

function create(options: Partial<ExternalNamesOptions> & Pick<ExternalNamesOptions, 'lookup'>) {
  const clock = createFakeClock();
  const changes: string[][] = [];
  const names = new ExternalNames({
    clock,
    inUse: () => true,
    onChange: (keys) => changes.push(keys),
    retry: { initialMs: 1_000, maxMs: 60_000 },
    ...options,
  });
  return { names, clock, changes };
}

const notFound = () => Object.assign(new Error('no'), { code: 'ENOTFOUND' });

describe('ExternalNames', () => {
  it('resolves a name on first use, tells when it did, and keeps it fresh only while it is used', async () => {
    const { lookup, calls } = createControlledLookup();
    let used = true;
    const { names, clock, changes } = create({ lookup, refreshMs: 30_000, inUse: () => used });
    expect(names.resolution('shop', 'api.example.com')).toBeUndefined();
    calls[0]!.settle(['203.0.113.9', '198.51.100.7', '203.0.113.9']);
    await clock.advanceAsync(0);
    expect(names.resolution('shop', 'api.example.com')).toEqual({
      addresses: ['198.51.100.7', '203.0.113.9'],
    });
    expect(changes).toEqual([['shop/api.example.com']]);
    // The same answer again changes nothing; a new one is told.
    await clock.advanceAsync(30_000);
    calls[1]!.settle(['198.51.100.7', '203.0.113.9']);
    await clock.advanceAsync(0);
    expect(changes).toHaveLength(1);
    await clock.advanceAsync(30_000);
    calls[2]!.settle(notFound());
    await clock.advanceAsync(0);
    expect(names.resolution('shop', 'api.example.com')).toEqual({ error: 'ENOTFOUND' });
    expect(changes).toHaveLength(2);
    // No longer used: forgotten when next due, and no longer looked up.
    used = false;
    await clock.advanceAsync(120_000);
    expect(calls).toHaveLength(3);
    names.stop();
  });

  it("resolves each namespace's names on their own, even the same name", async () => {
    const { lookup, calls } = createControlledLookup();
    const { names, clock, changes } = create({ lookup });
    names.resolution('mallory', 'db.example.com');
    names.resolution('shop', 'db.example.com');
    expect(calls.map((call) => call.hostname)).toEqual(['db.example.com', 'db.example.com']);
    calls[1]!.settle(['192.0.2.7']);
    await clock.advanceAsync(0);
    expect(names.resolution('shop', 'db.example.com')).toEqual({ addresses: ['192.0.2.7'] });
    expect(names.resolution('mallory', 'db.example.com')).toBeUndefined();
    expect(changes).toEqual([['shop/db.example.com']]);
    names.stop();
  });

  it("runs at most two lookups per namespace, so one tenant's hanging names never delay another's", async () => {
    const { lookup, pending } = createControlledLookup();
    const { names, clock, changes } = create({ lookup, timeoutMs: 10_000 });
    for (let i = 0; i < 10; i += 1) names.resolution('mallory', `hang${i}.mallory.example`);
    expect(pending()).toHaveLength(2);
    names.resolution('shop', 'api.shop.example');
    expect(pending('api.shop.example')).toHaveLength(1);
    pending('api.shop.example')[0]!.settle(['192.0.2.10']);
    await clock.advanceAsync(0);
    expect(names.resolution('shop', 'api.shop.example')).toEqual({ addresses: ['192.0.2.10'] });
    // At the deadline the hanging lookups count as failed, and are asked to stop.
    await clock.advanceAsync(10_000);
    expect(names.resolution('mallory', 'hang0.mallory.example')).toEqual({ error: 'ETIMEOUT' });
    expect(pending('hang0.mallory.example')[0]!.signal.aborted).toBe(true);
    expect(changes).toContainEqual(['mallory/hang0.mallory.example']);
    // They never end (a lookup that cannot be stopped): the namespace's slots stay taken...
    expect(pending()).toHaveLength(3);
    // ...and the other namespace's lookups still run at once.
    names.resolution('shop', 'new.shop.example');
    expect(pending('new.shop.example')).toHaveLength(1);
    names.stop();
  });

  it('frees the slot of a lookup that stops when asked, and retries failed names with backoff', async () => {
    const { lookup, calls, pending } = createControlledLookup(true);
    // Only a stays in use: b and c are forgotten when next due.
    const inUse = (_namespace: string, hostname: string) => hostname === 'a.mallory.example';
    const { names, clock } = create({ lookup, timeoutMs: 5_000, refreshMs: 30_000, inUse });
    names.resolution('mallory', 'a.mallory.example');
    names.resolution('mallory', 'b.mallory.example');
    names.resolution('mallory', 'c.mallory.example');
    expect(pending()).toHaveLength(2);
    await clock.advanceAsync(5_000);
    // The two stopped: the third gets a slot; the first two wait for their retry (1 s).
    expect(calls.map((call) => call.hostname)).toEqual([
      'a.mallory.example',
      'b.mallory.example',
      'c.mallory.example',
    ]);
    expect(names.resolution('mallory', 'a.mallory.example')).toEqual({ error: 'ETIMEOUT' });
    pending('c.mallory.example')[0]!.settle(['192.0.2.3']);
    await clock.advanceAsync(999);
    expect(calls).toHaveLength(3);
    await clock.advanceAsync(1);
    expect(pending('a.mallory.example')).toHaveLength(2);
    pending('a.mallory.example')[1]!.settle(notFound());
    await clock.advanceAsync(0);
    // Second failure in a row: 2 s; an answer then resets to the refresh interval.
    await clock.advanceAsync(1_999);
    expect(pending('a.mallory.example')).toHaveLength(2);
    await clock.advanceAsync(1);
    expect(pending('a.mallory.example')).toHaveLength(3);
    pending('a.mallory.example')[2]!.settle(['192.0.2.1']);
    await clock.advanceAsync(29_999);
    expect(pending('a.mallory.example')).toHaveLength(3);
    await clock.advanceAsync(1);
    expect(pending('a.mallory.example')).toHaveLength(4);
    names.stop();
  });

  it('stops every timer and running lookup', () => {
    const { lookup, calls } = createControlledLookup();
    const { names, clock } = create({ lookup });
    names.resolution('shop', 'a.example');
    names.stop();
    expect(calls[0]!.signal.aborted).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
    expect(names.resolution('shop', 'b.example')).toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});
