/**
 * `ingresskit render --manifests DIR`: what the controller would serve for these manifests,
 * offline: the nginx.conf it would run and the route table it would push to nginx.
 */
import { buildConfiguration, renderNginxConf } from '@ingresskit/nginx-template';
import { stringify } from 'yaml';
import { viewOfObjects } from '../cluster-view.js';
import { resolveControllerConfig } from '../config.js';
import { listenersOf, nginxRenderOptions } from '../data-plane-render-options.js';
import { FlagError } from '../errors.js';
import { formatFieldProblem, formatRoute, listRoutes, redactTable } from '../explain.js';
import { tenancyFlagNames, classFlagNames } from '../flags.js';
import { routeAll } from '../ingress-routing.js';
import { routingOptionsOf } from '../ingress-routing-options.js';
import { explanationOf } from '../ingress-verdict.js';
import { readManifests, toClusterObjects } from '../manifests.js';
import { ExitCode, type Command } from './command.js';

/** Where `render` pretends nginx runs, when --nginx-prefix is not given. */
const DEFAULT_PREFIX = '/var/lib/ingresskit';

export const renderCommand: Command = {
  name: 'render',
  summary: 'print the nginx.conf and the route table for a directory of manifests (offline)',
  usage: `Usage: ingresskit render --manifests DIR [flags]

Reads Ingresses, IngressClasses, Services, EndpointSlices and Secrets from YAML or JSON files,
decides which Ingresses are ours as the controller would, and prints what it would serve: the
nginx.conf (constant: listeners, settings, directive profiles; no host or path of yours is in it)
and the route table it would push to nginx as data (hosts, routes, TLS bindings, backends;
private keys are not printed). Ignored Ingresses (with the reason), the routes of each Ingress and
every problem go to stderr. --output=yaml prints the route table alone, --output=json everything as
one JSON object. Nothing talks to a cluster. Exits 1 when an Ingress (or part of one) is left out
because of an error.`,
  spec: {
    command: 'ingresskit render',
    flags: [
      'manifests',
      ...classFlagNames,
      'default-backend-service',
      ...tenancyFlagNames,
      'http-port',
      'https-port',
      'nginx-prefix',
      'output',
    ],
  },
  async run({ flags }, io) {
    if (flags.manifests === '')
      throw new FlagError('--manifests is required: the directory (or file) of manifests to render');
    const config = resolveControllerConfig(flags, io.env);
    const view = viewOfObjects(toClusterObjects(await readManifests(flags.manifests)));
    const routing = routeAll(view, routingOptionsOf(config, listenersOf(config), Date.now));
    const table = routing.table();
    const { configuration } = buildConfiguration(
      table,
      nginxRenderOptions(flags['nginx-prefix'] || DEFAULT_PREFIX, { workerProcesses: 'auto' }),
    );
    const nginxConf = renderNginxConf(configuration);
    const verdicts = [...routing.verdicts()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const owned = verdicts.filter((verdict) => verdict.decision.owned);
    const ignored = verdicts.filter((verdict) => !verdict.decision.owned);
    const problems = owned.flatMap((verdict) => routing.problemsOf(verdict.key));
    const exitCode = problems.some((problem) => problem.severity === 'error')
      ? ExitCode.failure
      : ExitCode.ok;
    const routeTable = redactTable(table);
    if (flags.output === 'json') {
      io.stdout(
        `${JSON.stringify(
          {
            nginxConf,
            routeTable,
            owned: owned.map((verdict) => ({
              ingress: verdict.key,
              explanation: explanationOf(verdict),
              routes: listRoutes(routing, verdict.key),
            })),
            ignored: ignored.map((verdict) => ({
              ingress: verdict.key,
              explanation: explanationOf(verdict),
            })),
            problems,
          },
          null,
          2,
        )}\n`,
      );
      return exitCode;
    }
    if (flags.output === 'yaml') io.stdout(stringify(routeTable, { aliasDuplicateObjects: false }));
    else
      io.stdout(
        `${nginxConf}\n# --- route table pushed to nginx as data (ingresskit render --output=yaml) ---\n${commentOut(stringify(routeTable, { aliasDuplicateObjects: false }))}`,
      );
    const report: string[] = [
      `# ${owned.length} Ingress(es) served, ${ignored.length} ignored, ${problems.length} problem(s)`,
    ];
    for (const verdict of owned) {
      const routes = listRoutes(routing, verdict.key);
      report.push(
        `# served ${verdict.key}: ${routes.length === 0 ? 'no routes' : routes.map(formatRoute).join('; ')}`,
      );
    }
    for (const verdict of ignored) report.push(`# ignored: ${explanationOf(verdict)}`);
    for (const problem of problems) {
      report.push(
        `# ${problem.severity}: ${problem.object.kind} ${problem.object.namespace}/${problem.object.name} ${formatFieldProblem(problem)}`,
      );
    }
    io.stderr(`${report.join('\n')}\n`);
    return exitCode;
  },
};

function commentOut(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `# ${line}`))
    .join('\n');
}
