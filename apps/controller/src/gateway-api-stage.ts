/**
 * The Gateway API stage of a sync, when `--gateway-controller-name` is set. Before the table is
 * committed it translates the Gateways and HTTPRoutes into the same table as the Ingresses; after
 * the commit it reports their problems (the translation's, and the hosts routes lost to ownership,
 * which only assembly decides); once nginx serves the sync it has the leader write their statuses.
 */
import {
  lostHostnamesOf,
  markHostnamesOwnedElsewhere,
  markListenersOwnedElsewhere,
  type GatewayApiTranslation,
  type LostHostname,
} from '@ingresskit/gateway-routes';
import { isDeepStrictEqual } from 'node:util';
import { splitObjectKey } from '@ingresskit/kube-objects';
import type { ClusterView } from './cluster-view.js';
import type { EventRecorder } from './events.js';
import {
  explainGateway,
  explainHTTPRoute,
  type GatewayExplanation,
  type HTTPRouteExplanation,
} from './explain-gateway-api.js';
import { GatewayApiReports, type GatewayApiReportsOptions } from './gateway-api-reports.js';
import { GatewayRouting } from './gateway-routing.js';
import type { GatewayStatusWriter } from './gateway-status-writer.js';
import type { IngressRouting } from './ingress-routing.js';
import type { Logger } from './logger.js';

/** Options of {@link GatewayApiStage}. */
export interface GatewayApiStageOptions {
  controllerName: string;
  allowCrossNamespaceHosts: boolean;
  now: () => number;
  recorder: EventRecorder;
  logger: Logger;
  isLeader: () => boolean;
  identify: GatewayApiReportsOptions['identify'];
}

/** The Gateway API part of a sync: translate, report, and write statuses once nginx serves. */
export class GatewayApiStage {
  readonly routing: GatewayRouting;
  readonly #reports: GatewayApiReports;
  readonly #logger: Logger;
  /** Writes the statuses; set once the store runs (see attachStatusWriter). */
  #statusWriter: GatewayStatusWriter | undefined;
  /** The statuses changed since they were last handed to the writer. */
  #statusDue = false;
  /** Hostnames each HTTPRoute lost to host ownership, by route. */
  #lost = new Map<string, LostHostname[]>();
  /** Hostnames each Gateway lost to host ownership, by Gateway. */
  #lostByGateways = new Map<string, LostHostname[]>();
  /** Both, as `Kind namespace/name\nhostname` keys. */
  #lostKeys = new Set<string>();

  constructor(options: GatewayApiStageOptions) {
    this.routing = new GatewayRouting({
      controllerName: options.controllerName,
      allowCrossNamespaceHosts: options.allowCrossNamespaceHosts,
      now: options.now,
    });
    this.#reports = new GatewayApiReports(options);
    this.#logger = options.logger;
  }

  /** The writer of the statuses, once the store runs. */
  attachStatusWriter(writer: GatewayStatusWriter): void {
    this.#statusWriter = writer;
  }

  /**
   * Translates the Gateway API objects of `view` into `routing`'s table, for the changes with
   * these keys: only changed contributions are set.
   */
  route(view: ClusterView, routing: IngressRouting, keys: ReadonlySet<string>): void {
    this.routing.update(view, keys, routing.routingTable);
    this.#statusDue = true;
    this.#logger.debug(
      { keys: keys.size, translated: this.routing.lastTranslated },
      'Gateway API translated',
    );
  }

  /**
   * After the commit: reports the problems, and has the statuses written again when the lost hosts
   * changed (an Ingress alone can take one from a route or a Gateway's listener).
   */
  report(routing: IngressRouting): void {
    const notes = routing.routingTable.notes();
    const lost = { HTTPRoute: lostHostnamesOf(notes), Gateway: lostHostnamesOf(notes, 'Gateway') };
    const keys = new Set(
      Object.entries(lost).flatMap(([kind, byObject]) =>
        [...byObject].flatMap(([key, hostnames]) =>
          hostnames.map(({ hostname }) => `${kind} ${key}\n${hostname}`),
        ),
      ),
    );
    if (!isDeepStrictEqual(keys, this.#lostKeys)) this.#statusDue = true;
    this.#lost = lost.HTTPRoute;
    this.#lostByGateways = lost.Gateway;
    this.#lostKeys = keys;
    const ownership = Object.entries(lost).flatMap(([kind, byObject]) =>
      [...byObject.keys()].flatMap((key) => {
        const { namespace = '', name } = splitObjectKey(key);
        return routing.routingTable.assemblyProblemsOf({ kind, namespace, name });
      }),
    );
    this.#reports.update([
      ...this.routing.problems(),
      ...ownership,
      ...this.routing.budgetProblems(routing.routingTable),
    ]);
  }

  /** nginx serves the sync: the statuses that describe it may be written now. */
  served(): void {
    if (!this.#statusDue) return;
    this.#statusDue = false;
    this.#statusWriter?.publish(this.#statusesToWrite());
  }

  /** This replica became the leader: every current problem as an Event, every status again. */
  becameLeader(): void {
    this.#reports.recordAll();
    this.#statusWriter?.resync();
  }

  /** Explains a Gateway or an HTTPRoute as of the last sync. */
  explain(
    kind: 'gateway' | 'httproute',
    key: string,
    routing: IngressRouting,
  ): GatewayExplanation | HTTPRouteExplanation {
    const state = {
      translation: this.routing.translation,
      lost: this.#lost,
      lostByGateways: this.#lostByGateways,
    };
    return kind === 'gateway' ? explainGateway(routing, state, key) : explainHTTPRoute(routing, state, key);
  }

  #statusesToWrite(): GatewayApiTranslation {
    const { translation } = this.routing;
    const httpRoutes = markHostnamesOwnedElsewhere(translation.statuses.httpRoutes, this.#lost);
    const gateways = markListenersOwnedElsewhere(translation.statuses.gateways, this.#lostByGateways);
    return { ...translation, statuses: { gateways, httpRoutes } };
  }
}
