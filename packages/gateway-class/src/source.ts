/**
 * The cluster as the GatewayClass controller reads it, and which classes a change in it affects.
 */
import { isOwnGatewayClass } from '@ingresskit/class-resolution';
import type { ParametersLookup } from './parameters.js';
import type { CustomResourceDefinition, Gateway, GatewayClassSummary } from './types.js';
import { GATEWAY_API_GROUP } from './versions.js';

/** One change seen by a {@link GatewayClassSource}. */
export interface GatewayClassSourceChange {
  /**
   * Kind of the changed object. `GatewayClass`, `Gateway`, `ConfigMap`, `IngressKitParameters` and
   * `CustomResourceDefinition` are acted on; other kinds are ignored.
   */
  kind: string;
  /** The object before the change (absent on add). */
  oldObject?: unknown;
  /** The object after the change (absent on delete). */
  newObject?: unknown;
}

/**
 * The read side the controller needs: a synced, in-memory view of the cluster plus change
 * notifications. Every method is a cheap synchronous read; `@ingresskit/store` satisfies it with a
 * few lines of glue, and tests can pass plain arrays.
 */
export interface GatewayClassSource {
  /** All GatewayClasses (the controller re-reads a class from the API server before writing it). */
  listGatewayClasses(): Iterable<GatewayClassSummary>;
  /** Gateways whose `spec.gatewayClassName` is `className` (deleting ones included). */
  listGatewaysForClass(className: string): Iterable<Gateway>;
  /** The ConfigMap or IngressKitParameters a parametersRef names, or undefined when absent. */
  getParametersObject: ParametersLookup;
  /** Installed CustomResourceDefinitions (at least the Gateway API ones). */
  listCustomResourceDefinitions(): Iterable<CustomResourceDefinition>;
  /** Registers a change listener; returns the function that unregisters it. */
  subscribe(listener: (change: GatewayClassSourceChange) => void): () => void;
  /** False while the initial list is incomplete; the controller then waits instead of deciding. */
  hasSynced?(): boolean;
}

interface NamedObject {
  metadata?: { name?: string; namespace?: string };
  spec?: { group?: string; gatewayClassName?: string };
}

function asNamed(object: unknown): NamedObject | undefined {
  return typeof object === 'object' && object !== null ? object : undefined;
}

function refersTo(parametersRef: unknown, kind: string, object: NamedObject): boolean {
  if (typeof parametersRef !== 'object' || parametersRef === null) return false;
  const ref = parametersRef as { kind?: unknown; name?: unknown; namespace?: unknown };
  if (ref.kind !== kind || ref.name !== object.metadata?.name) return false;
  return (ref.namespace || undefined) === (object.metadata?.namespace || undefined);
}

/**
 * Names of the GatewayClasses a change may affect: the class itself, the classes a Gateway moved
 * between, the classes whose parametersRef names a changed ConfigMap or IngressKitParameters, or every
 * class of `controllerName` when a Gateway API CRD changed. Sorted, without duplicates.
 */
export function listAffectedGatewayClasses(
  change: GatewayClassSourceChange,
  gatewayClasses: Iterable<GatewayClassSummary>,
  controllerName: string,
): string[] {
  const objects = [asNamed(change.oldObject), asNamed(change.newObject)].filter(
    (object): object is NamedObject => object !== undefined,
  );
  const names = new Set<string>();
  switch (change.kind) {
    case 'GatewayClass':
      for (const object of objects) if (object.metadata?.name) names.add(object.metadata.name);
      break;
    case 'Gateway':
      for (const object of objects)
        if (object.spec?.gatewayClassName) names.add(object.spec.gatewayClassName);
      break;
    case 'ConfigMap':
    case 'IngressKitParameters':
      for (const gatewayClass of gatewayClasses) {
        const name = gatewayClass.metadata?.name;
        if (!name || !isOwnGatewayClass(gatewayClass, controllerName)) continue;
        if (objects.some((object) => refersTo(gatewayClass.spec?.parametersRef, change.kind, object))) {
          names.add(name);
        }
      }
      break;
    case 'CustomResourceDefinition':
      if (!objects.some((object) => object.spec?.group === GATEWAY_API_GROUP)) break;
      for (const gatewayClass of gatewayClasses) {
        const name = gatewayClass.metadata?.name;
        if (name && isOwnGatewayClass(gatewayClass, controllerName)) names.add(name);
      }
      break;
    default:
      break;
  }
  return [...names].sort();
}
