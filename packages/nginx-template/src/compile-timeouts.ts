/**
 * RouteTimeouts → the connect, send and read timeouts the Lua balancer sets. A timeout that cannot
 * be read only loses precision: nginx's default is used, with a warning.
 */
import type { Route, RouteTimeouts } from '@ingresskit/route-model';

/** What compiling reports: a warning, by field. */
export interface TimeoutIssues {
  warn(field: string, message: string, value?: unknown): void;
}

const MAX_TIMEOUT_MS = 86_400_000;

/**
 * The route's connect, send and read timeouts in seconds (0: nginx's default), or undefined when
 * it sets none. Gateway API's `request` and `backendRequest` bound the whole exchange, which nginx
 * cannot time: the smaller of them bounds each of nginx's waits instead (connecting, each write,
 * each read), so a backend that does not answer in time gets a 504, but one that keeps sending
 * slowly is not cut off.
 */
export function compileTimeouts(route: Route, out: TimeoutIssues): [number, number, number] | undefined {
  const timeouts = route.policy.timeouts!;
  const valid = (name: keyof RouteTimeouts): number => {
    const value = timeouts[name];
    if (value === undefined || value === 0) return 0;
    if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_MS)
      return value;
    out.warn(
      `policy.timeouts.${name}`,
      `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; the default is used`,
      value,
    );
    return 0;
  };
  const bounds = [valid('requestMs'), valid('backendRequestMs')].filter((value) => value > 0);
  const bound = bounds.length === 0 ? 0 : Math.min(...bounds);
  const milliseconds = (['connectMs', 'sendMs', 'readMs'] as const).map((name) => {
    const value = valid(name);
    if (bound === 0) return value;
    return value === 0 ? bound : Math.min(value, bound);
  });
  if (milliseconds.every((value) => value === 0)) return undefined;
  return milliseconds.map((value) => value / 1000) as [number, number, number];
}
