/** `ingresskit explain ingress NS/NAME`: what the controller does with one Ingress, and why. */
import { createStore } from '@ingresskit/store';
import { stringify } from 'yaml';
import { describeApiFailure } from '../api-failure.js';
import { resolveControllerConfig } from '../config.js';
import { FlagError } from '../errors.js';
import { explainIngress, formatExplanation } from '../explain.js';
import { tenancyFlagNames, classFlagNames } from '../flags.js';
import { loadKubeConfig } from '../kube-config.js';
import { viewOfSnapshot } from '../cluster-view.js';
import { listenersOf } from '../data-plane.js';
import { routeAll, routingOptionsOf } from '../ingress-routing.js';
import { ExitCode, type Command } from './command.js';

/** A one-shot command gives up on an API server that does not answer after this long. */
const LIST_TIMEOUT_MS = 5_000;

export const explainCommand: Command = {
  name: 'explain',
  summary: 'explain whether and how the controller serves an Ingress (reads the cluster)',
  usage: `Usage: ingresskit explain ingress NAMESPACE/NAME [flags]

Reads the Ingresses, IngressClasses, Services, EndpointSlices and Secrets of the cluster, and
prints the decision the controller makes for the Ingress: whether it is ours and why (or why not,
and what to change), the routes it contributes (as route-model entries, each marked when an older
Ingress or the data plane keeps it from being served) and any problem that leaves it (or part of
it) out. Use the
same class flags as the running controller. A running controller answers the same question from its own state
at http://<pod>:<healthz-port>/explain?ingress=NAMESPACE/NAME.
Exits 0 when the Ingress exists, 1 when it does not.`,
  spec: {
    command: 'ingresskit explain',
    flags: [
      'kubeconfig',
      'watch-namespace',
      ...classFlagNames,
      'default-backend-service',
      ...tenancyFlagNames,
      'output',
    ],
    maxPositionals: 2,
  },
  async run({ flags, positionals }, io) {
    const [what, key] = positionals;
    if (what !== 'ingress' || key === undefined) {
      throw new FlagError(`expected 'ingress NAMESPACE/NAME', got ${JSON.stringify(positionals.join(' '))}`);
    }
    if (!/^[a-z0-9-]+\/[a-z0-9.-]+$/.test(key))
      throw new FlagError(`expected NAMESPACE/NAME, got ${JSON.stringify(key)}`);
    const config = resolveControllerConfig(flags, io.env);
    const kubeConfig = loadKubeConfig(flags.kubeconfig);
    const store = createStore(kubeConfig, {
      namespaces: config.watchNamespaces,
      kinds: ['Ingress', 'IngressClass', 'Service', 'EndpointSlice', 'Secret'],
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        store.start(),
        new Promise((_, reject) => {
          timer = setTimeout(() => {
            const failing = store.status().find((informer) => informer.lastError !== undefined);
            const server = kubeConfig.getCurrentCluster()?.server;
            reject(
              new Error(
                failing === undefined
                  ? `the API server at ${server} did not answer within ${LIST_TIMEOUT_MS / 1000} s`
                  : describeApiFailure(server, failing.lastError),
              ),
            );
          }, LIST_TIMEOUT_MS);
        }),
      ]);
      const routing = routeAll(
        viewOfSnapshot(store.snapshot()),
        routingOptionsOf(config, listenersOf(config), Date.now),
      );
      const explanation = explainIngress(routing, key);
      io.stdout(
        flags.output === 'json'
          ? `${JSON.stringify(explanation, null, 2)}\n`
          : flags.output === 'yaml'
            ? stringify(explanation, { aliasDuplicateObjects: false })
            : formatExplanation(explanation),
      );
      return explanation.found ? ExitCode.ok : ExitCode.failure;
    } finally {
      clearTimeout(timer);
      await store.stop();
    }
  },
};
