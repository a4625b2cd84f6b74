/**
 * The controller's memory over a run: RSS split into anonymous and file-backed pages (/proc), and
 * what Node says of its heap and external memory (prom-client's default metrics, which both
 * controllers export with the `ingresskit_` prefix; NaN when a controller does not).
 */
import type { ControllerProcess } from './controller-process.js';
import { readMetric } from './controller-process.js';

/** One sample, MiB unless named otherwise. */
export interface MemorySample {
  /** Successful syncs so far (`ingresskit_syncs_total{result="success"}`). */
  syncs: number;
  rss: number;
  /** RssAnon: V8 heap, code, ArrayBuffers, malloc arenas. */
  anon: number;
  /** RssFile: the node binary and shared libraries. */
  file: number;
  /** V8 heap used / committed (`nodejs_heap_size_*`). */
  heapUsed: number;
  heapTotal: number;
  /** Memory V8 tracks outside its heap (Buffers, ArrayBuffers; `nodejs_external_memory_bytes`). */
  external: number;
}

const MiB = 2 ** 20;

/** What a sample reads of /metrics. */
const SAMPLED_METRICS = [
  'ingresskit_syncs_total',
  'ingresskit_nodejs_heap_size_used_bytes',
  'ingresskit_nodejs_heap_size_total_bytes',
  'ingresskit_nodejs_external_memory_bytes',
];

/**
 * Samples `controller`'s memory. Only the metrics it reads: a whole scrape renders every request
 * series of nginx (tens of MiB of garbage at 10,000 routes that took traffic), and a sample every
 * few changes would then measure the scrape instead of the syncs. What a scrape costs is measured
 * on its own (controller-memory's scrape row).
 */
export async function sampleMemory(controller: ControllerProcess): Promise<MemorySample> {
  const text = await controller.metricsText(SAMPLED_METRICS);
  const memory = controller.memory();
  const metric = (name: string) => readMetric(text, `ingresskit_${name}`, {}, Number.NaN) / MiB;
  return {
    syncs: readMetric(text, 'ingresskit_syncs_total', { result: 'success' }),
    rss: memory.rss,
    anon: memory.anon,
    file: memory.file,
    heapUsed: metric('nodejs_heap_size_used_bytes'),
    heapTotal: metric('nodejs_heap_size_total_bytes'),
    external: metric('nodejs_external_memory_bytes'),
  };
}

/** The least-squares slope of `y` over `x` (growth per unit of x). */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}
