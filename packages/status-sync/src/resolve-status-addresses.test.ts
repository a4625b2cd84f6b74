import { describe, expect, it } from 'vitest';
import { AddressResolutionError, resolveStatusAddresses } from './index.js';
import { controllerPod, createFakeCluster, node } from './testing/fake-cluster.js';

const self = { namespace: 'ingress', name: 'ctrl-aaaaa' };

function clusterWithNodes() {
  const cluster = createFakeCluster();
  cluster.nodes.set('n1', node('n1', { InternalIP: '10.0.0.1', ExternalIP: '203.0.113.1', Hostname: 'n1' }));
  cluster.nodes.set('n2', node('n2', { InternalIP: '10.0.0.2', Hostname: 'n2' }));
  cluster.nodes.set('n3', node('n3', { InternalIP: '10.0.0.3', ExternalIP: '203.0.113.3' }));
  cluster.pods.push(
    controllerPod('ctrl-aaaaa', 'n1'),
    controllerPod('ctrl-bbbbb', 'n2'),
    controllerPod('ctrl-ccccc', 'n1'),
  );
  return cluster;
}

describe('resolveStatusAddresses', () => {
  it('uses publishStatusAddress first, splitting on commas and telling IPs from hostnames', async () => {
    const cluster = clusterWithNodes();
    const addresses = await resolveStatusAddresses(
      {
        publishStatusAddress: 'lb.example.com, 192.0.2.1,,192.0.2.1',
        publishService: 'ingress/lb',
        controllerPod: self,
      },
      cluster,
    );
    expect(addresses).toEqual([{ ip: '192.0.2.1' }, { hostname: 'lb.example.com' }]);
  });

  it('uses the publish Service when no fixed address is set', async () => {
    const cluster = clusterWithNodes();
    cluster.services.set('ingress/lb', {
      metadata: { name: 'lb' },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.5' },
    });
    expect(
      await resolveStatusAddresses({ publishService: 'ingress/lb', controllerPod: self }, cluster),
    ).toEqual([{ ip: '10.96.0.5' }]);
    expect(await resolveStatusAddresses({ publishService: 'lb', controllerPod: self }, cluster)).toEqual([
      { ip: '10.96.0.5' },
    ]);
  });

  it('rejects when the publish Service does not exist', async () => {
    await expect(
      resolveStatusAddresses({ publishService: 'ingress/missing' }, createFakeCluster()),
    ).rejects.toThrow(AddressResolutionError);
  });

  it('publishes each serving replica node once, ExternalIP before InternalIP, when no publish option is set', async () => {
    const cluster = clusterWithNodes();
    expect(await resolveStatusAddresses({ controllerPod: self }, cluster)).toEqual([
      { ip: '10.0.0.2' },
      { ip: '203.0.113.1' },
    ]);
  });

  it('prefers InternalIP when reportNodeInternalIp is set', async () => {
    const cluster = clusterWithNodes();
    expect(
      await resolveStatusAddresses({ controllerPod: self, reportNodeInternalIp: true }, cluster),
    ).toEqual([{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]);
  });

  it('skips replicas that are not Ready, not Running or being deleted, and nodes that are gone', async () => {
    const cluster = clusterWithNodes();
    cluster.pods.push(
      controllerPod('ctrl-ddddd', 'n3', { conditions: [{ type: 'Ready', status: 'False' }] }),
      controllerPod('ctrl-eeeee', 'n3', { phase: 'Pending' }),
      {
        ...controllerPod('ctrl-fffff', 'n3'),
        metadata: { ...controllerPod('ctrl-fffff', 'n3').metadata, deletionTimestamp: new Date() },
      },
      controllerPod('ctrl-ggggg', 'gone'),
      {
        ...controllerPod('other-hhhhh', 'n3'),
        metadata: { name: 'other-hhhhh', namespace: 'ingress', labels: { app: 'other' } },
      },
    );
    expect(await resolveStatusAddresses({ controllerPod: self }, cluster)).toEqual([
      { ip: '10.0.0.2' },
      { ip: '203.0.113.1' },
    ]);
  });

  it('reads its own labels when they are not given and matches replicas of every revision', async () => {
    const cluster = clusterWithNodes();
    // Each pod carries its own pod-template-hash, as after a rollout; they still count as one controller.
    const addresses = await resolveStatusAddresses({ controllerPod: self }, cluster);
    expect(addresses).toHaveLength(2);
    expect(
      await resolveStatusAddresses(
        { controllerPod: { ...self, labels: { 'pod-template-hash': 'x' } } },
        cluster,
      ).catch((error: unknown) => error),
    ).toBeInstanceOf(AddressResolutionError);
  });

  it('rejects when no address source is configured', async () => {
    await expect(resolveStatusAddresses({}, createFakeCluster())).rejects.toThrow(AddressResolutionError);
  });
});
