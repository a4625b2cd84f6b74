/**
 * Kubernetes Events (events.k8s.io/v1) about the objects the controller reads: ignored Ingresses,
 * problems in Ingresses, checksum mismatches, failed reloads. The same object, type, reason and
 * note seen again updates the existing Event's `series` (count and last time) instead of creating
 * another Event, as client-go's event recorder does. Writes run one at a time in the background;
 * a failed write is counted and logged, never thrown at the caller.
 */
import { formatMicroTime } from '@ingresskit/status-sync';
import {
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  type EventsV1Event,
  type KubeConfig,
} from '@kubernetes/client-node';

/** The object an Event is about. */
export interface EventSubject {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
}

/** One thing worth telling the owner of an object. */
export interface EventReport {
  regarding: EventSubject;
  type: 'Normal' | 'Warning';
  /** UpperCamelCase, machine readable, e.g. `InvalidConfiguration`. */
  reason: string;
  /** What the controller was doing, e.g. `Sync`. */
  action: string;
  /** The human-readable message (cut to 1 kB, the API limit). */
  note: string;
}

/** The two writes the recorder makes; {@link createEventsApiSink} adapts client-node's EventsV1Api. */
export interface EventSink {
  create(namespace: string, event: EventsV1Event): Promise<void>;
  /** Merge-patches `series`; rejects with an error carrying `code: 404` when the Event is gone. */
  patchSeries(
    namespace: string,
    name: string,
    series: { count: number; lastObservedTime: string },
  ): Promise<void>;
}

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  sink: EventSink;
  /** `reportingController`, e.g. the controller class. */
  reportingController: string;
  /** `reportingInstance`: this replica (pod name). */
  reportingInstance: string;
  /** Namespace of Events about cluster-scoped objects; `default` by default. */
  clusterEventNamespace?: string;
  /** Wall clock; `() => new Date()` by default. */
  now?: () => Date;
  /** A repeat after this long creates a new Event instead of a series update; 1 h by default (Events expire after 1 h). */
  seriesWindowMs?: number;
  /** How many distinct Events are remembered for de-duplication; 4096 by default. */
  cacheSize?: number;
  /** Called for every failed write (the recorder goes on). */
  onError?: (error: unknown, report: EventReport) => void;
  /** Called after every write: `created` or `updated`. */
  onWrite?: (action: 'created' | 'updated', report: EventReport) => void;
}

interface CachedEvent {
  namespace: string;
  name: string;
  count: number;
  firstSeen: number;
}

const MAX_NOTE_BYTES = 1024;

/** De-duplicating Event writer; see the module comment. */
export class EventRecorder {
  readonly #options: EventRecorderOptions;
  readonly #now: () => Date;
  readonly #seriesWindowMs: number;
  readonly #cacheSize: number;
  // Insertion order doubles as recency: a hit is deleted and re-inserted.
  readonly #cache = new Map<string, CachedEvent>();
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;
  #lastNanos = 0n;

  constructor(options: EventRecorderOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#seriesWindowMs = options.seriesWindowMs ?? 3_600_000;
    this.#cacheSize = options.cacheSize ?? 4096;
  }

  /** Queues the report; resolves at once. Use {@link flush} to wait for the writes. */
  record(report: EventReport): void {
    this.#pending += 1;
    // The time of the observation, not of the (queued) write.
    const observedAt = this.#now();
    this.#tail = this.#tail
      .then(() => this.#write(report, observedAt))
      .catch((error: unknown) => this.#options.onError?.(error, report))
      .finally(() => {
        this.#pending -= 1;
      });
  }

  /** Resolves when every queued write has finished. */
  flush(): Promise<void> {
    return this.#tail;
  }

  /** Writes still queued or running. */
  pending(): number {
    return this.#pending;
  }

  async #write(report: EventReport, now: Date): Promise<void> {
    const key = dedupKey(report);
    const cached = this.#cache.get(key);
    if (cached !== undefined && now.getTime() - cached.firstSeen < this.#seriesWindowMs) {
      const count = cached.count + 1;
      try {
        await this.#options.sink.patchSeries(cached.namespace, cached.name, {
          count,
          lastObservedTime: formatMicroTime(now),
        });
        cached.count = count;
        this.#touch(key, cached);
        this.#options.onWrite?.('updated', report);
        return;
      } catch (error) {
        // Deleted or expired by the API server: start a new Event below.
        if (statusCodeOf(error) !== 404) throw error;
        this.#cache.delete(key);
      }
    }
    const namespace = report.regarding.namespace || (this.#options.clusterEventNamespace ?? 'default');
    const name = `${report.regarding.name}.${this.#uniqueSuffix(now)}`;
    await this.#options.sink.create(namespace, this.#buildEvent(report, namespace, name, now));
    this.#touch(key, { namespace, name, count: 1, firstSeen: now.getTime() });
    this.#options.onWrite?.('created', report);
  }

  #buildEvent(report: EventReport, namespace: string, name: string, now: Date): EventsV1Event {
    const regarding: EventsV1Event['regarding'] = {
      apiVersion: report.regarding.apiVersion,
      kind: report.regarding.kind,
      name: report.regarding.name,
    };
    if (report.regarding.namespace) regarding.namespace = report.regarding.namespace;
    if (report.regarding.uid) regarding.uid = report.regarding.uid;
    if (report.regarding.resourceVersion) regarding.resourceVersion = report.regarding.resourceVersion;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      // MicroTime needs six fractional digits; a Date would serialize with three (rejected).
      eventTime: formatMicroTime(now) as unknown as Date,
      reportingController: this.#options.reportingController,
      reportingInstance: this.#options.reportingInstance,
      action: report.action,
      reason: report.reason,
      note: truncateUtf8(report.note, MAX_NOTE_BYTES),
      type: report.type,
      regarding,
    };
  }

  #touch(key: string, entry: CachedEvent): void {
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    while (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next().value;
      if (oldest === undefined) break;
      this.#cache.delete(oldest);
    }
  }

  // client-go names Events `<object>.<unix nanos in hex>`; keep them unique within this process.
  #uniqueSuffix(now: Date): string {
    let nanos = BigInt(now.getTime()) * 1_000_000n;
    if (nanos <= this.#lastNanos) nanos = this.#lastNanos + 1n;
    this.#lastNanos = nanos;
    return nanos.toString(16);
  }
}

/** The identity of an Event for de-duplication: object, type, reason and note. */
export function dedupKey(report: EventReport): string {
  const subject = report.regarding;
  return [
    subject.kind,
    subject.namespace ?? '',
    subject.name,
    subject.uid ?? '',
    report.type,
    report.reason,
    report.note,
  ].join('\u0000');
}

/** An {@link EventSink} writing through client-node's EventsV1Api. */
export function createEventsApiSink(kubeConfig: KubeConfig): EventSink {
  const api = kubeConfig.makeApiClient(EventsV1Api);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return {
    async create(namespace, body) {
      await api.createNamespacedEvent({ namespace, body });
    },
    async patchSeries(namespace, name, series) {
      await api.patchNamespacedEvent({ name, namespace, body: { series } }, mergePatch);
    },
  };
}

/** The HTTP status of a client-node ApiException (or anything with a numeric `code`), if any. */
export function statusCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let cut = text.slice(0, maxBytes);
  while (Buffer.byteLength(cut) > maxBytes - 3) cut = cut.slice(0, -1);
  return `${cut}...`;
}
