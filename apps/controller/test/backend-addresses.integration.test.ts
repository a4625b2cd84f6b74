/**
 * A tenant who can write Services and EndpointSlices in their own namespace aims routes at the
 * controller's own ports (loopback) and the cloud metadata service (link-local). With the default
 * policy, nginx never connects there: the routes answer 503 and the Ingress gets an Event naming
 * the field. The test's own backends live on 127.0.0.1 too, so this controller serves none of them:
 * what is checked is that nothing local is reached and the tenant is told why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import {
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  request,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let controller: Controller;

beforeAll(async () => {
  server = await startLocalApiServer();
  await server.apply([
    ingressClassManifest('nginx'),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant' } },
    // The Lease lives there; only the leader writes Events.
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
  ]);
  controller = await startController(server, {
    backendAddressPolicy: {
      allowExternalName: true,
      allowLocalAddresses: false,
      forbiddenAddresses: new Set(),
    },
  });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
});

async function eventNote(name: string): Promise<string> {
  return eventually(async () => {
    await controller.events.flush();
    const events = await listEvents(server.kubeConfig(), 'tenant');
    const found = events.find(
      (event) => event.regarding?.name === name && event.reason === 'InvalidConfiguration',
    );
    expect(found).toBeDefined();
    return found!.note ?? '';
  });
}

describe('backends that point at local addresses', () => {
  it("refuses an ExternalName Service aimed at the controller's own health port", async () => {
    await server.apply([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'sneaky', namespace: 'tenant' },
        spec: {
          type: 'ExternalName',
          externalName: '127.0.0.1',
          ports: [{ name: 'http', port: controller.healthzPort }],
        },
      },
      ingressManifest('sneaky', {
        namespace: 'tenant',
        host: 'sneaky.test',
        service: 'sneaky',
        port: controller.healthzPort,
        path: '/metrics',
        className: 'nginx',
      }),
    ]);
    expect(await eventNote('sneaky')).toContain('spec.externalName: 127.0.0.1 is a loopback address');
    const response = await request(controller, 'sneaky.test', '/metrics');
    expect(response.status).toBe(503);
    expect(response.body).not.toContain('ingresskit_');
  });

  it('leaves out EndpointSlice addresses of loopback and the metadata service', async () => {
    await server.apply([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'metadata', namespace: 'tenant' },
        spec: { ports: [{ name: 'http', port: 80 }] },
      },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'metadata-1',
          namespace: 'tenant',
          labels: { 'kubernetes.io/service-name': 'metadata' },
        },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['169.254.169.254', '127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'http', port: controller.healthzPort }],
      },
      ingressManifest('metadata', {
        namespace: 'tenant',
        host: 'metadata.test',
        service: 'metadata',
        className: 'nginx',
      }),
    ]);
    const note = await eventNote('metadata');
    expect(note).toContain('127.0.0.1 is a loopback address');
    expect(note).toContain('169.254.169.254 is a link-local address');
    const response = await request(controller, 'metadata.test', '/metrics');
    expect(response.status).toBe(503);
    expect(response.body).not.toContain('ingresskit_');
  });
});
