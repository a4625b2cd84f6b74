/**
 * Which hosts the ssl-passthrough proxy sends to which endpoints: the hosts of owned Ingresses
 * annotated `ssl-passthrough: "true"`, each to the backend of its path `/` (else the Ingress's
 * default backend), as ingress-nginx does. Everything else such an Ingress says (other paths, TLS,
 * other annotations) is ignored by ingress-nginx too, and reported here. A host belongs to one
 * namespace, as any host does.
 */
import { namespacedKey, type IngressLike } from '@ingresskit/kube-objects';
import { resolveServiceBackend, type BackendAddressPolicy } from '@ingresskit/ingress-routes';
import type { Problem } from '@ingresskit/route-model';
import type { L4ClusterView } from './l4-cluster-view.js';
import type { PassthroughEndpoint } from './ssl-passthrough-proxy.js';

/** Options of {@link resolvePassthroughHosts}. */
export interface PassthroughHostsOptions {
  /** `--enable-ssl-passthrough`: off, the annotation is only reported. */
  enabled: boolean;
  annotationPrefix: string;
  policy: BackendAddressPolicy;
  /** Ingresses of several namespaces may share a host (`--allow-cross-namespace-hosts`). */
  allowCrossNamespaceHosts: boolean;
  /** Whether the Ingress `namespace/name` is of our class. */
  isOwned: (key: string) => boolean;
  /** Why `hostnames` belong to another namespace than `object`'s among the HTTP routes (their host ownership). */
  hostOwnershipProblems?: (object: Problem['object'], hostnames: Iterable<string>) => Problem[];
}

/** What resolvePassthroughHosts found. */
export interface PassthroughHostsResolution {
  hosts: Map<string, PassthroughEndpoint[]>;
  /** Problems by Ingress key; an annotated Ingress without problems has an empty list. */
  problems: Map<string, Problem[]>;
  /** `namespace/name` of the Services the passthrough hosts go to. */
  serviceKeys: Set<string>;
}

/** ingress-nginx reads the annotation as Go's strconv.ParseBool. */
function parseGoBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function createdAtOf(ingress: IngressLike): number {
  const created = Date.parse(String(ingress.metadata?.creationTimestamp ?? ''));
  return Number.isNaN(created) ? Number.MAX_SAFE_INTEGER : created;
}

/** The hosts, endpoints and problems of the passthrough Ingresses of `view`. */
export function resolvePassthroughHosts(
  view: Pick<L4ClusterView, 'ingress' | 'ingressKeys' | 'service' | 'endpointSlicesForService'>,
  options: PassthroughHostsOptions,
): PassthroughHostsResolution {
  const resolution: PassthroughHostsResolution = {
    hosts: new Map(),
    problems: new Map(),
    serviceKeys: new Set(),
  };
  const annotation = `${options.annotationPrefix}/ssl-passthrough`;
  const annotated: { key: string; ingress: IngressLike }[] = [];
  for (const key of view.ingressKeys()) {
    const ingress = view.ingress(key);
    const value = ingress?.metadata?.annotations?.[annotation];
    if (ingress === undefined || value === undefined || !options.isOwned(key)) continue;
    const problems: Problem[] = [];
    resolution.problems.set(key, problems);
    const object = {
      kind: 'Ingress',
      namespace: ingress.metadata?.namespace ?? '',
      name: ingress.metadata?.name ?? '',
    };
    const field = `metadata.annotations["${annotation}"]`;
    const on = parseGoBool(value);
    if (on === undefined)
      problems.push({
        object,
        field,
        value,
        severity: 'warning',
        message: 'is not true or false; read as false, as ingress-nginx does',
      });
    if (on !== true) continue;
    if (!options.enabled) {
      problems.push({
        object,
        field,
        severity: 'warning',
        message:
          'has no effect without --enable-ssl-passthrough; TLS is ended by nginx, as ingress-nginx does without the flag',
      });
      continue;
    }
    annotated.push({ key, ingress });
  }
  // Oldest first, as host ownership goes: the first Ingress to name a host keeps it.
  annotated.sort((a, b) => createdAtOf(a.ingress) - createdAtOf(b.ingress) || (a.key < b.key ? -1 : 1));
  // A host goes to one backend: the oldest passthrough Ingress's, whatever the namespaces.
  const ownerOf = new Map<string, { key: string; namespace: string }>();
  for (const { key, ingress } of annotated) {
    const problems = resolution.problems.get(key)!;
    const namespace = ingress.metadata?.namespace ?? '';
    const object = { kind: 'Ingress', namespace, name: ingress.metadata?.name ?? '' };
    const ignored = (field: string, message: string) =>
      problems.push({ object, field, severity: 'warning', message });
    for (const name of Object.keys(ingress.metadata?.annotations ?? {})) {
      if (
        name.startsWith(`${options.annotationPrefix}/`) &&
        name !== `${options.annotationPrefix}/ssl-passthrough`
      )
        ignored(
          `metadata.annotations["${name}"]`,
          'is ignored: ssl-passthrough hands the connection to the backend as it is',
        );
    }
    if ((ingress.spec?.tls ?? []).length > 0)
      ignored('spec.tls', 'is ignored for ssl-passthrough hosts: TLS ends at the backend');
    for (const [ruleIndex, rule] of (ingress.spec?.rules ?? []).entries()) {
      const host = rule.host?.toLowerCase();
      if (host === undefined || host === '') {
        ignored(
          `spec.rules[${ruleIndex}]`,
          'has no host, which ssl-passthrough needs (it routes by the TLS server name)',
        );
        continue;
      }
      const paths = rule.http?.paths ?? [];
      const rootIndex = paths.findIndex((path) => (path.path ?? '/') === '/');
      for (const [pathIndex, path] of paths.entries()) {
        if (pathIndex !== rootIndex)
          ignored(
            `spec.rules[${ruleIndex}].http.paths[${pathIndex}]`,
            `path ${JSON.stringify(path.path)} is ignored: ssl-passthrough sends the whole host to the backend of path /`,
          );
      }
      const backend = rootIndex >= 0 ? paths[rootIndex]!.backend : ingress.spec?.defaultBackend;
      const service = backend?.service;
      if (service === undefined || service === null || typeof service.name !== 'string') {
        ignored(
          `spec.rules[${ruleIndex}]`,
          `host ${host} has no Service backend for path / (nor spec.defaultBackend); not passed through`,
        );
        continue;
      }
      const previous = ownerOf.get(host);
      const elsewhere = options.allowCrossNamespaceHosts
        ? []
        : (options.hostOwnershipProblems?.(object, [host]) ?? []);
      if (previous !== undefined || elsewhere.length > 0) {
        const holder =
          previous === undefined
            ? elsewhere[0]!.message
            : `host ${host} is passed through for Ingress ${previous.key} already`;
        problems.push({
          object,
          field: `spec.rules[${ruleIndex}].host`,
          value: host,
          severity: 'error',
          message: `${holder}; not passed through`,
        });
        continue;
      }
      const serviceKey = namespacedKey(namespace, service.name);
      resolution.serviceKeys.add(serviceKey);
      const port = service.port?.number ?? service.port?.name ?? 0;
      const resolved = resolveServiceBackend(
        { namespace, name: service.name, port },
        view.service(serviceKey),
        view.endpointSlicesForService(serviceKey),
        options.policy,
      );
      if (resolved.problem !== undefined)
        problems.push({
          object,
          field: `spec.rules[${ruleIndex}]`,
          severity: 'warning',
          message: resolved.problem.replace('requests get 503', 'connections are closed'),
        });
      if (resolved.backend.externalName !== undefined)
        problems.push({
          object,
          field: `spec.rules[${ruleIndex}]`,
          severity: 'error',
          message: `Service ${serviceKey} is of type ExternalName, which ssl-passthrough cannot use; connections are closed`,
        });
      ownerOf.set(host, { key, namespace });
      resolution.hosts.set(
        host,
        resolved.backend.endpoints.map(({ address, port: endpointPort }) => ({
          address,
          port: endpointPort,
        })),
      );
    }
  }
  return resolution;
}
