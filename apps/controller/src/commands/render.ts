/** `ingresskit render --manifests DIR`: the nginx.conf the controller would run for these manifests, offline. */
import { renderNginxConf } from '@ingresskit/nginx-template';
import { resolveControllerConfig } from '../config.js';
import { FlagError } from '../errors.js';
import { formatProblem, formatRoute, listRoutes } from '../explain.js';
import { classFlagNames } from '../flags.js';
import { readManifests, toClusterObjects } from '../manifests.js';
import { planSync } from '../sync-plan.js';
import { ExitCode, type Command } from './command.js';

export const renderCommand: Command = {
  name: 'render',
  summary: 'print the nginx.conf for a directory of manifests, and the problems (offline)',
  usage: `Usage: ingresskit render --manifests DIR [flags]

Reads Ingresses, IngressClasses, Services, EndpointSlices and Secrets from YAML or JSON files,
decides which Ingresses are ours as the controller would, and prints the nginx.conf it would run
to stdout. Ignored Ingresses (with the reason), the routes and every problem go to stderr (or,
with --output=json, everything is one JSON object on stdout). Nothing talks to a cluster.
Exits 1 when an Ingress (or part of one) is left out because of an error.`,
  spec: {
    command: 'ingresskit render',
    flags: [
      'manifests',
      ...classFlagNames,
      'default-backend-service',
      'http-port',
      'https-port',
      'status-port',
      'output',
    ],
  },
  async run({ flags }, io) {
    if (flags.manifests === '')
      throw new FlagError('--manifests is required: the directory (or file) of manifests to render');
    const config = resolveControllerConfig(flags, io.env);
    const manifests = await readManifests(flags.manifests);
    const plan = planSync(toClusterObjects(manifests), {
      classConfig: config.classConfig,
      checksumEnabled: false,
      defaultBackend: config.defaultBackend,
      now: Date.now(),
    });
    const configuration = plan.build.configuration;
    const nginxConf = renderNginxConf(configuration, {
      httpPort: config.httpPort,
      httpsPort: config.httpsPort,
      statusPort: config.statusPort,
    });
    const problems = plan.build.problems;
    const exitCode = problems.some((problem) => problem.severity === 'error')
      ? ExitCode.failure
      : ExitCode.ok;
    if (flags.output === 'json') {
      io.stdout(
        `${JSON.stringify(
          {
            nginxConf,
            owned: plan.owned.map((verdict) => ({
              ingress: verdict.key,
              explanation: verdict.explanation,
              routes: listRoutes(
                configuration,
                verdict.ingress.metadata.namespace ?? '',
                verdict.ingress.metadata.name,
              ),
            })),
            ignored: plan.ignored.map((verdict) => ({
              ingress: verdict.key,
              explanation: verdict.explanation,
            })),
            problems,
          },
          null,
          2,
        )}\n`,
      );
      return exitCode;
    }
    io.stdout(nginxConf);
    const report: string[] = [
      `# ${plan.owned.length} Ingress(es) served, ${plan.ignored.length} ignored, ${problems.length} problem(s)`,
    ];
    for (const verdict of plan.owned) {
      const routes = listRoutes(
        configuration,
        verdict.ingress.metadata.namespace ?? '',
        verdict.ingress.metadata.name,
      );
      report.push(
        `# served ${verdict.key}: ${routes.length === 0 ? 'no routes' : routes.map(formatRoute).join('; ')}`,
      );
    }
    for (const verdict of plan.ignored) report.push(`# ignored: ${verdict.explanation}`);
    for (const problem of problems) {
      report.push(
        `# ${problem.severity}: ${problem.object.kind} ${problem.object.namespace}/${problem.object.name} ${formatProblem(problem)}`,
      );
    }
    io.stderr(`${report.join('\n')}\n`);
    return exitCode;
  },
};
