/**
 * ingress-nginx's redirect annotations: permanent-redirect and temporal-redirect with their
 * status codes (every route answers the redirect), and app-root (a redirect of `/` alone).
 */
import { createPendingStore } from './pending-annotations.js';
import { parseRedirectPath, parseRedirectUrl, type RedirectTarget } from './redirect-target.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';
import type { RedirectStatus } from './annotation-parts.js';

const REDIRECT_STATUSES: readonly number[] = [301, 302, 303, 307, 308];

/**
 * What the redirect annotations say before they are combined: temporal wins over permanent, as in
 * ingress-nginx, and a code needs its URL. Kept aside so the parsed annotations hold only the result.
 */
interface PendingRedirects {
  permanent?: RedirectTarget;
  permanentCode?: RedirectStatus;
  temporal?: RedirectTarget;
  temporalCode?: RedirectStatus;
}

const PENDING = createPendingStore<PendingRedirects>();

function parseRedirectStatus(key: 'permanentCode' | 'temporalCode'): AnnotationParser {
  return (value, into) => {
    if (!/^[0-9]{3}$/.test(value) || !REDIRECT_STATUSES.includes(Number(value))) {
      return 'must be one of 301, 302, 303, 307 or 308';
    }
    PENDING.of(into)[key] = Number(value) as RedirectStatus;
    return undefined;
  };
}

function parseRedirect(key: 'permanent' | 'temporal'): AnnotationParser {
  return (value, into) => {
    const target = parseRedirectUrl(value);
    if (typeof target === 'string') return target;
    PENDING.of(into)[key] = target;
    return undefined;
  };
}

/** The parsers of the redirect annotations; combineRedirects settles what the first four keep. */
export const REDIRECT_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'permanent-redirect': parseRedirect('permanent'),
  'permanent-redirect-code': parseRedirectStatus('permanentCode'),
  'temporal-redirect': parseRedirect('temporal'),
  'temporal-redirect-code': parseRedirectStatus('temporalCode'),
  'app-root': (value, into) => {
    const target = parseRedirectPath(value);
    if (typeof target === 'string') return target;
    if (target.path === '/') return 'must not be "/", which would redirect "/" to itself';
    into.appRoot = target;
    return undefined;
  },
};

/**
 * Sets `into.redirect` as ingress-nginx does: temporal-redirect wins over permanent-redirect; a
 * code without its URL does nothing. Both are reported in `problems` as warnings.
 */
export function combineRedirects(
  into: IngressAnnotations,
  withPrefix: string,
  problems: AnnotationProblem[],
): void {
  const pending = PENDING.peek(into);
  if (pending === undefined) return;
  const warn = (name: string, message: string) =>
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" ${message}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  if (pending.temporal !== undefined) {
    into.redirect = { target: pending.temporal, statusCode: pending.temporalCode ?? 302 };
    if (pending.permanent !== undefined)
      warn('permanent-redirect', 'is ignored: temporal-redirect is set too and wins');
  } else if (pending.permanent !== undefined) {
    into.redirect = { target: pending.permanent, statusCode: pending.permanentCode ?? 301 };
  }
  if (pending.temporal === undefined && pending.temporalCode !== undefined) {
    warn('temporal-redirect-code', 'has no effect without temporal-redirect');
  }
  if (pending.permanent === undefined && pending.permanentCode !== undefined) {
    warn('permanent-redirect-code', 'has no effect without permanent-redirect');
  }
}
