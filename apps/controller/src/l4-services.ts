/**
 * The layer-4 features of ingress-nginx, as one piece the controller starts, stops and syncs:
 * the ssl-passthrough proxy (`--enable-ssl-passthrough`) and the TCP and UDP services ConfigMaps,
 * both served by @ingresskit/tcp-proxy; this is their wiring. A sync reads them from the cluster
 * view, hands the passthrough hosts to the proxy and the stream services to the data plane (its
 * next flush reloads when they changed), and reports what it cannot serve: Events on the
 * ConfigMaps (naming the key) and on the Ingresses.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BackendAddressPolicy, ConfigMapNginxSettings } from '@ingresskit/ingress-routes';
import type { StreamService } from '@ingresskit/nginx-template';
import type { Problem } from '@ingresskit/route-model';
import type { ChangeEvent, Ingress } from '@ingresskit/store';
import { serviceKeyOfEndpointSlice } from '@ingresskit/store';
import {
  listStreamPorts,
  resolvePassthroughHosts,
  resolveStreamServices,
  SslPassthroughProxy,
  type StreamServicesSource,
} from '@ingresskit/tcp-proxy';
import type { ClusterView } from './cluster-view.js';
import type { ControllerConfig } from './config.js';
import { configMapSubject } from './controller-configmap.js';
import { ingressSubject } from './ingress-reports.js';
import { isStatusOnlyChange } from './store-change.js';
import type { EventRecorder, EventReport } from './events.js';
import type { Logger } from './logger.js';
import { listOwnPorts } from './own-ports.js';

/** What the controller's config says of the layer-4 features. */
export interface L4Config {
  /** `--enable-ssl-passthrough`. */
  sslPassthrough: boolean;
  httpsPort: number;
  /** `--ssl-passthrough-proxy-port`: where nginx's HTTPS listener takes the proxy's connections. */
  sslPassthroughProxyPort: number;
  /** `namespace/name` of `--tcp-services-configmap` and `--udp-services-configmap`. */
  tcpServicesConfigMap: string | undefined;
  udpServicesConfigMap: string | undefined;
  /** The controller's own ports (own-ports.ts), without the stream services' own. */
  reservedPorts: readonly number[];
  annotationPrefix: string;
  allowCrossNamespaceHosts: boolean;
  backendAddressPolicy: BackendAddressPolicy;
  /** Address the proxy listens on; all when undefined. */
  listenHost?: string | undefined;
  /** How long a client may take to send its ClientHello; the proxy's default when undefined. */
  helloTimeoutMs?: number | undefined;
}

/** The layer-4 config of a controller config; its own ports are the ones stream services may not take. */
export function l4ConfigOf(config: ControllerConfig): L4Config {
  const reserved = [...listOwnPorts(config)];
  return {
    sslPassthrough: config.sslPassthrough,
    httpsPort: config.httpsPort,
    sslPassthroughProxyPort: config.sslPassthroughProxyPort,
    tcpServicesConfigMap: config.tcpServicesConfigMap,
    udpServicesConfigMap: config.udpServicesConfigMap,
    reservedPorts: reserved,
    annotationPrefix: config.annotationPrefix,
    allowCrossNamespaceHosts: config.allowCrossNamespaceHosts,
    backendAddressPolicy: config.backendAddressPolicy,
    listenHost: config.listenAddresses?.length === 1 ? config.listenAddresses[0] : undefined,
  };
}

/** What the controller lends: where stream services go, who reports, and what the routing decided. */
export interface L4Dependencies {
  dataPlane: { setStreamServices(services: StreamService[]): void };
  recorder: Pick<EventRecorder, 'record'>;
  logger: Logger;
  isLeader: () => boolean;
  /** Whether the Ingress `namespace/name` is of our class (IngressRouting's verdict). */
  isOwned: (key: string) => boolean;
  /** RoutingTable's hostOwnershipProblems: hosts other namespaces' HTTP routes hold. */
  hostOwnershipProblems?: (object: Problem['object'], hostnames: Iterable<string>) => Problem[];
  /**
   * RoutingTable's servesHostname: whether nginx serves exactly this name, which the proxy then
   * sends to nginx rather than to a `*.` passthrough host; none when undefined.
   */
  servesHostname?: (hostname: string) => boolean;
}

/** What one sync changed. */
export interface L4Sync {
  /** The stream services changed: the data plane's next flush reloads nginx. */
  streamServicesChanged: boolean;
}

/** Syncs ssl-passthrough and the TCP and UDP services ConfigMaps to the proxy and data plane. */
export class L4Services {
  readonly #config: L4Config;
  readonly #deps: L4Dependencies;
  readonly #proxy: SslPassthroughProxy | undefined;
  #streamServices: StreamService[] = [];
  #serviceKeys = new Set<string>();
  /** The Events of the notes that hold, by note, so that a sync repeats none and a new leader sends them all. */
  #reported = new Map<string, EventReport | undefined>();
  /** A relevant event came since the last sync read the view (the first sync always reads it). */
  #dirty = true;
  /**
   * The Ingresses that carry the ssl-passthrough annotation, kept from change events once the
   * first sync has found them: a sync reads those, not every Ingress.
   */
  #annotated: Set<string> | undefined;

  constructor(config: L4Config, deps: L4Dependencies) {
    this.#config = config;
    this.#deps = deps;
    if (config.sslPassthrough) {
      this.#proxy = new SslPassthroughProxy({
        port: config.httpsPort,
        host: config.listenHost,
        nginxPort: config.sslPassthroughProxyPort,
        logger: deps.logger,
        ...(config.helloTimeoutMs === undefined ? {} : { helloTimeoutMs: config.helloTimeoutMs }),
        ...(deps.servesHostname === undefined ? {} : { servesHostname: deps.servesHostname }),
      });
    }
  }

  /** The passthrough proxy, when enabled. */
  get proxy(): SslPassthroughProxy | undefined {
    return this.#proxy;
  }

  /**
   * The controller ConfigMap's say on the passthrough proxy: with use-proxy-protocol clients send
   * a PROXY header first (within proxy-protocol-header-timeout, 5 s by default, as ingress-nginx),
   * believed from proxy-real-ip-cidr (default any IPv4 peer, as nginx's listeners believe it).
   */
  setConfigMapSettings(settings: ConfigMapNginxSettings): void {
    this.#proxy?.setProxyProtocol(
      settings.useProxyProtocol === true
        ? {
            trustedNetworks: settings.proxyRealIpCidr ?? ['0.0.0.0/0'],
            headerTimeoutMs: settings.proxyProtocolHeaderTimeoutMs ?? 5_000,
          }
        : undefined,
    );
  }

  /** Starts the ssl-passthrough proxy on the HTTPS port, when enabled. */
  async start(): Promise<void> {
    await this.#proxy?.start();
  }

  /** Stops the proxy and closes its connections. */
  async stop(): Promise<void> {
    await this.#proxy?.stop();
  }

  /** Whether `event` may change what this serves: call sync after it. */
  isRelevant(event: ChangeEvent): boolean {
    const relevant = this.#isRelevant(event);
    if (relevant) this.#dirty = true;
    return relevant;
  }

  #isRelevant(event: ChangeEvent): boolean {
    switch (event.kind) {
      case 'ConfigMap':
        return (
          event.key === this.#config.tcpServicesConfigMap || event.key === this.#config.udpServicesConfigMap
        );
      case 'Ingress': {
        // Only Ingresses that carry (or carried) the annotation change what passes through.
        const carries = event.newObject !== undefined && this.#carriesAnnotation(event.newObject);
        if (carries) this.#annotated?.add(event.key);
        else this.#annotated?.delete(event.key);
        // The leader's status writes change nothing that passes through.
        if (event.type === 'updated' && isStatusOnlyChange(event.oldObject, event.newObject)) return false;
        return carries || (event.oldObject !== undefined && this.#carriesAnnotation(event.oldObject));
      }
      case 'Service':
        return this.#serviceKeys.has(event.key);
      case 'EndpointSlice': {
        const slice = event.newObject ?? event.oldObject;
        const serviceKey = slice === undefined ? undefined : serviceKeyOfEndpointSlice(slice);
        return serviceKey !== undefined && this.#serviceKeys.has(serviceKey);
      }
      default:
        return false;
    }
  }

  #carriesAnnotation(ingress: Ingress): boolean {
    return ingress.metadata.annotations?.[`${this.#config.annotationPrefix}/ssl-passthrough`] !== undefined;
  }

  #streamSources(): StreamServicesSource[] {
    const sources: StreamServicesSource[] = [];
    if (this.#config.tcpServicesConfigMap !== undefined)
      sources.push({ protocol: 'TCP', configMap: this.#config.tcpServicesConfigMap });
    if (this.#config.udpServicesConfigMap !== undefined)
      sources.push({ protocol: 'UDP', configMap: this.#config.udpServicesConfigMap });
    return sources;
  }

  /**
   * Every port the controller listens on as `view` has it: the reserved ones and those of the TCP
   * and UDP services ConfigMaps (own-ports.ts). Cheap: two ConfigMaps' keys.
   */
  ownPorts(view: Pick<ClusterView, 'configMap'>): Set<number> {
    return new Set([...this.#config.reservedPorts, ...listStreamPorts(view, this.#streamSources())]);
  }

  /** The annotated Ingresses, found by walking every Ingress once. */
  #annotatedKeys(view: ClusterView): Set<string> {
    if (this.#annotated === undefined) {
      this.#annotated = new Set();
      for (const key of view.ingressKeys()) {
        const ingress = view.ingress(key);
        if (ingress !== undefined && this.#carriesAnnotation(ingress)) this.#annotated.add(key);
      }
    }
    return this.#annotated;
  }

  /**
   * Reads the passthrough hosts and the stream services from `view`; see the module comment. Only
   * after a relevant event or when Ingresses changed (their ownership and hosts decide who may pass
   * through): a sync of endpoint moves does not walk every Ingress again.
   */
  sync(view: ClusterView, changed: { ingresses: boolean } = { ingresses: true }): L4Sync {
    if (!this.#dirty && !changed.ingresses) return { streamServicesChanged: false };
    this.#dirty = false;
    const annotated = this.#annotatedKeys(view);
    // The stream services' ports are the controller's own too: no backend may loop into them.
    const policy = { ...this.#config.backendAddressPolicy, ownPorts: this.ownPorts(view) };
    const passthrough = resolvePassthroughHosts(
      { ...view, ingressKeys: () => annotated },
      {
        enabled: this.#config.sslPassthrough,
        annotationPrefix: this.#config.annotationPrefix,
        policy,
        allowCrossNamespaceHosts: this.#config.allowCrossNamespaceHosts,
        isOwned: this.#deps.isOwned,
        ...(this.#deps.hostOwnershipProblems === undefined
          ? {}
          : { hostOwnershipProblems: this.#deps.hostOwnershipProblems }),
      },
    );
    this.#proxy?.setHosts(passthrough.hosts);
    const streams = resolveStreamServices(view, this.#streamSources(), {
      reservedPorts: new Set(this.#config.reservedPorts),
      policy,
    });
    this.#serviceKeys = new Set([...passthrough.serviceKeys, ...streams.serviceKeys]);
    const streamServicesChanged = !isDeepStrictEqual(streams.services, this.#streamServices);
    if (streamServicesChanged) {
      this.#streamServices = streams.services;
      this.#deps.dataPlane.setStreamServices(streams.services);
    }
    const reported = new Map<string, EventReport | undefined>();
    for (const problem of streams.problems) {
      const configMap = view.configMap(problem.configMap);
      this.#report(reported, `${problem.configMap}|${problem.key}|${problem.message}`, () => {
        this.#deps.logger.warn({ configMap: problem.configMap, key: problem.key }, problem.message);
        if (configMap === undefined) return undefined;
        return {
          regarding: configMapSubject(configMap),
          type: 'Warning',
          reason: 'InvalidConfiguration',
          action: 'Configure',
          note: `${problem.protocol} service ${JSON.stringify(problem.key)}: ${problem.message}`,
        };
      });
    }
    for (const [key, problems] of passthrough.problems) {
      const ingress = view.ingress(key);
      for (const problem of problems) {
        this.#report(reported, `${key}|${problem.field}|${problem.message}`, () => {
          this.#deps.logger.warn({ ingress: key, field: problem.field }, problem.message);
          if (ingress === undefined) return undefined;
          return {
            regarding: ingressSubject(ingress),
            type: 'Warning',
            reason: problem.severity === 'error' ? 'SslPassthroughRefused' : 'SslPassthroughIgnored',
            action: 'Sync',
            note: `${problem.field}: ${problem.message}`,
          };
        });
      }
    }
    this.#reported = reported;
    return { streamServicesChanged };
  }

  /** This replica became the leader: it records the Events of the notes that hold. */
  becameLeader(): void {
    for (const event of this.#reported.values()) if (event !== undefined) this.#deps.recorder.record(event);
  }

  /** Reports a note once while it holds: a log line always, an Event on the leader. */
  #report(
    reported: Map<string, EventReport | undefined>,
    id: string,
    describe: () => EventReport | undefined,
  ): void {
    if (this.#reported.has(id)) {
      reported.set(id, this.#reported.get(id));
      return;
    }
    const event = describe();
    reported.set(id, event);
    if (event !== undefined && this.#deps.isLeader()) this.#deps.recorder.record(event);
  }
}
