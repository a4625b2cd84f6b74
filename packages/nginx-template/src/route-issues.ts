/**
 * What compiling a route decided about it: the issues found, by field, and whether one of them
 * makes the route answer 500. One collector per route, shared by every compile step.
 */

/** Something about a route the data plane does not serve exactly as written. */
export interface RouteIssue {
  /** Where in the route, e.g. `policy.allowSources[1]`. */
  field: string;
  message: string;
  severity: 'error' | 'warning';
  value?: string;
}

/** Collects a route's issues; `fatal` once an error means the route must answer 500. */
export class RouteIssueCollector {
  readonly issues: RouteIssue[] = [];
  fatal = false;

  /** An error that makes the route answer 500; returns undefined for `return out.error(...)`. */
  error(field: string, message: string, value?: unknown): undefined {
    this.#add('error', field, message, value);
    this.fatal = true;
    return undefined;
  }

  /** An error that does not stop the route from being served (it is served more strictly). */
  strict(field: string, message: string, value?: unknown): void {
    this.#add('error', field, message, value);
  }

  /** A value that only loses precision: the route is served with the default instead. */
  warn(field: string, message: string, value?: unknown): void {
    this.#add('warning', field, message, value);
  }

  #add(severity: 'error' | 'warning', field: string, message: string, value: unknown): void {
    const issue: RouteIssue = { field, message, severity };
    if (value !== undefined)
      issue.value = typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value);
    this.issues.push(issue);
  }
}
