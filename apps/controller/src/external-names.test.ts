import { describe, expect, it } from 'vitest';
import { ExternalNames } from './external-names.js';
import { createLogger } from './logger.js';

function deferred() {
  const changes: string[][] = [];
  let notify: () => void = () => undefined;
  return {
    changes,
    onChange: (hostnames: string[]) => {
      changes.push(hostnames);
      notify();
    },
    next: () => new Promise<void>((resolve) => (notify = resolve)),
  };
}

describe('ExternalNames', () => {
  it('resolves a name on first use, tells when it did, and keeps it fresh only while it is used', async () => {
    const zone = new Map([['api.example.com', ['203.0.113.9', '198.51.100.7', '203.0.113.9']]]);
    const lookups: string[] = [];
    let used = true;
    const events = deferred();
    const names = new ExternalNames({
      lookup: (hostname) => {
        lookups.push(hostname);
        const addresses = zone.get(hostname);
        return addresses
          ? Promise.resolve(addresses)
          : Promise.reject(Object.assign(new Error('no'), { code: 'ENOTFOUND' }));
      },
      refreshMs: 20,
      inUse: () => used,
      onChange: events.onChange,
      logger: createLogger({ level: 'silent' }),
    });
    try {
      let changed = events.next();
      expect(names.resolution('api.example.com')).toBeUndefined();
      await changed;
      expect(names.resolution('api.example.com')).toEqual({ addresses: ['198.51.100.7', '203.0.113.9'] });
      // The same answer again changes nothing; a new one is told.
      const before = lookups.length;
      while (lookups.length <= before + 1) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(events.changes).toEqual([['api.example.com']]);
      changed = events.next();
      zone.delete('api.example.com');
      await changed;
      expect(names.resolution('api.example.com')).toEqual({ error: 'ENOTFOUND' });
      // No longer used: forgotten, and no longer looked up.
      used = false;
      await new Promise((resolve) => setTimeout(resolve, 100));
      const last = lookups.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lookups.length).toBe(last);
    } finally {
      names.stop();
    }
  });
});
