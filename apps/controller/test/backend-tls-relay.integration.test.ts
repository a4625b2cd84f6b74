/**
 * Backend TLS through the controller's TLS relay, end to end (local API server, the controller,
 * nginx, TLS backends with certificates made by openssl): proxy-ssl-verify and its depth against
 * the chains backends send (a self-signed certificate that is its own CA, intermediates, the root
 * or a cross-signed copy of it sent too), answered as nginx 1.22 with OpenSSL 3.0 answers them
 * (a depth of N takes N intermediates between the backend's certificate and the trusted root),
 * proxy-ssl-protocols and proxy-ssl-ciphers as the backend sees them, gRPC
 * over TLS with a custom CA (ALPN h2), custom-http-errors (the hop server) in front of the relay,
 * and the relay's sockets: one per route policy and endpoint, gone when no route uses them, and
 * made again by a restarted controller.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { RELAY_SOCKET_DIRECTORY } from '@ingresskit/nginx-template';
import { probe } from '../src/http-probe.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import {
  endpointSliceManifest,
  eventually,
  ingressManifest,
  opaqueSecretManifest,
  startController,
} from './harness.js';
import { useCertificateMaker, type CertificatePair } from './openssl-certificates.js';

const certificates = useCertificateMaker();
const root = certificates.selfSigned('root', '/CN=Backend root');
const otherRoot = certificates.selfSigned('other-root', '/CN=Other root');
const first = certificates.signedBy(root, 'first', '/CN=First intermediate', [], { ca: true });
const second = certificates.signedBy(first, 'second', '/CN=Second intermediate', [], { ca: true });
const leaf = certificates.signedBy(root, 'leaf', '/CN=leaf', ['backend.internal']);
const otherLeaf = certificates.signedBy(otherRoot, 'other-leaf', '/CN=other leaf', ['backend.internal']);
const chained = certificates.signedBy(first, 'chained', '/CN=chained', ['backend.internal']);
const deep = certificates.signedBy(second, 'deep', '/CN=deep', ['backend.internal']);
const crossSignedRoot = certificates.crossSigned(otherRoot, root, 'root-cross');
/** A server's own certificate (no CA: no keyCertSign), trusted as it is. */
const ownCa = certificates.selfSigned('own-ca', '/CN=backend.internal', ['backend.internal'], {
  serverOnly: true,
});
/** A self-signed CA certificate that is also the server's. */
const ownRoot = certificates.selfSigned('own-root', '/CN=backend.internal', ['backend.internal']);

/** `certificate` followed by the certificates the backend sends after it. */
function sending(certificate: CertificatePair, ...after: CertificatePair[]): CertificatePair {
  return { ...certificate, cert: [certificate, ...after].map((sent) => sent.cert).join('') };
}

/** Certificates of backends that differ only by the chain they send, by Service name. */
const CHAINS: Record<string, CertificatePair> = {
  'own-ca': ownCa,
  'own-root': ownRoot,
  'other-leaf': otherLeaf,
  'leaf-and-root': sending(leaf, root),
  chained: sending(chained, first),
  'chained-and-root': sending(chained, first, root),
  'chained-and-cross-root': sending(chained, first, crossSignedRoot),
  deep: sending(deep, second, first),
  'deep-and-root': sending(deep, second, first, root),
};

const servers: (Server | Http2SecureServer)[] = [];
/** A second backend like `plain`'s, where its endpoint moves. */
let movedPort = 0;
/** The controllers' nginx prefix: a restarted controller finds what the first one left. */
const prefix = mkdtempSync(join(tmpdir(), 'ingresskit-relay-'));
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(prefix, { recursive: true, force: true });
});

interface Seen {
  protocol: string | null;
  cipher: string;
  alpn: string | false | null;
  authority?: string;
}

/** An HTTPS backend answering with the TLS it was reached with, as JSON; `/status/404` with 404. */
async function startTlsBackend(
  certificate: CertificatePair,
  tls: { minVersion?: 'TLSv1.2' | 'TLSv1.3'; maxVersion?: 'TLSv1.2' | 'TLSv1.3'; ciphers?: string } = {},
): Promise<number> {
  const server = createHttpsServer(
    { cert: certificate.cert, key: certificate.key, ...tls },
    (request, response) => {
      const socket = request.socket as TLSSocket;
      const seen: Seen = {
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().name,
        alpn: socket.alpnProtocol,
      };
      if (request.url?.startsWith('/status/404') === true) response.statusCode = 404;
      response.end(JSON.stringify(seen));
    },
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A gRPC-style backend: HTTP/2 over TLS only (ALPN h2), answering with what it saw. */
async function startGrpcBackend(certificate: CertificatePair): Promise<number> {
  const server = createSecureServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const socket = request.socket as TLSSocket;
    const seen: Seen = {
      protocol: socket.getProtocol(),
      cipher: socket.getCipher().name,
      alpn: socket.alpnProtocol,
      // nginx's grpc_pass sends the Host header as it is, not as :authority.
      authority: request.headers[':authority'] ?? request.headers.host ?? '',
    };
    response.setHeader('content-type', 'application/grpc');
    response.end(JSON.stringify(seen));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Service `name` on `servicePort`, its one endpoint 127.0.0.1:`port`. */
function service(name: string, port: number, servicePort = 443): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: 'default' },
      spec: { ports: [{ name: 'http', port: servicePort, targetPort: 'http' }] },
    },
    endpointSliceManifest(`${name}-1`, name, port),
  ];
}

const VERIFIED = {
  [`${A}proxy-ssl-secret`]: 'root',
  [`${A}proxy-ssl-verify`]: 'on',
  [`${A}proxy-ssl-name`]: 'backend.internal',
};

function tlsIngress(host: string, serviceName: string, annotations: Record<string, string> = {}) {
  return annotatedIngress(
    host,
    serviceName,
    { [`${A}backend-protocol`]: 'HTTPS', ...VERIFIED, ...annotations },
    { port: 443 },
  );
}

const testCase = useAnnotationsCase({
  config: { podName: 'backend-tls-relay', nginxPrefix: prefix },
  backends: ['app'],
  readyHost: 'open.test',
  objects: async ({ backends }) => {
    const plain = await startTlsBackend(leaf);
    movedPort = await startTlsBackend(leaf);
    const chains: Record<string, unknown>[] = [];
    for (const [name, certificate] of Object.entries(CHAINS))
      chains.push(...service(name, await startTlsBackend(certificate)));
    const tls13 = await startTlsBackend(leaf, { minVersion: 'TLSv1.3' });
    const tls12 = await startTlsBackend(leaf, {
      maxVersion: 'TLSv1.2',
      ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256',
    });
    const grpc = await startGrpcBackend(leaf);
    const pages = await startTlsBackend(leaf);
    return [
      ...service('plain', plain),
      ...chains,
      ...service('tls13', tls13),
      ...service('tls12', tls12),
      ...service('grpc', grpc),
      ...service('pages', pages),
      ...service('app', backends.get('app')!.port, 80),
      opaqueSecretManifest('root', { 'ca.crt': root.cert }),
      opaqueSecretManifest('other-root', { 'ca.crt': otherRoot.cert }),
      opaqueSecretManifest('own-ca', { 'ca.crt': ownCa.cert }),
      opaqueSecretManifest('own-root', { 'ca.crt': ownRoot.cert }),
      tlsIngress('verified.test', 'plain'),
      tlsIngress('own-ca.test', 'own-ca', { [`${A}proxy-ssl-secret`]: 'own-ca' }),
      tlsIngress('own-root.test', 'own-root', { [`${A}proxy-ssl-secret`]: 'own-root' }),
      tlsIngress('other-leaf-for-own-ca.test', 'other-leaf', { [`${A}proxy-ssl-secret`]: 'own-ca' }),
      tlsIngress('own-ca-for-root.test', 'own-ca'),
      tlsIngress('other-leaf.test', 'other-leaf'),
      tlsIngress('leaf-and-root.test', 'leaf-and-root'),
      tlsIngress('chained.test', 'chained'),
      tlsIngress('chained-and-root.test', 'chained-and-root'),
      tlsIngress('chained-and-cross-root.test', 'chained-and-cross-root'),
      tlsIngress('deep-default.test', 'deep'),
      tlsIngress('deep-two.test', 'deep', { [`${A}proxy-ssl-verify-depth`]: '2' }),
      tlsIngress('deep-and-root-default.test', 'deep-and-root'),
      tlsIngress('deep-and-root-two.test', 'deep-and-root', { [`${A}proxy-ssl-verify-depth`]: '2' }),
      tlsIngress('tls13-as-12.test', 'tls13'),
      tlsIngress('tls13.test', 'tls13', { [`${A}proxy-ssl-protocols`]: 'TLSv1.3' }),
      tlsIngress('tls12.test', 'tls12', { [`${A}proxy-ssl-protocols`]: 'TLSv1.2 TLSv1.3' }),
      tlsIngress('other-cipher.test', 'tls12', {
        [`${A}proxy-ssl-ciphers`]: 'ECDHE-ECDSA-AES256-GCM-SHA384',
      }),
      tlsIngress('cipher.test', 'tls12', {
        [`${A}proxy-ssl-ciphers`]: 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256',
      }),
      tlsIngress('grpc.test', 'grpc', { [`${A}backend-protocol`]: 'GRPCS' }),
      tlsIngress('grpc-other-ca.test', 'grpc', {
        [`${A}backend-protocol`]: 'GRPCS',
        [`${A}proxy-ssl-secret`]: 'other-root',
      }),
      // Custom error pages: the route goes through the hop server, then the relay.
      tlsIngress('errors.test', 'pages', {
        [`${A}custom-http-errors`]: '404',
        [`${A}default-backend`]: 'app',
      }),
      ingressManifest('open', { host: 'open.test', service: 'app', className: 'nginx' }),
    ];
  },
});

async function seenBy(host: string): Promise<{ status: number; seen?: Seen }> {
  const response = await testCase().send(host);
  return response.status === 200
    ? { status: 200, seen: JSON.parse(response.body) as Seen }
    : { status: response.status };
}

describe('proxy-ssl-verify with a self-signed backend certificate that is its own CA', () => {
  it('reaches the backend, with or without the keyCertSign key usage', async () => {
    expect((await seenBy('own-ca.test')).status).toBe(200);
    expect((await seenBy('own-root.test')).status).toBe(200);
  });

  it('answers 502 for a backend of another CA, either way', async () => {
    expect((await seenBy('other-leaf-for-own-ca.test')).status).toBe(502);
    expect((await seenBy('own-ca-for-root.test')).status).toBe(502);
  });
});

describe('proxy-ssl-verify-depth through the relay', () => {
  it('takes a certificate the root signed at the default depth, with the root sent or not', async () => {
    expect((await seenBy('verified.test')).status).toBe(200);
    expect((await seenBy('leaf-and-root.test')).status).toBe(200);
    expect((await seenBy('other-leaf.test')).status).toBe(502);
  });

  it('takes one intermediate at the default depth, with the root or a cross-signed copy of it sent too', async () => {
    expect((await seenBy('chained.test')).status).toBe(200);
    expect((await seenBy('chained-and-root.test')).status).toBe(200);
    expect((await seenBy('chained-and-cross-root.test')).status).toBe(200);
  });

  it('answers 502 for two intermediates at depth 1 and reaches them at depth 2, with the root sent or not', async () => {
    expect((await seenBy('deep-default.test')).status).toBe(502);
    expect((await seenBy('deep-two.test')).status).toBe(200);
    expect((await seenBy('deep-and-root-default.test')).status).toBe(502);
    expect((await seenBy('deep-and-root-two.test')).status).toBe(200);
  });
});

describe('proxy-ssl-protocols and proxy-ssl-ciphers through the relay', () => {
  it('speaks only the protocols listed', async () => {
    expect((await seenBy('tls13-as-12.test')).status).toBe(502);
    expect(await seenBy('tls13.test')).toMatchObject({ status: 200, seen: { protocol: 'TLSv1.3' } });
    expect(await seenBy('tls12.test')).toMatchObject({ status: 200, seen: { protocol: 'TLSv1.2' } });
  });

  it('offers only the TLSv1.2 ciphers listed', async () => {
    expect((await seenBy('other-cipher.test')).status).toBe(502);
    expect(await seenBy('cipher.test')).toMatchObject({
      status: 200,
      seen: { protocol: 'TLSv1.2', cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256' },
    });
  });
});

describe('gRPC over TLS through the relay', () => {
  it('reaches an HTTP/2 backend with a custom CA over ALPN h2, and never one of another CA', async () => {
    expect(await seenBy('grpc.test')).toMatchObject({
      status: 200,
      seen: { alpn: 'h2', authority: 'grpc.test' },
    });
    expect((await seenBy('grpc-other-ca.test')).status).toBe(502);
  });
});

describe('custom-http-errors in front of the relay', () => {
  it('reaches the backend through the hop and the relay, and gives a listed status to the error backend', async () => {
    expect(await seenBy('errors.test')).toMatchObject({ status: 200, seen: { protocol: 'TLSv1.2' } });
    const replaced = await testCase().send('errors.test', { path: '/status/404' });
    expect(replaced.body).toMatch(/^app: GET /);
  });
});

describe("the relay's sockets", () => {
  const directory = join(prefix, RELAY_SOCKET_DIRECTORY);

  it('are one per policy and endpoint, follow the endpoints, and go when no route uses them', async () => {
    const { server, controller } = testCase();
    // Each of the 22 TLS Ingresses uses its own pair of policy and endpoint, and errors.test its
    // default-backend's too (it serves the route, with its TLS, when the Service has no endpoints).
    const before = new Set(await readdir(directory));
    expect(before.size).toBe(23);
    const reloads = controller.dataPlane.reloadCount;
    await server.apply(tlsIngress('verified.test', 'plain', { [`${A}proxy-ssl-verify-depth`]: '3' }));
    await eventually(async () => {
      const after = new Set(await readdir(directory));
      expect([...after].filter((name) => !before.has(name))).toHaveLength(1);
      expect([...before].filter((name) => !after.has(name))).toHaveLength(1);
    });
    expect((await seenBy('verified.test')).status).toBe(200);
    // The pod moves: a socket for the new endpoint, none left for the old one.
    const moved = new Set(await readdir(directory));
    await server.apply(endpointSliceManifest('plain-1', 'plain', movedPort));
    await eventually(async () => {
      const after = new Set(await readdir(directory));
      expect([...after].filter((name) => !moved.has(name))).toEqual([
        expect.stringMatching(new RegExp(`_127\\.0\\.0\\.1_${movedPort}$`)),
      ]);
      expect(after.size).toBe(23);
    });
    expect((await seenBy('verified.test')).status).toBe(200);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });

  it('are made again by a restarted controller, which serves these routes again', async () => {
    const running = testCase();
    const names = await readdir(directory);
    await running.controller.stop();
    // While the controller is down nothing listens: these routes cannot be served.
    expect(existsSync(directory)).toBe(false);
    const restarted = await startController(running.server, {
      podName: 'backend-tls-relay-restarted',
      nginxPrefix: prefix,
    });
    try {
      expect((await readdir(directory)).sort()).toEqual([...names].sort());
      const response = await probe({ port: restarted.config.httpPort, host: 'verified.test', path: '/' });
      expect(response.status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });
});
