/**
 * The flags of `ingresskit run`. Names follow ingress-nginx where the meaning is the same, so a
 * Deployment written for it reads naturally here. Every flag can also be set through the
 * environment: `--watch-namespace` is `INGRESSKIT_WATCH_NAMESPACE`. A flag on the command line
 * wins over the environment, which wins over the default.
 */
import { FlagError } from './errors.js';

type FlagType = 'string' | 'boolean' | 'number' | 'port';

interface FlagSpec<T extends FlagType = FlagType> {
  type: T;
  default: ValueOf<T>;
  description: string;
}

type ValueOf<T extends FlagType> = T extends 'boolean' ? boolean : T extends 'string' ? string : number;

const flagSpecs = {
  kubeconfig: {
    type: 'string',
    default: '',
    description: 'Path to a kubeconfig file. Empty: $KUBECONFIG, ~/.kube/config, then in-cluster configuration.',
  },
  'watch-namespace': {
    type: 'string',
    default: '',
    description: 'Namespace(s) to watch for Ingresses, comma-separated. Empty: all namespaces.',
  },
  'controller-class': {
    type: 'string',
    default: 'ingresskit.dev/ingress-controller',
    description: 'IngressClass spec.controller value this controller owns.',
  },
  'ingress-class': {
    type: 'string',
    default: 'nginx',
    description: 'Value of the legacy kubernetes.io/ingress.class annotation this controller owns, and the class name in by-name mode.',
  },
  'watch-ingress-without-class': {
    type: 'boolean',
    default: false,
    description: 'Also serve Ingresses with no class at all when the cluster has no default IngressClass of ours.',
  },
  'ingress-class-by-name': {
    type: 'boolean',
    default: false,
    description: 'Own the IngressClass named --ingress-class whatever its spec.controller.',
  },
  'honor-default-class': {
    type: 'boolean',
    default: true,
    description: 'Serve Ingresses with no class when the cluster default IngressClass is ours, also those created before it became default.',
  },
  'publish-service': {
    type: 'string',
    default: '',
    description: 'NAMESPACE/NAME of the Service whose addresses are published in Ingress status.',
  },
  'publish-status-address': {
    type: 'string',
    default: '',
    description: 'Comma-separated IPs or hostnames to publish in Ingress status (wins over --publish-service).',
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
  'election-id': {
    type: 'string',
    default: 'ingresskit-leader',
    description: 'Name of the Lease used for leader election.',
  },
  'report-node-internal-ip-address': {
    type: 'boolean',
    default: false,
    description: 'Publish node InternalIPs before ExternalIPs when addresses come from the nodes.',
  },
  'sync-rate-limit': {
    type: 'number',
    default: 0.3,
    description: 'Most configuration syncs per second; bursts of changes are coalesced. 0 means no limit.',
  },
  'default-backend-service': {
    type: 'string',
    default: '',
    description: 'NAMESPACE/NAME of the Service that serves requests no Ingress matches. Empty: a built-in 404.',
  },
  'http-port': { type: 'port', default: 80, description: 'Port nginx listens on for HTTP.' },
  'https-port': { type: 'port', default: 443, description: 'Port nginx listens on for HTTPS.' },
  'healthz-port': {
    type: 'port',
    default: 10254,
    description: 'Port of the controller HTTP server: /healthz, /metrics and /explain.',
  },
  'enable-ingress-checksum': {
    type: 'boolean',
    default: false,
    description: 'Serve a new configuration only when it matches the newest IngressCheckSum (Tengine-compatible).',
  },
  'gateway-controller-name': {
    type: 'string',
    default: '',
    description: 'GatewayClass spec.controllerName to accept, e.g. ingresskit.dev/gateway-controller. Empty: GatewayClasses are not reconciled.',
  },
} as const satisfies Record<string, FlagSpec>;

/** Names of the `ingresskit run` flags. */
export type FlagName = keyof typeof flagSpecs;

/** Parsed flag values, keyed by flag name. */
export type RunFlags = { -readonly [K in FlagName]: ValueOf<(typeof flagSpecs)[K]['type']> };

/** The environment variable that sets a flag: `--http-port` → `INGRESSKIT_HTTP_PORT`. */
export function envVarOf(flag: FlagName): string {
  return `INGRESSKIT_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** Every flag's defaults. */
export function defaultRunFlags(): RunFlags {
  const flags: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(flagSpecs)) flags[name] = spec.default;
  return flags as RunFlags;
}

/**
 * Parses `--name=value`, `--name value` and, for booleans, a bare `--name`, over the environment
 * and the defaults. Throws {@link FlagError} naming the flag for anything it cannot understand.
 */
export function parseRunFlags(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): RunFlags {
  const flags = defaultRunFlags() as Record<string, unknown>;
  for (const name of Object.keys(flagSpecs) as FlagName[]) {
    const fromEnv = env[envVarOf(name)];
    if (fromEnv !== undefined && fromEnv !== '') flags[name] = parseValue(name, fromEnv, `$${envVarOf(name)}`);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new FlagError(`unexpected argument ${JSON.stringify(arg)}; flags look like --name=value`);
    const name = match[1]!;
    if (!isFlagName(name)) throw new FlagError(`unknown flag --${name}; see 'ingresskit run --help'`);
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
  return flags as RunFlags;
}

function isFlagName(name: string): name is FlagName {
  return Object.hasOwn(flagSpecs, name);
}

function parseValue(name: FlagName, raw: string, source: string): string | number | boolean {
  const spec: FlagSpec = flagSpecs[name];
  switch (spec.type) {
    case 'string':
      return raw.trim();
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
    case 'port': {
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < 1 || value > 65535) {
        throw new FlagError(`${source} must be a port number from 1 to 65535, not ${JSON.stringify(raw)}`);
      }
      return value;
    }
  }
}

/** The `--help` text of `ingresskit run`: every flag with its environment variable and default. */
export function formatRunFlagsHelp(): string {
  const lines = ['Flags (each also settable through its environment variable):', ''];
  for (const [name, spec] of Object.entries(flagSpecs) as [FlagName, FlagSpec][]) {
    const shown = spec.type === 'string' ? JSON.stringify(spec.default) : String(spec.default);
    lines.push(`  --${name}${spec.type === 'boolean' ? '' : '=' + spec.type.toUpperCase()}`);
    lines.push(`      ${spec.description}`);
    lines.push(`      default: ${shown}   env: ${envVarOf(name)}`);
  }
  return lines.join('\n') + '\n';
}
