/**
 * What the data plane refused to load (routes, certificates), kept so that the routes are left out
 * of the table until their source changes, and so that the sources that named them are reported.
 */
import type { RouteContribution } from '@ingresskit/route-model';

/** A route the data plane refused to load (its regex engine rejected a pattern, say). */
export interface RefusedRoute {
  routeId: string;
  message: string;
}

/** The routes and certificates nginx refused, and the sources that named them. */
export class RouteRefusals {
  /** Refused routes, by route id. */
  readonly #routes = new Map<string, RefusedRoute>();
  /** Refused certificates, by id, with the reason. */
  #certificates: ReadonlyMap<string, string> = new Map();

  /** Records a refused route; false when it was recorded already. */
  addRoute(entry: RefusedRoute): boolean {
    if (this.#routes.has(entry.routeId)) return false;
    this.#routes.set(entry.routeId, entry);
    return true;
  }

  /** Forgets the refused routes whose id starts with `prefix` (route-model's routeIdPrefixOf). */
  forgetRoutes(prefix: string): void {
    for (const routeId of this.#routes.keys()) if (routeId.startsWith(prefix)) this.#routes.delete(routeId);
  }

  /** Every refused route, in the order refused. */
  routes(): IterableIterator<RefusedRoute> {
    return this.#routes.values();
  }

  /** `contribution` without its refused routes; `contribution` itself while no route is refused. */
  keptOf(contribution: RouteContribution): RouteContribution {
    // Nearly always nothing is refused: no copy then.
    if (this.#routes.size === 0) return contribution;
    const routes = this.#routes;
    return {
      ...contribution,
      hosts: contribution.hosts.map((host) => ({
        ...host,
        routes: host.routes.filter((route) => !routes.has(route.id)),
      })),
    };
  }

  /**
   * Replaces the refused certificates (by id, with the reason) and returns the ids whose refusal
   * started, ended or changed reason; empty when none did.
   */
  setCertificates(refused: ReadonlyMap<string, string>): Set<string> {
    const changed = new Set<string>();
    for (const [id, reason] of refused) if (this.#certificates.get(id) !== reason) changed.add(id);
    for (const id of this.#certificates.keys()) if (!refused.has(id)) changed.add(id);
    if (changed.size > 0) this.#certificates = new Map(refused);
    return changed;
  }

  /** Why the data plane refused the certificate `id`; undefined when it did not. */
  certificateReason(id: string): string | undefined {
    return this.#certificates.get(id);
  }
}
