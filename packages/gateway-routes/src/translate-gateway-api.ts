/**
 * Every Gateway API object of a snapshot → route-model contributions, statuses and problems: the
 * Gateways of our classes are evaluated together (they share the data plane's ports), each HTTPRoute
 * is translated on its own against them, and the Gateways' TLS claims and status follow from the
 * routes that attached.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import {
  type HostContribution,
  type Problem,
  type Route,
  type RouteContribution,
  sourceKey,
  type TlsClaim,
} from '@ingresskit/route-model';
import { readSecretCertificate } from './certificates.js';
import type { CertificateReader } from './certificate-refs.js';
import { buildGatewayStatus } from './gateway-status.js';
import { evaluateGateways, type GatewayEvaluation } from './gateways.js';
import { compareText, objectOr } from './grammar.js';
import type { HTTPRouteTranslation } from './translate-httproute.js';
import { translateHTTPRoute } from './translate-httproute.js';
import type {
  GatewayApiConfig,
  GatewayApiObjects,
  GatewayApiReferences,
  GatewayApiTranslation,
  HTTPRouteLike,
  KubeObjectLike,
  ReferenceGrantLike,
} from './types.js';

function keyOf(object: KubeObjectLike, clusterScoped = false): string | undefined {
  const metadata = objectOr<{ namespace: unknown; name: unknown }>(
    objectOr<{ metadata: unknown }>(object).metadata,
  );
  if (typeof metadata.name !== 'string') return undefined;
  if (clusterScoped) return metadata.name;
  return typeof metadata.namespace === 'string'
    ? namespacedKey(metadata.namespace, metadata.name)
    : undefined;
}

function indexBy<T extends KubeObjectLike>(
  objects: readonly T[] | undefined,
  clusterScoped = false,
): Map<string, T> {
  const map = new Map<string, T>();
  for (const object of objects ?? []) {
    const key = keyOf(object, clusterScoped);
    if (key !== undefined) map.set(key, object);
  }
  return map;
}

/** Lookups over the lists of a snapshot. */
export function createReferences(objects: GatewayApiObjects): GatewayApiReferences {
  const services = indexBy(objects.services);
  const secrets = indexBy(objects.secrets);
  const namespaces = indexBy(objects.namespaces, true);
  const grants = new Map<string, ReferenceGrantLike[]>();
  for (const grant of objects.referenceGrants ?? []) {
    const namespace = objectOr<{ namespace: unknown }>(
      objectOr<{ metadata: unknown }>(grant).metadata,
    ).namespace;
    if (typeof namespace !== 'string') continue;
    grants.set(namespace, [...(grants.get(namespace) ?? []), grant]);
  }
  return {
    service: (namespace, name) => services.get(namespacedKey(namespace, name)),
    secret: (namespace, name) => secrets.get(namespacedKey(namespace, name)),
    namespace: (name) => namespaces.get(name),
    referenceGrants: (namespace) => grants.get(namespace) ?? [],
  };
}

/**
 * The contribution of one Gateway: a TLS claim for each ready HTTPS listener's hostname, or, for a
 * listener without a hostname, for each hostname the routes attached to it serve (a certificate
 * cannot be claimed for every name); and for each listener hostname a host whose fallback answers
 * 404 on that listener's ports.
 */
function gatewayContribution(
  evaluation: GatewayEvaluation,
  key: string,
  routes: readonly HTTPRouteTranslation[],
): RouteContribution | undefined {
  const gateway = evaluation.gateways.get(key)!;
  const claims = new Map<string, TlsClaim>();
  for (const listener of gateway.listeners) {
    if (!listener.isReady || listener.certificate === undefined) continue;
    const origin = {
      kind: 'Gateway',
      namespace: gateway.namespace,
      name: gateway.name,
      createdAt: gateway.createdAt,
      index: [listener.index],
      field: `spec.listeners[${listener.index}].tls`,
    };
    const hostnames =
      listener.hostname !== undefined
        ? [listener.hostname]
        : routes.flatMap((route) =>
            route.attachments
              .filter((entry) => entry.gateway === key && entry.listener === listener.name)
              .flatMap((entry) => entry.hostnames)
              .filter((hostname) => hostname !== '*'),
          );
    for (const hostname of hostnames) {
      // A listener with its own hostname comes first in the listener list's order of precedence.
      if (!claims.has(hostname))
        claims.set(hostname, { hostname, certificate: listener.certificate, origin });
    }
  }
  // Listener isolation: a request for a listener's hostname that none of its routes matches gets
  // 404 there, instead of falling through to the routes of a less specific listener.
  const isolated = new Map<string, { listeners: Set<string>; index: number }>();
  for (const listener of gateway.listeners) {
    if (!listener.isReady || listener.hostname === undefined) continue;
    const entry = isolated.get(listener.hostname) ?? { listeners: new Set<string>(), index: listener.index };
    entry.listeners.add(listener.dataPlaneListener!);
    isolated.set(listener.hostname, entry);
  }
  if (claims.size === 0 && isolated.size === 0) return undefined;
  const hosts: HostContribution[] = [...isolated.keys()].sort(compareText).map((hostname) => {
    const { listeners, index } = isolated.get(hostname)!;
    const fallback: Route = {
      id: JSON.parse(
        JSON.stringify(`Gateway/${gateway.namespace}/${gateway.name}/isolation@${hostname}`),
      ) as string,
      origin: {
        kind: 'Gateway',
        namespace: gateway.namespace,
        name: gateway.name,
        createdAt: gateway.createdAt,
        index: [index],
        field: `spec.listeners[${index}].hostname`,
      },
      match: { path: { type: 'PathPrefix', value: '/' } },
      action: { type: 'respond', statusCode: 404 },
      policy: {},
      listeners: [...listeners].sort(compareText),
    };
    return { hostname, wildcard: 'suffix', routes: [], fallback };
  });
  return {
    source: { kind: 'Gateway', namespace: gateway.namespace, name: gateway.name },
    hosts,
    tls: [...claims.keys()].sort(compareText).map((hostname) => claims.get(hostname)!),
  };
}

/** The parts a memoising translator can swap: how certificates are read and routes translated. */
export interface TranslationHooks {
  readCertificate: CertificateReader;
  translateRoute: (
    route: HTTPRouteLike,
    evaluation: GatewayEvaluation,
    references: GatewayApiReferences,
  ) => HTTPRouteTranslation;
}

/** translateGatewayApi with its hooks. */
export function translateWithHooks(
  objects: GatewayApiObjects,
  config: GatewayApiConfig,
  hooks: TranslationHooks,
): GatewayApiTranslation {
  const references = createReferences(objects);
  const evaluation = evaluateGateways(objects.gateways, references, config, hooks.readCertificate);
  const translations = objects.httpRoutes.map((route) => hooks.translateRoute(route, evaluation, references));
  const attached = new Map<string, Map<string, number>>();
  for (const translation of translations) {
    const counted = new Set<string>();
    for (const attachment of translation.attachments) {
      const id = `${attachment.gateway}\u0000${attachment.listener}`;
      if (counted.has(id)) continue;
      counted.add(id);
      const counts = attached.get(attachment.gateway) ?? new Map<string, number>();
      counts.set(attachment.listener, (counts.get(attachment.listener) ?? 0) + 1);
      attached.set(attachment.gateway, counts);
    }
  }
  const routes: RouteContribution[] = [];
  const problems: Problem[] = [...evaluation.problems];
  const gatewayStatuses = [];
  for (const [key, gateway] of evaluation.gateways) {
    const contribution = gatewayContribution(evaluation, key, translations);
    if (contribution !== undefined) routes.push(contribution);
    gatewayStatuses.push({
      namespace: gateway.namespace,
      name: gateway.name,
      status: buildGatewayStatus(gateway, attached.get(key) ?? new Map()),
      listenerHostnames: gateway.listeners.map((listener) => listener.hostname),
    });
  }
  const routeStatuses = [];
  for (const translation of translations) {
    if (translation.contribution !== undefined) routes.push(translation.contribution);
    problems.push(...translation.problems);
    if (translation.parents.length > 0) {
      routeStatuses.push({
        namespace: translation.source.namespace,
        name: translation.source.name,
        parents: translation.parents,
      });
    }
  }
  routes.sort((a, b) => compareText(sourceKey(a.source), sourceKey(b.source)));
  return { routes, statuses: { gateways: gatewayStatuses, httpRoutes: routeStatuses }, problems };
}

/**
 * Translates a snapshot of Gateway API objects: the contributions to give a RouteTableBuilder (one
 * per Gateway with TLS to claim and per HTTPRoute that attached, keyed by source), the statuses to
 * write (Gateways of our classes; HTTPRoute parents that name them, under `config.controllerName`)
 * and the problems found. Pure; never throws.
 */
export function translateGatewayApi(
  objects: GatewayApiObjects,
  config: GatewayApiConfig,
): GatewayApiTranslation {
  return translateWithHooks(objects, config, {
    readCertificate: readSecretCertificate,
    translateRoute: (route, evaluation, references) =>
      translateHTTPRoute(route, evaluation, references, config),
  });
}
