/**
 * The settings of IngressRouting: what a controller config says of routing, and the Ingress
 * translator those settings make.
 */
import type { ClassResolutionConfig } from '@ingresskit/class-resolution';
import {
  createIngressTranslator,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  type BackendAddressPolicy,
  type IngressTranslator,
  type NameResolution,
  type ServiceReference,
  type TranslationDefaults,
} from '@ingresskit/ingress-routes';
import { sharedDictBytesOf } from '@ingresskit/nginx-template';
import type { Listener } from '@ingresskit/route-model';
import type { ControllerConfig } from './config.js';
import type { NamespaceDataBudgetOptions } from '@ingresskit/route-table';
import { listOwnPorts } from './own-ports.js';

/** Options of IngressRouting. */
export interface IngressRoutingOptions {
  classConfig: Partial<ClassResolutionConfig>;
  /** `--default-backend-service`: what answers requests no Ingress matches; 404 when undefined. */
  defaultBackend?: ServiceReference | undefined;
  /**
   * Let Ingresses of several namespaces share a host, as ingress-nginx does; by default a host
   * belongs to the namespace of its oldest Ingress.
   */
  allowCrossNamespaceHosts?: boolean | undefined;
  /** What backends may point at; DEFAULT_BACKEND_ADDRESS_POLICY when undefined. */
  backendAddressPolicy?: BackendAddressPolicy | undefined;
  listeners: Listener[];
  annotationPrefix?: string;
  /** `--max-paths-per-ingress`; no limit when undefined or 0. */
  maxPathsPerIngress?: number | undefined;
  /** `--max-paths-per-namespace` (see NamespacePathBudget); no limit when undefined or 0. */
  maxPathsPerNamespace?: number | undefined;
  /**
   * `--max-regex-matches-per-request`: the most regex matches a host's routes may need per
   * request (nginx-template's measureRegexWork); no limit when undefined.
   */
  maxRegexMatchesPerRequest?: number | undefined;
  /** nginx's shared dict and the part of it one namespace may fill (route-table's data budget); none when undefined. */
  dataBudget?: NamespaceDataBudgetOptions | undefined;
  /** `--allow-snippet-directives`: what a configuration-snippet may hold; none when undefined. */
  allowedSnippetDirectives?: readonly string[] | undefined;
  /**
   * The addresses an ExternalName's host name resolved to for the Services of `namespace` (see
   * ExternalNames), to pin its backends to; undefined while not resolved yet. Without it, the data
   * plane resolves names itself (render and explain, which run once).
   */
  resolveExternalName?: ((namespace: string, hostname: string) => NameResolution | undefined) | undefined;
  /** Wall clock in ms, to warn about expired certificates. */
  now: () => number;
}

/** A new translator (with an empty cache) for these options and ConfigMap defaults. */
export function createTranslatorOf(
  options: IngressRoutingOptions,
  defaults: TranslationDefaults,
): IngressTranslator {
  return createIngressTranslator({
    now: options.now,
    annotationDefaults: defaults.annotationDefaults,
    hsts: defaults.hsts,
    globalRateLimit: defaults.globalRateLimit,
    allowedResponseHeaders: defaults.allowedResponseHeaders,
    limitStatusCodes: defaults.limitStatusCodes,
    headers: { response: defaults.responseHeaders, request: defaults.requestHeaders },
    ...(defaults.globalAuth === undefined ? {} : { globalAuth: defaults.globalAuth }),
    ingressChecks: defaults.ingressChecks,
    // An auth-url may point where a backend may: the same guard against loopback and metadata.
    authAddressPolicy: options.backendAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY,
    ...(options.maxPathsPerIngress === undefined ? {} : { maxPathsPerIngress: options.maxPathsPerIngress }),
    ...(options.annotationPrefix === undefined ? {} : { annotationPrefix: options.annotationPrefix }),
    ...(options.allowedSnippetDirectives === undefined
      ? {}
      : { allowedSnippetDirectives: options.allowedSnippetDirectives }),
    // custom-http-errors of Ingresses without their own default-backend go to it.
    ...(options.defaultBackend === undefined ? {} : { defaultBackend: options.defaultBackend }),
  });
}

/** The routing settings of a controller config: one place for `run`, `render` and `explain`. */
export function routingOptionsOf(
  config: Pick<
    ControllerConfig,
    | 'classConfig'
    | 'defaultBackend'
    | 'allowCrossNamespaceHosts'
    | 'backendAddressPolicy'
    | 'maxPathsPerIngress'
    | 'maxPathsPerNamespace'
    | 'maxRegexMatchesPerRequest'
    | 'maxNamespaceDictShare'
    | 'luaSharedDictSize'
    | 'allowedSnippetDirectives'
    | 'annotationPrefix'
    | 'httpPort'
    | 'httpsPort'
    | 'healthzPort'
    | 'admissionWebhook'
    | 'sslPassthrough'
    | 'sslPassthroughProxyPort'
  >,
  listeners: Listener[],
  now: () => number,
): IngressRoutingOptions {
  return {
    classConfig: config.classConfig,
    defaultBackend: config.defaultBackend,
    allowCrossNamespaceHosts: config.allowCrossNamespaceHosts,
    // Stream services' ports join at run time (IngressRouting.setOwnPorts).
    backendAddressPolicy: { ...config.backendAddressPolicy, ownPorts: listOwnPorts(config) },
    maxPathsPerIngress: config.maxPathsPerIngress,
    maxPathsPerNamespace: config.maxPathsPerNamespace,
    maxRegexMatchesPerRequest: config.maxRegexMatchesPerRequest,
    dataBudget: {
      capacityBytes: sharedDictBytesOf(config.luaSharedDictSize),
      namespaceShare: config.maxNamespaceDictShare,
    },
    allowedSnippetDirectives: config.allowedSnippetDirectives,
    annotationPrefix: config.annotationPrefix,
    listeners,
    now,
  };
}
