/**
 * Metrics whose values are read when Prometheus scrapes (from nginx, from /proc), in prom-client's
 * metric shape, and the one read that all the metrics of a scrape share.
 */
import { systemClock, type Clock } from '@ingresskit/task-queue';
import type { Registry } from 'prom-client';

/** One value of a scraped metric. */
export interface ScrapedValue {
  labels: Record<string, string>;
  value: number;
}

/** Registers metric `name` in `registry`; `values` is called at each scrape. */
export function registerScrapedMetric(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'gauge',
  values: () => Promise<ScrapedValue[]>,
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: await values() }),
    reset: () => undefined,
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

/**
 * Wraps `read` so that calls within a second share one read: prom-client asks each metric of a
 * scrape in turn, and they should show one moment (and cost one read).
 */
export function shareReadPerScrape<T>(read: () => Promise<T>, clock: Clock = systemClock): () => Promise<T> {
  let last: { at: number; result: Promise<T> } | undefined;
  return () => {
    const now = clock.now();
    if (last !== undefined && now - last.at < 1_000) return last.result;
    last = { at: now, result: read() };
    return last.result;
  };
}
