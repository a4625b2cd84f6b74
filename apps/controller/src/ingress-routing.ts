/**
 * The routing stage as the controller wires it: route-table's RoutingTable fed by the Ingress
 * source (class resolution and ingress-routes' translator) and, through GatewayApiStage, the
 * Gateway API source; the controller's default backend and certificate, its backend address
 * policy and nginx's budgets (nginx-template's shared-dict measure and regex limit) plugged in.
 * Nothing here does I/O: the controller feeds it keys and a ClusterView, `render` feeds it manifests.
 */
import { isDeepStrictEqual } from 'node:util';
import { createIngressClassResolver, type IngressClassResolver } from '@ingresskit/class-resolution';
import {
  createDefaultBackendContribution,
  createDefaultBackendRoute,
  DEFAULT_TRANSLATION,
  pinExternalName,
  resolveServiceBackend,
  type IngressTranslator,
  type TranslationDefaults,
} from '@ingresskit/ingress-routes';
import { createSharedDictMeasure } from '@ingresskit/nginx-template';
import {
  DEFAULT_BACKEND_ADDRESS_POLICY,
  parseSourceKey,
  sourceKey,
  type BackendAddressPolicy,
  type Problem,
  type Route,
  type RouteContribution,
  type RouteTable,
  type RouteTableDelta,
  type UpstreamSettings,
} from '@ingresskit/route-model';
import { RoutingTable } from '@ingresskit/route-table';
import { namespacedKey } from '@ingresskit/kube-objects';
import type { ClusterView } from './cluster-view.js';
import { createRegexBudget } from './regex-budget.js';
import { createTranslatorOf, type IngressRoutingOptions } from './ingress-routing-options.js';
import { IngressSource, ingressSourceOf } from './ingress-source.js';
import type { IngressVerdict } from './ingress-verdict.js';
import { isSamePorts } from './own-ports.js';

/** The `namespace/name` of the Ingress whose source key is `key`; undefined for other sources. */
function ingressKeyOfSource(key: string): string | undefined {
  const source = parseSourceKey(key);
  return source?.kind === 'Ingress' ? namespacedKey(source.namespace, source.name) : undefined;
}

/** The route table of the Ingresses (and the Gateway API, see GatewayApiStage), as the controller wires it. */
export class IngressRouting {
  readonly #options: IngressRoutingOptions;
  /** The table every contribution source writes to. */
  readonly routingTable: RoutingTable<ClusterView>;
  readonly #ingresses: IngressSource;
  /** What the controller ConfigMap says of every Ingress; the translator is made with them. */
  #defaults: TranslationDefaults = DEFAULT_TRANSLATION;
  /** The operator's upstream settings (proxy-* ConfigMap keys) routes are measured with. */
  #upstreamDefaults: UpstreamSettings | undefined;
  #resolver: IngressClassResolver;
  /** enable-access-log-for-default-backend; the default route is set again when it changes. */
  #defaultBackendAccessLog = DEFAULT_TRANSLATION.defaultBackendAccessLog;
  #initialized = false;

  constructor(options: IngressRoutingOptions) {
    this.#options = options;
    const resolveExternalName = options.resolveExternalName;
    this.routingTable = new RoutingTable<ClusterView>({
      listeners: options.listeners,
      hostOwnership: options.allowCrossNamespaceHosts === true ? 'shared' : 'oldest-tenant',
      hostLimit:
        options.maxRegexMatchesPerRequest === undefined
          ? undefined
          : createRegexBudget(options.maxRegexMatchesPerRequest),
      backendAddressPolicy: options.backendAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY,
      resolveBackend: resolveServiceBackend,
      pinExternalName:
        resolveExternalName === undefined
          ? undefined
          : (backend, namespace, policy) =>
              pinExternalName(
                backend,
                resolveExternalName(namespace, backend.externalName!.hostname),
                policy,
              ),
      maxPathsPerNamespace: options.maxPathsPerNamespace,
      dataBudget:
        options.dataBudget === undefined
          ? undefined
          : { ...options.dataBudget, measure: createSharedDictMeasure(undefined) },
      fixedContributions: [createDefaultBackendContribution()],
    });
    this.#resolver = createIngressClassResolver([], options.classConfig);
    this.#ingresses = new IngressSource(
      (ingress) => this.#resolver.resolve(ingress),
      this.#createTranslator(),
    );
  }

  /**
   * Sets what the controller ConfigMap says of every Ingress (annotation defaults, HSTS); call
   * {@link updateIngresses} for every Ingress afterwards. Translations made with other defaults are
   * dropped with the translator that cached them.
   */
  setTranslationDefaults(view: ClusterView, defaults: TranslationDefaults): void {
    this.#defaults = defaults;
    this.#ingresses.setTranslator(this.#createTranslator());
    const upstream = defaults.annotationDefaults.upstreamSettings;
    // Routes compile with these settings (nginx.conf's profile catalogue): measured anew when they change.
    if (!isDeepStrictEqual(upstream, this.#upstreamDefaults)) {
      this.#upstreamDefaults = upstream;
      this.routingTable.setDataMeasure(createSharedDictMeasure(upstream));
    }
    this.#defaultBackendAccessLog = defaults.defaultBackendAccessLog;
    if (this.#initialized) this.routingTable.setDefaultFallback(view, this.#defaultBackendRoute());
  }

  #createTranslator(): IngressTranslator {
    return createTranslatorOf(
      { ...this.#options, backendAddressPolicy: this.routingTable.backendAddressPolicy },
      this.#defaults,
    );
  }

  /** What backends and auth URLs may point at now. */
  get backendAddressPolicy(): BackendAddressPolicy {
    return this.routingTable.backendAddressPolicy;
  }

  /**
   * Sets the ports the controller listens on (own-ports.ts: the stream services' change at run
   * time). When they changed, every backend is resolved again and translations made under the old
   * ones are dropped: call {@link updateIngresses} for every Ingress afterwards. Returns whether
   * they changed.
   */
  setOwnPorts(view: ClusterView, ports: ReadonlySet<number>): boolean {
    const policy = this.routingTable.backendAddressPolicy;
    if (isSamePorts(policy.ownPorts, ports)) return false;
    this.routingTable.setBackendAddressPolicy(view, { ...policy, ownPorts: ports });
    this.#ingresses.setTranslator(this.#createTranslator());
    return true;
  }

  #defaultBackendRoute(): Route {
    return createDefaultBackendRoute(this.#options.defaultBackend, {
      accessLog: this.#defaultBackendAccessLog,
    });
  }

  /** Starts a table: reads the IngressClasses and resolves the default backend's Service. */
  initialize(view: ClusterView): void {
    this.setIngressClasses(view);
    this.routingTable.setDefaultFallback(view, this.#defaultBackendRoute());
    this.#initialized = true;
  }

  /** Reads the IngressClasses again; call {@link updateIngresses} for every Ingress afterwards. */
  setIngressClasses(view: ClusterView): void {
    this.#resolver = createIngressClassResolver(view.ingressClasses(), this.#options.classConfig);
  }

  /** The Ingress contribution source. */
  get ingresses(): IngressSource {
    return this.#ingresses;
  }

  /** Decides and translates the Ingresses with these keys again, as `view` has them now. */
  updateIngresses(view: ClusterView, keys: Iterable<string>): void {
    this.#ingresses.update(view, keys, this.routingTable);
  }

  /**
   * Sets what a source other than an Ingress (the default certificate) contributes to the same
   * table; its backends are resolved like an Ingress's, and host ownership applies by its tenant.
   */
  setContribution(view: ClusterView, contribution: RouteContribution): void {
    const key = sourceKey(contribution.source);
    if (contribution.source.kind === 'Ingress')
      throw new Error(`${key}: Ingresses go through updateIngresses`);
    this.routingTable.update(view, [{ source: contribution.source, contribution, isNewVersion: true }]);
  }

  /** `namespace/name` of the owned Ingresses whose translation read the ConfigMap `key`. */
  ingressesReadingConfigMap(key: string): string[] {
    return this.#ingresses.ingressesReadingConfigMap(key);
  }

  /** Re-assembles what changed since the last commit; see route-model's builder. */
  commit(): RouteTableDelta {
    return this.routingTable.commit();
  }

  /** Ingresses whose verdict or problems may have changed since the last call. */
  takeAffectedIngresses(): Set<string> {
    const affected = this.#ingresses.takeAffected();
    for (const source of this.routingTable.takeAffected()) {
      const key = ingressKeyOfSource(source);
      if (key !== undefined) affected.add(key);
    }
    return affected;
  }

  /** The whole table as of the last commit. */
  table(): RouteTable {
    return this.routingTable.table();
  }

  /** The class decision of an Ingress. */
  verdict(key: string): IngressVerdict | undefined {
    return this.#ingresses.verdict(key);
  }

  /** Every class decision, owned and ignored. */
  verdicts(): IterableIterator<IngressVerdict> {
    return this.#ingresses.verdicts();
  }

  /** What an owned Ingress contributes (its routes, fallbacks and TLS claims), as route-model data. */
  contributionOf(key: string): RouteContribution | undefined {
    return this.routingTable.contribution(sourceKey(ingressSourceOf(key)));
  }

  /**
   * Everything wrong with an Ingress: its translation problems, the backends of its routes that
   * answer 503, routes of it that older Ingresses hide, and routes the data plane refused.
   */
  problemsOf(key: string): Problem[] {
    return this.#ingresses.problemsOf(key, this.routingTable);
  }
}

/** Routes every Ingress of `view` in one pass: what `render`, `explain` and the demo print. */
export function routeAll(view: ClusterView, options: IngressRoutingOptions): IngressRouting {
  const routing = new IngressRouting(options);
  routing.initialize(view);
  routing.updateIngresses(view, view.ingressKeys());
  routing.commit();
  return routing;
}
