/**
 * The route table kept from contribution sources, incrementally. Sources (Ingresses, Gateway API)
 * set and withdraw what their objects contribute; around route-model's builder, the same for every
 * source: the backends their routes name are resolved from Services and EndpointSlices (and
 * ExternalNames pinned to their addresses) and kept resolved, routes and certificates the data
 * plane refused are left out until their source changes, host ownership decides between tenants,
 * and the budgets (paths per namespace, the data plane's memory per namespace, the host limit)
 * serve the oldest objects first. `commit()` returns what changed since the last commit. Nothing
 * here does I/O: the caller hands in a view of the cluster.
 */
import {
  createRouteTableBuilder,
  DEFAULT_BACKEND_ADDRESS_POLICY,
  parseRouteId,
  routeIdPrefixOf,
  sourceKey,
  type AssemblyNote,
  type BackendAddressPolicy,
  type HostLimit,
  type Listener,
  type Problem,
  type Route,
  type RouteContribution,
  type RouteTable,
  type RouteTableBuilder,
  type RouteTableDelta,
  type SourceRef,
  type VirtualHost,
} from '@ingresskit/route-model';
import { BackendResolver, type ExternalNamePin, type ServiceBackendResolve } from './backend-resolver.js';
import type { BackendView } from './backend-view.js';
import { ContributionBudget, type DataMeasure } from './contribution-budget.js';
import type { ContributionSink, SourceEntry, SourceProblems } from './contribution-source.js';
import { NamespacePathBudget } from './namespace-path-budget.js';
import type { NamespaceDataBudgetOptions } from './namespace-data-budget.js';
import { RouteRefusals, type RefusedRoute } from './route-refusals.js';
import { problemOfNote, pushBackendProblems, pushRefusalProblems } from './source-problems.js';

/** The data plane's memory shared fairly between namespaces, and how sources are measured in it. */
export interface DataBudgetOptions extends NamespaceDataBudgetOptions {
  measure: DataMeasure;
}

/** Options of {@link RoutingTable}. */
export interface RoutingTableOptions {
  listeners: Listener[];
  /**
   * `oldest-tenant`: a host belongs to the tenant of its oldest contribution (route-model's host
   * ownership); `shared`: every contribution to a host is merged.
   */
  hostOwnership: 'shared' | 'oldest-tenant';
  /** A limit on each assembled virtual host (nginx's regex matches per request); none when undefined. */
  hostLimit?: HostLimit | undefined;
  /** What backends may point at; DEFAULT_BACKEND_ADDRESS_POLICY when undefined. */
  backendAddressPolicy?: BackendAddressPolicy | undefined;
  /** How a Service port becomes a backend (ingress-routes' resolveServiceBackend). */
  resolveBackend: ServiceBackendResolve;
  /** Pins ExternalName backends to their names' addresses; without it the data plane resolves names. */
  pinExternalName?: ExternalNamePin | undefined;
  /** The most paths the counted objects of one namespace may have together; no limit when undefined or 0. */
  maxPathsPerNamespace?: number | undefined;
  /** The data plane's memory per namespace; no budget when undefined. */
  dataBudget?: DataBudgetOptions | undefined;
  /**
   * Contributions the table holds from the start, outside every budget, that name no backends of
   * their own (the controller's catch-all host, whose fallback is the table default).
   */
  fixedContributions?: readonly RouteContribution[] | undefined;
}

/** The route table of every contribution source, with what is shared around it; see the module comment. */
export class RoutingTable<View extends BackendView = BackendView>
  implements ContributionSink<View>, SourceProblems
{
  readonly #builder: RouteTableBuilder;
  readonly #backends: BackendResolver;
  /** Routes and certificates the data plane refused. */
  readonly #refusals = new RouteRefusals();
  readonly #pathBudget: NamespacePathBudget | undefined;
  /** The data plane's memory shared between namespaces, by source key. */
  readonly #dataBudget: ContributionBudget | undefined;
  /** What each source set last, by source key. */
  readonly #entries = new Map<string, SourceEntry>();
  /** Sources whose problems may have changed since the last {@link takeAffected}, by source key. */
  #affected = new Set<string>();
  #policy: BackendAddressPolicy;

  constructor(options: RoutingTableOptions) {
    this.#builder = createRouteTableBuilder({
      listeners: options.listeners,
      hostOwnership: options.hostOwnership,
      ...(options.hostLimit === undefined ? {} : { hostLimit: options.hostLimit }),
    });
    this.#policy = options.backendAddressPolicy ?? DEFAULT_BACKEND_ADDRESS_POLICY;
    this.#backends = new BackendResolver(this.#builder, {
      policy: this.#policy,
      resolve: options.resolveBackend,
      pinExternalName: options.pinExternalName,
      // A backend that starts or stops answering 503 changes the problems of the sources using it.
      onProblemChange: (id) => {
        for (const source of this.#builder.sourcesOfBackend(id)) this.#affected.add(source);
      },
    });
    for (const contribution of options.fixedContributions ?? []) this.#builder.setContribution(contribution);
    const maxPaths = options.maxPathsPerNamespace ?? 0;
    if (maxPaths > 0) this.#pathBudget = new NamespacePathBudget(maxPaths);
    if (options.dataBudget !== undefined)
      this.#dataBudget = new ContributionBudget(options.dataBudget, options.dataBudget.measure);
  }

  /** What backends may point at now. */
  get backendAddressPolicy(): BackendAddressPolicy {
    return this.#policy;
  }

  /** Resolves every backend again under `policy` (the gateway's own ports changed, say). */
  setBackendAddressPolicy(view: View, policy: BackendAddressPolicy): void {
    this.#policy = policy;
    this.#backends.setPolicy(view, policy);
  }

  /** Sets the route of requests no host's route matches (the default backend), resolving its backends. */
  setDefaultFallback(view: View, route: Route): void {
    this.#backends.follow(view, this.#builder.setDefaultFallback(route));
  }

  /**
   * Measures sources with `measure` from now on (the settings that decide how routes compile
   * changed); each is measured anew when it is next set or its backends change.
   */
  setDataMeasure(measure: DataMeasure): void {
    this.#dataBudget?.setMeasure(measure);
  }

  /** See {@link ContributionSink.update}; also settles what {@link withdraw} changed since the last update. */
  update(view: View, entries: Iterable<SourceEntry>): void {
    const keys = new Set<string>();
    for (const entry of entries) {
      // Kept in the budgets for as long as the source: one flat string, not the tree of pieces a
      // template literal makes (a JSON round trip is the portable way to flatten).
      const key = JSON.parse(JSON.stringify(sourceKey(entry.source))) as string;
      // A new version may have fixed what the data plane refused: try it again.
      if (entry.isNewVersion) this.#refusals.forgetRoutes(routeIdPrefixOf(key));
      this.#entries.set(key, entry);
      if (entry.paths !== undefined)
        this.#pathBudget?.set(key, entry.paths, entry.createdAt ?? 0, entry.source.namespace);
      keys.add(key);
    }
    for (const key of this.#pathBudget?.settle() ?? []) {
      this.#affected.add(key);
      keys.add(key);
    }
    this.#place(view, keys);
  }

  /**
   * See {@link ContributionSink.withdraw}. What the object took of the budgets is given to others
   * at the next {@link update} (a batch of withdrawals settles once).
   */
  withdraw(view: View, key: string): void {
    this.#entries.delete(key);
    this.#pathBudget?.delete(key);
    this.#dataBudget?.delete(key);
    this.#refusals.forgetRoutes(routeIdPrefixOf(key));
    this.#backends.follow(view, this.#builder.deleteContribution(key));
  }

  /**
   * Serves or leaves out each of these sources as the budgets decide; the data budget is settled
   * first, and what it moves in or out is placed too.
   */
  #place(view: View, keys: Set<string>): void {
    if (this.#dataBudget !== undefined) {
      for (const key of keys) this.#dataBudget.measure(view, key, this.#countedContributionOf(key));
      for (const key of this.#dataBudget.settle()) {
        this.#affected.add(key);
        keys.add(key);
      }
    }
    for (const key of keys) {
      const entry = this.#entries.get(key);
      if (entry === undefined) continue;
      if (entry.contribution === undefined || this.#isLeftOut(key)) {
        this.#backends.follow(view, this.#builder.deleteContribution(key));
        continue;
      }
      const kept = this.#refusals.keptOf(entry.contribution);
      // The same contribution again (cached, nothing refused) changes nothing; setting it anyway
      // would re-assemble its hosts and leave a deleted entry in each of the builder's maps.
      if (this.#builder.contribution(key) !== kept)
        this.#backends.follow(view, this.#builder.setContribution(kept));
    }
  }

  /** What a source would bring in without its refused routes, when the path budget lets it; undefined otherwise. */
  #countedContributionOf(key: string): RouteContribution | undefined {
    const contribution = this.#entries.get(key)?.contribution;
    if (contribution === undefined || this.#pathBudget?.refusal(key) !== undefined) return undefined;
    return this.#refusals.keptOf(contribution);
  }

  #isLeftOut(key: string): boolean {
    return this.#pathBudget?.refusal(key) !== undefined || this.#dataBudget?.refusal(key) !== undefined;
  }

  /**
   * Resolves the backends of these Services again (their ports, type or EndpointSlices changed),
   * and counts again what the sources naming them take of the data plane's memory.
   */
  updateServices(view: View, serviceKeys: Iterable<string>): void {
    const keys = [...serviceKeys];
    this.#backends.updateServices(view, keys);
    if (this.#dataBudget === undefined) return;
    const sources = this.#dataBudget.sourcesOfServices(keys);
    if (sources.size > 0) this.#place(view, sources);
  }

  /** Pins the backends of these ExternalName names (externalNameKey) again: their addresses changed. */
  updateExternalNames(view: View, keys: Iterable<string>): void {
    this.#backends.updateExternalNames(view, keys);
  }

  /** Whether a backend of a Service of `namespace` is pinned to the addresses of `hostname`. */
  usesExternalName(namespace: string, hostname: string): boolean {
    return this.#backends.usesExternalName(namespace, hostname);
  }

  /** Whether a route, or a source the data budget counted, refers to a backend of the Service `namespace/name`. */
  isServiceReferenced(serviceKey: string): boolean {
    // A source the data budget left out for its backends' size may fit once they shrink.
    return (
      this.#backends.isServiceReferenced(serviceKey) || this.#dataBudget?.countsService(serviceKey) === true
    );
  }

  /**
   * Leaves out routes the data plane refused, and sets their sources again without them. Returns
   * whether anything was left out that was not already.
   */
  refuseRoutes(view: View, refused: readonly RefusedRoute[]): boolean {
    const sources = new Set<string>();
    for (const entry of refused) {
      if (!this.#refusals.addRoute(entry)) continue;
      const route = parseRouteId(entry.routeId);
      if (route !== undefined) sources.add(route.sourceKey);
    }
    for (const key of sources) this.#affected.add(key);
    // Without their refused routes they take less of the data plane's memory.
    this.#place(view, sources);
    return sources.size > 0;
  }

  /**
   * Certificates the data plane refused (by certificate id, with its reason): the sources that
   * claim one are affected; their hosts get the default certificate. Cheap when nothing changed.
   */
  setRefusedCertificates(refused: ReadonlyMap<string, string>): void {
    const changed = this.#refusals.setCertificates(refused);
    if (changed.size === 0) return;
    // Rare (a certificate the data plane cannot load), so a scan instead of another index.
    for (const key of this.#entries.keys()) {
      if (this.#builder.contribution(key)?.tls.some((claim) => changed.has(claim.certificate.id)))
        this.#affected.add(key);
    }
  }

  /** Re-assembles what changed since the last commit; see route-model's builder. */
  commit(): RouteTableDelta {
    // Notes are about other sources than the ones that changed (an older source going away
    // un-hides a younger one's path), so whoever had or has a note is looked at again.
    this.#markNoteSources();
    const delta = this.#builder.commit();
    this.#markNoteSources();
    return delta;
  }

  #markNoteSources(): void {
    for (const note of this.#builder.notes()) this.#affected.add(sourceKey(note.source));
  }

  /** Source keys whose problems may have changed since the last call (backends, budgets, notes, refusals). */
  takeAffected(): Set<string> {
    const affected = this.#affected;
    this.#affected = new Set();
    return affected;
  }

  /** The whole table as of the last commit. */
  table(): RouteTable {
    return this.#builder.table();
  }

  /** The virtual host of `hostname` as of the last commit. */
  virtualHost(hostname: string): VirtualHost | undefined {
    return this.#builder.virtualHost(hostname);
  }

  /** What the source `key` contributes as served (its refused routes left out); undefined when it is not. */
  contribution(key: string): RouteContribution | undefined {
    return this.#builder.contribution(key);
  }

  /** What assembly decided against sources, as of the last commit. */
  notes(): AssemblyNote[] {
    return this.#builder.notes();
  }

  /**
   * Whether the table as last committed names exactly `hostname` (a virtual host or a TLS
   * binding): a server name the data plane serves there.
   */
  servesHostname(hostname: string): boolean {
    return (
      this.#builder.virtualHost(hostname) !== undefined || this.#builder.tlsBinding(hostname) !== undefined
    );
  }

  /** What assembly decided against the source `object` (hosts owned elsewhere, hidden routes), as problems. */
  assemblyProblemsOf(object: SourceRef): Problem[] {
    const key = sourceKey(object);
    return this.notes()
      .filter((note) => sourceKey(note.source) === key)
      .map((note) => problemOfNote(object, note));
  }

  /** Why a budget leaves the source `object` out, as its problem; undefined when it is served. */
  budgetProblemOf(object: SourceRef): Problem | undefined {
    const key = sourceKey(object);
    const paths = this.#pathBudget?.refusal(key);
    if (paths !== undefined) return { object, field: 'spec.rules', message: paths, severity: 'error' };
    const data = this.#dataBudget?.refusal(key);
    if (data === undefined) return undefined;
    return {
      object,
      field: 'spec',
      message: `${data}; the ${object.kind} is not served`,
      severity: 'error',
      code: 'namespace-dict-share',
    };
  }

  /**
   * What the table holds against the source `object`: a budget that leaves it out, the backends of
   * its routes that answer 503, routes of it that older sources hide, and what the data plane refused.
   */
  problemsOf(object: SourceRef): Problem[] {
    const key = sourceKey(object);
    const problems: Problem[] = [];
    const budget = this.budgetProblemOf(object);
    if (budget !== undefined) problems.push(budget);
    const contribution = this.#builder.contribution(key);
    pushBackendProblems(problems, object, contribution, this.#backends);
    problems.push(...this.assemblyProblemsOf(object));
    pushRefusalProblems(problems, object, key, contribution, this.#refusals);
    return problems;
  }

  /**
   * What host ownership decides against the source `object` naming `hostnames` (with the same
   * messages as problemsOf), wildcards that cover them included: as the table stands, or, given
   * `createdAt` (ms), as it would with this version of the object in it, whatever it holds of the
   * object now (what an admission webhook refuses).
   */
  hostOwnershipProblems(object: SourceRef, hostnames: Iterable<string>, createdAt?: number): Problem[] {
    const problems: Problem[] = [];
    const source = { kind: object.kind, namespace: object.namespace, name: object.name };
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
   * What the host limit would decide against `contribution` (a source not set yet counts as the
   * youngest), as the table stands: what an admission webhook refuses.
   */
  hostLimitProblems(contribution: RouteContribution): Problem[] {
    return this.#builder
      .previewHostLimit(contribution)
      .map((note) => problemOfNote(contribution.source, note));
  }
}
