/** Which resources are served: definitions by group, version and plural, each backed by an open bucket. */
import type { ObjectStore } from './object-store.js';
import { formatApiVersion } from './objects.js';
import type { ResourceDefinition } from './resource-definition.js';

/** The served resources, built-ins first, then CRD versions in registration order. */
export class ResourceCatalog {
  private readonly resources = new Map<string, ResourceDefinition>();

  constructor(private readonly store: ObjectStore) {}

  /** Serves `definition` (replacing one at the same group/version/plural) and opens its storage. */
  register(definition: ResourceDefinition): void {
    this.resources.set(pathOf(definition), definition);
    this.store.openBucket(definition.storage, definition.namespaced);
  }

  /** Stops serving `definition`; its storage stays open for the other versions. */
  unregister(definition: ResourceDefinition): void {
    this.resources.delete(pathOf(definition));
  }

  /** The resource served at `group/version/plural`, if any. */
  find(group: string, version: string, plural: string): ResourceDefinition | undefined {
    return this.resources.get(`${group}/${version}/${plural}`);
  }

  /** The resource serving `kind` in `apiVersion`, if any. */
  findByKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    for (const definition of this.resources.values()) {
      if (definition.kind === kind && formatApiVersion(definition.group, definition.version) === apiVersion) {
        return definition;
      }
    }
    return undefined;
  }

  /** The resource at `group/version/plural`; throws a plain Error, as only built-ins are required. */
  require(group: string, version: string, plural: string): ResourceDefinition {
    const definition = this.find(group, version, plural);
    if (!definition) throw new Error(`built-in resource ${group}/${version}/${plural} is missing`);
    return definition;
  }

  /** Every served resource, built-ins first, in registration order. */
  list(): ResourceDefinition[] {
    return [...this.resources.values()];
  }

  /** The served versions kept in `storage`. */
  listOfStorage(storage: string): ResourceDefinition[] {
    return this.list().filter((definition) => definition.storage === storage);
  }
}

function pathOf(definition: ResourceDefinition): string {
  return `${definition.group}/${definition.version}/${definition.plural}`;
}
