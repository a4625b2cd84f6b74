/** Finds the cluster: a kubeconfig file, the usual default locations, or the in-cluster service account. */
import { KubeConfig } from '@kubernetes/client-node';
import { ControllerConfigError } from './errors.js';

/**
 * Loads the cluster configuration from `path`, or else from `$KUBECONFIG`, `~/.kube/config` or the
 * in-cluster service account. Throws ControllerConfigError when none is found, instead of
 * client-node's silent fallback to http://localhost:8080 (which it then refuses to use).
 */
export function loadKubeConfig(path: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    if (path !== '') kubeConfig.loadFromFile(path);
    else kubeConfig.loadFromDefault();
  } catch (error) {
    throw new ControllerConfigError(
      `cannot read the kubeconfig ${path || '(default)'}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null)
    throw new ControllerConfigError(`the kubeconfig ${path || '(default)'} names no current cluster`);
  if (path === '' && cluster.server === 'http://localhost:8080' && cluster.name === 'cluster') {
    throw new ControllerConfigError(
      'no cluster configuration found: pass --kubeconfig, set $KUBECONFIG, create ~/.kube/config or run in a pod with a service account',
    );
  }
  return kubeConfig;
}
