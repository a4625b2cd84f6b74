/**
 * The system lookup of ExternalName names (system-lookup.ts) against a real DNS server on
 * 127.0.0.1 (test/dns-server.ts), through the real c-ares resolver of node:dns: the names asked in
 * the order the C library asks them, /etc/hosts and numeric hosts first, and a DNS that never
 * answers: a lookup then ends with ETIMEOUT, or at once when asked to stop, and meanwhile holds
 * none of libuv's 4 threads, which getaddrinfo held for as long (file system work waited behind
 * it).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseResolvConf, type ResolvConf } from './resolv-conf.js';
import { createSystemLookup, type LookupName } from './system-lookup.js';
import { startDnsServer, type DnsServer } from '../test/dns-server.js';

let dns: DnsServer;

beforeAll(async () => {
  dns = await startDnsServer();
});

afterAll(async () => {
  await dns?.stop();
});

beforeEach(() => {
  dns.zone.clear();
  dns.silent.clear();
  dns.questions.length = 0;
});

function lookupWith(resolvConf: Partial<ResolvConf>, hosts = new Map<string, string[]>()): LookupName {
  return createSystemLookup({
    resolvConf: {
      ...parseResolvConf(''),
      nameservers: [dns.address],
      timeoutMs: 500,
      attempts: 1,
      ...resolvConf,
    },
    hosts,
  });
}

const signal = () => new AbortController().signal;

function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: unknown }).code,
  );
}

describe('createSystemLookup', () => {
  it("asks the search list first for a name with fewer than ndots dots, as a pod's resolver does", async () => {
    dns.zone.set('db.shop.svc.cluster.local', ['10.96.3.4', 'fd00:96::34']);
    const lookup = lookupWith({ search: ['mallory.svc.cluster.local', 'svc.cluster.local'], ndots: 5 });
    expect((await lookup('db.shop', { signal: signal() })).sort()).toEqual(['10.96.3.4', 'fd00:96::34']);
    expect([...new Set(dns.questions.map((question) => question.split(' ')[0]))]).toEqual([
      'db.shop.mallory.svc.cluster.local',
      'db.shop.svc.cluster.local',
    ]);
  });

  it('asks a name with ndots dots as it is first, and a name ending in a dot only as it is', async () => {
    dns.zone.set('api.example.com', ['192.0.2.8']);
    const lookup = lookupWith({ search: ['svc.cluster.local'], ndots: 2 });
    expect(await lookup('api.example.com', { signal: signal() })).toEqual(['192.0.2.8']);
    expect(dns.questions.every((question) => question.startsWith('api.example.com '))).toBe(true);
    dns.questions.length = 0;
    expect(await codeOf(lookup('nowhere.example.', { signal: signal() }))).toBe('ENOTFOUND');
    expect(new Set(dns.questions.map((question) => question.split(' ')[0]))).toEqual(
      new Set(['nowhere.example']),
    );
  });

  it('answers numeric hosts and /etc/hosts names without asking the DNS', async () => {
    const lookup = lookupWith({}, new Map([['db.internal', ['192.0.2.50']]]));
    expect(await lookup('0x7f.1', { signal: signal() })).toEqual(['127.0.0.1']);
    expect(await lookup('DB.internal.', { signal: signal() })).toEqual(['192.0.2.50']);
    expect(dns.questions).toEqual([]);
  });

  it('ends with ETIMEOUT when the DNS never answers, and stops the search there', async () => {
    dns.silent.add('hang.mallory.example.svc.cluster.local');
    dns.zone.set('hang.mallory.example', ['192.0.2.9']);
    const lookup = lookupWith({ search: ['svc.cluster.local'], ndots: 5 });
    expect(await codeOf(lookup('hang.mallory.example', { signal: signal() }))).toBe('ETIMEOUT');
    expect(dns.questions.some((question) => question.startsWith('hang.mallory.example '))).toBe(false);
  });

  it('stops at once when asked', async () => {
    dns.silent.add('hang.mallory.example');
    const lookup = lookupWith({ timeoutMs: 60_000 });
    const controller = new AbortController();
    const code = codeOf(lookup('hang.mallory.example', { signal: controller.signal }));
    while (dns.questions.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await code).toBe('ECANCELLED');
  });

  it("holds none of libuv's threads while the DNS does not answer: file reads go on meanwhile", async () => {
    for (let i = 0; i < 8; i += 1) dns.silent.add(`hang${i}.mallory.example`);
    const lookup = lookupWith({ timeoutMs: 3_000 });
    let ended = 0;
    const lookups = Array.from({ length: 8 }, (_, i) =>
      codeOf(lookup(`hang${i}.mallory.example`, { signal: signal() })).finally(() => (ended += 1)),
    );
    // Each read is a job of libuv's threadpool, as getaddrinfo was.
    await Promise.all(Array.from({ length: 20 }, () => readFile(new URL(import.meta.url))));
    expect(ended).toBe(0);
    expect(await Promise.all(lookups)).toEqual(new Array(8).fill('ETIMEOUT'));
  });
});
