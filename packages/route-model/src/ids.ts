/**
 * The ids that travel between translators, route tables and data planes, each with one
 * constructor and one parser: a source key (`kind/namespace/name`), a route id (a source key and
 * the route's place in its source) and the id of a backend that is a Service port
 * (`namespace/service:port`). Names, namespaces and kinds never hold `/`, `:` or `@`, so every
 * id reads back unambiguously; nothing else should take one apart.
 */
import type { SourceRef } from './types.js';

/** A Service port routes send traffic to: what a Service backend id stands for. */
export interface ServiceBackendRef {
  namespace: string;
  name: string;
  /** The port number, or the name of a Service port. */
  port: number | string;
  /** The Service's cluster IP and port instead of its endpoints (ingress-nginx's service-upstream). */
  viaClusterIp?: true;
}

/** The suffix of the id of a backend that is a Service's cluster IP. */
const CLUSTER_IP_SUFFIX = '@cluster-ip';

const SERVICE_BACKEND_ID = /^([^/:@]+)\/([^/:@]+):([^/:@]+)(@cluster-ip)?$/;

/** A string kept for long as one flat string, not the tree of pieces a template literal makes. */
function flatten(text: string): string {
  // A JSON round trip is the portable way to flatten.
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * The backend id of a Service port, `namespace/service:port` (`@cluster-ip` appended for the
 * cluster IP), the port as written: a number or a name.
 */
export function serviceBackendIdOf(ref: ServiceBackendRef): string {
  const suffix = ref.viaClusterIp === true ? CLUSTER_IP_SUFFIX : '';
  return flatten(`${ref.namespace}/${ref.name}:${ref.port}${suffix}`);
}

/**
 * The Service port a backend id made by {@link serviceBackendIdOf} stands for; undefined for any
 * other string. A port of digits only is a number: port names must hold a letter.
 */
export function parseServiceBackendId(id: string): ServiceBackendRef | undefined {
  const match = SERVICE_BACKEND_ID.exec(id);
  if (match === null) return undefined;
  const [, namespace, name, port, viaClusterIp] = match;
  const ref: ServiceBackendRef = {
    namespace: namespace!,
    name: name!,
    port: /^[0-9]+$/.test(port!) ? Number(port) : port!,
  };
  if (viaClusterIp !== undefined) ref.viaClusterIp = true;
  return ref;
}

/** The key of a source: `kind/namespace/name`. */
export function sourceKey(source: SourceRef): string {
  return `${source.kind}/${source.namespace}/${source.name}`;
}

/**
 * The source a key made by {@link sourceKey} names; undefined for a key without a kind, a
 * namespace and a name (the controller's own contributions have no namespace).
 */
export function parseSourceKey(key: string): SourceRef | undefined {
  const first = key.indexOf('/');
  const second = first === -1 ? -1 : key.indexOf('/', first + 1);
  if (first <= 0 || second <= first + 1 || second === key.length - 1) return undefined;
  return { kind: key.slice(0, first), namespace: key.slice(first + 1, second), name: key.slice(second + 1) };
}

/**
 * The id of a route of `source`: its source key, `/`, then `place`, which says where in the
 * source the route comes from (`r0/p1`: rule 0, path 1) and is unique within it.
 */
export function routeIdOf(source: SourceRef, place: string): string {
  return flatten(`${sourceKey(source)}/${place}`);
}

/** A route id taken apart: the source it comes from and its place in that source. */
export interface ParsedRouteId {
  source: SourceRef;
  /** The source's key, as {@link sourceKey} makes it. */
  sourceKey: string;
  place: string;
}

/**
 * The source and place of a route id made by {@link routeIdOf}; undefined for an id of a route
 * no namespaced source contributes (the table's default fallback).
 */
export function parseRouteId(id: string): ParsedRouteId | undefined {
  const match = /^([^/]+)\/([^/]+)\/([^/]+)\/(.+)$/s.exec(id);
  if (match === null) return undefined;
  const [, kind, namespace, name, place] = match;
  const source = { kind: kind!, namespace: namespace!, name: name! };
  return { source, sourceKey: sourceKey(source), place: place! };
}

/** The prefix every route id of the source `key` starts with (see {@link routeIdOf}). */
export function routeIdPrefixOf(key: string): string {
  return `${key}/`;
}
