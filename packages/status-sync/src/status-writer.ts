/**
 * Writes load-balancer addresses into the status of Ingresses: skip when the cached copy already
 * matches, else re-read, skip when equal, write, and start over on a conflict; a few at a time.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import type { Clock } from '@ingresskit/task-queue';
import type { V1Ingress } from '@kubernetes/client-node';
import type { StatusAddress } from './addresses.js';
import { statusCodeOf, toError } from './api-errors.js';
import { StatusWriteError } from './errors.js';
import { isStatusEqual, toLoadBalancerEntries, type LoadBalancerEntry } from './ingress-status.js';
import { withTimeout } from './timeout.js';

/** The Ingress calls StatusSync makes; `NetworkingV1Api` from @kubernetes/client-node satisfies it. */
export interface IngressStatusApi {
  readNamespacedIngress(param: { name: string; namespace: string }): Promise<V1Ingress>;
  replaceNamespacedIngressStatus(param: {
    name: string;
    namespace: string;
    body: V1Ingress;
  }): Promise<V1Ingress>;
}

/** An Ingress this controller owns, as cached (a typed model or raw watch JSON both fit). */
export interface OwnedIngress {
  metadata?: { name?: string; namespace?: string };
  status?: { loadBalancer?: { ingress?: readonly LoadBalancerEntry[] | null } | null } | null;
}

/** One Ingress whose status could not be written; the others were still handled. */
export interface IngressWriteFailure {
  /** `namespace/name`. */
  key: string;
  error: Error;
}

/** What one publish wrote; keys are `namespace/name`, sorted. */
export interface PublishedStatus {
  written: string[];
  /** How many Ingresses already had the addresses. */
  unchanged: number;
  failed: IngressWriteFailure[];
}

/** Options of {@link createStatusWriter}. */
export interface StatusWriterOptions {
  api: IngressStatusApi;
  /** Most writes in flight at once; an integer ≥ 1. */
  concurrency: number;
  /** Re-read-and-retry rounds after a 409 Conflict on one Ingress. */
  maxConflictRetries: number;
  /** Limit for each request. */
  requestTimeoutMs: number;
  clock: Clock;
}

/** Writes status for a {@link StatusSync}; see {@link createStatusWriter}. */
export interface StatusWriter {
  /**
   * Makes the status of each of `ingresses` say `desired` (already normalized). `canWrite` is asked
   * before each read and each write; a no stops that Ingress quietly. Never rejects: a failure
   * lands in `failed` and the other Ingresses are still handled.
   */
  publish(
    ingresses: readonly OwnedIngress[],
    desired: readonly StatusAddress[],
    canWrite: () => boolean,
  ): Promise<PublishedStatus>;
}

type WriteOutcome = 'written' | 'unchanged' | 'gone' | 'skipped';

/** Creates a writer; it holds no state between calls and starts no timers but its requests' timeouts. */
export function createStatusWriter(options: StatusWriterOptions): StatusWriter {
  const { api, concurrency, maxConflictRetries, requestTimeoutMs, clock } = options;
  const bounded = <T>(promise: Promise<T>, what: string): Promise<T> =>
    withTimeout(promise, requestTimeoutMs, clock, what);

  // Re-read, mutate, skip when equal, write; a 409 means someone wrote in between: start over.
  const writeStatus = async (
    ref: { name: string; namespace: string },
    desired: readonly StatusAddress[],
    canWrite: () => boolean,
  ): Promise<WriteOutcome> => {
    const key = namespacedKey(ref.namespace, ref.name);
    for (let conflicts = 0; ; conflicts++) {
      if (!canWrite()) return 'skipped';
      let current: V1Ingress;
      try {
        current = await bounded(api.readNamespacedIngress(ref), `reading Ingress ${key}`);
      } catch (error) {
        if (statusCodeOf(error) === 404) return 'gone';
        throw new StatusWriteError(`reading Ingress ${key} failed`, { cause: error });
      }
      if (isStatusEqual(current.status?.loadBalancer?.ingress, desired)) return 'unchanged';
      if (!canWrite()) return 'skipped';
      const body: V1Ingress = {
        ...current,
        status: {
          ...current.status,
          loadBalancer: desired.length === 0 ? {} : { ingress: toLoadBalancerEntries(desired) },
        },
      };
      try {
        await bounded(api.replaceNamespacedIngressStatus({ ...ref, body }), `writing Ingress ${key} status`);
        return 'written';
      } catch (error) {
        const code = statusCodeOf(error);
        if (code === 404) return 'gone';
        if (code !== 409)
          throw new StatusWriteError(`writing the status of Ingress ${key} failed`, { cause: error });
        if (conflicts >= maxConflictRetries) {
          throw new StatusWriteError(
            `writing the status of Ingress ${key} conflicted ${conflicts + 1} times`,
            { cause: error },
          );
        }
      }
    }
  };

  const publish: StatusWriter['publish'] = async (ingresses, desired, canWrite) => {
    const written: string[] = [];
    const failed: IngressWriteFailure[] = [];
    let unchanged = 0;
    const stale: { name: string; namespace: string }[] = [];
    for (const ingress of ingresses) {
      const name = ingress.metadata?.name;
      const namespace = ingress.metadata?.namespace;
      if (name === undefined || namespace === undefined) continue;
      // The cached copy saves a GET per Ingress per interval; a stale cache only delays a write.
      if (isStatusEqual(ingress.status?.loadBalancer?.ingress, desired)) unchanged += 1;
      else stale.push({ name, namespace });
    }
    await runLimited(stale, concurrency, async (ref) => {
      const key = namespacedKey(ref.namespace, ref.name);
      try {
        const outcome = await writeStatus(ref, desired, canWrite);
        if (outcome === 'written') written.push(key);
        if (outcome === 'unchanged') unchanged += 1;
      } catch (error) {
        failed.push({ key, error: toError(error) });
      }
    });
    return { written: written.sort(), unchanged, failed: failed.sort((a, b) => (a.key < b.key ? -1 : 1)) };
  };

  return { publish };
}

/** Runs `work` over `items` with at most `limit` calls in flight; `work` must not reject. */
async function runLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
