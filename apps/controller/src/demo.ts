/**
 * `ingresskit demo`: the embedded API server loaded with `examples/`, one small backend per
 * EndpointSlice on 127.0.0.1, and the controller run as `ingresskit run` runs it, with a real nginx
 * on unprivileged ports. Prints the routing table, the ignored Ingresses with their explanations,
 * the problems, the result of real HTTP requests through nginx, and commands to try; stops
 * everything on Ctrl-C.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { buildConfiguration, renderNginxConf } from '@ingresskit/nginx-template';
import { viewOfObjects } from './cluster-view.js';
import { resolveControllerConfig, type ControllerConfig } from './config.js';
import type { Controller } from './controller.js';
import { runController, whenAborted } from './controller-run.js';
import { checkRoutes, type RouteCheck } from './demo-checks.js';
import { DEMO_POD, startDemoCluster, type DemoCluster } from './demo-cluster.js';
import { formatDecisions, formatRoutingTable, formatSummary } from './demo-summary.js';
import { listenersOf, nginxRenderOptions } from './data-plane-render-options.js';
import { redactTable } from './explain.js';
import { defaultFlags } from './flags.js';
import { createFileLogger } from './logger.js';
import { readManifests, toClusterObjects, type Manifest } from './manifests.js';
import { isNginxAvailable, NGINX_INSTALL_COMMAND } from './nginx-process.js';
import { routeAll } from './ingress-routing.js';
import { pickPort } from './ports.js';

export type { RouteCheck } from './demo-checks.js';

const execFileAsync = promisify(execFile);

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
  let result: DemoResult = { exitCode: 0, checks: [] };
  try {
    out('Starting the demo: backends, the embedded API server, the controller and nginx...\n');
    const cluster = await startDemoCluster(manifests, options.stateDir);
    cleanups.push(() => cluster.stop());
    const config = await demoConfig(options);
    const logPath = join(options.stateDir, 'controller.log');
    const { logger, close } = createFileLogger(logPath, options.logLevel);
    cleanups.push(close);
    await runController(config, {
      kubeConfig: cluster.kubeConfig,
      logger,
      signal: options.signal,
      whileReady: {
        timeoutMs: 30_000,
        run: async (controller) => {
          result = await showServing(controller, { options, cluster, logPath: shown(logPath), shown });
        },
      },
    });
    return result;
  } catch (error) {
    if (options.signal.aborted) return { exitCode: 0, checks: [] };
    throw error;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    if (!options.exitAfterReady) out('Stopped.\n');
  }
}

/** The controller's config for the demo: `run`'s defaults on free local ports, serving examples/' Gateway. */
async function demoConfig(options: DemoOptions): Promise<ControllerConfig> {
  const taken = new Set<number>();
  const take = async (preferred: number) => {
    const port = await pickPort(preferred, taken);
    taken.add(port);
    return port;
  };
  const defaults = resolveControllerConfig(defaultFlags(), {});
  return {
    ...defaults,
    httpPort: await take(options.httpPort),
    httpsPort: await take(options.httpsPort),
    healthzPort: await take(options.healthzPort),
    nginxBinary: options.nginxBinary,
    podName: DEMO_POD.name,
    podNamespace: DEMO_POD.namespace,
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
}

/** Once nginx serves: the checks and the summary; then, unless told to exit, waits for Ctrl-C. */
async function showServing(
  controller: Controller,
  context: { options: DemoOptions; cluster: DemoCluster; logPath: string; shown: (path: string) => string },
): Promise<DemoResult> {
  const { options, cluster } = context;
  const { out } = options;
  const { routing, config } = controller;
  const checks = await checkRoutes(routing, config, controller.gatewayRouting?.translation.routes ?? []);
  out(
    formatSummary({
      routing,
      config,
      checks,
      serverUrl: cluster.url,
      kubeconfigPath: context.shown(cluster.kubeconfigPath),
      logPath: context.logPath,
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
  await whenAborted(options.signal);
  out(
    '\nStopping: nginx finishes its requests, the Lease is released, the API server and the backends stop...\n',
  );
  return { exitCode: 0, checks };
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

async function hasKubectl(): Promise<boolean> {
  try {
    await execFileAsync('kubectl', ['version', '--client']);
    return true;
  } catch {
    return false;
  }
}
