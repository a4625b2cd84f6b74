/**
 * Helpers for this package's integration tests: waiting on a condition the server or a client
 * reaches asynchronously (a watch event arriving over a socket), never on a fixed time.
 */

/** Resolves once `predicate` returns true, polling every 10 ms; rejects with `message` after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  message: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Parses the Status JSON client-node keeps as a string in `ApiException.body`. */
export function statusFromApiException(error: unknown): {
  code?: number;
  reason?: string;
  message?: string;
  details?: Record<string, unknown>;
} {
  const body = (error as { body?: unknown }).body;
  if (typeof body !== 'string') throw new Error(`not an ApiException with a body: ${String(error)}`);
  return JSON.parse(body) as { code?: number; reason?: string; message?: string };
}
