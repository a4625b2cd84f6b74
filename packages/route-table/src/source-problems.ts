/**
 * Problems of a routed source beyond its translation: assembly notes against it, backends of its
 * routes that answer 503, and what the data plane refused of it, each in the words status shows.
 */
import {
  parseRouteId,
  type AssemblyNote,
  type Problem,
  type RouteContribution,
} from '@ingresskit/route-model';
import type { BackendResolver } from './backend-resolver.js';
import type { RouteRefusals } from './route-refusals.js';

/** What an assembly note decided against `object`, as a problem of it (its code is the note's type). */
export function problemOfNote(object: Problem['object'], note: AssemblyNote): Problem {
  const older = (origin: { kind: string; namespace: string; name: string }) =>
    origin.kind === object.kind && origin.namespace === object.namespace && origin.name === object.name
      ? `an earlier path of this ${object.kind}`
      : `the older ${origin.kind} ${origin.namespace}/${origin.name}`;
  switch (note.type) {
    case 'host-owned-elsewhere': {
      const owner = note.owner.source;
      const through = note.owner.via === undefined ? '' : ` (through its wildcard ${note.owner.via})`;
      return {
        object,
        field: 'spec',
        message: `host ${note.hostname} belongs to namespace ${note.owner.tenant}, whose ${owner.kind} ${owner.namespace}/${owner.name} is the oldest to name it${through}; other namespaces cannot add paths or TLS to it (--allow-cross-namespace-hosts)`,
        severity: 'error',
        code: note.type,
        value: note.hostname,
      };
    }
    case 'route-shadowed': {
      const path = note.route.match.path;
      return {
        object,
        field: note.route.origin.field ?? 'spec',
        message: `path ${path.value} (${path.type}) on host ${note.hostname} is already served by ${older(note.by.origin)}`,
        severity: 'error',
        code: note.type,
        value: path.value,
      };
    }
    case 'fallback-overridden':
      return {
        object,
        field: 'spec.defaultBackend',
        message: `requests no rule matches on ${note.hostname === '*' ? 'unknown hosts' : `host ${note.hostname}`} go to spec.defaultBackend of ${older(note.by.origin)}; this one applies where it is the oldest`,
        severity: 'warning',
        code: note.type,
      };
    case 'canary-unmatched': {
      const path = note.route.match.path;
      return {
        object,
        field: note.route.origin.field ?? 'spec',
        message:
          note.by === undefined
            ? `canary path ${path.value} (${path.type}) on host ${note.hostname} has no main Ingress of this namespace with the same host and path; it is not served`
            : `canary path ${path.value} (${path.type}) on host ${note.hostname} is not served: the older canary Ingress ${note.by.origin.namespace}/${note.by.origin.name} is the canary of that path`,
        severity: 'error',
        code: note.type,
        value: path.value,
      };
    }
    case 'host-limit-exceeded':
      return {
        object,
        field: 'spec',
        message: `host ${note.hostname}: ${note.reason}; the older objects routing on the host keep their paths, and this ${object.kind}'s paths for it are not served`,
        severity: 'error',
        code: note.type,
        value: note.hostname,
      };
    case 'tls-overridden':
      return {
        object,
        field: 'spec.tls',
        message: `host ${note.hostname} is served with the certificate of ${older(note.by.origin)}; this Ingress's TLS Secret is not used for it`,
        severity: 'warning',
        code: note.type,
      };
  }
}

/** Appends to `problems` one problem per backend of `contribution`'s routes that answers 503, once each. */
export function pushBackendProblems(
  problems: Problem[],
  object: Problem['object'],
  contribution: RouteContribution | undefined,
  backends: Pick<BackendResolver, 'problem'>,
): void {
  const reported = new Set<string>();
  for (const host of contribution?.hosts ?? []) {
    const routes = [
      ...host.routes,
      ...(host.fallback === undefined || host.fallback === 'table-default' ? [] : [host.fallback]),
    ];
    for (const route of routes) {
      if (route.action.type !== 'forward') continue;
      for (const member of route.action.backends) {
        const problem = member.backend === undefined ? undefined : backends.problem(member.backend);
        if (problem === undefined || reported.has(member.backend!)) continue;
        reported.add(member.backend!);
        problems.push({
          object,
          field: `${route.origin.field ?? 'spec.defaultBackend'}.backend`,
          message: problem.message,
          severity: 'error',
          code: problem.code,
        });
      }
    }
  }
}

/**
 * Appends to `problems` the certificates of `contribution` and the routes of the source
 * `sourceKey` that the data plane refused.
 */
export function pushRefusalProblems(
  problems: Problem[],
  object: Problem['object'],
  sourceKey: string,
  contribution: RouteContribution | undefined,
  refusals: RouteRefusals,
): void {
  for (const claim of contribution?.tls ?? []) {
    const reason = refusals.certificateReason(claim.certificate.id);
    if (reason === undefined) continue;
    problems.push({
      object,
      field: claim.origin.field ?? 'spec.tls',
      message: `nginx refused the certificate for ${claim.hostname} (${reason}); the host is served with the default certificate`,
      severity: 'error',
    });
  }
  for (const refused of refusals.routes()) {
    const route = parseRouteId(refused.routeId);
    if (route?.sourceKey !== sourceKey) continue;
    problems.push({
      object,
      field: route.place,
      message: `the data plane refused this route, which is left out: ${refused.message}`,
      severity: 'error',
    });
  }
}
