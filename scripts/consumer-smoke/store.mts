// The README's example against the in-process API server instead of a cluster.
import assert from 'node:assert/strict';
import { createStore } from '@ingresskit/store';
import { startLocalApiServer } from '@ingresskit/local-apiserver';

const server = await startLocalApiServer();
try {
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { namespace: 'shop', name: 'web' },
      spec: {
        rules: [
          {
            host: 'shop.example.com',
            http: {
              paths: [
                {
                  path: '/',
                  pathType: 'Prefix',
                  backend: { service: { name: 'web', port: { number: 80 } } },
                },
              ],
            },
          },
        ],
      },
    },
  ]);
  const store = createStore(server.kubeConfig(), { namespaces: ['shop'] });
  const errors: Error[] = [];
  store.on('error', (error) => errors.push(error));
  await store.start();
  try {
    const names = store.ingressesForService('shop/web').map((ingress) => ingress.metadata.name);
    assert.deepEqual(names, ['web']);
    assert.equal(store.snapshot().ingresses.size, 1);
    assert.deepEqual(errors, []);
  } finally {
    await store.stop();
  }
} finally {
  await server.stop();
}
