/**
 * One line for a request to the API server that failed: the address tried and the reason in
 * words an operator acts on (nothing listens there, the name does not resolve, the certificate is
 * not trusted, the credentials are refused, a permission is missing), instead of "fetch failed".
 */

/** Reasons of low-level connection errors, by Node's error code. */
const CONNECTION_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  DEPTH_ZERO_SELF_SIGNED_CERT:
    'TLS: the server certificate is self-signed and not trusted (set certificate-authority in the kubeconfig)',
  SELF_SIGNED_CERT_IN_CHAIN:
    'TLS: the server certificate chain is not trusted (set certificate-authority in the kubeconfig)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    'TLS: the server certificate is not trusted (set certificate-authority in the kubeconfig)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: the server certificate does not name this host',
  CERT_HAS_EXPIRED: 'TLS: the server certificate has expired',
  EPROTO: 'TLS: the handshake failed (is it plain HTTP?)',
};

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  statusCode?: unknown;
  body?: unknown;
}

/** The errors of a cause chain, outermost first. */
function chainOf(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let current = error; typeof current === 'object' && current !== null && chain.length < 10;) {
    chain.push(current);
    current = (current as ErrorLike).cause;
  }
  return chain;
}

/** The HTTP status of a refused request: client-node's ApiException (`code`) or the store's `statusCode`. */
function statusOf(entry: ErrorLike): number | undefined {
  for (const value of [entry.statusCode, entry.code]) {
    if (typeof value === 'number' && value >= 400 && value < 600) return value;
  }
  return undefined;
}

function statusMessageOf(entry: ErrorLike): string | undefined {
  const body = entry.body;
  if (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { message?: unknown }).message === 'string'
  ) {
    return (body as { message: string }).message;
  }
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') return parsed.message;
    } catch {
      // Not a Status object.
    }
  }
  return undefined;
}

/** Why a request to the API server failed, in one sentence. */
export function describeApiFailureReason(error: unknown): string {
  const chain = chainOf(error);
  for (const entry of chain) {
    const status = statusOf(entry);
    if (status === undefined) continue;
    const detail = statusMessageOf(entry);
    if (status === 401) return 'HTTP 401: the credentials in the kubeconfig were refused';
    if (status === 403) return `HTTP 403: permission missing${detail ? `: ${detail}` : ''}`;
    return `HTTP ${status}${detail ? `: ${detail}` : ''}`;
  }
  for (const entry of [...chain].reverse()) {
    if (typeof entry.code === 'string' && CONNECTION_REASONS[entry.code] !== undefined) {
      return CONNECTION_REASONS[entry.code]!;
    }
  }
  const innermost = chain.at(-1);
  return typeof innermost?.message === 'string' && innermost.message !== ''
    ? innermost.message
    : String(error);
}

/** `cannot use the API server at ADDRESS: REASON`. */
export function describeApiFailure(server: string | undefined, error: unknown): string {
  return `cannot use the API server at ${server ?? '(no server in the kubeconfig)'}: ${describeApiFailureReason(error)}`;
}
