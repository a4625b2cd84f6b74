/** Named constructors of the problems buildConfiguration reports (route-model's Problem shape). */
import type { Backend, Problem, Route } from '@ingresskit/route-model';
import type { RouteIssue } from './route-issues.js';

/** A route the data plane serves differently from what it says (see compileRoute). */
export function routeProblem(route: Route, hostname: string, issue: RouteIssue): Problem {
  const { kind, namespace, name, field } = route.origin;
  const problem: Problem = {
    object: { kind, namespace, name },
    field: field ?? '',
    message: `route ${route.id} (host ${hostname}): ${issue.field} ${issue.message}`,
    severity: issue.severity,
  };
  if (issue.value !== undefined) problem.value = issue.value;
  return problem;
}

/** A listener nginx.conf cannot have (invalid, or sharing a port); `name` is empty for the table. */
export function listenerProblem(name: string, message: string): Problem {
  return {
    object: { kind: 'Listener', namespace: '', name },
    field: 'listeners',
    message: name === '' ? message : `listener ${name}: ${message}`,
    severity: 'error',
  };
}

/** A backend that cannot be served as written. */
export function backendProblem(backend: Backend, message: string): Problem {
  return {
    object: { kind: 'Backend', namespace: '', name: backend.id },
    field: 'backends',
    message: `backend ${backend.id}: ${message}`,
    severity: 'error',
  };
}
