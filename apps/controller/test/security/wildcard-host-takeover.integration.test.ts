/**
 * Finding (issue #31, 1): a wildcard host did not own the names it covers. Host ownership compared
 * hostnames as exact strings, so while the victim served `*.web.reliability.test` and
 * `*.apps.reliability.test` (HTTPS), a tenant's Ingress rule or `server-alias` for a name under
 * them took that name, on HTTP and on HTTPS with the tenant's certificate, without an Event. The
 * other way round, the tenant's younger `*.reliability.test` certificate was served for the
 * victim's older plain-HTTP hosts under it.
 *
 * Now a name belongs to the namespace of the oldest contribution to it or to a wildcard covering
 * it: the tenant's rules, aliases and TLS entries for such names are left out with an Event naming
 * the owner and its wildcard, the victim's certificate stays the same, and the victim's exact
 * names get the default certificate rather than the tenant's wildcard one. The tenant's own names
 * are served. The probe requests the victims' hosts, wildcard names included, throughout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { answerOf, eventually, ingressManifest, tlsSecretManifest } from '../harness.js';
import { tlsIngressManifest } from '../reliability/cluster.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  presentedFingerprint,
  secretFingerprint,
  TENANT,
  tenantIngress,
  useSecurityCase,
  withTls,
} from './tenant.js';

const testCase = useSecurityCase('wildcard-takeover');

describe("a tenant's names under the victim's wildcards", () => {
  it('are left out with an Event naming the wildcard; the victim keeps HTTP, HTTPS and its certificate', async () => {
    const { cluster, controller } = testCase();
    const victimTls = tlsSecretManifest('apps-tls', '*.apps.reliability.test');
    await cluster.server.apply([
      victimTls,
      ingressManifest('web', { host: '*.web.reliability.test', service: 'alpha', className: 'nginx' }),
      tlsIngressManifest('apps', '*.apps.reliability.test', 'gamma', 'apps-tls'),
    ]);
    await eventually(async () => {
      expect(await answerOf(controller, 'shop.web.reliability.test')).toBe('alpha');
      expect(await answerOf(controller, 'shop.apps.reliability.test', '/', true)).toBe('gamma');
    });
    const victimsOwn = secretFingerprint(victimTls);
    expect(await presentedFingerprint(testCase(), 'shop.apps.reliability.test')).toBe(victimsOwn);
    const defaultCertificate = await presentedFingerprint(testCase(), 'nothing-bound.example');
    // Creation timestamps have second precision: the tenant's objects must be the younger.
    await sleep(1_100);
    const traffic = testCase().probeVictims([
      { name: 'wildcard http', host: 'shop.web.reliability.test', path: '/', tls: false, expect: 'alpha' },
      {
        name: 'wildcard alias http',
        host: 'pay.web.reliability.test',
        path: '/',
        tls: false,
        expect: 'alpha',
      },
      { name: 'wildcard https', host: 'shop.apps.reliability.test', path: '/', tls: true, expect: 'gamma' },
      {
        name: 'wildcard alias https',
        host: 'pay.apps.reliability.test',
        path: '/',
        tls: true,
        expect: 'gamma',
      },
    ]);
    await cluster.server.apply([
      tlsSecretManifest('stolen', 'shop.apps.reliability.test', TENANT),
      tlsSecretManifest('wide', '*.reliability.test', TENANT),
      tenantIngress('rule-http', { host: 'shop.web.reliability.test', service: 'evil' }),
      withTls(
        tenantIngress('rule-https', { host: 'shop.apps.reliability.test', service: 'evil' }),
        'shop.apps.reliability.test',
        'stolen',
      ),
      tenantIngress('alias', {
        host: 'mallory.reliability.test',
        service: 'evil',
        annotations: {
          'nginx.ingress.kubernetes.io/server-alias': 'pay.web.reliability.test,pay.apps.reliability.test',
        },
      }),
      withTls(
        tenantIngress('tls-only', { host: 'mallory2.reliability.test', service: 'evil' }),
        'cart.apps.reliability.test',
        'stolen',
      ),
      // Younger than the victim's exact names under it: it may serve the others, not those.
      withTls(
        tenantIngress('wide', { host: '*.reliability.test', service: 'evil' }),
        '*.reliability.test',
        'wide',
      ),
    ]);
    const owner = (name: string, wildcard: string) =>
      `belongs to namespace default, whose Ingress default/${name} is the oldest to name it (through its wildcard ${wildcard})`;
    for (const [name, host, wildcard] of [
      ['rule-http', 'shop.web', 'web'],
      ['rule-https', 'shop.apps', 'apps'],
      ['alias', 'pay.web', 'web'],
      ['alias', 'pay.apps', 'apps'],
      ['tls-only', 'cart.apps', 'apps'],
    ] as const) {
      await expectTenantEvent(
        testCase(),
        name,
        `host ${host}.reliability.test ${owner(wildcard, `*.${wildcard}.reliability.test`)}`,
      );
    }
    // The tenant's own names are served, its wildcard included.
    await eventually(async () => {
      expect(await answerOf(controller, 'mallory.reliability.test')).toBe('evil');
      expect(await answerOf(controller, 'other.reliability.test', '/', true)).toBe('evil');
    });
    expect(await answerOf(controller, 'shop.web.reliability.test')).toBe('alpha');
    expect(await answerOf(controller, 'pay.web.reliability.test')).toBe('alpha');
    for (const host of ['shop', 'pay', 'cart']) {
      expect(await answerOf(controller, `${host}.apps.reliability.test`, '/', true)).toBe('gamma');
      expect(await presentedFingerprint(testCase(), `${host}.apps.reliability.test`)).toBe(victimsOwn);
    }
    // The victim's plain-HTTP hosts under the tenant's wildcard: its routes, and not its certificate.
    expect(await answerOf(controller, 'a.reliability.test', '/', true)).toBe('alpha');
    expect(await presentedFingerprint(testCase(), 'a.reliability.test')).toBe(defaultCertificate);
    expect(await presentedFingerprint(testCase(), 'b.reliability.test')).toBe(defaultCertificate);
    expect(await presentedFingerprint(testCase(), 'other.reliability.test')).not.toBe(defaultCertificate);
    await expectVictimsUnharmed(traffic, 'wildcard host takeover');
  });
});
