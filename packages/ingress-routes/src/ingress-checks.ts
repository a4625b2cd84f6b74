/**
 * What the controller ConfigMap asks of every Ingress: strict-validate-path-type (checked per path
 * by the rules' translation), and annotation-value-word-blocklist and annotations-risk-level,
 * checked here before anything is translated; either failing leaves the Ingress out, as
 * ingress-nginx refuses it.
 */
import {
  DEFAULT_ANNOTATIONS_RISK_LEVEL,
  describeRiskyAnnotation,
  findRiskyAnnotations,
  type AnnotationRisk,
} from './annotation-risk.js';
import { describeBlockedAnnotation, findBlockedAnnotations } from './annotation-word-blocklist.js';
import { objectOr } from './object-or.js';
import type { IngressProblemCode } from './problem-codes.js';

/** What the controller ConfigMap asks of every Ingress before it is served. */
export interface IngressChecks {
  /** strict-validate-path-type: Exact and Prefix paths hold only A-Z a-z 0-9 . _ - /. */
  strictPathType: boolean;
  /** annotation-value-word-blocklist: words no annotation value of the prefix may contain. */
  annotationWordBlocklist: readonly string[];
  /** annotations-risk-level: the highest risk of an annotation that is accepted. */
  annotationsRiskLevel: AnnotationRisk;
}

/** ingress-nginx's defaults: strict paths, no blocked words, annotations up to High. */
export const DEFAULT_INGRESS_CHECKS: IngressChecks = Object.freeze({
  strictPathType: true,
  annotationWordBlocklist: Object.freeze([]),
  annotationsRiskLevel: DEFAULT_ANNOTATIONS_RISK_LEVEL,
});

/** A failed check: the field it points at and why the Ingress is not served. */
export interface IngressCheckFailure {
  /** Which check failed. */
  code: Extract<IngressProblemCode, 'blocked-annotation-value' | 'annotation-risk-refused'>;
  field: string;
  message: string;
  value?: string;
}

/**
 * The annotations (keys with `prefix/`) that leave their Ingress out: those holding a blocked word,
 * then those above the risk level, each naming the annotation; none when it may be translated.
 */
export function checkIngressAnnotations(
  annotations: unknown,
  prefix: string,
  checks: IngressChecks,
): IngressCheckFailure[] {
  const failures: IngressCheckFailure[] = [];
  const record = objectOr<Record<string, unknown>>(annotations);
  for (const blocked of findBlockedAnnotations(record, prefix, checks.annotationWordBlocklist))
    failures.push({
      code: 'blocked-annotation-value',
      ...describeBlockedAnnotation(blocked),
      value: record[blocked.key] as string,
    });
  for (const risky of findRiskyAnnotations(record, prefix, checks.annotationsRiskLevel))
    failures.push({
      code: 'annotation-risk-refused',
      ...describeRiskyAnnotation(risky, checks.annotationsRiskLevel),
    });
  return failures;
}
