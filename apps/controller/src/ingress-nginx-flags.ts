/**
 * Every flag of ingress-nginx's controller (v1.15) and what `ingresskit run` does with it, as
 * data: docs/annotations.md is generated from it, and a test checks that each flag said to be
 * supported is one of ours. An ingress-nginx flag we do not take makes `ingresskit run` exit with
 * an error naming it, so a copied command line never starts with a setting silently dropped.
 */

/** One flag of ingress-nginx's controller. */
export interface IngressNginxFlag {
  name: string;
  /** Present when `ingresskit run` takes the flag: how it differs, or '' when it does not. */
  supported?: string;
  /** Present when it does not: why, or what to use instead. */
  unsupported?: string;
}

const supported = (name: string, difference = ''): IngressNginxFlag => ({ name, supported: difference });
const unsupported = (reason: string, ...names: string[]): IngressNginxFlag[] =>
  names.map((name) => ({ name, unsupported: reason }));

/** The flags, sorted by name. */
export const INGRESS_NGINX_FLAGS: readonly IngressNginxFlag[] = [
  supported('annotations-prefix'),
  supported('configmap', 'docs: the ConfigMap keys below'),
  supported('controller-class'),
  supported(
    'default-backend-service',
    'NAMESPACE/NAME[:PORT]: a port may be named; ingress-nginx takes the first port of the Service',
  ),
  supported('election-id'),
  supported(
    'enable-metrics',
    "requests, its duration (request, response, connect, header) and size (request_size, response_size, bytes_sent) histograms and the nginx_process_* metrics are served under ingress-nginx's names; default true (ingress-nginx: false)",
  ),
  supported(
    'metrics-per-host',
    "a host is defined when an Ingress or HTTPRoute names it exactly (the label is the request's host): requests to wildcard and host-less rules count only with --metrics-per-undefined-host or --metrics-per-host=false",
  ),
  supported(
    'metrics-per-undefined-host',
    'requests that match no route count under empty Ingress, Service and path labels, as those to the default server do in ingress-nginx',
  ),
  supported(
    'exclude-socket-metrics',
    'an excluded histogram is not computed in nginx, an excluded requests counter is counted (it keeps series) but not served; a name that is no request metric is logged and ignored (ingress-nginx ignores it silently)',
  ),
  supported(
    'time-buckets',
    'a list that is not strictly increasing numbers is a startup error naming the flag',
  ),
  supported(
    'length-buckets',
    'a list that is not strictly increasing numbers is a startup error naming the flag',
  ),
  supported(
    'size-buckets',
    'a list that is not strictly increasing numbers is a startup error naming the flag',
  ),
  supported(
    'monitor-max-batch-size',
    "accepted and ignored: it caps ingress-nginx's per-worker batch sent to its metrics socket (requests beyond it are dropped); nginx here adds its counts to shared memory every second, with no batch and nothing dropped",
  ),
  supported('election-ttl'),
  supported('healthz-port', 'serves /healthz, /metrics and /explain'),
  supported('http-port'),
  supported('https-port'),
  supported('ingress-class'),
  supported('ingress-class-by-name'),
  supported('kubeconfig'),
  supported('publish-service'),
  supported('publish-status-address'),
  supported('report-node-internal-ip-address'),
  supported(
    'status-port',
    "accepted and ignored: nginx's configuration endpoint is a unix socket no route can reach",
  ),
  supported(
    'sync-rate-limit',
    'limits nginx reloads only: route, certificate and endpoint changes are pushed without one',
  ),
  supported('update-status'),
  supported('update-status-on-shutdown'),
  supported('validating-webhook'),
  supported('validating-webhook-certificate'),
  supported('validating-webhook-key'),
  supported('watch-ingress-without-class'),
  supported('watch-namespace', 'takes a comma-separated list of namespaces'),
  supported(
    'watch-namespace-selector',
    'filters Ingresses only; a relabelled namespace adds or removes its Ingresses at once (ingress-nginx: at the next event of each Ingress)',
  ),
  supported(
    'default-ssl-certificate',
    'also served to clients without SNI; a Secret that is missing or invalid gives the self-signed certificate',
  ),
  supported(
    'enable-ssl-passthrough',
    'passthrough hosts go to the ready endpoints of the backend of path / (ingress-nginx: the Service cluster IP); paths, TLS and other annotations of such an Ingress are reported as ignored',
  ),
  supported('ssl-passthrough-proxy-port', 'nginx binds it on 127.0.0.1 only'),
  supported(
    'tcp-services-configmap',
    'a change of the ports or of the endpoints reloads nginx (no Lua in stream); an entry that cannot be served is an Event on the ConfigMap naming its key',
  ),
  supported(
    'udp-services-configmap',
    'a change of the ports or of the endpoints reloads nginx (no Lua in stream); PROXY is ignored for UDP, with an Event',
  ),
  supported('shutdown-grace-period', '/healthz fails through the period while nginx keeps serving'),
  ...unsupported('not supported yet', 'post-shutdown-grace-period', 'disable-catch-all'),
  ...unsupported(
    'not supported yet',
    'enable-topology-aware-routing',
    'report-status-classes',
    'status-update-interval',
  ),
  ...unsupported(
    'not supported yet',
    'disable-leader-election',
    'disable-sync-events',
    'enable-ssl-chain-completion',
  ),
  ...unsupported('not supported yet', 'health-check-path', 'health-check-timeout', 'healthz-host'),
  {
    name: 'disable-svc-external-name',
    unsupported:
      'ExternalName Services are refused unless --allow-external-name-services (ingress-nginx serves them unless this flag)',
  },
  ...unsupported('use --kubeconfig', 'apiserver-host', 'certificate-authority'),
  ...unsupported(
    'not needed: annotation values are always checked and never reach nginx.conf',
    'enable-annotation-validation',
    'deep-inspect',
  ),
  ...unsupported(
    'not needed: a new nginx.conf is always tested whole',
    'disable-full-test',
    'dynamic-configuration-retries',
  ),
  ...unsupported(
    'not supported: native histograms reach Prometheus only in the protobuf exposition format, and /metrics serves the text format, which has classic buckets only (--time-buckets, --length-buckets, --size-buckets)',
    'bucket-factor',
    'max-buckets',
  ),
  ...unsupported(
    'not supported: GeoIP is not',
    'maxmind-edition-ids',
    'maxmind-license-key',
    'maxmind-mirror',
    'maxmind-retries-count',
    'maxmind-retries-timeout',
  ),
  ...unsupported('not supported', 'profiler-port', 'profiling', 'internal-logger-address', 'stream-port'),
  ...unsupported('not supported: objects are never resynced, only watched', 'sync-period'),
  ...unsupported('ingresskit --version and ingresskit version print it', 'version'),
  ...unsupported('not supported: the default server is not a separate server', 'default-server-port'),
].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
