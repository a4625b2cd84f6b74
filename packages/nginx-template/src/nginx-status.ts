/**
 * nginx's own connection and request counters (its stub_status module), as GET /metrics/nginx on
 * the control socket answers them: what ingress-nginx's nginx_process_connections and
 * nginx_process_requests_total metrics show.
 */

/** Where the control socket answers nginx's counters. */
export const NGINX_STATUS_ENDPOINT_PATH = '/metrics/nginx';

/** nginx's counters since its master started, summed over its workers. */
export interface NginxStatus {
  /** Open client connections, idle ones included. */
  active: number;
  /** Client connections accepted. */
  accepted: number;
  /** Client connections handled: fewer than accepted only when a limit (worker_connections) was reached. */
  handled: number;
  /** Client requests. */
  requests: number;
  /** Connections whose request header nginx is reading. */
  reading: number;
  /** Connections nginx is writing a response to (or processing a request of). */
  writing: number;
  /** Idle keep-alive connections. */
  waiting: number;
}

/**
 * Parses stub_status' answer:
 * `Active connections: 1 \nserver accepts handled requests\n 5 5 9 \nReading: 0 Writing: 1 Waiting: 0 `.
 * Undefined when it does not have that shape.
 */
export function parseNginxStatus(text: string): NginxStatus | undefined {
  const match =
    /Active connections:\s*(\d+)\s+server accepts handled requests\s+(\d+)\s+(\d+)\s+(\d+)\s+Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+Waiting:\s*(\d+)/.exec(
      text,
    );
  if (match === null) return undefined;
  const [active, accepted, handled, requests, reading, writing, waiting] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { active, accepted, handled, requests, reading, writing, waiting };
}
