/**
 * Finding (issue #31, 2): a passthrough wildcard took another namespace's HTTPS host. With
 * --enable-ssl-passthrough the proxy consulted only its own table: a tenant's ssl-passthrough
 * Ingress for `*.reliability.test` received the raw TLS of every connection to the victim's
 * nginx-served `s.reliability.test`, and an exact passthrough host under the victim's wildcard
 * `*.apps.reliability.test` took that name.
 *
 * Now passthrough hosts are decided by the same host ownership as nginx's, wildcards included,
 * and the proxy sends a connection to the most specific match across both: a name nginx serves
 * exactly goes to nginx, whatever `*.` passthrough host covers it, and an exact passthrough host
 * under another namespace's wildcard is refused with an Event naming the owner. The tenant's own
 * names still pass through. The probe requests the victims' hosts, over HTTPS through the proxy,
 * throughout.
 */
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/ports.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  listEvents,
  serviceManifests,
  tlsSecretManifest,
} from '../harness.js';
import { tlsIngressManifest } from '../reliability/cluster.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  presentedFingerprint,
  secretFingerprint,
  TENANT,
  tenantIngress,
  useSecurityCase,
} from './tenant.js';

const testCase = useSecurityCase('passthrough-wildcard', {
  sslPassthrough: true,
  sslPassthroughProxyPort: await findFreePort(),
});

// The tenant's TLS backend: whoever reaches it sees its certificate.
const tenantCertificate = createSelfSignedCertificate({ commonName: 'tenant-passthrough' });
const tenantBackend = createTlsServer(
  { cert: tenantCertificate.certificatePem, key: tenantCertificate.privateKeyPem },
  (socket) => socket.end(),
);
await new Promise<void>((resolve) => tenantBackend.listen(0, '127.0.0.1', resolve));
afterAll(() => {
  tenantBackend.close();
});

const PASSTHROUGH = { 'nginx.ingress.kubernetes.io/ssl-passthrough': 'true' };

/** Waits for an `SslPassthroughRefused` Event on the tenant's Ingress `name` containing `fragment`. */
function expectPassthroughRefused(name: string, fragment: string): Promise<void> {
  return eventually(async () => {
    await testCase().controller.events.flush();
    const notes = (await listEvents(testCase().cluster.server.kubeConfig(), TENANT))
      .filter((event) => event.regarding?.name === name && event.reason === 'SslPassthroughRefused')
      .map((event) => event.note ?? '');
    expect(
      notes.some((note) => note.includes(fragment)),
      notes.join(' | '),
    ).toBe(true);
  });
}

describe("a tenant's ssl-passthrough hosts over the victims' HTTPS hosts", () => {
  it("take no name nginx serves for another namespace, either way round; the tenant's own names pass through", async () => {
    const { cluster, controller } = testCase();
    const victimTls = tlsSecretManifest('apps-tls', '*.apps.reliability.test');
    await cluster.server.apply([
      victimTls,
      tlsIngressManifest('apps', '*.apps.reliability.test', 'gamma', 'apps-tls'),
    ]);
    await eventually(async () =>
      expect(await answerOf(controller, 'shop.apps.reliability.test', '/', true)).toBe('gamma'),
    );
    const victimsWildcard = secretFingerprint(victimTls);
    const victimsOwn = new X509Certificate(Buffer.from(cluster.tls.crt, 'base64')).fingerprint256;
    const tenantsOwn = new X509Certificate(tenantCertificate.certificatePem).fingerprint256;
    expect(await presentedFingerprint(testCase(), 's.reliability.test')).toBe(victimsOwn);
    await sleep(1_100);
    const traffic = testCase().probeVictims([
      { name: 'wildcard https', host: 'shop.apps.reliability.test', path: '/', tls: true, expect: 'gamma' },
      { name: 'plain host over https', host: 'a.reliability.test', path: '/', tls: true, expect: 'alpha' },
    ]);
    await cluster.server.apply([
      ...serviceManifests('evil-tls', [], TENANT),
      endpointSliceManifest('evil-tls-1', 'evil-tls', (tenantBackend.address() as AddressInfo).port, TENANT),
      tenantIngress('wide', { host: '*.reliability.test', service: 'evil-tls', annotations: PASSTHROUGH }),
      tenantIngress('exact', {
        host: 'shop.apps.reliability.test',
        service: 'evil-tls',
        annotations: PASSTHROUGH,
      }),
    ]);
    const owner =
      'host shop.apps.reliability.test belongs to namespace default, whose Ingress default/apps is the oldest to name it (through its wildcard *.apps.reliability.test)';
    await expectPassthroughRefused('exact', owner);
    await expectTenantEvent(testCase(), 'exact', owner);
    // The tenant's wildcard serves the tenant's names: they pass through to its backend.
    await eventually(async () =>
      expect(await presentedFingerprint(testCase(), 'mine.reliability.test')).toBe(tenantsOwn),
    );
    expect(await presentedFingerprint(testCase(), 's.reliability.test')).toBe(victimsOwn);
    expect(await answerOf(controller, 's.reliability.test', '/', true)).toBe('gamma');
    expect(await answerOf(controller, 'a.reliability.test', '/', true)).toBe('alpha');
    expect(await presentedFingerprint(testCase(), 'a.reliability.test')).not.toBe(tenantsOwn);
    expect(await presentedFingerprint(testCase(), 'shop.apps.reliability.test')).toBe(victimsWildcard);
    expect(await answerOf(controller, 'shop.apps.reliability.test', '/', true)).toBe('gamma');
    await expectVictimsUnharmed(traffic, 'passthrough wildcard');
  });
});
