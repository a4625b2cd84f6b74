/**
 * Health of the store's list+watch loops: the status of each, and the `stale` report made when one
 * stays unable to list or watch for `staleAfterMs` (then `recovered` once it works again).
 */
import type { Clock } from '@ingresskit/task-queue';
import type { InformerError } from './errors.js';
import type { Reflector, ReflectorPhase } from './reflector.js';
import type { ResourceKind } from './resources.js';

/** Health of one list+watch loop (one kind, one namespace or all). */
export interface InformerStatus {
  readonly kind: ResourceKind;
  readonly namespace: string | undefined;
  readonly phase: ReflectorPhase;
  readonly synced: boolean;
  readonly resourceVersion: string;
  /** Clock time of the last event, bookmark or list. */
  readonly lastEventAt: number | undefined;
  /** Since when the loop has not been listing/watching successfully; undefined while healthy. */
  readonly unhealthySince: number | undefined;
  /** Unhealthy for at least `staleAfterMs`. */
  readonly stale: boolean;
  readonly lastError: InformerError | undefined;
}

/** Payload of `stale` and `recovered`. */
export interface StalenessChange {
  readonly kind: ResourceKind;
  readonly namespace: string | undefined;
  /** When the informer became unhealthy (clock ms). */
  readonly since: number;
}

/** Describes `reflector` at clock time `now`; it is stale once unhealthy for `staleAfterMs`. */
export function describeInformer(reflector: Reflector, now: number, staleAfterMs: number): InformerStatus {
  return {
    kind: reflector.kind,
    namespace: reflector.namespace,
    phase: reflector.phase,
    synced: reflector.hasSynced,
    resourceVersion: reflector.resourceVersion,
    lastEventAt: reflector.lastEventAt,
    unhealthySince: reflector.unhealthySince,
    stale: reflector.unhealthySince !== undefined && now - reflector.unhealthySince >= staleAfterMs,
    lastError: reflector.lastError,
  };
}

/** What a StalenessTracker needs: the clock, the threshold, the store's stop signal and where to report. */
export interface StalenessTrackerOptions {
  readonly clock: Clock;
  readonly staleAfterMs: number;
  /** Once aborted, nothing is tracked or reported any more. */
  readonly signal: AbortSignal;
  readonly onStale: (change: StalenessChange) => void;
  readonly onRecovered: (change: StalenessChange) => void;
}

/**
 * Reports a reflector stale once it has been unhealthy for `staleAfterMs` without a break, and
 * recovered when a reported one is healthy again; each unhealthy stretch is reported at most once.
 */
export class StalenessTracker {
  private readonly timers = new Map<Reflector, { since: number; cancel: () => void }>();
  private readonly reported = new Map<Reflector, number>();

  constructor(private readonly options: StalenessTrackerOptions) {}

  /** Looks at `reflector` again after its phase or health changed. */
  track(reflector: Reflector): void {
    if (this.options.signal.aborted || reflector.phase === 'stopped') return;
    const since = reflector.unhealthySince;
    const timer = this.timers.get(reflector);
    if (since === undefined) {
      timer?.cancel();
      this.timers.delete(reflector);
      const reportedSince = this.reported.get(reflector);
      if (reportedSince !== undefined) {
        this.reported.delete(reflector);
        this.options.onRecovered(describeStaleness(reflector, reportedSince));
      }
      return;
    }
    if (timer?.since === since || this.reported.has(reflector)) return;
    timer?.cancel();
    const { clock, staleAfterMs } = this.options;
    const staleTimer = clock.setTimer(Math.max(0, since + staleAfterMs - clock.now()), () => {
      this.timers.delete(reflector);
      if (reflector.unhealthySince !== since || reflector.phase === 'stopped') return;
      this.reported.set(reflector, since);
      this.options.onStale(describeStaleness(reflector, since));
    });
    this.timers.set(reflector, { since, cancel: () => staleTimer.cancel() });
  }

  /** Stops tracking `reflector` (it was retired) without reporting anything. */
  forget(reflector: Reflector): void {
    this.timers.get(reflector)?.cancel();
    this.timers.delete(reflector);
    this.reported.delete(reflector);
  }

  /** Cancels every pending stale report. */
  stop(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.timers.clear();
  }
}

function describeStaleness(reflector: Reflector, since: number): StalenessChange {
  return { kind: reflector.kind, namespace: reflector.namespace, since };
}
