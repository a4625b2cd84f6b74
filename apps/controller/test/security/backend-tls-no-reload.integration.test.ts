/**
 * Finding 4 of issue #31 (backend TLS): a tenant's proxy-ssl-* settings became nginx.conf. Each
 * new CA (proxy-ssl-secret) or cipher list was a directive profile, so every such Ingress or
 * Secret change reloaded nginx for everyone, and a cipher list OpenSSL refuses failed `nginx -t`.
 *
 * Now nginx.conf holds no backend TLS setting: nginx speaks plain text to the controller's TLS
 * relay, which opens TLS with the route's settings. The tenant's Ingresses and Secrets below (new
 * CAs, cipher lists, protocols, depths, names, a rotated CA) are served as data: nginx reloads 0
 * times, keeps its workers, and nginx.conf stays byte for byte the same; a cipher list OpenSSL
 * refuses leaves its Ingress out with an Event.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { answerOf, eventually, endpointSliceManifest, opaqueSecretManifest } from '../harness.js';
import { useCertificateMaker } from '../openssl-certificates.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  TENANT,
  tenantIngress,
  useSecurityCase,
} from './tenant.js';

const A = 'nginx.ingress.kubernetes.io/';
const testCase = useSecurityCase('backend-tls-no-reload');
const certificates = useCertificateMaker();

let backend: Server | undefined;
afterAll(() => backend?.close());

/** The tenant's HTTPS backend, its certificate from `ca`, answering `secure: <host>`. */
async function startTenantBackend(certificate: { cert: string; key: string }): Promise<number> {
  backend = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) =>
    response.end(`secure: ${request.headers.host}`),
  );
  await new Promise<void>((resolve) => backend!.listen(0, '127.0.0.1', resolve));
  return (backend.address() as AddressInfo).port;
}

function secret(name: string, ca: string): Record<string, unknown> {
  const manifest = opaqueSecretManifest(name, { 'ca.crt': ca });
  (manifest.metadata as { namespace: string }).namespace = TENANT;
  return manifest;
}

/** A tenant's Ingress to its HTTPS backend with `proxy-ssl-*` annotations. */
function tlsIngress(name: string, annotations: Record<string, string>): Record<string, unknown> {
  const prefixed = Object.fromEntries(
    Object.entries(annotations).map(([key, value]) => [`${A}${key}`, value]),
  );
  return tenantIngress(name, {
    host: `${name}.mallory.test`,
    service: 'secure',
    port: 443,
    annotations: { [`${A}backend-protocol`]: 'HTTPS', ...prefixed },
  });
}

describe("a tenant's backend TLS settings", () => {
  it('never reload nginx nor change nginx.conf, and the victims are served throughout', async () => {
    const { cluster, controller } = testCase();
    const cas = Array.from({ length: 6 }, (_, index) =>
      certificates.selfSigned(`ca-${index}`, `/CN=Tenant CA ${index}`),
    );
    const served = certificates.signedBy(cas[0]!, 'backend', '/CN=backend', ['backend.mallory.internal']);
    const port = await startTenantBackend(served);
    const conf = controller.dataPlane.nginxConf;
    const reloads = controller.dataPlane.reloadCount;
    const workers = await controller.dataPlane.workerPids();
    const traffic = testCase().probeVictims();

    const verified = { 'proxy-ssl-verify': 'on', 'proxy-ssl-name': 'backend.mallory.internal' };
    await cluster.server.apply([
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'secure', namespace: TENANT },
        spec: { ports: [{ name: 'http', port: 443, targetPort: 'http' }] },
      },
      endpointSliceManifest('secure-1', 'secure', port, TENANT),
      ...cas.map((ca, index) => secret(`ca-${index}`, ca.cert)),
      tlsIngress('trusted', { 'proxy-ssl-secret': 'ca-0', ...verified }),
      tlsIngress('untrusted', { 'proxy-ssl-secret': 'ca-1', ...verified }),
      tlsIngress('ciphers', {
        'proxy-ssl-secret': 'ca-2',
        'proxy-ssl-ciphers': 'ECDHE+AESGCM:!aNULL',
        'proxy-ssl-protocols': 'TLSv1.2',
        'proxy-ssl-verify-depth': '100',
      }),
      tlsIngress('tls13', {
        'proxy-ssl-secret': 'ca-3',
        'proxy-ssl-protocols': 'TLSv1.3',
        'proxy-ssl-server-name': 'on',
        'proxy-ssl-name': 'anything.mallory.internal',
      }),
      tlsIngress('rotating', { 'proxy-ssl-secret': 'ca-4', ...verified }),
      // Grammatical, but OpenSSL selects no cipher from it: nginx -t used to fail on it.
      tlsIngress('no-cipher', { 'proxy-ssl-secret': 'ca-5', 'proxy-ssl-ciphers': 'NO-SUCH-CIPHER' }),
    ]);
    await eventually(async () => expect(await answerOf(controller, 'trusted.mallory.test')).toBe('secure'));
    expect(await answerOf(controller, 'untrusted.mallory.test')).toBe('502');
    expect(await answerOf(controller, 'ciphers.mallory.test')).toBe('secure');
    expect(await answerOf(controller, 'tls13.mallory.test')).toBe('secure');
    expect(await answerOf(controller, 'rotating.mallory.test')).toBe('502');
    await expectTenantEvent(testCase(), 'no-cipher', 'must name a TLSv1.2 cipher OpenSSL knows');

    // A Secret that rotates to the backend's CA, and new cipher lists on a served Ingress.
    await cluster.server.apply(secret('ca-4', cas[0]!.cert));
    await eventually(async () => expect(await answerOf(controller, 'rotating.mallory.test')).toBe('secure'));
    for (const ciphers of ['HIGH', 'ECDHE-ECDSA-AES128-GCM-SHA256', 'DEFAULT:!RC4']) {
      await cluster.server.apply(
        tlsIngress('trusted', { 'proxy-ssl-secret': 'ca-0', 'proxy-ssl-ciphers': ciphers, ...verified }),
      );
    }
    await eventually(async () => expect(await answerOf(controller, 'trusted.mallory.test')).toBe('secure'));

    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
    expect(controller.dataPlane.nginxConf).toBe(conf);
    await expectVictimsUnharmed(traffic, 'backend TLS settings');
  }, 90_000);
});
