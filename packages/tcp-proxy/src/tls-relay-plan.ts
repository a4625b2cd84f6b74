/**
 * Which sockets the TLS relay must have: one per backend TLS relay (nginx-template's
 * compileBackendTlsRelay of a route) and endpoint of each backend its routes forward to (their
 * weighted backends, canary backends and no-endpoints backend; mirrors and custom error pages go
 * over plain HTTP). Kept from the route table deltas a data plane stages, pushes and then
 * commits, as nginx has them and as staged, so a flush never walks the whole table.
 */
import {
  backendKey,
  compileBackendTlsRelay,
  hostKey,
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

/**
 * The relay sockets nginx's data names, as pushed and as staged: the data plane opens those of
 * both before a push and, once nginx has it, closes those nginx names no more.
 */
export class RelayPlan {
  /** The relays each host's routes use, as nginx has them; hosts without any are left out. */
  readonly #pushedUses = new Map<string, RelayUse[]>();
  /** What the staged changes make of them (null: the host goes). */
  readonly #stagedUses = new Map<string, RelayUse[] | null>();
  /** Every backend nginx has: a relay may start using one that has not changed for long. */
  readonly #pushedBackends = new Map<string, Backend>();
  /** What the staged changes make of them (null: the backend goes). */
  readonly #stagedBackends = new Map<string, Backend | null>();

  /** Records what a route table delta changes; nginx does not have it yet. */
  stage(delta: RouteTableDelta): void {
    for (const virtualHost of delta.virtualHosts.upsert)
      this.#stagedUses.set(virtualHost.hostname, listRelayUses(virtualHost));
    for (const hostname of delta.virtualHosts.remove) this.#stagedUses.set(hostname, null);
    for (const backend of delta.backends.upsert) this.#stagedBackends.set(backend.id, backend);
    for (const id of delta.backends.remove) this.#stagedBackends.set(id, null);
  }

  /**
   * The sockets, by name, that nginx names now or may name once it has the staged changes, all of
   * them or only their urgent part (the backends' new endpoints and the hosts removed, which a
   * data plane may push alone, leaving the hosts nginx has meeting the new endpoints): each relay of a host
   * as pushed or staged, towards each endpoint of its backends as pushed or staged. The endpoints
   * nginx-template leaves out of a backend have none.
   */
  sockets(): Map<string, RelaySocket> {
    const sockets = new Map<string, RelaySocket>();
    const addUses = (uses: readonly RelayUse[]) => {
      for (const { relay, backends } of uses) {
        for (const id of backends) {
          for (const backend of [this.#pushedBackends.get(id), this.#stagedBackends.get(id)]) {
            for (const endpoint of backend?.endpoints ?? []) {
              if (!isValidEndpoint(endpoint)) continue;
              const { address, port } = endpoint;
              const name = relaySocketName(relay.id, address, port);
              sockets.set(name, { name, relay, address, port });
            }
          }
        }
      }
    };
    for (const uses of this.#pushedUses.values()) addUses(uses);
    for (const uses of this.#stagedUses.values()) if (uses !== null) addUses(uses);
    return sockets;
  }

  /**
   * nginx has every staged change but those of the data keys `isRefused` names, which were left
   * out of the push: nginx keeps what it had there.
   */
  commit(isRefused: (key: string) => boolean): void {
    for (const [hostname, uses] of this.#stagedUses) {
      if (isRefused(hostKey(hostname))) continue;
      if (uses === null || uses.length === 0) this.#pushedUses.delete(hostname);
      else this.#pushedUses.set(hostname, uses);
    }
    for (const [id, backend] of this.#stagedBackends) {
      if (isRefused(backendKey(id))) continue;
      if (backend === null) this.#pushedBackends.delete(id);
      else this.#pushedBackends.set(id, backend);
    }
    this.#stagedUses.clear();
    this.#stagedBackends.clear();
  }

  /** nginx has the urgent part of the staged changes (see sockets); the rest stays staged. */
  commitUrgent(): void {
    for (const [hostname, uses] of [...this.#stagedUses]) {
      if (uses !== null) continue;
      this.#pushedUses.delete(hostname);
      this.#stagedUses.delete(hostname);
    }
    for (const [id, backend] of [...this.#stagedBackends]) {
      if (backend === null) continue;
      this.#pushedBackends.set(id, backend);
      this.#stagedBackends.delete(id);
    }
  }
}
