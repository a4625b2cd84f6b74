/**
 * The addresses of the names ExternalName Services point at, resolved as the pod resolves them
 * (system-lookup.ts: /etc/hosts, the cluster DNS and its search domains) and looked up again every
 * 30 s, as nginx's own resolver would. The routes are pinned to these addresses
 * (ingress-routes `pinExternalName`), so nginx connects only to addresses the backend address
 * policy let through: a tenant's DNS answer cannot point it at loopback or the metadata service.
 *
 * A tenant controls their names' DNS, and so how long a lookup takes. One tenant's names must
 * never delay another's: names are kept per namespace, each namespace has at most
 * `maxLookupsPerNamespace` lookups running (fair-queue.ts: namespaces take turns, within
 * `maxLookups` overall), a lookup that takes longer than `timeoutMs` counts as failed (ETIMEOUT,
 * which the routes report as an Event naming the Service and `spec.externalName`), and a name
 * that failed is looked up again with backoff. A lookup holds its namespace's slot until it really
 * ends: the system lookup stops when asked, a lookup that cannot be stopped keeps counting.
 */
import {
  computeBackoffDelay,
  systemClock,
  type BackoffPolicy,
  type Clock,
  type Timer,
} from '@ingresskit/task-queue';
import type { NameResolution } from '@ingresskit/ingress-routes';
import { namespacedKey } from '@ingresskit/kube-objects';
import { FairQueue } from './fair-queue.js';
import type { LookupName } from './system-lookup.js';

/**
 * The key of the name `hostname` as the Services of `namespace` use it: `namespace/hostname`,
 * kube-objects' `namespacedKey`, so that a stage that must not load this package builds it alike.
 */
export function externalNameKey(namespace: string, hostname: string): string {
  return namespacedKey(namespace, hostname);
}

/** Where ExternalNames says a name's addresses changed or it stopped resolving: debug lines (pino's logger fits). */
export interface NameLogger {
  debug(fields: Record<string, unknown>, message: string): void;
}

/** Options of {@link ExternalNames}. */
export interface ExternalNamesOptions {
  /** How names are resolved: createSystemLookup over readResolvConf() and readHostsFile() resolves them as a pod would. */
  lookup: LookupName;
  /** How often a resolved name is looked up again; 30 s by default. */
  refreshMs?: number;
  /** How long one lookup may take before it counts as failed (ETIMEOUT); 10 s by default. */
  timeoutMs?: number;
  /** Most lookups of one namespace running at once; 2 by default. */
  maxLookupsPerNamespace?: number;
  /** Most lookups running at once; 32 by default. */
  maxLookups?: number;
  /** When a failed name is looked up again; from 1 s doubling to 5 min by default. */
  retry?: BackoffPolicy;
  /** task-queue's systemClock by default. */
  clock?: Clock;
  /** Whether a route still uses the name; names no route uses are forgotten when next due. */
  inUse: (namespace: string, hostname: string) => boolean;
  /** The resolution of these names (externalNameKey) changed, the first one included: their backends need pinning again. */
  onChange: (keys: string[]) => void;
  /** No log lines when unset. */
  logger?: NameLogger;
}

const DEFAULT_RETRY: BackoffPolicy = { initialMs: 1_000, maxMs: 300_000, jitter: 0.1 };

interface NameEntry {
  readonly namespace: string;
  readonly hostname: string;
  readonly key: string;
  resolution: NameResolution | undefined;
  /** Failed lookups in a row. */
  failures: number;
  /** When it is looked up next; undefined while queued or looking up. */
  timer: Timer | undefined;
}

/** The addresses of the ExternalName Services' names per namespace, kept fresh; see the module comment. */
export class ExternalNames {
  readonly #options: ExternalNamesOptions;
  readonly #clock: Clock;
  readonly #queue: FairQueue;
  readonly #entries = new Map<string, NameEntry>();
  /** Lookups running and their deadlines, to stop them on shutdown. */
  readonly #running = new Map<AbortController, Timer>();
  #stopped = false;

  constructor(options: ExternalNamesOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#queue = new FairQueue({
      perTenant: options.maxLookupsPerNamespace ?? 2,
      total: options.maxLookups ?? 32,
    });
  }

  /**
   * The last resolution of `hostname` for the Services of `namespace`, or undefined while it is
   * first being resolved (onChange tells when it is done). From its first call on, the name is
   * kept fresh.
   */
  resolution(namespace: string, hostname: string): NameResolution | undefined {
    const key = externalNameKey(namespace, hostname);
    const entry = this.#entries.get(key);
    if (entry !== undefined) return entry.resolution;
    if (this.#stopped) return undefined;
    const created: NameEntry = {
      namespace,
      hostname,
      key,
      resolution: undefined,
      failures: 0,
      timer: undefined,
    };
    this.#entries.set(key, created);
    this.#enqueue(created);
    return undefined;
  }

  /** Stops every timer and lookup; resolutions are kept but no longer refreshed. */
  stop(): void {
    this.#stopped = true;
    this.#queue.stop();
    for (const entry of this.#entries.values()) entry.timer?.cancel();
    for (const [controller, deadline] of this.#running) {
      deadline.cancel();
      controller.abort();
    }
  }

  #enqueue(entry: NameEntry): void {
    this.#queue.push(entry.namespace, entry.key, () => this.#lookUp(entry));
  }

  /** Looks `entry` up once; resolves when the lookup really ended, which may be after its deadline. */
  async #lookUp(entry: NameEntry): Promise<void> {
    if (this.#entries.get(entry.key) !== entry) return;
    const controller = new AbortController();
    let isDecided = false;
    const decide = (next: NameResolution) => {
      if (isDecided) return;
      isDecided = true;
      deadline.cancel();
      this.#record(entry, next);
    };
    const deadline = this.#clock.setTimer(this.#options.timeoutMs ?? 10_000, () => {
      decide({ error: 'ETIMEOUT' });
      controller.abort();
    });
    this.#running.set(controller, deadline);
    try {
      const addresses = await this.#options.lookup(entry.hostname, { signal: controller.signal });
      decide({ addresses: [...new Set(addresses)].sort() });
    } catch (error) {
      decide({ error: errorCode(error) });
    } finally {
      this.#running.delete(controller);
    }
  }

  #record(entry: NameEntry, next: NameResolution): void {
    if (this.#stopped || this.#entries.get(entry.key) !== entry) return;
    const changed = !sameResolution(entry.resolution, next);
    entry.resolution = next;
    entry.failures = 'error' in next ? entry.failures + 1 : 0;
    const delay =
      'error' in next
        ? computeBackoffDelay(this.#options.retry ?? DEFAULT_RETRY, entry.failures)
        : (this.#options.refreshMs ?? 30_000);
    entry.timer = this.#clock.setTimer(delay, () => this.#due(entry));
    if (!changed) return;
    const { namespace, hostname } = entry;
    if ('error' in next)
      this.#options.logger?.debug(
        { namespace, hostname, error: next.error },
        'ExternalName does not resolve',
      );
    else this.#options.logger?.debug({ namespace, hostname }, 'ExternalName addresses changed');
    this.#options.onChange([entry.key]);
  }

  #due(entry: NameEntry): void {
    entry.timer = undefined;
    if (this.#options.inUse(entry.namespace, entry.hostname)) this.#enqueue(entry);
    else this.#entries.delete(entry.key);
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : String(error);
}

function sameResolution(a: NameResolution | undefined, b: NameResolution): boolean {
  if (a === undefined) return false;
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b && a.error === b.error;
  return (
    a.addresses.length === b.addresses.length && a.addresses.every((address, i) => address === b.addresses[i])
  );
}
