/**
 * Tasks of many tenants, run fairly: at most `perTenant` of one tenant's at a time and `total`
 * overall, a free slot going to the waiting tenant that started a task least recently. One tenant's
 * slow or stuck tasks hold its own slots only; another tenant's next task starts as soon as a
 * slot is free. A task holds its slot until its promise settles, whatever its caller stopped
 * waiting for: a task that cannot be stopped keeps counting against its tenant.
 */

/** One task: its id (queued once at a time) and the work; the promise must not reject. */
interface QueuedTask {
  readonly id: string;
  readonly run: () => Promise<void>;
}

interface TenantState {
  readonly queue: QueuedTask[];
  running: number;
  /** When it last started a task, as a sequence number; -1: not since it was last idle. */
  lastStart: number;
}

/** Options of {@link FairQueue}. */
export interface FairQueueOptions {
  /** Most tasks of one tenant running at once. */
  perTenant: number;
  /** Most tasks running at once. */
  total: number;
}

/** Runs tasks per tenant under the limits of its options; see the module comment. */
export class FairQueue {
  readonly #options: FairQueueOptions;
  readonly #tenants = new Map<string, TenantState>();
  readonly #queued = new Set<string>();
  #starts = 0;
  #running = 0;
  #stopped = false;

  constructor(options: FairQueueOptions) {
    this.#options = options;
  }

  /** How many tasks run now. */
  get running(): number {
    return this.#running;
  }

  /** Whether a task with this id waits to run. */
  isQueued(id: string): boolean {
    return this.#queued.has(id);
  }

  /**
   * Queues `run` for `tenant` under `id`, unless a task with that id is queued already (then
   * false). It starts at once if the limits allow.
   */
  push(tenant: string, id: string, run: () => Promise<void>): boolean {
    if (this.#stopped || this.#queued.has(id)) return false;
    this.#queued.add(id);
    let state = this.#tenants.get(tenant);
    if (state === undefined) {
      state = { queue: [], running: 0, lastStart: -1 };
      this.#tenants.set(tenant, state);
    }
    state.queue.push({ id, run });
    this.#pump();
    return true;
  }

  /** Drops every queued task and starts none any more; running ones finish on their own. */
  stop(): void {
    this.#stopped = true;
    this.#queued.clear();
    for (const state of this.#tenants.values()) state.queue.length = 0;
  }

  #pump(): void {
    while (this.#running < this.#options.total) {
      let next: [string, TenantState] | undefined;
      for (const entry of this.#tenants) {
        const [, state] = entry;
        if (state.queue.length === 0 || state.running >= this.#options.perTenant) continue;
        if (next === undefined || state.lastStart < next[1].lastStart) next = entry;
      }
      if (next === undefined) return;
      const [tenant, state] = next;
      state.lastStart = this.#starts++;
      this.#start(tenant, state, state.queue.shift()!);
    }
  }

  #start(tenant: string, state: TenantState, task: QueuedTask): void {
    this.#queued.delete(task.id);
    state.running += 1;
    this.#running += 1;
    const release = () => {
      state.running -= 1;
      this.#running -= 1;
      if (state.running === 0 && state.queue.length === 0) this.#tenants.delete(tenant);
      if (!this.#stopped) this.#pump();
    };
    // Tasks do not reject (their contract); one that did still gives its slot back.
    void task.run().then(release, release);
  }
}
