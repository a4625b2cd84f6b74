/**
 * The connection keys of the controller ConfigMap end to end (local API server, the controller
 * with --enable-ssl-passthrough, real nginx, raw TCP and TLS clients): use-proxy-protocol makes
 * the HTTP listener and the passthrough proxy read a PROXY header whose client address the
 * backend sees, and refuse a connection without one; ssl-ecdh-curve limits the key exchange
 * groups; ssl-dh-param writes the DH parameters of its Secret beside nginx.conf.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import { connect as connectTls, createServer as createTlsServer, type ConnectionOptions } from 'node:tls';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/ports.js';
import { A, annotatedIngress, expectNoReload, useAnnotationsCase } from './annotations.js';
import {
  controllerConfigMapManifest,
  CONTROLLER_CONFIGMAP,
  endpointSliceManifest,
  eventually,
  listConfigMapEvents,
  opaqueSecretManifest,
  serviceManifests,
} from './harness.js';

const echoHeaders: RequestListener = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(request.headers));
};

const passthroughCertificate = createSelfSignedCertificate({ commonName: 'passthrough.test' });
const passthroughBackend = createTlsServer(
  { cert: passthroughCertificate.certificatePem, key: passthroughCertificate.privateKeyPem },
  (socket) => socket.end('passed through'),
);
afterAll(() => void passthroughBackend.close());

const dhParams = execFileSync('openssl', [
  'genpkey',
  '-genparam',
  '-algorithm',
  'DH',
  '-pkeyopt',
  'group:ffdhe2048',
]).toString();

function dhSecret(pem: string): Record<string, unknown> {
  return opaqueSecretManifest('dhparam', { 'dhparam.pem': pem });
}

const started = useAnnotationsCase({
  config: {
    podName: 'proxy-protocol',
    configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
    sslPassthrough: true,
    sslPassthroughProxyPort: await findFreePort(),
  },
  readyHost: 'echo.test',
  objects: async ({ listen }) => {
    await new Promise<void>((resolve) => passthroughBackend.listen(0, '127.0.0.1', resolve));
    return [
      controllerConfigMapManifest({}),
      ...serviceManifests('echo', []),
      endpointSliceManifest('echo-1', 'echo', await listen(echoHeaders)),
      annotatedIngress('echo.test', 'echo', {}),
      annotatedIngress('inside.test', 'echo', { [`${A}whitelist-source-range`]: '10.0.0.0/8' }),
      annotatedIngress('secure.test', 'echo', { [`${A}force-ssl-redirect`]: 'true' }),
      ...serviceManifests('tls-app', []),
      endpointSliceManifest('tls-app-1', 'tls-app', (passthroughBackend.address() as AddressInfo).port),
      annotatedIngress('passthrough.test', 'tls-app', { [`${A}ssl-passthrough`]: 'true' }),
    ];
  },
});

/** Everything a raw TCP client gets back after writing `bytes` (the server closes). */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = connect({ port, host: '127.0.0.1' });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  // Not ended: nginx takes a client's end of input before its request as a closed connection.
  socket.write(bytes);
  await once(socket, 'close');
  return Buffer.concat(chunks).toString();
}

function get(host: string): string {
  return `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
}

/** The status and the request headers echoed back in an HTTP/1.1 answer. */
function parseAnswer(answer: string): { status: number; headers: Record<string, string> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
  const json = answer.slice(answer.indexOf('{'), answer.lastIndexOf('}') + 1);
  return { status, headers: status === 200 ? (JSON.parse(json) as Record<string, string>) : {} };
}

/** A TLS connection to the HTTPS port, after `header` in the clear when given. */
async function connectHttps(header: string | Buffer | undefined, options: ConnectionOptions) {
  const raw = connect({ port: started().controller.config.httpsPort, host: '127.0.0.1' });
  await once(raw, 'connect');
  if (header !== undefined) raw.write(header);
  const socket = connectTls({ socket: raw, rejectUnauthorized: false, ...options });
  await once(socket, 'secureConnect');
  return socket;
}

/** A GET of echo.test over TLS on the HTTPS port, after `header` when given. */
async function getHttps(header: string | Buffer | undefined, options: ConnectionOptions = {}) {
  const socket = await connectHttps(header, { servername: 'echo.test', ...options });
  const keyExchange = socket.getEphemeralKeyInfo();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(get('echo.test'));
  await once(socket, 'close');
  return { answer: parseAnswer(Buffer.concat(chunks).toString()), keyExchange };
}

async function applyConfigMap(data: Record<string, string>) {
  const { controller, server } = started();
  const reloads = controller.dataPlane.reloadCount;
  await server.apply([controllerConfigMapManifest(data)]);
  await eventually(() => expect(controller.dataPlane.reloadCount).toBeGreaterThan(reloads));
}

describe('ssl-ecdh-curve and ssl-dh-param', () => {
  it('limits the key exchange to the curves named', async () => {
    await applyConfigMap({ 'ssl-ecdh-curve': 'secp384r1' });
    await eventually(async () => {
      const { answer, keyExchange } = await getHttps(undefined, { ecdhCurve: 'X25519:secp384r1' });
      expect(answer.status).toBe(200);
      expect(keyExchange).toMatchObject({ type: 'ECDH', name: 'secp384r1' });
    });
    await expect(getHttps(undefined, { ecdhCurve: 'X25519:prime256v1' })).rejects.toThrow();
  });

  it('writes the DH parameters of the Secret beside nginx.conf, and keeps them when the Secret turns bad', async () => {
    const { controller, server } = started();
    await server.apply([dhSecret(dhParams)]);
    await applyConfigMap({ 'ssl-dh-param': 'default/dhparam' });
    const prefix = controller.dataPlane.prefix;
    await eventually(() =>
      expect(controller.dataPlane.nginxConf).toMatch(/ssl_dhparam "certs\/dhparam-[0-9a-f]{64}\.pem";/),
    );
    const file = /ssl_dhparam "(certs\/dhparam-[0-9a-f]{64}\.pem)";/.exec(
      controller.dataPlane.nginxConf!,
    )![1]!;
    expect(await readFile(join(prefix, file), 'utf8')).toBe(dhParams);
    // The store reads the Opaque Secret once the ConfigMap names it; meanwhile nothing is reported.
    expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).not.toContainEqual(
      expect.stringContaining('ssl-dh-param'),
    );

    // A Secret that no longer holds DH parameters is an error; the last good ones stay.
    await expectNoReload(controller, async () => {
      await server.apply([dhSecret('-----BEGIN DH PARAMETERS-----\nAAAA\n-----END DH PARAMETERS-----\n')]);
      await eventually(async () =>
        expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).toContainEqual(
          expect.stringMatching(/ssl-dh-param.*is not a DH PARAMETERS PEM block; the last valid value/),
        ),
      );
      // A later sync (this Ingress) would carry a changed nginx.conf along.
      await server.apply([annotatedIngress('later.test', 'echo', {})]);
      await eventually(async () => expect((await started().send('later.test')).status).toBe(200));
    });
    expect(controller.dataPlane.nginxConf).toContain(`ssl_dhparam "${file}";`);
    expect((await readdir(join(prefix, 'certs'))).filter((name) => name.startsWith('dhparam-'))).toEqual([
      file.slice('certs/'.length),
    ]);

    // A Secret that does not exist is said at once.
    await server.apply([controllerConfigMapManifest({ 'ssl-dh-param': 'default/missing' })]);
    await eventually(async () =>
      expect(await listConfigMapEvents(started(), CONTROLLER_CONFIGMAP)).toContainEqual(
        expect.stringMatching(/ssl-dh-param.*names Secret default\/missing, which is not found/),
      ),
    );
  });
});

describe('use-proxy-protocol', () => {
  it('takes the client address from the PROXY header on the HTTP listener, and refuses a connection without one', async () => {
    const port = started().controller.config.httpPort;
    /** A GET of `host` after a PROXY line from `source` to port `to`. */
    const viaProxy = async (source: string, to: number, host: string) =>
      parseAnswer(await exchange(port, `PROXY TCP4 ${source} 192.0.2.10 40000 ${to}\r\n${get(host)}`));
    await applyConfigMap({ 'use-proxy-protocol': 'true', 'proxy-real-ip-cidr': '127.0.0.1/32' });
    // Each check is retried: the old workers, which answer a PROXY line with 400, leave a moment
    // after the reload.
    await eventually(async () =>
      expect(await viaProxy('203.0.113.7', 443, 'echo.test')).toMatchObject({
        status: 200,
        headers: {
          'x-real-ip': '203.0.113.7',
          'x-forwarded-for': '203.0.113.7',
          // As ingress-nginx: port 443 in the PROXY line means the load balancer ended TLS.
          'x-forwarded-proto': 'https',
          'x-forwarded-scheme': 'https',
          'x-forwarded-port': '443',
        },
      }),
    );
    // Allowlists see the PROXY address too.
    await eventually(async () =>
      expect(await viaProxy('10.1.2.3', 80, 'inside.test')).toMatchObject({
        status: 200,
        headers: { 'x-forwarded-proto': 'http', 'x-forwarded-port': '80' },
      }),
    );
    await eventually(async () => expect((await viaProxy('203.0.113.7', 80, 'inside.test')).status).toBe(403));
    // A load balancer that ended TLS (port 443) gets no redirect to HTTPS, as in ingress-nginx.
    await eventually(async () =>
      expect((await viaProxy('203.0.113.7', 443, 'secure.test')).status).toBe(200),
    );
    await eventually(async () => expect((await viaProxy('203.0.113.7', 80, 'secure.test')).status).toBe(308));
    // No header: nginx closes the connection without an answer.
    await eventually(async () => expect(await exchange(port, get('echo.test'))).toBe(''));

    // A peer outside proxy-real-ip-cidr must still send the header, but is not believed.
    await applyConfigMap({ 'use-proxy-protocol': 'true', 'proxy-real-ip-cidr': '192.0.2.0/24' });
    await eventually(async () =>
      expect((await viaProxy('203.0.113.7', 80, 'echo.test')).headers).toMatchObject({
        'x-real-ip': '127.0.0.1',
        'x-forwarded-for': '127.0.0.1',
      }),
    );
  });

  it('makes the ssl-passthrough proxy read the header, hand its client to nginx, and strip it for passthrough backends', async () => {
    await applyConfigMap({ 'use-proxy-protocol': 'true', 'proxy-real-ip-cidr': '127.0.0.1/32' });
    await eventually(async () => {
      const { answer } = await getHttps('PROXY TCP4 198.51.100.4 192.0.2.10 41000 443\r\n');
      expect(answer).toMatchObject({
        status: 200,
        headers: { 'x-real-ip': '198.51.100.4', 'x-forwarded-proto': 'https', 'x-forwarded-port': '443' },
      });
    });
    // PROXY v2 works too.
    const v2 = Buffer.concat([
      Buffer.from([
        0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0, 12,
      ]),
      Buffer.from([198, 51, 100, 5, 192, 0, 2, 10, 0xa0, 0x28, 0x01, 0xbb]),
    ]);
    expect((await getHttps(v2)).answer.headers['x-real-ip']).toBe('198.51.100.5');

    // The passthrough backend gets the TLS connection without the header.
    const passthrough = await connectHttps('PROXY TCP4 198.51.100.4 192.0.2.10 41000 443\r\n', {
      servername: 'passthrough.test',
    });
    const [data] = (await once(passthrough, 'data')) as [Buffer];
    expect(String(data)).toBe('passed through');
    passthrough.destroy();

    // Without the header the proxy closes the connection: no TLS handshake.
    await expect(getHttps(undefined)).rejects.toThrow();

    // Turned off again: the proxy takes TLS at once.
    await applyConfigMap({});
    await eventually(async () =>
      expect((await getHttps(undefined)).answer.headers['x-real-ip']).toBe('127.0.0.1'),
    );
  });
});
