/**
 * A one-shot read of the cluster for the commands that answer a question and exit (`explain`,
 * `migrate`): list what the controller watches, once, with a deadline, then stop watching.
 */
import { createStore, type StoreSnapshot } from '@ingresskit/store';
import { describeApiFailure } from '../api-failure.js';
import { storeKindsOf, storeNamespaceScopeOf, type ControllerConfig } from '../config.js';
import { loadKubeConfig } from '../kube-config.js';

/** A one-shot command gives up on an API server that does not answer after this long. */
const LIST_TIMEOUT_MS = 5_000;

/**
 * Lists the objects `config` makes the controller watch, with the kubeconfig at `kubeconfigPath`
 * (the usual search when empty), and hands the snapshot to `use`. Rejects, naming the server and
 * what failed, when the lists do not complete within 5 s.
 */
export async function withClusterSnapshot<T>(
  kubeconfigPath: string,
  config: ControllerConfig,
  use: (snapshot: StoreSnapshot) => T,
): Promise<T> {
  const kubeConfig = loadKubeConfig(kubeconfigPath);
  const store = createStore(kubeConfig, {
    ...storeNamespaceScopeOf(config),
    kinds: storeKindsOf({ ...config, checksumEnabled: false }),
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.start(),
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          const failing = store.status().find((informer) => informer.lastError !== undefined);
          const server = kubeConfig.getCurrentCluster()?.server;
          reject(
            new Error(
              failing === undefined
                ? `the API server at ${server} did not answer within ${LIST_TIMEOUT_MS / 1000} s`
                : describeApiFailure(server, failing.lastError),
            ),
          );
        }, LIST_TIMEOUT_MS);
      }),
    ]);
    return use(store.snapshot());
  } finally {
    clearTimeout(timer);
    await store.stop();
  }
}
