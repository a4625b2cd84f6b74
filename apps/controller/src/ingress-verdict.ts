/**
 * Class verdicts: which controller owns an Ingress, and that decision in words when someone asks.
 */
import { explainDecision, type ClassDecision } from '@ingresskit/class-resolution';
import type { Ingress } from '@ingresskit/store';

/** Class resolution of one Ingress. */
export interface IngressVerdict {
  /** `namespace/name`. */
  key: string;
  ingress: Ingress;
  decision: ClassDecision;
}

/**
 * The decision in plain words, naming the Ingress. Made when asked: a sentence kept for each of
 * 10,000 Ingresses would cost megabytes for the few that anyone reads.
 */
export function explanationOf(verdict: IngressVerdict): string {
  return explainDecision(verdict.ingress, verdict.decision);
}
