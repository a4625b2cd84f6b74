/**
 * Writes Gateway and HTTPRoute statuses through the status subresource, leader only. The
 * controller hands it the statuses of the last translation once nginx serves them; it keeps only
 * the latest, compares each object as the store has it, writes what differs (PUT with the read
 * resourceVersion) and, on a conflict, reads the object again and retries. A failed round is
 * retried with backoff; a newer `publish` supersedes it.
 */
import {
  markGatewayProgrammed,
  mergeGatewayStatus,
  mergeRouteParents,
  type GatewayApiTranslation,
  type GatewayStatusAddress,
  type GatewayStatusEntry,
  type HTTPRouteStatusEntry,
} from '@ingresskit/gateway-routes';
import { formatConditionTime } from '@ingresskit/gateway-class';
import { GATEWAY_API_GROUP, namespacedKey } from '@ingresskit/kube-objects';
import {
  computeBackoffDelay,
  systemClock,
  systemWallClock,
  type BackoffPolicy,
  type Clock,
  type Timer,
  type WallClock,
} from '@ingresskit/task-queue';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { sourceKey } from '@ingresskit/route-model';
import type { CustomObject } from '@ingresskit/store';
import { GatewayStatusWriteError } from './errors.js';
import type { Logger } from './logger.js';

/** Options of {@link GatewayStatusWriter}. */
export interface GatewayStatusWriterOptions {
  kubeConfig: KubeConfig;
  controllerName: string;
  isLeader: () => boolean;
  /** The object as the store has it now (`Gateway` or `HTTPRoute`, `namespace/name`). */
  readCached: (kind: 'Gateway' | 'HTTPRoute', key: string) => CustomObject | undefined;
  /** Every HTTPRoute the store has (to find our entries on routes no longer attached to us). */
  listCachedRoutes: () => Iterable<CustomObject>;
  /** The addresses to publish (the Ingress status sources); rejects when they cannot be read. */
  resolveAddresses: () => Promise<GatewayStatusAddress[]>;
  logger: Logger;
  /** Source of `lastTransitionTime`; `Date.now` by default. */
  now?: WallClock;
  /** Source of the retry timers; task-queue's `systemClock` by default. */
  clock?: Clock;
}

const MAX_CONFLICT_RETRIES = 5;
const retryBackoff: BackoffPolicy = { initialMs: 500, maxMs: 30_000 };

/** What the last served translation says the statuses are. */
interface Desired {
  gateways: readonly GatewayStatusEntry[];
  httpRoutes: readonly HTTPRouteStatusEntry[];
}

function statusCodeOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Writes the latest Gateway and HTTPRoute statuses, retrying conflicts and failed rounds. */
export class GatewayStatusWriter {
  readonly #options: GatewayStatusWriterOptions;
  readonly #api: CustomObjectsApi;
  #desired: Desired | undefined;
  #dirty = false;
  #running: Promise<void> | undefined;
  #retryTimer: Timer | undefined;
  #failures = 0;
  #stopped = false;

  constructor(options: GatewayStatusWriterOptions) {
    this.#options = options;
    this.#api = options.kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /**
   * The statuses of `translation`, which the data plane now serves: every Gateway is Programmed
   * (invalid listeners keep theirs). Written soon if this replica leads.
   */
  publish(translation: GatewayApiTranslation): void {
    this.#desired = {
      gateways: translation.statuses.gateways.map((entry) => ({
        ...entry,
        status: markGatewayProgrammed(entry.status, { programmed: true }),
      })),
      httpRoutes: translation.statuses.httpRoutes,
    };
    this.resync();
  }

  /** Writes the last published statuses again where they differ (e.g. on becoming leader). */
  resync(): void {
    if (this.#stopped || this.#desired === undefined) return;
    this.#dirty = true;
    this.#retryTimer?.cancel();
    this.#retryTimer = undefined;
    this.#running ??= this.#loop().finally(() => (this.#running = undefined));
  }

  /** Stops retrying; waits for a round in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#retryTimer?.cancel();
    this.#retryTimer = undefined;
    await this.#running;
  }

  async #loop(): Promise<void> {
    while (this.#dirty && !this.#stopped) {
      this.#dirty = false;
      if (!this.#options.isLeader() || this.#desired === undefined) return;
      try {
        await this.#writeAll(this.#desired);
        this.#failures = 0;
      } catch (error) {
        this.#failures += 1;
        const delay = computeBackoffDelay(retryBackoff, this.#failures);
        this.#options.logger.warn(
          { err: error, retryInMs: delay },
          'Gateway API status write failed; retrying',
        );
        if (!this.#dirty && !this.#stopped)
          this.#retryTimer = (this.#options.clock ?? systemClock).setTimer(delay, () => {
            this.#retryTimer = undefined;
            this.resync();
          });
        return;
      }
    }
  }

  async #writeAll(desired: Desired): Promise<void> {
    const now = formatConditionTime(new Date((this.#options.now ?? systemWallClock)()));
    let addresses: GatewayStatusAddress[] | undefined;
    const written: string[] = [];
    const failed: { key: string; error: unknown }[] = [];
    const attempt = async (key: string, write: () => Promise<boolean>) => {
      try {
        if (await write()) written.push(key);
      } catch (error) {
        failed.push({ key, error });
      }
    };
    for (const entry of desired.gateways) {
      // Addresses are resolved once a round, and only when some Gateway is ours.
      const resolved = (addresses ??= await this.#options.resolveAddresses());
      await attempt(sourceKey({ kind: 'Gateway', namespace: entry.namespace, name: entry.name }), () =>
        this.#writeOne('Gateway', 'gateways', entry, (current) =>
          mergeGatewayStatus(current, entry.status, resolved, now),
        ),
      );
    }
    // A route whose parent Gateway went away (or left our classes) is no longer in the
    // translation; our entries in its status must go, or they would say it is still served.
    const listed = new Set(desired.httpRoutes.map((entry) => namespacedKey(entry.namespace, entry.name)));
    const orphans: HTTPRouteStatusEntry[] = [];
    for (const route of this.#options.listCachedRoutes()) {
      const { namespace = '', name } = route.metadata;
      if (!listed.has(namespacedKey(namespace, name)) && this.#hasOurParents(route))
        orphans.push({ namespace, name, parents: [] });
    }
    for (const entry of [...desired.httpRoutes, ...orphans]) {
      await attempt(sourceKey({ kind: 'HTTPRoute', namespace: entry.namespace, name: entry.name }), () =>
        this.#writeOne('HTTPRoute', 'httproutes', entry, (current) => {
          const parents = mergeRouteParents(current, entry.parents, this.#options.controllerName, now);
          return parents === undefined ? undefined : { ...(isRecord(current) ? current : {}), parents };
        }),
      );
    }
    if (written.length > 0) this.#options.logger.info({ written }, 'Gateway API status published');
    // One object failing does not hold the others back; the round is retried as a whole.
    if (failed.length > 0) {
      throw new GatewayStatusWriteError(
        `cannot write the status of ${failed.map((entry) => entry.key).join(', ')}`,
        { cause: failed[0]!.error },
      );
    }
  }

  #hasOurParents(route: CustomObject): boolean {
    const parents = route.status?.parents;
    return (
      Array.isArray(parents) &&
      parents.some((parent) => isRecord(parent) && parent.controllerName === this.#options.controllerName)
    );
  }

  /** Writes one object's status if it differs; true when written. */
  async #writeOne(
    kind: 'Gateway' | 'HTTPRoute',
    plural: string,
    entry: { namespace: string; name: string },
    merge: (current: unknown) => Record<string, unknown> | undefined,
  ): Promise<boolean> {
    const { namespace, name } = entry;
    let object: CustomObject | undefined = this.#options.readCached(kind, namespacedKey(namespace, name));
    for (let attempt = 0; ; attempt++) {
      if (object === undefined || !this.#options.isLeader()) return false;
      const status = merge(object.status);
      if (status === undefined) return false;
      try {
        await this.#api.replaceNamespacedCustomObjectStatus({
          group: GATEWAY_API_GROUP,
          version: 'v1',
          namespace,
          plural,
          name,
          body: { ...object, status },
        });
        return true;
      } catch (error) {
        const code = statusCodeOf(error);
        if (code === 404) return false;
        if (code !== 409 || attempt >= MAX_CONFLICT_RETRIES) throw error;
        // The store's copy was stale (or someone else wrote): read it fresh and decide again.
        object = await this.#api
          .getNamespacedCustomObject({ group: GATEWAY_API_GROUP, version: 'v1', namespace, plural, name })
          .then(
            (fresh) => fresh as CustomObject,
            (readError: unknown) => {
              if (statusCodeOf(readError) === 404) return undefined;
              throw readError;
            },
          );
      }
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
