/**
 * Finding: a newer Ingress in another namespace took over a victim's host. A regex path `/.*`
 * took the whole host (HTTPS with the victim's certificate too), Exact `/` or a longer prefix took
 * those paths, and a TLS entry on a host the victim serves over plain HTTP replaced the
 * certificate and turned the victim's HTTP into redirects.
 *
 * Now a host belongs to the namespace of its oldest Ingress: the tenant's paths, regexes and TLS
 * entries on it are left out with an Event, while the probe shows the victims never lose a request.
 * (../host-ownership.integration.test.ts covers the hand-over and the shared mode.)
 */
import { X509Certificate } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { answerOf, presentedCertificate, tlsSecretManifest } from '../harness.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  useSecurityCase,
  TENANT,
  tenantIngress,
  tenantRegexIngress,
} from './tenant.js';

const testCase = useSecurityCase('takeover');

function withTls(ingress: Record<string, unknown>, host: string): Record<string, unknown> {
  (ingress.spec as Record<string, unknown>).tls = [{ hosts: [host], secretName: 'stolen-name' }];
  return ingress;
}

describe("a tenant's Ingresses on the victims' hosts", () => {
  it('are left out with an Event; the victims keep every path and their certificate', async () => {
    const { cluster, controller } = testCase();
    const exactRoot = tenantIngress('exact-root', { host: 'b.reliability.test', service: 'evil' });
    const rule = (exactRoot.spec as { rules: { http: { paths: { pathType: string }[] } }[] }).rules[0]!;
    rule.http.paths[0]!.pathType = 'Exact';
    // Creation timestamps have second precision: the tenant's Ingresses must be the younger.
    await sleep(1_100);
    const traffic = testCase().probeVictims();
    await cluster.server.apply([
      // A certificate for every victim host, made by the tenant.
      tlsSecretManifest('stolen-name', '*.reliability.test', TENANT),
      tenantRegexIngress('grab', 'a.reliability.test', '/.*'),
      exactRoot,
      tenantIngress('longer-prefix', { host: 'b.reliability.test', service: 'evil', path: '/api/items' }),
      withTls(
        tenantIngress('tls-on-http', { host: 'a.reliability.test', service: 'evil', path: '/tls' }),
        'a.reliability.test',
      ),
      withTls(
        tenantIngress('tls-on-https', { host: 's.reliability.test', service: 'evil', path: '/tls' }),
        's.reliability.test',
      ),
    ]);
    for (const [name, host] of [
      ['grab', 'a'],
      ['exact-root', 'b'],
      ['longer-prefix', 'b'],
      ['tls-on-http', 'a'],
      ['tls-on-https', 's'],
    ] as const) {
      await expectTenantEvent(testCase(), name, `host ${host}.reliability.test belongs to namespace default`);
    }
    expect(await answerOf(controller, 'a.reliability.test', '/anything')).toBe('alpha');
    expect(await answerOf(controller, 'a.reliability.test', '/tls')).toBe('alpha');
    expect(await answerOf(controller, 'b.reliability.test', '/api/items')).toBe('beta');
    expect(await answerOf(controller, 'b.reliability.test', '/')).toBe('404');
    expect(await answerOf(controller, 's.reliability.test', '/tls', true)).toBe('gamma');
    const victimCertificate = await presentedCertificate(controller, 's.reliability.test');
    const victimsOwn = new X509Certificate(Buffer.from(cluster.tls.crt, 'base64'));
    expect(victimCertificate.fingerprint256).toBe(victimsOwn.fingerprint256);
    await expectVictimsUnharmed(traffic, 'host takeover');
  });
});
