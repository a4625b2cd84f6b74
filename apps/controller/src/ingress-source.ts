/**
 * Ingresses as a contribution source of the route table: which Ingresses a store change affects,
 * who owns each (class resolution, injected as a function), what it contributes (ingress-routes,
 * cached per object version), and its problems. The table does backends, budgets and ownership.
 */
import type { ClassDecision } from '@ingresskit/class-resolution';
import {
  countIngressPaths,
  type IngressTranslation,
  type IngressTranslator,
} from '@ingresskit/ingress-routes';
import { objectKey, splitObjectKey } from '@ingresskit/kube-objects';
import { sourceKey, type Problem, type SourceRef } from '@ingresskit/route-model';
import type {
  ContributionSink,
  ContributionSource,
  SourceEntry,
  SourceProblems,
} from '@ingresskit/route-table';
import type { Ingress } from '@ingresskit/store';
import type { ClusterView } from './cluster-view.js';
import type { IngressVerdict } from './ingress-verdict.js';
import { isStatusOnlyChange, type StoreChange } from './store-change.js';

/** The Ingress `namespace/name` as a route-model source. */
export function ingressSourceOf(key: string): SourceRef {
  const { namespace = '', name } = splitObjectKey(key);
  return { kind: 'Ingress', namespace, name };
}

/** When an Ingress was created, in ms (0 when unknown: it then counts as the oldest). */
function creationMillis(ingress: Ingress): number {
  const created: unknown = ingress.metadata?.creationTimestamp;
  const millis = created instanceof Date ? created.getTime() : Date.parse(String(created));
  return Number.isFinite(millis) ? millis : 0;
}

/** Ingresses by key (`namespace/name`): decided, translated and handed to the route table. */
export class IngressSource implements ContributionSource<ClusterView, StoreChange> {
  readonly #decide: (ingress: Ingress) => ClassDecision;
  #translator: IngressTranslator;
  readonly #verdicts = new Map<string, IngressVerdict>();
  /** Translations of the owned Ingresses, by `namespace/name`. */
  readonly #translations = new Map<string, IngressTranslation>();
  /** The owned Ingresses whose translation read each ConfigMap (auth-proxy-set-headers, custom-headers), by its key. */
  readonly #configMapReaders = new Map<string, Set<string>>();
  /** Ingresses whose verdict or problems may have changed since the last `takeAffected`. */
  #affected = new Set<string>();

  /** `decide` is class resolution as it stands; `translator` translates owned Ingresses. */
  constructor(decide: (ingress: Ingress) => ClassDecision, translator: IngressTranslator) {
    this.#decide = decide;
    this.#translator = translator;
  }

  /**
   * Translates with `translator` from now on (other defaults, other address policy); translations
   * made by the old one are replaced as each Ingress is updated again.
   */
  setTranslator(translator: IngressTranslator): void {
    this.#translator = translator;
  }

  /**
   * The Ingresses a store change affects: the Ingress itself (not a status write), the Ingresses
   * that reference a Secret, those whose translation read a ConfigMap.
   */
  keysOf({ event, snapshot }: StoreChange): string[] {
    switch (event.kind) {
      case 'Ingress':
        // Status writes (ours, from the leader) change nothing that is served.
        if (event.type === 'updated' && isStatusOnlyChange(event.oldObject, event.newObject)) return [];
        return [event.key];
      case 'Secret':
        return snapshot.ingressesForSecret(event.key).map((ingress) => objectKey(ingress));
      case 'ConfigMap':
        return [...(this.#configMapReaders.get(event.key) ?? [])];
      default:
        return [];
    }
  }

  /** Decides and translates the Ingresses with these keys again, as `view` has them now. */
  update(view: ClusterView, keys: Iterable<string>, table: ContributionSink<ClusterView>): void {
    const entries: SourceEntry[] = [];
    // A key named twice (the first sync gets every Ingress as a change and as all Ingresses) is
    // worked on once.
    for (const key of new Set(keys)) {
      this.#affected.add(key);
      const ingress = view.ingress(key);
      if (ingress === undefined) {
        this.#verdicts.delete(key);
        this.#forget(view, key, table);
        continue;
      }
      const decision = this.#decide(ingress);
      this.#verdicts.set(key, { key, ingress, decision });
      if (!decision.owned) {
        this.#forget(view, key, table);
        continue;
      }
      const translation = this.#translator.translate(ingress, {
        secret: (namespace, name) => view.secret(`${namespace}/${name}`),
        configMap: (namespace, name) => view.configMap(`${namespace}/${name}`),
      });
      const previous = this.#translations.get(key);
      this.#indexConfigMaps(key, previous, translation);
      this.#translations.set(key, translation);
      entries.push({
        source: ingressSourceOf(key),
        contribution: translation.contribution,
        isNewVersion: previous !== translation,
        paths: translation.contribution === undefined ? 0 : countIngressPaths(ingress.spec),
        createdAt: creationMillis(ingress),
      });
    }
    table.update(view, entries);
  }

  /**
   * Everything wrong with an owned Ingress: its translation problems, then what the table holds
   * against it (budgets, backends that answer 503, routes older Ingresses hide, refusals).
   */
  problemsOf(key: string, table: SourceProblems): Problem[] {
    const translation = this.#translations.get(key);
    if (translation === undefined) return [];
    return [...translation.problems, ...table.problemsOf(ingressSourceOf(key))];
  }

  /** Ingresses whose verdict or problems may have changed since the last call. */
  takeAffected(): Set<string> {
    const affected = this.#affected;
    this.#affected = new Set();
    return affected;
  }

  /** Marks an Ingress as affected (the table changed its problems). */
  markAffected(key: string): void {
    this.#affected.add(key);
  }

  /** The class decision of an Ingress. */
  verdict(key: string): IngressVerdict | undefined {
    return this.#verdicts.get(key);
  }

  /** Every class decision, owned and ignored. */
  verdicts(): IterableIterator<IngressVerdict> {
    return this.#verdicts.values();
  }

  /** `namespace/name` of the owned Ingresses whose translation read the ConfigMap `key`. */
  ingressesReadingConfigMap(key: string): string[] {
    return [...(this.#configMapReaders.get(key) ?? [])];
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

  /** Forgets an Ingress that is gone or not ours, and withdraws it from the table. */
  #forget(view: ClusterView, key: string, table: ContributionSink<ClusterView>): void {
    this.#indexConfigMaps(key, this.#translations.get(key), undefined);
    this.#translations.delete(key);
    this.#translator.forget(key);
    table.withdraw(view, sourceKey(ingressSourceOf(key)));
  }
}
