// The README's example: an in-process API server, driven by the real client-node.
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';

const server = await startLocalApiServer();
try {
  await server.apply('apiVersion: v1\nkind: Namespace\nmetadata: {name: demo}\n');
  const core = server.kubeConfig().makeApiClient(k8s.CoreV1Api);
  const namespaces = await core.listNamespace();
  assert.ok(namespaces.items.some((namespace) => namespace.metadata?.name === 'demo'));
  const net = server.kubeConfig().makeApiClient(k8s.NetworkingV1Api);
  const { items } = await net.listIngressForAllNamespaces();
  assert.deepEqual(items, []);
  server.faults.expireHistory();
  server.faults.dropWatches();
} finally {
  await server.stop();
}
