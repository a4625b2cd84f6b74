/**
 * The demo's cluster: the embedded API server loaded with the example manifests, one small backend
 * per EndpointSlice on 127.0.0.1, and the Pod the demo's controller stands for. The API server is
 * loaded only here, on demand, so nothing `ingresskit run` loads depends on it.
 */
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startDemoBackend, type DemoBackend } from './demo-backends.js';
import type { Manifest } from './manifests.js';

/** A running demo cluster. */
export interface DemoCluster {
  /** The API server's URL. */
  url: string;
  kubeConfig: KubeConfig;
  /** Where its kubeconfig was written. */
  kubeconfigPath: string;
  /** Stops the API server and the backends. */
  stop(): Promise<void>;
}

/** The Pod's name and namespace: the demo controller's `--pod-name` and `--pod-namespace`. */
export const DEMO_POD = { name: 'ingresskit-demo', namespace: 'ingresskit' } as const;

/** Starts the backends and the API server, writes its kubeconfig into `stateDir` and applies `manifests`. */
export async function startDemoCluster(
  manifests: readonly Manifest[],
  stateDir: string,
): Promise<DemoCluster> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const stopOne of stops.reverse()) await stopOne().catch(() => undefined);
  };
  try {
    const backends = await startBackends(manifests, stops);
    const { startLocalApiServer } = await import('@ingresskit/local-apiserver');
    const server = await startLocalApiServer({ port: 0 });
    stops.push(() => server.stop());
    const kubeconfigPath = await server.writeKubeconfig(join(stateDir, 'kubeconfig'));
    await server.apply([...withBackendPorts(manifests, backends), demoControllerPod()]);
    return { url: server.url, kubeConfig: server.kubeConfig(), kubeconfigPath, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The Pod the demo's controller stands for: status-sync reads its labels to find other replicas
 * (none here, so the published status is cleared when the demo stops, as for a last replica).
 */
function demoControllerPod(): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...DEMO_POD, labels: { 'app.kubernetes.io/name': 'ingresskit' } },
    spec: { containers: [{ name: 'controller', image: 'ingresskit:demo' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podIP: '127.0.0.1' },
  } as Manifest;
}

/** Starts one backend per EndpointSlice in the manifests, keyed by slice name. */
async function startBackends(
  manifests: readonly Manifest[],
  stops: (() => Promise<unknown>)[],
): Promise<Map<string, DemoBackend>> {
  const backends = new Map<string, DemoBackend>();
  for (const manifest of manifests) {
    const name = manifest.metadata?.name;
    if (manifest.kind === 'EndpointSlice' && name !== undefined && !backends.has(name)) {
      const backend = await startDemoBackend(name);
      stops.push(() => backend.stop());
      backends.set(name, backend);
    }
  }
  return backends;
}

/** The manifests with each EndpointSlice pointing at its backend: 127.0.0.1 and the backend's port. */
function withBackendPorts(
  manifests: readonly Manifest[],
  backends: ReadonlyMap<string, DemoBackend>,
): Manifest[] {
  return manifests.map((manifest) => {
    const backend =
      manifest.kind === 'EndpointSlice' ? backends.get(manifest.metadata?.name ?? '') : undefined;
    if (backend === undefined) return manifest;
    const slice = manifest as Manifest & {
      endpoints?: { addresses?: string[] }[];
      ports?: { port?: number }[];
    };
    return {
      ...slice,
      endpoints: (slice.endpoints ?? [{}]).map((endpoint) => ({ ...endpoint, addresses: ['127.0.0.1'] })),
      ports: (slice.ports ?? [{}]).map((port) => ({ ...port, port: backend.port })),
    } as Manifest;
  });
}
