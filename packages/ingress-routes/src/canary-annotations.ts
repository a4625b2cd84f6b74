/**
 * ingress-nginx's canary annotations: `canary: "true"` makes an Ingress the canary of the main
 * Ingress with the same host and path; canary-by-header (+ -value or -pattern), canary-by-cookie
 * and canary-weight (out of canary-weight-total, default 100) say which requests it takes, in
 * that order. affinity-canary-behavior (read on the canary, as ingress-nginx does) says whether
 * the main route's session affinity keeps clients on the canary.
 */
import { checkPortableRegex, type CanaryRule } from '@ingresskit/route-model';
import { MAX_REGEX_LENGTH, BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { CanaryAnnotations } from './annotation-parts.js';

/** ingress-nginx's default canary-weight-total. */
export const DEFAULT_CANARY_WEIGHT_TOTAL = 100;
const MAX_WEIGHT_TOTAL = 1_000_000;
// Names nginx's $http_ and $cookie_ variables find as written.
const HEADER_NAME = /^[A-Za-z0-9_-]{1,256}$/;
const COOKIE_NAME = /^[A-Za-z0-9._-]{1,256}$/;

function canaryOf(into: IngressAnnotations): CanaryAnnotations {
  return (into.canaryAnnotations ??= {});
}

function parseWeight(min: number, set: (canary: CanaryAnnotations, value: number) => void): AnnotationParser {
  return (value, into) => {
    if (!/^(?:0|[1-9][0-9]{0,6})$/.test(value) || Number(value) < min || Number(value) > MAX_WEIGHT_TOTAL) {
      return `must be a whole number from ${min} to ${MAX_WEIGHT_TOTAL}`;
    }
    set(canaryOf(into), Number(value));
    return undefined;
  };
}

/** The parsers of the canary annotations. */
export const CANARY_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  canary: (value, into) => {
    const enabled = readBoolean(value);
    if (enabled === undefined) return BOOLEAN_PROBLEM;
    canaryOf(into).enabled = enabled;
    return undefined;
  },
  'canary-by-header': (value, into) => {
    if (!HEADER_NAME.test(value)) return 'must be a header name of letters, digits, "-" and "_"';
    canaryOf(into).header = value;
    return undefined;
  },
  'canary-by-header-value': (value, into) => {
    if (value.length > 1024) return 'must be at most 1024 characters';
    canaryOf(into).headerValue = value;
    return undefined;
  },
  'canary-by-header-pattern': (value, into) => {
    if (value === '' || value.length > MAX_REGEX_LENGTH)
      return `must be a regex of 1 to ${MAX_REGEX_LENGTH} characters`;
    const reason = checkPortableRegex(value);
    if (reason !== undefined) return reason;
    canaryOf(into).headerPattern = value;
    return undefined;
  },
  'canary-by-cookie': (value, into) => {
    if (!COOKIE_NAME.test(value)) return 'must be a cookie name of letters, digits, ".", "-" and "_"';
    canaryOf(into).cookie = value;
    return undefined;
  },
  'affinity-canary-behavior': (value, into) => {
    if (value !== 'sticky' && value !== 'legacy') return 'must be "sticky" or "legacy"';
    canaryOf(into).affinityBehavior = value;
    return undefined;
  },
  'canary-weight': parseWeight(0, (canary, value) => (canary.weight = value)),
  'canary-weight-total': parseWeight(1, (canary, value) => (canary.weightTotal = value)),
};

/**
 * The canary rule of an Ingress with `canary: "true"`, or undefined; problems for what has no
 * effect (canary-* without canary, -value or -pattern without -by-header, -pattern beside -value,
 * which ingress-nginx ignores) and an error for a weight over the total.
 */
export function combineCanary(
  canary: CanaryAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
): CanaryRule | undefined {
  if (canary === undefined) return undefined;
  const field = (name: string) => annotationField(`${withPrefix}${name}`);
  const warn = (name: string, message: string) =>
    problems.push({
      field: field(name),
      message: `annotation "${name}" ${message}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  const set: [string, unknown][] = [
    ['canary-by-header', canary.header],
    ['canary-by-header-value', canary.headerValue],
    ['canary-by-header-pattern', canary.headerPattern],
    ['canary-by-cookie', canary.cookie],
    ['canary-weight', canary.weight],
    ['canary-weight-total', canary.weightTotal],
    ['affinity-canary-behavior', canary.affinityBehavior],
  ];
  if (canary.enabled !== true) {
    for (const [name, value] of set)
      if (value !== undefined) warn(name, 'has no effect without canary "true"');
    return undefined;
  }
  const weightTotal = canary.weightTotal ?? DEFAULT_CANARY_WEIGHT_TOTAL;
  const weight = canary.weight ?? 0;
  if (weight > weightTotal) {
    problems.push({
      field: field('canary-weight'),
      message: `annotation "canary-weight" must not exceed canary-weight-total (${weightTotal})`,
      code: 'invalid-annotation',
      severity: 'error',
      value: String(weight),
    });
    return undefined;
  }
  const rule: CanaryRule = { weight, weightTotal };
  if (canary.header !== undefined) {
    rule.header = { name: canary.header };
    if (canary.headerValue !== undefined) {
      rule.header.value = canary.headerValue;
      if (canary.headerPattern !== undefined)
        warn('canary-by-header-pattern', 'is ignored: canary-by-header-value is set');
    } else if (canary.headerPattern !== undefined) rule.header.pattern = canary.headerPattern;
  } else {
    if (canary.headerValue !== undefined)
      warn('canary-by-header-value', 'has no effect without canary-by-header');
    if (canary.headerPattern !== undefined)
      warn('canary-by-header-pattern', 'has no effect without canary-by-header');
  }
  if (canary.cookie !== undefined) rule.cookie = canary.cookie;
  if (canary.affinityBehavior === 'legacy') rule.affinity = 'legacy';
  return rule;
}
