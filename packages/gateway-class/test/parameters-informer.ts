// @ingresskit/store does not mirror IngressKitParameters, so the tests watch that one kind with a
// plain client-node informer, as an application that uses the kind would.
import {
  CustomObjectsApi,
  makeInformer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { GatewayClassSourceChange } from '../src/index.js';

/** A cache of IngressKitParameters objects by name, with change notifications. */
export interface ParametersInformer {
  start(): Promise<void>;
  stop(): Promise<void>;
  get(name: string): unknown;
  subscribe(listener: (change: GatewayClassSourceChange) => void): () => void;
}

export function createParametersInformer(kubeConfig: KubeConfig): ParametersInformer {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  const resource = { group: 'ingresskit.dev', version: 'v1alpha1', plural: 'ingresskitparameters' };
  const informer = makeInformer(
    kubeConfig,
    `/apis/${resource.group}/${resource.version}/${resource.plural}`,
    async () => (await api.listClusterCustomObject(resource)) as KubernetesListObject<KubernetesObject>,
  );
  const byName = new Map<string, unknown>();
  const listeners = new Set<(change: GatewayClassSourceChange) => void>();
  const notify = (oldObject: unknown, newObject: unknown): void => {
    for (const listener of listeners) listener({ kind: 'IngressKitParameters', oldObject, newObject });
  };
  const upsert = (object: KubernetesObject): void => {
    const name = object.metadata?.name ?? '';
    const oldObject = byName.get(name);
    // Listed objects and watched objects differ in shape (client-node issue #655); JSON evens them out.
    const newObject: unknown = JSON.parse(JSON.stringify(object));
    byName.set(name, newObject);
    notify(oldObject, newObject);
  };
  informer.on('add', upsert);
  informer.on('update', upsert);
  informer.on('delete', (object) => {
    const name = object.metadata?.name ?? '';
    const oldObject = byName.get(name);
    byName.delete(name);
    notify(oldObject, undefined);
  });
  return {
    start: () => informer.start(),
    // stop() makes the informer emit an AbortError; nothing listens for errors to restart it here.
    stop: () => informer.stop(),
    get: (name) => byName.get(name),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
