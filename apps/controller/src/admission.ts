/**
 * The validating admission review of Ingresses: what the controller would leave out of an Ingress
 * it owns is refused at `kubectl apply`, with the very messages `/explain` and the Events give.
 * The one Ingress of the request is translated in memory by the same pure translator the
 * controller runs. No nginx, no file, no template is involved, so the webhook can never become the
 * path to code execution that ingress-nginx's was (IngressNightmare, CVE-2025-1974: its webhook
 * ran `nginx -t` on configuration built from the request).
 *
 * Problems caused by another object, a TLS Secret that is missing or holds no usable certificate,
 * or a controller ConfigMap without the memcached of global-rate-limit, are warnings, not
 * refusals: manifests are applied in any order, and the Secret or key may come next.
 */
import { createIngressClassResolver, type ClassResolutionConfig } from '@ingresskit/class-resolution';
import {
  DEFAULT_ANNOTATION_PREFIX,
  isReferencedObjectProblem,
  parseControllerConfigMap,
  translateIngress,
  type BackendAddressPolicy,
  type IngressTranslation,
  type ServiceReference,
} from '@ingresskit/ingress-routes';
import type { Problem, RouteContribution } from '@ingresskit/route-model';
import type { Ingress } from '@ingresskit/store';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { ClusterView } from './cluster-view.js';
import { formatFieldProblem } from './explain.js';

/** What an admission review reads besides the request. */
export interface IngressAdmissionOptions {
  /** The cluster as the controller sees it now (IngressClasses, Secrets). */
  view: () => ClusterView;
  classConfig: Partial<ClassResolutionConfig>;
  annotationPrefix?: string | undefined;
  /** `--max-paths-per-ingress`; no limit when undefined or 0. */
  maxPathsPerIngress?: number | undefined;
  /** `--allow-snippet-directives`: what a configuration-snippet may hold; none when undefined. */
  allowedSnippetDirectives?: readonly string[] | undefined;
  /**
   * Where an auth-url may point: the controller's backend address policy of the moment (its own
   * ports follow the stream services); the strict default when undefined.
   */
  authAddressPolicy?: (() => BackendAddressPolicy) | undefined;
  /** `--default-backend-service`, which answers custom-http-errors; none when undefined. */
  defaultBackend?: ServiceReference | undefined;
  /** `--configmap` (`namespace/name`): its memcached serves global-rate-limit; none when undefined. */
  controllerConfigMap?: string | undefined;
  /**
   * What host ownership decides against an Ingress created at `createdAt` (ms) naming these hosts,
   * as the controller's table would decide with it (RoutingTable.hostOwnershipProblems);
   * not checked when undefined.
   */
  hostOwnershipProblems?:
    ((object: Problem['object'], hostnames: string[], createdAt: number) => Problem[]) | undefined;
  /**
   * What the per-host regex budget decides against the Ingress's routes, as the controller's
   * table stands (RoutingTable.hostLimitProblems); not checked when undefined.
   */
  hostLimitProblems?: ((contribution: RouteContribution) => Problem[]) | undefined;
  /** Wall clock in ms, to warn about expired certificates. */
  now: () => number;
}

/** The `response` of an AdmissionReview (admission.k8s.io/v1). */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  warnings?: string[];
}

/** An AdmissionReview answer: the request's apiVersion and kind, and the response. */
export interface AdmissionReviewAnswer {
  apiVersion: string;
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

/** A review request that is not one: the HTTP answer is 400 with this message. */
export class AdmissionRequestError extends Error {
  override readonly name = 'AdmissionRequestError';
}

/** Most warnings returned; the API server shows each to the user. */
const MAX_WARNINGS = 20;

interface ReviewRequest {
  uid: string;
  operation?: unknown;
  object?: unknown;
  kind?: { group?: unknown; kind?: unknown };
}

function readRequest(body: unknown): { apiVersion: string; request: ReviewRequest } {
  if (typeof body !== 'object' || body === null)
    throw new AdmissionRequestError('the body must be an AdmissionReview');
  const review = body as { apiVersion?: unknown; kind?: unknown; request?: unknown };
  if (
    review.kind !== 'AdmissionReview' ||
    (review.apiVersion !== 'admission.k8s.io/v1' && review.apiVersion !== 'admission.k8s.io/v1beta1')
  ) {
    throw new AdmissionRequestError('the body must be an AdmissionReview of admission.k8s.io/v1');
  }
  const request = review.request as ReviewRequest | undefined;
  if (
    typeof request !== 'object' ||
    request === null ||
    typeof request.uid !== 'string' ||
    request.uid === ''
  ) {
    throw new AdmissionRequestError('the AdmissionReview must carry a request with a uid');
  }
  return { apiVersion: review.apiVersion, request };
}

function isIngress(object: unknown): object is Ingress {
  if (typeof object !== 'object' || object === null) return false;
  const metadata = (object as { metadata?: { name?: unknown } }).metadata;
  return typeof metadata === 'object' && metadata !== null && typeof metadata.name === 'string';
}

/**
 * The hosts the Ingress would lose to another namespace, a wildcard of which may cover them. Its
 * age is the one the API server gave it (it sets creationTimestamp before validating admission):
 * an Ingress that is older than another namespace's claim keeps the host on update, as the
 * controller decides; without one it counts as the youngest.
 */
function hostOwnershipProblemsOf(
  ingress: Ingress,
  translation: IngressTranslation,
  options: IngressAdmissionOptions,
): Problem[] {
  const contribution = translation.contribution;
  if (options.hostOwnershipProblems === undefined || contribution === undefined) return [];
  const hostnames = [
    ...contribution.hosts.map(({ hostname }) => hostname),
    ...contribution.tls.map(({ hostname }) => hostname),
  ];
  const created: unknown = ingress.metadata.creationTimestamp;
  const createdAt = created instanceof Date ? created.getTime() : Date.parse(String(created));
  return options.hostOwnershipProblems(
    contribution.source,
    hostnames,
    Number.isNaN(createdAt) ? Number.POSITIVE_INFINITY : createdAt,
  );
}

/**
 * Reviews one AdmissionReview (the parsed JSON body). Ingresses this controller does not own,
 * deletions and other kinds are allowed untouched. Throws AdmissionRequestError for a body that
 * is not an AdmissionReview.
 */
export function reviewIngressAdmission(
  body: unknown,
  options: IngressAdmissionOptions,
): AdmissionReviewAnswer {
  const { apiVersion, request } = readRequest(body);
  const answer = (response: Omit<AdmissionResponse, 'uid'>): AdmissionReviewAnswer => ({
    apiVersion,
    kind: 'AdmissionReview',
    response: { uid: request.uid, ...response },
  });
  const { object } = request;
  if (request.operation === 'DELETE' || request.kind?.kind !== 'Ingress' || !isIngress(object)) {
    return answer({ allowed: true });
  }
  const view = options.view();
  const decision = createIngressClassResolver(view.ingressClasses(), options.classConfig).resolve(object);
  // Another controller's Ingress (ingress-nginx's, while both run side by side) is not ours to judge.
  if (!decision.owned) return answer({ allowed: true });
  // Only the memcached, the allowed response headers and the Ingress checks are read:
  // global-rate-limit and custom-headers are judged by whether they could be served.
  const defaults =
    options.controllerConfigMap === undefined
      ? undefined
      : parseControllerConfigMap(view.configMap(options.controllerConfigMap)?.data).settings.translation;
  const translation = translateIngress(
    object,
    {
      secret: (namespace, name) => view.secret(namespacedKey(namespace, name)),
      configMap: (namespace, name) => view.configMap(namespacedKey(namespace, name)),
    },
    {
      annotationPrefix: options.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX,
      now: options.now(),
      ...(options.maxPathsPerIngress === undefined ? {} : { maxPathsPerIngress: options.maxPathsPerIngress }),
      ...(options.authAddressPolicy === undefined ? {} : { authAddressPolicy: options.authAddressPolicy() }),
      ...(options.allowedSnippetDirectives === undefined
        ? {}
        : { allowedSnippetDirectives: options.allowedSnippetDirectives }),
      ...(options.defaultBackend === undefined ? {} : { defaultBackend: options.defaultBackend }),
      ...(defaults === undefined
        ? {}
        : {
            globalRateLimit: defaults.globalRateLimit,
            allowedResponseHeaders: defaults.allowedResponseHeaders,
            // The ConfigMap's path, word and risk checks refuse here what the controller leaves out.
            ingressChecks: defaults.ingressChecks,
          }),
    },
  );
  const contribution = translation.contribution;
  const problems = [
    ...translation.problems,
    ...hostOwnershipProblemsOf(object, translation, options),
    ...(contribution === undefined ? [] : (options.hostLimitProblems?.(contribution) ?? [])),
  ];
  const refusals = problems.filter(
    (problem) => problem.severity === 'error' && !isReferencedObjectProblem(problem),
  );
  const warnings = problems
    .filter((problem) => !refusals.includes(problem))
    .map(formatFieldProblem)
    .slice(0, MAX_WARNINGS);
  if (refusals.length === 0) return answer({ allowed: true, ...(warnings.length > 0 ? { warnings } : {}) });
  return answer({
    allowed: false,
    status: {
      code: 400,
      reason: 'Invalid',
      message: `ingresskit would not serve this Ingress as written:\n${refusals.map(formatFieldProblem).join('\n')}`,
    },
    ...(warnings.length > 0 ? { warnings } : {}),
  });
}
