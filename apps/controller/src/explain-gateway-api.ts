/**
 * "What does the controller do with this Gateway / HTTPRoute, and why", as `explain ingress` answers
 * it for an Ingress: the statuses the controller writes (or would write, for `ingresskit explain`),
 * the routes an HTTPRoute contributes as route-model entries (each marked served or not), and the
 * problems found in the object. Served by `/explain?gateway=` and `?httproute=`, printed by
 * `ingresskit explain gateway|httproute NS/NAME`.
 */
import {
  markHostnamesOwnedElsewhere,
  markListenersOwnedElsewhere,
  type ConditionDraft,
  type GatewayApiTranslation,
  type ListenerStatusDraft,
  type LostHostname,
} from '@ingresskit/gateway-routes';
import { sourceKey, type Problem } from '@ingresskit/route-model';
import { namespacedKey, splitObjectKey } from '@ingresskit/kube-objects';
import { formatFieldProblem, formatRoute, listContributionRoutes, type ExplainedRoute } from './explain.js';
import type { IngressRouting } from './ingress-routing.js';

/** The explanation of one Gateway. */
export interface GatewayExplanation {
  gateway: string;
  /** Whether the Gateway is of a class this controller accepts (and so has a status from it). */
  found: boolean;
  explanation: string;
  conditions: ConditionDraft[];
  listeners: ListenerStatusDraft[];
  problems: Problem[];
}

/** The explanation of one HTTPRoute. */
export interface HTTPRouteExplanation {
  httpRoute: string;
  /** Whether the route names a Gateway of ours (and so has a status from this controller). */
  found: boolean;
  explanation: string;
  /** Our `status.parents` entries: the parentRef and its conditions. */
  parents: { parentRef: string; conditions: ConditionDraft[] }[];
  routes: ExplainedRoute[];
  problems: Problem[];
}

/** What explaining a Gateway API object reads besides the Ingress routing. */
export interface GatewayApiState {
  translation: GatewayApiTranslation;
  /** Hostnames each HTTPRoute lost to host ownership (see lostHostnamesOf). */
  lost: ReadonlyMap<string, readonly LostHostname[]>;
  /** Hostnames each Gateway lost to host ownership (lostHostnamesOf of kind Gateway). */
  lostByGateways: ReadonlyMap<string, readonly LostHostname[]>;
}

function problemsOfObject(problems: readonly Problem[], kind: string, key: string): Problem[] {
  return problems.filter(
    (problem) =>
      problem.object.kind === kind && namespacedKey(problem.object.namespace, problem.object.name) === key,
  );
}

function isTrue(conditions: readonly ConditionDraft[], type: string): boolean {
  return conditions.some((condition) => condition.type === type && condition.status === 'True');
}

/** Explains the Gateway `key` (`namespace/name`). */
export function explainGateway(
  routing: IngressRouting,
  state: GatewayApiState,
  key: string,
): GatewayExplanation {
  const [entry] = markListenersOwnedElsewhere(
    state.translation.statuses.gateways.filter(
      ({ namespace, name }) => namespacedKey(namespace, name) === key,
    ),
    state.lostByGateways,
  );
  const { namespace = '', name } = splitObjectKey(key);
  const problems = [
    ...problemsOfObject(state.translation.problems, 'Gateway', key),
    ...routing.routingTable.assemblyProblemsOf({ kind: 'Gateway', namespace, name }),
  ];
  if (entry === undefined) {
    return {
      gateway: key,
      found: false,
      explanation: `Gateway ${key} does not exist in the watched namespaces, or its class is not one this controller accepts.`,
      conditions: [],
      listeners: [],
      problems,
    };
  }
  const { conditions, listeners } = entry.status;
  const accepted = isTrue(conditions, 'Accepted');
  const attached = listeners.reduce((sum, listener) => sum + listener.attachedRoutes, 0);
  return {
    gateway: key,
    found: true,
    explanation: accepted
      ? `Gateway ${key} is accepted; its ${listeners.length} listener${listeners.length === 1 ? '' : 's'} hold ${attached} route${attached === 1 ? '' : 's'}.`
      : `Gateway ${key} is not accepted: ${conditions.find((c) => c.type === 'Accepted')?.message ?? 'see its conditions'}.`,
    conditions,
    listeners,
    problems,
  };
}

/** Explains the HTTPRoute `key` (`namespace/name`). */
export function explainHTTPRoute(
  routing: IngressRouting,
  state: GatewayApiState,
  key: string,
): HTTPRouteExplanation {
  const [entry] = markHostnamesOwnedElsewhere(
    state.translation.statuses.httpRoutes.filter(
      ({ namespace, name }) => namespacedKey(namespace, name) === key,
    ),
    state.lost,
  );
  const { namespace = '', name } = splitObjectKey(key);
  const object = { kind: 'HTTPRoute', namespace, name };
  const problems = [
    ...problemsOfObject(state.translation.problems, 'HTTPRoute', key),
    ...routing.routingTable.assemblyProblemsOf(object),
  ];
  if (entry === undefined) {
    return {
      httpRoute: key,
      found: false,
      explanation: `HTTPRoute ${key} does not exist in the watched namespaces, or names no Gateway of a class this controller accepts.`,
      parents: [],
      routes: [],
      problems,
    };
  }
  const contribution = routing.routingTable.contribution(sourceKey(object));
  const parents = entry.parents.map(({ parentRef, conditions }) => ({
    parentRef: `${parentRef.kind} ${parentRef.namespace}/${parentRef.name}${parentRef.sectionName === undefined ? '' : `/${parentRef.sectionName}`}`,
    conditions,
  }));
  const accepted = parents.filter(({ conditions }) => isTrue(conditions, 'Accepted')).length;
  return {
    httpRoute: key,
    found: true,
    explanation: `HTTPRoute ${key} is accepted by ${accepted} of the ${parents.length} parent${parents.length === 1 ? '' : 's'} of this controller it names.`,
    parents,
    routes: contribution === undefined ? [] : listContributionRoutes(routing, contribution),
    problems,
  };
}

function formatConditions(conditions: readonly ConditionDraft[], indent: string): string[] {
  return conditions.map(
    ({ type, status, reason, message }) =>
      `${indent}${type}: ${status} (${reason})${message === '' ? '' : `: ${message}`}`,
  );
}

function formatProblems(problems: readonly Problem[]): string[] {
  if (problems.length === 0) return ['  Problems:    none'];
  return [
    '  Problems:',
    ...problems.map((problem) => `    ${problem.severity}: ${formatFieldProblem(problem)}`),
  ];
}

/** A Gateway's explanation as text for a terminal. */
export function formatGatewayExplanation(explanation: GatewayExplanation): string {
  const lines = [`Gateway ${explanation.gateway}`, `  Why:         ${explanation.explanation}`];
  if (explanation.found) {
    lines.push('  Conditions:', ...formatConditions(explanation.conditions, '    '));
    for (const listener of explanation.listeners) {
      lines.push(`  Listener ${listener.name}: ${listener.attachedRoutes} attached route(s)`);
      lines.push(...formatConditions(listener.conditions, '    '));
    }
  }
  lines.push(...formatProblems(explanation.problems));
  return lines.join('\n') + '\n';
}

/** An HTTPRoute's explanation as text for a terminal. */
export function formatHTTPRouteExplanation(explanation: HTTPRouteExplanation): string {
  const lines = [`HTTPRoute ${explanation.httpRoute}`, `  Why:         ${explanation.explanation}`];
  for (const parent of explanation.parents) {
    lines.push(`  Parent ${parent.parentRef}:`, ...formatConditions(parent.conditions, '    '));
  }
  if (explanation.found) {
    if (explanation.routes.length === 0) lines.push('  Routes:      none');
    else lines.push('  Routes:', ...explanation.routes.map((route) => `    ${formatRoute(route)}`));
  }
  lines.push(...formatProblems(explanation.problems));
  return lines.join('\n') + '\n';
}
