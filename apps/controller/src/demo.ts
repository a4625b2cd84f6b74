/**
 * `ingresskit demo`: the embedded API server loaded with `examples/`, one small backend per
 * EndpointSlice on 127.0.0.1, and the controller running a real nginx on unprivileged ports.
 * Prints the routing table, the ignored Ingresses with their explanations, the problems, the
 * result of real HTTP requests through nginx, and commands to try; stops everything on Ctrl-C.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { startLocalApiServer, type LocalApiServer } from '@ingresskit/local-apiserver';
import { buildConfiguration, renderNginxConf } from '@ingresskit/nginx-template';
import { viewOfObjects } from './cluster-view.js';
import { resolveControllerConfig, type ControllerConfig } from './config.js';
import { Controller } from './controller.js';
import { startDemoBackend, type DemoBackend } from './demo-backends.js';
import { isIgnoreReasonReported } from './event-policy.js';
import { listenersOf, nginxRenderOptions } from './data-plane-render-options.js';
import {
  formatFieldProblem,
  listContributionRoutes,
  listRoutes,
  redactTable,
  type ExplainedRoute,
} from './explain.js';
import type { RouteContribution } from '@ingresskit/route-model';
import { defaultFlags } from './flags.js';
import { probe } from './http-probe.js';
import { createFileLogger } from './logger.js';
import { readManifests, toClusterObjects, type Manifest } from './manifests.js';
import { isNginxAvailable } from './nginx-process.js';
import { routeAll, type IngressRouting } from './ingress-routing.js';
import { explanationOf, type IngressVerdict } from './ingress-verdict.js';
import { pickPort } from './ports.js';

const execFileAsync = promisify(execFile);

/** The Debian packages the data plane needs. */
export const NGINX_INSTALL_COMMAND =
  'sudo apt-get install -y nginx libnginx-mod-http-lua lua-resty-core lua-cjson';

/** The GatewayClass controllerName the demo's controller serves (examples/80-gateway.yaml). */
export const DEMO_GATEWAY_CONTROLLER = 'ingresskit.dev/gateway-controller';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** The manifests to load (`examples/`). */
  manifestsDir: string;
  /** Where the kubeconfig, the log and (without nginx) the rendered nginx.conf go. */
  stateDir: string;
  /** Preferred ports; a free one is used instead when taken. */
  httpPort: number;
  httpsPort: number;
  healthzPort: number;
  nginxBinary: string;
  /** Check the routes, print the summary and return instead of waiting for a signal. */
  exitAfterReady: boolean;
  logLevel: string;
  /** Directory paths are shown relative to this. */
  cwd: string;
  out: (text: string) => void;
  signal: AbortSignal;
}

/** One real request through nginx and what it should give. */
export interface RouteCheck {
  url: string;
  curl: string;
  expected: string;
  ok: boolean;
  actual: string;
}

/** What the demo did, for tests. */
export interface DemoResult {
  exitCode: number;
  checks: RouteCheck[];
}

/** Runs the demo; see the module comment. */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { out } = options;
  await mkdir(options.stateDir, { recursive: true });
  const manifests = await readManifests(options.manifestsDir);
  const shown = (path: string) => relative(options.cwd, path) || '.';

  if (!(await isNginxAvailable(options.nginxBinary))) {
    return renderWithoutNginx(options, manifests, shown);
  }

  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    out('Starting the demo: backends, the embedded API server, the controller and nginx...\n');
    const backends = await startBackends(manifests);
    for (const backend of backends.values()) cleanups.push(() => backend.stop());
    const server = await startLocalApiServer({ port: 0 });
    cleanups.push(() => server.stop());
    const kubeconfigPath = await server.writeKubeconfig(join(options.stateDir, 'kubeconfig'));
    await server.apply([...withBackendPorts(manifests, backends), ...demoControllerPod()]);

    const taken = new Set<number>();
    const take = async (preferred: number) => {
      const port = await pickPort(preferred, taken);
      taken.add(port);
      return port;
    };
    const defaults = resolveControllerConfig(defaultFlags(), {});
    const config: ControllerConfig = {
      ...defaults,
      httpPort: await take(options.httpPort),
      httpsPort: await take(options.httpsPort),
      healthzPort: await take(options.healthzPort),
      nginxBinary: options.nginxBinary,
      podName: 'ingresskit-demo',
      podNamespace: 'ingresskit',
      publishStatusAddress: '127.0.0.1',
      // examples/ holds a GatewayClass of this controller, a Gateway and an HTTPRoute.
      gatewayControllerName: DEMO_GATEWAY_CONTROLLER,
      electionTtlMs: 10_000,
      syncRateLimit: 10,
      // The demo's backends listen on 127.0.0.1 beside the controller.
      backendAddressPolicy: { ...defaults.backendAddressPolicy, allowLocalAddresses: true },
      healthzHost: '127.0.0.1',
      listenAddresses: ['127.0.0.1'],
      workerProcesses: 1,
      accessLog: true,
    };
    const logPath = join(options.stateDir, 'controller.log');
    const { logger, close } = createFileLogger(logPath, options.logLevel);
    cleanups.push(close);
    const controller = new Controller(config, { kubeConfig: server.kubeConfig(), logger });
    cleanups.push(() => controller.stop());
    await untilAborted(options.signal, controller.start());
    await untilAborted(
      options.signal,
      withTimeout(
        controller.whenReady(),
        30_000,
        () => `nginx did not serve within 30 s: ${controller.notReadyReason() ?? ''}`,
      ),
    );
    const routing = controller.routing;
    const checks = await checkRoutes(routing, config, controller.gatewayRouting?.translation.routes ?? []);
    out(
      formatSummary({
        routing,
        config,
        checks,
        server,
        kubeconfigPath: shown(kubeconfigPath),
        logPath: shown(logPath),
        prefix: controller.dataPlane.prefix,
        kubectl: await hasKubectl(),
      }),
    );
    const allOk = checks.every((check) => check.ok);
    if (options.exitAfterReady) {
      out(
        allOk
          ? 'All checks passed. Stopping (--exit-after-ready).\n'
          : 'Some checks failed. Stopping (--exit-after-ready).\n',
      );
      return { exitCode: allOk ? 0 : 1, checks };
    }
    out('Press Ctrl-C to stop the demo (nginx, the backends and the API server stop with it).\n');
    await waitForAbort(options.signal);
    out(
      '\nStopping: nginx finishes its requests, the Lease is released, the API server and the backends stop...\n',
    );
    return { exitCode: 0, checks };
  } catch (error) {
    if (options.signal.aborted) return { exitCode: 0, checks: [] };
    throw error;
  } finally {
    await cleanUp();
    if (!options.exitAfterReady) out('Stopped.\n');
  }
}

async function renderWithoutNginx(
  options: DemoOptions,
  manifests: Manifest[],
  shown: (path: string) => string,
): Promise<DemoResult> {
  const { out } = options;
  out(
    `nginx (with its Lua module) is not installed, so the demo cannot serve traffic. Install it with:\n\n  ${NGINX_INSTALL_COMMAND}\n\n` +
      '(or run `bash scripts/setup.sh`, which installs everything the demo and the tests need). Meanwhile, here is what\n' +
      'the controller would serve for the example manifests.\n\n',
  );
  const config = resolveControllerConfig(defaultFlags(), {});
  const routing = routeAll(viewOfObjects(toClusterObjects(manifests)), {
    classConfig: config.classConfig,
    listeners: listenersOf({ httpPort: options.httpPort, httpsPort: options.httpsPort }),
    backendAddressPolicy: { ...config.backendAddressPolicy, allowLocalAddresses: true },
    now: Date.now,
  });
  const confPath = join(options.stateDir, 'nginx.conf');
  const { configuration } = buildConfiguration(
    routing.table(),
    nginxRenderOptions(join(options.stateDir, 'nginx'), { workerProcesses: 'auto' }),
  );
  await writeFile(confPath, renderNginxConf(configuration));
  const routesPath = join(options.stateDir, 'routes.yaml');
  await writeFile(routesPath, stringify(redactTable(routing.table()), { aliasDuplicateObjects: false }));
  out(formatRoutingTable(routing, config, 'Routing table (what nginx would serve):'));
  out(formatDecisions(routing));
  out(
    `The rendered nginx.conf is in ${shown(confPath)}, and the route table nginx would get as data in ${shown(routesPath)}.\n`,
  );
  return { exitCode: options.exitAfterReady ? 1 : 0, checks: [] };
}

/**
 * The Pod the demo's controller stands for: status-sync reads its labels to find other replicas
 * (none here, so the published status is cleared when the demo stops, as for a last replica).
 */
function demoControllerPod(): Manifest[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'ingresskit-demo',
        namespace: 'ingresskit',
        labels: { 'app.kubernetes.io/name': 'ingresskit' },
      },
      spec: { containers: [{ name: 'controller', image: 'ingresskit:demo' }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '127.0.0.1' },
    } as Manifest,
  ];
}

/** Starts one backend per EndpointSlice in the manifests, keyed by slice name. */
async function startBackends(manifests: readonly Manifest[]): Promise<Map<string, DemoBackend>> {
  const backends = new Map<string, DemoBackend>();
  for (const manifest of manifests) {
    const name = manifest.metadata?.name;
    if (manifest.kind === 'EndpointSlice' && name !== undefined && !backends.has(name)) {
      backends.set(name, await startDemoBackend(name));
    }
  }
  return backends;
}

/** The manifests with each EndpointSlice pointing at its backend: 127.0.0.1 and the backend's port. */
function withBackendPorts(
  manifests: readonly Manifest[],
  backends: ReadonlyMap<string, DemoBackend>,
): Manifest[] {
  return manifests.map((manifest) => {
    const backend =
      manifest.kind === 'EndpointSlice' ? backends.get(manifest.metadata?.name ?? '') : undefined;
    if (backend === undefined) return manifest;
    const slice = manifest as Manifest & {
      endpoints?: { addresses?: string[] }[];
      ports?: { port?: number }[];
    };
    return {
      ...slice,
      endpoints: (slice.endpoints ?? [{}]).map((endpoint) => ({ ...endpoint, addresses: ['127.0.0.1'] })),
      ports: (slice.ports ?? [{}]).map((port) => ({ ...port, port: backend.port })),
    } as Manifest;
  });
}

interface RouteEntry {
  ingress: string;
  route: ExplainedRoute;
}

function ownedVerdicts(routing: IngressRouting): IngressVerdict[] {
  return [...routing.verdicts()]
    .filter((verdict) => verdict.decision.owned)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function ignoredVerdicts(routing: IngressRouting): IngressVerdict[] {
  return [...routing.verdicts()]
    .filter((verdict) => !verdict.decision.owned)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function listAllRoutes(routing: IngressRouting): RouteEntry[] {
  return ownedVerdicts(routing).flatMap((verdict) =>
    listRoutes(routing, verdict.key).map((route) => ({ ingress: verdict.key, route })),
  );
}

/** Sends a real request for every served route, and for every host the controller leaves out. */
async function checkRoutes(
  routing: IngressRouting,
  config: ControllerConfig,
  gatewayContributions: readonly RouteContribution[],
): Promise<RouteCheck[]> {
  const checks: RouteCheck[] = [];
  const served = new Set(routing.table().virtualHosts.map((host) => host.hostname));
  const gatewayRoutes = gatewayContributions.flatMap((contribution) =>
    listContributionRoutes(routing, contribution).map((route) => ({ route })),
  );
  for (const { route } of [...listAllRoutes(routing), ...gatewayRoutes]) {
    const path = route.route.match.path;
    if (route.hostname === '*' || route.isFallback || !route.served || path.type === 'RegularExpression')
      continue;
    const backend = route.backends[0];
    if (backend === undefined) continue;
    const service = backend.id.replace(/^[^/]+\//, '').replace(/:.*$/, '');
    const expected = backend.endpoints > 0 ? `200 from backend ${service}-*` : '503 (no endpoints)';
    checks.push(
      await runCheck(
        route.hostname,
        path.value,
        route.tls,
        config,
        (status, body) =>
          backend.endpoints > 0 ? status === 200 && body.startsWith(`${service}-`) : status === 503,
        expected,
      ),
    );
  }
  const leftOut = new Set<string>();
  for (const verdict of routing.verdicts()) {
    for (const host of hostsOf(verdict)) if (!served.has(host)) leftOut.add(host);
  }
  for (const host of [...leftOut].sort()) {
    checks.push(await runCheck(host, '/', false, config, (status) => status === 404, '404 (not served)'));
  }
  return checks;
}

async function runCheck(
  host: string,
  path: string,
  tls: boolean,
  config: ControllerConfig,
  isExpected: (status: number, body: string) => boolean,
  expected: string,
): Promise<RouteCheck> {
  const port = tls ? config.httpsPort : config.httpPort;
  const scheme = tls ? 'https' : 'http';
  const url = `${scheme}://${host}:${port}${path}`;
  const curl = `curl ${tls ? '-k ' : ''}--resolve ${host}:${port}:127.0.0.1 ${url}`;
  try {
    const response = await probe({ port, host, path, tls });
    const firstLine = response.body.split('\n')[0]?.trim() ?? '';
    return {
      url,
      curl,
      expected,
      ok: isExpected(response.status, response.body),
      actual: `${response.status}${firstLine ? ` ${firstLine.slice(0, 60)}` : ''}`,
    };
  } catch (error) {
    return { url, curl, expected, ok: false, actual: (error as Error).message };
  }
}

function hostsOf(verdict: IngressVerdict): string[] {
  const rules = (verdict.ingress.spec?.rules ?? []) as readonly { host?: string }[];
  return rules
    .map((rule) => rule.host)
    .filter((host): host is string => typeof host === 'string' && host !== '');
}

interface SummaryInput {
  routing: IngressRouting;
  config: ControllerConfig;
  checks: RouteCheck[];
  server: LocalApiServer;
  kubeconfigPath: string;
  logPath: string;
  prefix: string;
  kubectl: boolean;
}

function formatSummary(input: SummaryInput): string {
  const { config, checks, server, kubeconfigPath, routing } = input;
  const healthz = `http://127.0.0.1:${config.healthzPort}`;
  const lines: string[] = [''];
  lines.push(
    formatRoutingTable(
      routing,
      config,
      `Routing table (what nginx serves now on 127.0.0.1, HTTP :${config.httpPort}, HTTPS :${config.httpsPort}):`,
    ),
  );
  lines.push(formatDecisions(routing));
  lines.push('Checks (real HTTP requests through nginx):');
  for (const check of checks)
    lines.push(
      `  ${check.ok ? 'ok  ' : 'FAIL'} ${check.url.padEnd(44)} expected ${check.expected}, got ${check.actual}`,
    );
  lines.push('');
  lines.push('Try it in another shell:');
  const firstServed = checks.filter((check) => check.expected.startsWith('200'));
  for (const check of firstServed) lines.push(`  ${check.curl}`);
  const firstMissing = checks.find((check) => check.expected.startsWith('404'));
  if (firstMissing !== undefined) lines.push(`  ${firstMissing.curl}        # not served: 404`);
  lines.push(`  curl '${healthz}/explain?ingress=demo/playground'`);
  lines.push(`  curl '${healthz}/explain?ingress=demo/broken'`);
  lines.push(`  curl '${healthz}/explain?httproute=demo/shop'`);
  lines.push(`  curl -s ${healthz}/metrics | grep '^ingresskit_'`);
  lines.push('');
  const kubectl = `kubectl --kubeconfig ${kubeconfigPath}`;
  if (!input.kubectl) lines.push('  (kubectl is not installed: sudo apt-get install -y kubernetes-client)');
  lines.push(`  kubectl --server ${server.url} get ingressclasses,ingresses -A`);
  lines.push(
    `  ${kubectl} get ingress -A -o 'custom-columns=NAME:.metadata.name,CLASS:.spec.ingressClassName,HOSTS:.spec.rules[*].host,ADDRESS:.status.loadBalancer.ingress[*].ip'`,
  );
  lines.push(
    `  ${kubectl} get events -n demo -o 'custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.name,MESSAGE:.message'`,
  );
  lines.push(
    `  ${kubectl} annotate ingress broken -n demo nginx.ingress.kubernetes.io/proxy-read-timeout=30 --overwrite   # fix it: served a moment later`,
  );
  lines.push(`  ${kubectl} delete ingress web -n demo            # web.demo.test answers 404 right after`);
  lines.push('');
  lines.push(
    `Controller log (JSON lines): ${input.logPath}; nginx runs in ${input.prefix} (access.log there).`,
  );
  return `${lines.join('\n')}\n`;
}

function formatRoutingTable(routing: IngressRouting, config: ControllerConfig, title: string): string {
  const rows = listAllRoutes(routing).map(({ ingress, route }) => [
    `${route.tls ? 'https' : 'http'}://${route.hostname}`,
    route.isFallback ? '(default backend)' : route.route.match.path.value,
    route.isFallback ? '' : route.route.match.path.type,
    ingress,
    route.backends.map((backend) => backend.id).join(', ') || answerOf(route),
    route.backends.map((backend) => String(backend.endpoints)).join(', ') || '-',
  ]);
  const header = ['HOST', 'PATH', 'PATH TYPE', 'INGRESS', 'BACKEND', 'ENDPOINTS'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const format = (row: string[]) =>
    `  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`.trimEnd();
  const lines = [title, format(header), ...rows.map(format)];
  if (rows.length === 0) lines.push('  (nothing)');
  lines.push(
    `  Anything else: 404 (unknown TLS names get the default certificate). Ports: HTTP ${config.httpPort}, HTTPS ${config.httpsPort}.`,
  );
  return `${lines.join('\n')}\n\n`;
}

function answerOf(route: ExplainedRoute): string {
  const { action } = route.route;
  return action.type === 'respond' ? String(action.statusCode) : action.type;
}

function formatDecisions(routing: IngressRouting): string {
  const lines: string[] = [];
  const byDefault = ownedVerdicts(routing).filter(
    (verdict) => verdict.decision.owned && verdict.decision.via === 'default-class',
  );
  for (const verdict of byDefault) {
    const className = verdict.decision.owned ? verdict.decision.className : '';
    lines.push(`Served without any class: ${verdict.key}`);
    lines.push(
      wrap(
        `It has neither spec.ingressClassName nor the kubernetes.io/ingress.class annotation: it was created before IngressClass "${className}" ` +
          'was marked as the cluster default, and the API server fills in the default class only when an Ingress is created. ' +
          'ingress-nginx would ignore it until someone edits it (it never reads the is-default-class annotation; see seed 000, "Default Ingress Class"). ' +
          `ingresskit serves it because the cluster default IngressClass "${className}" is its own (--honor-default-class).`,
      ),
    );
    lines.push('');
  }
  const isReported = (verdict: IngressVerdict) =>
    !verdict.decision.owned && isIgnoreReasonReported(verdict.decision.reason);
  const groups = [
    {
      title: 'Ignored Ingresses that may be meant for this controller (each also gets a Warning Event):',
      verdicts: ignoredVerdicts(routing).filter(isReported),
    },
    {
      title:
        'Ignored Ingresses of other controllers (no Event on their objects; /explain and the metric cover them):',
      verdicts: ignoredVerdicts(routing).filter((verdict) => !isReported(verdict)),
    },
  ];
  for (const { title, verdicts } of groups) {
    lines.push(title);
    if (verdicts.length === 0) lines.push('  none');
    for (const verdict of verdicts) lines.push(wrap(explanationOf(verdict), `  ${verdict.key}: `));
    lines.push('');
  }
  lines.push('Problems (the part at fault is left out and reported as an Event; everything else is served):');
  const problems = ownedVerdicts(routing).flatMap((verdict) => routing.problemsOf(verdict.key));
  if (problems.length === 0) lines.push('  none');
  for (const problem of problems) {
    lines.push(
      wrap(
        formatFieldProblem(problem),
        `  ${problem.severity} in ${problem.object.kind} ${problem.object.namespace}/${problem.object.name}: `,
      ),
    );
  }
  return `${lines.join('\n')}\n\n`;
}

function wrap(text: string, firstPrefix = '  ', width = 110): string {
  const words = text.split(/\s+/);
  const lines: string[] = [];
  let line = firstPrefix;
  const indent = ' '.repeat(Math.min(firstPrefix.length, 4));
  for (const word of words) {
    if (line.trim() !== '' && line.length + word.length + 1 > width && line !== firstPrefix) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += (line.endsWith(' ') || line === '' ? '' : ' ') + word;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

async function hasKubectl(): Promise<boolean> {
  try {
    await execFileAsync('kubectl', ['version', '--client']);
    return true;
  } catch {
    return false;
  }
}

function untilAborted<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    ),
  ]);
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message())), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
