/**
 * The controller ConfigMap's global external authentication on one Ingress: its routes are checked
 * by global-auth-url unless it has an auth-url of its own or says enable-global-auth "false"
 * (ingress-nginx's shouldApplyGlobalAuth). When the global policy cannot be used, the routes it
 * would protect answer 503: they never go open.
 */
import { annotationField } from './annotation-field.js';
import { DEFAULT_BACKEND_ADDRESS_POLICY } from '@ingresskit/route-model';
import { checkExternalAuthAddress } from './external-auth-annotations.js';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import type { Context } from './translation-context.js';
import {
  type AnnotationParser,
  type IngressAnnotations,
  DEFAULT_ANNOTATION_PREFIX,
} from './annotation-types.js';

/** The parser of enable-global-auth ("true" by default). */
export const GLOBAL_AUTH_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'enable-global-auth': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    into.enableGlobalAuth = on;
    return undefined;
  },
};

/**
 * The annotations with the ConfigMap's global external authentication as their `externalAuth`,
 * when it applies to the Ingress; closed, with an error, when it applies but cannot be used.
 */
export function resolveGlobalAuth(context: Context): IngressAnnotations {
  const annotations = context.annotations;
  const global = context.config.globalAuth;
  // A canary's own policy never applies: the main Ingress's routes serve its requests.
  if (
    global === undefined ||
    annotations.externalAuth !== undefined ||
    annotations.enableGlobalAuth === false ||
    annotations.canary !== undefined
  )
    return annotations;
  const field = annotationField(
    `${context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX}/enable-global-auth`,
  );
  const closed = (why: string): IngressAnnotations => {
    context.log.error(
      'global-auth-unavailable',
      field,
      `the controller ConfigMap's ${why}; every request gets 503 (enable-global-auth "false" opts the Ingress out)`,
    );
    return { ...annotations, closed: true };
  };
  if ('problem' in global) return closed(global.problem);
  const refusal = checkExternalAuthAddress(
    global.policy.url,
    context.config.authAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY,
  );
  if (refusal !== undefined) return closed(`global-auth-url may not point there: ${refusal}`);
  return { ...annotations, externalAuth: global.policy };
}
