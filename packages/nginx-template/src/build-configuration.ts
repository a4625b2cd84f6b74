/**
 * Owned Ingresses, Services, EndpointSlices and Secrets → the Configuration model. Each Ingress
 * is checked on its own; whatever is wrong with it becomes a problem and leaves out only that
 * Ingress (bad annotations, bad names) or that part of it (a path, a TLS entry).
 */
import { DEFAULT_ANNOTATION_PREFIX, parseAnnotations, type IngressAnnotations } from './annotations.js';
import {
  indexEndpointSlices,
  resolveBackend,
  type BackendLookups,
  type BackendResolution,
} from './backends.js';
import {
  isHostCovered,
  parseTlsSecretDataCached,
  sweepCertificateCache,
  type CertificateResult,
  type ParsedCertificate,
} from './certificates.js';
import { computeConfigurationChecksum } from './checksum.js';
import { compareText } from './compare.js';
import {
  checkDnsLabel,
  checkDnsSubdomain,
  checkHost,
  checkLiteralPath,
  checkPortName,
  checkRegexPath,
  isPortNumber,
} from './grammar.js';
import type {
  Backend,
  BuildOptions,
  BuildResult,
  Certificate,
  ConfigurationInput,
  Location,
  LocationMatch,
  LocationTarget,
  NamespacedName,
  ObjectCollection,
  PathType,
  Problem,
  SecretLike,
  Server,
  ServiceLike,
  ServiceReference,
} from './types.js';

/** The host of the catch-all server. */
export const CATCH_ALL_HOST = '_';

interface IngressDraft {
  ref: NamespacedName;
  order: number;
  annotations: IngressAnnotations;
}

interface LocationKey {
  match: LocationMatch;
  path: string;
}

interface PathCandidate {
  ingress: IngressDraft;
  rank: [number, number, number];
  field: string;
  path: string;
  pathType: PathType;
  required: LocationKey[];
  optional: LocationKey[];
  target: LocationTarget;
  rewrite?: { pattern: string; replacement: string };
}

interface TlsClaim {
  ingress: IngressDraft;
  rank: [number, number];
  /** The host this entry names; undefined for an entry that lists no hosts. */
  host?: string;
  secret: NamespacedName;
  certificate: ParsedCertificate;
}

interface HostDraft {
  host: string;
  candidates: PathCandidate[];
  /** spec.defaultBackend of the Ingresses with a rule for this host, oldest first. */
  fallbacks: { ingress: IngressDraft; target: LocationTarget }[];
  /** Ingresses with a rule for this host (for TLS entries that list no hosts). */
  ingresses: Set<IngressDraft>;
}

interface Context {
  options: Required<Pick<BuildOptions, 'annotationPrefix'>> & BuildOptions;
  lookups: BackendLookups;
  secret(namespace: string, name: string): SecretLike | undefined;
  problems: Problem[];
  backends: Map<string, BackendResolution>;
  certificates: Map<string, CertificateResult>;
  hosts: Map<string, HostDraft>;
  tlsClaims: TlsClaim[];
  /** TLS entries without hosts, applied to every host of their own Ingress. */
  tlsForAllHosts: TlsClaim[];
}

function createLookup<T>(
  collection: ObjectCollection<T> | undefined,
): (namespace: string, name: string) => T | undefined {
  if (collection === undefined) return () => undefined;
  if (!Array.isArray(collection)) {
    const map = collection as ReadonlyMap<string, T>;
    return (namespace, name) => map.get(`${namespace}/${name}`);
  }
  const index = new Map<string, T>();
  for (const item of collection as readonly T[]) {
    const metadata = (item as { metadata?: { namespace?: unknown; name?: unknown } } | null)?.metadata;
    if (typeof metadata?.namespace === 'string' && typeof metadata.name === 'string') {
      index.set(`${metadata.namespace}/${metadata.name}`, item);
    }
  }
  return (namespace, name) => index.get(`${namespace}/${name}`);
}

function toMillis(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    if (!Number.isNaN(parsed)) return parsed;
  }
  // Objects without a timestamp sort after every dated one, so they never win a conflict.
  return Number.POSITIVE_INFINITY;
}

function describeValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value);
  return text.length > 256 ? `${text.slice(0, 256)}…` : text;
}

function report(
  context: Context,
  object: NamespacedName,
  field: string,
  message: string,
  severity: Problem['severity'] = 'error',
  value?: unknown,
): void {
  const problem: Problem = { object: { kind: 'Ingress', ...object }, field, message, severity };
  const shown = describeValue(value);
  if (shown !== undefined) problem.value = shown;
  context.problems.push(problem);
}

function escapeRegexLiteral(path: string): string {
  // Literal paths hold only A-Z a-z 0-9 . _ ~ - /; of those only "." is special to PCRE.
  return path.replace(/\./g, '\\.');
}

/** The nginx locations a path needs (required) and may add when free (optional). */
function locationKeysFor(
  path: string,
  pathType: PathType,
  isRegex: boolean,
): Pick<PathCandidate, 'required' | 'optional'> {
  if (isRegex) return { required: [{ match: 'regex', path: `^${path}` }], optional: [] };
  if (pathType === 'Exact') return { required: [{ match: 'exact', path }], optional: [] };
  if (pathType === 'ImplementationSpecific') return { required: [{ match: 'prefix', path }], optional: [] };
  // Prefix matches element-wise: `/foo` serves `/foo` and `/foo/...`, never `/foobar`.
  const base = path.replace(/\/+$/, '');
  if (base === '') return { required: [{ match: 'prefix', path: '/' }], optional: [] };
  return { required: [{ match: 'prefix', path: `${base}/` }], optional: [{ match: 'exact', path: base }] };
}

function rewriteFor(
  path: string,
  pathType: PathType,
  isRegex: boolean,
  target: string,
): PathCandidate['rewrite'] {
  // The location is case-insensitive (`~*`), so the rewrite that reuses its captures is too.
  if (isRegex) return { pattern: `(?i)^${path}`, replacement: target };
  if (pathType === 'Exact') return { pattern: `^${escapeRegexLiteral(path)}$`, replacement: target };
  if (pathType === 'ImplementationSpecific') {
    // A target ending in "/" swallows the slash after the path, so /impl/x → /x, not //x.
    const slash = target.endsWith('/') ? '/?' : '';
    return { pattern: `^${escapeRegexLiteral(path)}${slash}(.*)$`, replacement: `${target}$1` };
  }
  const base = escapeRegexLiteral(path.replace(/\/+$/, ''));
  if (base === '')
    return { pattern: '^/(.*)$', replacement: target.endsWith('/') ? `${target}$1` : `${target}/$1` };
  return target.endsWith('/')
    ? { pattern: `^${base}/?(.*)$`, replacement: `${target}$1` }
    : { pattern: `^${base}(/.*)?$`, replacement: `${target}$1` };
}

type BackendReference =
  { ok: true; service: string; port: number | string } | { ok: false; message: string; value?: unknown };

function parseBackendReference(raw: unknown): BackendReference {
  if (typeof raw !== 'object' || raw === null) return { ok: false, message: 'backend must be an object' };
  const backend = raw as { service?: unknown; resource?: unknown };
  if (backend.resource !== undefined) return { ok: false, message: 'resource backends are not supported' };
  if (typeof backend.service !== 'object' || backend.service === null) {
    return { ok: false, message: 'backend.service is required' };
  }
  const service = backend.service as { name?: unknown; port?: unknown };
  const nameProblem = checkDnsLabel(service.name);
  if (nameProblem !== undefined)
    return { ok: false, message: `backend.service.name ${nameProblem}`, value: service.name };
  const port = (typeof service.port === 'object' && service.port !== null ? service.port : {}) as {
    number?: unknown;
    name?: unknown;
  };
  const hasNumber = port.number !== undefined && port.number !== null;
  const hasName = port.name !== undefined && port.name !== null && port.name !== '';
  if (hasNumber === hasName) {
    return { ok: false, message: 'backend.service.port needs exactly one of number or name' };
  }
  if (hasNumber) {
    if (!isPortNumber(port.number)) {
      return { ok: false, message: 'backend.service.port.number must be 1-65535', value: port.number };
    }
    return { ok: true, service: service.name as string, port: port.number };
  }
  const portProblem = checkPortName(port.name);
  if (portProblem !== undefined) {
    return { ok: false, message: `backend.service.port.name ${portProblem}`, value: port.name };
  }
  return { ok: true, service: service.name as string, port: port.name as string };
}

function resolveCached(
  context: Context,
  namespace: string,
  service: string,
  port: number | string,
): BackendResolution {
  const key = `${namespace}/${service}:${typeof port}:${port}`;
  let resolution = context.backends.get(key);
  if (resolution === undefined) {
    resolution = resolveBackend(context.lookups, namespace, service, port);
    context.backends.set(key, resolution);
  }
  return resolution;
}

/** Resolves an Ingress backend into a location target, reporting why it can only answer 503. */
function resolveIngressBackend(
  context: Context,
  ingress: IngressDraft,
  raw: unknown,
  field: string,
): LocationTarget | undefined {
  const reference = parseBackendReference(raw);
  if (!reference.ok) {
    report(context, ingress.ref, field, reference.message, 'error', reference.value);
    return undefined;
  }
  const resolution = resolveCached(context, ingress.ref.namespace, reference.service, reference.port);
  if (resolution.issue !== undefined)
    report(context, ingress.ref, `${field}.service`, resolution.issue, 'error');
  return { kind: 'backend', backend: resolution.backend.name };
}

function getHostDraft(context: Context, host: string): HostDraft {
  let draft = context.hosts.get(host);
  if (draft === undefined) {
    draft = { host, candidates: [], fallbacks: [], ingresses: new Set() };
    context.hosts.set(host, draft);
  }
  return draft;
}

function readCertificate(
  context: Context,
  ingress: IngressDraft,
  secretName: unknown,
  field: string,
): TlsClaim['certificate'] | undefined {
  const nameProblem = checkDnsSubdomain(secretName);
  if (nameProblem !== undefined) {
    report(context, ingress.ref, field, `secretName ${nameProblem}`, 'error', secretName);
    return undefined;
  }
  const key = `${ingress.ref.namespace}/${secretName as string}`;
  let result = context.certificates.get(key);
  if (result === undefined) {
    const secret = context.secret(ingress.ref.namespace, secretName as string);
    result =
      secret === undefined
        ? { ok: false, message: 'not found' }
        : parseTlsSecretDataCached(secret, context.options.certificateCache);
    context.certificates.set(key, result);
  }
  if (!result.ok) {
    report(
      context,
      ingress.ref,
      field,
      `TLS Secret ${key} ${result.message}; its hosts are served without TLS`,
      'error',
    );
    return undefined;
  }
  if (context.options.now !== undefined && Date.parse(result.certificate.notAfter) < context.options.now) {
    report(
      context,
      ingress.ref,
      field,
      `the certificate in Secret ${key} expired on ${result.certificate.notAfter}`,
      'warning',
    );
  }
  return result.certificate;
}

function collectTls(context: Context, ingress: IngressDraft, tls: unknown): void {
  if (tls === undefined || tls === null) return;
  if (!Array.isArray(tls)) {
    report(context, ingress.ref, 'spec.tls', 'must be a list', 'error');
    return;
  }
  tls.forEach((entry: unknown, index) => {
    const field = `spec.tls[${index}]`;
    const { hosts, secretName } = (typeof entry === 'object' && entry !== null ? entry : {}) as {
      hosts?: unknown;
      secretName?: unknown;
    };
    const certificate = readCertificate(context, ingress, secretName, `${field}.secretName`);
    if (certificate === undefined) return;
    const claim: TlsClaim = {
      ingress,
      rank: [ingress.order, index],
      secret: { namespace: ingress.ref.namespace, name: secretName as string },
      certificate,
    };
    const hostList: unknown[] = Array.isArray(hosts) ? hosts : [];
    if (hostList.length === 0) {
      context.tlsForAllHosts.push(claim);
      return;
    }
    hostList.forEach((host, hostIndex) => {
      const hostProblem = checkHost(host);
      if (hostProblem !== undefined) {
        report(context, ingress.ref, `${field}.hosts[${hostIndex}]`, `host ${hostProblem}`, 'error', host);
        return;
      }
      context.tlsClaims.push({ ...claim, host: host as string });
    });
  });
}

function collectPath(
  context: Context,
  ingress: IngressDraft,
  host: HostDraft,
  raw: unknown,
  rank: [number, number, number],
  field: string,
): void {
  const { path, pathType, backend } = (typeof raw === 'object' && raw !== null ? raw : {}) as {
    path?: unknown;
    pathType?: unknown;
    backend?: unknown;
  };
  if (pathType !== 'Exact' && pathType !== 'Prefix' && pathType !== 'ImplementationSpecific') {
    report(
      context,
      ingress.ref,
      `${field}.pathType`,
      'pathType must be Exact, Prefix or ImplementationSpecific',
      'error',
      pathType,
    );
    return;
  }
  const isRegex = pathType === 'ImplementationSpecific' && ingress.annotations.useRegex;
  const pathValue = path === undefined || path === '' ? '/' : path;
  const pathProblem = isRegex ? checkRegexPath(pathValue) : checkLiteralPath(pathValue);
  if (pathProblem !== undefined) {
    report(
      context,
      ingress.ref,
      `${field}.path`,
      `${isRegex ? 'regex path' : 'path'} ${pathProblem}`,
      'error',
      path,
    );
    return;
  }
  const target = resolveIngressBackend(context, ingress, backend, `${field}.backend`);
  if (target === undefined) return;
  const literal = pathValue as string;
  const candidate: PathCandidate = {
    ingress,
    rank,
    field,
    path: literal,
    pathType,
    ...locationKeysFor(literal, pathType, isRegex),
    target,
  };
  const rewriteTarget = ingress.annotations.rewriteTarget;
  if (rewriteTarget !== undefined) candidate.rewrite = rewriteFor(literal, pathType, isRegex, rewriteTarget);
  host.candidates.push(candidate);
}

function collectRules(
  context: Context,
  ingress: IngressDraft,
  rules: unknown,
  defaultTarget: LocationTarget | undefined,
): void {
  if (rules === undefined || rules === null) return;
  if (!Array.isArray(rules)) {
    report(context, ingress.ref, 'spec.rules', 'must be a list', 'error');
    return;
  }
  rules.forEach((rule: unknown, ruleIndex) => {
    const field = `spec.rules[${ruleIndex}]`;
    const { host, http } = (typeof rule === 'object' && rule !== null ? rule : {}) as {
      host?: unknown;
      http?: unknown;
    };
    let hostName = CATCH_ALL_HOST;
    if (host !== undefined && host !== null && host !== '') {
      const hostProblem = checkHost(host);
      if (hostProblem !== undefined) {
        report(context, ingress.ref, `${field}.host`, `host ${hostProblem}`, 'error', host);
        return;
      }
      hostName = host as string;
    }
    const draft = getHostDraft(context, hostName);
    draft.ingresses.add(ingress);
    if (defaultTarget !== undefined && !draft.fallbacks.some((fallback) => fallback.ingress === ingress)) {
      draft.fallbacks.push({ ingress, target: defaultTarget });
    }
    if (http === undefined || http === null) return;
    const paths = (http as { paths?: unknown }).paths;
    if (!Array.isArray(paths)) {
      report(context, ingress.ref, `${field}.http.paths`, 'must be a list', 'error');
      return;
    }
    paths.forEach((path: unknown, pathIndex) =>
      collectPath(
        context,
        ingress,
        draft,
        path,
        [ingress.order, ruleIndex, pathIndex],
        `${field}.http.paths[${pathIndex}]`,
      ),
    );
  });
}

function collectIngress(
  context: Context,
  ingress: IngressDraft,
  raw: { spec?: unknown; metadata?: { annotations?: unknown } },
): void {
  const spec = (typeof raw.spec === 'object' && raw.spec !== null ? raw.spec : {}) as {
    rules?: unknown;
    tls?: unknown;
    defaultBackend?: unknown;
  };
  const defaultTarget =
    spec.defaultBackend === undefined || spec.defaultBackend === null
      ? undefined
      : resolveIngressBackend(context, ingress, spec.defaultBackend, 'spec.defaultBackend');
  if (defaultTarget !== undefined) {
    const catchAll = getHostDraft(context, CATCH_ALL_HOST);
    const older = catchAll.fallbacks[0];
    if (older === undefined) {
      catchAll.fallbacks.push({ ingress, target: defaultTarget });
    } else {
      report(
        context,
        ingress.ref,
        'spec.defaultBackend',
        `the catch-all server uses spec.defaultBackend of the older Ingress ${older.ingress.ref.namespace}/${older.ingress.ref.name}; this one applies to its own hosts only`,
        'warning',
      );
    }
  }
  collectTls(context, ingress, spec.tls);
  collectRules(context, ingress, spec.rules, defaultTarget);
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function keyOf(key: LocationKey): string {
  return `${key.match} ${key.path}`;
}

function chooseTls(context: Context, draft: HostDraft): TlsClaim | undefined {
  if (draft.host === CATCH_ALL_HOST) return undefined;
  const claims = [
    ...context.tlsClaims.filter((claim) => claim.host === draft.host),
    ...context.tlsForAllHosts.filter((claim) => draft.ingresses.has(claim.ingress)),
  ].sort((a, b) => compareRanks(a.rank, b.rank));
  const winner = claims[0];
  if (winner === undefined) return undefined;
  for (const loser of claims.slice(1)) {
    if (loser.secret.namespace === winner.secret.namespace && loser.secret.name === winner.secret.name)
      continue;
    if (loser.certificate.sha256 === winner.certificate.sha256) continue;
    report(
      context,
      loser.ingress.ref,
      'spec.tls',
      `host ${draft.host} uses TLS Secret ${winner.secret.namespace}/${winner.secret.name} from the older Ingress ${winner.ingress.ref.namespace}/${winner.ingress.ref.name}; Secret ${loser.secret.name} is not used for it`,
      'warning',
    );
  }
  if (!isHostCovered(winner.certificate.leaf, draft.host)) {
    report(
      context,
      winner.ingress.ref,
      'spec.tls',
      `the certificate in Secret ${winner.secret.namespace}/${winner.secret.name} does not cover host ${draft.host}`,
      'warning',
    );
  }
  return winner;
}

function createLocation(
  key: LocationKey,
  target: LocationTarget,
  annotations: IngressAnnotations | undefined,
  hasTls: boolean,
  extra: Pick<Location, 'source' | 'rewrite'>,
): Location {
  const location: Location = {
    match: key.match,
    path: key.path,
    target,
    sslRedirect:
      annotations === undefined
        ? hasTls
        : annotations.forceSslRedirect || (annotations.sslRedirect && hasTls),
    allowSourceRanges: annotations?.allowSourceRanges ?? [],
    proxy: { protocol: annotations?.protocol ?? 'HTTP' },
  };
  if (extra.source !== undefined) location.source = extra.source;
  if (extra.rewrite !== undefined) location.rewrite = extra.rewrite;
  if (annotations !== undefined) {
    const proxy = location.proxy;
    if (annotations.connectTimeoutSeconds !== undefined)
      proxy.connectTimeoutSeconds = annotations.connectTimeoutSeconds;
    if (annotations.readTimeoutSeconds !== undefined)
      proxy.readTimeoutSeconds = annotations.readTimeoutSeconds;
    if (annotations.sendTimeoutSeconds !== undefined)
      proxy.sendTimeoutSeconds = annotations.sendTimeoutSeconds;
    if (annotations.bodySize !== undefined) proxy.bodySize = annotations.bodySize;
    if (annotations.upstreamVhost !== undefined) proxy.upstreamVhost = annotations.upstreamVhost;
  }
  return location;
}

const MATCH_ORDER: Record<LocationMatch, number> = { exact: 0, prefix: 1, regex: 2 };

function compareLocations(a: Location, b: Location): number {
  // Regex locations are tried in order, so the longest (most specific) one comes first.
  return (
    MATCH_ORDER[a.match] - MATCH_ORDER[b.match] ||
    (a.match === 'exact' ? 0 : b.path.length - a.path.length) ||
    compareText(a.path, b.path)
  );
}

function finishServer(context: Context, draft: HostDraft, globalFallback: LocationTarget): Server {
  const tls = chooseTls(context, draft);
  const hasTls = tls !== undefined;
  const taken = new Map<string, PathCandidate>();
  const winners: PathCandidate[] = [];
  const candidates = [...draft.candidates].sort((a, b) => compareRanks(a.rank, b.rank));
  for (const candidate of candidates) {
    const clash = candidate.required.map((key) => taken.get(keyOf(key))).find((owner) => owner !== undefined);
    if (clash !== undefined) {
      const owner = clash.ingress.ref;
      report(
        context,
        candidate.ingress.ref,
        candidate.field,
        `path ${candidate.path} (${candidate.pathType}) on host ${draft.host} is already served by ` +
          (clash.ingress === candidate.ingress
            ? 'an earlier path of this Ingress'
            : `the older Ingress ${owner.namespace}/${owner.name}`),
        'error',
        candidate.path,
      );
      continue;
    }
    for (const key of candidate.required) taken.set(keyOf(key), candidate);
    winners.push(candidate);
  }
  const locations: Location[] = [];
  // Exact paths claim their `=` location before a Prefix path's optional one: Exact wins.
  for (const candidate of winners) {
    const claimed = [...candidate.required];
    for (const key of candidate.optional) {
      if (!taken.has(keyOf(key))) {
        taken.set(keyOf(key), candidate);
        claimed.push(key);
      }
    }
    for (const key of claimed) {
      const extra: Pick<Location, 'source' | 'rewrite'> = {
        source: { ingress: candidate.ingress.ref, path: candidate.path, pathType: candidate.pathType },
      };
      if (candidate.rewrite !== undefined) extra.rewrite = candidate.rewrite;
      locations.push(createLocation(key, candidate.target, candidate.ingress.annotations, hasTls, extra));
    }
  }
  if (!taken.has('prefix /')) {
    const fallback = draft.fallbacks[0];
    locations.push(
      fallback === undefined
        ? createLocation({ match: 'prefix', path: '/' }, globalFallback, undefined, hasTls, {})
        : createLocation(
            { match: 'prefix', path: '/' },
            fallback.target,
            fallback.ingress.annotations,
            hasTls,
            {},
          ),
    );
  }
  locations.sort(compareLocations);
  const server: Server = { host: draft.host, locations };
  if (tls !== undefined) server.tls = { certificate: tls.certificate.fileName, secret: tls.secret };
  return server;
}

function resolveGlobalDefault(context: Context, reference: ServiceReference | undefined): LocationTarget {
  if (reference === undefined) return { kind: 'status', status: 404 };
  const object = {
    kind: 'Service' as const,
    namespace: String(reference.namespace),
    name: String(reference.name),
  };
  const problem =
    checkDnsLabel(reference.namespace) ??
    checkDnsLabel(reference.name) ??
    (typeof reference.port === 'number'
      ? isPortNumber(reference.port)
        ? undefined
        : 'port must be 1-65535'
      : checkPortName(reference.port));
  if (problem !== undefined) {
    context.problems.push({
      object,
      field: 'defaultBackend',
      message: `default backend ${problem}; unmatched requests get 404`,
      severity: 'error',
    });
    return { kind: 'status', status: 404 };
  }
  const resolution = resolveCached(context, reference.namespace, reference.name, reference.port);
  if (resolution.issue !== undefined) {
    context.problems.push({ object, field: 'defaultBackend', message: resolution.issue, severity: 'error' });
  }
  return { kind: 'backend', backend: resolution.backend.name };
}

interface SortedIngress {
  raw: { metadata?: { annotations?: unknown }; spec?: unknown };
  ref: NamespacedName;
  created: number;
}

function sortIngresses(context: Context, ingresses: readonly unknown[]): SortedIngress[] {
  const valid: SortedIngress[] = [];
  ingresses.forEach((raw, index) => {
    const metadata = (
      typeof raw === 'object' && raw !== null ? (raw as { metadata?: unknown }).metadata : undefined
    ) as { namespace?: unknown; name?: unknown; creationTimestamp?: unknown } | undefined;
    const ref = {
      namespace: describeValue(metadata?.namespace) ?? '',
      name: describeValue(metadata?.name) ?? '',
    };
    const problem = checkDnsLabel(metadata?.namespace) ?? checkDnsSubdomain(metadata?.name);
    if (problem !== undefined) {
      const field = checkDnsLabel(metadata?.namespace) === undefined ? 'metadata.name' : 'metadata.namespace';
      context.problems.push({
        object: { kind: 'Ingress', ...ref },
        field,
        message: `${field} ${problem}; the Ingress is not served (item ${index} of the input)`,
        severity: 'error',
      });
      return;
    }
    valid.push({ raw: raw as SortedIngress['raw'], ref, created: toMillis(metadata?.creationTimestamp) });
  });
  valid.sort((a, b) => {
    // Subtracting infinities gives NaN, so compare explicitly: oldest first, then namespace/name.
    if (a.created !== b.created) return a.created < b.created ? -1 : 1;
    return compareText(a.ref.namespace, b.ref.namespace) || compareText(a.ref.name, b.ref.name);
  });
  return valid;
}

/**
 * Builds the Configuration model from owned Ingresses and the objects they reference. Pure and
 * deterministic (the model is sorted; the input is never changed). Bad input never throws: it
 * becomes `problems`, and only the Ingress (or the part of it) at fault is left out.
 */
export function buildConfiguration(input: ConfigurationInput, options: BuildOptions = {}): BuildResult {
  const slices = indexEndpointSlices(input.endpointSlices);
  const context: Context = {
    options: { ...options, annotationPrefix: options.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX },
    lookups: {
      service: createLookup<ServiceLike>(input.services),
      endpointSlices: (namespace, service) => slices.get(`${namespace}/${service}`) ?? [],
    },
    secret: createLookup<SecretLike>(input.secrets),
    problems: [],
    backends: new Map(),
    certificates: new Map(),
    hosts: new Map(),
    tlsClaims: [],
    tlsForAllHosts: [],
  };
  getHostDraft(context, CATCH_ALL_HOST);
  const globalFallback = resolveGlobalDefault(context, input.defaultBackend);
  const seen = new Set<string>();
  const ingresses = Array.isArray(input.ingresses) ? input.ingresses : [];
  sortIngresses(context, ingresses).forEach((entry, order) => {
    const id = `${entry.ref.namespace}/${entry.ref.name}`;
    if (seen.has(id)) {
      report(
        context,
        entry.ref,
        'metadata.name',
        'the input holds this Ingress more than once; only the first is used',
        'warning',
      );
      return;
    }
    seen.add(id);
    const parsed = parseAnnotations(entry.raw.metadata?.annotations, context.options.annotationPrefix);
    for (const problem of parsed.problems) {
      report(context, entry.ref, problem.field, problem.message, problem.severity, problem.value);
    }
    if (parsed.annotations === undefined) return;
    try {
      collectIngress(context, { ref: entry.ref, order, annotations: parsed.annotations }, entry.raw);
    } catch (error) {
      // A malformed object must not take the others down; whatever this one added still gets
      // validated output, and the report says it was not fully read.
      report(
        context,
        entry.ref,
        'spec',
        `could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });

  const servers: Server[] = [];
  let defaultServer: Server | undefined;
  for (const draft of [...context.hosts.values()].sort((a, b) => compareText(a.host, b.host))) {
    const server = finishServer(context, draft, globalFallback);
    if (draft.host === CATCH_ALL_HOST) defaultServer = server;
    else servers.push(server);
  }
  const catchAll =
    defaultServer ?? finishServer(context, getHostDraft(context, CATCH_ALL_HOST), globalFallback);

  const backendsByName = new Map<string, Backend>();
  for (const resolution of context.backends.values())
    backendsByName.set(resolution.backend.name, resolution.backend);
  const used = new Set<string>();
  for (const server of [catchAll, ...servers]) {
    for (const location of server.locations)
      if (location.target.kind === 'backend') used.add(location.target.backend);
  }
  const backends = [...used]
    .sort(compareText)
    .map((name) => backendsByName.get(name))
    .filter((backend): backend is Backend => backend !== undefined);

  const certificates = new Map<string, Certificate>();
  for (const server of servers) {
    if (server.tls === undefined) continue;
    const result = context.certificates.get(`${server.tls.secret.namespace}/${server.tls.secret.name}`);
    if (result === undefined || !result.ok) continue;
    const { fileName, sha256, pem, notAfter } = result.certificate;
    const entry = certificates.get(fileName) ?? { fileName, sha256, pem, notAfter, secrets: [] };
    if (
      !entry.secrets.some(
        (secret) =>
          secret.namespace === server.tls!.secret.namespace && secret.name === server.tls!.secret.name,
      )
    ) {
      entry.secrets.push(server.tls.secret);
      entry.secrets.sort((a, b) => compareText(a.namespace, b.namespace) || compareText(a.name, b.name));
    }
    certificates.set(fileName, entry);
  }

  sweepCertificateCache(options.certificateCache);

  const model = {
    defaultServer: catchAll,
    servers,
    backends,
    certificates: [...certificates.values()].sort((a, b) => compareText(a.fileName, b.fileName)),
  };
  return {
    configuration: { checksum: computeConfigurationChecksum(model), ...model },
    problems: context.problems,
  };
}
