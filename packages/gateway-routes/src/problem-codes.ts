/**
 * The kinds of problem translateGatewayApi reports: each problem's `code`, stable for programs
 * that act on it (its message is for people and may be reworded), with what it means. The one
 * list: the translation can only name a code from here, and docs/problem-codes.md is made from it.
 */
import type { ProblemLog } from '@ingresskit/route-model';

/** Every code of a Gateway API problem, with what it means (the severity and what is left out). */
export const GATEWAY_API_PROBLEM_CODES = {
  'invalid-name': "error: an HTTPRoute's namespace or name is no valid name; the HTTPRoute is not served",
  'unreadable-object': 'error: the object could not be read (a throwing getter, a proxy); it is not served',
  'invalid-parameters-ref': "error: a Gateway's spec.infrastructure.parametersRef cannot be used",
  'invalid-listener-name': 'error: a listener has no name; it is not served',
  'unsupported-protocol': 'error: a listener protocol other than HTTP or HTTPS; the listener is not served',
  'port-unavailable':
    'error: a listener port the controller does not serve, or serves with another protocol; the listener is not served',
  'unsupported-tls-mode':
    'error: an HTTPS listener with a TLS mode other than Terminate; the listener is not served',
  'tls-ignored': 'warning: TLS settings on a listener whose protocol has no TLS are ignored',
  'invalid-certificate-ref':
    "error: a listener's certificateRef names no usable Secret; the listener is not served",
  'certificate-ref-not-permitted':
    "error: a listener's certificateRef to another namespace that no ReferenceGrant allows; the listener is not served",
  'extra-certificate-ignored': 'warning: a listener serves only its first valid certificate',
  'hostname-conflict':
    'error: a listener hostname is served by another Gateway on the same port; the listener is not served',
  'invalid-hostname': 'error: a listener or route hostname is no valid host name; it is not served',
  'invalid-allowed-routes': "error: a listener's allowedRoutes cannot be read; no route may attach",
  'unsupported-route-kind': 'error: allowedRoutes names a route kind other than HTTPRoute',
  'invalid-rule': 'error: a rule (its matches, backendRefs or weights) is not valid; the rule is not served',
  'invalid-filter': 'error: a filter of a rule cannot be applied; the rule answers 500',
  'backend-not-found':
    'error: a backendRef names no Service port that exists; its share of requests is answered with 500',
  'invalid-backend-kind':
    'error: a backendRef names a kind other than Service; its share of requests is answered with 500',
  'backend-ref-not-permitted':
    'error: a backendRef to another namespace that no ReferenceGrant allows; its share of requests is answered with 500',
  'duplicate-match-name': 'warning: a match names a header or query parameter twice; the repeat is ignored',
  'unsupported-field': 'warning: a rule field that is not supported is ignored',
  'backend-refs-ignored': 'warning: a rule that redirects ignores its backendRefs',
} as const satisfies Readonly<Record<string, string>>;

/** The code of a Gateway API problem. */
export type GatewayApiProblemCode = keyof typeof GATEWAY_API_PROBLEM_CODES;

/** A problem log whose codes are GatewayApiProblemCodes. */
export type GatewayApiProblemLog = ProblemLog<GatewayApiProblemCode>;
