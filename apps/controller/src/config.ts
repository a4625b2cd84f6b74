/** The controller's settings, resolved from the flags and the pod's environment. */
import { coreKinds, optInKinds, type ResourceKind, type StoreOptions } from '@ingresskit/store';
import { existsSync, readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import {
  isValidControllerName,
  normalizeClassResolutionConfig,
  type ClassResolutionConfig,
} from '@ingresskit/class-resolution';
import {
  isSnippetDirective,
  SNIPPET_DIRECTIVES,
  type BackendAddressPolicy,
  type ServiceReference,
} from '@ingresskit/ingress-routes';
import { parseLabelSelector, SelectorSyntaxError } from '@ingresskit/kube-objects';
import { FlagError } from './errors.js';
import type { Flags } from './flags.js';
import { resolveNginxBinary } from './nginx-process.js';
import { resolveRequestMetricsOptions, type RequestMetricsOptions } from './request-metrics-options.js';

/** Everything a controller needs to know, with defaults filled in. */
export interface ControllerConfig {
  /** Namespaces to watch; empty for all. */
  watchNamespaces: string[];
  /** A label selector of the namespaces whose Ingresses are served; '' for every namespace. */
  watchNamespaceSelector: string;
  classConfig: ClassResolutionConfig;
  publishService: string;
  publishStatusAddress: string;
  updateStatus: boolean;
  /** `--enable-metrics`: nginx counts requests, served under ingress-nginx's metric names. */
  requestMetrics: boolean;
  /** `--optimize-memory-after-ready`: `ingresskit` switches V8 to its memory-saving heuristics once ready. */
  optimizeMemoryAfterReady?: boolean;
  /** How requests are counted and served (buckets, host label, metrics left out). */
  requestMetricsOptions: RequestMetricsOptions;
  updateStatusOnShutdown: boolean;
  electionId: string;
  electionTtlMs: number;
  /** `--shutdown-grace-period`: how long to keep serving after a stop is asked for, with /healthz failing. */
  shutdownGracePeriodMs: number;
  podName: string;
  podNamespace: string;
  reportNodeInternalIp: boolean;
  /** Syncs per second; 0 for no limit. */
  syncRateLimit: number;
  defaultBackend: ServiceReference | undefined;
  /** `--annotations-prefix`: the prefix of the ingress-nginx annotations read. */
  annotationPrefix: string;
  /** `--default-ssl-certificate`: `namespace/name` of the default certificate's Secret, or undefined. */
  defaultSslCertificate: string | undefined;
  /** `--configmap`: `namespace/name` of the controller ConfigMap, or undefined. */
  configMap: string | undefined;
  /** Ingresses of several namespaces may share a host (ingress-nginx's behaviour). */
  allowCrossNamespaceHosts: boolean;
  /** What backends may point at (ExternalName, local and own addresses). */
  backendAddressPolicy: BackendAddressPolicy;
  /** Most paths one Ingress may hold (`--max-paths-per-ingress`); 0 for no limit. */
  maxPathsPerIngress: number;
  /** Most paths the Ingresses of one namespace may hold together (`--max-paths-per-namespace`); 0 for no limit. */
  maxPathsPerNamespace: number;
  /** Most regex matches routing one request may run, and a host may need (`--max-regex-matches-per-request`). */
  maxRegexMatchesPerRequest: number;
  /** The largest part of the shared dict one namespace may fill (`--max-namespace-dict-share`), in (0, 1]. */
  maxNamespaceDictShare: number;
  /** `--allow-snippet-directives`: what a configuration-snippet may hold; empty: snippets are refused. */
  allowedSnippetDirectives: string[];
  httpPort: number;
  httpsPort: number;
  /** 0 picks a free port (tests). */
  healthzPort: number;
  nginxBinary: string;
  /** Empty for a temporary directory. */
  nginxPrefix: string;
  checksumEnabled: boolean;
  /** Undefined when GatewayClasses are not reconciled. */
  gatewayControllerName: string | undefined;
  /** Address of the healthz server; undefined for all interfaces (IPv6 and IPv4 where available). */
  healthzHost: string | undefined;
  /** Addresses nginx listens on; all IPv4 addresses when undefined. */
  listenAddresses: string[] | undefined;
  workerProcesses: number | 'auto';
  /** nginx's shared memory for the route data, in nginx size syntax (`256m`). */
  luaSharedDictSize: string;
  accessLog: boolean;
  /** The validating admission webhook (`--validating-webhook`); undefined: none. */
  admissionWebhook: AdmissionWebhookConfig | undefined;
  /** `--enable-ssl-passthrough`: the controller's TCP proxy owns the HTTPS port. */
  sslPassthrough: boolean;
  /** `--ssl-passthrough-proxy-port`: nginx's HTTPS listener on loopback behind the proxy. */
  sslPassthroughProxyPort: number;
  /** `--tcp-services-configmap` and `--udp-services-configmap`: `namespace/name`, or undefined. */
  tcpServicesConfigMap: string | undefined;
  udpServicesConfigMap: string | undefined;
}

/** Where the admission webhook listens, and its TLS files. */
export interface AdmissionWebhookConfig {
  /** Undefined for all interfaces. */
  host: string | undefined;
  /** 0 picks a free port (tests). */
  port: number;
  certificateFile: string;
  keyFile: string;
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/**
 * Turns parsed flags into a ControllerConfig. Throws FlagError (exit code 2) for values that
 * parse but cannot work, naming the flag.
 */
export function resolveControllerConfig(
  flags: Flags,
  env: Readonly<Record<string, string | undefined>>,
): ControllerConfig {
  let classConfig: ClassResolutionConfig;
  try {
    classConfig = normalizeClassResolutionConfig({
      controllerClass: flags['controller-class'],
      ingressClass: flags['ingress-class'],
      watchIngressWithoutClass: flags['watch-ingress-without-class'],
      ingressClassByName: flags['ingress-class-by-name'],
      honorDefaultClass: flags['honor-default-class'],
    });
  } catch (error) {
    throw new FlagError(`--controller-class/--ingress-class: ${(error as Error).message}`, { cause: error });
  }
  let defaultBackend: ServiceReference | undefined;
  if (flags['default-backend-service'] !== '') {
    defaultBackend = parseServiceReference(flags['default-backend-service']);
    if (defaultBackend === undefined) {
      throw new FlagError(
        `--default-backend-service must be NAMESPACE/NAME or NAMESPACE/NAME:PORT, not ${JSON.stringify(flags['default-backend-service'])}`,
      );
    }
  }
  const annotationPrefix = flags['annotations-prefix'];
  if (
    !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(annotationPrefix) ||
    annotationPrefix.length > 253
  ) {
    throw new FlagError(
      `--annotations-prefix must be a DNS subdomain such as nginx.ingress.kubernetes.io, not ${JSON.stringify(annotationPrefix)}`,
    );
  }
  const configMap = namespacedNameFlag(flags, 'configmap');
  const defaultSslCertificate = namespacedNameFlag(flags, 'default-ssl-certificate');
  if (flags['publish-service'] !== '' && !/^([a-z0-9-]+\/)?[a-z0-9.-]+$/.test(flags['publish-service'])) {
    throw new FlagError(
      `--publish-service must be NAMESPACE/NAME, not ${JSON.stringify(flags['publish-service'])}`,
    );
  }
  const watchNamespaceSelector = namespaceSelectorFlag(flags);
  const gateway = flags['gateway-controller-name'];
  if (gateway !== '' && !isValidControllerName(gateway)) {
    throw new FlagError(
      `--gateway-controller-name must look like example.com/controller, not ${JSON.stringify(gateway)}`,
    );
  }
  const regexMatches = flags['max-regex-matches-per-request'];
  if (!Number.isInteger(regexMatches) || regexMatches < 1 || regexMatches > 100_000) {
    throw new FlagError(
      `--max-regex-matches-per-request must be a whole number from 1 to 100000, not ${regexMatches}`,
    );
  }
  if (flags['election-ttl'] < 1)
    throw new FlagError(`--election-ttl must be at least 1 second, not ${flags['election-ttl']}`);
  if (!/^[1-9][0-9]*[kKmMgG]?$/.test(flags['lua-shared-dict-size']))
    throw new FlagError(
      `--lua-shared-dict-size must be an nginx size such as 512k, 256m or 1g, not ${JSON.stringify(flags['lua-shared-dict-size'])}`,
    );
  const share = flags['max-namespace-dict-share'];
  if (!(share > 0 && share <= 1))
    throw new FlagError(`--max-namespace-dict-share must be more than 0 and at most 1, not ${share}`);
  const ports = [
    'http-port',
    'https-port',
    'healthz-port',
    ...(flags['enable-ssl-passthrough'] ? (['ssl-passthrough-proxy-port'] as const) : []),
  ] as const;
  for (const [i, a] of ports.entries()) {
    for (const b of ports.slice(i + 1)) {
      if (flags[a] === flags[b]) throw new FlagError(`--${a} and --${b} must differ (both are ${flags[a]})`);
    }
  }
  return {
    watchNamespaces: flags['watch-namespace']
      .split(',')
      .map((namespace) => namespace.trim())
      .filter((namespace) => namespace !== ''),
    watchNamespaceSelector,
    classConfig,
    publishService: flags['publish-service'],
    publishStatusAddress: flags['publish-status-address'],
    updateStatus: flags['update-status'],
    requestMetrics: flags['enable-metrics'],
    optimizeMemoryAfterReady: flags['optimize-memory-after-ready'],
    requestMetricsOptions: resolveRequestMetricsOptions(flags),
    updateStatusOnShutdown: flags['update-status-on-shutdown'],
    electionId: flags['election-id'],
    electionTtlMs: flags['election-ttl'] * 1000,
    shutdownGracePeriodMs: flags['shutdown-grace-period'] * 1000,
    podName: flags['pod-name'] || env.POD_NAME || hostname(),
    podNamespace: flags['pod-namespace'] || env.POD_NAMESPACE || readServiceAccountNamespace() || 'default',
    reportNodeInternalIp: flags['report-node-internal-ip-address'],
    syncRateLimit: flags['sync-rate-limit'],
    defaultBackend,
    annotationPrefix,
    configMap,
    defaultSslCertificate,
    allowCrossNamespaceHosts: flags['allow-cross-namespace-hosts'],
    maxPathsPerIngress: flags['max-paths-per-ingress'],
    maxPathsPerNamespace: flags['max-paths-per-namespace'],
    maxRegexMatchesPerRequest: flags['max-regex-matches-per-request'],
    maxNamespaceDictShare: flags['max-namespace-dict-share'],
    allowedSnippetDirectives: snippetDirectivesFlag(flags),
    backendAddressPolicy: {
      allowExternalName: flags['allow-external-name-services'],
      allowLocalAddresses: flags['allow-local-backend-addresses'],
      forbiddenAddresses: ownAddresses(),
    },
    httpPort: flags['http-port'],
    httpsPort: flags['https-port'],
    healthzPort: flags['healthz-port'],
    nginxBinary: resolveNginxBinary(flags['nginx-binary']),
    nginxPrefix: flags['nginx-prefix'],
    checksumEnabled: flags['enable-ingress-checksum'],
    gatewayControllerName: gateway === '' ? undefined : gateway,
    healthzHost: undefined,
    listenAddresses: undefined,
    workerProcesses: 'auto',
    luaSharedDictSize: flags['lua-shared-dict-size'],
    accessLog: false,
    admissionWebhook: admissionWebhookOf(flags),
    sslPassthrough: flags['enable-ssl-passthrough'],
    sslPassthroughProxyPort: flags['ssl-passthrough-proxy-port'],
    tcpServicesConfigMap: namespacedNameFlag(flags, 'tcp-services-configmap'),
    udpServicesConfigMap: namespacedNameFlag(flags, 'udp-services-configmap'),
  };
}

/** `--allow-snippet-directives` as a list; FlagError for a directive configuration-snippet cannot hold. */
function snippetDirectivesFlag(flags: Flags): string[] {
  const names = flags['allow-snippet-directives']
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isSnippetDirective(name));
  if (unknown !== undefined) {
    throw new FlagError(
      `--allow-snippet-directives takes directives of ${SNIPPET_DIRECTIVES.join(', ')}, not ${JSON.stringify(unknown)}`,
    );
  }
  return [...new Set(names)].sort();
}

/** `--validating-webhook` and its files; FlagError for an address or file set that cannot work. */
function admissionWebhookOf(flags: Flags): AdmissionWebhookConfig | undefined {
  const address = flags['validating-webhook'];
  if (address === '') return undefined;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):([0-9]{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (match === null || port > 65_535) {
    throw new FlagError(
      `--validating-webhook must be HOST:PORT or :PORT, such as :8443, not ${JSON.stringify(address)}`,
    );
  }
  const certificateFile = flags['validating-webhook-certificate'];
  const keyFile = flags['validating-webhook-key'];
  if (certificateFile === '' || keyFile === '') {
    throw new FlagError(
      '--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key: the API server calls webhooks over HTTPS only',
    );
  }
  const host = match[1] ?? (match[2] === '' ? undefined : match[2]);
  return { host, port, certificateFile, keyFile };
}

/**
 * The addresses of this pod's interfaces: nginx shares the pod's network, so a backend there would
 * reach the controller's own ports.
 */
function ownAddresses(): Set<string> {
  const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
  return new Set(addresses.filter((entry) => !entry.internal).map((entry) => entry.address.toLowerCase()));
}

function readServiceAccountNamespace(): string | undefined {
  if (!existsSync(SERVICE_ACCOUNT_NAMESPACE)) return undefined;
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Parses `--default-backend-service`: `NAMESPACE/NAME` (port 80) or `NAMESPACE/NAME:PORT` (number
 * or name); undefined for an empty value or one that does not have this shape.
 */
export function parseServiceReference(value: string): ServiceReference | undefined {
  const match = /^([a-z0-9-]+)\/([a-z0-9.-]+)(?::([A-Za-z0-9-]+))?$/.exec(value.trim());
  if (!match) return undefined;
  const port = match[3] === undefined ? 80 : /^\d+$/.test(match[3]) ? Number(match[3]) : match[3];
  return { namespace: match[1]!, name: match[2]!, port };
}

/** A NAMESPACE/NAME flag: undefined when empty, FlagError when it is not one. */
function namespacedNameFlag(
  flags: Flags,
  name: 'configmap' | 'default-ssl-certificate' | 'tcp-services-configmap' | 'udp-services-configmap',
): string | undefined {
  const value = flags[name];
  if (value === '') return undefined;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value))
    throw new FlagError(`--${name} must be NAMESPACE/NAME, not ${JSON.stringify(value)}`);
  return value;
}

/** `--watch-namespace-selector`, checked: it parses, and `--watch-namespace` is not also set (ingress-nginx refuses both). */
function namespaceSelectorFlag(flags: Flags): string {
  const selector = flags['watch-namespace-selector'].trim();
  if (selector === '') return '';
  if (flags['watch-namespace'].trim() !== '') {
    throw new FlagError('--watch-namespace and --watch-namespace-selector are mutually exclusive');
  }
  try {
    parseLabelSelector(selector);
  } catch (error) {
    if (!(error instanceof SelectorSyntaxError)) throw error;
    throw new FlagError(`--watch-namespace-selector: ${error.message}`, { cause: error });
  }
  return selector;
}

/** The annotations (under `prefix`) whose value names a Secret the store must keep for an Ingress. */
export function secretAnnotationsOf(prefix: string): string[] {
  return ['auth-secret', 'auth-tls-secret', 'proxy-ssl-secret'].map((name) => `${prefix}/${name}`);
}

/**
 * Which namespaces the store of a controller with this config mirrors: `--watch-namespace`, or
 * every namespace with `--watch-namespace-selector` keeping only the Ingresses of matching ones.
 * Only Ingresses, as ingress-nginx filters only Ingress (and Secret sync) events: the controller's
 * own ConfigMap, default backend and default certificate may live in a namespace that does not match.
 */
export function storeNamespaceScopeOf(
  config: Pick<ControllerConfig, 'watchNamespaces' | 'watchNamespaceSelector'>,
): Pick<StoreOptions, 'namespaces' | 'namespaceSelector' | 'namespaceSelectorKinds'> {
  return config.watchNamespaceSelector === ''
    ? { namespaces: config.watchNamespaces }
    : { namespaceSelector: config.watchNamespaceSelector, namespaceSelectorKinds: ['Ingress'] };
}

/** The kinds the store of a controller with this config mirrors. */
export function storeKindsOf(
  config: Pick<ControllerConfig, 'gatewayControllerName' | 'watchNamespaces' | 'checksumEnabled'>,
): ResourceKind[] {
  // The store's core kinds, in its order, always (ConfigMaps among them: the controller's
  // (--configmap), the TCP and UDP services ones, those auth-proxy-set-headers names, and
  // GatewayClass parameters); Namespaces only as asked for below.
  const kinds: ResourceKind[] = coreKinds.filter((kind) => !optInKinds.includes(kind));
  if (config.gatewayControllerName !== undefined) {
    kinds.push('GatewayClass', 'Gateway', 'HTTPRoute', 'ReferenceGrant');
    // Namespaces are cluster-scoped: a controller confined to some namespaces may not list them
    // (and the store would wait for them), so listener namespace selectors then match nothing.
    if (config.watchNamespaces.length === 0) kinds.push('Namespace');
  }
  if (config.checksumEnabled) kinds.push('IngressCheckSum');
  return kinds;
}
