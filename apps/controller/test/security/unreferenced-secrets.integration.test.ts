/**
 * Finding 10: Secrets nothing references cost the controller memory. 350 `kubernetes.io/tls`
 * Secrets of 900 KiB in the tenant's namespace, referenced by no object (not even valid), took the
 * controller from 113 to 539 MiB, above the 512Mi limit of deploy/deployment.yaml: the store held
 * every TLS Secret whole.
 *
 * Now the store holds a Secret whole only while an Ingress or Gateway that may be the controller's
 * references it; the others are known by name and resourceVersion only, listed by their metadata
 * and dropped as soon as their watch event is parsed. What it holds is read here from /metrics
 * (`ingresskit_store_secret_data_bytes`, `ingresskit_store_secrets`), not from RSS. A Secret that
 * becomes referenced later is read at once and served, and its updates follow.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Controller } from '../../src/controller.js';
import {
  answerOf,
  eventually,
  presentedCertificate,
  startController,
  tlsSecretManifest,
} from '../harness.js';
import { expectVictimsUnharmed, TENANT, tenantIngress, useSecurityCase, withTls } from './tenant.js';

const testCase = useSecurityCase('unreferenced-secrets');

/** As many as a test process carries easily; 350 behave the same (see the report of the fix). */
const SECRETS = 40;
const SECRET_KIB = 900;
/** What the store may hold more after the tenant's Secrets came: nothing of theirs, some slack. */
const HELD_BOUND = 16 * 1024;

/** One sample of the controller's /metrics (0 when absent). */
async function metric(controller: Controller, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics?name=${name}`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * TLS Secrets `bulk-<first>` … of SECRET_KIB KiB each in the tenant's namespace (not certificates:
 * nothing reads them).
 */
function bulkSecrets(first: number, count: number): Record<string, unknown>[] {
  const half = Buffer.alloc((SECRET_KIB * 1024) / 2, 7).toString('base64');
  return Array.from({ length: count }, (_, index) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: `bulk-${first + index}`, namespace: TENANT },
    data: { 'tls.crt': half, 'tls.key': half },
  }));
}

/** The Secrets the store has seen, held whole or not. */
async function secretsSeen(controller: Controller): Promise<number> {
  return (
    (await metric(controller, 'ingresskit_store_secrets', '{held="true"}')) +
    (await metric(controller, 'ingresskit_store_secrets', '{held="false"}'))
  );
}

function fingerprintOf(secret: Record<string, unknown>): string {
  const data = secret.data as Record<string, string>;
  return new X509Certificate(Buffer.from(data['tls.crt']!, 'base64')).fingerprint256;
}

describe("a tenant's Secrets that nothing references", () => {
  it('are known by name and version only: the store holds none of their data, also after a restart', async () => {
    const { cluster } = testCase();
    const heldBefore = await metric(testCase().controller, 'ingresskit_store_secret_data_bytes');
    const seenBefore = await secretsSeen(testCase().controller);
    const unheldBefore = await metric(testCase().controller, 'ingresskit_store_secrets', '{held="false"}');
    const traffic = testCase().probeVictims();
    for (let start = 0; start < SECRETS; start += 10) {
      await cluster.server.apply(bulkSecrets(start, Math.min(10, SECRETS - start)));
    }
    await eventually(async () => expect(await secretsSeen(testCase().controller)).toBe(seenBefore + SECRETS));
    expect(await metric(testCase().controller, 'ingresskit_store_secret_data_bytes')).toBeLessThan(
      heldBefore + HELD_BOUND,
    );
    expect(await metric(testCase().controller, 'ingresskit_store_secrets', '{held="false"}')).toBe(
      unheldBefore + SECRETS,
    );
    await expectVictimsUnharmed(traffic, 'unreferenced Secrets');

    // A controller started now lists them: by their metadata, holding none of their data either.
    await testCase().controller.stop();
    testCase().controller = await startController(cluster.server, { podName: 'unreferenced-restarted' });
    expect(await secretsSeen(testCase().controller)).toBe(seenBefore + SECRETS);
    expect(await metric(testCase().controller, 'ingresskit_store_secret_data_bytes')).toBeLessThan(
      heldBefore + HELD_BOUND,
    );
    await expectVictimsUnharmed(testCase().probeVictims(), 'after a restart');
  });

  it('is read and served once an Ingress references it, and its updates follow', async () => {
    const { cluster } = testCase();
    const controller = testCase().controller;
    const host = 'later.mallory.test';
    const first = tlsSecretManifest('later-cert', host, TENANT);
    const unheldBefore = await metric(controller, 'ingresskit_store_secrets', '{held="false"}');
    const traffic = testCase().probeVictims();
    await cluster.server.apply(first);
    await eventually(async () =>
      expect(await metric(controller, 'ingresskit_store_secrets', '{held="false"}')).toBe(unheldBefore + 1),
    );

    await cluster.server.apply(
      withTls(tenantIngress('later', { host, service: 'evil' }), host, 'later-cert'),
    );
    await eventually(async () => {
      expect((await presentedCertificate(controller, host)).fingerprint256).toBe(fingerprintOf(first));
      expect(await answerOf(controller, host, '/', true)).toBe('evil');
    });

    const rotated = tlsSecretManifest('later-cert', host, TENANT);
    await cluster.server.apply(rotated);
    await eventually(async () =>
      expect((await presentedCertificate(controller, host)).fingerprint256).toBe(fingerprintOf(rotated)),
    );
    await expectVictimsUnharmed(traffic, 'a Secret referenced later');
  });
});
