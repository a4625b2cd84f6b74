/**
 * A steady request loop through nginx for the reliability cases: one request at a time, round
 * robin over the routes, one every `intervalMs`, each checked against the backend that must answer.
 * It stops by itself after `maxRequests` or `maxDurationMs`, whichever comes first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { probe } from '../../src/http-probe.js';

/** A route the loop requests, and who must answer it. */
export interface Route {
  /** Label in the report, e.g. `steady-1 https`. */
  name: string;
  host: string;
  path: string;
  tls: boolean;
  /** The backend name that must answer (the body's text before the colon). */
  expect: string;
}

/** Options of {@link startTraffic}. */
export interface TrafficOptions {
  httpPort: number;
  httpsPort: number;
  routes: readonly Route[];
  /** Pause between the start of two requests; 20 ms by default. */
  intervalMs?: number;
  /** 10,000 by default. */
  maxRequests?: number;
  /** 180 s by default. */
  maxDurationMs?: number;
  /** Per request; 3 s by default. */
  timeoutMs?: number;
}

/** One failed request. */
export interface TrafficFailure {
  route: string;
  /** Milliseconds since the loop started. */
  atMs: number;
  /** The status and body, or the error. */
  got: string;
}

/** What the loop saw. */
export interface TrafficReport {
  total: number;
  ok: number;
  failed: number;
  durationMs: number;
  /** Whether it stopped by itself (limit reached) rather than by `stop()`. */
  hitLimit: boolean;
  perRoute: Record<string, { ok: number; failed: number }>;
  /** The first 20 failures. */
  failures: TrafficFailure[];
  /** Milliseconds since the start of the first and last failure, when there were any. */
  firstFailureMs?: number;
  lastFailureMs?: number;
}

/** A running loop. */
export interface Traffic {
  /** Requests so far. */
  count(): number;
  /** Ends the loop after the request in flight and returns the report. */
  stop(): Promise<TrafficReport>;
  /**
   * Ends the loop once it has made at least `minimum` requests (or reached its own limits): on a
   * busy machine a scenario can end before the loop sampled enough of it.
   */
  stopAfter(minimum: number): Promise<TrafficReport>;
}

/** Starts the loop; see the module comment. */
export function startTraffic(options: TrafficOptions): Traffic {
  const intervalMs = options.intervalMs ?? 20;
  const maxRequests = options.maxRequests ?? 10_000;
  const maxDurationMs = options.maxDurationMs ?? 180_000;
  const started = Date.now();
  const report: TrafficReport = {
    total: 0,
    ok: 0,
    failed: 0,
    durationMs: 0,
    hitLimit: false,
    perRoute: Object.fromEntries(options.routes.map((route) => [route.name, { ok: 0, failed: 0 }])),
    failures: [],
  };
  let stopping = false;
  const abort = new AbortController();

  const check = async (route: Route): Promise<string | undefined> => {
    try {
      const response = await probe({
        port: route.tls ? options.httpsPort : options.httpPort,
        host: route.host,
        path: route.path,
        tls: route.tls,
        timeoutMs: options.timeoutMs ?? 3_000,
      });
      const answer = response.status === 200 ? response.body.split(':')[0] : undefined;
      return answer === route.expect ? undefined : `${response.status} ${response.body.trim().slice(0, 120)}`;
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  };

  const loop = (async () => {
    for (let i = 0; !stopping; i++) {
      if (report.total >= maxRequests || Date.now() - started >= maxDurationMs) {
        report.hitLimit = true;
        break;
      }
      const route = options.routes[i % options.routes.length]!;
      const sentAt = Date.now();
      const failure = await check(route);
      report.total += 1;
      const counts = report.perRoute[route.name]!;
      if (failure === undefined) {
        report.ok += 1;
        counts.ok += 1;
      } else {
        report.failed += 1;
        counts.failed += 1;
        const atMs = sentAt - started;
        report.firstFailureMs ??= atMs;
        report.lastFailureMs = atMs;
        if (report.failures.length < 20) report.failures.push({ route: route.name, atMs, got: failure });
      }
      const wait = intervalMs - (Date.now() - sentAt);
      if (wait > 0) await sleep(wait, undefined, { signal: abort.signal }).catch(() => undefined);
    }
    report.durationMs = Date.now() - started;
  })();

  let finished = false;
  void loop.then(() => (finished = true));
  const stop = async () => {
    stopping = true;
    abort.abort();
    await loop;
    return report;
  };
  return {
    count: () => report.total,
    stop,
    stopAfter: async (minimum) => {
      while (report.total < minimum && !finished) await sleep(intervalMs);
      return stop();
    },
  };
}

/** One line for the test output: totals, per route, and the first failures. */
export function formatTrafficReport(label: string, report: TrafficReport): string {
  const routes = Object.entries(report.perRoute)
    .map(([name, counts]) => `${name} ${counts.ok}/${counts.ok + counts.failed}`)
    .join(', ');
  const failures = report.failures
    .slice(0, 5)
    .map((failure) => `${failure.route} @${failure.atMs} ms: ${failure.got}`)
    .join('; ');
  return (
    `[reliability] ${label}: ${report.total} requests in ${(report.durationMs / 1000).toFixed(1)} s, ` +
    `${report.ok} ok, ${report.failed} failed (${routes})${failures ? ` — first failures: ${failures}` : ''}`
  );
}
