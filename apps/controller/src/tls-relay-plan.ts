/**
 * Which sockets the TLS relay must have: one per backend TLS relay (nginx-template's
 * compileBackendTlsRelay of a route) and endpoint of each backend its routes forward to (their
 * weighted backends, canary backends and no-endpoints backend; mirrors and custom error pages go
 * over plain HTTP). Kept from the route table deltas the data plane stages, so a flush never
 * walks the whole table.
 */
import {
  compileBackendTlsRelay,
  isValidEndpoint,
  relaySocketName,
  type BackendTlsRelay,
} from '@ingresskit/nginx-template';
import type { Backend, Route, RouteTableDelta, VirtualHost } from '@ingresskit/route-model';

/** One socket of the relay: towards `address`:`port`, with `relay`'s settings. */
export interface RelaySocket {
  name: string;
  relay: BackendTlsRelay;
  address: string;
  port: number;
}

/** A relay some route uses, with the backends it forwards to. */
interface RelayUse {
  relay: BackendTlsRelay;
  backends: string[];
}

/** The backends a forwarding route sends its requests to (not its mirror or error pages). */
function forwardedBackendsOf(route: Route): string[] {
  if (route.action.type !== 'forward') return [];
  const ids: string[] = [];
  for (const member of [...route.action.backends, ...(route.action.canary?.backends ?? [])]) {
    if (member.backend !== undefined) ids.push(member.backend);
  }
  if (route.policy.noEndpointsBackend !== undefined) ids.push(route.policy.noEndpointsBackend);
  return ids;
}

/** The relays the routes of `virtualHost` use; none for most hosts. */
export function listRelayUses(virtualHost: VirtualHost): RelayUse[] {
  const uses: RelayUse[] = [];
  const routes =
    virtualHost.fallbackRoute === undefined
      ? virtualHost.routes
      : [...virtualHost.routes, virtualHost.fallbackRoute];
  for (const route of routes) {
    if (route.policy.backendTls === undefined) continue;
    const relay = compileBackendTlsRelay(route, virtualHost.hostname);
    if (relay !== undefined && relay !== 'closed') uses.push({ relay, backends: forwardedBackendsOf(route) });
  }
  return uses;
}

/** The relay sockets the staged route table needs. */
export class RelayPlan {
  readonly #usesByHost = new Map<string, RelayUse[]>();
  /** Every backend of the table: a relay may start using one that has not changed for long. */
  readonly #backends = new Map<string, Backend>();

  /** Records what a route table delta changes. */
  stage(delta: RouteTableDelta): void {
    for (const virtualHost of delta.virtualHosts.upsert) {
      const uses = listRelayUses(virtualHost);
      if (uses.length > 0) this.#usesByHost.set(virtualHost.hostname, uses);
      else this.#usesByHost.delete(virtualHost.hostname);
    }
    for (const hostname of delta.virtualHosts.remove) this.#usesByHost.delete(hostname);
    for (const backend of delta.backends.upsert) this.#backends.set(backend.id, backend);
    for (const id of delta.backends.remove) this.#backends.delete(id);
  }

  /** The sockets, by name; the endpoints nginx-template leaves out of a backend have none. */
  sockets(): Map<string, RelaySocket> {
    const sockets = new Map<string, RelaySocket>();
    for (const uses of this.#usesByHost.values()) {
      for (const { relay, backends } of uses) {
        for (const id of backends) {
          for (const endpoint of this.#backends.get(id)?.endpoints ?? []) {
            if (!isValidEndpoint(endpoint)) continue;
            const { address, port } = endpoint;
            const name = relaySocketName(relay.id, address, port);
            sockets.set(name, { name, relay, address, port });
          }
        }
      }
    }
    return sockets;
  }
}
