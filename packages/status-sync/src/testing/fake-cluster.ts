import type { V1Ingress, V1Node, V1Pod, V1Service } from '@kubernetes/client-node';
import type { CoreApi } from '../controller-pods.js';
import type { IngressStatusApi } from '../status-writer.js';
import { apiError } from './fake-lease-server.js';

/** In-memory Services, Pods, Nodes and Ingresses with resourceVersion conflicts, for unit tests. */
export interface FakeCluster extends CoreApi, IngressStatusApi {
  services: Map<string, V1Service>;
  pods: V1Pod[];
  nodes: Map<string, V1Node>;
  ingresses: Map<string, V1Ingress>;
  /** `namespace/name` of every accepted status write, oldest first. */
  statusWrites: string[];
  /** Status writes in flight now and the most seen at once. */
  inFlight: { now: number; max: number };
  /** Runs once before the next status write of `key` lands, e.g. to make it conflict. */
  beforeStatusWrite: Map<string, () => void>;
  /** Makes every status write wait for this promise first (to hold writes in flight). */
  gate: Promise<void>;
  /** Writes an Ingress as another client would (bumps its resourceVersion). */
  put(ingress: V1Ingress): void;
}

/** Creates an empty fake cluster. */
export function createFakeCluster(): FakeCluster {
  let resourceVersion = 1;
  const labelsMatch = (pod: V1Pod, selector: string | undefined): boolean =>
    (selector ?? '')
      .split(',')
      .filter((term) => term !== '')
      .every((term) => {
        const [key, value] = term.split('=');
        return pod.metadata?.labels?.[key!] === value;
      });

  const cluster: FakeCluster = {
    services: new Map(),
    pods: [],
    nodes: new Map(),
    ingresses: new Map(),
    statusWrites: [],
    inFlight: { now: 0, max: 0 },
    beforeStatusWrite: new Map(),
    gate: Promise.resolve(),
    put(ingress) {
      resourceVersion += 1;
      const key = `${ingress.metadata?.namespace}/${ingress.metadata?.name}`;
      cluster.ingresses.set(
        key,
        structuredClone({
          ...ingress,
          metadata: { ...ingress.metadata, resourceVersion: String(resourceVersion) },
        }),
      );
    },
    readNamespacedService({ name, namespace }) {
      const service = cluster.services.get(`${namespace}/${name}`);
      if (service === undefined)
        return Promise.reject(apiError(404, 'NotFound', `services "${name}" not found`));
      return Promise.resolve(structuredClone(service));
    },
    readNamespacedPod({ name, namespace }) {
      const pod = cluster.pods.find(
        (candidate) => candidate.metadata?.name === name && candidate.metadata.namespace === namespace,
      );
      if (pod === undefined) return Promise.reject(apiError(404, 'NotFound', `pods "${name}" not found`));
      return Promise.resolve(structuredClone(pod));
    },
    listNamespacedPod({ namespace, labelSelector }) {
      return Promise.resolve({
        items: structuredClone(
          cluster.pods.filter(
            (pod) => pod.metadata?.namespace === namespace && labelsMatch(pod, labelSelector),
          ),
        ),
      });
    },
    readNode({ name }) {
      const node = cluster.nodes.get(name);
      if (node === undefined) return Promise.reject(apiError(404, 'NotFound', `nodes "${name}" not found`));
      return Promise.resolve(structuredClone(node));
    },
    readNamespacedIngress({ name, namespace }) {
      const ingress = cluster.ingresses.get(`${namespace}/${name}`);
      if (ingress === undefined)
        return Promise.reject(apiError(404, 'NotFound', `ingresses "${name}" not found`));
      return Promise.resolve(structuredClone(ingress));
    },
    async replaceNamespacedIngressStatus({ name, namespace, body }) {
      const key = `${namespace}/${name}`;
      cluster.inFlight.now += 1;
      cluster.inFlight.max = Math.max(cluster.inFlight.max, cluster.inFlight.now);
      try {
        await cluster.gate;
        const hook = cluster.beforeStatusWrite.get(key);
        cluster.beforeStatusWrite.delete(key);
        hook?.();
        const stored = cluster.ingresses.get(key);
        if (stored === undefined) throw apiError(404, 'NotFound', `ingresses "${name}" not found`);
        if (
          body.metadata?.resourceVersion !== undefined &&
          body.metadata.resourceVersion !== stored.metadata?.resourceVersion
        ) {
          throw apiError(409, 'Conflict', 'the object has been modified');
        }
        cluster.put({ ...stored, status: body.status });
        cluster.statusWrites.push(key);
        return structuredClone(cluster.ingresses.get(key)!);
      } finally {
        cluster.inFlight.now -= 1;
      }
    },
  };
  return cluster;
}

/** A Running, Ready controller pod on `nodeName`. */
export function controllerPod(name: string, nodeName: string, extra: Partial<V1Pod['status']> = {}): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'ingress',
      labels: { 'app.kubernetes.io/name': 'ingresskit', 'pod-template-hash': name.slice(-5) },
    },
    spec: { nodeName, containers: [] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], ...extra },
  };
}

/** A node with the given addresses. */
export function node(name: string, addresses: Record<string, string>): V1Node {
  return {
    metadata: { name },
    status: { addresses: Object.entries(addresses).map(([type, address]) => ({ type, address })) },
  };
}

/** An Ingress in `namespace` with the given load-balancer status. */
export function ingress(
  name: string,
  status: { ip?: string; hostname?: string }[] = [],
  namespace = 'default',
): V1Ingress {
  return {
    metadata: { name, namespace },
    spec: { ingressClassName: 'ingresskit' },
    status: { loadBalancer: status.length === 0 ? {} : { ingress: status } },
  };
}
