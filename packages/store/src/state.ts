/**
 * The store's state and its rules, without I/O: each change applied as one unit, with the events
 * and Secret reads it causes.
 */
import { objectKey, splitObjectKey } from '@ingresskit/kube-objects';
import { NamespaceFilter } from './namespace-filter.js';
import type {
  EndpointSlice,
  Gateway,
  GatewayClass,
  Ingress,
  IngressClass,
  KubeObject,
  ObjectsByKind,
  Secret,
} from './objects.js';
import type { LabelRequirement } from '@ingresskit/kube-objects';
import { type EditToken, PersistentMap } from './persistent-map.js';
import {
  defaultSecretAnnotations,
  extractGatewaySecrets,
  extractIngressReferences,
  gatewayClassOfGateway,
  ingressClassOfIngress,
  type IngressReferences,
  serviceKeyOfEndpointSlice,
} from './references.js';
import { allKinds, type ResourceKind } from './resources.js';
import { addMember, hasMember, memberKeys, removeMember, type ReverseIndex } from './reverse-index.js';
import { isSecretWithoutData, measureSecretData } from './secret-data.js';
import { createSnapshot, ObjectMapView, type StoreSnapshot } from './snapshot.js';

/** What happened to an object. */
export type ChangeType = 'added' | 'updated' | 'deleted';

/** One change of one object: `added` has only `newObject`, `deleted` only `oldObject`, `updated` both. */
export type ChangeEvent = {
  [K in ResourceKind]: {
    readonly kind: K;
    readonly type: ChangeType;
    readonly key: string;
    readonly oldObject?: ObjectsByKind[K];
    readonly newObject?: ObjectsByKind[K];
  };
}[ResourceKind];

/** A Secret the state wants read from the API server because it just became referenced. */
export interface SecretFetchRequest {
  readonly key: string;
  /** Identifies this request; a later event for the same Secret makes it obsolete. */
  readonly token: number;
}

/** A class that decides who owns an Ingress or a Gateway, tagged with its kind. */
export type OwnerClass =
  | { readonly kind: 'IngressClass'; readonly object: IngressClass }
  | { readonly kind: 'GatewayClass'; readonly object: GatewayClass };

/** What the store holds of the Secrets it has seen. */
export interface SecretStats {
  /** Secrets held whole (referenced, or kept on request). */
  readonly held: number;
  /** The characters of data those hold (the length of their base64 values). */
  readonly heldDataChars: number;
  /** Secrets known by key and resourceVersion only: nothing references them. */
  readonly notHeld: number;
}

/** Policy of the in-memory state. */
export interface StoreStateOptions {
  /** Whether Secrets are mirrored at all; when false no fetch is ever requested. */
  readonly watchesSecrets?: boolean;
  /** Annotations whose value names a Secret an Ingress references. */
  readonly secretAnnotations?: readonly string[];
  /** Keep every Secret, not only referenced ones. */
  readonly keepAllSecrets?: boolean;
  /**
   * Whether an IngressClass or GatewayClass belongs to another controller: the Secrets of an
   * Ingress or Gateway naming such a class (`spec.ingressClassName`, `spec.gatewayClassName`) are
   * not kept for it. Its controller field is immutable, so only the class appearing or going away
   * changes the answer. Unset: every class may be this controller's.
   */
  readonly isForeignClass?: (ownerClass: OwnerClass) => boolean;
  /** Keys of Secrets kept whatever their type (e.g. a default certificate). */
  readonly keepSecrets?: readonly string[];
  /** Keep objects of `namespaceSelector.kinds` only while their Namespace's labels match `requirements`. */
  readonly namespaceSelector?: {
    readonly requirements: readonly LabelRequirement[];
    readonly kinds: ReadonlySet<ResourceKind>;
  };
}

const noReferences: IngressReferences = { secrets: [], services: [], ingressClasses: [] };

/**
 * The store's in-memory state: one persistent map per kind, the reverse indexes, and the Secret
 * retention policy. Every method is synchronous and records the change events it causes, so a
 * relist or a cascade (an Ingress dropping the last reference to a Secret) is applied as one unit.
 * No I/O: the caller drains events and Secret fetch requests after each call.
 */
export class StoreState {
  private edit: EditToken = {};
  private version = 0;
  private readonly objects = new Map<ResourceKind, PersistentMap<KubeObject>>();
  private slicesByService: ReverseIndex<EndpointSlice> = PersistentMap.empty();
  private ingressesBySecret: ReverseIndex<true> = PersistentMap.empty();
  private ingressesByService: ReverseIndex<true> = PersistentMap.empty();
  private ingressesByClass: ReverseIndex<true> = PersistentMap.empty();
  private gatewaysByClass: ReverseIndex<true> = PersistentMap.empty();
  /** Not in snapshots: which Secrets the Gateways' listeners name, for the Secrets kept. */
  private gatewaysBySecret: ReverseIndex<true> = PersistentMap.empty();
  private heldSecretChars = 0;
  private available: ReadonlySet<ResourceKind> = new Set();
  /** Secrets seen but not kept: key → resourceVersion, so a new reference knows there is something to read. */
  private readonly secretShadow = new Map<string, string>();
  private readonly secretFetches = new Map<string, number>();
  private nextFetchToken = 1;
  private fetchRequests: SecretFetchRequest[] = [];
  private events: ChangeEvent[] = [];
  private readonly views = new Map<ResourceKind, ObjectMapView<KubeObject>>();
  private cachedSnapshot: StoreSnapshot | undefined;
  private readonly secretAnnotations: readonly string[];
  private readonly keepSecrets: ReadonlySet<string>;
  /** Secrets kept on request while the store runs (setKeptSecrets), whatever their type. */
  private requestedSecrets: ReadonlySet<string> = new Set();
  private readonly namespaceFilter: NamespaceFilter | undefined;

  constructor(private readonly options: StoreStateOptions = {}) {
    this.secretAnnotations = options.secretAnnotations ?? defaultSecretAnnotations;
    this.keepSecrets = new Set(options.keepSecrets ?? []);
    const selector = options.namespaceSelector;
    this.namespaceFilter = selector && new NamespaceFilter(selector.requirements, selector.kinds);
  }

  /**
   * Adds or updates an object; an unchanged resourceVersion is not a change. An object of a
   * namespace the selector does not match is held back instead (and leaves the snapshot if it was in).
   */
  upsert(kind: ResourceKind, object: KubeObject): void {
    const namespace = object.metadata.namespace;
    if (this.namespaceFilter?.isFiltered(kind) && namespace) {
      if (this.namespaceFilter.isHidden(kind, namespace)) {
        this.holdBack(kind, namespace, object);
        return;
      }
      this.namespaceFilter.forget(kind, namespace, objectKey(object));
    }
    if (kind === 'Secret') this.upsertSecret(object);
    else this.put(kind, object);
  }

  /** Removes the object with the key of `object`, if present. */
  remove(kind: ResourceKind, object: KubeObject): void {
    const key = objectKey(object);
    const namespace = object.metadata.namespace;
    if (namespace) this.namespaceFilter?.forget(kind, namespace, key);
    if (kind === 'Secret') {
      this.secretFetches.delete(key);
      this.secretShadow.delete(key);
    }
    this.drop(kind, key);
  }

  /**
   * Replaces everything of `kind` in `namespace` (all namespaces when undefined) with `objects`,
   * a complete list: objects that vanished are deleted, new ones added, changed ones updated.
   */
  replace(kind: ResourceKind, objects: readonly KubeObject[], namespace?: string): void {
    const incoming = new Set<string>();
    for (const object of objects) incoming.add(objectKey(object));
    const inScope = (key: string) => namespace === undefined || splitObjectKey(key).namespace === namespace;
    const vanished = [...this.mapOf(kind).keys()].filter((key) => inScope(key) && !incoming.has(key));
    for (const key of vanished) this.drop(kind, key);
    for (const key of this.namespaceFilter?.heldKeys(kind, namespace) ?? []) {
      if (!incoming.has(key)) this.namespaceFilter?.forget(kind, splitObjectKey(key).namespace ?? '', key);
    }
    if (kind === 'Secret') {
      for (const key of [...this.secretShadow.keys()]) {
        if (inScope(key) && !incoming.has(key)) this.secretShadow.delete(key);
      }
      // A complete list supersedes every pending read in its scope.
      for (const key of [...this.secretFetches.keys()]) if (inScope(key)) this.secretFetches.delete(key);
    }
    for (const object of objects) this.upsert(kind, object);
  }

  /** Deletes every object of `kind` (its CRD went away or it stopped being watched). */
  clear(kind: ResourceKind): void {
    this.replace(kind, []);
  }

  /** Marks `kind` as mirrored or not; shows in snapshots. */
  setAvailable(kind: ResourceKind, available: boolean): void {
    if (this.available.has(kind) === available) return;
    const next = new Set(this.available);
    if (available) next.add(kind);
    else next.delete(kind);
    this.available = next;
    this.version += 1;
  }

  /**
   * Keeps the Secrets `keys` (`namespace/name`) whatever their type, as `keepSecrets` does, in
   * place of those of the last call: one seen but not kept is read again, one no longer asked for
   * is dropped unless kept for another reason. Returns the keys of `keys` being read: each
   * arrives as a change event (unless it was deleted meanwhile).
   */
  setKeptSecrets(keys: readonly string[]): string[] {
    const before = this.requestedSecrets;
    const after = new Set(keys);
    this.requestedSecrets = after;
    for (const key of new Set([...before, ...after])) {
      if (before.has(key) !== after.has(key)) this.reconsiderSecret(key);
    }
    return [...after].filter((key) => this.secretFetches.has(key));
  }

  /**
   * Whether the data of the Secret `key` is wanted: an Ingress or Gateway that may be this
   * controller's references it, or it is kept on request. A Secret read while it is not is shaped
   * without its data (secret-data.ts) and read whole when that changes.
   */
  isSecretWanted(key: string): boolean {
    return this.isKeptUnreferenced(key) || this.isSecretReferenced(key);
  }

  /** What is held of the Secrets seen: whole ones and their data, and those known by key only. */
  secretStats(): SecretStats {
    return {
      held: this.mapOf('Secret').size,
      heldDataChars: this.heldSecretChars,
      notHeld: this.secretShadow.size,
    };
  }

  /** The Secrets of `namespace` the state knows, held or not. */
  countSecretsIn(namespace: string): number {
    const prefix = `${namespace}/`;
    let count = 0;
    for (const key of this.secretShadow.keys()) if (key.startsWith(prefix)) count += 1;
    for (const key of this.mapOf('Secret').keys())
      if (key.startsWith(prefix) && !this.secretShadow.has(key)) count += 1;
    return count;
  }

  /** Whether a Secret read requested with `token` is still wanted. */
  isFetchWanted(request: SecretFetchRequest): boolean {
    return this.secretFetches.get(request.key) === request.token;
  }

  /** Applies the result of a Secret read: the Secret, or undefined when it no longer exists. */
  applyFetchedSecret(request: SecretFetchRequest, secret: Secret | undefined): void {
    if (!this.isFetchWanted(request)) return;
    this.secretFetches.delete(request.key);
    if (secret === undefined) this.secretShadow.delete(request.key);
    else this.upsert('Secret', secret);
  }

  /** The change events recorded since the last call, in order. */
  takeEvents(): ChangeEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /** The Secret reads requested since the last call. */
  takeFetchRequests(): SecretFetchRequest[] {
    const requests = this.fetchRequests;
    this.fetchRequests = [];
    return requests;
  }

  /** The current version: it increases with every change. */
  get currentVersion(): number {
    return this.version;
  }

  /** A frozen view of the current state; the same object until something changes. */
  snapshot(): StoreSnapshot {
    if (this.cachedSnapshot?.version === this.version) return this.cachedSnapshot;
    // Retire the edit token: every node reachable from this snapshot is now copy-on-write.
    this.edit = {};
    const views = new Map(allKinds.map((kind) => [kind, this.viewOf(kind)]));
    this.cachedSnapshot = createSnapshot({
      version: this.version,
      availableKinds: this.available,
      objects: (kind) => views.get(kind) ?? new ObjectMapView(PersistentMap.empty<KubeObject>()),
      slicesByService: this.slicesByService,
      ingressesBySecret: this.ingressesBySecret,
      ingressesByService: this.ingressesByService,
      ingressesByClass: this.ingressesByClass,
      gatewaysByClass: this.gatewaysByClass,
    });
    return this.cachedSnapshot;
  }

  private viewOf(kind: ResourceKind): ObjectMapView<KubeObject> {
    const map = this.mapOf(kind);
    const view = this.views.get(kind);
    if (view?.map === map) return view;
    const created = new ObjectMapView(map);
    this.views.set(kind, created);
    return created;
  }

  private mapOf(kind: ResourceKind): PersistentMap<KubeObject> {
    return this.objects.get(kind) ?? PersistentMap.empty<KubeObject>();
  }

  private put(kind: ResourceKind, object: KubeObject): void {
    const key = objectKey(object);
    const map = this.mapOf(kind);
    const old = map.get(key);
    if (old !== undefined && isSameVersion(old, object)) return;
    this.objects.set(kind, map.set(key, object, this.edit));
    this.record(
      old === undefined
        ? { kind, type: 'added', key, newObject: object }
        : { kind, type: 'updated', key, oldObject: old, newObject: object },
    );
    if (kind === 'Secret') {
      this.heldSecretChars += measureSecretData(object) - (old === undefined ? 0 : measureSecretData(old));
    }
    this.reindex(kind, key, old, object);
    if (kind === 'Namespace') this.reconsiderNamespace(key, object);
  }

  private drop(kind: ResourceKind, key: string): void {
    const map = this.mapOf(kind);
    const old = map.get(key);
    if (old === undefined) return;
    this.objects.set(kind, map.delete(key, this.edit));
    this.record({ kind, type: 'deleted', key, oldObject: old });
    if (kind === 'Secret') this.heldSecretChars -= measureSecretData(old);
    this.reindex(kind, key, old, undefined);
    if (kind === 'Namespace') this.reconsiderNamespace(key, undefined);
  }

  /** Keeps `object` out of the snapshot until its namespace matches the selector. */
  private holdBack(kind: ResourceKind, namespace: string, object: KubeObject): void {
    const key = objectKey(object);
    this.drop(kind, key);
    if (kind === 'Secret') {
      this.secretFetches.delete(key);
      // Only the version of a Secret that would not be kept on its own: read again if referenced.
      if (!this.isKeptUnreferenced(key)) {
        this.secretShadow.set(key, object.metadata.resourceVersion);
        return;
      }
      this.secretShadow.delete(key);
    }
    this.namespaceFilter?.hold(kind, namespace, key, object);
  }

  /** A Namespace appeared, changed or went away: its objects enter or leave the snapshot. */
  private reconsiderNamespace(name: string, namespace: KubeObject | undefined): void {
    const filter = this.namespaceFilter;
    if (filter === undefined) return;
    const labels = namespace === undefined ? undefined : (namespace.metadata.labels ?? {});
    const transition = filter.updateNamespace(name, labels);
    if (transition === 'started-matching') {
      for (const [kind, object] of filter.release(name)) this.upsert(kind, object);
    } else if (transition === 'stopped-matching') {
      for (const kind of allKinds) {
        if (!filter.isFiltered(kind)) continue;
        const map = this.mapOf(kind);
        for (const key of [...map.keys()]) {
          const object = map.get(key);
          if (object !== undefined && splitObjectKey(key).namespace === name)
            this.holdBack(kind, name, object);
        }
      }
    }
  }

  private record(event: {
    kind: ResourceKind;
    type: ChangeType;
    key: string;
    oldObject?: KubeObject;
    newObject?: KubeObject;
  }) {
    this.version += 1;
    this.events.push(event as ChangeEvent);
  }

  private reindex(
    kind: ResourceKind,
    key: string,
    old: KubeObject | undefined,
    next: KubeObject | undefined,
  ): void {
    if (kind === 'Ingress') this.reindexIngress(key, old, next);
    else if (kind === 'EndpointSlice')
      this.reindexSlice(key, old as EndpointSlice | undefined, next as EndpointSlice | undefined);
    else if (kind === 'Gateway') this.reindexGateway(key, old, next);
    else if (kind === 'IngressClass' || kind === 'GatewayClass') this.reindexClass(kind, key, old, next);
  }

  /**
   * A class that becomes another controller's (it appears) or stops being one (it goes away): the
   * Secrets of the Ingresses or Gateways naming it are kept again, or let go.
   */
  private reindexClass(
    kind: 'IngressClass' | 'GatewayClass',
    name: string,
    old: KubeObject | undefined,
    next: KubeObject | undefined,
  ): void {
    if (this.options.isForeignClass === undefined) return;
    const isForeign = (ownerClass: KubeObject | undefined) =>
      ownerClass !== undefined && this.isForeignClass(kind, ownerClass);
    if (isForeign(old) === isForeign(next)) return;
    const secrets = new Set<string>();
    if (kind === 'IngressClass') {
      for (const ingress of memberKeys(this.ingressesByClass.get(name)))
        for (const secret of this.ingressSecrets(ingress)) secrets.add(secret);
    } else {
      for (const gateway of memberKeys(this.gatewaysByClass.get(name)))
        for (const secret of this.gatewaySecrets(gateway)) secrets.add(secret);
    }
    for (const secret of secrets) this.reconsiderSecret(secret);
  }

  private reindexGateway(key: string, old: Gateway | undefined, next: Gateway | undefined): void {
    const before = old === undefined ? [] : listDefined(gatewayClassOfGateway(old));
    const after = next === undefined ? [] : listDefined(gatewayClassOfGateway(next));
    this.gatewaysByClass = updateIndex(this.gatewaysByClass, key, before, after, this.edit);
    const secretsBefore = old === undefined ? [] : extractGatewaySecrets(old);
    const secretsAfter = next === undefined ? [] : extractGatewaySecrets(next);
    this.gatewaysBySecret = updateIndex(this.gatewaysBySecret, key, secretsBefore, secretsAfter, this.edit);
    if (!sameList(secretsBefore, secretsAfter) || !sameList(before, after)) {
      for (const secretKey of new Set([...secretsBefore, ...secretsAfter])) this.reconsiderSecret(secretKey);
    }
  }

  private ingressSecrets(key: string): readonly string[] {
    const ingress = this.mapOf('Ingress').get(key);
    return ingress === undefined ? [] : extractIngressReferences(ingress, this.secretAnnotations).secrets;
  }

  private gatewaySecrets(key: string): readonly string[] {
    const gateway = this.mapOf('Gateway').get(key);
    return gateway === undefined ? [] : extractGatewaySecrets(gateway);
  }

  private reindexIngress(key: string, old: Ingress | undefined, next: Ingress | undefined): void {
    const before = old === undefined ? noReferences : extractIngressReferences(old, this.secretAnnotations);
    const after = next === undefined ? noReferences : extractIngressReferences(next, this.secretAnnotations);
    this.ingressesBySecret = updateIndex(
      this.ingressesBySecret,
      key,
      before.secrets,
      after.secrets,
      this.edit,
    );
    this.ingressesByService = updateIndex(
      this.ingressesByService,
      key,
      before.services,
      after.services,
      this.edit,
    );
    this.ingressesByClass = updateIndex(
      this.ingressesByClass,
      key,
      before.ingressClasses,
      after.ingressClasses,
      this.edit,
    );
    const classBefore = old === undefined ? undefined : ingressClassOfIngress(old);
    const classAfter = next === undefined ? undefined : ingressClassOfIngress(next);
    if (!sameList(before.secrets, after.secrets) || classBefore !== classAfter) {
      for (const secretKey of new Set([...before.secrets, ...after.secrets]))
        this.reconsiderSecret(secretKey);
    }
  }

  private reindexSlice(key: string, old: EndpointSlice | undefined, next: EndpointSlice | undefined): void {
    const before = old === undefined ? undefined : serviceKeyOfEndpointSlice(old);
    const after = next === undefined ? undefined : serviceKeyOfEndpointSlice(next);
    if (before !== undefined && before !== after) {
      this.slicesByService = removeMember(this.slicesByService, before, key, this.edit);
    }
    if (after !== undefined && next !== undefined) {
      this.slicesByService = addMember(this.slicesByService, after, key, next, this.edit);
    }
  }

  /** Whether a Secret is kept whether or not anything references it. */
  private isKeptUnreferenced(key: string): boolean {
    return (
      this.options.keepAllSecrets === true || this.keepSecrets.has(key) || this.requestedSecrets.has(key)
    );
  }

  /**
   * Whether an Ingress or a Gateway references the Secret `key` that is, or may become, this
   * controller's: one naming a class of another controller does not count (a class that does not
   * exist yet, or no class at all, may still be ours).
   */
  private isSecretReferenced(key: string): boolean {
    return (
      hasMember(this.ingressesBySecret.get(key), (ingress) => this.mayOwn('Ingress', ingress)) ||
      hasMember(this.gatewaysBySecret.get(key), (gateway) => this.mayOwn('Gateway', gateway))
    );
  }

  private mayOwn(kind: 'Ingress' | 'Gateway', key: string): boolean {
    if (this.options.isForeignClass === undefined) return true;
    const referrer = this.mapOf(kind).get(key);
    if (referrer === undefined) return false;
    const [classKind, className] =
      kind === 'Ingress'
        ? (['IngressClass', ingressClassOfIngress(referrer)] as const)
        : (['GatewayClass', gatewayClassOfGateway(referrer)] as const);
    const ownerClass = className === undefined ? undefined : this.mapOf(classKind).get(className);
    return ownerClass === undefined || !this.isForeignClass(classKind, ownerClass);
  }

  private isForeignClass(kind: 'IngressClass' | 'GatewayClass', object: KubeObject): boolean {
    return this.options.isForeignClass?.({ kind, object }) === true;
  }

  private upsertSecret(secret: Secret): void {
    const key = objectKey(secret);
    // Anything newer than a pending read makes that read obsolete (it may predate this event).
    this.secretFetches.delete(key);
    if (!this.isSecretWanted(key)) {
      this.secretShadow.set(key, secret.metadata.resourceVersion);
      this.drop('Secret', key);
    } else if (isSecretWithoutData(secret)) {
      // Wanted now, but shaped while it was not (a reference came in between): read it whole. A
      // version held before keeps serving until then.
      const held = this.mapOf('Secret').get(key);
      if (held !== undefined && isSameVersion(held, secret)) return;
      this.secretShadow.set(key, secret.metadata.resourceVersion);
      this.requestFetch(key);
    } else {
      this.secretShadow.delete(key);
      this.put('Secret', secret);
    }
  }

  private requestFetch(key: string): void {
    const token = this.nextFetchToken++;
    this.secretFetches.set(key, token);
    this.fetchRequests.push({ key, token });
  }

  /** Called when the set of Ingresses referencing `key` (or setKeptSecrets) may have changed. */
  private reconsiderSecret(key: string): void {
    if (this.options.watchesSecrets === false) return;
    const wanted = this.isSecretWanted(key);
    const kept = this.mapOf('Secret').get(key);
    if (kept !== undefined) {
      if (!wanted) {
        this.drop('Secret', key);
        this.secretShadow.set(key, kept.metadata.resourceVersion);
        this.secretFetches.delete(key);
      }
      return;
    }
    if (!wanted) this.secretFetches.delete(key);
    else if (this.secretShadow.has(key) && !this.secretFetches.has(key)) this.requestFetch(key);
  }
}

function isSameVersion(a: KubeObject, b: KubeObject): boolean {
  const version = a.metadata.resourceVersion;
  return version !== '' && version === b.metadata.resourceVersion;
}

function listDefined(value: string | undefined): readonly string[] {
  return value === undefined ? [] : [value];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

function updateIndex(
  index: ReverseIndex<true>,
  member: string,
  before: readonly string[],
  after: readonly string[],
  edit: EditToken,
): ReverseIndex<true> {
  if (sameList(before, after)) return index;
  let result = index;
  for (const target of before)
    if (!after.includes(target)) result = removeMember(result, target, member, edit);
  for (const target of after)
    if (!before.includes(target)) result = addMember(result, target, member, true, edit);
  return result;
}
