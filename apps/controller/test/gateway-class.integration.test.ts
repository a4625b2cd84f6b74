/**
 * --gateway-controller-name wires the GatewayClass controller to the store: the leader accepts a
 * GatewayClass naming our controller (Accepted and SupportedVersion, current observedGeneration),
 * keeps the gateway-exists finalizer while a Gateway uses it, and leaves other classes alone.
 */
import { readFileSync } from 'node:fs';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import { eventually, startController, startLocalApiServer, type LocalApiServer } from './harness.js';

const CONTROLLER_NAME = 'ingresskit.dev/gateway-controller';
const gatewayClasses = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gatewayclasses' };

interface GatewayClassObject {
  metadata: { generation?: number; finalizers?: string[] };
  status?: { conditions?: { type: string; status: string; reason: string; observedGeneration?: number }[] };
}

let server: LocalApiServer;
let controller: Controller;

function crd(file: string): string {
  return readFileSync(new URL(`../../../testdata/gateway-api-v1.6.1/${file}`, import.meta.url), 'utf8');
}

async function readClass(name: string): Promise<GatewayClassObject> {
  const api = server.kubeConfig().makeApiClient(CustomObjectsApi);
  return (await api.getClusterCustomObject({ ...gatewayClasses, name })) as GatewayClassObject;
}

beforeAll(async () => {
  server = await startLocalApiServer({ port: 0 });
  await server.apply(crd('gatewayclasses.yaml'));
  await server.apply(crd('gateways.yaml'));
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'ours' },
      spec: { controllerName: CONTROLLER_NAME },
    },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'theirs' },
      spec: { controllerName: 'example.com/other' },
    },
  ]);
  controller = await startController(server, { gatewayControllerName: CONTROLLER_NAME, podName: 'gateway' });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
});

describe('GatewayClass reconciliation', () => {
  it('accepts the class naming our controller and leaves the other one untouched', async () => {
    await eventually(async () => {
      const ours = await readClass('ours');
      const accepted = ours.status?.conditions?.find((condition) => condition.type === 'Accepted');
      expect(accepted).toMatchObject({
        status: 'True',
        reason: 'Accepted',
        observedGeneration: ours.metadata.generation,
      });
      expect(
        ours.status?.conditions?.find((condition) => condition.type === 'SupportedVersion')?.status,
      ).toBe('True');
    });
    const theirs = await readClass('theirs');
    expect(theirs.status?.conditions?.every((condition) => condition.reason === 'Pending') ?? true).toBe(
      true,
    );
  });

  it('keeps the gateway-exists finalizer while a Gateway uses the class', async () => {
    await server.apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'edge', namespace: 'default' },
      spec: { gatewayClassName: 'ours', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    });
    await eventually(async () =>
      expect((await readClass('ours')).metadata.finalizers).toContain(
        'gateway-exists-finalizer.gateway.networking.k8s.io',
      ),
    );
  });
});
