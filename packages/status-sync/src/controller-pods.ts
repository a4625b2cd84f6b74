/**
 * The controller's replicas, found through its own pod's labels: which serve, which are live, and
 * the nodes they run on.
 */
import type { V1Node, V1Pod, V1PodList, V1Service } from '@kubernetes/client-node';
import { statusCodeOf } from './api-errors.js';
import { AddressResolutionError } from './errors.js';

/** The core/v1 reads this package makes; `CoreV1Api` from @kubernetes/client-node satisfies it. */
export interface CoreApi {
  readNamespacedService(param: { name: string; namespace: string }): Promise<V1Service>;
  readNamespacedPod(param: { name: string; namespace: string }): Promise<V1Pod>;
  listNamespacedPod(param: { namespace: string; labelSelector?: string }): Promise<V1PodList>;
  readNode(param: { name: string }): Promise<V1Node>;
}

/** The pod this controller runs in (from the downward API); its labels find the sibling replicas. */
export interface ControllerPod {
  namespace: string;
  name: string;
  /** The pod's labels; read from the pod itself when omitted. */
  labels?: Readonly<Record<string, string>>;
}

// Labels that differ between revisions of the same Deployment/DaemonSet/StatefulSet; ingress-nginx
// drops the same three so pods of an old and a new revision count as one controller.
const revisionLabels = new Set(['pod-template-hash', 'controller-revision-hash', 'pod-template-generation']);

/** The label selector (`k=v,…`) that matches every replica of the controller, any revision. */
export async function controllerPodSelector(pod: ControllerPod, core: CoreApi): Promise<string> {
  const labels = pod.labels ?? (await readOwnLabels(pod, core));
  const terms = Object.entries(labels)
    .filter(([key]) => !revisionLabels.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`);
  if (terms.length === 0) {
    // An empty selector would match every pod in the namespace.
    throw new AddressResolutionError(
      `pod ${pod.namespace}/${pod.name} has no labels besides revision hashes to find its replicas by`,
    );
  }
  return terms.join(',');
}

/** Lists the controller's replicas (all revisions, any phase) in its namespace. */
export async function listControllerPods(pod: ControllerPod, core: CoreApi): Promise<V1Pod[]> {
  const labelSelector = await controllerPodSelector(pod, core);
  try {
    const list = await core.listNamespacedPod({ namespace: pod.namespace, labelSelector });
    return list.items;
  } catch (error) {
    throw new AddressResolutionError(`listing pods ${labelSelector} in ${pod.namespace} failed`, {
      cause: error,
    });
  }
}

/** True for a pod that is Running, Ready and not being deleted: one that serves traffic now. */
export function isServingPod(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) return false;
  if (pod.status?.phase !== 'Running') return false;
  return (pod.status.conditions ?? []).some(
    (condition) => condition.type === 'Ready' && condition.status === 'True',
  );
}

/**
 * True for a pod that is, or is about to be, a live replica: not being deleted and not finished.
 * Pending and not-yet-Ready pods count, because they will publish the status once they lead.
 */
export function isLiveReplica(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) return false;
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** Names of the controller's other live replicas (see {@link isLiveReplica}), sorted. */
export async function findOtherReplicas(pod: ControllerPod, core: CoreApi): Promise<string[]> {
  const pods = await listControllerPods(pod, core);
  return pods
    .filter((candidate) => candidate.metadata?.name !== pod.name && isLiveReplica(candidate))
    .map((candidate) => candidate.metadata?.name ?? '')
    .sort();
}

/** Reads a node, or undefined when it no longer exists. */
export async function readNodeIfExists(name: string, core: CoreApi): Promise<V1Node | undefined> {
  try {
    return await core.readNode({ name });
  } catch (error) {
    if (statusCodeOf(error) === 404) return undefined;
    throw new AddressResolutionError(`reading node ${name} failed`, { cause: error });
  }
}

async function readOwnLabels(pod: ControllerPod, core: CoreApi): Promise<Record<string, string>> {
  try {
    const self = await core.readNamespacedPod({ name: pod.name, namespace: pod.namespace });
    return self.metadata?.labels ?? {};
  } catch (error) {
    throw new AddressResolutionError(`reading the controller pod ${pod.namespace}/${pod.name} failed`, {
      cause: error,
    });
  }
}
