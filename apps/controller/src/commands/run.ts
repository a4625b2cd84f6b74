/** `ingresskit run`: the ingress controller. */
import { resolveControllerConfig } from '../config.js';
import { runController } from '../controller-run.js';
import { loadKubeConfig } from '../kube-config.js';
import { runFlagNames } from '../flags.js';
import { createLogger } from '../logger.js';
import { createControllerMetrics } from '../metrics.js';
import { isNginxAvailable, NGINX_INSTALL_COMMAND } from '../nginx-process.js';
import { ExitCode, type Command } from './command.js';

export const runCommand: Command = {
  name: 'run',
  summary: 'run the ingress controller (watches the cluster, runs nginx)',
  usage: `Usage: ingresskit run [flags]

Watches Ingresses, IngressClasses, Services, EndpointSlices and Secrets, serves the Ingresses this
controller owns through an nginx it starts and supervises, reloads nginx only for structural
changes (endpoint changes go to its Lua balancer), reports ignored Ingresses and problems as
Kubernetes Events, and serves /healthz, /metrics and /explain on the healthz port. The leader
replica also publishes Ingress status and reconciles GatewayClasses. SIGTERM or SIGINT stops it
gracefully: nginx finishes its requests, the Lease is released.`,
  spec: { command: 'ingresskit run', flags: runFlagNames },
  async run({ flags }, io) {
    const config = resolveControllerConfig(flags, io.env);
    const logger = createLogger({ level: flags['log-level'] });
    if (!(await isNginxAvailable(config.nginxBinary))) {
      io.stderr(
        `ingresskit: cannot run nginx (${config.nginxBinary}). On Debian or Ubuntu install it with:\n` +
          `  ${NGINX_INSTALL_COMMAND}\n`,
      );
      return ExitCode.failure;
    }
    const kubeConfig = loadKubeConfig(flags.kubeconfig);
    logger.info(
      { server: kubeConfig.getCurrentCluster()?.server, identity: config.podName },
      'starting ingresskit',
    );
    try {
      await runController(config, {
        kubeConfig,
        logger,
        metrics: createControllerMetrics({ withProcessMetrics: true }),
        signal: io.signal,
      });
      return ExitCode.ok;
    } catch (error) {
      logger.fatal({ err: error }, 'the controller failed');
      return ExitCode.failure;
    } finally {
      logger.flush();
    }
  },
};
