import { afterEach, describe, expect, it } from 'vitest';
import {
  configMap,
  coreFixture,
  createHarness,
  endpointSlice,
  expectConverged,
  gateway,
  gatewayClass,
  type Harness,
  ingress,
  namespace,
  optionalCrdsYaml,
  secret,
  service,
  waitFor,
} from '../test/harness.js';
import { InformerError } from './errors.js';
import type { StalenessChange } from './informer-health.js';
import type { StoreOptions } from './store-options.js';

let harness: Harness | undefined;

async function setUp(options: StoreOptions = {}, seed?: object[] | string): Promise<Harness> {
  harness = await createHarness(options, seed);
  return harness;
}

afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});

/** Creates, updates and deletes a few objects of several kinds; `round` makes each call different. */
async function churn(h: Harness, round: number): Promise<void> {
  await h.apply([
    service('shop', `svc-${round}`),
    endpointSlice('shop', `svc-${round}-a`, `svc-${round}`, [`10.1.${round}.1`]),
    configMap('shop', 'settings', { round: String(round) }),
    ingress('shop', `ing-${round}`, { service: `svc-${round}`, tlsSecret: 'cert' }),
    secret('shop', 'cert', 'kubernetes.io/tls', Buffer.from(`cert-${round}`).toString('base64')),
  ]);
  // Deletes go through the real client, which cannot reach a paused server; they happen before the pause.
  if (round > 0 && !h.server.faults.isPaused()) {
    await h.remove('Service', `shop/svc-${round - 1}`);
    await h.remove('Ingress', `shop/ing-${round - 1}`);
  }
}

describe('createStore under faults', () => {
  it('converges after watches are dropped while objects change', async () => {
    const h = await setUp({}, coreFixture('shop'));
    await h.store.start();
    const lists = h.requests.filter((request) => request.op === 'list').length;
    for (let round = 0; round < 4; round++) {
      h.server.faults.dropWatches();
      await churn(h, round);
      await expectConverged(h);
    }
    // Every watch resumed from its resourceVersion: nothing was listed again.
    expect(h.requests.filter((request) => request.op === 'list').length).toBe(lists);
    expect(h.requests.filter((request) => request.op === 'watch' && request.resourceVersion === '')).toEqual(
      [],
    );
    expect(h.errors).toEqual([]);
  });

  it('relists after 410 Expired without repeating events for unchanged objects', async () => {
    const h = await setUp({}, [...coreFixture('shop'), configMap('shop', 'untouched', { a: '1' })]);
    await h.store.start();
    await churn(h, 0);
    await expectConverged(h);
    const firstPages = () =>
      h.requests.filter(
        (request) => request.op === 'list' && request.path.endsWith('/ingresses') && !request.continueToken,
      );
    expect(firstPages()).toHaveLength(1);
    for (let round = 1; round < 4; round++) {
      h.server.faults.expireHistory();
      h.server.faults.dropWatches();
      await churn(h, round);
      await expectConverged(h);
    }
    expect(firstPages()).toHaveLength(4);
    const untouched = h.recorder.events.filter((event) => event.key === 'shop/untouched');
    expect(untouched.map((event) => event.type)).toEqual(['added']);
    expect(h.errors).toEqual([]);
  });

  it('reports 500s on watches and lists as errors, backs off and recovers', async () => {
    const h = await setUp({}, coreFixture('shop'));
    h.server.faults.failNext(12, 500, { match: { watch: false } });
    await h.store.start();
    const listErrors = h.errors.filter((error) => error instanceof InformerError && error.phase === 'list');
    expect(listErrors.length).toBeGreaterThan(0);
    expect(listErrors.every((error) => (error as InformerError).statusCode === 500)).toBe(true);

    h.server.faults.failNext(10, 500, { match: { watch: true } });
    h.server.faults.dropWatches();
    await churn(h, 0);
    await waitFor(
      () =>
        h.errors.some(
          (error) => error instanceof InformerError && error.phase === 'watch' && error.statusCode === 500,
        ),
      'a watch error',
    );
    await churn(h, 1);
    await expectConverged(h);
    const watchErrors = h.errors.filter((error) => error instanceof InformerError && error.phase === 'watch');
    expect(watchErrors.every((error) => (error as InformerError).retryInMs > 0)).toBe(true);
  });

  it('reports staleness while the API server is down and converges when it is back', async () => {
    const h = await setUp({ staleAfterMs: 300 }, coreFixture('shop'));
    const stale: StalenessChange[] = [];
    const recovered: StalenessChange[] = [];
    h.store.on('stale', (change) => stale.push(change));
    h.store.on('recovered', (change) => recovered.push(change));
    await h.store.start();
    await churn(h, 0);
    await h.remove('ConfigMap', 'shop/settings');
    await h.remove('Service', 'shop/svc-0');
    await h.server.faults.pause();
    await churn(h, 1);
    await churn(h, 2);
    await waitFor(() => h.store.isStale(), 'the store to report staleness');
    await waitFor(() => stale.length >= 6, 'a stale event per informer');
    expect(h.store.status().some((status) => status.lastError?.phase === 'watch')).toBe(true);
    await h.server.faults.resume();
    await expectConverged(h);
    await waitFor(() => !h.store.isStale(), 'staleness to clear');
    await waitFor(() => recovered.length === stale.length, 'a recovered event per stale event');
    expect(new Set(stale.map((change) => change.kind))).toEqual(
      new Set(recovered.map((change) => change.kind)),
    );
  });

  it('relists after an outage longer than the watch history', async () => {
    const h = await setUp({}, coreFixture('shop'));
    await h.store.start();
    await h.remove('Service', 'shop/web');
    await h.server.faults.pause();
    await churn(h, 0);
    h.server.faults.expireHistory();
    await h.server.faults.resume();
    await expectConverged(h);
  });

  it('reads a newly referenced Secret even when its informer must relist first', async () => {
    const h = await setUp({}, [namespace('shop'), secret('shop', 'basic-auth')]);
    await h.store.start();
    h.server.faults.expireHistory();
    await h.apply(
      ingress('shop', 'front', {
        annotations: { 'nginx.ingress.kubernetes.io/auth-tls-secret': 'shop/basic-auth' },
      }),
    );
    await waitFor(() => h.store.snapshot().secrets.has('shop/basic-auth'), 'the referenced Secret');
    await expectConverged(h);
  });

  it('converges after a random sequence of faults and changes', async () => {
    const h = await setUp({}, [...coreFixture('shop'), ...coreFixture('other')]);
    await h.apply(optionalCrdsYaml);
    await h.apply([gatewayClass('ingresskit'), gateway('shop', 'edge', 'ingresskit')]);
    await h.store.start();
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let step = 0; step < 30; step++) {
      const fault = Math.floor(random() * 6);
      if (fault === 0) h.server.faults.dropWatches();
      else if (fault === 1) h.server.faults.expireHistory();
      else if (fault === 2) {
        // Only the store's requests (paginated lists and watches) fail; the test's own reads must not.
        const match = { path: /limit=|watch=/ };
        h.server.faults.failNext(1 + Math.floor(random() * 4), random() < 0.5 ? 500 : 503, { match });
      } else if (fault === 3) {
        await h.remove('Ingress', `shop/ing-${step - 1}`).catch(() => undefined);
        await h.server.faults.pause();
      } else if (fault === 4) h.server.faults.setLatency(Math.floor(random() * 30));
      await churn(h, step);
      if (random() < 0.3) await h.apply(gateway('other', `gw-${step}`, 'ingresskit'));
      if (h.server.faults.isPaused()) await h.server.faults.resume();
      else if (random() < 0.5)
        await h
          .remove('ConfigMap', random() < 0.5 ? 'shop/settings' : 'other/settings')
          .catch(() => undefined);
    }
    h.server.faults.reset();
    await expectConverged(h, 30_000);
  });

  it('reports no error when stopped while watching', async () => {
    const h = await setUp({}, coreFixture('shop'));
    await h.store.start();
    await churn(h, 0);
    await expectConverged(h);
    await h.store.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.errors).toEqual([]);
  });
});
