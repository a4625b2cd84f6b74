/**
 * `ingresskit explain ingress|gateway|httproute NS/NAME`: what the controller does with one
 * Ingress, Gateway or HTTPRoute, and why.
 */
import { lostHostnamesOf } from '@ingresskit/gateway-routes';
import { stringify } from 'yaml';
import { resolveControllerConfig, type ControllerConfig } from '../config.js';
import { FlagError } from '../errors.js';
import { explainIngress, formatExplanation } from '../explain.js';
import {
  explainGateway,
  explainHTTPRoute,
  formatGatewayExplanation,
  formatHTTPRouteExplanation,
  type GatewayApiState,
} from '../explain-gateway-api.js';
import { ALL_GATEWAY_API, emptyGatewayApiTranslation, GatewayRouting } from '../gateway-routing.js';
import { tenancyFlagNames, classFlagNames } from '../flags.js';
import { viewOfSnapshot, type ClusterView } from '../cluster-view.js';
import { listenersOf } from '../data-plane-render-options.js';
import { IngressRouting } from '../ingress-routing.js';
import { routingOptionsOf } from '../ingress-routing-options.js';
import { ExitCode, type Command } from './command.js';
import { withClusterSnapshot } from './read-cluster.js';

export const explainCommand: Command = {
  name: 'explain',
  summary:
    'explain whether and how the controller serves an Ingress, Gateway or HTTPRoute (reads the cluster)',
  usage: `Usage: ingresskit explain ingress NAMESPACE/NAME [flags]
       ingresskit explain gateway|httproute NAMESPACE/NAME --gateway-controller-name=NAME [flags]

Reads the Ingresses, IngressClasses, Services, EndpointSlices and Secrets of the cluster, and
prints the decision the controller makes for the Ingress: whether it is ours and why (or why not,
and what to change), the routes it contributes (as route-model entries, each marked when an older
Ingress or the data plane keeps it from being served) and any problem that leaves it (or part of
it) out. Use the
same class flags as the running controller. A running controller answers the same question from its own state
at http://<pod>:<healthz-port>/explain?ingress=NAMESPACE/NAME.
For a Gateway or an HTTPRoute it prints the statuses the controller writes (conditions per listener
or parent), the routes an HTTPRoute contributes, and its problems (at
?gateway= or ?httproute= of /explain on a running controller).
Exits 0 when the object exists (and, for Gateway API, is one of ours), 1 when it does not.`,
  spec: {
    command: 'ingresskit explain',
    flags: [
      'kubeconfig',
      'watch-namespace',
      ...classFlagNames,
      'default-backend-service',
      'gateway-controller-name',
      ...tenancyFlagNames,
      'output',
    ],
    maxPositionals: 2,
  },
  async run({ flags, positionals }, io) {
    const [what, key] = positionals;
    if ((what !== 'ingress' && what !== 'gateway' && what !== 'httproute') || key === undefined) {
      throw new FlagError(
        `expected 'ingress|gateway|httproute NAMESPACE/NAME', got ${JSON.stringify(positionals.join(' '))}`,
      );
    }
    if (!/^[a-z0-9-]+\/[a-z0-9.-]+$/.test(key))
      throw new FlagError(`expected NAMESPACE/NAME, got ${JSON.stringify(key)}`);
    const config = resolveControllerConfig(flags, io.env);
    if (what !== 'ingress' && config.gatewayControllerName === undefined)
      throw new FlagError(
        `explain ${what} needs --gateway-controller-name, as the running controller has it`,
      );
    const [explanation, text] = await withClusterSnapshot(flags.kubeconfig, config, (snapshot) => {
      const { routing, gatewayRouting } = routeOnce(viewOfSnapshot(snapshot), config);
      const state = {
        translation: gatewayRouting?.translation ?? emptyGatewayApiTranslation(),
        lost: lostHostnamesOf(routing.routingTable.notes()),
        lostByGateways: lostHostnamesOf(routing.routingTable.notes(), 'Gateway'),
      };
      return explainObject(what, routing, state, key);
    });
    io.stdout(
      flags.output === 'json'
        ? `${JSON.stringify(explanation, null, 2)}\n`
        : flags.output === 'yaml'
          ? stringify(explanation, { aliasDuplicateObjects: false })
          : text,
    );
    return explanation.found ? ExitCode.ok : ExitCode.failure;
  },
};

/** Routes the Ingresses and, with a Gateway controller name, the Gateway API objects of `view` once. */
function routeOnce(
  view: ClusterView,
  config: ControllerConfig,
): { routing: IngressRouting; gatewayRouting: GatewayRouting | undefined } {
  const routing = new IngressRouting(routingOptionsOf(config, listenersOf(config), Date.now));
  routing.initialize(view);
  routing.updateIngresses(view, view.ingressKeys());
  const gatewayRouting =
    config.gatewayControllerName === undefined
      ? undefined
      : new GatewayRouting({
          controllerName: config.gatewayControllerName,
          allowCrossNamespaceHosts: config.allowCrossNamespaceHosts,
          now: Date.now,
        });
  gatewayRouting?.update(view, [ALL_GATEWAY_API], routing.routingTable);
  routing.commit();
  return { routing, gatewayRouting };
}

/** The explanation of one object, and the same as text for a terminal. */
function explainObject(
  what: 'ingress' | 'gateway' | 'httproute',
  routing: IngressRouting,
  state: GatewayApiState,
  key: string,
): [{ found: boolean }, string] {
  switch (what) {
    case 'ingress': {
      const explanation = explainIngress(routing, key);
      return [explanation, formatExplanation(explanation)];
    }
    case 'gateway': {
      const explanation = explainGateway(routing, state, key);
      return [explanation, formatGatewayExplanation(explanation)];
    }
    case 'httproute': {
      const explanation = explainHTTPRoute(routing, state, key);
      return [explanation, formatHTTPRouteExplanation(explanation)];
    }
  }
}
