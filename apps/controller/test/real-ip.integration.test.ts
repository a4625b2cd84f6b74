/**
 * The real IP keys of the controller ConfigMap end to end (local API server, the controller,
 * nginx, real HTTP): without use-forwarded-headers a client's X-Forwarded-For names no one (the
 * allowlist and X-Real-IP see the peer); with it and the peer in proxy-real-ip-cidr the address
 * the client claims is its address, X-Forwarded-For is built as ingress-nginx builds it, and
 * forwarded-for-header picks the header read.
 */
import type { RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

const CONFIGMAP = { namespace: 'ingresskit', name: 'ingresskit-controller' };

function configMap(data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: CONFIGMAP, data };
}

const echoHeaders: RequestListener = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(request.headers));
};

const started = useAnnotationsCase({
  config: { podName: 'real-ip', configMap: `${CONFIGMAP.namespace}/${CONFIGMAP.name}` },
  readyHost: 'echo.test',
  objects: async ({ listen }) => [
    configMap({}),
    ...serviceManifests('echo', []),
    endpointSliceManifest('echo-1', 'echo', await listen(echoHeaders)),
    annotatedIngress('echo.test', 'echo', {}),
    annotatedIngress('inside.test', 'echo', { [`${A}whitelist-source-range`]: '10.0.0.0/8' }),
    annotatedIngress('secure.test', 'echo', { [`${A}force-ssl-redirect`]: 'true' }),
  ],
});

async function seen(host: string, headers: Record<string, string>) {
  const response = await started().send(host, { headers });
  return {
    status: response.status,
    headers: response.status === 200 ? (JSON.parse(response.body) as Record<string, string>) : {},
  };
}

const CLAIM = {
  'X-Forwarded-For': '10.1.2.3',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'front.test',
  'X-Forwarded-Port': '8443',
};

describe('real IP keys', () => {
  it("trust no client's X-Forwarded-For by default, and the proxies of proxy-real-ip-cidr when told", async () => {
    const { controller, server } = started();
    // Default: the peer is the client, whatever it claims.
    expect((await seen('inside.test', CLAIM)).status).toBe(403);
    expect((await seen('secure.test', CLAIM)).status).toBe(308);
    const plain = await seen('echo.test', CLAIM);
    expect(plain.headers).toMatchObject({
      'x-real-ip': '127.0.0.1',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-scheme': 'http',
      'x-forwarded-host': 'echo.test',
      'x-forwarded-port': String(controller.config.httpPort),
    });
    // As ingress-nginx, X-Forwarded-Host is the Host the client sent, with its port.
    expect((await seen('echo.test:8080', {})).headers['x-forwarded-host']).toBe('echo.test:8080');

    // use-forwarded-headers from a trusted peer: the claim is the address.
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    await server.apply([
      configMap({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '127.0.0.1/32' }),
    ]);
    // These keys reload nginx: until the old workers are gone, one of them may still answer.
    await eventually(async () => {
      expect(controller.dataPlane.reloadCount).toBe(reloads + 1);
      const now = await controller.dataPlane.workerPids();
      expect(now.filter((pid) => workers.includes(pid))).toEqual([]);
    });
    await eventually(async () => {
      expect((await seen('inside.test', CLAIM)).status).toBe(200);
      expect((await seen('echo.test', CLAIM)).headers).toMatchObject({
        'x-real-ip': '10.1.2.3',
        'x-forwarded-for': '10.1.2.3',
        'x-forwarded-proto': 'https',
        'x-forwarded-scheme': 'https',
        'x-forwarded-host': 'front.test',
        'x-forwarded-port': '8443',
      });
    });
    // As ingress-nginx: no redirect to HTTPS of what the proxy in front says came as https.
    expect((await seen('secure.test', CLAIM)).status).toBe(200);
    expect((await seen('secure.test', {})).status).toBe(308);
    // The first host of a list, as ingress-nginx.
    expect(
      (await seen('echo.test', { ...CLAIM, 'X-Forwarded-Host': 'front.test,proxy.test' })).headers[
        'x-forwarded-host'
      ],
    ).toBe('front.test');
    // An untrusted address in the list is the client's, even when the peer is trusted.
    expect((await seen('inside.test', { 'X-Forwarded-For': '10.1.2.3, 192.0.2.1' })).status).toBe(403);

    // A peer outside proxy-real-ip-cidr is not believed.
    await server.apply([
      configMap({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '192.0.2.0/24' }),
    ]);
    await eventually(async () => {
      expect((await seen('inside.test', CLAIM)).status).toBe(403);
      expect((await seen('echo.test', CLAIM)).headers['x-real-ip']).toBe('127.0.0.1');
    });

    // compute-full-forwarded-for: the list received and the peer.
    await server.apply([
      configMap({
        'use-forwarded-headers': 'true',
        'proxy-real-ip-cidr': '127.0.0.1',
        'compute-full-forwarded-for': 'true',
      }),
    ]);
    await eventually(async () =>
      expect((await seen('echo.test', CLAIM)).headers).toMatchObject({
        'x-forwarded-for': '10.1.2.3, 127.0.0.1',
        'x-real-ip': '10.1.2.3',
      }),
    );

    // forwarded-for-header: another header names the client; X-Forwarded-For names no one.
    await server.apply([
      configMap({
        'use-forwarded-headers': 'true',
        'proxy-real-ip-cidr': '127.0.0.1',
        'forwarded-for-header': 'X-Client-IP',
      }),
    ]);
    await eventually(async () => {
      expect((await seen('inside.test', { 'X-Client-IP': '10.9.9.9' })).status).toBe(200);
      expect((await seen('inside.test', CLAIM)).status).toBe(403);
      expect((await seen('echo.test', { 'X-Client-IP': '10.9.9.9' })).headers).toMatchObject({
        'x-real-ip': '10.9.9.9',
        'x-forwarded-for': '10.9.9.9',
      });
    });
  });
});
