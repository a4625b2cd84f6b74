/** Injected failures and latency: how a client copes with an API server that errs or lags. */
import { buildFailureStatus, reasonForCode, type KubeStatus } from './errors.js';

/** Which requests an injected failure applies to; every given field must match. */
export interface RequestMatcher {
  /** HTTP method, e.g. `GET`. */
  method?: string;
  /** A substring of, or a pattern for, the path with its query string. */
  path?: string | RegExp;
  /** Only watch requests (`true`) or only non-watch requests (`false`). */
  watch?: boolean;
}

/** How `failNext` answers. */
export interface FailureOptions {
  message?: string;
  reason?: string;
  match?: RequestMatcher;
}

/** The request facts faults are matched against. */
export interface FaultRequest {
  method: string;
  path: string;
  isWatch: boolean;
}

/** Fault injection for tests. Faults change how requests are answered, never the stored data. */
export interface ApiServerFaults {
  /** Ends every open watch cleanly; clients reconnect from their last resourceVersion. Returns how many. */
  dropWatches(): number;
  /** Forgets the watch history: resuming from any resourceVersion issued so far gets 410 Expired. */
  expireHistory(): void;
  /** Answers the next `count` matching requests with a `Status` error of HTTP `code` (default 500). */
  failNext(count: number, code?: number, options?: FailureOptions): void;
  /** Delays every request (watches included) by `ms` before it is handled; 0 turns it off. */
  setLatency(ms: number): void;
  /** Takes the server down: open connections are cut and new ones refused, until `resume()`. */
  pause(): Promise<void>;
  /** Brings the server back on the same URL. */
  resume(): Promise<void>;
  /** True between `pause()` and `resume()`. */
  isPaused(): boolean;
  /** Clears pending failures and latency. */
  reset(): void;
}

interface PendingFailure {
  remaining: number;
  status: KubeStatus;
  match: RequestMatcher | undefined;
}

/** The request-level half of the faults: pending failures and latency, consulted per request. */
export class RequestFaults {
  private failures: PendingFailure[] = [];
  latencyMs = 0;

  /** Queues `count` failures with HTTP `code`. */
  addFailures(count: number, code: number, options: FailureOptions = {}): void {
    if (count <= 0) return;
    const reason = options.reason ?? reasonForCode(code);
    const message = options.message ?? `injected fault: ${reason}`;
    this.failures.push({
      remaining: count,
      status: buildFailureStatus(code, message, reason, {}),
      match: options.match,
    });
  }

  /** The `Status` to answer `request` with, consuming one failure, or undefined to serve it normally. */
  takeFailure(request: FaultRequest): KubeStatus | undefined {
    for (const failure of this.failures) {
      if (!matches(failure.match, request)) continue;
      failure.remaining -= 1;
      if (failure.remaining <= 0) this.failures = this.failures.filter((item) => item !== failure);
      return failure.status;
    }
    return undefined;
  }

  /** Drops pending failures and latency. */
  clear(): void {
    this.failures = [];
    this.latencyMs = 0;
  }
}

function matches(matcher: RequestMatcher | undefined, request: FaultRequest): boolean {
  if (!matcher) return true;
  if (matcher.method !== undefined && matcher.method.toUpperCase() !== request.method) return false;
  if (matcher.watch !== undefined && matcher.watch !== request.isWatch) return false;
  if (matcher.path !== undefined) {
    if (
      typeof matcher.path === 'string'
        ? !request.path.includes(matcher.path)
        : !matcher.path.test(request.path)
    ) {
      return false;
    }
  }
  return true;
}
