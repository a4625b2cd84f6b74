/**
 * An ExternalName is a DNS name, and a tenant controls the answers for their own names: one that
 * resolves to the controller's own ports or to the metadata service, or that first resolves to a
 * harmless address and later to a forbidden one (DNS rebinding), must not lead nginx there.
 *
 * The controller resolves the names and pins each route to the addresses the policy lets through;
 * nginx never resolves a tenant's name itself. A DNS server whose records a tenant controls cannot
 * run here (no network), so the names resolve through a table this test controls, handed to the
 * controller as its lookup function; everything after the lookup is the real path.
 */
import { describe, expect, it } from 'vitest';
import { answerOf, eventually } from '../harness.js';
import {
  expectTenantEvent,
  expectVictimsUnharmed,
  lookupInZone,
  useSecurityCase,
  tenantExternalNameService,
  tenantIngress,
} from './tenant.js';

/** What each name resolves to; a tenant's DNS zone, as far as this test is concerned. */
const zone = new Map<string, string[]>();

const testCase = useSecurityCase(
  'external-names',
  {},
  {
    externalNames: {
      lookup: lookupInZone(zone),
      refreshMs: 200,
    },
  },
);

describe("ExternalName Services whose names the tenant's DNS answers", () => {
  it('reach only the addresses the policy allows, also after the answer changes', async () => {
    const { cluster, controller, evil } = testCase();
    const { healthzPort } = controller.config;
    zone.set('app.mallory.example', ['127.0.0.1']);
    zone.set('health.mallory.example', ['127.0.0.1']);
    zone.set('meta.mallory.example', ['169.254.169.254']);
    const traffic = testCase().probeVictims();
    await cluster.server.apply([
      tenantExternalNameService('app', 'app.mallory.example', evil.port),
      tenantIngress('app', { host: 'app.mallory.test', service: 'app', port: evil.port }),
      tenantExternalNameService('health', 'health.mallory.example', healthzPort),
      tenantIngress('health', {
        host: 'health.mallory.test',
        service: 'health',
        port: healthzPort,
        path: '/metrics',
      }),
      tenantExternalNameService('meta', 'meta.mallory.example', 80),
      tenantIngress('meta', { host: 'meta.mallory.test', service: 'meta' }),
      tenantExternalNameService('nowhere', 'nowhere.mallory.example', 80),
      tenantIngress('nowhere', { host: 'nowhere.mallory.test', service: 'nowhere' }),
    ]);
    // A name that resolves to an allowed address is served through that address.
    await eventually(async () => expect(await answerOf(controller, 'app.mallory.test')).toBe('evil'));
    await expectTenantEvent(
      testCase(),
      'health',
      `spec.externalName health.mallory.example resolves to addresses a backend may not point at (127.0.0.1:${healthzPort} is a port of the gateway itself); requests get 503`,
    );
    await expectTenantEvent(
      testCase(),
      'meta',
      '(169.254.169.254 is a link-local address); requests get 503',
    );
    await expectTenantEvent(
      testCase(),
      'nowhere',
      'spec.externalName nowhere.mallory.example does not resolve (ENOTFOUND)',
    );
    expect(await answerOf(controller, 'health.mallory.test', '/metrics')).toBe('503');
    expect(await answerOf(controller, 'meta.mallory.test')).toBe('503');
    expect(await answerOf(controller, 'nowhere.mallory.test')).toBe('503');

    // Rebinding: the same name now answers the metadata service.
    zone.set('app.mallory.example', ['169.254.169.254']);
    await eventually(async () => expect(await answerOf(controller, 'app.mallory.test')).toBe('503'));
    await expectTenantEvent(testCase(), 'app', '(169.254.169.254 is a link-local address); requests get 503');
    await expectVictimsUnharmed(traffic, 'ExternalName names');
  });
});
