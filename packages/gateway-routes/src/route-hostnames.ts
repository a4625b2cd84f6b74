/**
 * The hostnames of an HTTPRoute's spec: the invalid ones logged and left out, and a route whose
 * every hostname was invalid told apart from one that named none.
 */
import { arrayOr, checkHostname } from './grammar.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

/** Reads spec.hostnames: the valid ones ([] for any hostname), or undefined when all were invalid. */
export function readRouteHostnames(raw: unknown, log: GatewayApiProblemLog): string[] | undefined {
  const list = arrayOr(raw);
  const valid: string[] = [];
  for (const [index, hostname] of list.entries()) {
    const problem = checkHostname(hostname);
    if (problem === undefined) valid.push(hostname as string);
    else
      log.error(
        'invalid-hostname',
        `spec.hostnames[${index}]`,
        `${problem}; the hostname is not served`,
        hostname,
      );
  }
  if (list.length > 0 && valid.length === 0) return undefined;
  return valid;
}
