/**
 * The flags of every ingresskit command. Names follow ingress-nginx where the meaning is the same,
 * so a Deployment written for it reads naturally here. Every flag can also be set through the
 * environment: `--watch-namespace` is `INGRESSKIT_WATCH_NAMESPACE`. A flag on the command line
 * wins over the environment, which wins over the default.
 */
import { parseGoDuration } from '@ingresskit/ingress-routes';
import {
  DEFAULT_REGEX_MATCHES_PER_REQUEST,
  DEFAULT_REQUEST_BUCKETS,
  DEFAULT_SERIES_PER_NAMESPACE,
} from '@ingresskit/nginx-template';
import { FlagError } from './errors.js';

/** `duration`: seconds, written as Go and ingress-nginx write durations (`30s`, `1m30s`, `500ms`) or as a plain number of seconds. */
type FlagType = 'string' | 'boolean' | 'number' | 'port' | 'duration';

interface FlagSpec<T extends FlagType = FlagType> {
  type: T;
  default: ValueOf<T>;
  description: string;
  /** Allowed values of a string flag. */
  choices?: readonly string[];
}

type ValueOf<T extends FlagType> = T extends 'boolean' ? boolean : T extends 'string' ? string : number;

const flagSpecs = {
  kubeconfig: {
    type: 'string',
    default: '',
    description:
      'Path to a kubeconfig file. Empty: $KUBECONFIG, ~/.kube/config, then in-cluster configuration.',
  },
  'watch-namespace': {
    type: 'string',
    default: '',
    description: 'Namespace(s) to watch for Ingresses, comma-separated. Empty: all namespaces.',
  },
  'watch-namespace-selector': {
    type: 'string',
    default: '',
    description:
      'Serve only the Ingresses of namespaces whose labels match this label selector (e.g. team=a,env in (prod)); namespaces that start or stop matching are followed. Not with --watch-namespace.',
  },
  'controller-class': {
    type: 'string',
    default: 'ingresskit.dev/ingress-controller',
    description: 'IngressClass spec.controller value this controller owns.',
  },
  'ingress-class': {
    type: 'string',
    default: 'nginx',
    description:
      'Value of the legacy kubernetes.io/ingress.class annotation this controller owns, and the class name in by-name mode.',
  },
  'watch-ingress-without-class': {
    type: 'boolean',
    default: false,
    description:
      'Also serve Ingresses with no class at all when the cluster has no default IngressClass of ours.',
  },
  'ingress-class-by-name': {
    type: 'boolean',
    default: false,
    description: 'Own the IngressClass named --ingress-class whatever its spec.controller.',
  },
  'honor-default-class': {
    type: 'boolean',
    default: true,
    description:
      'Serve Ingresses with no class when the cluster default IngressClass is ours, also those created before it became default.',
  },
  'publish-service': {
    type: 'string',
    default: '',
    description: 'NAMESPACE/NAME of the Service whose addresses are published in Ingress status.',
  },
  'publish-status-address': {
    type: 'string',
    default: '',
    description:
      'Comma-separated IPs or hostnames to publish in Ingress status (wins over --publish-service).',
  },
  'enable-metrics': {
    type: 'boolean',
    default: true,
    description:
      "Count requests in nginx and serve them, and nginx's process metrics, on /metrics under ingress-nginx's names (nginx_ingress_controller_requests, its histograms, nginx_process_*).",
  },
  'optimize-memory-after-ready': {
    type: 'boolean',
    default: true,
    description:
      "Once the first configuration is served, switch V8 to its memory-saving heuristics (node's --optimize-for-size): a lower, flat RSS in the steady state; the cold start runs at full speed.",
  },
  'metrics-per-host': {
    type: 'boolean',
    default: true,
    description:
      "Request metrics carry the request's host; only requests to a hostname a rule names exactly (not a wildcard's) are counted unless --metrics-per-undefined-host. false: no host label, every request counted.",
  },
  'metrics-per-undefined-host': {
    type: 'boolean',
    default: false,
    description:
      'With --metrics-per-host, also count requests to hosts no Ingress names (wildcards, unknown hosts) under the host the client sent: as many series as hosts clients send.',
  },
  'time-buckets': {
    type: 'string',
    default: DEFAULT_REQUEST_BUCKETS.time.join(','),
    description:
      'Comma-separated, strictly increasing bucket bounds (seconds) of the request, response, connect and header duration histograms.',
  },
  'length-buckets': {
    type: 'string',
    default: DEFAULT_REQUEST_BUCKETS.length.join(','),
    description:
      'Comma-separated, strictly increasing bucket bounds (bytes) of the request_size and response_size histograms.',
  },
  'size-buckets': {
    type: 'string',
    default: DEFAULT_REQUEST_BUCKETS.size.join(','),
    description: 'Comma-separated, strictly increasing bucket bounds (bytes) of the bytes_sent histogram.',
  },
  'exclude-socket-metrics': {
    type: 'string',
    default: '',
    description:
      'Comma-separated request metrics neither counted nor served, with or without the nginx_ingress_controller_ prefix (requests, request_duration_seconds, ...); other names are logged and ignored.',
  },
  'max-series-per-namespace': {
    type: 'number',
    default: DEFAULT_SERIES_PER_NAMESPACE,
    description:
      "Most request metric series (label sets) one namespace may have; a request whose series would pass it is left out and counted in ingresskit_uncounted_requests_total, so no tenant can fill nginx's metric memory or push out another's series. 0: no limit.",
  },
  'monitor-max-batch-size': {
    type: 'number',
    default: 10000,
    description:
      "Accepted for ingress-nginx's command lines and ignored: nginx adds its counts to shared memory every second, with no batch that could overflow.",
  },
  'update-status': {
    type: 'boolean',
    default: true,
    description: 'Publish load-balancer addresses into the status of owned Ingresses (leader only).',
  },
  'update-status-on-shutdown': {
    type: 'boolean',
    default: true,
    description: 'Clear the published addresses on shutdown when this is the last replica.',
  },
  'shutdown-grace-period': {
    type: 'duration',
    default: 0,
    description:
      'How long to keep serving after SIGTERM, with /healthz failing, before nginx stops (30s, 1m, or seconds): time for load balancers to take this replica out, as in ingress-nginx.',
  },
  'election-id': {
    type: 'string',
    default: 'ingresskit-leader',
    description: 'Name of the Lease used for leader election.',
  },
  'election-ttl': {
    type: 'duration',
    default: 30,
    description:
      'How long a Lease stays valid without renewal (30s, 1m, or seconds); a new leader takes over after it. The renew deadline is half, the retry period a quarter.',
  },
  'pod-name': {
    type: 'string',
    default: '',
    description:
      "This replica's name: the leader election identity and the Event reporter. Empty: $POD_NAME, then the host name.",
  },
  'pod-namespace': {
    type: 'string',
    default: '',
    description:
      'Namespace of the controller pod, where the Lease lives. Empty: $POD_NAMESPACE, the service account namespace, then "default".',
  },
  'report-node-internal-ip-address': {
    type: 'boolean',
    default: false,
    description: 'Publish node InternalIPs before ExternalIPs when addresses come from the nodes.',
  },
  'sync-rate-limit': {
    type: 'number',
    default: 0.3,
    description:
      'Most nginx reloads per second (only listener and operator setting changes reload); route, certificate and endpoint changes are pushed to nginx at once without a reload. 0 means no limit.',
  },
  'annotations-prefix': {
    type: 'string',
    default: 'nginx.ingress.kubernetes.io',
    description: 'Prefix of the ingress-nginx annotations this controller reads, as in ingress-nginx.',
  },
  'default-ssl-certificate': {
    type: 'string',
    default: '',
    description:
      'NAMESPACE/NAME of the kubernetes.io/tls Secret served to HTTPS clients whose server name no Ingress has (and to clients without one), as in ingress-nginx. Empty, or while the Secret is missing or invalid: a self-signed certificate.',
  },
  configmap: {
    type: 'string',
    default: '',
    description:
      "NAMESPACE/NAME of the controller ConfigMap, with ingress-nginx's keys (docs/annotations.md lists what each does here). Changes apply at once: annotation defaults without a reload, nginx.conf settings with one; an invalid value keeps the last valid one, with an Event. Empty: none.",
  },
  'default-backend-service': {
    type: 'string',
    default: '',
    description:
      'NAMESPACE/NAME[:PORT] of the Service that serves requests no Ingress matches. Empty: a built-in 404.',
  },
  'allow-cross-namespace-hosts': {
    type: 'boolean',
    default: false,
    description:
      "Let Ingresses of several namespaces add paths and TLS to one host, as ingress-nginx does. Off, a host belongs to the namespace of its oldest Ingress, or of an older wildcard that covers it, and other namespaces' rules for it are left out with an Event.",
  },
  'max-paths-per-ingress': {
    type: 'number',
    default: 1000,
    description:
      'Most paths one Ingress may hold over all its rules; an Ingress with more is left out with an Event, so that one namespace cannot slow translation for all. 0: no limit.',
  },
  'max-paths-per-namespace': {
    type: 'number',
    default: 0,
    description:
      'Most paths the Ingresses of one namespace may hold together; oldest first, an Ingress that would pass the limit is left out with an Event. 0 (the default, as ingress-nginx has no such limit): no limit.',
  },
  'max-regex-matches-per-request': {
    type: 'number',
    default: DEFAULT_REGEX_MATCHES_PER_REQUEST,
    description:
      "Most regular expression matches nginx runs to route one request, each bounded by 100,000 backtracking steps: one per group of a host's regex paths (matched together, one PCRE match however many paths), one per header or query regex condition. A host whose routes could need more, with the chosen route's regex rewrite, CORS origins, canary pattern and client certificate subject, is served from its oldest Ingresses and routes up to that many; the one that would pass it is left out of the host with an Event. At least 1.",
  },
  'allow-snippet-directives': {
    type: 'string',
    default: '',
    description:
      'Directives a configuration-snippet annotation may hold, comma-separated, of add_header, more_clear_headers, more_clear_input_headers, more_set_headers, more_set_input_headers, proxy_hide_header and proxy_set_header. They are translated into header changes with literal values (the snippet never reaches nginx.conf); a snippet with any other directive, a variable or a block leaves its Ingress out with an Event. Empty (the default): every snippet leaves its Ingress out.',
  },
  'allow-external-name-services': {
    type: 'boolean',
    default: true,
    description:
      'Serve Ingresses whose backend is an ExternalName Service (as ingress-nginx). Either way no backend may point at a loopback, link-local, unspecified or cloud metadata address, or at this pod.',
  },
  'allow-local-backend-addresses': {
    type: 'boolean',
    default: false,
    description:
      "Let backends point at loopback and this pod's own addresses, except the controller's own ports: only for development, where the backends run beside the controller (the demo does this). Link-local, unspecified and cloud metadata addresses stay refused.",
  },
  'lua-shared-dict-size': {
    type: 'string',
    default: '256m',
    description:
      "nginx's shared memory for routes, certificates and backends (nginx size syntax: 512k, 256m, 1g). It holds the whole route table, about 1 MiB per 1,000 Ingresses; pages are used only as it fills.",
  },
  'max-namespace-dict-share': {
    type: 'number',
    default: 0.5,
    description:
      "The largest part of nginx's shared memory for routes (--lua-shared-dict-size) the Ingresses of one namespace may fill together, more than 0 and at most 1, of the three quarters handed out (the last quarter stays free for changes in flight). When namespaces together need more, each gets an equal part, and one that needs less leaves the rest to the others. Oldest first, an Ingress whose routes, policies and certificates would pass its namespace's part is left out with an Event, so that no tenant can fill the memory and stop everyone's updates.",
  },
  'http-port': { type: 'port', default: 80, description: 'Port nginx listens on for HTTP.' },
  'https-port': { type: 'port', default: 443, description: 'Port nginx listens on for HTTPS.' },
  'enable-ssl-passthrough': {
    type: 'boolean',
    default: false,
    description:
      'Serve the ssl-passthrough annotation as ingress-nginx does: a TCP proxy in the controller owns the HTTPS port, sends the TLS connections of passthrough hosts (by the server name of the ClientHello) to their backends as they are, and everything else to nginx with the PROXY protocol.',
  },
  'ssl-passthrough-proxy-port': {
    type: 'port',
    default: 442,
    description:
      "Loopback port of nginx's HTTPS listener behind the ssl-passthrough proxy (with --enable-ssl-passthrough).",
  },
  'tcp-services-configmap': {
    type: 'string',
    default: '',
    description:
      'NAMESPACE/NAME of a ConfigMap of TCP services, as in ingress-nginx: "<port>": "<namespace>/<service>:<port>[:PROXY][:PROXY]". nginx reloads when the ports or the endpoints change. Empty: none.',
  },
  'udp-services-configmap': {
    type: 'string',
    default: '',
    description:
      'NAMESPACE/NAME of a ConfigMap of UDP services, as in ingress-nginx: "<port>": "<namespace>/<service>:<port>". nginx reloads when the ports or the endpoints change. Empty: none.',
  },
  'status-port': {
    type: 'port',
    default: 10246,
    description:
      "Ignored, kept so existing command lines work: nginx's configuration endpoint is a unix socket inside the nginx prefix, which no route can reach.",
  },
  'healthz-port': {
    type: 'port',
    default: 10254,
    description: 'Port of the controller HTTP server: /healthz, /metrics and /explain.',
  },
  'nginx-binary': {
    type: 'string',
    default: '',
    description: 'The nginx executable. Empty: /usr/sbin/nginx when it exists, else nginx on the PATH.',
  },
  'nginx-prefix': {
    type: 'string',
    default: '',
    description:
      'Directory nginx runs in (nginx.conf, certificates, Lua files, temp files). Empty: a new directory under the system temp directory, removed on exit.',
  },
  'validating-webhook': {
    type: 'string',
    default: '',
    description:
      "HOST:PORT (or :PORT) of the validating admission webhook for Ingresses, served over HTTPS at /networking/v1/ingresses as ingress-nginx's: it refuses at kubectl apply what the controller would leave out, with the same messages. Empty: no webhook.",
  },
  'validating-webhook-certificate': {
    type: 'string',
    default: '',
    description: 'PEM certificate (chain) file of the admission webhook, e.g. from a mounted Secret.',
  },
  'validating-webhook-key': {
    type: 'string',
    default: '',
    description: 'PEM private key file of the admission webhook.',
  },
  'enable-ingress-checksum': {
    type: 'boolean',
    default: false,
    description:
      'Serve a new configuration only when it matches the newest IngressCheckSum (Tengine-compatible).',
  },
  'gateway-controller-name': {
    type: 'string',
    default: '',
    description:
      'GatewayClass spec.controllerName to accept, e.g. ingresskit.dev/gateway-controller; Gateways of accepted classes and their HTTPRoutes are served. Empty: no Gateway API.',
  },
  'log-level': {
    type: 'string',
    default: 'info',
    description: 'Least severe log level written to stderr (JSON lines).',
    choices: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
  },
  manifests: {
    type: 'string',
    default: '',
    description: 'Directory (or file) of YAML/JSON manifests, read recursively.',
  },
  namespace: {
    type: 'string',
    default: '',
    description: 'Namespace to publish the IngressCheckSum in.',
  },
  'dry-run': {
    type: 'boolean',
    default: false,
    description: 'Print what would be created and deleted; change nothing.',
  },
  output: {
    type: 'string',
    default: 'text',
    description: 'Output format.',
    choices: ['text', 'json', 'yaml'],
  },
  to: {
    type: 'string',
    default: 'report',
    description:
      'What migrate prints: the report per Ingress, or the Gateway, ReferenceGrants and HTTPRoutes that serve the same (as YAML; JSON with --output=json).',
    choices: ['report', 'gateway-api'],
  },
  'gateway-name': {
    type: 'string',
    default: 'ingresskit',
    description: 'Name of the Gateway that migrate --to=gateway-api writes and attaches the HTTPRoutes to.',
  },
  'gateway-namespace': {
    type: 'string',
    default: 'ingresskit',
    description: 'Namespace of that Gateway.',
  },
  'gateway-class-name': {
    type: 'string',
    default: 'ingresskit',
    description: 'spec.gatewayClassName of that Gateway.',
  },
  'exit-after-ready': {
    type: 'boolean',
    default: false,
    description:
      'Start everything, check every route with real HTTP requests, print the summary and exit (0 when all routes answer as expected).',
  },
} as const satisfies Record<string, FlagSpec>;

/** Names of every flag of every command. */
export type FlagName = keyof typeof flagSpecs;

/** Parsed flag values, keyed by flag name. */
export type Flags = { -readonly [K in FlagName]: ValueOf<(typeof flagSpecs)[K]['type']> };

/** The flags of `ingresskit run`, in help order. */
export const runFlagNames: readonly FlagName[] = [
  'kubeconfig',
  'watch-namespace',
  'watch-namespace-selector',
  'controller-class',
  'ingress-class',
  'watch-ingress-without-class',
  'ingress-class-by-name',
  'honor-default-class',
  'publish-service',
  'publish-status-address',
  'update-status',
  'update-status-on-shutdown',
  'shutdown-grace-period',
  'election-id',
  'election-ttl',
  'pod-name',
  'pod-namespace',
  'report-node-internal-ip-address',
  'sync-rate-limit',
  'annotations-prefix',
  'enable-metrics',
  'optimize-memory-after-ready',
  'metrics-per-host',
  'metrics-per-undefined-host',
  'time-buckets',
  'length-buckets',
  'size-buckets',
  'exclude-socket-metrics',
  'max-series-per-namespace',
  'monitor-max-batch-size',
  'configmap',
  'default-ssl-certificate',
  'default-backend-service',
  'allow-cross-namespace-hosts',
  'allow-external-name-services',
  'allow-local-backend-addresses',
  'max-paths-per-ingress',
  'max-paths-per-namespace',
  'max-regex-matches-per-request',
  'allow-snippet-directives',
  'lua-shared-dict-size',
  'max-namespace-dict-share',
  'http-port',
  'https-port',
  'enable-ssl-passthrough',
  'ssl-passthrough-proxy-port',
  'tcp-services-configmap',
  'udp-services-configmap',
  'status-port',
  'healthz-port',
  'nginx-binary',
  'nginx-prefix',
  'validating-webhook',
  'validating-webhook-certificate',
  'validating-webhook-key',
  'enable-ingress-checksum',
  'gateway-controller-name',
  'log-level',
];

/** The flags that decide which Ingresses are ours; shared by run, explain, render and checksum publish. */
export const classFlagNames: readonly FlagName[] = [
  'controller-class',
  'ingress-class',
  'watch-ingress-without-class',
  'ingress-class-by-name',
  'honor-default-class',
];

/** The flags that decide what one namespace may route to; shared by run, explain and render. */
export const tenancyFlagNames: readonly FlagName[] = [
  'allow-cross-namespace-hosts',
  'allow-external-name-services',
  'allow-local-backend-addresses',
  'max-paths-per-ingress',
  'max-paths-per-namespace',
  'max-regex-matches-per-request',
  'max-namespace-dict-share',
  'allow-snippet-directives',
];

/** How one command takes its arguments. */
export interface CommandLineSpec {
  /** `ingresskit <command>` as shown in error messages, e.g. `ingresskit explain`. */
  command: string;
  /** The flags this command accepts. */
  flags: readonly FlagName[];
  /** Defaults that differ from the shared table (the demo's ports, for instance). */
  defaults?: Partial<Flags>;
  /** Most positional arguments accepted; 0 by default. */
  maxPositionals?: number;
}

/** What a command line parsed into. */
export interface ParsedCommandLine {
  flags: Flags;
  positionals: string[];
}

/** The environment variable that sets a flag: `--http-port` → `INGRESSKIT_HTTP_PORT`. */
export function envVarOf(flag: FlagName): string {
  return `INGRESSKIT_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** Every flag's shared default. */
export function defaultFlags(): Flags {
  const flags: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(flagSpecs)) flags[name] = spec.default;
  return flags as Flags;
}

/**
 * Parses `--name=value`, `--name value` and, for booleans, a bare `--name`, over the environment
 * and the defaults, accepting only `spec.flags`. Throws {@link FlagError} naming the flag (or the
 * argument) for anything it cannot understand.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  spec: CommandLineSpec,
): ParsedCommandLine {
  const allowed = new Set<string>(spec.flags);
  const flags = { ...defaultFlags(), ...spec.defaults } as Record<string, unknown>;
  for (const name of spec.flags) {
    const fromEnv = env[envVarOf(name)];
    if (fromEnv !== undefined && fromEnv !== '')
      flags[name] = parseValue(name, fromEnv, `$${envVarOf(name)}`);
  }
  const positionals: string[] = [];
  const maxPositionals = spec.maxPositionals ?? 0;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      if (positionals.length >= maxPositionals) {
        throw new FlagError(`unexpected argument ${JSON.stringify(arg)}; see '${spec.command} --help'`);
      }
      positionals.push(arg);
      continue;
    }
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new FlagError(`cannot read ${JSON.stringify(arg)}; flags look like --name=value`);
    const name = match[1]!;
    if (!isFlagName(name) || !allowed.has(name)) {
      throw new FlagError(`unknown flag --${name}; see '${spec.command} --help'`);
    }
    let raw = match[2];
    if (raw === undefined) {
      if (flagSpecs[name].type === 'boolean') raw = 'true';
      else {
        raw = argv[i + 1];
        if (raw === undefined || raw.startsWith('--')) throw new FlagError(`flag --${name} needs a value`);
        i += 1;
      }
    }
    flags[name] = parseValue(name, raw, `--${name}`);
  }
  return { flags: flags as Flags, positionals };
}

/** Parses the flags of `ingresskit run` (no positional arguments). */
export function parseRunFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Flags {
  return parseCommandLine(argv, env, { command: 'ingresskit run', flags: runFlagNames }).flags;
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(flagSpecs, name);
}

function parseValue(name: FlagName, raw: string, source: string): string | number | boolean {
  const spec: FlagSpec = flagSpecs[name];
  switch (spec.type) {
    case 'string': {
      const value = raw.trim();
      if (spec.choices !== undefined && !spec.choices.includes(value)) {
        throw new FlagError(
          `${source} must be one of ${spec.choices.join(', ')}, not ${JSON.stringify(raw)}`,
        );
      }
      return value;
    }
    case 'boolean':
      if (/^(true|1|yes)$/i.test(raw)) return true;
      if (/^(false|0|no)$/i.test(raw)) return false;
      throw new FlagError(`${source} must be true or false, not ${JSON.stringify(raw)}`);
    case 'number': {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value) || value < 0) {
        throw new FlagError(`${source} must be a number ≥ 0, not ${JSON.stringify(raw)}`);
      }
      return value;
    }
    case 'duration': {
      const seconds = parseDurationSeconds(raw);
      if (seconds === undefined) {
        throw new FlagError(
          `${source} must be a duration such as 30s, 1m30s or 500ms (or a number of seconds), not ${JSON.stringify(raw)}`,
        );
      }
      return seconds;
    }
    case 'port': {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < 1 || value > 65535) {
        throw new FlagError(`${source} must be a port number from 1 to 65535, not ${JSON.stringify(raw)}`);
      }
      return value;
    }
  }
}

/**
 * Seconds of a Go duration (`1h30m`, `30s`, `1.5s`, `500ms`) or of a plain number of seconds;
 * undefined for anything else, negative durations included.
 */
export function parseDurationSeconds(raw: string): number | undefined {
  const value = raw.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  return parseGoDuration(value);
}

/** The flags section of a command's `--help`: each flag with its environment variable and default. */
export function formatFlagsHelp(names: readonly FlagName[], defaults: Partial<Flags> = {}): string {
  const lines = ['Flags (each also settable through its environment variable):', ''];
  for (const name of names) {
    const spec: FlagSpec = flagSpecs[name];
    const value = defaults[name] ?? spec.default;
    const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
    const placeholder = spec.choices !== undefined ? spec.choices.join('|') : spec.type.toUpperCase();
    lines.push(`  --${name}${spec.type === 'boolean' ? '' : '=' + placeholder}`);
    lines.push(`      ${spec.description}`);
    lines.push(`      default: ${shown}   env: ${envVarOf(name)}`);
  }
  return lines.join('\n') + '\n';
}

/** The `--help` flags section of `ingresskit run`. */
export function formatRunFlagsHelp(): string {
  return formatFlagsHelp(runFlagNames);
}
