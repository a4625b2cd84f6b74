// The README's leader election against the in-process API server: one replica takes the Lease
// and gives it back on stop.
import assert from 'node:assert/strict';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { startLocalApiServer } from '@ingresskit/local-apiserver';
import { LeaderElector, addressesFromService } from '@ingresskit/status-sync';

const server = await startLocalApiServer({
  manifests: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingress' } }],
});
try {
  const kc = server.kubeConfig();
  const lease = { namespace: 'ingress', electionId: 'ingresskit-leader', identity: 'pod-a' };
  const elector = new LeaderElector({ coordinationApi: kc.makeApiClient(CoordinationV1Api), ...lease });
  const leading = new Promise<void>((resolve) => elector.once('started-leading', resolve));
  elector.start();
  await leading;
  assert.equal(elector.isLeader(), true);
  const stopped = await elector.stop();
  assert.equal(stopped.released, true);
  assert.deepEqual(addressesFromService({ spec: { type: 'ClusterIP', clusterIP: '10.0.0.1' } }), [
    { ip: '10.0.0.1' },
  ]);
} finally {
  await server.stop();
}
