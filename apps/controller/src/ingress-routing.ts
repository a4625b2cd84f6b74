/**
 * Ingresses → route table, incrementally. For each Ingress that changed: who owns it (class
 * resolution), what it contributes (ingress-routes, cached per object version), and the backends
 * its routes name (resolved from Services and EndpointSlices). The route-model builder merges the
 * contributions per hostname; `commit()` returns what changed since the last commit. Nothing here
 * does I/O: the controller feeds it keys and a ClusterView, `render` feeds it manifests.
 */
import { createIngressClassResolver, type IngressClassResolver } from '@ingresskit/class-resolution';
import {
  createDefaultBackendContribution,
  createDefaultBackendRoute,
  countIngressPaths,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  DEFAULT_TRANSLATION,
  type BackendAddressPolicy,
  type IngressTranslation,
  type IngressTranslator,
  type TranslationDefaults,
} from '@ingresskit/ingress-routes';
import {
  createRouteTableBuilder,
  parseRouteId,
  parseSourceKey,
  routeIdPrefixOf,
  sourceKey,
  type AssemblyNote,
  type Problem,
  type Route,
  type RouteContribution,
  type RouteTable,
  type RouteTableBuilder,
  type RouteTableDelta,
  type SourceRef,
  type VirtualHost,
} from '@ingresskit/route-model';
import { namespacedKey, splitObjectKey } from '@ingresskit/kube-objects';
import type { Ingress } from '@ingresskit/store';
import type { ClusterView } from './cluster-view.js';
import { BackendResolver } from './backend-resolver.js';
import { NamespacePathBudget } from './namespace-path-budget.js';
import { createRegexBudget } from './regex-budget.js';
import { ContributionBudget } from './contribution-budget.js';
import { createTranslatorOf, type IngressRoutingOptions } from './ingress-routing-options.js';
import type { IngressVerdict } from './ingress-verdict.js';
import { problemOfNote, pushBackendProblems, pushRefusalProblems } from './ingress-problems.js';
import { isSamePorts } from './own-ports.js';
import { RouteRefusals, type RefusedRoute } from './route-refusals.js';

/** The Ingress `namespace/name` as a route-model source. */
function ingressSourceOf(key: string): SourceRef {
  const { namespace = '', name } = splitObjectKey(key);
  return { kind: 'Ingress', namespace, name };
}

/** The key of the Ingress `namespace/name` as a route-model source. */
function ingressSourceKey(key: string): string {
  return sourceKey(ingressSourceOf(key));
}

/** The `namespace/name` of the Ingress whose source key is `key`; undefined for other sources. */
function ingressKeyOfSource(key: string): string | undefined {
  const source = parseSourceKey(key);
  return source?.kind === 'Ingress' ? namespacedKey(source.namespace, source.name) : undefined;
}

/** When an Ingress was created, in ms (0 when unknown: it then counts as the oldest). */
function creationMillis(ingress: Ingress): number {
  const created: unknown = ingress.metadata?.creationTimestamp;
  const millis = created instanceof Date ? created.getTime() : Date.parse(String(created));
  return Number.isFinite(millis) ? millis : 0;
}

/** Turns the Ingresses that changed into route table changes, caching each translation. */
export class IngressRouting {
  readonly #options: IngressRoutingOptions;
  readonly #builder: RouteTableBuilder;
  #translator: IngressTranslator;
  /** What the controller ConfigMap says of every Ingress; the translator is made with them. */
  #defaults: TranslationDefaults = DEFAULT_TRANSLATION;
  /** What backends and auth URLs may point at; its own ports follow the stream services. */
  #policy: BackendAddressPolicy;
  #resolver: IngressClassResolver;
  readonly #verdicts = new Map<string, IngressVerdict>();
  /** Translations of the owned Ingresses, by `namespace/name`. */
  readonly #translations = new Map<string, IngressTranslation>();
  readonly #backends: BackendResolver;
  /** Routes and certificates the data plane refused. */
  readonly #refusals = new RouteRefusals();
  /** Ingresses whose verdict or problems may have changed since the last `takeAffectedIngresses`. */
  #affected = new Set<string>();
  /** Contributions of other sources (Gateways, HTTPRoutes), by source key, as given. */
  readonly #foreign = new Map<string, RouteContribution>();
  readonly #budget: NamespacePathBudget | undefined;
  /** nginx's shared dict shared between namespaces, by source key (see NamespaceDataBudget). */
  readonly #dataBudget: ContributionBudget | undefined;
  /** The owned Ingresses whose translation read each ConfigMap (auth-proxy-set-headers, custom-headers), by its key. */
  readonly #configMapReaders = new Map<string, Set<string>>();
  /** enable-access-log-for-default-backend; the default route is set again when it changes. */
  #defaultBackendAccessLog = DEFAULT_TRANSLATION.defaultBackendAccessLog;
  #initialized = false;

  constructor(options: IngressRoutingOptions) {
    this.#options = options;
    this.#builder = createRouteTableBuilder({
      listeners: options.listeners,
      hostOwnership: options.allowCrossNamespaceHosts === true ? 'shared' : 'oldest-tenant',
      ...(options.maxRegexMatchesPerRequest === undefined
        ? {}
        : { hostLimit: createRegexBudget(options.maxRegexMatchesPerRequest) }),
    });
    this.#policy = options.backendAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY;
    this.#translator = this.#createTranslator();
    this.#resolver = createIngressClassResolver([], options.classConfig);
    this.#backends = new BackendResolver(this.#builder, {
      policy: this.#policy,
      resolveExternalName: options.resolveExternalName,
      // A backend that starts or stops answering 503 changes the problems of the Ingresses using it.
      onProblemChange: (id) => {
        for (const source of this.#builder.sourcesOfBackend(id)) {
          const key = ingressKeyOfSource(source);
          if (key !== undefined) this.#affected.add(key);
        }
      },
    });
    this.#builder.setContribution(createDefaultBackendContribution());
    const maxPathsPerNamespace = options.maxPathsPerNamespace ?? 0;
    if (maxPathsPerNamespace > 0) this.#budget = new NamespacePathBudget(maxPathsPerNamespace);
    if (options.dataBudget !== undefined) this.#dataBudget = new ContributionBudget(options.dataBudget);
  }

  /**
   * Sets what the controller ConfigMap says of every Ingress (annotation defaults, HSTS); call
   * {@link updateIngresses} for every Ingress afterwards. Translations made with other defaults are
   * dropped with the translator that cached them.
   */
  setTranslationDefaults(defaults: TranslationDefaults): void {
    this.#defaults = defaults;
    this.#translator = this.#createTranslator();
    this.#dataBudget?.setUpstreamDefaults(defaults.annotationDefaults.upstreamSettings);
    this.#defaultBackendAccessLog = defaults.defaultBackendAccessLog;
    // The same backends as before: no Service to resolve again, so no view is needed.
    if (this.#initialized) this.#builder.setDefaultFallback(this.#defaultBackendRoute());
  }

  #createTranslator(): IngressTranslator {
    return createTranslatorOf({ ...this.#options, backendAddressPolicy: this.#policy }, this.#defaults);
  }

  /** What backends and auth URLs may point at now. */
  get backendAddressPolicy(): BackendAddressPolicy {
    return this.#policy;
  }

  /**
   * Sets the ports the controller listens on (own-ports.ts: the stream services' change at run
   * time). When they changed, every backend is resolved again and translations made under the old
   * ones are dropped: call {@link updateIngresses} for every Ingress afterwards. Returns whether
   * they changed.
   */
  setOwnPorts(view: ClusterView, ports: ReadonlySet<number>): boolean {
    if (isSamePorts(this.#policy.ownPorts, ports)) return false;
    this.#policy = { ...this.#policy, ownPorts: ports };
    this.#translator = this.#createTranslator();
    this.#backends.setPolicy(view, this.#policy);
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
    const change = this.#builder.setDefaultFallback(this.#defaultBackendRoute());
    this.#backends.follow(view, change);
    this.#initialized = true;
  }

  /** Reads the IngressClasses again; call {@link updateIngresses} for every Ingress afterwards. */
  setIngressClasses(view: ClusterView): void {
    this.#resolver = createIngressClassResolver(view.ingressClasses(), this.#options.classConfig);
  }

  /** Decides and translates the Ingresses with these keys again, as `view` has them now. */
  updateIngresses(view: ClusterView, keys: Iterable<string>): void {
    const translated: string[] = [];
    // A key named twice (the first sync gets every Ingress as a change and as all Ingresses) is
    // worked on once.
    for (const key of new Set(keys)) {
      this.#affected.add(key);
      const ingress = view.ingress(key);
      if (ingress === undefined) {
        this.#verdicts.delete(key);
        this.#withdraw(view, key);
        continue;
      }
      const decision = this.#resolver.resolve(ingress);
      this.#verdicts.set(key, { key, ingress, decision });
      if (!decision.owned) {
        this.#withdraw(view, key);
        continue;
      }
      const translation = this.#translator.translate(ingress, {
        secret: (namespace, name) => view.secret(`${namespace}/${name}`),
        configMap: (namespace, name) => view.configMap(`${namespace}/${name}`),
      });
      const previous = this.#translations.get(key);
      // A new version of the Ingress may have fixed what the data plane refused: try it again.
      if (previous !== translation) this.#forgetRefusals(key);
      this.#indexConfigMaps(key, previous, translation);
      this.#translations.set(key, translation);
      const paths = translation.contribution === undefined ? 0 : countIngressPaths(ingress.spec);
      this.#budget?.set(key, paths, creationMillis(ingress));
      translated.push(key);
    }
    const moved = this.#budget?.settle() ?? [];
    for (const key of moved) this.#affected.add(key);
    this.#place(view, moved.length === 0 ? translated : new Set([...translated, ...moved]));
  }

  /**
   * Serves or leaves out each of these Ingresses and other sources (by source key) as the budgets
   * decide; the data budget is settled first, and what it moves in or out is placed too.
   */
  #place(view: ClusterView, ingressKeys: Iterable<string>, foreignKeys: Iterable<string> = []): void {
    const ingresses = new Set(ingressKeys);
    const foreign = new Set(foreignKeys);
    if (this.#dataBudget !== undefined) {
      for (const key of ingresses)
        this.#dataBudget.measure(view, ingressSourceKey(key), this.#keptContributionOf(key));
      for (const key of foreign) {
        const contribution = this.#foreign.get(key);
        this.#dataBudget.measure(view, key, contribution && this.#refusals.keptOf(contribution));
      }
      for (const source of this.#dataBudget.settle()) {
        const key = ingressKeyOfSource(source);
        if (key === undefined) foreign.add(source);
        else {
          this.#affected.add(key);
          ingresses.add(key);
        }
      }
    }
    for (const key of ingresses) {
      const translation = this.#translations.get(key);
      if (translation === undefined) continue;
      if (this.#refusalOf(key) === undefined) this.#contribute(view, key, translation);
      else this.#withdraw(view, key, false);
    }
    for (const key of foreign) {
      const contribution = this.#foreign.get(key);
      if (contribution === undefined) continue;
      if (this.#dataBudget?.refusal(key) !== undefined) {
        this.#backends.follow(view, this.#builder.deleteContribution(key));
        continue;
      }
      const kept = this.#refusals.keptOf(contribution);
      if (this.#builder.contribution(key) !== kept)
        this.#backends.follow(view, this.#builder.setContribution(kept));
    }
  }

  /** What an Ingress contributes without its refused routes, when the path budget lets it: undefined otherwise. */
  #keptContributionOf(key: string): RouteContribution | undefined {
    const contribution = this.#translations.get(key)?.contribution;
    if (contribution === undefined || this.#budget?.refusal(key) !== undefined) return undefined;
    return this.#refusals.keptOf(contribution);
  }

  /** Why a budget leaves the Ingress out, or undefined when it is served. */
  #refusalOf(key: string): string | undefined {
    const paths = this.#budget?.refusal(key);
    if (paths !== undefined) return paths;
    const data = this.#dataBudget?.refusal(ingressSourceKey(key));
    return data === undefined ? undefined : `${data}; the Ingress is not served`;
  }

  /** The problems of the sources other than Ingresses (Gateways, HTTPRoutes) that the data budget leaves out. */
  foreignBudgetProblems(): Problem[] {
    const problems: Problem[] = [];
    for (const [key, contribution] of this.#foreign) {
      const refusal = this.#dataBudget?.refusal(key);
      if (refusal === undefined) continue;
      problems.push({
        object: contribution.source,
        field: 'spec',
        message: `${refusal}; the ${contribution.source.kind} is not served`,
        severity: 'error',
        code: 'namespace-dict-share',
      });
    }
    return problems;
  }

  /**
   * Resolves the backends of these Services again (their ports, type or EndpointSlices changed),
   * and counts again what the sources naming them take of the shared dict.
   */
  updateServices(view: ClusterView, serviceKeys: Iterable<string>): void {
    const keys = [...serviceKeys];
    this.#backends.updateServices(view, keys);
    if (this.#dataBudget === undefined) return;
    const ingresses = new Set<string>();
    const foreign = new Set<string>();
    for (const source of this.#dataBudget.sourcesOfServices(keys)) {
      const key = ingressKeyOfSource(source);
      if (key !== undefined) ingresses.add(key);
      else foreign.add(source);
    }
    if (ingresses.size + foreign.size > 0) this.#place(view, ingresses, foreign);
  }

  /**
   * Sets what a source other than an Ingress (a Gateway, an HTTPRoute) contributes to the same
   * table; its backends are resolved like an Ingress's, and host ownership applies by its tenant.
   */
  setContribution(view: ClusterView, contribution: RouteContribution): void {
    const key = sourceKey(contribution.source);
    if (contribution.source.kind === 'Ingress')
      throw new Error(`${key}: Ingresses go through updateIngresses`);
    // A new version may have fixed what the data plane refused: try it again.
    this.#refusals.forgetRoutes(routeIdPrefixOf(key));
    this.#foreign.set(key, contribution);
    this.#place(view, [], [key]);
  }

  /** Withdraws what {@link setContribution} set for `key` (`Kind/namespace/name`). */
  deleteContribution(view: ClusterView, key: string): void {
    if (!this.#foreign.delete(key)) return;
    this.#refusals.forgetRoutes(routeIdPrefixOf(key));
    this.#backends.follow(view, this.#builder.deleteContribution(key));
    // What it took of the shared dict may let others in.
    this.#place(view, [], [key]);
  }

  /** Pins the backends of these ExternalName names (externalNameKey) again: their addresses changed. */
  updateExternalNames(view: ClusterView, keys: Iterable<string>): void {
    this.#backends.updateExternalNames(view, keys);
  }

  /** Whether a backend of a Service of `namespace` is pinned to the addresses of `hostname`. */
  usesExternalName(namespace: string, hostname: string): boolean {
    return this.#backends.usesExternalName(namespace, hostname);
  }

  /** `namespace/name` of the owned Ingresses whose translation read the ConfigMap `key`. */
  ingressesReadingConfigMap(key: string): string[] {
    return [...(this.#configMapReaders.get(key) ?? [])];
  }

  /** Whether a route, or a source the data budget counted, refers to a backend of the Service `namespace/name`. */
  isServiceReferenced(serviceKey: string): boolean {
    // A source the data budget left out for its backends' size may fit once they shrink.
    return (
      this.#backends.isServiceReferenced(serviceKey) || this.#dataBudget?.countsService(serviceKey) === true
    );
  }

  /**
   * Leaves out routes the data plane refused, and re-contributes their Ingresses without them.
   * Returns whether anything was left out that was not already.
   */
  refuseRoutes(view: ClusterView, refused: readonly RefusedRoute[]): boolean {
    const sources = new Set<string>();
    const foreign = new Set<string>();
    for (const entry of refused) {
      if (!this.#refusals.addRoute(entry)) continue;
      const route = parseRouteId(entry.routeId);
      if (route === undefined) continue;
      if (route.source.kind === 'Ingress')
        sources.add(namespacedKey(route.source.namespace, route.source.name));
      else foreign.add(route.sourceKey);
    }
    for (const key of sources) this.#affected.add(key);
    // Without their refused routes they take less of the shared dict.
    this.#place(view, sources, foreign);
    return sources.size + foreign.size > 0;
  }

  /**
   * Certificates the data plane refused (by certificate id, with its reason): the Ingresses that
   * claim one are reported; their hosts get the default certificate. Cheap when nothing changed.
   */
  setRefusedCertificates(refused: ReadonlyMap<string, string>): void {
    const changed = this.#refusals.setCertificates(refused);
    if (changed.size === 0) return;
    // Rare (a certificate nginx's OpenSSL cannot load), so a scan instead of another index.
    for (const key of this.#translations.keys()) {
      if (this.contributionOf(key)?.tls.some((claim) => changed.has(claim.certificate.id)))
        this.#affected.add(key);
    }
  }

  /** Re-assembles what changed since the last commit; see route-model's builder. */
  commit(): RouteTableDelta {
    // Notes are about other sources than the ones that changed (an older Ingress going away
    // un-hides a younger one's path), so whoever had or has a note is looked at again.
    this.#markNoteSources();
    const delta = this.#builder.commit();
    this.#markNoteSources();
    return delta;
  }

  /** Ingresses whose verdict or problems may have changed since the last call. */
  takeAffectedIngresses(): Set<string> {
    const affected = this.#affected;
    this.#affected = new Set();
    return affected;
  }

  #markNoteSources(): void {
    for (const note of this.#builder.notes()) {
      if (note.source.kind === 'Ingress') this.#affected.add(`${note.source.namespace}/${note.source.name}`);
    }
  }

  /** The whole table as of the last commit. */
  table(): RouteTable {
    return this.#builder.table();
  }

  /** The virtual host of `hostname` as of the last commit. */
  virtualHost(hostname: string): VirtualHost | undefined {
    return this.#builder.virtualHost(hostname);
  }

  /** The class decision of an Ingress. */
  verdict(key: string): IngressVerdict | undefined {
    return this.#verdicts.get(key);
  }

  /** Every class decision, owned and ignored. */
  verdicts(): IterableIterator<IngressVerdict> {
    return this.#verdicts.values();
  }

  /** What an owned Ingress contributes (its routes, fallbacks and TLS claims), as route-model data. */
  contributionOf(key: string): RouteContribution | undefined {
    return this.#builder.contribution(ingressSourceKey(key));
  }

  /** What any source (an HTTPRoute, say) contributes, by its source key (`Kind/namespace/name`). */
  contributionOfSource(key: string): RouteContribution | undefined {
    return this.#builder.contribution(key);
  }

  /** What assembly decided against the source `object` (hosts owned elsewhere, hidden routes), as problems. */
  assemblyProblemsOf(object: Problem['object']): Problem[] {
    const key = sourceKey(object);
    return this.notes()
      .filter((note) => sourceKey(note.source) === key)
      .map((note) => problemOfNote(object, note));
  }

  /**
   * Everything wrong with an Ingress: its translation problems, the backends of its routes that
   * answer 503, routes of it that older Ingresses hide, and routes the data plane refused.
   */
  problemsOf(key: string): Problem[] {
    const translation = this.#translations.get(key);
    if (translation === undefined) return [];
    const object = ingressSourceOf(key);
    const problems = [...translation.problems];
    const overBudget = this.#budget?.refusal(key);
    if (overBudget !== undefined)
      problems.push({ object, field: 'spec.rules', message: overBudget, severity: 'error' });
    else {
      const overShare = this.#refusalOf(key);
      if (overShare !== undefined)
        problems.push({
          object,
          field: 'spec',
          message: overShare,
          severity: 'error',
          code: 'namespace-dict-share',
        });
    }
    const source = ingressSourceKey(key);
    const contribution = this.#builder.contribution(source);
    pushBackendProblems(problems, object, contribution, this.#backends);
    problems.push(...this.assemblyProblemsOf(object));
    pushRefusalProblems(problems, object, source, contribution, this.#refusals);
    return problems;
  }

  /**
   * What host ownership decides against an Ingress `object` naming `hostnames` (with the same
   * messages as problemsOf), wildcards that cover them included: as the table stands, or, given
   * `createdAt` (ms), as it would with this version of the Ingress in it, whatever it holds of the
   * Ingress now (what the admission webhook refuses).
   */
  hostOwnershipProblems(
    object: Problem['object'],
    hostnames: Iterable<string>,
    createdAt?: number,
  ): Problem[] {
    const problems: Problem[] = [];
    const source = { kind: 'Ingress', namespace: object.namespace, name: object.name };
    const claimant =
      createdAt === undefined
        ? undefined
        : { source, tenant: object.namespace, origin: { ...source, createdAt, index: [] } };
    for (const hostname of new Set(hostnames)) {
      const owner = this.#builder.hostOwner(hostname, claimant);
      if (owner === undefined || owner.tenant === object.namespace) continue;
      problems.push(problemOfNote(object, { type: 'host-owned-elsewhere', source, hostname, owner }));
    }
    return problems;
  }

  /**
   * Whether the table as last committed names exactly `hostname` (a virtual host or a TLS
   * binding): a server name nginx serves there, which a `*.` passthrough host must not take.
   */
  servesHostname(hostname: string): boolean {
    return (
      this.#builder.virtualHost(hostname) !== undefined || this.#builder.tlsBinding(hostname) !== undefined
    );
  }

  /**
   * What the host limit (`--max-regex-matches-per-request`) would decide against `contribution`
   * (an Ingress not created yet counts as the youngest), as the table stands: what the admission
   * webhook refuses.
   */
  hostLimitProblems(contribution: RouteContribution): Problem[] {
    return this.#builder
      .previewHostLimit(contribution)
      .map((note) => problemOfNote(contribution.source, note));
  }

  /** What assembly decided against sources, as of the last commit. */
  notes(): AssemblyNote[] {
    return this.#builder.notes();
  }

  #contribute(view: ClusterView, key: string, translation: IngressTranslation): void {
    const contribution = translation.contribution;
    if (contribution === undefined) {
      this.#withdraw(view, key, false);
      return;
    }
    const kept = this.#refusals.keptOf(contribution);
    // The same translation again (cached, nothing refused) changes nothing; setting it anyway
    // would re-assemble its hosts and leave a deleted entry in each of the builder's maps.
    if (this.#builder.contribution(ingressSourceKey(key)) === kept) return;
    this.#backends.follow(view, this.#builder.setContribution(kept));
  }

  #forgetRefusals(key: string): void {
    this.#refusals.forgetRoutes(routeIdPrefixOf(ingressSourceKey(key)));
  }

  #indexConfigMaps(
    key: string,
    before: IngressTranslation | undefined,
    after: IngressTranslation | undefined,
  ): void {
    for (const configMap of before?.references.configMaps ?? []) {
      const readers = this.#configMapReaders.get(configMap);
      readers?.delete(key);
      if (readers?.size === 0) this.#configMapReaders.delete(configMap);
    }
    for (const configMap of after?.references.configMaps ?? []) {
      let readers = this.#configMapReaders.get(configMap);
      if (readers === undefined) this.#configMapReaders.set(configMap, (readers = new Set()));
      readers.add(key);
    }
  }

  #withdraw(view: ClusterView, key: string, forget = true): void {
    if (forget) {
      this.#indexConfigMaps(key, this.#translations.get(key), undefined);
      this.#budget?.delete(key);
      this.#dataBudget?.delete(ingressSourceKey(key));
      this.#translations.delete(key);
      this.#translator.forget(key);
      this.#forgetRefusals(key);
    }
    this.#backends.follow(view, this.#builder.deleteContribution(ingressSourceKey(key)));
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
