/**
 * ingress-nginx's backend certificate annotations (proxy-ssl-*) end to end (local API server, the
 * controller, nginx, an HTTPS backend that requires a client certificate, certificates made by
 * openssl): the client certificate presented to the backend, verification of the backend against
 * the Secret's CA and proxy-ssl-name, SNI with proxy-ssl-server-name, closed routes for a Secret
 * that is missing or cannot be used, and that no Secret change reloads nginx (the controller's
 * TLS relay opens TLS to these backends).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, ingressManifest, opaqueSecretManifest } from './harness.js';
import { useCertificateMaker, type CertificatePair } from './openssl-certificates.js';

const certificates = useCertificateMaker();
const backendCa = certificates.selfSigned('backend-ca', '/CN=Backend CA');
const otherCa = certificates.selfSigned('other-ca', '/CN=Other CA');
const clientCa = certificates.selfSigned('client-ca', '/CN=Gateway client CA');
const backendCertificate = certificates.signedBy(backendCa, 'backend', '/CN=backend', ['backend.internal']);
const gateway = certificates.signedBy(clientCa, 'gateway', '/CN=gateway');
const rotated = certificates.signedBy(clientCa, 'gateway-rotated', '/CN=gateway-rotated');
// No Ingress uses it before the test that changes a Secret to it.
const freshCa = certificates.selfSigned('fresh-ca', '/CN=Fresh CA');

let backend: Server | undefined;
afterAll(() => new Promise<void>((resolve) => (backend ? backend.close(() => resolve()) : resolve())));

/** Answers with the client certificate's CN and the SNI it was reached with, as JSON. */
async function startBackend(): Promise<number> {
  backend = createServer(
    {
      cert: backendCertificate.cert,
      key: backendCertificate.key,
      ca: clientCa.cert,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (request, response) => {
      const socket = request.socket as TLSSocket;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          client: socket.getPeerCertificate().subject?.CN ?? null,
          serverName: (socket as TLSSocket & { servername?: string | false }).servername || null,
        }),
      );
    },
  );
  await new Promise<void>((resolve) => backend!.listen(0, '127.0.0.1', resolve));
  return (backend.address() as AddressInfo).port;
}

function proxySslSecret(name: string, data: { ca?: CertificatePair; client?: CertificatePair }) {
  return opaqueSecretManifest(name, {
    ...(data.ca === undefined ? {} : { 'ca.crt': data.ca.cert }),
    ...(data.client === undefined ? {} : { 'tls.crt': data.client.cert, 'tls.key': data.client.key }),
  });
}

function tlsBackend(host: string, annotations: Record<string, string>) {
  return annotatedIngress(
    host,
    'secure-app',
    { [`${A}backend-protocol`]: 'HTTPS', ...annotations },
    { port: 443 },
  );
}

const VERIFIED = {
  [`${A}proxy-ssl-verify`]: 'on',
  [`${A}proxy-ssl-name`]: 'backend.internal',
  [`${A}proxy-ssl-server-name`]: 'on',
};

const testCase = useAnnotationsCase({
  config: { podName: 'backend-tls' },
  backends: ['app'],
  readyHost: 'open.test',
  objects: async ({ backends }) => {
    const port = await startBackend();
    return [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'secure-app', namespace: 'default' },
        spec: { ports: [{ name: 'http', port: 443, targetPort: 'http' }] },
      },
      endpointSliceManifest('secure-app-1', 'secure-app', port),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'app', namespace: 'default' },
        spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
      endpointSliceManifest('app-1', 'app', backends.get('app')!.port),
      proxySslSecret('gateway', { ca: backendCa, client: gateway }),
      proxySslSecret('other-ca', { ca: otherCa, client: gateway }),
      proxySslSecret('ca-only', { ca: backendCa }),
      proxySslSecret('no-ca', { client: gateway }),
      proxySslSecret('rotating', { ca: backendCa, client: gateway }),
      tlsBackend('verified.test', { [`${A}proxy-ssl-secret`]: 'default/gateway', ...VERIFIED }),
      tlsBackend('unverified.test', { [`${A}proxy-ssl-secret`]: 'gateway' }),
      tlsBackend('wrong-ca.test', { [`${A}proxy-ssl-secret`]: 'other-ca', ...VERIFIED }),
      tlsBackend('wrong-name.test', {
        [`${A}proxy-ssl-secret`]: 'gateway',
        ...VERIFIED,
        [`${A}proxy-ssl-name`]: 'elsewhere.internal',
      }),
      tlsBackend('no-client.test', { [`${A}proxy-ssl-secret`]: 'ca-only' }),
      tlsBackend('no-ca.test', { [`${A}proxy-ssl-secret`]: 'no-ca' }),
      tlsBackend('missing.test', { [`${A}proxy-ssl-secret`]: 'missing' }),
      tlsBackend('rotating.test', { [`${A}proxy-ssl-secret`]: 'rotating', ...VERIFIED }),
      ingressManifest('open', { host: 'open.test', service: 'app', className: 'nginx' }),
    ];
  },
});

async function answerOf(
  host: string,
): Promise<{ status: number; seen?: { client: string | null; serverName: string | null } }> {
  const response = await testCase().send(host);
  return response.status === 200
    ? { status: 200, seen: JSON.parse(response.body) as { client: string | null; serverName: string | null } }
    : { status: response.status };
}

describe('proxy-ssl-secret with proxy-ssl-verify on', () => {
  it('presents the client certificate and verifies the backend by proxy-ssl-name, sent as SNI', async () => {
    expect(await answerOf('verified.test')).toEqual({
      status: 200,
      seen: { client: 'gateway', serverName: 'backend.internal' },
    });
  });

  it('answers 502 when the backend is not of the CA, or not of the name', async () => {
    expect((await answerOf('wrong-ca.test')).status).toBe(502);
    expect((await answerOf('wrong-name.test')).status).toBe(502);
  });
});

describe('proxy-ssl-secret with ingress-nginx defaults', () => {
  it('presents the client certificate without verifying the backend or sending SNI', async () => {
    expect(await answerOf('unverified.test')).toEqual({
      status: 200,
      seen: { client: 'gateway', serverName: null },
    });
  });

  it('presents no certificate from a Secret without tls.crt, which this backend refuses', async () => {
    expect((await answerOf('no-client.test')).status).toBe(502);
  });

  it('answers 503 for a Secret that is missing or has no ca.crt', async () => {
    expect((await answerOf('missing.test')).status).toBe(503);
    expect((await answerOf('no-ca.test')).status).toBe(503);
  });
});

describe('a changed proxy-ssl Secret', () => {
  it('presents a new client certificate and trusts a new CA without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    await server.apply(proxySslSecret('rotating', { ca: backendCa, client: rotated }));
    await eventually(async () =>
      expect((await answerOf('rotating.test')).seen?.client).toBe('gateway-rotated'),
    );
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    await server.apply(proxySslSecret('rotating', { ca: freshCa, client: rotated }));
    await eventually(async () => expect((await answerOf('rotating.test')).status).toBe(502));
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});
