/**
 * Reads the Secrets that just became referenced (the Secret informer dropped them as unreferenced),
 * a few at a time, retrying with backoff until a read is applied, made obsolete, or the store stops.
 */
import { splitObjectKey } from '@ingresskit/kube-objects';
import { computeBackoffDelay } from '@ingresskit/task-queue';
import type { ResourceClient } from './api-client.js';
import { InformerError, statusCodeOf } from './errors.js';
import { shapeParsedObject } from './normalize.js';
import type { KubeObject } from './objects.js';
import type { Reflector } from './reflector.js';
import { buildCollectionPath, resourceTypes } from './resources.js';
import type { SecretFetchRequest, StoreState } from './state.js';
import type { StoreSettings } from './store-options.js';

/** What a SecretFetcher reads with, what it applies to, and where it reports. */
export interface SecretFetcherOptions {
  readonly client: ResourceClient;
  readonly settings: StoreSettings;
  /** Decides whether a read is still wanted and takes its result; counts a namespace's Secrets. */
  readonly state: Pick<StoreState, 'isFetchWanted' | 'applyFetchedSecret' | 'countSecretsIn'>;
  /** Once aborted, reads in flight are cancelled and nothing more is read. */
  readonly signal: AbortSignal;
  /** The Secret reflector covering `namespace`, if Secrets are mirrored there. */
  readonly findReflector: (namespace: string | undefined) => Reflector | undefined;
  /** Called after a read's result has been applied to the state, to pass its changes on. */
  readonly onApplied: () => void;
  /** Called for each failed read; the fetcher retries by itself. */
  readonly onError: (error: InformerError) => void;
}

/**
 * A namespace with at least this many Secrets to read, half of its Secrets or more, is read with one
 * paged list instead of a read per Secret: a cold start with 1,000 TLS Ingresses makes a handful of
 * requests rather than 1,000. Its Secrets that are not wanted pass through one page at a time and
 * are never shaped.
 */
const NAMESPACE_READ_MIN = 8;
/** Secrets per page of a namespace read: a Secret may be 1.4 MB of JSON, a page is read whole. */
const NAMESPACE_READ_PAGE = 50;

/** Runs Secret reads requested by the state, at most `secretFetchConcurrency` at once. */
export class SecretFetcher {
  private queue: SecretFetchRequest[] = [];
  private readonly sleeps = new Set<() => void>();
  private readonly active = new Set<Promise<void>>();
  private exactReadsUnsupported = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly options: SecretFetcherOptions) {}

  /** Queues `requests`; reads start on the next microtask, up to the concurrency limit. */
  enqueue(requests: readonly SecretFetchRequest[]): void {
    this.queue.push(...requests);
    // A list being applied asks for reads before its reflector takes the list's resourceVersion,
    // which is what a read is pinned to: start them once the list is applied.
    queueMicrotask(() => this.pump());
  }

  /** Resolves once no read is queued or in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops queued reads and cuts retry waits short; resolves when the reads in flight have ended. Call after aborting the signal. */
  stop(): Promise<void> {
    for (const wake of [...this.sleeps]) wake();
    this.queue.length = 0;
    return Promise.all(this.active).then(() => undefined);
  }

  private pump(): void {
    const limit = this.options.settings.secretFetchConcurrency;
    if (this.queue.length >= NAMESPACE_READ_MIN) this.startNamespaceReads(limit);
    while (this.active.size < limit && this.queue.length > 0 && !this.options.signal.aborted) {
      const request = this.queue.shift()!;
      if (!this.options.state.isFetchWanted(request)) continue;
      const fetching: Promise<void> = this.fetch(request).finally(() => {
        this.active.delete(fetching);
        this.pump();
      });
      this.active.add(fetching);
    }
    if (this.active.size === 0 && (this.queue.length === 0 || this.options.signal.aborted)) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Takes the queued reads of namespaces worth one list each (NAMESPACE_READ_MIN) and starts them. */
  private startNamespaceReads(limit: number): void {
    const { state, signal } = this.options;
    const groups = new Map<string, SecretFetchRequest[]>();
    for (const request of this.queue) {
      const { namespace } = splitSecretKey(request.key);
      if (namespace === undefined || !state.isFetchWanted(request)) continue;
      const group = groups.get(namespace);
      if (group === undefined) groups.set(namespace, [request]);
      else group.push(request);
    }
    for (const [namespace, group] of groups) {
      if (this.active.size >= limit || signal.aborted) return;
      if (group.length < NAMESPACE_READ_MIN || group.length * 2 < state.countSecretsIn(namespace)) continue;
      const taken = new Set(group);
      this.queue = this.queue.filter((request) => !taken.has(request));
      const reading: Promise<void> = this.readNamespace(namespace, group).finally(() => {
        this.active.delete(reading);
        this.pump();
      });
      this.active.add(reading);
    }
  }

  /**
   * Reads the Secrets of `requests`, all in `namespace`, with one paged list pinned like a single
   * read (the first page at the informer's resourceVersion exactly, the others by its continue
   * token). When that list fails, each is read on its own.
   */
  private async readNamespace(namespace: string, requests: SecretFetchRequest[]): Promise<void> {
    const { client, settings, state, signal } = this.options;
    const reflector = this.options.findReflector(namespace);
    const version = reflector?.resourceVersion ?? '';
    // As for one read: a relist is due, and will apply these Secrets with the current references.
    if (reflector === undefined || version === '' || signal.aborted) return;
    const byName = new Map(requests.map((request) => [splitSecretKey(request.key).name, request]));
    const type = resourceTypes.Secret;
    const found = new Map<string, KubeObject>();
    try {
      let continueToken: string | undefined;
      do {
        const page = await client.list({
          path: buildCollectionPath(type, namespace),
          fieldSelector: settings.fieldSelectors?.Secret,
          labelSelector: settings.labelSelectors?.Secret,
          limit: NAMESPACE_READ_PAGE,
          ...(continueToken !== undefined
            ? { continueToken }
            : this.exactReadsUnsupported
              ? {}
              : { resourceVersion: version, resourceVersionMatch: 'Exact' as const }),
          signal,
        });
        for (const item of page.items) {
          const name = (item as { metadata?: { name?: unknown } } | null)?.metadata?.name;
          // Only the Secrets asked for are shaped; the others are dropped with their page.
          if (typeof name !== 'string' || !byName.has(name)) continue;
          const secret = shapeParsedObject(item, type, settings.shapeOptions);
          if (secret !== undefined) found.set(name, secret);
        }
        continueToken = page.continueToken;
      } while (continueToken !== undefined && !signal.aborted);
    } catch (error) {
      if (signal.aborted) return;
      this.options.onError(new InformerError('Secret', namespace, 'fetch', 1, 0, { cause: error }));
      for (const request of requests) await this.fetch(request);
      return;
    }
    if (signal.aborted) return;
    for (const [name, request] of byName) state.applyFetchedSecret(request, found.get(name));
    this.options.onApplied();
  }

  /**
   * Reads the Secret `key` as the API server has it now, shaped as stored; undefined when it does
   * not exist. Rejects when the read fails (it is not retried).
   */
  async read(key: string): Promise<KubeObject | undefined> {
    const { namespace, name } = splitSecretKey(key);
    return this.listByName(namespace, name, undefined);
  }

  /** One list of the Secret `name` in `namespace`, at `version` exactly when given. */
  private async listByName(
    namespace: string | undefined,
    name: string,
    version: string | undefined,
  ): Promise<KubeObject | undefined> {
    const { client, settings, signal } = this.options;
    const type = resourceTypes.Secret;
    const selectors = [`metadata.name=${name}`, settings.fieldSelectors?.Secret].filter(Boolean);
    const page = await client.list({
      path: buildCollectionPath(type, namespace),
      fieldSelector: selectors.join(','),
      labelSelector: settings.labelSelectors?.Secret,
      ...(version === undefined ? {} : { resourceVersion: version, resourceVersionMatch: 'Exact' as const }),
      signal,
    });
    return page.items
      .map((item) => shapeParsedObject(item, type, settings.shapeOptions))
      .find((object): object is KubeObject => object?.metadata.name === name);
  }

  /**
   * Reads a Secret that just became referenced. The read is pinned to the resourceVersion the
   * Secret informer has reached (`resourceVersionMatch=Exact`), so what it returns is exactly the
   * state the watch will continue from: no newer state can be overtaken by an older event.
   */
  private async fetch(request: SecretFetchRequest): Promise<void> {
    const { settings, state, signal } = this.options;
    const { namespace, name } = splitSecretKey(request.key);
    const reflector = this.options.findReflector(namespace);
    for (let attempt = 1; ; attempt++) {
      if (reflector === undefined || signal.aborted || !state.isFetchWanted(request)) return;
      const version = reflector.resourceVersion;
      // A relist is due: it will apply this Secret with the current references.
      if (version === '') return;
      try {
        const secret = await this.listByName(
          namespace,
          name,
          this.exactReadsUnsupported ? undefined : version,
        );
        if (signal.aborted) return;
        state.applyFetchedSecret(request, secret);
        this.options.onApplied();
        return;
      } catch (error) {
        if (signal.aborted) return;
        const status = statusCodeOf(error);
        if (status === 410) {
          // The informer's resourceVersion is already compacted away: relisting covers this Secret.
          reflector.requestRelist();
          return;
        }
        if (status === 400 && !this.exactReadsUnsupported) {
          // Servers without exact reads: read the latest state; the informer's later events still win.
          this.exactReadsUnsupported = true;
          continue;
        }
        const delay = computeBackoffDelay(settings.backoff, attempt, settings.random);
        this.options.onError(
          new InformerError('Secret', namespace, 'fetch', attempt, delay, { cause: error }),
        );
        await this.sleepUnlessStopped(delay);
      }
    }
  }

  private sleepUnlessStopped(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.sleeps.delete(wake);
        timer.cancel();
        resolve();
      };
      const timer = this.options.settings.clock.setTimer(ms, wake);
      this.sleeps.add(wake);
    });
  }
}

/** The namespace and name of a Secret key (`namespace/name`). */
function splitSecretKey(key: string): { namespace: string | undefined; name: string } {
  const namespace = splitObjectKey(key).namespace;
  return { namespace, name: key.slice((namespace?.length ?? -1) + 1) };
}
