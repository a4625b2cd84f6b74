/** Fixtures for the registry's unit tests: a registry on a fixed clock, sample objects and a recording watcher. */
import { ApiStatusError, type KubeStatus } from './errors.js';
import type { WatchSubscriber } from './fan-out.js';
import { parseObjectFilter } from './object-filter.js';
import type { KubeObject } from './objects.js';
import { Registry } from './registry.js';
import type { ResourceDefinition } from './resource-definition.js';

const clock = (): Date => new Date('2024-05-01T10:00:00.000Z');

/** A registry with a fixed clock (2024-05-01T10:00:00Z) keeping `historyLimit` events per resource. */
export function createRegistry(historyLimit = 100): Registry {
  return new Registry({ historyLimit, now: clock });
}

/** The served resource at `group/version/plural`; throws when there is none. */
export function requireResource(
  registry: Registry,
  group: string,
  version: string,
  plural: string,
): ResourceDefinition {
  const definition = registry.findResource(group, version, plural);
  if (!definition) throw new Error(`no ${plural}`);
  return definition;
}

/** The `Status` that `fn` fails with; throws when it does not fail with an `ApiStatusError`. */
export function catchStatus(fn: () => unknown): KubeStatus {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiStatusError) return error.status;
    throw error;
  }
  throw new Error('expected an ApiStatusError');
}

/** A minimal valid Ingress named `name`, with `extra` top-level fields. */
export function makeIngress(name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name },
    spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } },
    ...extra,
  };
}

/** A watch subscriber for `definition` that records each event as type, name and resourceVersion (END when ended). */
export function collect(
  definition: ResourceDefinition,
  registry: Registry,
  options: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
) {
  const events: { type: string; name: string; rv: string }[] = [];
  const subscriber: WatchSubscriber = {
    definition,
    filter: parseObjectFilter(definition, options.namespace, options.labelSelector, options.fieldSelector),
    write: (chunk) => {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue;
        const event = JSON.parse(line) as { type: string; object: KubeObject };
        events.push({
          type: event.type,
          name: event.object.metadata.name ?? '',
          rv: event.object.metadata.resourceVersion ?? '',
        });
      }
    },
    end: () => events.push({ type: 'END', name: '', rv: '' }),
  };
  return { events, subscriber };
}

/** A valid namespaced CustomResourceDefinition (IngressCheckSum) with a status subresource. */
export const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'ingresschecksums.tengine.taobao.org' },
  spec: {
    group: 'tengine.taobao.org',
    scope: 'Namespaced',
    names: {
      plural: 'ingresschecksums',
      singular: 'ingresschecksum',
      kind: 'IngressCheckSum',
      listKind: 'IngressCheckSumList',
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object' } },
      },
    ],
  },
};
